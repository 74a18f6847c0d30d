#include "core/util/program_files.h"

#include <filesystem>

namespace llmscope {

const std::string &programFolder()
{
    static const std::string folder = [] {
        std::error_code ec;
        std::string exe = std::filesystem::read_symlink("/proc/self/exe", ec).string();
        const std::string deleted = " (deleted)";
        if (!ec && exe.size() > deleted.size() &&
            exe.compare(exe.size() - deleted.size(), deleted.size(), deleted) == 0)
            exe.resize(exe.size() - deleted.size());
        return ec ? std::string(".") : std::filesystem::path(exe).parent_path().string();
    }();
    return folder;
}

bool installedBesideProgram(const std::string &name)
{
    std::error_code ec;
    return std::filesystem::is_regular_file(std::filesystem::path(programFolder()) / "../lib/llmscope" / name, ec);
}

std::string besideProgram(const std::string &name)
{
    const std::filesystem::path lib = std::filesystem::path(programFolder()) / "../lib";
    return (installedBesideProgram(name) ? lib / "llmscope" / name : lib / name).lexically_normal().string();
}

} // namespace llmscope
