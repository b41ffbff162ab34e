"""`fluxgrad.backends`: PyTorch's backend switches, for code that reads or sets them.

No accelerator backend is available (`cudnn`, `mps`, `cuda`); the flags exist so
that `torch.backends.cudnn.benchmark = True` and `torch.backends.mps.is_available()`
run, and they change nothing.
"""
import types

__all__ = ["cudnn", "mps", "cuda", "mkldnn", "opt_einsum"]


def _false(*args, **kwargs):
    return False


cudnn = types.SimpleNamespace(is_available=_false, enabled=False, benchmark=False,
                              deterministic=False, allow_tf32=False, version=lambda: None)
mps = types.SimpleNamespace(is_available=_false, is_built=_false)
cuda = types.SimpleNamespace(is_built=_false, matmul=types.SimpleNamespace(allow_tf32=False))
mkldnn = types.SimpleNamespace(is_available=_false, enabled=False)
opt_einsum = types.SimpleNamespace(is_available=_false, enabled=False)
