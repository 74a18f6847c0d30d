// msit's .bin tensor files: the header alone and the whole file.
#include "core/tensor/bin_file.h"
#include "core/util/error.h"
#include "fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static llmscope::fuzz::InputFile file;
    const std::string &path = file.write(data, size);
    for (bool headerOnly : {true, false})
        try {
            llmscope::readBinFile(path, headerOnly);
        } catch (const llmscope::Error &) {
        }
    return 0;
}
