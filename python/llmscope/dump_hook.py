"""register_hook: dumps a torch model's module (and torch function) inputs and outputs
while it runs, in msit's torch_tensors layout."""
import contextlib
import functools
import logging
import os
import weakref

import torch

from . import dump_files
from .dump_config import DumpConfig

logger = logging.getLogger("llmscope")
# model -> weak reference to its _Dumper (weak both ways, so a hooked model can still be freed):
# a model is hooked once at a time.
_hooked = weakref.WeakKeyDictionary()


def model_device(model):
    """The model's device as msit names its folder: "cpu", "cuda0" (first parameter's)."""
    for tensor in model.parameters():
        return str(tensor.device).replace(":", "")
    for tensor in model.buffers():
        return str(tensor.device).replace(":", "")
    return "cpu"


class DumpHandle:
    """What register_hook returns: remove() takes every hook off (and is safe to repeat)."""

    def __init__(self, dumper):
        self._dumper = dumper

    @property
    def dump_dir(self):
        """torch_tensors/{device}_{pid} of this dump, or None when the device is not dumped."""
        return self._dumper.dump_dir if self._dumper else None

    def remove(self):
        if self._dumper:
            self._dumper.remove()
            self._dumper = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()


class _Dumper:
    def __init__(self, model, config, dump_dir):
        self.model = model
        self.config = config
        self.dump_dir = dump_dir
        self.names = {}            # module -> full name ("root.model.layers.0")
        self.types_on_path = {}    # full name -> class names from the root down
        self.handles = []
        self.token = -1            # root forward calls so far, minus one
        self.dumping = False       # the current token is in token_range
        self.stack = []            # names of the modules running, innermost last
        self.api_calls = {}        # api folder -> calls this token
        self.order = {}            # name -> when it first finished (for model_tree.json)
        self.tree_written = False
        self.last_output = None    # dump_last_logits: (name, type, outputs) of the last module to finish
        self.busy = False          # inside our own writing: wrapped torch functions pass straight through
        self.api_depth = 0
        self.removed = False
        self.forward_wrapper = None

    # -- set up and take down --------------------------------------------------------------
    def install(self):
        for sub_name, module in self.model.named_modules():
            name = f"root.{sub_name}" if sub_name else "root"
            self.names[module] = name
            parent = name.rpartition(".")[0]
            self.types_on_path[name] = self.types_on_path.get(parent, ()) + (type(module).__name__,)
        for module in self.names:
            pre = self._root_pre if module is self.model else self._pre
            self.handles.append(module.register_forward_pre_hook(pre))
            self.handles.append(module.register_forward_hook(self._post))
        if self.config.dump_api:
            self._wrap_forward()
        if self.config.dump_weight:
            self._dump_weights()
        elif self.config.write_data:
            self._weight_statistics()

    def remove(self):
        if self.removed:
            return
        self.removed = True
        for handle in self.handles:
            handle.remove()
        # Put forward back only if nobody replaced it after us; else our wrapper stays and
        # passes straight through (self.removed).
        if self.forward_wrapper is not None and self.model.__dict__.get("forward") is self.forward_wrapper:
            if self.saved_forward is None:
                del self.model.__dict__["forward"]
            else:
                self.model.__dict__["forward"] = self.saved_forward
        if _hooked.get(self.model, lambda: None)() is self:
            del _hooked[self.model]

    # -- module hooks -----------------------------------------------------------------------
    def _root_pre(self, module, inputs):
        # msit counts tokens by the root module's forward calls; a forward that raised
        # leaves the stack behind, so it restarts here.
        self.token += 1
        self.dumping = self.token in self.config.token_range
        self.stack = ["root"]
        self.api_calls = {}
        self.last_output = None
        if not self.tree_written:
            self.order = {}

    def _pre(self, module, inputs):
        self.stack.append(self.names[module])

    def _post(self, module, inputs, outputs):
        name = self.names[module]
        if self.stack and self.stack[-1] == name:
            self.stack.pop()
        if not self.tree_written:
            self.order.setdefault(name, len(self.order))
        config = self.config
        if config.dump_last_logits:
            # msit keeps the output of the last module to finish; the root's own counts only
            # when no submodule gave a tensor.
            if module is not self.model and dump_files.has_tensor(outputs):
                self.last_output = (name, type(module).__name__, outputs)
        elif config.dump_module and self.dumping and config.selects_name(name, self.types_on_path[name], module):
            self._write(name, type(module).__name__, inputs, outputs, config.tensor_part)
        if module is self.model:
            self._root_done(outputs)

    def _root_done(self, outputs):
        if self.config.dump_last_logits and self.dumping:
            last = self.last_output
            if last is None and dump_files.has_tensor(outputs):
                last = ("root", type(self.model).__name__, outputs)
            if last is not None:
                self._write(last[0], last[1], None, last[2], 1)
        if not self.tree_written:
            self.tree_written = True
            with self._busy():
                dump_files.write_json(os.path.join(self.dump_dir, "model_tree.json"),
                                      dump_files.model_tree(self.model, self.order))

    # -- writing ----------------------------------------------------------------------------
    @contextlib.contextmanager
    def _busy(self):
        was, self.busy = self.busy, True
        try:
            yield
        finally:
            self.busy = was

    def _write(self, folder_name, node_type, inputs, outputs, tensor_part):
        if not self.config.write_data:
            return
        items = []
        if tensor_part in (0, 2):
            dump_files.flatten(inputs, "input", items)
        if tensor_part in (1, 2):
            dump_files.flatten(outputs, "output", items)
        if not items:
            return
        folder = os.path.join(self.dump_dir, str(self.token), folder_name)
        stats_mode = self.config.dump_statistics_mode
        with self._busy():
            os.makedirs(folder, exist_ok=True)
            rows = []
            for stem, tensor in items:
                if stats_mode != 0:
                    rows.append(dump_files.stat_row(folder_name, node_type, stem, tensor))
                if stats_mode != 1:
                    dump_files.save_tensor(tensor, os.path.join(folder, stem + ".pth"))
            if rows:
                dump_files.append_csv(os.path.join(folder, "statistics.csv"), rows)

    def _dump_weights(self):
        folder = os.path.join(self.dump_dir, "weights")
        os.makedirs(folder, exist_ok=True)
        for name, param in self.model.named_parameters():
            full = f"root.{name}"
            if self.config.layer_regex is None or self.config.layer_regex.fullmatch(full):
                dump_files.save_tensor(param, os.path.join(folder, full + ".pth"))

    def _weight_statistics(self):
        """Each module's own parameters, identified without their payload: statistics and a
        sketch (weights/statistics.csv), against which llmscope compare names the GGUF tensor
        and the parameter that differ."""
        rows = []
        for module, name in self.names.items():
            for pname, param in module.named_parameters(recurse=False):
                full = f"{name}.{pname}"
                if self.config.layer_regex is None or self.config.layer_regex.fullmatch(full):
                    rows.append(dump_files.weight_row(name, type(module).__name__, pname, param))
        if not rows:
            return
        folder = os.path.join(self.dump_dir, "weights")
        with self._busy():
            os.makedirs(folder, exist_ok=True)
            dump_files.append_csv(os.path.join(folder, "statistics.csv"), rows, dump_files.WEIGHT_COLUMNS)

    # -- api mode ---------------------------------------------------------------------------
    def _wrap_forward(self):
        # torch functions are replaced only while the root forward runs, and put back in a
        # finally, so an exception inside the model never leaves torch patched.
        self.saved_forward = self.model.__dict__.get("forward")
        inner = self.model.forward

        @functools.wraps(inner)
        def forward(*args, **kwargs):
            if self.removed:
                return inner(*args, **kwargs)
            with self._apis_wrapped():
                return inner(*args, **kwargs)

        self.forward_wrapper = forward
        self.model.__dict__["forward"] = forward

    @contextlib.contextmanager
    def _apis_wrapped(self):
        self.api_depth += 1
        originals = []
        try:
            if self.api_depth == 1:
                for api in self.config.apis:
                    original = getattr(api.owner, api.attr)
                    originals.append((api, original))
                    setattr(api.owner, api.attr, self._api_wrapper(original, api.name))
            yield
        finally:
            for api, original in reversed(originals):
                setattr(api.owner, api.attr, original)
            self.api_depth -= 1

    def _api_wrapper(self, original, api_name):
        @functools.wraps(original)
        def wrapper(*args, **kwargs):
            output = original(*args, **kwargs)
            if self.busy or not self.dumping or self.removed:
                return output
            # msit names the folder {innermost module}.{function}; repeated calls within a
            # token get .1, .2, ... so that each keeps its own files.
            base = f"{self.stack[-1] if self.stack else 'root'}.{api_name}"
            count = self.api_calls.get(base, 0)
            self.api_calls[base] = count + 1
            folder = base if count == 0 else f"{base}.{count}"
            path = self.types_on_path.get(base.rpartition(".")[0], ()) + (api_name,)
            if self.config.selects_name(folder, path):
                self._write(folder, api_name, args, output, self.config.tensor_part)
            return output
        return wrapper


def register_hook(model, config, hook_type="dump_data"):
    """Hooks model (the outermost torch.nn.Module) to dump as config says; returns a
    DumpHandle whose remove() unhooks everything."""
    if not isinstance(model, torch.nn.Module):
        raise TypeError(f"register_hook: model must be a torch.nn.Module, not {type(model).__name__}")
    if not isinstance(config, DumpConfig):
        raise TypeError(f"register_hook: config must be a DumpConfig, not {type(config).__name__}")
    if hook_type != "dump_data":
        raise ValueError(f"register_hook: hook_type {hook_type!r} is not supported (only 'dump_data')")
    if _hooked.get(model, lambda: None)() is not None:
        raise RuntimeError("register_hook: this model is already hooked; call remove() on its handle first")

    device = model_device(model)
    if not config.selects_device(device):
        logger.info("llmscope: %s is not a dumped device; nothing is hooked", device)
        return DumpHandle(None)
    dump_dir = os.path.join(config.root_folder(), "torch_tensors", f"{device}_{os.getpid()}")
    os.makedirs(dump_dir, exist_ok=True)
    dumper = _Dumper(model, config, dump_dir)
    handle = DumpHandle(dumper)
    try:
        dumper.install()
    except BaseException:
        dumper.remove()
        raise
    _hooked[model] = weakref.ref(dumper)
    return handle
