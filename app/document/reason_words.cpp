#include "reason_words.h"

#include <QCoreApplication>
#include <QStringList>

#include "text/reason_error.h"

using namespace llmscope;

namespace {
QString separator()
{
    return QCoreApplication::translate("Reason", "; ");
}
} // namespace

QString reasonWords(const Finding &f)
{
    if (f.kind == Said::Text)
        return QString::fromStdString(f.text);
    QStringList values;
    for (const Finding &v : f.values)
        values << reasonWords(v);
    if (f.kind == Said::Joined)
        return values.join(separator());
    // Filled by core's own filler, in UTF-8 (whose multibyte letters hold no '%' or digit).
    std::vector<std::string> utf8;
    for (const QString &v : values)
        utf8.push_back(v.toStdString());
    return QString::fromStdString(fillPattern(QCoreApplication::translate("Reason", englishPattern(f.kind)).toStdString(), utf8));
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
