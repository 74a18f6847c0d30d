"""A plain PyTorch llama, laid out as Hugging Face's LlamaForCausalLM, loaded from GGUF.

Module names follow Hugging Face's, so a per-module dump lines up with a transformers run:

    model.embed_tokens                      nn.Embedding
    model.rotary_emb                        LlamaRotaryEmbedding (returns cos, sin)
    model.layers.N.input_layernorm          LlamaRMSNorm
    model.layers.N.self_attn.{q,k,v,o}_proj nn.Linear, no bias
    model.layers.N.post_attention_layernorm LlamaRMSNorm
    model.layers.N.mlp.{gate,up,down}_proj  nn.Linear, no bias
    model.layers.N.mlp.act_fn               nn.SiLU
    model.norm                              LlamaRMSNorm
    lm_head                                 nn.Linear, no bias (tied to embed_tokens when the
                                            GGUF file has no output.weight)

Conventions are Hugging Face's: RoPE rotates the two halves of each head (rotate_half), so
the q and k projections loaded from GGUF are un-permuted (see unpermute_qk); grouped-query
attention shares each k/v head among head_count / head_count_kv query heads; attention is
causal, with a KVCache so that one forward runs the prompt and one forward runs each
following token.
"""

from dataclasses import dataclass

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

from ..gguf_reader import GGUFReader

__all__ = [
    "LlamaConfig", "LlamaRMSNorm", "LlamaRotaryEmbedding", "LlamaAttention", "LlamaMLP",
    "LlamaDecoderLayer", "LlamaModel", "LlamaForCausalLM", "KVCache", "rotate_half",
    "apply_rotary_pos_emb", "unpermute_qk", "gguf_to_hf_name", "expected_shapes", "check_gguf_tensors",
]


@dataclass
class LlamaConfig:
    vocab_size: int
    hidden_size: int
    intermediate_size: int
    num_hidden_layers: int
    num_attention_heads: int
    num_key_value_heads: int
    head_dim: int
    rope_theta: float = 10000.0
    rope_scaling_factor: float = 1.0   # linear position scaling (positions divided by it)
    rms_norm_eps: float = 1e-5
    max_position_embeddings: int = 2048
    tie_word_embeddings: bool = False

    @classmethod
    def from_gguf(cls, reader, arch="llama", **extra):
        """The config of a GGUF file of architecture arch (its keys are "ARCH.name"); extra:
        more fields, each a function of get(key, default, kind) (see qwen.py)."""
        md = reader.metadata
        found = md.get("general.architecture", "llama")
        if found != arch:
            raise ValueError("%s: general.architecture is %r; this reference implements %r"
                             % (reader.path, found, arch))

        def get(key, default=None, kind=int):
            full = arch + "." + key
            if full not in md:
                if default is None:
                    raise ValueError("%s: GGUF metadata has no '%s'" % (reader.path, full))
                return default
            v = md[full]
            if isinstance(v, bool) or not isinstance(v, (int, float) if kind is float else int):
                raise ValueError("%s: GGUF metadata '%s' is %r, not %s" % (
                    reader.path, full, v, "a number" if kind is float else "an integer"))
            if kind is int and not 0 < v < 2 ** 31:
                raise ValueError("%s: GGUF metadata '%s' = %d is out of range" % (reader.path, full, v))
            return kind(v)

        hidden = int(get("embedding_length"))
        heads = int(get("attention.head_count"))
        kv_heads = int(get("attention.head_count_kv", heads))
        if heads % kv_heads:
            raise ValueError("%s: head_count %d is not a multiple of head_count_kv %d"
                             % (reader.path, heads, kv_heads))
        if hidden % heads and arch + ".attention.key_length" not in md:
            raise ValueError("%s: embedding_length %d is not a multiple of head_count %d"
                             % (reader.path, hidden, heads))
        head_dim = int(get("attention.key_length", hidden // heads))
        v_dim = int(get("attention.value_length", head_dim))
        if v_dim != head_dim:
            raise ValueError("%s: key_length %d != value_length %d is not supported"
                             % (reader.path, head_dim, v_dim))
        rope_dim = int(get("rope.dimension_count", head_dim))
        if rope_dim != head_dim:
            raise ValueError("%s: rope.dimension_count %d differs from the head size %d; partial "
                             "rotary embeddings are not supported" % (reader.path, rope_dim, head_dim))
        scaling = md.get(arch + ".rope.scaling.type", "none")
        factor = 1.0
        if scaling == "linear":
            factor = get("rope.scaling.factor", 1.0, float) or 1.0
        elif arch + ".rope.scale_linear" in md:
            factor = get("rope.scale_linear", 1.0, float) or 1.0
        elif scaling not in ("none", None):
            raise ValueError("%s: rope scaling %r is not supported (only linear)" % (reader.path, scaling))
        if "rope_freqs.weight" in reader.tensors:
            raise ValueError("%s: rope_freqs.weight (llama 3 rope frequency factors) is not supported"
                             % reader.path)
        if "token_embd.weight" not in reader.tensors:
            raise ValueError("%s: no token_embd.weight" % reader.path)
        emb = reader.tensors["token_embd.weight"]
        if len(emb.ne) != 2 or emb.ne[0] != hidden:
            raise ValueError("%s: token_embd.weight has ne %s, expected [%d, vocab]"
                             % (reader.path, list(emb.ne), hidden))
        fields = {name: make(get) for name, make in extra.items()}
        return cls(
            **fields,
            vocab_size=int(emb.ne[1]),
            hidden_size=hidden,
            intermediate_size=int(get("feed_forward_length")),
            num_hidden_layers=int(get("block_count")),
            num_attention_heads=heads,
            num_key_value_heads=kv_heads,
            head_dim=head_dim,
            rope_theta=get("rope.freq_base", 10000.0, float),
            rope_scaling_factor=factor,
            rms_norm_eps=get("attention.layer_norm_rms_epsilon", 1e-5, float),
            max_position_embeddings=int(get("context_length", 2048)),
            tie_word_embeddings="output.weight" not in reader.tensors,
        )


class LlamaRMSNorm(nn.Module):
    def __init__(self, hidden_size, eps=1e-5):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(hidden_size))
        self.variance_epsilon = eps

    def forward(self, hidden_states):
        variance = hidden_states.pow(2).mean(-1, keepdim=True)
        hidden_states = hidden_states * torch.rsqrt(variance + self.variance_epsilon)
        return self.weight * hidden_states

    def extra_repr(self):
        return "%d, eps=%g" % (self.weight.shape[0], self.variance_epsilon)


class LlamaRotaryEmbedding(nn.Module):
    """cos and sin of the rotation angles, each [batch, seq, head_dim] with the frequencies
    repeated over the two halves (rotate_half's layout)."""

    def __init__(self, head_dim, base=10000.0, scaling_factor=1.0):
        super().__init__()
        self.head_dim = head_dim
        self.base = base
        self.scaling_factor = scaling_factor
        inv_freq = 1.0 / (base ** (torch.arange(0, head_dim, 2, dtype=torch.float64) / head_dim))
        self.register_buffer("inv_freq", inv_freq, persistent=False)

    @torch.no_grad()
    def forward(self, x, position_ids):
        # angles in float64 for any compute dtype, then cast: exact to the compute precision
        pos = position_ids.to(torch.float64) / self.scaling_factor
        freqs = pos[..., None] * self.inv_freq.to(device=pos.device, dtype=torch.float64)
        emb = torch.cat((freqs, freqs), dim=-1)
        return emb.cos().to(x.dtype), emb.sin().to(x.dtype)


def rotate_half(x):
    half = x.shape[-1] // 2
    return torch.cat((-x[..., half:], x[..., :half]), dim=-1)


def apply_rotary_pos_emb(q, k, cos, sin, unsqueeze_dim=1):
    cos = cos.unsqueeze(unsqueeze_dim)
    sin = sin.unsqueeze(unsqueeze_dim)
    return q * cos + rotate_half(q) * sin, k * cos + rotate_half(k) * sin


def repeat_kv(x, n_rep):
    """[batch, kv_heads, seq, dim] -> [batch, kv_heads * n_rep, seq, dim]; query head h reads
    kv head h // n_rep (as ggml's broadcast in mul_mat does)."""
    if n_rep == 1:
        return x
    b, h, s, d = x.shape
    return x[:, :, None, :, :].expand(b, h, n_rep, s, d).reshape(b, h * n_rep, s, d)


class KVCache:
    """Keys and values seen so far, per layer, [batch, kv_heads, seq, head_dim].

    store_dtype rounds what is cached to that dtype (e.g. torch.float16, as llama.cpp's
    default F16 KV cache does) and computes with the rounded values in the compute dtype.
    """

    def __init__(self, num_layers, store_dtype=None):
        self.keys = [None] * num_layers
        self.values = [None] * num_layers
        self.store_dtype = store_dtype

    def seq_len(self):
        return 0 if self.keys[0] is None else self.keys[0].shape[-2]

    def update(self, layer, k, v):
        if self.store_dtype is not None:
            k = k.to(self.store_dtype).to(k.dtype)
            v = v.to(self.store_dtype).to(v.dtype)
        if self.keys[layer] is not None:
            k = torch.cat((self.keys[layer], k), dim=-2)
            v = torch.cat((self.values[layer], v), dim=-2)
        self.keys[layer], self.values[layer] = k, v
        return k, v


class LlamaAttention(nn.Module):
    def __init__(self, config, layer_idx):
        super().__init__()
        self.layer_idx = layer_idx
        self.num_heads = config.num_attention_heads
        self.num_key_value_heads = config.num_key_value_heads
        self.num_key_value_groups = self.num_heads // self.num_key_value_heads
        self.head_dim = config.head_dim
        self.scaling = self.head_dim ** -0.5
        h, d = config.hidden_size, self.head_dim
        self.q_proj = nn.Linear(h, self.num_heads * d, bias=False)
        self.k_proj = nn.Linear(h, self.num_key_value_heads * d, bias=False)
        self.v_proj = nn.Linear(h, self.num_key_value_heads * d, bias=False)
        self.o_proj = nn.Linear(self.num_heads * d, h, bias=False)

    def norm_heads(self, q, k):
        """q and k per head, [batch, seq, heads, head_dim], before RoPE: as they are here
        (Qwen3's attention normalizes them)."""
        return q, k

    def forward(self, hidden_states, position_embeddings, attention_mask, cache=None):
        b, s, _ = hidden_states.shape
        q = self.q_proj(hidden_states).view(b, s, -1, self.head_dim)
        k = self.k_proj(hidden_states).view(b, s, -1, self.head_dim)
        q, k = self.norm_heads(q, k)
        q, k = q.transpose(1, 2), k.transpose(1, 2)
        v = self.v_proj(hidden_states).view(b, s, -1, self.head_dim).transpose(1, 2)
        cos, sin = position_embeddings
        q, k = apply_rotary_pos_emb(q, k, cos, sin)
        if cache is not None:
            k, v = cache.update(self.layer_idx, k, v)
        k = repeat_kv(k, self.num_key_value_groups)
        v = repeat_kv(v, self.num_key_value_groups)
        scores = torch.matmul(q, k.transpose(2, 3)) * self.scaling
        if attention_mask is not None:
            scores = scores + attention_mask
        probs = F.softmax(scores, dim=-1, dtype=torch.float32 if q.dtype != torch.float64 else torch.float64)
        out = torch.matmul(probs.to(q.dtype), v)
        out = out.transpose(1, 2).reshape(b, s, -1)
        return self.o_proj(out)


class LlamaMLP(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.gate_proj = nn.Linear(config.hidden_size, config.intermediate_size, bias=False)
        self.up_proj = nn.Linear(config.hidden_size, config.intermediate_size, bias=False)
        self.down_proj = nn.Linear(config.intermediate_size, config.hidden_size, bias=False)
        self.act_fn = nn.SiLU()

    def forward(self, x):
        return self.down_proj(self.act_fn(self.gate_proj(x)) * self.up_proj(x))


class LlamaDecoderLayer(nn.Module):
    def __init__(self, config, layer_idx):
        super().__init__()
        self.self_attn = LlamaAttention(config, layer_idx)
        self.mlp = LlamaMLP(config)
        self.input_layernorm = LlamaRMSNorm(config.hidden_size, config.rms_norm_eps)
        self.post_attention_layernorm = LlamaRMSNorm(config.hidden_size, config.rms_norm_eps)

    def forward(self, hidden_states, position_embeddings, attention_mask, cache=None):
        residual = hidden_states
        hidden_states = self.self_attn(self.input_layernorm(hidden_states), position_embeddings,
                                       attention_mask, cache)
        hidden_states = residual + hidden_states
        residual = hidden_states
        hidden_states = self.mlp(self.post_attention_layernorm(hidden_states))
        return residual + hidden_states


class LlamaModel(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.config = config
        self.embed_tokens = nn.Embedding(config.vocab_size, config.hidden_size)
        self.layers = nn.ModuleList(LlamaDecoderLayer(config, i) for i in range(config.num_hidden_layers))
        self.norm = LlamaRMSNorm(config.hidden_size, config.rms_norm_eps)
        self.rotary_emb = LlamaRotaryEmbedding(config.head_dim, config.rope_theta, config.rope_scaling_factor)

    def forward(self, input_ids, cache=None, position_ids=None):
        b, s = input_ids.shape
        past = cache.seq_len() if cache is not None else 0
        if position_ids is None:
            position_ids = torch.arange(past, past + s, device=input_ids.device).unsqueeze(0).expand(b, s)
        hidden_states = self.embed_tokens(input_ids)
        position_embeddings = self.rotary_emb(hidden_states, position_ids)
        mask = None
        if s > 1:
            # query i (position past + i) sees keys 0 .. past + i
            total = past + s
            allowed = torch.arange(total, device=input_ids.device)[None, :] <= \
                (torch.arange(s, device=input_ids.device)[:, None] + past)
            mask = torch.zeros(s, total, dtype=hidden_states.dtype, device=input_ids.device)
            mask.masked_fill_(~allowed, float("-inf"))
            mask = mask[None, None]
        for layer in self.layers:
            hidden_states = layer(hidden_states, position_embeddings, mask, cache)
        return self.norm(hidden_states)


class LlamaForCausalLM(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.config = config
        self.model = LlamaModel(config)
        self.lm_head = nn.Linear(config.hidden_size, config.vocab_size, bias=False)
        if config.tie_word_embeddings:
            self.lm_head.weight = self.model.embed_tokens.weight

    def forward(self, input_ids, cache=None, position_ids=None, logits_to_keep=0):
        """Logits [batch, seq, vocab] (the last logits_to_keep positions when it is not 0).
        With a cache, the keys and values of input_ids are appended to it."""
        hidden_states = self.model(input_ids, cache=cache, position_ids=position_ids)
        if logits_to_keep:
            hidden_states = hidden_states[:, -logits_to_keep:, :]
        return self.lm_head(hidden_states)

    def new_cache(self, store_dtype=None):
        return KVCache(self.config.num_hidden_layers, store_dtype)

    @classmethod
    def from_gguf(cls, path, dtype=torch.float32, device="cpu"):
        """The model in a llama GGUF file (F32, F16 or BF16 tensors), its weights converted to
        dtype (float32 or float64)."""
        reader = path if isinstance(path, GGUFReader) else GGUFReader(path)
        config = LlamaConfig.from_gguf(reader)
        check_gguf_tensors(config, reader)  # before allocating anything the header asks for
        model = cls(config)
        load_gguf_weights(model, reader)
        model.gguf_path = reader.path
        return model.to(device=device, dtype=dtype).eval()


def unpermute_qk(weight, n_heads):
    """GGUF's q or k projection rows -> Hugging Face's, for rotate-half RoPE.

    llama.cpp's converter reorders the rows of q_proj and k_proj within each head: viewing the
    head's D rows as [2, D/2] (HF row s*D/2 + i pairs with row i's other half in rotate_half),
    it swaps those two axes, so HF row h*D + s*(D/2) + i becomes GGUF row h*D + 2*i + s, and the
    rotated pairs become adjacent rows, as ggml's RoPE expects. Inverting that:

        hf[h*D + s*(D/2) + i] = gguf[h*D + 2*i + s]      for s in {0, 1}, i < D/2

    weight: [n_heads * D, in] (torch order), numpy array or tensor. n_heads: the number of heads
    of that projection (head_count for q, head_count_kv for k).
    """
    rows = weight.shape[0]
    if rows % n_heads or (rows // n_heads) % 2:
        raise ValueError("cannot un-permute %d rows for %d heads (need an even head size)" % (rows, n_heads))
    d = rows // n_heads
    rest = tuple(weight.shape[1:])
    w = weight.reshape((n_heads, d // 2, 2) + rest)
    w = w.swapaxes(1, 2) if isinstance(weight, np.ndarray) else w.transpose(1, 2)
    return w.reshape((rows,) + rest)


_LAYER_MAP = {
    "attn_q": "self_attn.q_proj",
    "attn_k": "self_attn.k_proj",
    "attn_v": "self_attn.v_proj",
    "attn_output": "self_attn.o_proj",
    "ffn_gate": "mlp.gate_proj",
    "ffn_up": "mlp.up_proj",
    "ffn_down": "mlp.down_proj",
    "attn_norm": "input_layernorm",
    "ffn_norm": "post_attention_layernorm",
}
_GLOBAL_MAP = {
    "token_embd": "model.embed_tokens",
    "output_norm": "model.norm",
    "output": "lm_head",
}


def gguf_to_hf_name(name):
    """'blk.3.ffn_down.weight' -> 'model.layers.3.mlp.down_proj.weight'; None when unknown."""
    base, dot, suffix = name.rpartition(".")
    if not dot or suffix not in ("weight", "bias"):
        return None
    if base in _GLOBAL_MAP:
        return "%s.%s" % (_GLOBAL_MAP[base], suffix)
    parts = base.split(".")
    if len(parts) == 3 and parts[0] == "blk" and parts[1].isdigit() and parts[2] in _LAYER_MAP:
        return "model.layers.%d.%s.%s" % (int(parts[1]), _LAYER_MAP[parts[2]], suffix)
    return None


def expected_shapes(config):
    """GGUF tensor name -> torch shape of the weights a llama with this config has."""
    h, d = config.hidden_size, config.head_dim
    shapes = {"token_embd.weight": (config.vocab_size, h), "output_norm.weight": (h,)}
    if not config.tie_word_embeddings:
        shapes["output.weight"] = (config.vocab_size, h)
    for i in range(config.num_hidden_layers):
        b = "blk.%d." % i
        shapes.update({
            b + "attn_norm.weight": (h,),
            b + "attn_q.weight": (config.num_attention_heads * d, h),
            b + "attn_k.weight": (config.num_key_value_heads * d, h),
            b + "attn_v.weight": (config.num_key_value_heads * d, h),
            b + "attn_output.weight": (h, config.num_attention_heads * d),
            b + "ffn_norm.weight": (h,),
            b + "ffn_gate.weight": (config.intermediate_size, h),
            b + "ffn_up.weight": (config.intermediate_size, h),
            b + "ffn_down.weight": (h, config.intermediate_size),
        })
    return shapes


def check_gguf_tensors(config, reader):
    """ValueError unless the file's tensors are exactly those of the config, with its shapes."""
    if config.num_hidden_layers > len(reader.tensors):
        raise ValueError("%s: block_count %d, but the file holds only %d tensors"
                         % (reader.path, config.num_hidden_layers, len(reader.tensors)))
    expected = expected_shapes(config)
    missing = [n for n in expected if n not in reader.tensors]
    if missing:
        raise ValueError("%s: the GGUF file lacks %s%s" % (reader.path, ", ".join(missing[:8]),
                                                          " ..." if len(missing) > 8 else ""))
    for name, info in reader.tensors.items():
        if name not in expected:
            raise ValueError("%s: tensor '%s' has no place in a llama model with %d layers"
                             % (reader.path, name, config.num_hidden_layers))
        if info.shape != expected[name]:
            raise ValueError("%s: tensor '%s' has shape %s (ne %s), expected %s"
                             % (reader.path, name, list(info.shape), list(info.ne), list(expected[name])))


def load_gguf_weights(model, reader):
    config = model.config
    params = dict(model.named_parameters())  # a tied lm_head.weight is listed once, as embed_tokens'
    loaded = set()
    for name, info in reader.tensors.items():
        target = gguf_to_hf_name(name)
        if target is None:
            raise ValueError("%s: tensor '%s' has no place in a llama model" % (reader.path, name))
        if target not in params:
            raise ValueError("%s: tensor '%s' maps to '%s', which this model (%d layers) does not have"
                             % (reader.path, name, target, config.num_hidden_layers))
        p = params[target]
        if info.shape != tuple(p.shape):
            raise ValueError("%s: tensor '%s' has shape %s (ne %s), expected %s for %s"
                             % (reader.path, name, list(info.shape), list(info.ne), list(p.shape), target))
        data = reader.tensor(name)
        if data.dtype not in (np.float32, np.float64, np.float16):
            raise ValueError("%s: tensor '%s' holds %s, not floating point" % (reader.path, name, data.dtype))
        if target.endswith("q_proj.weight"):
            data = unpermute_qk(data, config.num_attention_heads)
        elif target.endswith("k_proj.weight"):
            data = unpermute_qk(data, config.num_key_value_heads)
        with torch.no_grad():
            p.data = torch.from_numpy(np.ascontiguousarray(data)).to(torch.float64 if data.dtype == np.float64
                                                                      else torch.float32)
        loaded.add(target)
    if config.tie_word_embeddings:
        model.lm_head.weight = model.model.embed_tokens.weight
    missing = sorted(set(params) - loaded)
    if missing:
        raise ValueError("%s: the GGUF file lacks weights for %s" % (reader.path, ", ".join(missing)))
