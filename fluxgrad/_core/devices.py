"""Devices: fluxgrad computes on the CPU only.

`device('cpu')` (or 'cpu', 'cpu:0', None) is accepted wherever PyTorch takes a
`device=`; any other device ('cuda', 'mps', PaddlePaddle's 'gpu') raises one clear
RuntimeError, so code that asks for an accelerator learns it at once rather
than silently running elsewhere. As in PyTorch's CPU build, asking for CUDA raises an
AssertionError that starts "Torch not compiled with CUDA enabled" (here it is also a
RuntimeError), and asking for MPS says "PyTorch is not linked with support for mps devices".
"""

__all__ = ["device", "check_device", "refuse_accelerator", "is_device", "CPU",
           "CudaUnavailableError"]

_KNOWN = ("cpu", "cuda", "mps", "xpu", "gpu", "meta", "xla", "npu", "hip", "mtia")


class device:
    """PyTorch's `torch.device`: a device type and an optional index ('cpu', 'cuda:0')."""
    __slots__ = ("type", "index")

    def __init__(self, type, index=None):
        if isinstance(type, device):
            type, index = type.type, type.index
        elif isinstance(type, int) and not isinstance(type, bool):
            type, index = "cuda", type
        elif not isinstance(type, str):
            raise TypeError(f"device(): expected a string such as 'cpu', got "
                            f"{type.__class__.__name__}")
        elif ":" in type:
            type, _, number = type.partition(":")
            if index is not None or not number.isdigit():
                raise RuntimeError(f"invalid device string {type + ':' + number!r}; use "
                                   "'cpu' or a form such as 'cuda:0'")
            index = int(number)
        if type not in _KNOWN:
            raise RuntimeError(f"unknown device type {type!r}; fluxgrad runs on 'cpu'")
        self.type = type
        self.index = index

    def __repr__(self):
        return f"device(type={self.type!r}" + ("" if self.index is None else
                                                f", index={self.index}") + ")"

    def __str__(self):
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __eq__(self, other):
        if isinstance(other, str):
            try:
                other = device(other)
            except (RuntimeError, TypeError):
                return False
        if not isinstance(other, device):
            return NotImplemented
        return self.type == other.type and self.index == other.index

    def __hash__(self):
        return hash((self.type, self.index))

    def __enter__(self):
        check_device(self, "with fluxgrad.device(...)")
        return self

    def __exit__(self, *exc):
        return False


CPU = device("cpu")


def is_device(value):
    """Whether `value` names a device ('cpu', 'cuda:0', a `device`) rather than a dtype."""
    if isinstance(value, device):
        return True
    return isinstance(value, str) and value.partition(":")[0] in _KNOWN


def check_device(value, op):
    """Accept None or the CPU; refuse any other device, naming `op` and what to do."""
    if value is None:
        return CPU
    dev = value if isinstance(value, device) else device(value)
    if dev.type != "cpu":
        refuse_accelerator(op, dev)
    return dev


class CudaUnavailableError(AssertionError, RuntimeError):
    """What PyTorch's CPU build raises (an AssertionError) when asked for CUDA."""


def refuse_accelerator(op, dev="cuda"):
    kind = dev.type if isinstance(dev, device) else str(dev).partition(":")[0]
    error, words = RuntimeError, ""
    if kind == "cuda":
        error, words = CudaUnavailableError, "Torch not compiled with CUDA enabled. "
    elif kind == "mps":
        words = "PyTorch is not linked with support for mps devices. "
    raise error(
        f"{words}{op}: device {str(dev)!r} is not available: fluxgrad runs on the CPU only. "
        "Use device='cpu' (or leave it out); fluxgrad.cuda.is_available() is False, so "
        "`device = 'cuda' if torch.cuda.is_available() else 'cpu'` picks the CPU.")
