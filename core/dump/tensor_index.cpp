#include "core/dump/tensor_index.h"

#include <charconv>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string_view>

#include "core/util/text.h"

namespace llmscope {
namespace {

constexpr std::string_view kFirst = "# llmscope tensor index 1";
constexpr std::string_view kEnd = "# end ";

template <typename T>
bool number(std::string_view s, T &out)
{
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
    return ec == std::errc() && end == s.data() + s.size();
}

// Splits line at tabs into fields (views into line).
std::vector<std::string_view> fields(std::string_view line)
{
    std::vector<std::string_view> out;
    size_t start = 0;
    for (size_t tab; (tab = line.find('\t', start)) != std::string_view::npos; start = tab + 1)
        out.push_back(line.substr(start, tab - start));
    out.push_back(line.substr(start));
    return out;
}

std::optional<IndexedFile> parseLine(std::string_view line)
{
    const auto f = fields(line);
    if (f.size() < 7 || f[0].empty())
        return std::nullopt;
    IndexedFile file;
    file.relativePath = std::string(f[0]);
    BinFileInfo &info = file.info;
    Tensor &t = info.tensor;
    uint64_t payload = 0;
    if (!number(f[1], info.fileSize) || !number(f[2], info.dataStart) || !number(f[3], t.dtype) ||
        !number(f[4], t.format))
        return std::nullopt;
    try {
        t.dims = parseDims(std::string(f[5]));
    } catch (const std::exception &) {
        return std::nullopt;
    }
    t.hasData = f[6] != "-";
    if (t.hasData) {
        if (!number(f[6], payload) || info.dataStart > info.fileSize || payload > info.fileSize - info.dataStart)
            return std::nullopt;
        info.objectLength = payload;
        info.objects.push_back({0, payload});
    }
    for (size_t i = 7; i < f.size(); ++i) {
        const size_t eq = f[i].find('=');
        if (eq == std::string_view::npos || eq == 0)
            return std::nullopt;
        t.attrs.emplace_back(std::string(f[i].substr(0, eq)), std::string(f[i].substr(eq + 1)));
    }
    return file;
}

} // namespace

std::string tensorIndexPath(int device, int64_t pid)
{
    return "llmscope/index/" + std::to_string(device) + "_" + std::to_string(pid) + ".tsv";
}

std::string tensorIndexFirstLine()
{
    return std::string(kFirst) + "\n";
}

std::string tensorIndexEndLine(uint64_t lines)
{
    return std::string(kEnd) + std::to_string(lines) + "\n";
}

std::optional<std::string> tensorIndexLine(const std::string &relativePath, const Tensor &t, uint64_t headerBytes)
{
    for (unsigned char c : relativePath)
        if (c == '\t' || c == '\n' || c == '\r')
            return std::nullopt;
    const uint64_t payload = t.hasData ? t.data.size() : 0;
    std::string line = relativePath;
    line += '\t' + std::to_string(headerBytes + payload) + '\t' + std::to_string(headerBytes) + '\t' +
        std::to_string(t.dtype) + '\t' + std::to_string(t.format) + '\t' + joinDims(t.dims) + '\t' +
        (t.hasData ? std::to_string(payload) : std::string("-"));
    for (const auto &[k, v] : t.attrs) // the header refuses control characters and '=' in them
        line += '\t' + k + '=' + v;
    line += '\n';
    return line;
}

std::optional<TensorIndexFile> TensorIndexFile::open(const std::string &path)
{
    // Read whole: a file larger than any real index (a line is a few hundred bytes; a million
    // tensor files make a few hundred MB) is not one, and is walked instead.
    constexpr std::uintmax_t kLargest = std::uintmax_t(1) << 30;
    std::error_code ec;
    const std::uintmax_t size = std::filesystem::file_size(path, ec);
    if (ec || size > kLargest)
        return std::nullopt;
    std::ifstream in(path, std::ios::binary);
    if (!in)
        return std::nullopt;
    TensorIndexFile f;
    f.m_text.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    if (in.bad())
        return std::nullopt;
    const std::string_view text = f.m_text;
    size_t at = 0;
    auto nextLine = [&](std::string_view &line) {
        if (at >= text.size())
            return false;
        const size_t eol = text.find('\n', at);
        if (eol == std::string_view::npos) // a torn last line: no end line either
            return false;
        line = text.substr(at, eol - at);
        at = eol + 1;
        return true;
    };
    std::string_view line;
    if (!nextLine(line) || line != kFirst)
        return std::nullopt;
    uint64_t lines = 0;
    bool ended = false;
    while (nextLine(line)) {
        if (ended) // written to after it was closed: another writer's lines, not to be trusted
            return std::nullopt;
        if (line.substr(0, kEnd.size()) == kEnd) {
            uint64_t count = 0;
            if (!number(line.substr(kEnd.size()), count) || count != lines)
                return std::nullopt;
            ended = true;
            continue;
        }
        // tensors/{device}_{pid}/{round}/...: the round is the third part of the path
        size_t a = line.find('/');
        a = a == std::string_view::npos ? a : line.find('/', a + 1);
        const size_t b = a == std::string_view::npos ? a : line.find_first_of("/\t", a + 1);
        int64_t round = 0;
        if (b == std::string_view::npos || !number(line.substr(a + 1, b - a - 1), round))
            return std::nullopt;
        f.m_lines[round].emplace_back(size_t(line.data() - text.data()), line.size());
        ++lines;
    }
    if (!ended || at != text.size())
        return std::nullopt;
    return f;
}

std::vector<int64_t> TensorIndexFile::rounds() const
{
    std::vector<int64_t> out;
    for (const auto &[round, lines] : m_lines)
        out.push_back(round);
    return out;
}

std::optional<std::vector<IndexedFile>> TensorIndexFile::files(int64_t round) const
{
    const auto it = m_lines.find(round);
    if (it == m_lines.end())
        return std::vector<IndexedFile>();
    std::vector<IndexedFile> out;
    out.reserve(it->second.size());
    for (const auto &[offset, length] : it->second) {
        auto file = parseLine(std::string_view(m_text).substr(offset, length));
        if (!file)
            return std::nullopt;
        out.push_back(std::move(*file));
    }
    return out;
}

std::optional<std::vector<IndexedFile>> readTensorIndex(const std::string &path)
{
    const auto index = TensorIndexFile::open(path);
    if (!index)
        return std::nullopt;
    std::vector<IndexedFile> out;
    for (int64_t round : index->rounds()) {
        auto files = index->files(round);
        if (!files)
            return std::nullopt;
        std::move(files->begin(), files->end(), std::back_inserter(out));
    }
    return out;
}

} // namespace llmscope
