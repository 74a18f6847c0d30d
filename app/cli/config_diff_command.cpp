#include "app/cli/config_diff_command.h"
#include "app/cli/say.h"

#include <cstdio>

#include "core/config/config_diff_xlsx.h"
#include "core/config/run_config.h"
#include "core/util/arg_reader.h"
#include "core/util/atomic_file.h"
#include "core/util/error.h"

namespace {

const char *kConfigDiffUsage = R"(usage: llmscope config-diff A B [--json FILE] [--xlsx FILE]

What differs between two runs' configurations, before any tensor: msProbe's config_check for
llama.cpp. A and B are dump folders (msit_dump_*, or the -o folder above one) or probe status
files (llmscope/PID.json in a dump), as llmscope dump, hunt and spread write them; A is golden.
Settings are grouped as config_check groups them:
  environment   the variables that steer ggml, llama.cpp, OpenMP and the device runtimes
                (GGML_*, LLAMA_*, OMP_*, VK_*, MESA_*, CUDA_*, ...)
  libraries     every shared object the program loaded, by name: its build id and size
                (ggml's backends, the Vulkan or CUDA driver, libgomp), its path beside it
  hardware      the machine, each device of ggml's registry (description, kind, memory), the
                CPU backend's features as ggml reports them
  run           the command line, its working folder, the CPU thread counts llama.cpp set,
                the backends that computed, whether fusion was kept
  context       what the program's graphs say of its context: flash attention, the KV cache's
                types, cells and streams; the prompt's tokens and the most tokens in a round
  model files   each model file the program loaded: its name, size, a digest of its bytes,
                its GGUF architecture and tensor types (read now, where the file still is)

  --json FILE   every setting of both runs and the differences, as JSON
  --xlsx FILE   a workbook: a summary sheet (each group: settings, how many differ) and the
                differences

Exit status: 0 nothing differs, 1 something does, 2 config-diff could not run.
)";

using cli::say;

} // namespace

int runConfigDiffCommand(const QStringList &args)
{
    using namespace llmscope;
    for (const auto &a : args)
        if (a == QLatin1String("--help") || a == QLatin1String("-h")) {
            std::fputs(kConfigDiffUsage, stdout);
            return 0;
        }
    try {
        std::vector<std::string> sides;
        std::string json, xlsx;
        ArgReader r(toWords(args), "config-diff");
        while (r.next()) {
            const std::string &a = r.option();
            if (a == "--json")
                json = r.value();
            else if (a == "--xlsx")
                xlsx = r.value();
            else if (!a.empty() && a[0] != '-')
                sides.push_back(a);
            else
                r.unknown();
        }
        if (sides.size() != 2)
            throw Error("give two dumps (or probe status files), golden's first: llmscope config-diff A B");
        const ConfigDiff d = diffConfigs(readRunConfig(sides[0]), readRunConfig(sides[1]));
        std::fputs(configDiffText(d).c_str(), stdout);
        std::fflush(stdout);
        if (!json.empty())
            writeFileAtomic(json, configDiffJson(d));
        if (!xlsx.empty())
            writeConfigDiffXlsx(xlsx, d);
        return d.differences.empty() ? 0 : 1;
    } catch (const Error &e) {
        say(std::string("llmscope config-diff: ") + e.what() + "\n");
        return 2;
    }
}
