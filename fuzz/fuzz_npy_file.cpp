// NumPy .npy files.
#include "core/tensor/npy_file.h"
#include "core/util/error.h"
#include "fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static llmscope::fuzz::InputFile file;
    try {
        llmscope::readNpy(file.write(data, size));
    } catch (const llmscope::Error &) {
    }
    return 0;
}
