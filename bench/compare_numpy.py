#!/usr/bin/python3
"""The reference for bench/compare_speed: msit's compare formulas in NumPy, over the same
pairs of msit .bin files llmscope compares (same topology: paths equal after the pid).
Usage: compare_numpy.py GOLDEN_DUMP MY_DUMP   (prints pairs, bytes, seconds)"""
import os
import sys
import time

import numpy as np

ACL = {0: np.float32, 1: np.float16, 11: np.float64}
EPS = np.finfo(np.float32).eps


def read_bin(path):
    with open(path, "rb") as f:
        raw = f.read()
    header, pos, attrs = {}, 0, {}
    while True:
        end = raw.index(b"\n", pos)
        key, _, value = raw[pos:end].decode().partition("=")
        pos = end + 1
        if key == "$End":
            break
        attrs[key] = value
    if "engine_dtype" in attrs or int(attrs.get("$Object.Count", "0")) == 0:
        return None
    dtype = ACL.get(int(attrs["dtype"]))
    if dtype is None:
        return None
    off, length = (int(x) for x in attrs["$Object.data"].split(","))
    return np.frombuffer(raw, dtype=dtype, count=length // np.dtype(dtype).itemsize, offset=pos + off)


def metrics(g, m):
    g = g.astype(np.float64).ravel()
    m = m.astype(np.float64).ravel()
    gn, mn = np.linalg.norm(g), np.linalg.norm(m)
    cos = 1.0 if gn == 0 and mn == 0 else (0.0 if gn == 0 or mn == 0 else float(g @ m / (gn * mn)))
    big = np.abs(g) > EPS
    rel = np.where(big, np.abs(m / np.where(big, g, 1) - 1), 0)
    diff = np.abs(m - g)
    lg = g - (g.max() + np.log(np.exp(g - g.max()).sum()))
    lm = m - (m.max() + np.log(np.exp(m - m.max()).sum()))
    kl = max(0.0, float((np.exp(lg) * (lg - lm)).sum()))
    red = 0.0 if gn <= EPS else float(np.sqrt((diff ** 2).sum()) / gn)
    share = np.where(big, diff / np.where(big, np.abs(g), 1), diff)
    return (cos, rel.max(), rel.mean(), diff.max(), diff.mean(), kl, red,
            (share <= 1e-3).mean(), (share <= 5e-3).mean())


def tensors(root):
    out = {}
    for dirpath, _, files in os.walk(root):
        for name in files:
            if name.endswith(".bin"):
                path = os.path.join(dirpath, name)
                parts = os.path.relpath(path, root).split(os.sep)
                i = parts.index("tensors")
                out["/".join(parts[i + 2:])] = path  # without tensors/{device}_{pid}
    return out


def main():
    golden, my = tensors(sys.argv[1]), tensors(sys.argv[2])
    start = time.perf_counter()
    pairs = nbytes = 0
    for key, gpath in sorted(golden.items()):
        if key not in my:
            continue
        g, m = read_bin(gpath), read_bin(my[key])
        if g is None or m is None or g.size != m.size or g.size == 0:
            continue
        metrics(g, m)
        pairs += 1
        nbytes += g.nbytes + m.nbytes
    print(f"numpy: {pairs} pairs, {nbytes} bytes, {time.perf_counter() - start:.3f} s")


if __name__ == "__main__":
    main()
