// A command's words to the user: on stderr, flushed at once, so they interleave with the
// program's own output in the order they happen (stdout may carry data).
#pragma once
#include <QString>

#include <cstdio>
#include <string>

namespace cli {

inline void say(const char *s)
{
    std::fputs(s, stderr);
    std::fflush(stderr);
}
inline void say(const std::string &s)
{
    say(s.c_str());
}
inline void say(const QString &s)
{
    say(s.toLocal8Bit().constData());
}

} // namespace cli
