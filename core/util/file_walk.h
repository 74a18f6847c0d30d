// Every regular file under a folder, depth first. Each folder is opened relative to its
// parent (openat), so the kernel does not walk the whole path again for every folder of a
// deep dump tree. Symbolic links to files count as files; links to folders are not followed.
#pragma once
#include <functional>
#include <string>

namespace llmscope {

// file(path) for each regular file ("root/a/b.bin"). Folders that cannot be read are passed
// to problem(path, why) and skipped. Throws Error when root itself cannot be opened.
void walkFiles(const std::string &root, const std::function<void(const std::string &)> &file,
               const std::function<void(const std::string &, const std::string &)> &problem);

// The same, with two choices: enter(path) says whether to walk into a folder (false: the
// caller walks it later, or never), and links must stay inside `boundary` (a walk of one
// part of a dump keeps the whole dump's boundary) instead of inside root.
void walkFiles(const std::string &root, const std::function<void(const std::string &)> &file,
               const std::function<void(const std::string &, const std::string &)> &problem,
               const std::function<bool(const std::string &)> &enter, const std::string &boundary);

} // namespace llmscope
