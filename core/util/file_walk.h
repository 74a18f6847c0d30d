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

} // namespace llmscope
