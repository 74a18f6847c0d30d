// torch.save files: the zip archive (libzip), then the pickle and the storage.
#include "fuzz_input.h"
#include "torch/pth_file.h"
#include "util/error.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static llmscope::fuzz::InputFile file;
    const std::string &path = file.write(data, size);
    for (bool withData : {false, true})
        try {
            llmscope::readPth(path, withData);
        } catch (const llmscope::Error &) {
        }
    return 0;
}
