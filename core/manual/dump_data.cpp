#include "core/manual/dump_data.h"

#include <filesystem>

#include <nlohmann/json.hpp>
#include <unistd.h>

#include "core/dump/dump_layout.h"
#include "core/tensor/npy_file.h"
#include "core/util/atomic_file.h"
#include "core/util/error.h"

namespace llmscope {

ManualDumper::ManualDumper(std::string source, std::string dir) : m_source(std::move(source))
{
    if (m_source != "golden" && m_source != "acl")
        throw Error("dump_data: data_src must be \"golden\" or \"acl\", not \"" + m_source + "\"");
    m_folder = std::filesystem::absolute(dir).string() + "/" + std::to_string(::getpid()) + "_cmp_dump_data/" +
        m_source + "_tensor";
    makeDirs(m_folder);
}

std::string ManualDumper::metadataPath() const
{
    return m_folder + "/metadata.json";
}

std::string ManualDumper::dumpData(const std::string &dataId, const Tensor &value, int64_t tokenId)
{
    const std::string dir = m_folder + "/" + std::to_string(tokenId);
    makeDirs(dir);
    const std::string path = dir + "/" + sanitizeName(dataId + "_tensor.npy");
    writeNpy(path, value);
    record(dataId, tokenId, path);
    return path;
}

void ManualDumper::dumpPath(const std::string &dataId, const std::string &tensorPath, int64_t tokenId)
{
    record(dataId, tokenId, std::filesystem::absolute(tensorPath).string());
}

void ManualDumper::record(const std::string &dataId, int64_t tokenId, const std::string &path)
{
    nlohmann::json meta = nlohmann::json::object();
    if (std::filesystem::exists(metadataPath())) {
        const auto bytes = readWholeFile(metadataPath());
        meta = nlohmann::json::parse(bytes.begin(), bytes.end(), nullptr, false);
        if (!meta.is_object())
            throw Error("'" + metadataPath() + "' is not a metadata object; move it away to start anew");
    }
    meta[dataId][std::to_string(tokenId)].push_back(path);
    writeFileAtomic(metadataPath(), meta.dump(1) + "\n");
}

} // namespace llmscope
