"""PaddlePaddle static-API spellings whose work is done elsewhere or is nothing on one CPU:
`name_scope` and `device_guard` (context managers that change nothing), `CompiledProgram`
(a program the Executor runs as it is; `BuildStrategy` / `ExecutionStrategy` hold options
that are accepted and ignored) and `create_global_var` (a persistable Variable the startup program sets to `value`)."""
import contextlib

import numpy as np

from .._core import dtypes
from .._core.tensor import Tensor


@contextlib.contextmanager
def name_scope(prefix=None):
    """PaddlePaddle's name scope of ops (for its program printouts): no effect here."""
    yield


@contextlib.contextmanager
def device_guard(device=None):
    """PaddlePaddle's placement of ops on a device: every op runs on the CPU here."""
    if device is not None and not str(device).startswith(("cpu", "gpu")):
        raise ValueError(f"device_guard: device must be 'cpu', 'gpu' or 'gpu:N', got "
                         f"{device!r}")
    yield


class BuildStrategy:
    """Options of PaddlePaddle's graph building, accepted as attributes and ignored."""


class ExecutionStrategy:
    """Options of PaddlePaddle's parallel execution, accepted as attributes and ignored."""


class CompiledProgram:
    """`program`, which `Executor.run` runs as it is (PaddlePaddle compiles it for its
    devices)."""

    def __init__(self, program_or_graph, build_strategy=None):
        from .program import Program
        if not isinstance(program_or_graph, Program):
            raise TypeError(f"CompiledProgram: expected a fluxgrad.static.Program, got "
                            f"{type(program_or_graph).__name__}")
        self._program = program_or_graph
        self._build_strategy = build_strategy

    def with_data_parallel(self, loss_name=None, build_strategy=None, exec_strategy=None,
                           share_vars_from=None, places=None):
        return self


def create_global_var(shape, value, dtype, persistable=False, force_cpu=False, name=None):
    """A Variable of the program being built that holds `value` in `shape` from the startup
    program's run on (persistable: it keeps what a program's update writes into it)."""
    from .parameters import to_static_buffer
    dt = dtypes.as_dtype(dtype)
    if any(not isinstance(s, int) or isinstance(s, bool) or s < 0 for s in shape):
        raise ValueError(f"create_global_var: shape must hold non-negative ints, got "
                         f"{list(shape)}")
    return to_static_buffer(Tensor(np.full(tuple(shape), value, dt.np)), name)
