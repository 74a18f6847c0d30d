"""The torch functions that api mode wraps, named the way DumpConfig's api_list names them."""
import types
from typing import NamedTuple

import torch

# Wrapped when api_list is empty: the compute an LLM's forward goes through. Names missing
# from the installed torch (rms_norm, scaled_dot_product_attention on old versions) are skipped.
DEFAULT_APIS = (
    "matmul", "bmm", "mm", "addmm", "baddbmm", "einsum", "softmax", "rsqrt", "sqrt", "exp",
    "tanh", "sigmoid", "add", "sub", "mul", "div", "pow",
    "nn.functional.linear", "nn.functional.embedding", "nn.functional.layer_norm",
    "nn.functional.rms_norm", "nn.functional.softmax", "nn.functional.silu",
    "nn.functional.gelu", "nn.functional.relu", "nn.functional.scaled_dot_product_attention",
)


class Api(NamedTuple):
    owner: types.ModuleType  # the module whose attribute is replaced while the model runs
    attr: str
    name: str                # the function's __name__: the last part of its dump folder (msit)


def _search_modules():
    return (torch, torch.nn.functional, torch.linalg, torch.special, torch.fft)


def resolve_api(entry):
    """An api_list entry (a name such as "matmul", "torch.matmul", "nn.functional.linear",
    "F.linear", or the function itself) as the attribute to wrap; ValueError if none."""
    if isinstance(entry, str):
        path = entry.strip()
        if path.startswith("torch."):
            path = path[len("torch."):]
        if path.startswith("F."):
            path = "nn.functional." + path[2:]
        parts = path.split(".")
        owner = torch
        for part in parts[:-1]:
            owner = getattr(owner, part, None)
        if not isinstance(owner, types.ModuleType) or not callable(getattr(owner, parts[-1], None)):
            raise ValueError(f"DumpConfig: api_list entry {entry!r} is not a function of torch "
                             "(give names such as 'matmul' or 'nn.functional.linear')")
        return Api(owner, parts[-1], getattr(getattr(owner, parts[-1]), "__name__", parts[-1]))
    if callable(entry):
        for owner in _search_modules():
            for attr, value in vars(owner).items():
                if value is entry:
                    return Api(owner, attr, getattr(entry, "__name__", attr))
        raise ValueError(f"DumpConfig: api_list entry {entry!r} is not found in torch, torch.nn.functional, "
                         "torch.linalg, torch.special or torch.fft")
    raise TypeError(f"DumpConfig: api_list entries must be names or torch functions, not {type(entry).__name__}")


def resolve_apis(api_list):
    """api_list resolved, duplicates dropped; the default set when it is empty."""
    if api_list:
        apis = [resolve_api(e) for e in api_list]
    else:
        apis = []
        for name in DEFAULT_APIS:
            try:
                apis.append(resolve_api(name))
            except ValueError:
                pass
    unique = {}
    for api in apis:
        unique.setdefault((id(api.owner), api.attr), api)
    return list(unique.values())
