"""Reference implementations in plain PyTorch, loaded from the GGUF files llama.cpp runs.

llama: LlamaForCausalLM, a Hugging Face-shaped llama (module names model.layers.N.mlp.down_proj,
...) built from a GGUF file with LlamaForCausalLM.from_gguf(path).
generate: greedy generation with the prompt, tokenization and output lines of
llmscope-sample-generate (python -m llmscope.reference.generate -m MODEL.gguf -n N).
"""

from .llama import KVCache, LlamaConfig, LlamaForCausalLM, gguf_to_hf_name, unpermute_qk
from .tokenizer import SpmTokenizer

__all__ = ["KVCache", "LlamaConfig", "LlamaForCausalLM", "SpmTokenizer", "gguf_to_hf_name", "unpermute_qk"]
