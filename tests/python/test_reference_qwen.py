"""Tests of the PyTorch reference Qwen2, Qwen3 and Qwen3-MoE (llmscope.reference.qwen) against
llama.cpp on sample models of those families (llmscope-make-model --arch).

Run from the repository's python/ folder:
    /usr/bin/python3 -m unittest discover -s ../tests/python -v
"""

import os
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
PYTHON_DIR = os.path.normpath(os.path.join(HERE, "..", "..", "python"))
if PYTHON_DIR not in sys.path:
    sys.path.insert(0, PYTHON_DIR)

import numpy as np  # noqa: E402
import torch  # noqa: E402

from llmscope.gguf_reader import GGUFReader  # noqa: E402
from llmscope.reference import generate as gen  # noqa: E402
from llmscope.reference.qwen import (FAMILIES, Qwen2ForCausalLM, Qwen3MoeForCausalLM,  # noqa: E402
                                     Qwen3MoeSparseMoeBlock, QwenConfig)
from llmscope.reference.tokenizer import SpmTokenizer  # noqa: E402

BIN_DIR = os.environ.get("LLMSCOPE_BIN_DIR", "/work/main/build/bin")
MAKE_MODEL = os.path.join(BIN_DIR, "llmscope-make-model")
SAMPLE_GENERATE = os.path.join(BIN_DIR, "llmscope-sample-generate")
SHAPE = ["--layers", "2", "--width", "128", "--ff", "256", "--expert-ff", "128"]

_tmp = None


def setUpModule():
    global _tmp
    _tmp = tempfile.mkdtemp(prefix="llmscope-pyqwen-test-")


def tearDownModule():
    if _tmp:
        shutil.rmtree(_tmp, ignore_errors=True)


def programs_missing():
    return [p for p in (MAKE_MODEL, SAMPLE_GENERATE) if not (os.path.isfile(p) and os.access(p, os.X_OK))]


def make(arch, *more):
    out = os.path.join(_tmp, arch + "-" + "-".join(more) + ".gguf")
    if not os.path.exists(out):
        subprocess.run([MAKE_MODEL, "--arch", arch, "--out", out] + SHAPE + list(more), check=True, capture_output=True)
    return out


def sample(model, n):
    r = subprocess.run([SAMPLE_GENERATE, "-m", model, "-n", str(n), "--logits"], check=True, capture_output=True,
                       text=True)
    lines = dict(line.split(":", 1) for line in r.stdout.splitlines() if ":" in line)
    return [int(x) for x in lines["tokens"].split()], np.array([float(x) for x in lines["logits"].split()])


def reference(model, n):
    reader = GGUFReader(model)
    ids = SpmTokenizer.from_gguf(reader).encode(gen.DEFAULT_PROMPT)
    m = FAMILIES[reader.metadata["general.architecture"]].from_gguf(reader)
    tokens, logits, _ = gen.generate(m, ids, n)
    return m, tokens, logits.double().numpy()


@unittest.skipIf(bool(programs_missing()), "llmscope's programs are not built: no %s" % ", ".join(programs_missing()))
class QwenMatchesLlamaCppTest(unittest.TestCase):
    def check(self, arch, *more):
        model = make(arch, *more)
        cpp_tokens, cpp_logits = sample(model, 16)
        m, tokens, logits = reference(model, 16)
        self.assertEqual(tokens, cpp_tokens)
        # llama.cpp keeps K and V in F16: the logits agree to about 1e-3 of their scale
        self.assertLess(np.abs(logits - cpp_logits).max(), 1e-2 * np.abs(cpp_logits).max())
        return m

    def test_qwen2_biases(self):
        m = self.check("qwen2")
        self.assertIsInstance(m, Qwen2ForCausalLM)
        attn = m.model.layers[1].self_attn
        for proj in (attn.q_proj, attn.k_proj, attn.v_proj):
            self.assertIsNotNone(proj.bias)
            self.assertGreater(float(proj.bias.abs().sum()), 0)  # loaded from blk.1.attn_*.bias
        self.assertIsNone(attn.o_proj.bias)

    def test_qwen3_per_head_norms(self):
        m = self.check("qwen3")
        names = dict(m.named_modules())
        self.assertIn("model.layers.0.self_attn.q_norm", names)
        self.assertEqual(tuple(names["model.layers.0.self_attn.k_norm"].weight.shape), (32,))

    def test_qwen3moe_routes_each_token_to_its_experts(self):
        m = self.check("qwen3moe")
        self.assertIsInstance(m, Qwen3MoeForCausalLM)
        mlp = m.model.layers[1].mlp
        self.assertIsInstance(mlp, Qwen3MoeSparseMoeBlock)
        self.assertEqual(len(mlp.experts), 4)
        reader = GGUFReader(make("qwen3moe"))
        # expert 2's down projection is slice 2 of llama.cpp's 3-D tensor
        self.assertTrue(np.array_equal(mlp.experts[2].down_proj.weight.detach().numpy(),
                                       reader.tensor("blk.1.ffn_down_exps.weight")[2]))
        # other routings give other tokens: eight experts of which three each token
        self.check("qwen3moe", "--experts", "8", "--experts-used", "3", "--seed", "2")

    def test_corrupted_expert_changes_the_tokens_on_both_sides(self):
        corrupt = ("--corrupt-layer", "1", "--corrupt-amount", "0.5")  # blk.1.ffn_down_exps.weight
        self.check("qwen3moe", *corrupt)
        self.assertNotEqual(sample(make("qwen3moe", *corrupt), 16)[0], sample(make("qwen3moe"), 16)[0])

    def test_command_line_names_the_family(self):
        r = subprocess.run([sys.executable, "-m", "llmscope.reference.generate", "-m", make("qwen3"), "-n", "4"],
                           capture_output=True, text=True, cwd=PYTHON_DIR)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("tokens:", r.stdout)
        other = make("gemma3")
        r = subprocess.run([sys.executable, "-m", "llmscope.reference.generate", "-m", other, "-n", "4"],
                           capture_output=True, text=True, cwd=PYTHON_DIR)
        self.assertEqual(r.returncode, 1)
        self.assertIn("general.architecture is 'gemma3'; the reference implements llama, qwen2, qwen3, qwen3moe",
                      r.stderr)

    def test_a_file_of_another_shape_is_refused(self):
        reader = GGUFReader(make("qwen3moe"))
        with self.assertRaises(ValueError) as cm:
            Qwen2ForCausalLM.from_gguf(reader)
        self.assertIn("general.architecture is 'qwen3moe'", str(cm.exception))


class MoeBlockTest(unittest.TestCase):
    def test_routing_renormalizes_the_top_k(self):
        torch.manual_seed(0)
        cfg = QwenConfig(vocab_size=10, hidden_size=8, intermediate_size=16, num_hidden_layers=1,
                         num_attention_heads=2, num_key_value_heads=1, head_dim=4, qk_norm=True, num_experts=4,
                         num_experts_per_tok=2, moe_intermediate_size=8)
        block = Qwen3MoeSparseMoeBlock(cfg).double()
        x = torch.randn(1, 3, 8, dtype=torch.float64)
        out, logits = block(x)
        # by hand: each token's two best experts, their softmax weights renormalized
        want = torch.zeros(3, 8, dtype=torch.float64)
        for t in range(3):
            p = torch.softmax(logits[t], dim=0)
            top = torch.argsort(p, descending=True)[:2]
            w = p[top] / p[top].sum()
            for e, wt in zip(top.tolist(), w):
                want[t] += wt * block.experts[e](x[0, t])
        self.assertTrue(torch.allclose(out[0], want, atol=1e-12))


if __name__ == "__main__":
    unittest.main()
