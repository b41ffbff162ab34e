"""`fluxgrad.cuda`: PyTorch's CUDA queries, answering for a machine without one.

fluxgrad computes on the CPU only, so `is_available()` is False and
`device_count()` is 0; calls that would need a GPU raise one clear error.
"""
from .._core.devices import refuse_accelerator
from . import amp

__all__ = ["is_available", "device_count", "is_initialized", "current_device", "set_device",
           "manual_seed", "manual_seed_all", "synchronize", "empty_cache", "get_device_name",
           "is_bf16_supported", "FloatTensor", "DoubleTensor", "HalfTensor", "LongTensor",
           "IntTensor", "ByteTensor", "BoolTensor", "amp"]


def is_available():
    return False


def device_count():
    return 0


def is_initialized():
    return False


def is_bf16_supported(including_emulation=True):
    return False


def manual_seed(seed):
    """Seeding the (absent) GPU generators does nothing, as in PyTorch without CUDA."""


manual_seed_all = manual_seed


def synchronize(device=None):
    """Nothing runs asynchronously on the CPU."""


def empty_cache():
    """There is no GPU memory cache to free."""


def current_device():
    refuse_accelerator("fluxgrad.cuda.current_device()")


def set_device(device):
    refuse_accelerator("fluxgrad.cuda.set_device()")


def get_device_name(device=None):
    refuse_accelerator("fluxgrad.cuda.get_device_name()")


class _CudaTensorType(type):
    """`cuda.FloatTensor` and friends: no tensor is one, and making one says why."""

    def __instancecheck__(cls, obj):
        return False

    def __call__(cls, *args, **kwargs):
        refuse_accelerator(f"fluxgrad.cuda.{cls.__name__}()")


FloatTensor, DoubleTensor, HalfTensor, LongTensor, IntTensor, ByteTensor, BoolTensor = (
    _CudaTensorType(name, (), {}) for name in ("FloatTensor", "DoubleTensor", "HalfTensor",
                                               "LongTensor", "IntTensor", "ByteTensor",
                                               "BoolTensor"))
