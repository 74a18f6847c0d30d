// The index the dump writer keeps beside an msit dump: one line per tensor file it wrote
// (its place and its header), so that a reader lists a dump of a hundred thousand files
// without walking a hundred thousand folders. llmscope/index/{device}_{pid}.tsv, appended to
// as the files are written and closed by an end line when the writer is done:
//   # llmscope tensor index 1
//   {path from the dump root}\t{file bytes}\t{header bytes}\t{dtype}\t{format}\t{dims}\t{payload bytes or -}[\t{attribute}={value}]...
//   # end {lines}
// An index without its end line, with a line after it, or with any line that does not read
// is not used: the reader walks the folder instead.
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/tensor/bin_file.h"

namespace llmscope {

// "llmscope/index/{device}_{pid}.tsv", relative to the msit_dump_* folder.
std::string tensorIndexPath(int device, int64_t pid);

std::string tensorIndexFirstLine();
std::string tensorIndexEndLine(uint64_t lines);
// The line of a tensor file written at relativePath from t, its header being headerBytes long.
// nullopt when the path cannot be one line (a tab or a line break in it).
std::optional<std::string> tensorIndexLine(const std::string &relativePath, const Tensor &t, uint64_t headerBytes);

struct IndexedFile {
    std::string relativePath;
    BinFileInfo info; // as readBinFile(path, true) would give it
};

// A whole index, read in one pass that only finds each line's round; a round's lines are
// parsed when asked for, so a reader can hand the first round over before the last is read.
class TensorIndexFile {
public:
    // nullopt when the index is absent, unfinished, written to after its end, or has a line
    // whose round cannot be read.
    static std::optional<TensorIndexFile> open(const std::string &path);
    std::vector<int64_t> rounds() const; // ascending
    // A round's files in the order written; nullopt when one of its lines does not read.
    std::optional<std::vector<IndexedFile>> files(int64_t round) const;

private:
    std::string m_text;
    std::map<int64_t, std::vector<std::pair<size_t, size_t>>> m_lines; // round -> (offset, length)
};

// The files an index lists, every round; nullopt when it is absent, unfinished or does not read.
std::optional<std::vector<IndexedFile>> readTensorIndex(const std::string &path);

} // namespace llmscope
