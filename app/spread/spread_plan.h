// What `llmscope spread` and Session > Spread run: the command lines given, each once per
// --vary value (the flag and the value added to it), each of those --repeat times; runs of
// one command line are one configuration (held to bit-identity).
#pragma once
#include <string>
#include <vector>

namespace spread {

struct Request {
    std::vector<std::string> commands; // --run, as given
    std::string flag;                  // --vary's flag ("-t"), empty for none
    std::vector<std::string> values;   // --vary's values ("1", "4")
    int repeat = 1;
    std::string folder = "llmscope_spread", rounds = "all";
    bool help = false;

    std::vector<std::string> runs() const; // the expanded command lines, in order
};

// Reads `llmscope spread`'s arguments; throws llmscope::Error naming what is wrong.
Request parseRequest(const std::vector<std::string> &args);
// --vary's text ("-t 1,2,4") into the request; throws Error when it holds no flag and values.
void setVary(Request &r, const std::string &text);

constexpr int kSteps = 2; // dump each run, compare every two

} // namespace spread
