// The pickle of a saved tensor (data.pkl), read by the restricted interpreter.
#include "core/torch/restricted_pickle.h"
#include "core/util/error.h"
#include "fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    try {
        llmscope::torchfile::readTensorPickle(std::string_view(reinterpret_cast<const char *>(data), size), "input");
    } catch (const llmscope::Error &) {
    }
    return 0;
}
