"""Tests of llmscope.gguf_reader and llmscope.reference (the PyTorch reference llama).

Run from the repository's python/ folder:
    /usr/bin/python3 -m unittest discover -s ../tests/python -v
The tests that need llmscope's programs (llmscope-make-model, llmscope-sample-generate) find
them in $LLMSCOPE_BIN_DIR (default /work/main/build/bin) and are skipped when they are absent.
"""

import contextlib
import io
import os
import random
import shutil
import struct
import subprocess
import sys
import tempfile
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
PYTHON_DIR = os.path.normpath(os.path.join(HERE, "..", "..", "python"))
if PYTHON_DIR not in sys.path:
    sys.path.insert(0, PYTHON_DIR)

import numpy as np  # noqa: E402
import torch  # noqa: E402

import llmscope  # noqa: E402
from llmscope.gguf_reader import GGUFReader  # noqa: E402
from llmscope.reference import generate as gen  # noqa: E402
from llmscope.reference.llama import (LlamaForCausalLM, LlamaRotaryEmbedding,  # noqa: E402
                                      apply_rotary_pos_emb, gguf_to_hf_name, unpermute_qk)
from llmscope.reference.tokenizer import SpmTokenizer  # noqa: E402

BIN_DIR = os.environ.get("LLMSCOPE_BIN_DIR", "/work/main/build/bin")
MAKE_MODEL = os.path.join(BIN_DIR, "llmscope-make-model")
SAMPLE_GENERATE = os.path.join(BIN_DIR, "llmscope-sample-generate")


def _have(path):
    return os.path.isfile(path) and os.access(path, os.X_OK)


def needs_programs(*paths):
    missing = [p for p in paths if not _have(p)]
    return unittest.skipIf(bool(missing), "llmscope's programs are not built: no %s (build llmscope or set "
                                          "LLMSCOPE_BIN_DIR to the folder that holds them)" % ", ".join(missing))


_tmp = None
_models = {}


def setUpModule():
    global _tmp
    _tmp = tempfile.mkdtemp(prefix="llmscope-pyref-test-")


def tearDownModule():
    if _tmp:
        shutil.rmtree(_tmp, ignore_errors=True)


def make_model(name, *args):
    """A sample model written by llmscope-make-model with these options (cached per name)."""
    if name not in _models:
        out = os.path.join(_tmp, name)
        if args and args[0] == "--family":
            subprocess.run([MAKE_MODEL, "--family", out] + list(args[1:]), check=True, capture_output=True)
        else:
            subprocess.run([MAKE_MODEL, "--out", out] + list(args), check=True, capture_output=True)
        _models[name] = out
    return _models[name]


def run_sample(model, n, *extra):
    """llmscope-sample-generate's output lines as a dict: prompt_tokens, tokens, logits."""
    r = subprocess.run([SAMPLE_GENERATE, "-m", model, "-n", str(n), "--logits"] + list(extra),
                       check=True, capture_output=True, text=True)
    lines = {}
    for line in r.stdout.splitlines():
        key, _, value = line.partition(":")
        lines[key] = value.split()
    return {
        "prompt_tokens": [int(x) for x in lines["prompt_tokens"]],
        "tokens": [int(x) for x in lines["tokens"]],
        "logits": np.array([float(x) for x in lines["logits"]]),
    }


def run_reference(model, n, prompt=gen.DEFAULT_PROMPT, dtype=torch.float32):
    reader = GGUFReader(model)
    ids = SpmTokenizer.from_gguf(reader).encode(prompt)
    m = LlamaForCausalLM.from_gguf(reader, dtype=dtype)
    tokens, logits, _ = gen.generate(m, ids, n)
    return {"prompt_tokens": ids, "tokens": tokens, "logits": logits.double().numpy()}


# --- a minimal GGUF writer, for hand-made (and broken) files ---------------------------------

def gg_str(s):
    b = s.encode("utf-8") if isinstance(s, str) else s
    return struct.pack("<Q", len(b)) + b


def gg_kv(key, vtype, payload):
    return gg_str(key) + struct.pack("<I", vtype) + payload


def gg_file(kvs=(), tensors=(), data=b"", version=3, kv_count=None, tensor_count=None, alignment=32,
            magic=b"GGUF"):
    """kvs: encoded key/values; tensors: (name, ne, type, offset)."""
    head = magic + struct.pack("<IQQ", version, len(tensors) if tensor_count is None else tensor_count,
                               len(kvs) if kv_count is None else kv_count)
    body = b"".join(kvs)
    for name, ne, ttype, off in tensors:
        body += gg_str(name) + struct.pack("<I", len(ne)) + b"".join(struct.pack("<Q", d) for d in ne)
        body += struct.pack("<IQ", ttype, off)
    out = head + body
    out += b"\0" * ((-len(out)) % alignment)
    return out + data


def good_small_file():
    """Two F32 tensors, a string array, a u32 and a nested array."""
    a = np.arange(6, dtype="<f4")        # ne [3, 2] -> shape (2, 3)
    b = np.array([7, 8, 9, 10], dtype="<f4")
    kvs = [
        gg_kv("general.architecture", 8, gg_str("llama")),
        gg_kv("x.u32", 4, struct.pack("<I", 42)),
        gg_kv("x.strs", 9, struct.pack("<IQ", 8, 2) + gg_str("ab") + gg_str("\u2581c")),
        gg_kv("x.nested", 9, struct.pack("<IQ", 9, 2) + struct.pack("<IQ", 5, 1) + struct.pack("<i", -3)
              + struct.pack("<IQ", 7, 2) + b"\x01\x00"),
        gg_kv("x.f64", 12, struct.pack("<d", 0.25)),
        gg_kv("x.i8", 1, struct.pack("<b", -5)),
    ]
    data = a.tobytes() + b"\0" * 8 + b.tobytes()
    return gg_file(kvs, [("a", [3, 2], 0, 0), ("b", [4], 0, 32)], data)


class GGUFReaderHandMadeTest(unittest.TestCase):
    def write(self, content):
        fd, path = tempfile.mkstemp(suffix=".gguf", dir=_tmp)
        with os.fdopen(fd, "wb") as f:
            f.write(content)
        return path

    def assertRejected(self, content, fragment=None):
        path = self.write(content)
        t0 = time.monotonic()
        with self.assertRaises(ValueError) as cm:
            r = GGUFReader(path)
            for name in r.tensors:
                r.tensor(name)
        self.assertLess(time.monotonic() - t0, 2.0)
        if fragment:
            self.assertIn(fragment, str(cm.exception))
        return str(cm.exception)

    def test_reads_values_of_every_kind(self):
        r = GGUFReader(self.write(good_small_file()))
        self.assertEqual(r.version, 3)
        self.assertEqual(r.metadata["general.architecture"], "llama")
        self.assertEqual(r.metadata["x.u32"], 42)
        self.assertEqual(r.metadata["x.strs"], ["ab", "\u2581c"])
        self.assertEqual(r.metadata["x.nested"][0].tolist(), [-3])
        self.assertEqual(r.metadata["x.nested"][1].tolist(), [True, False])
        self.assertEqual(r.metadata["x.f64"], 0.25)
        self.assertEqual(r.metadata["x.i8"], -5)
        self.assertEqual(r.tensors["a"].shape, (2, 3))
        np.testing.assert_array_equal(r.tensor("a"), np.arange(6, dtype=np.float32).reshape(2, 3))
        np.testing.assert_array_equal(r.tensor("b"), [7, 8, 9, 10])

    def test_rejects_hostile_headers(self):
        ok = good_small_file()
        self.assertRejected(b"", "shorter than a GGUF header")
        self.assertRejected(b"GGUF" + b"\0" * 10, "shorter than a GGUF header")
        self.assertRejected(b"GGML" + ok[4:], "not a GGUF file")
        self.assertRejected(ok[:4] + struct.pack("<I", 1) + ok[8:], "version 1")
        self.assertRejected(ok[:4] + struct.pack(">I", 3) + ok[8:], "big-endian")
        self.assertRejected(gg_file(kv_count=2 ** 63), "key/value count")
        self.assertRejected(gg_file(tensor_count=2 ** 62), "tensor count")
        self.assertRejected(gg_file([gg_kv("k", 8, struct.pack("<Q", 2 ** 60) + b"abc")]), "past the end")
        self.assertRejected(gg_file([gg_str("k") + struct.pack("<I", 99) + b"\0" * 8]), "unknown value type 99")
        self.assertRejected(gg_file([gg_kv("k", 9, struct.pack("<IQ", 4, 2 ** 61))]), "only")
        self.assertRejected(gg_file([gg_kv("k", 9, struct.pack("<IQ", 8, 2 ** 40))]), "cannot fit")
        self.assertRejected(gg_file([gg_kv("k", 9, struct.pack("<IQ", 77, 1) + b"\0" * 16)]),
                            "unknown array element type")
        nest = struct.pack("<IQ", 9, 1) * 64 + struct.pack("<IQ", 4, 0)
        self.assertRejected(gg_file([gg_kv("k", 9, nest)]), "nested deeper")
        self.assertRejected(gg_file([gg_kv(b"\xff\xfe", 4, b"\0" * 4)]), "not valid UTF-8")
        dup = gg_kv("k", 4, b"\0" * 4)
        self.assertRejected(gg_file([dup, dup]), "appears twice")
        self.assertRejected(gg_file([gg_kv("general.alignment", 4, struct.pack("<I", 3))]), "power of two")
        self.assertRejected(gg_file([gg_kv("general.alignment", 4, struct.pack("<I", 0))]), "power of two")
        self.assertRejected(gg_file([gg_kv("general.alignment", 8, gg_str("32"))]), "UINT32")
        data = b"\0" * 64
        self.assertRejected(gg_file(tensors=[("t", [4, 4, 1, 1, 1], 0, 0)], data=data), "dims")
        self.assertRejected(gg_file(tensors=[("t", [4], 99, 0)], data=data), "unknown ggml type 99")
        self.assertRejected(gg_file(tensors=[("t", [2 ** 40, 2 ** 20], 0, 0)], data=data), "past the")
        self.assertRejected(gg_file(tensors=[("t", [2 ** 63, 2 ** 63, 2 ** 63, 2 ** 63], 0, 0)], data=data),
                            "past the")
        self.assertRejected(gg_file(tensors=[("t", [4], 0, 2 ** 63)], data=data), "past the")
        self.assertRejected(gg_file(tensors=[("t", [4], 0, 4)], data=data), "alignment")
        self.assertRejected(gg_file(tensors=[("t", [8], 0, 0), ("u", [8], 0, 0)], data=data), "overlap")
        self.assertRejected(gg_file(tensors=[("t", [8], 0, 0), ("t", [8], 0, 32)], data=data), "twice")
        self.assertRejected(gg_file(tensors=[("t", [31], 8, 0)], data=data), "block size")

    def test_quantized_tensor_names_its_type(self):
        content = gg_file(tensors=[("q", [32], 8, 0)], data=b"\0" * 34)  # one Q8_0 block
        r = GGUFReader(self.write(content))
        self.assertEqual(r.tensors["q"].nbytes, 34)
        with self.assertRaises(ValueError) as cm:
            r.tensor("q")
        self.assertIn("Q8_0", str(cm.exception))

    def test_every_truncation_is_rejected(self):
        ok = good_small_file()
        GGUFReader(self.write(ok))
        for n in range(len(ok) - 1, -1, -1):
            path = self.write(ok[:n])
            with self.assertRaises(ValueError, msg="truncated to %d bytes" % n):
                r = GGUFReader(path)
                for name in r.tensors:
                    r.tensor(name)
            os.remove(path)


@needs_programs(MAKE_MODEL)
class GGUFReaderSampleModelTest(unittest.TestCase):
    LAYERS, WIDTH, HEADS, KV_HEADS, FF, CONTEXT = 3, 64, 4, 2, 96, 128

    @classmethod
    def setUpClass(cls):
        cls.path = make_model("reader.gguf", "--layers", str(cls.LAYERS), "--width", str(cls.WIDTH),
                              "--heads", str(cls.HEADS), "--kv-heads", str(cls.KV_HEADS), "--ff", str(cls.FF),
                              "--context", str(cls.CONTEXT), "--seed", "5")
        cls.reader = GGUFReader(cls.path)

    def test_metadata_matches_the_options(self):
        md = self.reader.metadata
        self.assertEqual(self.reader.version, 3)
        self.assertEqual(self.reader.alignment, 32)
        self.assertEqual(self.reader.data_offset % 32, 0)
        self.assertEqual(md["general.architecture"], "llama")
        self.assertEqual(md["llama.block_count"], self.LAYERS)
        self.assertEqual(md["llama.embedding_length"], self.WIDTH)
        self.assertEqual(md["llama.feed_forward_length"], self.FF)
        self.assertEqual(md["llama.attention.head_count"], self.HEADS)
        self.assertEqual(md["llama.attention.head_count_kv"], self.KV_HEADS)
        self.assertEqual(md["llama.context_length"], self.CONTEXT)
        self.assertEqual(md["llama.rope.dimension_count"], self.WIDTH // self.HEADS)
        self.assertAlmostEqual(md["llama.attention.layer_norm_rms_epsilon"], 1e-5, places=10)
        self.assertIs(md["tokenizer.ggml.add_space_prefix"], False)
        tokens = md["tokenizer.ggml.tokens"]
        self.assertEqual(len(tokens), 3 + 256)
        self.assertEqual(tokens[:4], ["<unk>", "<s>", "</s>", "<0x00>"])
        self.assertEqual(tokens[3 + 0x41], "<0x41>")
        self.assertEqual(md["tokenizer.ggml.token_type"].tolist(), [2, 3, 3] + [6] * 256)
        self.assertEqual(md["tokenizer.ggml.scores"].dtype, np.float32)

    def test_tensor_table_and_shapes(self):
        t = self.reader.tensors
        self.assertEqual(len(t), 2 + 9 * self.LAYERS + 1)
        head = self.WIDTH // self.HEADS
        self.assertEqual(t["token_embd.weight"].ne, (self.WIDTH, 259))
        self.assertEqual(t["token_embd.weight"].shape, (259, self.WIDTH))
        self.assertEqual(t["blk.0.attn_q.weight"].shape, (self.WIDTH, self.WIDTH))
        self.assertEqual(t["blk.1.attn_k.weight"].shape, (self.KV_HEADS * head, self.WIDTH))
        self.assertEqual(t["blk.2.ffn_down.weight"].shape, (self.WIDTH, self.FF))
        self.assertEqual(t["blk.2.ffn_up.weight"].shape, (self.FF, self.WIDTH))
        self.assertEqual(t["output_norm.weight"].shape, (self.WIDTH,))
        for info in t.values():
            self.assertEqual(info.type_name, "F32")
            self.assertEqual(info.offset % 32, 0)
            self.assertEqual(info.nbytes, 4 * info.n_elements)
        end = max(i.offset + i.nbytes for i in t.values())
        self.assertLessEqual(end, os.path.getsize(self.path))
        self.assertGreater(end, os.path.getsize(self.path) - 32)

    def test_tensor_values_follow_the_writer(self):
        # norm weights: 1 + 0.1 N(0,1); matrices: N(0,1) / sqrt(ne[0])
        norm = self.reader.tensor("blk.0.attn_norm.weight")
        self.assertAlmostEqual(float(norm.mean()), 1.0, delta=0.05)
        self.assertAlmostEqual(float(norm.std()), 0.1, delta=0.03)
        down = self.reader.tensor("blk.1.ffn_down.weight")  # ne [ff, width]: rows of ff elements
        self.assertAlmostEqual(float(down.std()), 1 / np.sqrt(self.FF), delta=0.1 / np.sqrt(self.FF))
        self.assertEqual(down.dtype, np.float32)

    def test_f16_and_bf16_files_hold_the_rounded_f32_values(self):
        f16 = os.path.join(_tmp, "reader-f16.gguf")
        bf16 = os.path.join(_tmp, "reader-bf16.gguf")
        subprocess.run([MAKE_MODEL, "--quantize", "f16", "--in", self.path, "--out", f16], check=True,
                       capture_output=True)
        subprocess.run([MAKE_MODEL, "--quantize", "bf16", "--in", self.path, "--out", bf16], check=True,
                       capture_output=True)
        for path, kind in ((f16, "F16"), (bf16, "BF16")):
            r = GGUFReader(path)
            seen = 0
            for name, info in r.tensors.items():
                ref = self.reader.tensor(name)
                got = r.tensor(name)
                self.assertEqual(got.shape, ref.shape)
                if info.type_name == "F32":
                    np.testing.assert_array_equal(got, ref)
                    continue
                self.assertEqual(info.type_name, kind)
                seen += 1
                if kind == "F16":
                    np.testing.assert_array_equal(got, ref.astype(np.float16))
                else:  # round to nearest even in the top 16 bits
                    u = ref.view(np.uint32).astype(np.uint64)
                    rounded = (((u + 0x7FFF + ((u >> 16) & 1)) >> 16) << 16).astype(np.uint32).view(np.float32)
                    np.testing.assert_array_equal(got, rounded)
            self.assertGreater(seen, 0, kind)

    def test_garbled_copies_fail_cleanly(self):
        small = make_model("fuzz.gguf", "--layers", "1", "--width", "32", "--heads", "2", "--kv-heads", "1",
                           "--ff", "32")
        with open(small, "rb") as f:
            content = f.read()
        header_end = GGUFReader(small).data_offset
        rnd = random.Random(1234)
        path = os.path.join(_tmp, "garbled.gguf")
        t0 = time.monotonic()
        for trial in range(300):
            b = bytearray(content)
            if trial % 3 == 0:
                b = b[:rnd.randrange(len(b))]
            else:
                for _ in range(rnd.randint(1, 4)):
                    at = rnd.randrange(header_end)
                    b[at] = rnd.choice([0x00, 0xFF, 0x7F, 0x80, rnd.randrange(256)])
            with open(path, "wb") as f:
                f.write(bytes(b))
            try:
                r = GGUFReader(path)
                for name in r.tensors:
                    r.tensor(name)
            except ValueError:
                pass
        self.assertLess(time.monotonic() - t0, 60.0)


@needs_programs(MAKE_MODEL)
class HostileModelTest(unittest.TestCase):
    def patched(self, key, value_bytes):
        with open(make_model("m.gguf", "--layers", "2"), "rb") as f:
            content = f.read()
        at = content.index(gg_str(key)) + len(gg_str(key)) + 4  # past the key and its type
        path = os.path.join(_tmp, "patched.gguf")
        with open(path, "wb") as f:
            f.write(content[:at] + value_bytes + content[at + len(value_bytes):])
        return path

    def test_absurd_hyperparameters_are_rejected_before_allocating(self):
        for key, value, fragment in (("llama.block_count", 2 ** 30, "block_count"),
                                     ("llama.block_count", 3, "lacks blk.2."),
                                     ("llama.block_count", 1, "no place"),
                                     ("llama.feed_forward_length", 2 ** 31 - 1, "shape"),
                                     ("llama.attention.head_count", 3, "multiple"),
                                     ("llama.embedding_length", 0, "out of range")):
            t0 = time.monotonic()
            with self.assertRaises(ValueError) as cm:
                LlamaForCausalLM.from_gguf(self.patched(key, struct.pack("<I", value)))
            self.assertIn(fragment, str(cm.exception))
            self.assertLess(time.monotonic() - t0, 2.0)


class PermutationTest(unittest.TestCase):
    @staticmethod
    def converter_permute(w, n_head):
        """llama.cpp's converter's reordering of q/k rows: per head, [2, D/2] -> [D/2, 2]."""
        rows = w.shape[0]
        return w.reshape(n_head, 2, rows // n_head // 2, *w.shape[1:]).swapaxes(1, 2).reshape(w.shape)

    @staticmethod
    def rope_adjacent_pairs(x, pos, base=10000.0):
        """ggml's RoPE for llama (mode 0): rotates (x[2i], x[2i+1]) by pos * base^(-2i/D).
        x: [heads, D] for one position (float64)."""
        d = x.shape[-1]
        theta = pos * base ** (-np.arange(0, d, 2) / d)
        c, s = np.cos(theta), np.sin(theta)
        out = x.copy()
        x0, x1 = x[..., 0::2], x[..., 1::2]
        out[..., 0::2] = x0 * c - x1 * s
        out[..., 1::2] = x0 * s + x1 * c
        return out

    def test_unpermute_inverts_the_converter(self):
        rng = np.random.default_rng(0)
        for n_head, d, cols in ((1, 2, 3), (4, 8, 5), (2, 64, 16), (8, 16, 1)):
            w = rng.standard_normal((n_head * d, cols))
            np.testing.assert_array_equal(unpermute_qk(self.converter_permute(w, n_head), n_head), w)
            np.testing.assert_array_equal(self.converter_permute(unpermute_qk(w, n_head), n_head), w)
            t = torch.from_numpy(self.converter_permute(w, n_head))
            np.testing.assert_array_equal(unpermute_qk(t, n_head).numpy(), w)
        # the formula row by row: hf[h*D + s*D/2 + i] = gguf[h*D + 2*i + s]
        n_head, d = 3, 8
        gguf = np.arange(n_head * d)[:, None].astype(float)
        hf = unpermute_qk(gguf, n_head)
        for h in range(n_head):
            for s in range(2):
                for i in range(d // 2):
                    self.assertEqual(hf[h * d + s * d // 2 + i, 0], gguf[h * d + 2 * i + s, 0])
        with self.assertRaises(ValueError):
            unpermute_qk(np.ones((6, 2)), 2)  # head size 3 is odd

    def test_rotate_half_on_hf_layout_equals_adjacent_pairs_on_gguf_layout(self):
        rng = np.random.default_rng(1)
        n_head, n_kv, d, width = 4, 2, 16, 32
        wq_hf = rng.standard_normal((n_head * d, width))
        wk_hf = rng.standard_normal((n_kv * d, width))
        wq_gguf, wk_gguf = self.converter_permute(wq_hf, n_head), self.converter_permute(wk_hf, n_kv)
        rope = LlamaRotaryEmbedding(d, 10000.0)
        for pos in (0, 1, 7, 100):
            x = rng.standard_normal(width)
            # llama.cpp: GGUF weights, adjacent-pair rotation
            q_g = self.rope_adjacent_pairs((wq_gguf @ x).reshape(n_head, d), pos)
            k_g = self.rope_adjacent_pairs((wk_gguf @ x).reshape(n_kv, d), pos)
            # Hugging Face: un-permuted weights, rotate_half
            q_h = torch.from_numpy(unpermute_qk(wq_gguf, n_head) @ x).view(1, n_head, 1, d)
            k_h = torch.from_numpy(unpermute_qk(wk_gguf, n_kv) @ x).view(1, n_kv, 1, d)
            cos, sin = rope(q_h, torch.tensor([[pos]]))
            q_h, k_h = apply_rotary_pos_emb(q_h, k_h, cos, sin)
            q_h, k_h = q_h.reshape(n_head, d).numpy(), k_h.reshape(n_kv, d).numpy()
            # same vectors up to the per-head row order, and the same attention scores
            np.testing.assert_allclose(q_h, unpermute_qk(q_g.reshape(-1, 1), n_head).reshape(n_head, d),
                                       rtol=1e-12, atol=1e-12)
            np.testing.assert_allclose(k_h, unpermute_qk(k_g.reshape(-1, 1), n_kv).reshape(n_kv, d),
                                       rtol=1e-12, atol=1e-12)
            group = n_head // n_kv
            for h in range(n_head):
                self.assertAlmostEqual(float(q_h[h] @ k_h[h // group]), float(q_g[h] @ k_g[h // group]), places=9)


class NamesAndTokenizerTest(unittest.TestCase):
    def test_gguf_names_map_to_hugging_face_names(self):
        self.assertEqual(gguf_to_hf_name("token_embd.weight"), "model.embed_tokens.weight")
        self.assertEqual(gguf_to_hf_name("blk.3.ffn_down.weight"), "model.layers.3.mlp.down_proj.weight")
        self.assertEqual(gguf_to_hf_name("blk.0.attn_q.weight"), "model.layers.0.self_attn.q_proj.weight")
        self.assertEqual(gguf_to_hf_name("blk.0.attn_output.weight"), "model.layers.0.self_attn.o_proj.weight")
        self.assertEqual(gguf_to_hf_name("blk.1.attn_norm.weight"), "model.layers.1.input_layernorm.weight")
        self.assertEqual(gguf_to_hf_name("blk.1.ffn_norm.weight"),
                         "model.layers.1.post_attention_layernorm.weight")
        self.assertEqual(gguf_to_hf_name("output_norm.weight"), "model.norm.weight")
        self.assertEqual(gguf_to_hf_name("output.weight"), "lm_head.weight")
        self.assertIsNone(gguf_to_hf_name("blk.x.attn_q.weight"))

    def test_byte_vocabulary(self):
        tokens = ["<unk>", "<s>", "</s>"] + ["<0x%02X>" % b for b in range(256)]
        tok = SpmTokenizer(tokens, token_types=[2, 3, 3] + [6] * 256, add_space_prefix=False)
        for text in ("Hello, llmscope", "", " a  b ", "\u00e9\u4e2d\U0001f642\n\t<s>"):
            expect = [1] + [3 + b for b in text.replace(" ", "\u2581").encode("utf-8")]
            self.assertEqual(tok.encode(text), expect, text)
            self.assertEqual(tok.decode(expect), text)
        spaced = SpmTokenizer(tokens, token_types=[2, 3, 3] + [6] * 256, add_space_prefix=True)
        self.assertEqual(spaced.encode("a"), [1, 3 + 0xE2, 3 + 0x96, 3 + 0x81, 3 + ord("a")])

    def test_merges_best_score_first(self):
        tokens = ["<unk>", "<s>", "</s>", "a", "b", "c", "ab", "bc", "abc"]
        scores = [0, 0, 0, -1, -1, -1, -5, -2, -3]
        tok = SpmTokenizer(tokens, scores, [2, 3, 3] + [1] * 6, add_space_prefix=False)
        self.assertEqual(tok.encode("abc"), [1, 8])      # bc first, then a+bc = abc
        self.assertEqual(tok.encode("ab", add_special=False), [6])
        self.assertEqual(tok.encode("cab", add_special=False), [5, 6])


@needs_programs(MAKE_MODEL, SAMPLE_GENERATE)
class ReferenceMatchesLlamaCppTest(unittest.TestCase):
    N = 16

    def compare(self, model, n=None, tol=1e-2):
        n = n or self.N
        cpp = run_sample(model, n)
        ref = run_reference(model, n)
        self.assertEqual(ref["prompt_tokens"], cpp["prompt_tokens"])
        self.assertEqual(ref["tokens"], cpp["tokens"])
        self.assertEqual(len(ref["logits"]), len(cpp["logits"]))
        # llama.cpp keeps K and V in F16 (and rounds Q and the attention weights to F16 for
        # them), so the logits agree to about 1e-3 of their scale, not to float32 rounding
        scale = np.abs(cpp["logits"]).max()
        self.assertLess(np.abs(ref["logits"] - cpp["logits"]).max(), tol * scale)
        return cpp, ref

    def test_f32_sample_model(self):
        model = make_model("m.gguf", "--layers", "2")
        self.compare(model)

    def test_grouped_query_and_multi_head_configs(self):
        self.compare(make_model("mha.gguf", "--layers", "2", "--heads", "8", "--kv-heads", "8", "--seed", "2"))
        self.compare(make_model("mqa.gguf", "--layers", "3", "--width", "128", "--heads", "4", "--kv-heads",
                                "1", "--ff", "256", "--seed", "3"))

    def test_corrupted_layer_changes_the_tokens_on_both_sides(self):
        fam = make_model("family", "--family", "--layers", "2", "--corrupt-layer", "1", "--width", "128",
                         "--ff", "256")
        clean, _ = self.compare(os.path.join(fam, "model-f32.gguf"))
        corrupt, _ = self.compare(os.path.join(fam, "model-corrupt.gguf"))
        self.assertNotEqual(clean["tokens"], corrupt["tokens"])

    def test_prompt_with_other_bytes(self):
        model = make_model("m.gguf", "--layers", "2")
        prompt = " caf\u00e9 \u4e2d\n<s>"
        r = subprocess.run([SAMPLE_GENERATE, "-m", model, "-n", "8", "-p", prompt], check=True,
                           capture_output=True, text=True).stdout
        lines = dict(l.split(":", 1) for l in r.splitlines() if ":" in l)
        ref = run_reference(model, 8, prompt)
        self.assertEqual(ref["prompt_tokens"], [int(x) for x in lines["prompt_tokens"].split()])
        self.assertEqual(ref["tokens"], [int(x) for x in lines["tokens"].split()])

    def test_float64_gives_the_same_tokens(self):
        model = make_model("m.gguf", "--layers", "2")
        self.assertEqual(run_reference(model, self.N, dtype=torch.float64)["tokens"],
                         run_sample(model, self.N)["tokens"])

    def test_command_line_prints_the_sample_lines_and_calls_the_hook(self):
        model = make_model("m.gguf", "--layers", "2")
        calls = []

        def fake_register(m):
            calls.append(m)
            m.register_forward_pre_hook(lambda mod, args: calls.append(args[0].shape[1]))

        had = hasattr(llmscope, "register_hook_from_env")
        saved = getattr(llmscope, "register_hook_from_env", None)
        llmscope.register_hook_from_env = fake_register
        try:
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                rc = gen.main(["-m", model, "-n", "8", "--logits"])
        finally:
            if had:
                llmscope.register_hook_from_env = saved
            else:
                del llmscope.register_hook_from_env
        self.assertEqual(rc, 0)
        self.assertIsInstance(calls[0], LlamaForCausalLM)
        names = dict(calls[0].named_modules())
        for name in ("model.embed_tokens", "model.layers.1.self_attn.k_proj", "model.layers.0.mlp.down_proj",
                     "model.layers.0.input_layernorm", "model.layers.1.post_attention_layernorm",
                     "model.norm", "lm_head"):
            self.assertIn(name, names)
        # one forward for the 18-token prompt, then one per generated token but the last
        self.assertEqual(calls[1:], [18] + [1] * 7)
        lines = dict(l.split(":", 1) for l in out.getvalue().splitlines())
        cpp = run_sample(model, 8)
        self.assertEqual([int(x) for x in lines["prompt_tokens"].split()], cpp["prompt_tokens"])
        self.assertEqual([int(x) for x in lines["tokens"].split()], cpp["tokens"])
        self.assertEqual(len(lines["logits"].split()), 259)


class ModelStructureTest(unittest.TestCase):
    def test_kv_cache_matches_a_full_forward(self):
        from llmscope.reference.llama import LlamaConfig
        torch.manual_seed(0)
        cfg = LlamaConfig(vocab_size=50, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                          num_attention_heads=4, num_key_value_heads=2, head_dim=8)
        m = LlamaForCausalLM(cfg).double().eval()
        ids = torch.randint(0, 50, (1, 9))
        with torch.no_grad():
            full = m(ids)
            cache = m.new_cache()
            parts = [m(ids[:, :5], cache=cache)] + [m(ids[:, i:i + 1], cache=cache) for i in range(5, 9)]
        torch.testing.assert_close(torch.cat(parts, dim=1), full, rtol=1e-10, atol=1e-10)

    def test_greedy_pick_is_the_samples_rule(self):
        self.assertEqual(gen.greedy_pick(torch.tensor([1.0, 3.0, 3.0, 2.0])), 1)
        self.assertEqual(gen.greedy_pick(torch.tensor([float("nan"), 3.0])), 0)
        self.assertEqual(gen.greedy_pick(torch.tensor([0.0, float("nan"), 1.0])), 2)


if __name__ == "__main__":
    unittest.main()
