#include "document/config_words.h"

#include <QCoreApplication>
#include <QRegularExpression>
#include <QStringList>

namespace {
// names[i] in the window's language where k is one of them; else empty
template <size_t N>
QString translated(const char *const (&names)[N], const std::string &k)
{
    for (const char *name : names)
        if (k == name)
            return QCoreApplication::translate("ConfigWords", name);
    return {};
}

// A group's name in the window's language (core names them in English, as these).
QString groupName(const std::string &g)
{
    static const char *const names[] = {
        QT_TRANSLATE_NOOP("ConfigWords", "environment"), QT_TRANSLATE_NOOP("ConfigWords", "libraries"),
        QT_TRANSLATE_NOOP("ConfigWords", "hardware"),    QT_TRANSLATE_NOOP("ConfigWords", "run"),
        QT_TRANSLATE_NOOP("ConfigWords", "context"),     QT_TRANSLATE_NOOP("ConfigWords", "sampling"),
        QT_TRANSLATE_NOOP("ConfigWords", "model files")};
    const QString t = translated(names, g);
    return t.isEmpty() ? QString::fromStdString(g) : t;
}
// A setting's name in the window's language: core's fixed names, "model N ..." and "device X";
// the rest (variables, libraries) are names of their own.
QString keyName(const std::string &k)
{
    static const char *const names[] = {QT_TRANSLATE_NOOP("ConfigWords", "machine"),
                                        QT_TRANSLATE_NOOP("ConfigWords", "CPU backend features"),
                                        QT_TRANSLATE_NOOP("ConfigWords", "command"),
                                        QT_TRANSLATE_NOOP("ConfigWords", "working folder"),
                                        QT_TRANSLATE_NOOP("ConfigWords", "CPU threads"),
                                        QT_TRANSLATE_NOOP("ConfigWords", "backends that computed"),
                                        QT_TRANSLATE_NOOP("ConfigWords", "fusion kept (--keep-fusion)"),
                                        QT_TRANSLATE_NOOP("ConfigWords", "flash attention"),
                                        QT_TRANSLATE_NOOP("ConfigWords", "KV cache cells"),
                                        QT_TRANSLATE_NOOP("ConfigWords", "KV cache streams"),
                                        QT_TRANSLATE_NOOP("ConfigWords", "KV cache K type"),
                                        QT_TRANSLATE_NOOP("ConfigWords", "KV cache V type"),
                                        QT_TRANSLATE_NOOP("ConfigWords", "most tokens in a round")};
    if (const QString t = translated(names, k); !t.isEmpty())
        return t;
    const QString key = QString::fromStdString(k);
    static const QRegularExpression model(
        QStringLiteral("^model (\\d+)(?: (size|digest|architecture|tensor types))?$"));
    if (const auto m = model.match(key); m.hasMatch()) {
        static const char *const parts[] = {
            QT_TRANSLATE_NOOP("ConfigWords", "size"), QT_TRANSLATE_NOOP("ConfigWords", "digest"),
            QT_TRANSLATE_NOOP("ConfigWords", "architecture"), QT_TRANSLATE_NOOP("ConfigWords", "tensor types")};
        const QString file = QCoreApplication::translate("ConfigWords", "model %1").arg(m.captured(1));
        const QString part = translated(parts, m.captured(2).toStdString());
        return part.isEmpty() ? file : QCoreApplication::translate("ConfigWords", "%1 %2").arg(file, part);
    }
    static const QRegularExpression device(QStringLiteral("^device (.+)$"));
    if (const auto m = device.match(key); m.hasMatch())
        return QCoreApplication::translate("ConfigWords", "device %1").arg(m.captured(1));
    static const QRegularExpression driver(QStringLiteral("^driver (.+)$"));
    if (const auto m = driver.match(key); m.hasMatch())
        return QCoreApplication::translate("ConfigWords", "driver %1").arg(m.captured(1));
    static const QRegularExpression sampler(QStringLiteral("^sampler (\\d+)$"));
    if (const auto m = sampler.match(key); m.hasMatch())
        return QCoreApplication::translate("ConfigWords", "sampler %1").arg(m.captured(1));
    static const QRegularExpression prompt(QStringLiteral("^prompt tokens \\(round (\\d+)\\)$"));
    if (const auto m = prompt.match(key); m.hasMatch())
        return QCoreApplication::translate("ConfigWords", "prompt tokens (round %1)").arg(m.captured(1));
    return key;
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
                keys << keyName(x.key);
        if (keys.isEmpty())
            continue;
        const int n = int(keys.size());
        if (n > 2) // a line of the summary: the rest in its tooltip
            keys = keys.mid(0, 2) << QStringLiteral("...");
        groups << QCoreApplication::translate("ConfigWords", "%1 %2 (%3)")
                      .arg(groupName(g))
                      .arg(n)
                      .arg(keys.join(QCoreApplication::translate("ConfigWords", ", ")));
    }
    return QCoreApplication::translate("ConfigWords", "%1 of %2 settings differ: %3")
        .arg(d.differences.size())
        .arg(d.compared)
        .arg(groups.join(QCoreApplication::translate("ConfigWords", "; ")));
}
