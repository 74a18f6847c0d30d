#include "document/reason_words.h"

#include <QCoreApplication>
#include <QStringList>

#include "core/text/reason_error.h"

using namespace llmscope;

namespace {
QString separator()
{
    return QCoreApplication::translate("Reason", "; ");
}

// Core's own words among a finding's values ("the command, OMP_NUM_THREADS": what differs between
// two runs), in the window's language; names (libraries, variables, ops) stay as they are.
QString textWords(const std::string &text)
{
    static const char *const words[] = {
        QT_TRANSLATE_NOOP("ReasonText", "the command"), QT_TRANSLATE_NOOP("ReasonText", "the machine"),
        QT_TRANSLATE_NOOP("ReasonText", "fusion"), QT_TRANSLATE_NOOP("ReasonText", "nothing recorded")};
    QStringList items = QString::fromStdString(text).split(QStringLiteral(", "));
    bool any = false;
    for (QString &item : items)
        for (const char *w : words)
            if (item == QLatin1String(w)) {
                item = QCoreApplication::translate("ReasonText", w);
                any = true;
            }
    return any ? items.join(QCoreApplication::translate("ReasonText", ", ")) : QString::fromStdString(text);
}
} // namespace

QString reasonWords(const Finding &f)
{
    if (f.kind == Said::Text)
        return textWords(f.text);
    QStringList values;
    for (const Finding &v : f.values)
        values << reasonWords(v);
    if (f.kind == Said::Joined)
        return values.join(separator());
    // Filled by core's own filler, in UTF-8 (whose multibyte letters hold no '%' or digit).
    std::vector<std::string> utf8;
    for (const QString &v : values)
        utf8.push_back(v.toStdString());
    return QString::fromStdString(
        fillPattern(QCoreApplication::translate("Reason", englishPattern(f.kind)).toStdString(), utf8));
}

QString reasonWords(const Reason &r)
{
    QStringList parts;
    for (const Finding &f : r.parts())
        parts << reasonWords(f);
    return parts.join(separator());
}

QString errorWords(const std::exception &e)
{
    if (const auto *r = dynamic_cast<const ReasonError *>(&e))
        return reasonWords(r->reason());
    return QString::fromUtf8(e.what());
}
