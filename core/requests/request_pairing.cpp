#include "core/requests/request_pairing.h"

#include <algorithm>
#include <climits>
#include <filesystem>
#include <map>

#include "core/requests/request_view.h"
#include "core/run_spread/batch_alignment.h"

namespace fs = std::filesystem;

namespace llmscope {
namespace {

// The request a side chose, or a dump's only one; its last position.
Request requestOf(const std::string &dump, const RequestChoice &choice)
{
    const std::vector<Request> requests = requestsOf(readTokenRecords(dump));
    if (choice.chosen() || requests.size() != 1)
        return chooseRequest(requests, choice.chosen() ? choice : RequestChoice{0, 0}, dump);
    return requests.front();
}

// Each view's tensor files by round and place below it ("3/1_DecoderLayer/2_MUL_MAT/after/outtensor0.bin").
std::map<std::string, fs::path> filesOf(const std::string &dump)
{
    std::map<std::string, fs::path> out;
    const fs::path tensors = fs::path(dump) / "tensors";
    std::error_code ec;
    for (auto it = fs::recursive_directory_iterator(tensors, ec); !ec && it != fs::recursive_directory_iterator();
         it.increment(ec))
        if (it->is_regular_file()) {
            const std::string rel = fs::relative(it->path(), tensors).string();
            if (const size_t slash = rel.find('/'); slash != std::string::npos) // below its {device}_{pid} folder
                out[rel.substr(slash + 1)] = it->path();
        }
    return out;
}

// The files only one view holds, removed from it: what one side's batching left out, the other
// leaves out too. Returns how many.
int keepCommonFiles(const std::string &a, const std::string &b)
{
    const auto fa = filesOf(a), fb = filesOf(b);
    int removed = 0;
    std::error_code ec;
    for (const auto &[key, path] : fa)
        if (!fb.count(key))
            removed += fs::remove(path, ec);
    for (const auto &[key, path] : fb)
        if (!fa.count(key))
            removed += fs::remove(path, ec);
    return removed;
}

std::string view(const std::string &dump, const Request &r, int32_t upTo, const std::string &dir,
                 const std::string &side, std::vector<std::string> &notes)
{
    const RequestView v = viewOfRequest(dump, r, dir, upTo);
    std::string note = side + ": " + describeRequest(r);
    if (upTo < r.lastPosition)
        note += "; its positions after " + std::to_string(upTo) + " left out (the other side computed none)";
    if (v.sliced || v.leftOut)
        note += "; " + std::to_string(v.sliced) + " file(s) of shared rounds cut to its rows, " +
            std::to_string(v.leftOut) + " left out (they hold no row a token)";
    notes.push_back(note);
    return v.dump;
}

} // namespace

RequestPairing pairRequests(const std::string &golden, const RequestChoice &goldenChoice, const std::string &my,
                            const RequestChoice &myChoice, const std::string &workDir)
{
    RequestPairing p{golden, my, {}};
    if (!goldenChoice.chosen() && !myChoice.chosen())
        return p;
    // Both sides as requests, the same positions on both: the side not chosen is its dump's only
    // request, viewed by the same rules so that both leave out the same kinds of file.
    const Request g = requestOf(golden, goldenChoice), m = requestOf(my, myChoice);
    // Positions not recorded (-1: a device computed the rotation from its own copy): no cut.
    const int32_t upTo =
        g.lastPosition < 0 || m.lastPosition < 0 ? INT32_MAX : std::min(g.lastPosition, m.lastPosition);
    p.golden = view(golden, g, upTo, workDir + "/golden", "golden", p.notes);
    p.my = view(my, m, upTo, workDir + "/my", "my", p.notes);
    if (const auto a = alignByPosition(p.golden, p.my, workDir + "/lined-up")) {
        p.my = a->dump;
        p.notes.push_back("my lined up in golden's rounds by position: " + std::to_string(a->aligned) +
                          " file(s) gathered row by row, " + std::to_string(a->copied) + " taken whole, " +
                          std::to_string(a->leftOut) + " left out");
    }
    if (const int removed = keepCommonFiles(p.golden, p.my))
        p.notes.push_back(std::to_string(removed) + " file(s) only one side's view holds, left out of both");
    return p;
}

} // namespace llmscope
