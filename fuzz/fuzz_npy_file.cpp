// NumPy .npy files.
#include "fuzz_input.h"
#include "tensor/npy_file.h"
#include "util/error.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static llmscope::fuzz::InputFile file;
    try {
        llmscope::readNpy(file.write(data, size));
    } catch (const llmscope::Error &) {
    }
    return 0;
}
