"""Anomaly mode: find the forward line whose backward produced the first NaN or Inf.

    with fluxgrad.autograd.detect_anomaly():
        y = f(x)          # each recorded op remembers the file and line that called it
        y.backward()      # the first non-finite gradient raises, naming that line

Call sites are recorded only while the mode is on (`node.trace` is None otherwise),
so normal runs pay one flag check per recorded op.
"""
import linecache
import os
import sys

import numpy as np

from .._core.node import anomaly as _state

__all__ = ["detect_anomaly", "set_detect_anomaly", "is_anomaly_enabled", "AnomalyError"]

_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


class AnomalyError(RuntimeError):
    """A backward rule produced NaN or Inf; `.node` is the backward node, `.trace` its call site."""

    def __init__(self, message, node, trace):
        super().__init__(message)
        self.node = node
        self.trace = trace


def _record():
    """(file, line, function) of the first stack frame outside the fluxgrad package."""
    frame = sys._getframe(1)
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE):
        frame = frame.f_back
    if frame is None:
        return None
    return frame.f_code.co_filename, frame.f_lineno, frame.f_code.co_name


def _check(node, x_bars):
    for i, x_bar in enumerate(x_bars):
        if x_bar is None:
            continue
        data = x_bar._data
        if data.dtype.kind not in "fc" or np.isfinite(data).all():
            continue
        what = "NaN" if np.isnan(data).any() else "Inf"
        trace = getattr(node, "trace", None)
        inputs = node.inputs or ()
        shapes = ", ".join(f"{x.dtype.name}{list(x.shape)}" if hasattr(x, "_data") else repr(x)
                           for x in inputs)
        if trace is None:
            where = ("its call site was not recorded (the op ran before anomaly mode was "
                     "turned on; run the forward pass inside detect_anomaly() too)")
        else:
            file, line, function = trace
            text = linecache.getline(file, line).strip()
            where = f"called at {file}:{line}, in {function}" + (f"\n    {text}" if text else "")
        raise AnomalyError(
            f"{node.name()} returned {what} values in the gradient of its input {i} "
            f"(shape {list(data.shape)}). The forward op {node.prim.name}({shapes}) was "
            f"{where}\nCheck that op's inputs for values outside its domain (sqrt or log at "
            "0, division by 0, overflow), or clamp/mask them before the op.", node, trace)


def _set_enabled(mode):
    _state.enabled = bool(mode)
    if _state.enabled:
        _state.record = _record
        _state.check = _check


class set_detect_anomaly:
    """Turn anomaly mode on or off (PyTorch's `torch.autograd.set_detect_anomaly`): called, it
    sets the mode globally; used in a `with`, the mode before it comes back at the end."""

    def __init__(self, mode, check_nan=True):
        self.previous = _state.enabled
        _set_enabled(mode)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        _set_enabled(self.previous)
        return False


def is_anomaly_enabled():
    return _state.enabled


class detect_anomaly:
    """Context manager (and decorator) that turns anomaly mode on for its body."""

    def __init__(self, check_nan=True):
        self.mode = bool(check_nan)

    def __enter__(self):
        self.previous = _state.enabled
        _set_enabled(self.mode)
        return self

    def __exit__(self, *exc):
        _set_enabled(self.previous)
        return False

    def __call__(self, fn):
        import functools

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with detect_anomaly(self.mode):
                return fn(*args, **kwargs)
        return wrapper
