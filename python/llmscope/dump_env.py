"""register_hook_from_env: a PyTorch script run by `llmscope dump --exec "python3 script.py"`
dumps its model into the dump llmscope started, with the settings given on its command line.

llmscope sets these for its preloaded probe (core/launch/dump_options.cpp, probeEnvironment);
here they map onto a DumpConfig:

  LLMSCOPE_DUMP_ROOT   the msit_dump_* folder: tensors go to {root}/torch_tensors/{device}_{pid}/
  LLMSCOPE_ER (-er)    inclusive round pairs "1,3" or "3,5,7,7", or "all": token_range (a round
                       is one forward of the root module, 0 the prompt)
  LLMSCOPE_TYPE        tensor -> tensors; stats -> statistics.csv only, as msit; with
                       LLMSCOPE_STATS_WITH_DATA=1 both (dump_statistics_mode 0, 1, 2). Neither:
                       only model_tree.json, which is always written. model/layer/onnx/op/
                       kernel/cpu_profiling are accepted and have no torch counterpart.
  LLMSCOPE_SD (-sd)    descriptions only: statistics.csv (dtype and shape of each tensor), no .pth
  LLMSCOPE_STP (-stp)  tensor_part: 0 inputs, 1 outputs, 2 both
  LLMSCOPE_DEVICE      device indices "0,1": dump only a model on one of them (cpu always dumps)
  LLMSCOPE_OPNAME      class-name prefixes, case-insensitive ("linear,llamamlp"): only modules
                       (and api functions) whose class (function) name starts with one
  LLMSCOPE_CHILD       with LLMSCOPE_OPNAME: descendants of a matching module match too (default)
  LLMSCOPE_TILING      (-tiling, what a replay needs) with tensors: dump_weight, the parameters
                       under weights/, so that compare pairs each weight with the engine's

Ignored, having no meaning for torch hooks: LLMSCOPE_IDS (ggml op ids), LLMSCOPE_TIME (hooks
see a module's inputs and outputs after it ran), LLMSCOPE_KV, LLMSCOPE_STATS_CSV,
LLMSCOPE_SYMLINK, LLMSCOPE_NAN_INF_ONLY, LLMSCOPE_WATCH,
LLMSCOPE_FOLLOW_TOKENS, LLMSCOPE_READ, LLMSCOPE_CONFIG, LLMSCOPE_LIVE, LLMSCOPE_CHILDREN,
LLMSCOPE_LOG_LEVEL and the probe's buffer sizes.
"""
import os

from .dump_config import DumpConfig
from .dump_hook import register_hook

_TYPES = {"model", "layer", "op", "kernel", "tensor", "stats", "cpu_profiling", "onnx"}


class Rounds:
    """-er's inclusive pairs as a token_range (membership without listing every token)."""

    def __init__(self, text):
        text = text.strip()
        self.all = text.lower() == "all"
        self.pairs = []
        if self.all:
            return
        parts = [p.strip() for p in text.split(",")]
        if not text or len(parts) % 2:
            raise ValueError(f"LLMSCOPE_ER: '{text}' must be pairs l,r such as 1,3 or 3,5,7,7, or 'all'")
        for lo, hi in zip(parts[::2], parts[1::2]):
            if not (lo.isdigit() and hi.isdigit()):
                raise ValueError(f"LLMSCOPE_ER: '{lo},{hi}' is not a pair of round numbers")
            if int(lo) > int(hi):
                raise ValueError(f"LLMSCOPE_ER: range {lo},{hi} ends before it starts")
            self.pairs.append((int(lo), int(hi)))

    def __contains__(self, token):
        return self.all or any(lo <= token <= hi for lo, hi in self.pairs)

    def __repr__(self):
        return "all" if self.all else ",".join(f"{lo},{hi}" for lo, hi in self.pairs)


def _flag(env, name, default):
    value = env.get(name, "").strip().lower()
    if not value:
        return default
    if value in ("1", "true"):
        return True
    if value in ("0", "false"):
        return False
    raise ValueError(f"{name}: '{value}' is not true or false")


def config_from_env(env=None):
    """The DumpConfig llmscope dump's environment asks for, or None outside llmscope dump."""
    env = os.environ if env is None else env
    root = env.get("LLMSCOPE_DUMP_ROOT", "")
    if not root:
        return None
    types = [t.strip() for t in (env.get("LLMSCOPE_TYPE") or "tensor").split(",") if t.strip()]
    for t in types:
        if t not in _TYPES:
            raise ValueError(f"LLMSCOPE_TYPE: '{t}' is not one of {', '.join(sorted(_TYPES))}")
    sd = _flag(env, "LLMSCOPE_SD", False)
    stats = "stats" in types or ("tensor" in types and sd)
    tensors = "tensor" in types and not sd
    if "stats" in types and not _flag(env, "LLMSCOPE_STATS_WITH_DATA", False):
        tensors = False  # msit: "stats" means statistics only, with or without "tensor"
    stp = (env.get("LLMSCOPE_STP") or "2").strip()
    if stp not in ("0", "1", "2"):
        raise ValueError(f"LLMSCOPE_STP: '{stp}' must be 0 (inputs), 1 (outputs) or 2 (both)")
    devices = (env.get("LLMSCOPE_DEVICE") or "").strip()
    try:
        device_ids = {int(d) for d in devices.split(",")} if devices else None
    except ValueError:
        raise ValueError(f"LLMSCOPE_DEVICE: '{devices}' is not a list of device numbers") from None

    config = DumpConfig(dump_path=os.path.dirname(os.path.abspath(root)), tensor_part=int(stp),
                        dump_statistics_mode=2 if stats and tensors else 1 if stats else 0,
                        dump_weight=tensors and _flag(env, "LLMSCOPE_TILING", False))
    config.dump_root = root
    config.token_range = Rounds(env.get("LLMSCOPE_ER") or "0,0")
    config.device_ids = device_ids
    config.write_data = stats or tensors
    config.type_prefixes = tuple(p.strip().lower() for p in (env.get("LLMSCOPE_OPNAME") or "").split(",")
                                 if p.strip())
    config.type_prefix_child = _flag(env, "LLMSCOPE_CHILD", True)
    return config


def register_hook_from_env(model, env=None):
    """Hooks model when the script runs under `llmscope dump`; returns the DumpHandle, or
    None when no llmscope dump is in the environment."""
    config = config_from_env(env)
    return None if config is None else register_hook(model, config)
