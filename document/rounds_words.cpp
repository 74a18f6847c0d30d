#include "document/rounds_words.h"

#include <QCoreApplication>
#include <QStringList>

#include <limits>

#include "core/select/rounds.h"
#include "core/util/error.h"

QString roundsWords(const QString &er)
{
    llmscope::Rounds rounds;
    try {
        if (!er.trimmed().isEmpty())
            rounds = llmscope::Rounds::parse(er.trimmed().toStdString(), true);
    } catch (const llmscope::Error &) {
        bool one = false; // a round's number alone
        er.trimmed().toLongLong(&one);
        return one ? QCoreApplication::translate("RoundsWords", "round %1").arg(er.trimmed())
                   : QCoreApplication::translate("RoundsWords", "rounds %1").arg(er);
    }
    // the hunt's "every round" is 0 to int32's largest: said as from its first on
    constexpr int64_t endless = std::numeric_limits<int32_t>::max();
    const auto &ranges = rounds.ranges();
    if (rounds.isAll() || (ranges.size() == 1 && ranges[0].first == 0 && ranges[0].second >= endless))
        return QCoreApplication::translate("RoundsWords", "every round");
    QStringList parts;
    int64_t count = 0;
    for (const auto &[first, last] : ranges) {
        parts << (last >= endless     ? QCoreApplication::translate("RoundsWords", "%1 on").arg(first)
                      : first == last ? QString::number(first)
                                      : QStringLiteral("%1-%2").arg(first).arg(last));
        count += last >= endless ? 2 : last - first + 1;
    }
    return count == 1 ? QCoreApplication::translate("RoundsWords", "round %1").arg(parts.value(0))
                      : QCoreApplication::translate("RoundsWords", "rounds %1").arg(parts.join(QStringLiteral(", ")));
}
