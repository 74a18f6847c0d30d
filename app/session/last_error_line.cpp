#include "app/session/last_error_line.h"

QString lastErrorLine(const QStringList &lines)
{
    for (auto it = lines.crbegin(); it != lines.crend(); ++it) {
        const QString line = it->trimmed();
        if (!line.isEmpty() && !line.startsWith(QLatin1String("[llmscope")) &&
            !line.startsWith(QLatin1String("llmscope dump:")))
            return line.size() > 300 ? line.left(300) + QStringLiteral("...") : line;
    }
    return {};
}
