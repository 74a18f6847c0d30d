"""DumpConfig: what a PyTorch dump writes, with msit's parameter names, defaults and checks."""
import os
import random
import re
import time

import torch

from .api_ops import resolve_apis

_MODES = ("module", "api")
_folder_name = None


def dump_folder_name():
    """msit_dump_{YYYYmmdd_HHMMSS}, fixed for the process as msit fixes it, so that every
    model hooked in one run writes into the same folder."""
    global _folder_name
    if _folder_name is None:
        _folder_name = "msit_dump_" + time.strftime("%Y%m%d_%H%M%S")
    return _folder_name


def glob_to_regex(pattern):
    """msit's layer_name: '*' matches any run of characters, everything else is literal,
    and the pattern must match the whole name."""
    return re.compile(".*".join(re.escape(part) for part in pattern.split("*")), re.S)


def seed_all(seed=2024):
    """Seeds Python, NumPy and torch and turns on deterministic algorithms, as msit's seed_all."""
    if not _is_int(seed):
        raise TypeError(f"seed must be an int, not {type(seed).__name__}")
    os.environ["PYTHONHASHSEED"] = str(seed)
    # cuBLAS refuses deterministic mode without a fixed workspace; keep one the user set.
    os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")
    random.seed(seed)
    try:
        import numpy
        numpy.random.seed(seed)
    except ImportError:
        pass
    torch.manual_seed(seed)
    torch.use_deterministic_algorithms(True)
    if torch.cuda.is_available():
        torch.cuda.manual_seed_all(seed)
        torch.backends.cudnn.deterministic = True
        torch.backends.cudnn.benchmark = False


def _is_int(value):
    return isinstance(value, int) and not isinstance(value, bool)


class DumpConfig:
    """msit's DumpConfig (msit_llm.dump.torch_dump.dump_config).

    dump_path: folder that receives msit_dump_{ts}/ (default "./").
    token_range: root-module forward calls to dump, 0 being the prompt (default [0]).
    module_list: module classes to dump (isinstance); default every module.
    api_list: torch functions wrapped in api mode, by name ("matmul", "nn.functional.linear")
        or as the functions; default a set of common compute functions.
    tensor_part: 0 inputs, 1 outputs, 2 both (default 2).
    device_id: dump only when the model sits on this device index (cpu always dumps, as in msit).
    dump_last_logits: dump only the output of the last module to finish each forward (the logits).
    mode: "module", "api" or both as a list (default ["module"]).
    dump_weight: save every parameter once under weights/ when hooking.
    layer_name: '*' glob over full names ("root.model.layers.0*"); filters tensors and weights.
    seed: seeds torch, NumPy and random and turns on deterministic algorithms.
    dump_statistics_mode: 0 tensors only, 1 statistics.csv only, 2 both (default 0).
    """

    def __init__(self, dump_path=None, token_range=None, module_list=None, api_list=None, tensor_part=2,
                 device_id=None, dump_last_logits=False, mode=None, dump_weight=False, layer_name=None,
                 seed=None, dump_statistics_mode=0):
        self.dump_path = "./" if dump_path is None else dump_path
        if not isinstance(self.dump_path, (str, os.PathLike)):
            raise TypeError(f"DumpConfig: dump_path must be a path, not {type(dump_path).__name__}")
        self.dump_path = os.fspath(self.dump_path)
        if os.path.exists(self.dump_path) and not os.path.isdir(self.dump_path):
            raise ValueError(f"DumpConfig: dump_path '{self.dump_path}' exists and is not a folder")

        # msit: an empty or missing token_range means token 0 only.
        self.token_range = token_range or [0]
        if not isinstance(self.token_range, (list, tuple, range)):
            raise TypeError(f"DumpConfig: token_range must be a list of token indices, "
                            f"not {type(token_range).__name__}")
        if not all(_is_int(t) and t >= 0 for t in self.token_range):
            raise ValueError(f"DumpConfig: token_range must hold whole numbers from 0, got {list(self.token_range)}")

        self.module_list = module_list or []
        if not isinstance(self.module_list, (list, tuple)):
            raise TypeError(f"DumpConfig: module_list must be a list of module classes, "
                            f"not {type(module_list).__name__}")
        for cls in self.module_list:
            if not isinstance(cls, type):
                raise TypeError(f"DumpConfig: module_list must hold classes such as torch.nn.Linear, not {cls!r}")

        self.mode = mode or ["module"]
        self.mode = list(self.mode) if isinstance(self.mode, (list, tuple)) else [self.mode]
        for m in self.mode:
            if m not in _MODES:
                raise ValueError(f"DumpConfig: mode {m!r} is not 'module' or 'api'")
        self.dump_module = "module" in self.mode
        self.dump_api = "api" in self.mode

        self.api_list = api_list or []
        if not isinstance(self.api_list, (list, tuple)):
            raise TypeError(f"DumpConfig: api_list must be a list, not {type(api_list).__name__}")
        self.apis = resolve_apis(self.api_list)  # resolved now so that a typo fails here, not mid-run

        if not _is_int(tensor_part):
            raise TypeError(f"DumpConfig: tensor_part must be an int, not {type(tensor_part).__name__}")
        if tensor_part not in (0, 1, 2):
            raise ValueError(f"DumpConfig: tensor_part must be 0 (inputs), 1 (outputs) or 2 (both), not {tensor_part}")
        self.tensor_part = tensor_part

        if device_id is not None and not (_is_int(device_id) and device_id >= 0):
            raise TypeError(f"DumpConfig: device_id must be a device index (int) or None, not {device_id!r}")
        self.device_id = device_id

        for name, value in (("dump_last_logits", dump_last_logits), ("dump_weight", dump_weight)):
            if not isinstance(value, bool):
                raise TypeError(f"DumpConfig: {name} must be True or False, not {value!r}")
        self.dump_last_logits = dump_last_logits
        self.dump_weight = dump_weight

        if layer_name is not None and not isinstance(layer_name, str):
            raise TypeError(f"DumpConfig: layer_name must be a string, not {type(layer_name).__name__}")
        self.layer_name = layer_name
        self.layer_regex = glob_to_regex(layer_name) if layer_name is not None else None

        if not _is_int(dump_statistics_mode):
            raise TypeError(f"DumpConfig: dump_statistics_mode must be an int, "
                            f"not {type(dump_statistics_mode).__name__}")
        if dump_statistics_mode not in (0, 1, 2):
            raise ValueError("DumpConfig: dump_statistics_mode must be 0 (tensors), 1 (statistics) or 2 (both), "
                             f"not {dump_statistics_mode}")
        self.dump_statistics_mode = dump_statistics_mode

        if seed is not None:
            seed_all(seed)
        self.seed = seed

        # Set only by register_hook_from_env (llmscope dump's settings beyond msit's API).
        self.dump_root = None                      # the msit_dump_* folder itself
        self.device_ids = None if device_id is None else {device_id}
        self.type_prefixes = ()                    # -opname: lower-case class-name prefixes
        self.type_prefix_child = True              # -child: descendants of a match match too
        self.write_data = True                     # False: topology only (no tensor or stats type)

    def root_folder(self):
        """The msit_dump_* folder this dump writes into."""
        return self.dump_root or os.path.join(self.dump_path, dump_folder_name())

    def selects_device(self, device):
        """msit: cpu always dumps; "cuda1" dumps when device_id is 1 (or unset)."""
        if self.device_ids is None or device == "cpu":
            return True
        match = re.fullmatch(r"[A-Za-z_]+(\d+)", device)
        return bool(match) and int(match.group(1)) in self.device_ids

    def selects_name(self, name, types_on_path=(), module=None):
        """msit's is_dump_layer: the layer_name glob, then module_list; then -opname's prefixes
        over the class names from the root down (the last one the node's own)."""
        if self.layer_regex is not None and not self.layer_regex.fullmatch(name):
            return False
        if module is not None and self.module_list and not isinstance(module, tuple(self.module_list)):
            return False
        if self.type_prefixes:
            candidates = types_on_path if self.type_prefix_child else types_on_path[-1:]
            return any(t.lower().startswith(p) for t in candidates for p in self.type_prefixes)
        return True
