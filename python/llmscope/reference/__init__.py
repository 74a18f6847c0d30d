"""Reference implementations in plain PyTorch, loaded from the GGUF files llama.cpp runs.

llama: LlamaForCausalLM, a Hugging Face-shaped llama (module names model.layers.N.mlp.down_proj,
...) built from a GGUF file with LlamaForCausalLM.from_gguf(path).
qwen: Qwen2ForCausalLM, Qwen3ForCausalLM and Qwen3MoeForCausalLM in Hugging Face's module names
(q, k, v biases; q_norm and k_norm; the sparse MoE block with its router and experts).
generate: greedy generation with the prompt, tokenization and output lines of
llmscope-sample-generate (python -m llmscope.reference.generate -m MODEL.gguf -n N).
"""

from .llama import KVCache, LlamaConfig, LlamaForCausalLM, gguf_to_hf_name, unpermute_qk
from .qwen import FAMILIES, Qwen2ForCausalLM, Qwen3ForCausalLM, Qwen3MoeForCausalLM
from .tokenizer import SpmTokenizer

__all__ = ["FAMILIES", "KVCache", "LlamaConfig", "LlamaForCausalLM", "Qwen2ForCausalLM", "Qwen3ForCausalLM",
           "Qwen3MoeForCausalLM", "SpmTokenizer", "gguf_to_hf_name", "unpermute_qk"]
