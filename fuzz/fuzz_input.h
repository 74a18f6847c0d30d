// What the fuzz targets share: an input as a file for readers that take a path (an anonymous
// memory file, /proc/self/fd/N), and the rule that a reader may refuse an input only with
// llmscope::Error: any other exception escapes and is reported as a finding, as a crash is.
#pragma once
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <system_error>

#include <sys/mman.h>
#include <unistd.h>

namespace llmscope::fuzz {

// A folder of this process's own under the temporary directory (TMPDIR), named NAME-PID, and
// removed when the run ends (libFuzzer ends with exit(): static objects go then).
class ScratchFolder {
public:
    explicit ScratchFolder(const std::string &name)
        : m_path(std::filesystem::temp_directory_path() / (name + "-" + std::to_string(::getpid())))
    {
        std::error_code ec;
        std::filesystem::remove_all(m_path, ec);
    }
    ~ScratchFolder()
    {
        std::error_code ec;
        std::filesystem::remove_all(m_path, ec);
    }
    const std::filesystem::path &path() const { return m_path; }

private:
    std::filesystem::path m_path;
};

// A file holding data, open for the whole run and rewritten for each input.
class InputFile {
public:
    InputFile() : m_fd(::memfd_create("llmscope-fuzz", 0)) {}
    ~InputFile() { ::close(m_fd); }
    const std::string &write(const uint8_t *data, size_t size)
    {
        if (::ftruncate(m_fd, 0) != 0 || ::pwrite(m_fd, data, size, 0) != ssize_t(size))
            __builtin_trap();
        return m_path;
    }

private:
    int m_fd;
    std::string m_path = "/proc/self/fd/" + std::to_string(m_fd);
};

inline std::string text(const uint8_t *data, size_t size)
{
    return std::string(reinterpret_cast<const char *>(data), size);
}

} // namespace llmscope::fuzz
