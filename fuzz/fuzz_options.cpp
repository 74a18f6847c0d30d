// The command line's grammar: dump options (one argument a line: --type, -ids, -er, ...),
// op ids, msit's dynamic config file and --mapping files.
#include "core/compare/matching.h"
#include "core/launch/dump_options.h"
#include "core/select/dynamic_config.h"
#include "core/select/op_ids.h"
#include "core/util/error.h"
#include "core/util/text.h"
#include "fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    using namespace llmscope;
    const std::string text = fuzz::text(data, size);
    try {
        const DumpOptions o = parseDumpOptions(split(text, '\n'));
        parseDumpOptions(dumpArguments(o)); // what is parsed gives arguments that parse
    } catch (const Error &) {
    }
    for (auto f : {+[](const std::string &t) { OpIds::parse(t); }, +[](const std::string &t) { splitCommand(t); },
                   +[](const std::string &t) { applyDynamicConfig(t, Selection{}); },
                   +[](const std::string &t) { parseOpMapping(t); }})
        try {
            f(text);
        } catch (const Error &) {
        }
    return 0;
}
