"""Mixed precision, PyTorch's `torch.amp`: `autocast` and `GradScaler`.

`autocast` is accepted and changes no dtype: fluxgrad computes on NumPy, which has no
bfloat16 and no fast float16 kernels, so ops in an autocast region run in the dtypes of
their inputs (a deliberate difference from PyTorch; results are the float32 ones, at least as
accurate). Enabling it warns once.

PaddlePaddle's `auto_cast(enable=True, custom_white_list=None, custom_black_list=None,
level='O1', dtype='float16')` is `autocast` (checked arguments, no dtype changed; 'bfloat16'
is no exception: NumPy has no bfloat16 at all), and `decorate(models, optimizers, level='O1')`
(Paddle's O2 casting of the parameters) returns them unchanged.

`GradScaler` is PyTorch's dynamic loss scaling: `scale(loss)` multiplies by the scale,
`unscale_(opt)` divides the gradients back and notes whether any is inf/nan, `step(opt)`
skips the step when one was, and `update()` halves the scale after such a step or doubles it
after `growth_interval` clean ones. It works on float32 gradients as on float16 ones, so
scripts written for GPUs run unchanged.
"""
import functools
import warnings

import numpy as np

from ._core.grad_mode import no_grad
from ._core.tensor import Tensor

__all__ = ["autocast", "GradScaler", "is_autocast_available", "auto_cast", "decorate"]

_warned = False


def is_autocast_available(device_type):
    return device_type == "cpu"


class autocast:
    """Context manager and decorator; see the module docstring."""

    def __init__(self, device_type="cpu", dtype=None, enabled=True, cache_enabled=None):
        global _warned
        if not isinstance(device_type, str):
            raise TypeError(f"autocast: device_type must be a str such as 'cpu' or 'cuda', "
                            f"got {type(device_type).__name__}")
        self.device_type, self.fast_dtype, self.enabled = device_type, dtype, bool(enabled)
        if self.enabled and not _warned:
            _warned = True
            warnings.warn("fluxgrad.autocast changes no dtype: NumPy has no bfloat16 or fast "
                          "float16 kernels, so the region computes in its inputs' dtypes",
                          stacklevel=2)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def __call__(self, fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with self:
                return fn(*args, **kwargs)
        return wrapper


class GradScaler:
    """See the module docstring; the arguments are PyTorch's."""

    def __init__(self, device="cpu", init_scale=2.0 ** 16, growth_factor=2.0,
                 backoff_factor=0.5, growth_interval=2000, enabled=True):
        if not growth_factor > 1.0:
            raise ValueError(f"GradScaler: growth_factor must be > 1, got {growth_factor}")
        if not 0.0 < backoff_factor < 1.0:
            raise ValueError(f"GradScaler: backoff_factor must be in (0, 1), got {backoff_factor}")
        self._enabled = bool(enabled)
        self._scale = float(init_scale)
        self._growth_factor, self._backoff_factor = float(growth_factor), float(backoff_factor)
        self._growth_interval, self._growth_tracker = int(growth_interval), 0
        self._found_inf = {}  # id(optimizer) -> whether its unscaled gradients had inf/nan

    def is_enabled(self):
        return self._enabled

    def get_scale(self):
        return self._scale if self._enabled else 1.0

    def scale(self, outputs):
        """`outputs` (a Tensor, or a list/tuple of them) times the current scale."""
        if not self._enabled:
            return outputs
        if isinstance(outputs, Tensor):
            return outputs * self._scale
        if isinstance(outputs, (list, tuple)):
            return type(outputs)(self.scale(o) for o in outputs)
        raise TypeError(f"GradScaler.scale: expected a Tensor or a list/tuple of Tensors, got "
                        f"{type(outputs).__name__}")

    def unscale_(self, optimizer):
        """Divide `optimizer`'s gradients by the scale, once per step."""
        if not self._enabled:
            return
        if id(optimizer) in self._found_inf:
            raise RuntimeError("GradScaler.unscale_() has already been called on this "
                               "optimizer since the last update(); call it once per step")
        grads = [p._grad for group in optimizer.param_groups for p in group["params"]
                 if p._grad is not None]
        found = False
        with no_grad():
            for g in grads:
                found = found or not bool(np.isfinite(g._data).all())
            inverse = 1.0 / self._scale
            for g in grads:
                g.mul_(inverse)
        self._found_inf[id(optimizer)] = found

    def step(self, optimizer, *args, **kwargs):
        """`optimizer.step()` unless its gradients had inf/nan; unscales them first if
        `unscale_` wasn't called."""
        if not self._enabled:
            return optimizer.step(*args, **kwargs)
        if id(optimizer) not in self._found_inf:
            self.unscale_(optimizer)
        if self._found_inf[id(optimizer)]:
            return None
        return optimizer.step(*args, **kwargs)

    def update(self, new_scale=None):
        """Adjust the scale for the next step (or set it to `new_scale`)."""
        if not self._enabled:
            return
        if new_scale is not None:
            self._scale = float(new_scale.item() if isinstance(new_scale, Tensor) else new_scale)
        elif any(self._found_inf.values()):
            self._scale *= self._backoff_factor
            self._growth_tracker = 0
        elif self._found_inf:
            self._growth_tracker += 1
            if self._growth_tracker == self._growth_interval:
                self._scale *= self._growth_factor
                self._growth_tracker = 0
        self._found_inf = {}

    def state_dict(self):
        if not self._enabled:
            return {}
        return {"scale": self._scale, "growth_factor": self._growth_factor,
                "backoff_factor": self._backoff_factor,
                "growth_interval": self._growth_interval, "_growth_tracker": self._growth_tracker}

    def load_state_dict(self, state_dict):
        if not self._enabled:
            return
        if not state_dict:
            raise RuntimeError("GradScaler.load_state_dict: the state dict is empty (it was "
                               "saved by a disabled GradScaler)")
        self._scale = float(state_dict["scale"])
        self._growth_factor = float(state_dict["growth_factor"])
        self._backoff_factor = float(state_dict["backoff_factor"])
        self._growth_interval = int(state_dict["growth_interval"])
        self._growth_tracker = int(state_dict["_growth_tracker"])


_AMP_LEVELS = ("O0", "OD", "O1", "O2")


def _check_amp(op, level, dtype):
    if level not in _AMP_LEVELS:
        raise ValueError(f"{op}: level must be one of {list(_AMP_LEVELS)}, got {level!r}")
    if str(dtype) not in ("float16", "bfloat16"):
        raise ValueError(f"{op}: dtype must be 'float16' or 'bfloat16', got {dtype!r}")


def auto_cast(enable=True, custom_white_list=None, custom_black_list=None, level="O1",
              dtype="float16", use_promote=True):
    """PaddlePaddle's spelling of `autocast` (see the module docstring)."""
    _check_amp("auto_cast", level, dtype)
    return autocast("cpu", dtype, enabled=enable and level != "O0")


def decorate(models, optimizers=None, level="O1", dtype="float16", master_weight=None,
             save_dtype=None, master_grad=False, excluded_layers=None):
    """PaddlePaddle's `amp.decorate`: `models` (and `optimizers`) as given, since no dtype
    changes here (see the module docstring)."""
    _check_amp("decorate", level, dtype)
    return models if optimizers is None else (models, optimizers)
