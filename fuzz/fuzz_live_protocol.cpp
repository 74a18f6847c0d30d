// The live channel's messages, both directions: a line decoded, encoded again and decoded to
// the same message.
#include "core/live/live_protocol.h"
#include "core/util/error.h"
#include "fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    try {
        const auto m = llmscope::live::decode(llmscope::fuzz::text(data, size));
        const std::string again = llmscope::live::encode(m);
        if (llmscope::live::encode(llmscope::live::decode(again)) != again)
            __builtin_trap(); // a message that does not survive its own encoding
    } catch (const llmscope::Error &) {
    }
    return 0;
}
