// Crash-safe file output: content goes to a temporary name in the same folder and is
// renamed into place only when complete, so a killed writer never leaves a truncated file
// under the final name.
#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include <sys/types.h>

namespace llmscope {

// Throws Error (with errno's text) on any failure; the temporary file is removed.
void writeFileAtomic(const std::string &path, const std::vector<std::span<const uint8_t>> &parts, mode_t mode = 0640);
void writeFileAtomic(const std::string &path, const std::string &content, mode_t mode = 0640);
// The same for `name` in the open folder dirFd, whatever its path has become since it was
// opened (a dump's folders, see DumpWriter); shownPath names the file in errors.
void writeFileAtomicAt(int dirFd, const std::string &name, const std::string &shownPath,
                       const std::vector<std::span<const uint8_t>> &parts, mode_t mode = 0640);

// mkdir -p with the given mode for every folder it creates.
void makeDirs(const std::string &path, mode_t mode = 0750);

// Whole file into memory; throws Error naming the path.
std::vector<uint8_t> readWholeFile(const std::string &path);
// The same for `name` in the open folder dirFd; noFollow: a link there is refused.
std::vector<uint8_t> readWholeFileAt(int dirFd, const std::string &name, const std::string &shownPath, bool noFollow);

} // namespace llmscope
