"""The files of a PyTorch dump: tensors (.pth), statistics.csv, weights/statistics.csv and
model_tree.json.

Every file is written under a temporary name in its own folder and renamed into place, so
a run killed mid-write leaves no half-written file under a final name."""
import csv
import io
import json
import math
import os

import numpy as np
import torch

STAT_COLUMNS = ["NodeName", "NodeType", "InputOutput", "Index", "DataType", "Shape", "Max", "Min", "Mean", "L2Norm"]
# weights/statistics.csv: each parameter of each module, what identifies it without its payload
WEIGHT_COLUMNS = STAT_COLUMNS + ["Parameter", "Sketch"]
_SKETCH_BUCKETS = 64
_BASE64URL = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"


_CHUNK = 1 << 20
_hash_cache = {}  # chunk number -> its elements' buckets and signs, the same for every tensor
_HASH_CACHE_CHUNKS = 32  # 64 MiB at most


def _mix(z):
    """splitmix64's finalizer on uint64 arrays (core/tensor/sketch.h sketchMix)."""
    z = z + np.uint64(0x9E3779B97F4A7C15)
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


def _buckets_and_signs(chunk, n):
    """Bucket (uint8) and sign (int8) of elements chunk * _CHUNK .. + n, as core/tensor/sketch.h
    chooses them: block b = i // 64 draws 64 sign bits (the hash of 2b) and a rotation r (the top
    6 bits of the hash of 2b + 1); element i takes sign bit i % 64 and bucket (i % 64 + r) % 64."""
    cached = _hash_cache.get(chunk)
    if cached is not None and cached[0].size >= n:
        return cached[0][:n], cached[1][:n]
    i = np.arange(chunk * _CHUNK, chunk * _CHUNK + n, dtype=np.uint64)
    block = i >> np.uint64(6)
    j = i & np.uint64(63)
    with np.errstate(over="ignore"):
        signs = _mix(block * np.uint64(2))
        rotation = _mix(block * np.uint64(2) + np.uint64(1)) >> np.uint64(58)
    bucket = ((j + rotation) & np.uint64(63)).astype(np.uint8)
    sign = np.where(((signs >> j) & np.uint64(1)) != 0, np.int8(-1), np.int8(1))
    if chunk < _HASH_CACHE_CHUNKS and n == _CHUNK:
        _hash_cache[chunk] = (bucket, sign)
    return bucket, sign


def _encode_sketch(sums):
    """"s2." and the unpadded base64url of the little-endian float32 sums, as core/tensor/sketch.cpp
    writes (the prefix names this definition of the sketch)."""
    raw = np.asarray(sums).astype("<f4").tobytes()
    bits = int.from_bytes(raw, "big")
    n = len(raw) * 8
    pad = (-n) % 6
    bits <<= pad
    return "s2." + bytes(_BASE64URL[(bits >> (6 * k)) & 63] for k in range((n + pad) // 6 - 1, -1, -1)).decode()


def weight_summary(values, with_sketch=True):
    """(max, min, mean, l2norm) in float64 and llmscope's CountSketch (core/tensor/sketch.h) of a
    tensor's elements in their flat order, a chunk at a time: 64 sums, element i added with the
    sign and to the bucket its block of 64 draws (_buckets_and_signs); for two tensors of one shape the
    difference of their sketches estimates the norm of their difference. The sketch as the text
    llmscope's statistic.csv holds; "" without one."""
    v = np.asarray(values, dtype=np.float32).reshape(-1)
    if v.size == 0:
        return [math.nan] * 4, ""
    sums = np.zeros(_SKETCH_BUCKETS, dtype=np.float64)
    mx, mn, total, sq = -math.inf, math.inf, 0.0, 0.0
    for chunk, first in enumerate(range(0, v.size, _CHUNK)):
        part = v[first:first + _CHUNK]
        mx, mn = max(mx, float(part.max())), min(mn, float(part.min()))
        wide = part.astype(np.float64)
        total += float(wide.sum())
        sq += float(np.dot(wide, wide))
        if with_sketch:
            bucket, sign = _buckets_and_signs(chunk, part.size)
            sums += np.bincount(bucket, weights=part * sign, minlength=_SKETCH_BUCKETS)
    if np.isnan(v).any():
        mx = mn = math.nan
    finite = with_sketch and math.isfinite(total) and math.isfinite(sq)  # llmscope leaves it out otherwise
    return [mx, mn, total / v.size, math.sqrt(sq)], _encode_sketch(sums) if finite else ""


def sketch(values):
    """The sketch text of weight_summary."""
    return weight_summary(values)[1]


def weight_row(module_name, module_type, param_name, tensor):
    """One weights/statistics.csv row: the parameter's statistics in float64 and its sketch
    (LLMSCOPE_SKETCH=0 leaves the sketch out, as it does for llmscope's probe)."""
    values, text = weight_summary(tensor.detach().to("cpu").float().numpy(),
                                  os.environ.get("LLMSCOPE_SKETCH", "1") != "0")
    return [module_name, module_type, "Input", 0, str(tensor.dtype), str(tuple(tensor.shape))] + \
        ["%.17g" % x for x in values] + [param_name, text]


def atomic_write(path, write):
    """Calls write(temporary path), then renames the file to path."""
    tmp = os.path.join(os.path.dirname(path), f".{os.path.basename(path)}.{os.getpid()}.tmp")
    try:
        write(tmp)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.remove(tmp)
        except OSError:
            pass
        raise


def save_tensor(tensor, path):
    # A detached CPU copy: no autograd state, and only this tensor's elements rather than
    # the whole storage a view may share.
    data = tensor.detach().to("cpu", copy=True)
    atomic_write(path, lambda tmp: torch.save(data, tmp))


def flatten(feat, stem, out):
    """msit's file names: a tensor is {stem}.pth, the i-th item of a tuple or list is
    {stem}_{i}, nested {stem}_{i}_{j}; anything else is skipped (its index stays unused)."""
    if isinstance(feat, (tuple, list)):
        for i, item in enumerate(feat):
            flatten(item, f"{stem}_{i}", out)
    elif isinstance(feat, torch.Tensor):
        out.append((stem, feat))
    return out


def has_tensor(feat):
    if isinstance(feat, (tuple, list)):
        return any(has_tensor(x) for x in feat)
    return isinstance(feat, torch.Tensor)


def stat_row(node_name, node_type, stem, tensor):
    """One statistics.csv row as msit writes it: statistics over the tensor as float32,
    Index the last number of the file stem (0 for a bare input/output)."""
    data = tensor.detach().float()
    if data.numel():
        values = [data.max().item(), data.min().item(), data.mean().item(), data.norm().item()]
    else:
        values = [math.nan] * 4
    parts = stem.split("_")
    return [node_name, node_type, "Input" if parts[0] == "input" else "Output",
            int(parts[-1]) if len(parts) > 1 else 0, str(tensor.dtype), str(tuple(tensor.shape))] + values


def append_csv(path, rows, columns=STAT_COLUMNS):
    """Adds rows to statistics.csv (with its header when new) by rewriting it whole."""
    old = ""
    if os.path.exists(path):
        with open(path, encoding="utf-8", newline="") as f:
            old = f.read()
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    if not old:
        writer.writerow(columns)
    writer.writerows(rows)

    def write(tmp):
        with open(tmp, "w", encoding="utf-8", newline="") as f:
            f.write(old + buf.getvalue())
    atomic_write(path, write)


def write_json(path, obj):
    def write(tmp):
        with open(tmp, "w", encoding="utf-8") as f:
            json.dump(obj, f, indent=4)
    atomic_write(path, write)


def model_tree(model, order, name="root"):
    """msit's model_tree.json: {name, type, children} from the module tree, siblings in the
    order they first ran. A module is placed by the first module of its subtree to finish,
    so a container never called itself (ModuleList) sits where its layers ran; subtrees
    that never ran follow in declaration order."""
    def first_done(module, path):
        own = order.get(path, math.inf)
        return min([own] + [first_done(child, f"{path}.{n}") for n, child in module.named_children()])
    children = [(f"{name}.{child_name}", child) for child_name, child in model.named_children()]
    children.sort(key=lambda c: first_done(c[1], c[0]))  # stable: unrun keep declaration order
    return {"name": name, "type": type(model).__name__,
            "children": [model_tree(child, order, child_name) for child_name, child in children]}
