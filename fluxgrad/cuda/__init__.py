"""`fluxgrad.cuda`: PyTorch's CUDA queries, answering for a machine without one.

fluxgrad computes on the CPU only, so `is_available()` is False and
`device_count()` is 0; calls that would need a GPU raise one clear error, of the type
PyTorch's CPU build raises (an AssertionError, "Torch not compiled with CUDA enabled",
that is also a RuntimeError). The memory counters read 0, as PyTorch's do there.
"""
from .._core.devices import refuse_accelerator
from . import amp

__all__ = ["is_available", "device_count", "is_initialized", "current_device", "set_device",
           "manual_seed", "manual_seed_all", "synchronize", "empty_cache", "get_device_name",
           "is_bf16_supported", "memory_allocated", "max_memory_allocated", "memory_reserved",
           "max_memory_reserved", "memory_stats", "get_arch_list", "get_device_properties",
           "get_device_capability", "mem_get_info", "current_stream", "initial_seed",
           "get_rng_state", "Stream", "Event", "FloatTensor", "DoubleTensor", "HalfTensor", "LongTensor",
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
    refuse_accelerator("fluxgrad.cuda.synchronize()")


def empty_cache():
    """There is no GPU memory cache to free."""


def current_device():
    refuse_accelerator("fluxgrad.cuda.current_device()")


def set_device(device):
    refuse_accelerator("fluxgrad.cuda.set_device()")


def get_device_name(device=None):
    refuse_accelerator("fluxgrad.cuda.get_device_name()")


def get_device_properties(device=None):
    refuse_accelerator("fluxgrad.cuda.get_device_properties()")


def get_device_capability(device=None):
    refuse_accelerator("fluxgrad.cuda.get_device_capability()")


def mem_get_info(device=None):
    refuse_accelerator("fluxgrad.cuda.mem_get_info()")


def current_stream(device=None):
    refuse_accelerator("fluxgrad.cuda.current_stream()")


def initial_seed():
    refuse_accelerator("fluxgrad.cuda.initial_seed()")


def get_rng_state(device="cuda"):
    refuse_accelerator("fluxgrad.cuda.get_rng_state()")


def memory_allocated(device=None):
    return 0


max_memory_allocated = memory_reserved = max_memory_reserved = memory_allocated


def memory_stats(device=None):
    return {}


def get_arch_list():
    return []


class Stream:
    def __init__(self, *args, **kwargs):
        raise RuntimeError("torch.cuda.Stream requires CUDA support (fluxgrad runs on the CPU "
                           "only)")


class Event:
    def __init__(self, *args, **kwargs):
        raise RuntimeError("Tried to instantiate dummy base class Event: CUDA events need a "
                           "GPU, and fluxgrad runs on the CPU only; time with time.perf_counter")


class _CudaTensorType(type):
    """`cuda.FloatTensor` and friends: no tensor is one, and making one says why."""

    def __instancecheck__(cls, obj):
        return False

    def __call__(cls, *args, **kwargs):
        raise TypeError(f"type torch.cuda.{cls.__name__} not available. Torch not compiled with "
                        f"CUDA enabled (fluxgrad runs on the CPU only: use "
                        f"fluxgrad.{cls.__name__} or fluxgrad.tensor(..., dtype=...))")


FloatTensor, DoubleTensor, HalfTensor, LongTensor, IntTensor, ByteTensor, BoolTensor = (
    _CudaTensorType(name, (), {}) for name in ("FloatTensor", "DoubleTensor", "HalfTensor",
                                               "LongTensor", "IntTensor", "ByteTensor",
                                               "BoolTensor"))
