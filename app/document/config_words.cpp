#include "config_words.h"

#include <QCoreApplication>
#include <QStringList>

namespace {
// A group's name in the window's language (core names them in English, as these).
QString groupName(const std::string &g)
{
    static const char *const names[] = {QT_TRANSLATE_NOOP("ConfigWords", "environment"),
                                        QT_TRANSLATE_NOOP("ConfigWords", "libraries"),
                                        QT_TRANSLATE_NOOP("ConfigWords", "hardware"),
                                        QT_TRANSLATE_NOOP("ConfigWords", "run"),
                                        QT_TRANSLATE_NOOP("ConfigWords", "context"),
                                        QT_TRANSLATE_NOOP("ConfigWords", "model files")};
    for (const char *name : names)
        if (g == name)
            return QCoreApplication::translate("ConfigWords", name);
    return QString::fromStdString(g);
}
} // namespace

QString configDiffWords(const llmscope::ConfigDiff &d)
{
    if (d.differences.empty())
        return QCoreApplication::translate("ConfigWords", "the same in both runs (%n setting(s) compared)", nullptr,
                                           int(d.compared));
    QStringList groups;
    for (const std::string &g : llmscope::configGroups()) {
        QStringList keys;
        for (const auto &x : d.differences)
            if (x.group == g)
                keys << QString::fromStdString(x.key);
        if (keys.isEmpty())
            continue;
        const int n = int(keys.size());
        if (n > 2) // a line of the summary: the rest in its tooltip
            keys = keys.mid(0, 2) << QStringLiteral("...");
        groups << QCoreApplication::translate("ConfigWords", "%1 %2 (%3)")
                      .arg(groupName(g))
                      .arg(n)
                      .arg(keys.join(QStringLiteral(", ")));
    }
    return QCoreApplication::translate("ConfigWords", "%1 of %2 settings differ: %3")
        .arg(d.differences.size())
        .arg(d.compared)
        .arg(groups.join(QCoreApplication::translate("ConfigWords", "; ")));
}
