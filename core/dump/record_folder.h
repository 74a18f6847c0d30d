// The records llmscope keeps beside a dump, one JSON file a round under
// llmscope/{kind}/{pid}/{round}.json (tokens, outputs, fusion): where they are, and each read.
#pragma once
#include <nlohmann/json_fwd.hpp>

#include <functional>
#include <string>

namespace llmscope {

// The first process folder under llmscope/KIND of a dump (its records, one file a round), or
// "" when there is none; an -o folder's first msit_dump_* is looked into.
std::string firstRecordFolder(const std::string &dumpRoot, const std::string &kind);

// Each record file of that folder, parsed and handed to read with the words that start its
// error ("token record '...' is malformed: "). Throws Error naming the file for text that is
// no JSON, or whatever read throws (nlohmann's errors and Error, the words put first).
// firstOnly: the earliest round's file alone (the lowest number), not every round's.
void readRecords(const std::string &dumpRoot, const std::string &kind, const std::string &what,
                 const std::function<void(const nlohmann::json &record, const std::string &malformed)> &read,
                 bool firstOnly = false);

} // namespace llmscope
