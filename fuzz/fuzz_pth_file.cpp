// torch.save files: the zip archive (libzip), then the pickle and the storage.
#include "core/torch/pth_file.h"
#include "core/util/error.h"
#include "fuzz/fuzz_input.h"

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
