// A command's arguments read one at a time, by one rule for every llmscope command: an
// option, then its value when it takes one. A missing value, or an option the command does
// not know, is an Error naming it and the command's --help.
#pragma once
#include <cctype>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include "core/util/error.h"

namespace llmscope {

// The items of a list whose items give toStdString() (a QStringList), as the reader's words.
template <typename List>
std::vector<std::string> toWords(const List &list)
{
    std::vector<std::string> words;
    for (const auto &a : list)
        words.push_back(a.toStdString());
    return words;
}

class ArgReader {
public:
    ArgReader(std::vector<std::string> args, std::string command)
        : m_args(std::move(args)), m_command(std::move(command))
    {
    }

    // To the next option; false when none is left.
    bool next() { return ++m_i < m_args.size(); }
    const std::string &option() const { return m_args[m_i]; }
    bool is(std::initializer_list<std::string_view> names) const
    {
        for (std::string_view n : names)
            if (option() == n)
                return true;
        return false;
    }
    // Whether the next argument is a value rather than an option (a negative number is a value).
    bool valueFollows() const
    {
        if (m_i + 1 >= m_args.size())
            return false;
        const std::string &v = m_args[m_i + 1];
        return !(v.size() > 1 && v[0] == '-' && !std::isdigit(static_cast<unsigned char>(v[1])));
    }
    // The option's value: the next argument.
    std::string value()
    {
        if (!valueFollows())
            throw Error(option() + " needs a value (see llmscope " + m_command + " --help)");
        return m_args[++m_i];
    }
    // The next argument whatever it looks like: a value that may start with '-' (a flag and
    // its values given as one word, "-t 1,2,4").
    std::string anyValue()
    {
        if (m_i + 1 >= m_args.size())
            throw Error(option() + " needs a value (see llmscope " + m_command + " --help)");
        return m_args[++m_i];
    }
    [[noreturn]] void unknown() const
    {
        throw Error("unknown option '" + option() + "' (see llmscope " + m_command + " --help)");
    }

private:
    std::vector<std::string> m_args;
    std::string m_command;
    size_t m_i = size_t(-1); // before the first
};

} // namespace llmscope
