// The pickle of a saved tensor (data.pkl), read by the restricted interpreter.
#include "fuzz_input.h"
#include "torch/restricted_pickle.h"
#include "util/error.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    try {
        llmscope::torchfile::readTensorPickle(std::string_view(reinterpret_cast<const char *>(data), size), "input");
    } catch (const llmscope::Error &) {
    }
    return 0;
}
