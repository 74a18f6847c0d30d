#include "core/launch/command_line.h"

#include <algorithm>
#include <cctype>

#include "core/util/error.h"

namespace llmscope {
namespace {

struct Word {
    std::string text;
    size_t quotedFrom; // the first quoted or escaped character's index, npos when none
};

std::vector<Word> splitWords(const std::string &text)
{
    std::vector<Word> out;
    std::string cur;
    size_t quotedFrom = std::string::npos; // where cur's first quoted or escaped character is
    bool have = false;
    char quote = 0;
    for (size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (quote == '\'') {
            if (c == '\'')
                quote = 0;
            else
                cur += c;
            continue;
        }
        if (quote == '"') {
            if (c == '"') {
                quote = 0;
            } else if (c == '\\' && i + 1 < text.size() &&
                       std::string("\"\\$`").find(text[i + 1]) != std::string::npos) {
                cur += text[++i];
            } else if (c == '`' || (c == '$' && i + 1 < text.size() && text[i + 1] == '(')) {
                throw Error("--exec: command substitution needs a shell, and llmscope runs the command without "
                            "one; put the command in a script and pass 'bash script.sh'");
            } else {
                cur += c;
            }
            continue;
        }
        if (c == '\'' || c == '"') {
            quote = c;
            quotedFrom = std::min(quotedFrom, cur.size());
            have = true;
        } else if (c == '\\' && i + 1 < text.size()) {
            quotedFrom = std::min(quotedFrom, cur.size());
            cur += text[++i];
            have = true;
        } else if (c == ' ' || c == '\t') {
            if (have)
                out.push_back({cur, quotedFrom});
            cur.clear();
            quotedFrom = std::string::npos;
            have = false;
        } else if (std::string("|;&<>`\n\r").find(c) != std::string::npos ||
                   (c == '$' && i + 1 < text.size() && text[i + 1] == '(')) {
            throw Error(std::string("--exec: '") +
                        (c == '\n' || c == '\r' ? std::string("newline") : std::string(1, c)) +
                        "' needs a shell (redirection, pipes, command lists), and llmscope runs the command "
                        "without one, as msit does; put the command in a script and pass 'bash script.sh'");
        } else {
            cur += c;
            have = true;
        }
    }
    if (quote)
        throw Error(std::string("--exec: unterminated ") + quote + " quote");
    if (have)
        out.push_back({cur, quotedFrom});
    if (out.empty())
        throw Error("--exec: the command is empty; give the inference program to run, e.g. "
                    "--exec \"./llama-cli -m model.gguf -p hi\"");
    return out;
}

// a as one shell word: as it is where it is plain, else in single quotes.
std::string quoted(const std::string &a)
{
    const bool plain = !a.empty() &&
        a.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                            "0123456789_-./=:,+@%") == std::string::npos;
    if (plain)
        return a;
    std::string out = "'";
    for (char c : a)
        out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return out + "'";
}

// NAME=value typed as such: a quote or backslash before the '=' makes it a plain word.
bool assigns(const Word &w)
{
    return isAssignment(w.text) && w.text.find('=') < w.quotedFrom;
}

} // namespace

bool isAssignment(const std::string &s)
{
    const size_t eq = s.find('=');
    if (eq == 0 || eq == std::string::npos || std::isdigit(static_cast<unsigned char>(s[0])))
        return false;
    return std::all_of(s.begin(), s.begin() + long(eq),
                       [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
}

std::vector<std::string> splitCommand(const std::string &text)
{
    std::vector<std::string> out;
    for (Word &w : splitWords(text))
        out.push_back(std::move(w.text));
    return out;
}

CommandLine parseCommandLine(const std::string &text)
{
    const std::vector<Word> words = splitWords(text);
    CommandLine c;
    size_t i = 0;
    auto settings = [&] {
        for (; i < words.size() && assigns(words[i]); ++i) {
            const size_t eq = words[i].text.find('=');
            c.environment.emplace_back(words[i].text.substr(0, eq), words[i].text.substr(eq + 1));
        }
    };
    settings();
    // `env NAME=value ... program`, as presets and scripts write it; a lone `env` (or one with
    // options of its own) is the program.
    if (i + 1 < words.size() && words[i].text == "env" && words[i].quotedFrom == std::string::npos &&
        assigns(words[i + 1])) {
        ++i;
        settings();
    }
    for (; i < words.size(); ++i)
        c.words.push_back(words[i].text);
    if (c.words.empty())
        throw Error("--exec: '" + text + "' sets " + c.environment.front().first +
                    " but names no program to run; give the program after the settings, e.g. "
                    "\"GGML_VK_VISIBLE_DEVICES=0 ./llama-cli -m model.gguf\"");
    return c;
}

Environment parseEnvironment(const std::string &text)
{
    Environment e;
    if (text.find_first_not_of(" \t") == std::string::npos)
        return e;
    for (const Word &w : splitWords(text)) {
        if (!assigns(w))
            throw Error("'" + w.text +
                        "' is not a setting: write each as NAME=value, separated by spaces "
                        "(quote a value with spaces: NAME='a b')");
        const size_t eq = w.text.find('=');
        e.emplace_back(w.text.substr(0, eq), w.text.substr(eq + 1));
    }
    return e;
}

std::string joinCommand(const std::vector<std::string> &args)
{
    std::string out;
    for (const auto &a : args) {
        std::string word = quoted(a);
        // A program named like a setting (or `env`) is quoted, or it would read back as one.
        if (out.empty() && word == a && (isAssignment(a) || a == "env"))
            word = "'" + a + "'";
        out += (out.empty() ? "" : " ") + word;
    }
    return out;
}

std::string joinEnvironment(const Environment &e)
{
    std::string out;
    for (const auto &[k, v] : e)
        out += (out.empty() ? "" : " ") + k + "=" + (v.empty() ? std::string() : quoted(v));
    return out;
}

std::string joinCommandLine(const CommandLine &c)
{
    const std::string env = joinEnvironment(c.environment), program = joinCommand(c.words);
    return env.empty() ? program : program.empty() ? env : env + " " + program;
}

} // namespace llmscope
