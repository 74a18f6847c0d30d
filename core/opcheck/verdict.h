// A replayed output's verdict, ordered by how bad it is: an op keeps its worst over its
// outputs and rounds (std::max). Written as msit writes it ("PASS") in CSV, JSON and xlsx.
#pragma once
#include <optional>
#include <string_view>

namespace llmscope {

enum class Verdict { Skip, Pass, Warn, Error, Fail };

constexpr const char *verdictName(Verdict v)
{
    switch (v) {
    case Verdict::Skip: return "SKIP";
    case Verdict::Pass: return "PASS";
    case Verdict::Warn: return "WARN";
    case Verdict::Error: return "ERROR";
    case Verdict::Fail: return "FAIL";
    }
    return "";
}

// The verdict a name stands for; nullopt for any other text.
constexpr std::optional<Verdict> parseVerdict(std::string_view name)
{
    for (Verdict v : {Verdict::Skip, Verdict::Pass, Verdict::Warn, Verdict::Error, Verdict::Fail})
        if (std::string_view(verdictName(v)) == name)
            return v;
    return std::nullopt;
}

// Failed or could not be replayed: what a summary lists first.
constexpr bool isBad(Verdict v)
{
    return v == Verdict::Fail || v == Verdict::Error;
}
// Judged against a reference (not skipped, not an error): its error means something.
constexpr bool isJudged(Verdict v)
{
    return v == Verdict::Pass || v == Verdict::Warn || v == Verdict::Fail;
}

} // namespace llmscope
