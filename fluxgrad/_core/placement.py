"""Where tensors live: PyTorch's `set_default_device` and PaddlePaddle's `set_device` /
`get_device` / `is_compiled_with_cuda`, which accept the CPU only.

PaddlePaddle also spells them under `paddle.device.*`; `fluxgrad.device` is PyTorch's
device class, so they are reachable there too (`fluxgrad.device.set_device('cpu')`).
"""
import types

from .devices import CPU, check_device, device

__all__ = ["set_default_device", "get_default_device", "set_device", "get_device",
           "is_compiled_with_cuda", "is_compiled_with_rocm", "is_compiled_with_xpu"]


def set_default_device(device):
    """Only the CPU (or None) can be the default device."""
    check_device(device, "set_default_device")


def get_default_device():
    return CPU


def set_device(device):
    """PaddlePaddle's: choose the device ('cpu' is the only one); returns it."""
    return check_device(device, "set_device")


def get_device():
    """PaddlePaddle's: the current device's name."""
    return "cpu"


def is_compiled_with_cuda():
    return False


is_compiled_with_rocm = is_compiled_with_xpu = is_compiled_with_cuda


for _function in (set_device, get_device, is_compiled_with_cuda, is_compiled_with_rocm,
                  is_compiled_with_xpu):
    setattr(device, _function.__name__, staticmethod(_function))
device.cuda = types.SimpleNamespace(device_count=lambda: 0)
