"""PaddlePaddle's places: `CPUPlace()` and `CUDAPinnedPlace()` (host memory) are where every
tensor lives here; `CUDAPlace(i)` refuses, naming why (fluxgrad computes on NumPy, on the
CPU). `check_place` is what `static.Executor(place)` accepts."""

__all__ = ["CPUPlace", "CUDAPlace", "CUDAPinnedPlace"]


class CPUPlace:
    """The host CPU."""

    def __eq__(self, other):
        return type(other) is type(self)

    def __hash__(self):
        return hash(type(self).__name__)

    def __repr__(self):
        return "Place(cpu)"


class CUDAPinnedPlace(CPUPlace):
    """Page-locked host memory: host memory here (there is no GPU to copy to)."""

    def __repr__(self):
        return "Place(gpu_pinned)"


class CUDAPlace:
    """A GPU: refused, as PaddlePaddle's CPU-only build refuses it."""

    def __init__(self, id=0):
        raise RuntimeError(f"CUDAPlace({id}): fluxgrad runs on the CPU only (NumPy), there is no "
                           "GPU to place tensors on; use fluxgrad.CPUPlace() or leave the place "
                           "out")


def check_place(place, owner):
    """`place` if it is the CPU (a CPUPlace, 'cpu', a CPU device, or None), else raise."""
    if place is None or isinstance(place, CPUPlace) or str(place) == "cpu":
        return place
    raise ValueError(f"{owner}: place {place!r} is not the CPU; fluxgrad runs on the CPU only: "
                     "pass fluxgrad.CPUPlace() or nothing")
