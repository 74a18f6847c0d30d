// Small string helpers shared by the parsers.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace llmscope {

std::vector<std::string> split(std::string_view text, char sep);
std::string trim(std::string_view text);
std::string toLower(std::string_view text);
bool startsWith(std::string_view text, std::string_view prefix);
// Whole-string decimal integer (optional leading '-'); nullopt on anything else or overflow.
std::optional<int64_t> parseInt(std::string_view text);
std::optional<uint64_t> parseUInt(std::string_view text);
// msit's statistics text: six decimals, "nan"/"inf"/"-inf" for non-finite values.
std::string formatStat(double v);
void appendStat(std::string &out, double v); // the same, appended

} // namespace llmscope
