"""Tests of llmscope's PyTorch dump (msit's DumpConfig / register_hook) on a small llama-like model.

Run: cd python && /usr/bin/python3 -m unittest discover -s ../tests/python -v
"""
import csv
import glob
import json
import math
import os
import shutil
import struct
import sys
import tempfile
import unittest
from unittest import mock

import torch
import torch.nn.functional as F
from torch import nn

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))

from llmscope import DumpConfig, register_hook, register_hook_from_env  # noqa: E402
from llmscope import dump_files, dump_hook  # noqa: E402

HIDDEN, VOCAB = 8, 11


class RMSNorm(nn.Module):
    def __init__(self):
        super().__init__()
        self.weight = nn.Parameter(torch.rand(HIDDEN) + 0.5)

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6) * self.weight


class Attention(nn.Module):
    def __init__(self):
        super().__init__()
        self.q_proj, self.k_proj = nn.Linear(HIDDEN, HIDDEN), nn.Linear(HIDDEN, HIDDEN)
        self.v_proj, self.o_proj = nn.Linear(HIDDEN, HIDDEN), nn.Linear(HIDDEN, HIDDEN)

    def forward(self, x):
        scores = torch.matmul(self.q_proj(x), self.k_proj(x).transpose(-1, -2)) / math.sqrt(HIDDEN)
        probs = torch.softmax(scores, -1)
        # A nested tuple: output_0, output_1_0, output_1_1.
        return self.o_proj(torch.matmul(probs, self.v_proj(x))), (probs, scores)


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.gate_proj, self.up_proj = nn.Linear(HIDDEN, 16), nn.Linear(HIDDEN, 16)
        self.down_proj = nn.Linear(16, HIDDEN)

    def forward(self, x):
        return self.down_proj(F.silu(self.gate_proj(x)) * self.up_proj(x))


class DecoderLayer(nn.Module):
    def __init__(self):
        super().__init__()
        self.mlp = MLP()  # declared before the attention that runs first: model_tree follows run order
        self.input_layernorm, self.self_attn = RMSNorm(), Attention()
        self.post_attention_layernorm = RMSNorm()

    def forward(self, x):
        x = x + self.self_attn(self.input_layernorm(x))[0]
        return x + self.mlp(self.post_attention_layernorm(x)), None  # None: a non-tensor output


class Inner(nn.Module):
    def __init__(self):
        super().__init__()
        self.dropout = nn.Dropout(0.0)  # never runs: model_tree puts it last
        self.norm = RMSNorm()
        self.embed_tokens = nn.Embedding(VOCAB, HIDDEN)
        self.layers = nn.ModuleList([DecoderLayer(), DecoderLayer()])

    def forward(self, ids):
        x = self.embed_tokens(ids)
        for layer in self.layers:
            x = layer(x)[0]
        return self.norm(x)


class ToyLM(nn.Module):
    def __init__(self):
        super().__init__()
        self.model = Inner()
        self.lm_head = nn.Linear(HIDDEN, VOCAB, bias=False)

    def forward(self, ids):
        return self.lm_head(self.model(ids))


def module_names(model):
    return {f"root.{n}" if n else "root" for n, _ in model.named_modules()}


# The modules whose forward runs: not the Dropout never called, nor the ModuleList (never called itself).
RUN_MODULES = module_names(ToyLM()) - {"root.model.dropout", "root.model.layers"}


def module_items(model):
    """(dumped name, module) of every module: root, root.model, ..."""
    return [(f"root.{n}" if n else "root", m) for n, m in model.named_modules()]


class DumpTestCase(unittest.TestCase):
    def setUp(self):
        torch.manual_seed(0)
        self.tmp = tempfile.mkdtemp(prefix="llmscope_dump_test_")
        self.model = ToyLM().eval()
        self.handles = []

    def tearDown(self):
        for h in self.handles:
            h.remove()
        shutil.rmtree(self.tmp, ignore_errors=True)

    def hook(self, **kwargs):
        kwargs.setdefault("dump_path", self.tmp)
        h = register_hook(self.model, DumpConfig(**kwargs))
        self.handles.append(h)
        return h

    def run3(self):
        """Prompt of 4 tokens, then 2 decode steps; the logits of each forward."""
        with torch.no_grad():
            return [self.model(torch.tensor([[1, 5, 7, 2]])), self.model(torch.tensor([[3]])),
                    self.model(torch.tensor([[9]]))]

    def dump_dir(self):
        roots = glob.glob(os.path.join(self.tmp, "msit_dump_*", "torch_tensors", f"cpu_{os.getpid()}"))
        self.assertEqual(len(roots), 1, roots)
        return roots[0]

    def folders(self, token):
        return set(os.listdir(os.path.join(self.dump_dir(), str(token))))

    def files(self, token, folder):
        return set(os.listdir(os.path.join(self.dump_dir(), str(token), folder)))

    def load(self, token, folder, name):
        return torch.load(os.path.join(self.dump_dir(), str(token), folder, name))

    def all_files(self):
        return [os.path.join(d, f) for d, _, fs in os.walk(self.tmp) for f in fs]


class LayoutTest(DumpTestCase):
    def test_layout_names_and_contents(self):
        self.hook()
        ids = torch.tensor([[1, 5, 7, 2]])
        logits = self.run3()
        (dump_folder,) = os.listdir(self.tmp)
        self.assertRegex(dump_folder, r"^msit_dump_\d{8}_\d{6}$")
        self.assertEqual(set(os.listdir(self.dump_dir())), {"0", "model_tree.json", "weights"})  # token_range [0]
        self.assertEqual(self.folders(0), RUN_MODULES)
        self.assertEqual(self.files(0, "root.lm_head"), {"input_0.pth", "output.pth"})
        self.assertTrue(torch.equal(self.load(0, "root.lm_head", "output.pth"), logits[0]))
        self.assertTrue(torch.equal(self.load(0, "root", "input_0.pth"), ids))
        self.assertTrue(torch.equal(self.load(0, "root.model.embed_tokens", "input_0.pth"), ids))
        # A tuple output with a None: output_0 only; a nested tuple: output_1_0, output_1_1.
        self.assertEqual(self.files(0, "root.model.layers.0"), {"input_0.pth", "output_0.pth"})
        self.assertEqual(self.files(0, "root.model.layers.1.self_attn"),
                         {"input_0.pth", "output_0.pth", "output_1_0.pth", "output_1_1.pth"})
        probs = self.load(0, "root.model.layers.1.self_attn", "output_1_0.pth")
        self.assertEqual(tuple(probs.shape), (1, 4, 4))
        self.assertTrue(torch.allclose(probs.sum(-1), torch.ones(1, 4)))
        self.assertFalse(self.load(0, "root.model.layers.0.self_attn.q_proj", "output.pth").requires_grad)
        # No temporary file is left behind.
        self.assertFalse([f for f in self.all_files() if os.path.basename(f).startswith(".")])

    def test_saved_view_holds_only_its_elements(self):
        class FirstRow(nn.Module):
            def __init__(self):
                super().__init__()
                self.lin = nn.Linear(4, 4)

            def forward(self, x):
                return self.lin(x[:1])  # a view into x's 32 elements
        self.model = FirstRow()
        self.hook()
        x = torch.randn(8, 4, requires_grad=True)
        self.model(x)
        saved = self.load(0, "root.lin", "input_0.pth")
        self.assertTrue(torch.equal(saved, x[:1].detach()))
        self.assertEqual(saved.storage().size(), 4)
        self.assertFalse(saved.requires_grad)

    def test_token_range_selects_rounds(self):
        self.hook(token_range=[1, 2])
        logits = self.run3()
        self.assertEqual(set(os.listdir(self.dump_dir())), {"1", "2", "model_tree.json", "weights"})
        self.assertTrue(torch.equal(self.load(1, "root.lm_head", "output.pth"), logits[1]))
        self.assertTrue(torch.equal(self.load(2, "root.lm_head", "output.pth"), logits[2]))
        self.assertTrue(torch.equal(self.load(2, "root", "input_0.pth"), torch.tensor([[9]])))

    def test_module_list_filters_by_class(self):
        self.hook(module_list=[nn.Linear, RMSNorm])
        self.run3()
        expected = {f"root.{n}" for n, m in self.model.named_modules() if isinstance(m, (nn.Linear, RMSNorm))}
        self.assertEqual(len(expected), 2 * 7 + 1 + 2 * 2 + 1)
        self.assertEqual(self.folders(0), expected)

    def test_layer_name_glob(self):
        self.hook(layer_name="root.model.layers.0*", dump_weight=True)
        self.run3()
        expected = {n for n in RUN_MODULES if n.startswith("root.model.layers.0")}
        self.assertEqual(self.folders(0), expected)
        weights = set(os.listdir(os.path.join(self.dump_dir(), "weights")))
        self.assertEqual(weights, {f"root.{n}.pth" for n, _ in self.model.named_parameters()
                                   if n.startswith("model.layers.0")})

    def test_layer_name_is_literal_apart_from_star(self):
        self.hook(layer_name="root.lm_head")  # whole-name match: not root.lm_head's children or prefixes
        self.run3()
        self.assertEqual(self.folders(0), {"root.lm_head"})
        self.handles.pop().remove()
        shutil.rmtree(self.tmp)
        self.hook(layer_name="root.model.layers.[01]*")  # brackets are literal, as in msit
        self.run3()
        self.assertEqual(set(os.listdir(self.dump_dir())), {"model_tree.json"})

    def test_tensor_part_inputs_only(self):
        self.hook(tensor_part=0)
        self.run3()
        names = {os.path.basename(f) for f in self.all_files() if f.endswith(".pth")}
        self.assertTrue(names)
        self.assertTrue(all(n.startswith("input_") for n in names), names)
        # Modules whose only input is not a tensor would have no folder; here all have one.
        self.assertEqual(self.folders(0), RUN_MODULES)

    def test_tensor_part_outputs_only(self):
        self.hook(tensor_part=1)
        self.run3()
        names = {os.path.basename(f) for f in self.all_files() if f.endswith(".pth")}
        self.assertTrue(all(n.startswith("output") for n in names), names)
        self.assertIn("output_1_1.pth", names)


class ApiModeTest(DumpTestCase):
    def test_api_mode_dumps_functions_and_restores_torch(self):
        matmul, linear, silu = torch.matmul, F.linear, F.silu
        seen = {}

        def spy(module, inputs):
            seen["matmul_patched"] = torch.matmul is not matmul
        self.model.model.layers[0].register_forward_pre_hook(spy)
        self.hook(mode="api", api_list=["matmul", "nn.functional.silu", F.linear])
        self.run3()
        self.assertTrue(seen["matmul_patched"])
        self.assertIs(torch.matmul, matmul)
        self.assertIs(F.linear, linear)
        self.assertIs(F.silu, silu)
        attn = "root.model.layers.0.self_attn"
        folders = self.folders(0)
        self.assertIn(f"{attn}.matmul", folders)
        self.assertIn(f"{attn}.matmul.1", folders)  # the second call keeps its own folder
        self.assertIn(f"{attn}.q_proj.linear", folders)  # named after the innermost module
        self.assertIn("root.model.layers.1.mlp.silu", folders)
        self.assertNotIn("root.lm_head", folders)  # mode api only: no module folders
        self.assertFalse(any(f.endswith(".softmax") for f in folders))  # not in api_list
        a, b = self.load(0, f"{attn}.matmul", "input_0.pth"), self.load(0, f"{attn}.matmul", "input_1.pth")
        self.assertEqual(tuple(b.shape), (1, HIDDEN, 4))  # k transposed: the first matmul
        self.assertTrue(torch.allclose(torch.matmul(a, b), self.load(0, f"{attn}.matmul", "output.pth")))

    def test_default_api_list_and_both_modes(self):
        self.hook(mode=["module", "api"])
        self.run3()
        folders = self.folders(0)
        self.assertIn("root.lm_head", folders)
        self.assertIn("root.lm_head.linear", folders)
        self.assertIn("root.model.layers.0.self_attn.softmax", folders)
        self.assertIn("root.model.embed_tokens.embedding", folders)

    def test_exception_in_forward_restores_torch(self):
        matmul = torch.matmul

        class Boom(nn.Module):
            def __init__(self):
                super().__init__()
                self.lin = nn.Linear(2, 2)

            def forward(self, x):
                torch.matmul(x, x)
                raise RuntimeError("boom")
        model = Boom()
        h = register_hook(model, DumpConfig(dump_path=self.tmp, mode="api", api_list=["matmul"]))
        self.handles.append(h)
        with self.assertRaisesRegex(RuntimeError, "boom"):
            model(torch.ones(2, 2))
        self.assertIs(torch.matmul, matmul)
        self.assertEqual(self.folders(0), {"root.matmul"})  # dumped before the exception
        h.remove()
        self.assertNotIn("forward", model.__dict__)

    def test_next_forward_after_exception_names_apis_afresh(self):
        class Inner(nn.Module):
            fail = True

            def forward(self, x):
                if self.fail:
                    raise ValueError("inner")
                return x

        class Outer(nn.Module):
            def __init__(self):
                super().__init__()
                self.inner = Inner()
                self.scale = nn.Parameter(torch.ones(1))

            def forward(self, x):
                return torch.matmul(self.inner(x), x)
        model = Outer()
        self.handles.append(register_hook(model, DumpConfig(dump_path=self.tmp, mode="api", api_list=["matmul"],
                                                            token_range=[0, 1])))
        with self.assertRaises(ValueError):
            model(torch.ones(2, 2))
        model.inner.fail = False
        model(torch.ones(2, 2))
        self.assertEqual(self.folders(1), {"root.matmul"})  # not under root.inner, left running by token 0

    def test_reentered_forward_wraps_once(self):
        class Recursive(nn.Module):
            def __init__(self):
                super().__init__()
                self.scale = nn.Parameter(torch.ones(1))

            def forward(self, x, depth=1):
                return self.forward(x, depth - 1) if depth else torch.matmul(x, x)
        model = Recursive()
        self.handles.append(register_hook(model, DumpConfig(dump_path=self.tmp, mode="api", api_list=["matmul"])))
        model(torch.ones(2, 2))
        self.assertEqual(self.folders(0), {"root.matmul"})  # one call, one folder

    def test_bad_api_name(self):
        with self.assertRaisesRegex(ValueError, "no_such_op"):
            DumpConfig(dump_path=self.tmp, mode="api", api_list=["no_such_op"])


class DeviceTest(DumpTestCase):
    def test_device_id_filters(self):
        with mock.patch.object(dump_hook, "model_device", return_value="cuda1"):
            h = register_hook(self.model, DumpConfig(dump_path=self.tmp, device_id=0))
            self.assertIsNone(h.dump_dir)
            self.run3()
            self.assertEqual(os.listdir(self.tmp), [])  # nothing hooked, nothing written
            h.remove()
            self.hook(device_id=1)
            self.run3()
        (folder,) = glob.glob(os.path.join(self.tmp, "msit_dump_*", "torch_tensors", "*"))
        self.assertEqual(os.path.basename(folder), f"cuda1_{os.getpid()}")
        self.assertIn("root.lm_head", os.listdir(os.path.join(folder, "0")))

    def test_cpu_is_always_dumped(self):
        self.hook(device_id=3)  # msit: device_id applies to accelerators only
        self.run3()
        self.assertEqual(self.folders(0), RUN_MODULES)

    def test_device_name_matching(self):
        config = DumpConfig(dump_path=self.tmp, device_id=1)
        self.assertTrue(config.selects_device("cuda1"))
        self.assertTrue(config.selects_device("npu1"))
        self.assertFalse(config.selects_device("cuda0"))
        self.assertFalse(config.selects_device("cuda11"))
        self.assertTrue(DumpConfig(dump_path=self.tmp).selects_device("cuda7"))


class LogitsWeightsStatsTest(DumpTestCase):
    def test_dump_last_logits(self):
        self.hook(dump_last_logits=True, token_range=[0, 1, 2])
        logits = self.run3()
        for token in range(3):
            self.assertEqual(self.folders(token), {"root.lm_head"})
            self.assertEqual(self.files(token, "root.lm_head"), {"output.pth"})
            self.assertTrue(torch.equal(self.load(token, "root.lm_head", "output.pth"), logits[token]))

    def test_dump_weight(self):
        self.hook(dump_weight=True, token_range=[5])
        weights = os.path.join(self.dump_dir(), "weights")
        params = dict(self.model.named_parameters())
        self.assertEqual(set(os.listdir(weights)), {f"root.{n}.pth" for n in params})  # at hooking time
        for name, param in params.items():
            saved = torch.load(os.path.join(weights, f"root.{name}.pth"))
            self.assertTrue(torch.equal(saved, param.detach()))
            self.assertNotIsInstance(saved, nn.Parameter)
        self.run3()
        self.assertEqual(set(os.listdir(self.dump_dir())), {"weights", "model_tree.json"})  # token 5 never ran

    def test_weight_statistics(self):
        """Without dump_weight, each module's own parameters are identified by statistics and
        llmscope's sketch in weights/statistics.csv (no payload)."""
        self.hook(token_range=[5])
        with open(os.path.join(self.dump_dir(), "weights", "statistics.csv"), newline="") as f:
            rows = list(csv.DictReader(f))
        want = {(name, p) for name, m in module_items(self.model) for p, _ in m.named_parameters(recurse=False)}
        self.assertEqual({(r["NodeName"], r["Parameter"]) for r in rows}, want)
        self.assertFalse([f for f in self.all_files() if f.endswith(".pth")])
        modules = dict(module_items(self.model))
        for r in rows:
            param = getattr(modules[r["NodeName"]], r["Parameter"]).detach().double()
            self.assertEqual(r["Shape"], str(tuple(param.shape)))
            for got, value in zip((r["Max"], r["Min"], r["Mean"], r["L2Norm"]),
                                  (param.max(), param.min(), param.mean(), param.norm())):
                self.assertAlmostEqual(float(got), value.item(), delta=1e-12 * (1 + abs(value.item())))
            # the sketch, by core/tensor/sketch.h's definition element by element, in plain integers
            def mix(z):
                z = (z + 0x9E3779B97F4A7C15) & 0xFFFFFFFFFFFFFFFF
                z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & 0xFFFFFFFFFFFFFFFF
                z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & 0xFFFFFFFFFFFFFFFF
                return z ^ (z >> 31)
            sums = [0.0] * 64
            for i, x in enumerate(param.float().reshape(-1).tolist()):
                signs, rotation = mix(2 * (i // 64)), mix(2 * (i // 64) + 1) >> 58
                sums[(i % 64 + rotation) % 64] += -x if (signs >> (i % 64)) & 1 else x
            text = r["Sketch"]
            self.assertEqual(len(text), 345)
            self.assertTrue(text.startswith("s2."))
            text = text[3:]
            bits = 0
            for c in text:
                bits = bits << 6 | b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".index(c.encode())
            raw = (bits >> 4).to_bytes(256, "big")
            got = struct.unpack("<64f", raw)
            for g, w in zip(got, sums):
                self.assertAlmostEqual(g, w, delta=1e-5 * (1 + abs(w)))

    def test_sketch_agrees_with_llmscopes(self):
        """The sketch of 3000 values (i % 17 - 8) / 7 as llmscope's C++ (core/tensor/sketch.cpp)
        writes it: the same hashes and encoding; its sums, made in float runs, agree to float
        rounding with these, made in double."""
        cpp = ("s2.tm2bwLRt2z4hSZI_SJKEQChJEj902zY_bts2QP__n0Dbti3AAACAv5MkicC4bdu_kiTJP9u2jUDcto3Abtu2QG_btkBt27bA3LZtQJMki"
               "UBJksTAbtuWQG7btkCSJAnAtm37wJMkycCTJAnASpKkwP__f79t23ZAAgCAvzRJEr5v27bASZKEQCdJEj-SJIlA3LbtQEiSJEC2bQvB____P"
               "yVJkkCSJKlAb9u2vwAAoMABAOBASpKkQNu2LUCTJMm_JEmSQAEAAEBKkqRAR5KkvyVJkj-SJIlAcNu2P0qSxMDbtu3Atm0bQLlt279MkiTA_"
               "v__v7dtG8Cobds-_v__Pw")
        ours = dump_files.sketch([(i % 17 - 8) / 7.0 for i in range(3000)])

        def decode(text):
            self.assertTrue(text.startswith("s2."))
            bits = 0
            for c in text[3:]:
                bits = bits << 6 | b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".index(c.encode())
            return struct.unpack("<64f", (bits >> 4).to_bytes(256, "big"))
        for a, b in zip(decode(cpp), decode(ours)):
            self.assertAlmostEqual(a, b, delta=1e-5)

    def read_stats(self, token, folder):
        with open(os.path.join(self.dump_dir(), str(token), folder, "statistics.csv"), newline="") as f:
            return list(csv.reader(f))

    def assert_row(self, row, tensor):
        t = tensor.float()
        self.assertEqual(row[4], str(tensor.dtype))
        self.assertEqual(row[5], str(tuple(tensor.shape)))
        for got, want in zip(row[6:], [t.max(), t.min(), t.mean(), t.norm()]):
            self.assertAlmostEqual(float(got), want.item(), places=6)

    def test_statistics_only_match_the_tensors(self):
        captured = {}
        self.model.model.norm.register_forward_hook(lambda m, i, o: captured.setdefault("norm", (i[0], o)) and None)
        self.hook(dump_statistics_mode=1)
        ids = torch.tensor([[1, 5, 7, 2]])
        self.run3()
        self.assertFalse([f for f in self.all_files() if f.endswith(".pth")])
        rows = self.read_stats(0, "root.model.norm")
        self.assertEqual(rows[0], dump_files.STAT_COLUMNS)
        self.assertEqual([r[:4] for r in rows[1:]], [["root.model.norm", "RMSNorm", "Input", "0"],
                                                     ["root.model.norm", "RMSNorm", "Output", "0"]])
        self.assert_row(rows[1], captured["norm"][0])
        self.assert_row(rows[2], captured["norm"][1])
        emb = self.read_stats(0, "root.model.embed_tokens")
        self.assertEqual(emb[1][:6], ["root.model.embed_tokens", "Embedding", "Input", "0", "torch.int64", "(1, 4)"])
        self.assert_row(emb[1], ids)

    def test_statistics_and_tensors(self):
        self.hook(dump_statistics_mode=2)
        self.run3()
        folder = "root.model.layers.0.self_attn"
        rows = self.read_stats(0, folder)[1:]
        self.assertEqual([(r[2], r[3]) for r in rows],
                         [("Input", "0"), ("Output", "0"), ("Output", "0"), ("Output", "1")])  # output_1_1: 1
        for row, name in zip(rows, ["input_0.pth", "output_0.pth", "output_1_0.pth", "output_1_1.pth"]):
            self.assertEqual(row[1], "Attention")
            self.assert_row(row, self.load(0, folder, name))


class ModelTreeTest(DumpTestCase):
    def test_model_tree(self):
        self.hook(token_range=[2])
        self.run3()
        with open(os.path.join(self.dump_dir(), "model_tree.json")) as f:
            tree = json.load(f)

        def walk(node):
            self.assertEqual(set(node), {"name", "type", "children"})
            yield node
            for child in node["children"]:
                yield from walk(child)
        nodes = {n["name"]: n for n in walk(tree)}
        self.assertEqual(set(nodes), module_names(self.model))
        self.assertEqual((tree["name"], tree["type"]), ("root", "ToyLM"))

        def children(name):
            return [c["name"].rpartition(".")[2] for c in nodes[name]["children"]]
        self.assertEqual(children("root"), ["model", "lm_head"])
        self.assertEqual(children("root.model"), ["embed_tokens", "layers", "norm", "dropout"])
        self.assertEqual(children("root.model.layers.1"),
                         ["input_layernorm", "self_attn", "post_attention_layernorm", "mlp"])
        self.assertEqual(nodes["root.model.layers.1.self_attn"]["type"], "Attention")
        self.assertEqual(nodes["root.model.layers.0.mlp.down_proj"]["type"], "Linear")


class EnvTest(DumpTestCase):
    def env(self, **extra):
        root = os.path.join(self.tmp, "msit_dump_20250101_000000")
        env = {"LLMSCOPE_DUMP_ROOT": root, "LLMSCOPE_TYPE": "tensor,model", "LLMSCOPE_ER": "0,0",
               "LLMSCOPE_STP": "2", "LLMSCOPE_DEVICE": "", "LLMSCOPE_IDS": "3_1", "LLMSCOPE_TIME": "3"}
        env.update(extra)
        return root, env

    def from_env(self, env):
        h = register_hook_from_env(self.model, env)
        self.handles.append(h)
        return h

    def test_no_llmscope_dump(self):
        self.assertIsNone(register_hook_from_env(self.model, {}))
        self.assertIsNone(register_hook_from_env(self.model, {"LLMSCOPE_DUMP_ROOT": ""}))
        self.assertEqual(self.model._forward_hooks, {})

    def test_rounds_part_and_root(self):
        root, env = self.env(LLMSCOPE_ER="1,2", LLMSCOPE_STP="1")
        h = self.from_env(env)
        logits = self.run3()
        self.assertEqual(h.dump_dir, os.path.join(root, "torch_tensors", f"cpu_{os.getpid()}"))
        self.assertEqual(set(os.listdir(h.dump_dir)), {"1", "2", "model_tree.json", "weights"})
        self.assertEqual(set(os.listdir(os.path.join(h.dump_dir, "2", "root.lm_head"))), {"output.pth"})
        self.assertTrue(torch.equal(torch.load(os.path.join(h.dump_dir, "2", "root.lm_head", "output.pth")),
                                    logits[2]))

    def test_stats_types(self):
        for extra, want_pth, want_csv in (({"LLMSCOPE_TYPE": "tensor,stats"}, False, True),
                                          ({"LLMSCOPE_TYPE": "tensor,stats", "LLMSCOPE_STATS_WITH_DATA": "1"},
                                           True, True),
                                          ({"LLMSCOPE_TYPE": "tensor", "LLMSCOPE_SD": "1"}, False, True),
                                          ({"LLMSCOPE_TYPE": "model"}, False, False)):
            with self.subTest(**extra):
                self.model = ToyLM()
                shutil.rmtree(self.tmp)
                root, env = self.env(**extra)
                h = self.from_env(env)
                self.run3()
                h.remove()
                files = self.all_files()
                self.assertEqual(any(f.endswith(".pth") for f in files), want_pth)
                self.assertEqual(any(f.endswith("statistics.csv") for f in files), want_csv)
                self.assertTrue(os.path.exists(os.path.join(h_dir(root), "model_tree.json")))

    def test_all_rounds_opname_and_devices(self):
        _, env = self.env(LLMSCOPE_ER="all", LLMSCOPE_OPNAME="MLP", LLMSCOPE_CHILD="1")
        h = self.from_env(env)
        self.run3()
        mlp = {n for n in RUN_MODULES if ".mlp" in n}
        for token in range(3):
            self.assertEqual(set(os.listdir(os.path.join(h.dump_dir, str(token)))), mlp)
        h.remove()
        self.model = ToyLM()
        shutil.rmtree(self.tmp)
        _, env = self.env(LLMSCOPE_OPNAME="mlp,embed", LLMSCOPE_CHILD="false")
        h = self.from_env(env)
        self.run3()
        self.assertEqual(set(os.listdir(os.path.join(h.dump_dir, "0"))),
                         {"root.model.layers.0.mlp", "root.model.layers.1.mlp", "root.model.embed_tokens"})
        h.remove()
        with mock.patch.object(dump_hook, "model_device", return_value="cuda2"):
            self.assertIsNone(self.from_env(self.env(LLMSCOPE_DEVICE="0,1")[1]).dump_dir)
            self.assertIsNotNone(self.from_env(self.env(LLMSCOPE_DEVICE="0,2")[1]).dump_dir)

    def test_bad_env(self):
        for extra, message in (({"LLMSCOPE_ER": "1"}, "LLMSCOPE_ER"), ({"LLMSCOPE_ER": "3,1"}, "LLMSCOPE_ER"),
                               ({"LLMSCOPE_STP": "5"}, "LLMSCOPE_STP"), ({"LLMSCOPE_TYPE": "bogus"}, "LLMSCOPE_TYPE"),
                               ({"LLMSCOPE_DEVICE": "a"}, "LLMSCOPE_DEVICE")):
            with self.subTest(**extra), self.assertRaisesRegex(ValueError, message):
                register_hook_from_env(self.model, self.env(**extra)[1])


def h_dir(root):
    return os.path.join(root, "torch_tensors", f"cpu_{os.getpid()}")


class HandleAndValidationTest(DumpTestCase):
    def test_remove_stops_dumping(self):
        original_forward = self.model.forward
        h = self.hook(token_range=[0, 1, 2], mode=["module", "api"])
        with torch.no_grad():
            self.model(torch.tensor([[1, 2]]))
        h.remove()
        h.remove()  # repeatable
        self.run3()
        self.assertEqual(set(os.listdir(self.dump_dir())), {"0", "model_tree.json", "weights"})
        for module in self.model.modules():
            self.assertEqual(dict(module._forward_hooks), {})
            self.assertEqual(dict(module._forward_pre_hooks), {})
        self.assertNotIn("forward", self.model.__dict__)
        self.assertEqual(self.model.forward, original_forward)
        self.hook()  # can be hooked again after remove()

    def test_double_registration_refused(self):
        self.hook()
        with self.assertRaisesRegex(RuntimeError, "already hooked"):
            register_hook(self.model, DumpConfig(dump_path=self.tmp))

    def test_register_hook_arguments(self):
        with self.assertRaises(TypeError):
            register_hook("model", DumpConfig(dump_path=self.tmp))
        with self.assertRaises(TypeError):
            register_hook(self.model, {"dump_path": self.tmp})
        with self.assertRaises(ValueError):
            register_hook(self.model, DumpConfig(dump_path=self.tmp), hook_type="other")

    def test_dump_config_validation(self):
        path = self.tmp
        for kwargs, error in (({"token_range": 3}, TypeError), ({"token_range": [0, -1]}, ValueError),
                              ({"module_list": nn.Linear}, TypeError), ({"module_list": ["Linear"]}, TypeError),
                              ({"tensor_part": "1"}, TypeError), ({"tensor_part": 3}, ValueError),
                              ({"device_id": "0"}, TypeError), ({"dump_last_logits": 1}, TypeError),
                              ({"dump_weight": "yes"}, TypeError), ({"mode": "layer"}, ValueError),
                              ({"layer_name": 5}, TypeError), ({"dump_statistics_mode": 3}, ValueError),
                              ({"api_list": "matmul"}, TypeError), ({"api_list": [5]}, TypeError),
                              ({"seed": 1.5}, TypeError), ({"dump_path": 5}, TypeError)):
            with self.subTest(**{k: repr(v) for k, v in kwargs.items()}), self.assertRaises(error):
                DumpConfig(dump_path=kwargs.pop("dump_path", path), **kwargs)
        with open(os.path.join(path, "file"), "w"):
            pass
        with self.assertRaisesRegex(ValueError, "not a folder"):
            DumpConfig(dump_path=os.path.join(path, "file"))

    def test_defaults(self):
        c = DumpConfig()
        self.assertEqual((c.dump_path, c.token_range, c.module_list, c.api_list, c.tensor_part, c.device_id,
                          c.dump_last_logits, c.mode, c.dump_weight, c.layer_name, c.dump_statistics_mode),
                         ("./", [0], [], [], 2, None, False, ["module"], False, None, 0))

    @mock.patch.dict(os.environ)
    def test_seed(self):
        try:
            DumpConfig(dump_path=self.tmp, seed=1234)
            first = torch.rand(3)
            self.assertTrue(torch.are_deterministic_algorithms_enabled())
            self.assertEqual(os.environ["PYTHONHASHSEED"], "1234")
            DumpConfig(dump_path=self.tmp, seed=1234)
            self.assertTrue(torch.equal(first, torch.rand(3)))
        finally:
            torch.use_deterministic_algorithms(False)

    def test_interrupted_write_leaves_no_file(self):
        path = os.path.join(self.tmp, "output.pth")

        def half_write(obj, target):
            with open(target, "wb") as f:
                f.write(b"PK")
            raise KeyboardInterrupt
        with mock.patch.object(dump_files.torch, "save", side_effect=half_write):
            with self.assertRaises(KeyboardInterrupt):
                dump_files.save_tensor(torch.ones(2), path)
        self.assertEqual(os.listdir(self.tmp), [])


if __name__ == "__main__":
    unittest.main()
