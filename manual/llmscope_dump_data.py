"""msit's manual mapping for Python programs (NumPy only).

    from llmscope_dump_data import dump_data
    dump_data("golden", "attn_out", array, token_id=3)     # in the reference program
    dump_data("acl", "attn_out", array, token_id=3)        # in the program under test

writes {out_dir}/{pid}_cmp_dump_data/{data_src}_tensor/{token_id}/{data_id}_tensor.npy and
records it in .../{data_src}_tensor/metadata.json as {data_id: {token_id: [path, ...]}}.
`llmscope compare --golden-path .../golden_tensor/metadata.json --my-path
.../acl_tensor/metadata.json` pairs them and writes msit's cmp_report.csv. With data_val None,
tensor_path (an existing .npy or msit .bin file) is recorded instead of writing a copy.
out_dir defaults to $LLMSCOPE_DUMP_DATA_DIR, else the current folder.
"""
import json
import os

import numpy as np


def _folder(data_src, out_dir):
    if data_src not in ("golden", "acl"):
        raise ValueError(f'dump_data: data_src must be "golden" or "acl", not {data_src!r}')
    base = out_dir or os.environ.get("LLMSCOPE_DUMP_DATA_DIR", ".")
    folder = os.path.join(os.path.abspath(base), f"{os.getpid()}_cmp_dump_data", f"{data_src}_tensor")
    os.makedirs(folder, exist_ok=True)
    return folder


def _record(folder, data_id, token_id, path):
    meta_path = os.path.join(folder, "metadata.json")
    meta = {}
    if os.path.exists(meta_path):
        with open(meta_path, encoding="utf-8") as f:
            meta = json.load(f)
    meta.setdefault(str(data_id), {}).setdefault(str(token_id), []).append(path)
    tmp = meta_path + f".tmp.{os.getpid()}"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(meta, f, indent=1)
    os.replace(tmp, meta_path)  # never a half-written metadata file


def dump_data(data_src, data_id, data_val=None, tensor_path=None, token_id=0, out_dir=None):
    """Saves data_val (anything np.asarray takes) or records tensor_path; returns the path."""
    folder = _folder(data_src, out_dir)
    if data_val is None:
        if not tensor_path or not os.path.isfile(tensor_path):
            raise ValueError("dump_data: give data_val, or tensor_path of an existing file")
        path = os.path.abspath(tensor_path)
    else:
        token_dir = os.path.join(folder, str(token_id))
        os.makedirs(token_dir, exist_ok=True)
        safe = str(data_id).replace("/", "_").replace("\\", "_")
        path = os.path.join(token_dir, f"{safe}_tensor.npy")
        np.save(path, np.ascontiguousarray(np.asarray(data_val)))
    _record(folder, data_id, token_id, path)
    return path
