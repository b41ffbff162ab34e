"""`OptimizedModule`: what `fluxgrad.compile(module)` returns, as torch.compile's.

It is a Module holding the original as `_orig_mod`, so `parameters()`, `state_dict()` (keys
prefixed `_orig_mod.`, as PyTorch's), `train()` / `eval()` and `to()` act on the original,
and other attributes read through to it (`code`, `traces`, `trace_count`, `save` to the
compiled function). Its forward is a compiled function of the parameters and the arguments
(`func.functional_call`), so gradients reach the parameters through the compiled call's
backward; buffers are read afresh at each call.
"""
from ..func import functional_call
from ..nn.module import Module
from .compiled import Compiled


class OptimizedModule(Module):
    def __init__(self, mod, **options):
        super().__init__()
        self._orig_mod = mod
        self.__dict__["_compiled"] = Compiled(self._call, **options)

    def _call(self, parameters, args, kwargs):
        return functional_call(self._orig_mod, parameters, args, kwargs)

    def forward(self, *args, **kwargs):
        return self._compiled(dict(self._orig_mod.named_parameters()), args, kwargs)

    def __getattr__(self, name):
        try:
            return super().__getattr__(name)
        except AttributeError:
            if name in _COMPILED_ATTRIBUTES:
                return getattr(self.__dict__["_compiled"], name)
            return getattr(self.__dict__["_modules"]["_orig_mod"], name)


_COMPILED_ATTRIBUTES = {"code", "traces", "trace_count", "save", "source", "program"}
