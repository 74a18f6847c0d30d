// The Node target: the same greedy generation as llmscope-sample-generate, through
// node-llama-cpp. Prints 'prompt_tokens: ...', 'tokens: ...' and 'timing: ...'.
import path from "node:path";
import { pathToFileURL } from "node:url";

const usage = `usage: llmscope-sample-node -m MODEL.gguf [-p PROMPT] [-n TOKENS] [-t THREADS]
         [--flash-attn on|off] [--batch N] [--ctx N] [--device cpu|vulkan|cuda]
  --device  where the model runs [cpu]: vulkan or cuda uses node-llama-cpp's build for that device
            and offloads every layer; without a GPU, GGML_VK_VISIBLE_DEVICES=0 lets Vulkan use
            Mesa's software device`;

function parseArgs(argv) {
    const o = { prompt: "Hello, llmscope", n: 16, threads: 1, flash: "on", batch: 512, ctx: 256, device: "cpu" };
    for (let i = 0; i < argv.length; ++i) {
        const a = argv[i];
        if (a === "-h" || a === "--help") { console.log(usage); process.exit(0); }
        const v = argv[++i];
        if (v === undefined) { console.error(`llmscope-sample-node: ${a} needs a value\n${usage}`); process.exit(2); }
        if (a === "-m") o.model = v;
        else if (a === "-p") o.prompt = v;
        else if (a === "-n") o.n = Number(v);
        else if (a === "-t") o.threads = Number(v);
        else if (a === "--flash-attn") o.flash = v;
        else if (a === "--batch") o.batch = Number(v);
        else if (a === "--ctx") o.ctx = Number(v);
        else if (a === "--device") o.device = v;
        else { console.error(`llmscope-sample-node: unknown option '${a}'\n${usage}`); process.exit(2); }
    }
    if (!o.model || !(o.n >= 1) || !(o.threads >= 1) || !["on", "off"].includes(o.flash) ||
        !["cpu", "vulkan", "cuda"].includes(o.device)) {
        console.error(usage);
        process.exit(2);
    }
    return o;
}

const opts = parseArgs(process.argv.slice(2));
const modules = process.env.LLMSCOPE_NODE_MODULES
    ?? path.resolve(path.dirname(new URL(import.meta.url).pathname), "../../.deps/node/node_modules");
const { getLlama, LlamaLogLevel } = await import(pathToFileURL(path.join(modules, "node-llama-cpp/dist/index.js")).href);

const onDevice = opts.device !== "cpu";
let llama;
try {
    llama = await getLlama({ gpu: onDevice ? opts.device : false, build: "never", logLevel: LlamaLogLevel.warn });
} catch (e) {
    console.error(`llmscope-sample-node: cannot use ${opts.device}: ${e.message}` +
        (opts.device === "vulkan" ? "\nWithout a GPU, install Mesa's Vulkan driver (mesa-vulkan-drivers) and set " +
            "GGML_VK_VISIBLE_DEVICES=0 so ggml uses its software device." : ""));
    process.exit(1);
}
if (onDevice && llama.gpu !== opts.device) {
    console.error(`llmscope-sample-node: node-llama-cpp gave ${llama.gpu || "the CPU"}, not ${opts.device}`);
    process.exit(1);
}
const model = await llama.loadModel({ modelPath: path.resolve(opts.model), gpuLayers: onDevice ? "max" : 0 });
const names = onDevice ? await llama.getGpuDeviceNames() : [];
console.log(`device: ${names.map((n) => `${opts.device} (${n}), `).join("")}CPU`);
const context = await model.createContext({
    contextSize: opts.ctx, batchSize: opts.batch, threads: opts.threads, flashAttention: opts.flash === "on",
});
const sequence = context.getSequence();
const prompt = [model.tokens.bos, ...model.tokenize(opts.prompt)].filter((t) => t != null);
console.log(`prompt_tokens: ${prompt.join(" ")}`);

const out = [];
const t0 = performance.now();
let tFirst = 0;
for await (const token of sequence.evaluate(prompt, { temperature: 0 })) {
    if (out.length === 0) tFirst = performance.now();
    out.push(token);
    if (out.length >= opts.n) break;
}
const tEnd = performance.now();
console.log(`tokens: ${out.join(" ")}`);
const decodeMs = tEnd - tFirst;
console.log(`timing: prefill ${prompt.length} tokens ${(tFirst - t0).toFixed(3)} ms, decode ${out.length - 1} tokens ` +
    `${decodeMs.toFixed(3)} ms, ${out.length > 1 ? ((out.length - 1) * 1000 / decodeMs).toFixed(2) : 0} tokens/s`);
await context.dispose();
await model.dispose();
await llama.dispose();
