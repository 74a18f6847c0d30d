// What the probe dumps, read once from the environment `llmscope dump` sets.
#pragma once
#include <string>

#include "select/selection.h"

namespace llmscope::probe {

struct ProbeConfig {
    bool active = false;        // false: pass everything through
    std::string root;           // LLMSCOPE_DUMP_ROOT: the msit_dump_* folder
    bool tensors = false;       // type "tensor": payloads
    bool stats = false;         // type "stats": statistics-only files
    bool descOnly = false;      // -sd: header only
    bool topology = false;      // type "model" or "layer"
    bool kvCache = false;       // LLMSCOPE_KV=1: also the KV-cache views
    Selection selection;
    std::string error;          // why the probe is inactive, if a setting was invalid
};

ProbeConfig readProbeConfig();

} // namespace llmscope::probe
