"""Greedy generation with the reference model (llama, qwen2, qwen3, qwen3moe: the file's
general.architecture), as llmscope-sample-generate does it with llama.cpp.

    python3 -m llmscope.reference.generate -m MODEL.gguf [-p PROMPT] [-n TOKENS] [--logits]

Same defaults (prompt "Hello, llmscope", 16 tokens, context 256), same tokenization (llama.cpp's
SentencePiece rules with BOS; see tokenizer.py) and the same output lines:

    device: ...
    prompt_tokens: 1 75 104 ...
    tokens: 91 49 98 ...
    timing: prefill 18 tokens ... ms, decode 15 tokens ... ms, ... tokens/s
    logits: ...            (with --logits: the logits that chose the last token)

Forward calls are the sample program's llama_decode calls: one for the whole prompt, then one
for each generated token but the last (N forwards for N tokens); each keeps only the last
position's logits. The greedy choice is the sample program's: the first index whose logit is
greater than every earlier one (a NaN never wins; a NaN first logit makes it token 0).

Under `llmscope dump`, llmscope.register_hook_from_env(model) attaches the dumper before the
first forward.
"""

import argparse
import math
import sys
import time

import torch

from ..gguf_reader import GGUFReader
from .qwen import FAMILIES
from .tokenizer import SpmTokenizer

DEFAULT_PROMPT = "Hello, llmscope"

_DTYPES = {"float32": torch.float32, "f32": torch.float32, "float64": torch.float64, "f64": torch.float64}
_KV_DTYPES = {"f32": None, "float32": None, "f16": torch.float16, "float16": torch.float16,
              "bf16": torch.bfloat16, "bfloat16": torch.bfloat16}


def greedy_pick(logits):
    """The index llmscope-sample-generate picks: best = 0; for v: if l[v] > l[best]: best = v."""
    logits = logits.detach().reshape(-1)
    if logits.numel() == 0:
        raise ValueError("no logits to pick from")
    if torch.isnan(logits[0]):
        return 0
    clean = torch.where(torch.isnan(logits), torch.full_like(logits, -math.inf), logits)
    return int(torch.argmax(clean).item())  # argmax returns the first of equal maxima


def attach_hook(model):
    """llmscope.register_hook_from_env(model): the dump's handle under `llmscope dump`, else None."""
    from llmscope import register_hook_from_env
    return register_hook_from_env(model)


@torch.no_grad()
def generate(model, prompt_ids, n, kv_dtype=None, device="cpu", on_token=None):
    """Greedy-generate n tokens after prompt_ids. Returns (tokens, last_logits, timing) where
    last_logits chose the last token and timing is (prefill_ms, decode_ms)."""
    if n < 1:
        raise ValueError("n must be at least 1")
    cache = model.new_cache(kv_dtype)
    ids = torch.tensor([list(prompt_ids)], dtype=torch.long, device=device)
    t0 = time.perf_counter()
    logits = model(ids, cache=cache, logits_to_keep=1)[0, -1]
    t1 = time.perf_counter()
    out = []
    for i in range(n):
        best = greedy_pick(logits)
        out.append(best)
        if on_token is not None:
            on_token(i + 1, best)
        if i + 1 == n:
            break
        logits = model(torch.tensor([[best]], dtype=torch.long, device=device), cache=cache,
                       logits_to_keep=1)[0, -1]
    t2 = time.perf_counter()
    return out, logits.float().cpu(), ((t1 - t0) * 1000.0, (t2 - t1) * 1000.0)


def main(argv=None):
    p = argparse.ArgumentParser(
        prog="python3 -m llmscope.reference.generate",
        description="Greedy generation with the PyTorch reference model, printing the lines "
                    "llmscope-sample-generate prints.")
    p.add_argument("-m", "--model", required=True,
                   help="GGUF model of llama, qwen2, qwen3 or qwen3moe (F32, F16 or BF16 tensors)")
    p.add_argument("-p", "--prompt", default=DEFAULT_PROMPT, help="prompt text [%(default)s]")
    p.add_argument("-n", type=int, default=16, help="tokens to generate [%(default)s]")
    p.add_argument("-t", "--threads", type=int, default=0, help="torch CPU threads [torch's default]")
    p.add_argument("--ctx", type=int, default=256, help="context size, checked as the sample does [%(default)s]")
    p.add_argument("--logits", action="store_true", help="also print the logits that chose the last token")
    p.add_argument("--dtype", default="float32", choices=sorted(_DTYPES), help="compute dtype [%(default)s]")
    p.add_argument("--kv-cache", default="f32", choices=sorted(_KV_DTYPES),
                   help="round cached keys and values to this type (f16 is llama.cpp's default cache) "
                        "[%(default)s: the compute dtype]")
    p.add_argument("--device", default="cpu", help="torch device [%(default)s]")
    a = p.parse_args(argv)
    if a.n < 1 or a.ctx < 8:
        p.error("-n must be at least 1 and --ctx at least 8")
    if a.threads > 0:
        torch.set_num_threads(a.threads)

    try:
        reader = GGUFReader(a.model)
        tokenizer = SpmTokenizer.from_gguf(reader)
        prompt_ids = tokenizer.encode(a.prompt)
    except (OSError, ValueError) as e:
        print("llmscope.reference.generate: %s" % e, file=sys.stderr)
        return 1
    if len(prompt_ids) < 1:
        print("llmscope.reference.generate: cannot tokenize the prompt", file=sys.stderr)
        return 1
    if len(prompt_ids) + a.n > a.ctx:
        print("llmscope.reference.generate: %d prompt + %d new tokens exceed --ctx %d"
              % (len(prompt_ids), a.n, a.ctx), file=sys.stderr)
        return 2
    arch = reader.metadata.get("general.architecture")
    if arch not in FAMILIES:
        print("llmscope.reference.generate: %s: general.architecture is %r; the reference implements %s"
              % (a.model, arch, ", ".join(sorted(FAMILIES))), file=sys.stderr)
        return 1
    try:
        model = FAMILIES[arch].from_gguf(reader, dtype=_DTYPES[a.dtype], device=a.device)
    except ValueError as e:
        print("llmscope.reference.generate: %s" % e, file=sys.stderr)
        return 1
    attach_hook(model)

    print("device: torch %s (%s)" % (a.device, a.dtype))
    print("prompt_tokens: " + " ".join(str(t) for t in prompt_ids))
    sys.stdout.flush()
    tokens, last, (prefill_ms, decode_ms) = generate(model, prompt_ids, a.n, _KV_DTYPES[a.kv_cache], a.device)
    print("tokens: " + " ".join(str(t) for t in tokens))
    print("timing: prefill %d tokens %.3f ms, decode %d tokens %.3f ms, %.2f tokens/s"
          % (len(prompt_ids), prefill_ms, a.n - 1, decode_ms,
             (a.n - 1) * 1000.0 / decode_ms if a.n > 1 and decode_ms > 0 else 0.0))
    if a.logits:
        print("logits: " + " ".join("%.9g" % v for v in last.tolist()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
