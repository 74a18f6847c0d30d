"""Plain PyTorch Qwen2, Qwen3 and Qwen3-MoE, laid out as Hugging Face's, loaded from GGUF.

They are the llama of llama.py with Hugging Face's differences and module names:

    Qwen2     model.layers.N.self_attn.{q,k,v}_proj carry biases (o_proj does not)
    Qwen3     model.layers.N.self_attn.{q,k}_norm: RMS norms over each head, before RoPE
    Qwen3Moe  Qwen3's attention; model.layers.N.mlp is the sparse MoE block:
                  mlp.gate                          nn.Linear(hidden, num_experts), the router
                  mlp.experts.E.{gate,up,down}_proj  each expert a Qwen3MoeMLP
              routing as Hugging Face's: softmax of the router's logits (in float32), the
              top num_experts_per_tok, renormalized to sum 1 (norm_topk_prob); each expert runs
              on the tokens routed to it, in the order torch.where gives (by slot, then token)

llama.cpp runs these families with NeoX RoPE, which is Hugging Face's rotate_half: the GGUF
converter does not permute their q and k rows, and nothing is un-permuted here. llama.cpp holds
each layer's experts in one 3-D tensor (blk.N.ffn_{gate,up,down}_exps.weight); expert E is its
slice E.
"""

from dataclasses import dataclass

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

from ..gguf_reader import GGUFReader
from .llama import LlamaAttention, LlamaConfig, LlamaDecoderLayer, LlamaForCausalLM, LlamaMLP, LlamaModel, LlamaRMSNorm

__all__ = ["QwenConfig", "Qwen2ForCausalLM", "Qwen3ForCausalLM", "Qwen3MoeForCausalLM", "Qwen3MoeSparseMoeBlock",
           "qwen_gguf_to_hf", "FAMILIES"]


@dataclass
class QwenConfig(LlamaConfig):
    attention_bias: bool = False       # Qwen2: q, k and v projections with biases
    qk_norm: bool = False              # Qwen3: per-head RMS norms of q and k
    num_experts: int = 0               # Qwen3-MoE
    num_experts_per_tok: int = 0
    moe_intermediate_size: int = 0
    norm_topk_prob: bool = True


class Qwen2RMSNorm(LlamaRMSNorm):
    pass


class Qwen3Attention(LlamaAttention):
    """Qwen2's attention (with q, k, v biases where config.attention_bias) and Qwen3's (q_norm,
    k_norm over each head before RoPE)."""

    def __init__(self, config, layer_idx):
        super().__init__(config, layer_idx)
        h, d = config.hidden_size, self.head_dim
        if config.attention_bias:
            self.q_proj = nn.Linear(h, self.num_heads * d, bias=True)
            self.k_proj = nn.Linear(h, self.num_key_value_heads * d, bias=True)
            self.v_proj = nn.Linear(h, self.num_key_value_heads * d, bias=True)
        self.qk_norm = config.qk_norm
        if config.qk_norm:
            self.q_norm = Qwen2RMSNorm(d, config.rms_norm_eps)
            self.k_norm = Qwen2RMSNorm(d, config.rms_norm_eps)

    def norm_heads(self, q, k):
        return (self.q_norm(q), self.k_norm(k)) if self.qk_norm else (q, k)


class Qwen3MoeMLP(LlamaMLP):
    def __init__(self, config, intermediate_size):
        nn.Module.__init__(self)
        self.gate_proj = nn.Linear(config.hidden_size, intermediate_size, bias=False)
        self.up_proj = nn.Linear(config.hidden_size, intermediate_size, bias=False)
        self.down_proj = nn.Linear(intermediate_size, config.hidden_size, bias=False)
        self.act_fn = nn.SiLU()


class Qwen3MoeSparseMoeBlock(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.num_experts = config.num_experts
        self.top_k = config.num_experts_per_tok
        self.norm_topk_prob = config.norm_topk_prob
        self.gate = nn.Linear(config.hidden_size, config.num_experts, bias=False)
        self.experts = nn.ModuleList(Qwen3MoeMLP(config, config.moe_intermediate_size)
                                     for _ in range(config.num_experts))

    def forward(self, hidden_states):
        b, s, h = hidden_states.shape
        x = hidden_states.view(-1, h)
        router_logits = self.gate(x)
        weights = F.softmax(router_logits, dim=1, dtype=torch.float32 if x.dtype != torch.float64 else torch.float64)
        weights, selected = torch.topk(weights, self.top_k, dim=-1)
        if self.norm_topk_prob:
            weights = weights / weights.sum(dim=-1, keepdim=True)
        weights = weights.to(x.dtype)
        out = torch.zeros_like(x)
        # [experts, top_k, tokens]: each expert's (slot, token) pairs in torch.where's order
        expert_mask = F.one_hot(selected, num_classes=self.num_experts).permute(2, 1, 0)
        for e in range(self.num_experts):
            slot, token = torch.where(expert_mask[e])
            if token.numel() == 0:
                continue
            y = self.experts[e](x[token]) * weights[token, slot, None]
            out.index_add_(0, token, y.to(x.dtype))
        return out.view(b, s, h), router_logits


class QwenDecoderLayer(LlamaDecoderLayer):
    def __init__(self, config, layer_idx):
        nn.Module.__init__(self)
        self.self_attn = Qwen3Attention(config, layer_idx)
        self.mlp = Qwen3MoeSparseMoeBlock(config) if config.num_experts else LlamaMLP(config)
        self.input_layernorm = Qwen2RMSNorm(config.hidden_size, config.rms_norm_eps)
        self.post_attention_layernorm = Qwen2RMSNorm(config.hidden_size, config.rms_norm_eps)

    def forward(self, hidden_states, position_embeddings, attention_mask, cache=None):
        residual = hidden_states
        hidden_states = self.self_attn(self.input_layernorm(hidden_states), position_embeddings,
                                       attention_mask, cache)
        hidden_states = residual + hidden_states
        residual = hidden_states
        hidden_states = self.mlp(self.post_attention_layernorm(hidden_states))
        if isinstance(hidden_states, tuple):  # the MoE block also returns its router's logits
            hidden_states = hidden_states[0]
        return residual + hidden_states


class QwenModel(LlamaModel):
    def __init__(self, config):
        super().__init__(config)
        self.layers = nn.ModuleList(QwenDecoderLayer(config, i) for i in range(config.num_hidden_layers))
        self.norm = Qwen2RMSNorm(config.hidden_size, config.rms_norm_eps)


class _QwenForCausalLM(LlamaForCausalLM):
    ARCH = None

    def __init__(self, config):
        nn.Module.__init__(self)
        self.config = config
        self.model = QwenModel(config)
        self.lm_head = nn.Linear(config.hidden_size, config.vocab_size, bias=False)
        if config.tie_word_embeddings:
            self.lm_head.weight = self.model.embed_tokens.weight

    @classmethod
    def config_from_gguf(cls, reader):
        moe = cls.ARCH == "qwen3moe"
        extra = {"attention_bias": lambda get: cls.ARCH == "qwen2",
                 "qk_norm": lambda get: cls.ARCH in ("qwen3", "qwen3moe")}
        if moe:
            extra.update(num_experts=lambda get: int(get("expert_count")),
                         num_experts_per_tok=lambda get: int(get("expert_used_count")),
                         moe_intermediate_size=lambda get: int(get("expert_feed_forward_length")))
        config = QwenConfig.from_gguf(reader, cls.ARCH, **extra)
        if moe and not 0 < config.num_experts_per_tok <= config.num_experts <= 4096:
            raise ValueError("%s: expert_used_count %d and expert_count %d do not make a mixture of experts"
                             % (reader.path, config.num_experts_per_tok, config.num_experts))
        return config

    @classmethod
    def from_gguf(cls, path, dtype=torch.float32, device="cpu"):
        reader = path if isinstance(path, GGUFReader) else GGUFReader(path)
        config = cls.config_from_gguf(reader)
        weights = qwen_gguf_to_hf(config, reader, load=False)  # shapes checked before allocating
        model = cls(config)
        params = dict(model.named_parameters())  # a tied lm_head.weight is listed once, as embed_tokens'
        if config.tie_word_embeddings:
            del weights["lm_head.weight"]
        if set(weights) != set(params):
            missing = sorted(set(params) - set(weights))
            raise ValueError("%s: the GGUF file lacks weights for %s" % (reader.path, ", ".join(missing[:8])))
        for name, data in qwen_gguf_to_hf(config, reader).items():
            if name not in params:
                continue  # lm_head.weight, tied
            with torch.no_grad():
                params[name].data = torch.from_numpy(np.ascontiguousarray(data)).to(
                    torch.float64 if data.dtype == np.float64 else torch.float32)
        if config.tie_word_embeddings:
            model.lm_head.weight = model.model.embed_tokens.weight
        model.gguf_path = reader.path
        return model.to(device=device, dtype=dtype).eval()


class Qwen2ForCausalLM(_QwenForCausalLM):
    ARCH = "qwen2"


class Qwen3ForCausalLM(_QwenForCausalLM):
    ARCH = "qwen3"


class Qwen3MoeForCausalLM(_QwenForCausalLM):
    ARCH = "qwen3moe"


_LAYER = {
    "attn_q": "self_attn.q_proj", "attn_k": "self_attn.k_proj", "attn_v": "self_attn.v_proj",
    "attn_output": "self_attn.o_proj", "attn_q_norm": "self_attn.q_norm", "attn_k_norm": "self_attn.k_norm",
    "ffn_gate": "mlp.gate_proj", "ffn_up": "mlp.up_proj", "ffn_down": "mlp.down_proj",
    "attn_norm": "input_layernorm", "ffn_norm": "post_attention_layernorm", "ffn_gate_inp": "mlp.gate",
}
_EXPERTS = {"ffn_gate_exps": "gate_proj", "ffn_up_exps": "up_proj", "ffn_down_exps": "down_proj"}
_GLOBAL = {"token_embd": "model.embed_tokens", "output_norm": "model.norm", "output": "lm_head"}


def _expected(config):
    """GGUF tensor name -> torch shape (3-D for the experts: [experts, rows, columns])."""
    h, d = config.hidden_size, config.head_dim
    qd, kd = config.num_attention_heads * d, config.num_key_value_heads * d
    shapes = {"token_embd.weight": (config.vocab_size, h), "output_norm.weight": (h,)}
    if not config.tie_word_embeddings:
        shapes["output.weight"] = (config.vocab_size, h)
    for i in range(config.num_hidden_layers):
        b = "blk.%d." % i
        shapes.update({b + "attn_norm.weight": (h,), b + "attn_q.weight": (qd, h), b + "attn_k.weight": (kd, h),
                       b + "attn_v.weight": (kd, h), b + "attn_output.weight": (h, qd), b + "ffn_norm.weight": (h,)})
        if config.attention_bias:
            shapes.update({b + "attn_q.bias": (qd,), b + "attn_k.bias": (kd,), b + "attn_v.bias": (kd,)})
        if config.qk_norm:
            shapes.update({b + "attn_q_norm.weight": (d,), b + "attn_k_norm.weight": (d,)})
        if config.num_experts:
            e, f = config.num_experts, config.moe_intermediate_size
            shapes.update({b + "ffn_gate_inp.weight": (e, h), b + "ffn_gate_exps.weight": (e, f, h),
                           b + "ffn_up_exps.weight": (e, f, h), b + "ffn_down_exps.weight": (e, h, f)})
        else:
            f = config.intermediate_size
            shapes.update({b + "ffn_gate.weight": (f, h), b + "ffn_up.weight": (f, h), b + "ffn_down.weight": (h, f)})
    return shapes


def qwen_gguf_to_hf(config, reader, load=True):
    """Hugging Face parameter name -> numpy array from the file (None for each when load is
    False: the names and the shapes checked only). Experts' 3-D tensors are split per expert."""
    expected = _expected(config)
    missing = [n for n in expected if n not in reader.tensors]
    if missing:
        raise ValueError("%s: the GGUF file lacks %s%s" % (reader.path, ", ".join(missing[:8]),
                                                          " ..." if len(missing) > 8 else ""))
    out = {}
    for name, info in reader.tensors.items():
        if name not in expected:
            raise ValueError("%s: tensor '%s' has no place in a %s model with %d layers"
                             % (reader.path, name, reader.metadata.get("general.architecture"),
                                config.num_hidden_layers))
        if tuple(info.shape) != expected[name]:
            raise ValueError("%s: tensor '%s' has shape %s (ne %s), expected %s"
                             % (reader.path, name, list(info.shape), list(info.ne), list(expected[name])))
        data = reader.tensor(name) if load else None
        if data is not None and data.dtype not in (np.float32, np.float64, np.float16):
            raise ValueError("%s: tensor '%s' holds %s, not floating point" % (reader.path, name, data.dtype))
        base, _, suffix = name.rpartition(".")
        if base in _GLOBAL:
            out["%s.%s" % (_GLOBAL[base], suffix)] = data
            continue
        _, layer, kind = base.split(".", 2)
        prefix = "model.layers.%d." % int(layer)
        if kind in _EXPERTS:
            for e in range(config.num_experts):
                out[prefix + "mlp.experts.%d.%s.%s" % (e, _EXPERTS[kind], suffix)] = None if data is None else data[e]
        else:
            out[prefix + _LAYER[kind] + "." + suffix] = data
    if config.tie_word_embeddings:
        out["lm_head.weight"] = out["model.embed_tokens.weight"]
    return out


# general.architecture -> the reference's class
FAMILIES = {"llama": LlamaForCausalLM, "qwen2": Qwen2ForCausalLM, "qwen3": Qwen3ForCausalLM,
            "qwen3moe": Qwen3MoeForCausalLM}
