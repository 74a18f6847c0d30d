// Topology JSON: msit's model and layer files, and msit's PyTorch model_tree.json.
#include "core/dump/topology.h"
#include "core/util/error.h"
#include "fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const std::string text = llmscope::fuzz::text(data, size);
    for (auto parse : {llmscope::parseModelTopology, llmscope::parseLayerTopology, llmscope::parseTorchModelTree})
        try {
            const llmscope::TopoNode n = parse(text);
            llmscope::writeModelTopology(n); // what is read can be written back
        } catch (const llmscope::Error &) {
        }
    return 0;
}
