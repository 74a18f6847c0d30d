#include "core/dump/op_files.h"

#include <algorithm>
#include <filesystem>

#include "core/dump/dump_layout.h"
#include "core/util/text.h"

namespace llmscope {
namespace fs = std::filesystem;

OpFiles findOpFiles(const std::string &root, const std::string &opPath, int64_t maxRound)
try {
    OpFiles out;
    std::error_code ec;
    // The dump itself, or a folder holding dumps (an -o folder with its msit_dump_* inside).
    std::vector<fs::path> tensorRoots{fs::path(root) / "tensors"};
    if (!fs::is_directory(tensorRoots[0], ec))
        for (const auto &d : fs::directory_iterator(root, ec))
            if (fs::is_directory(d.path() / "tensors", ec))
                tensorRoots.push_back(d.path() / "tensors");
    std::vector<std::pair<int64_t, fs::path>> rounds;
    for (const fs::path &tensors : tensorRoots) {
        for (const auto &proc : fs::directory_iterator(tensors, ec)) {
            std::error_code e2;
            for (const auto &r : fs::directory_iterator(proc.path(), e2)) {
                const auto n = parseInt(r.path().filename().string());
                if (n && (maxRound < 0 || *n <= maxRound))
                    rounds.emplace_back(*n, r.path());
            }
        }
    }
    std::sort(rounds.begin(), rounds.end(), [](const auto &a, const auto &b) { return a.first > b.first; });
    for (const auto &[round, dir] : rounds) {
        const fs::path op = dir / opPath;
        if (!fs::is_directory(op, ec))
            continue;
        for (const char *side : {"before", "after"})
            for (const auto &f : fs::directory_iterator(op / side, ec)) {
                if (f.is_regular_file(ec) && isTensorFile(f.path().string()))
                    out.files.push_back(f.path().string());
            }
        if (!out.files.empty()) {
            std::sort(out.files.begin(), out.files.end());
            out.round = round;
            return out;
        }
    }
    return out;
} catch (const std::exception &) { // a folder that went away while listed: nothing to show
    return {};
}

} // namespace llmscope
