"""llmscope's PyTorch side: msit's `from msit_llm import DumpConfig, register_hook`, writing
msit's torch_tensors dump layout, and register_hook_from_env for scripts run by `llmscope dump`."""
from .dump_config import DumpConfig, seed_all
from .dump_env import config_from_env, register_hook_from_env
from .dump_hook import DumpHandle, register_hook

__all__ = ["DumpConfig", "DumpHandle", "register_hook", "register_hook_from_env", "config_from_env", "seed_all"]
