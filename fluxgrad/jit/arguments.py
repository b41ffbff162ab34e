"""Writes into arguments, as eager mode makes them: after a compiled call, the final value of
each argument the function wrote in place (`Traced.arg_writes`) is in the argument's memory
(written there by the generated code itself where `buffers.plan` could, else copied), and
the argument's version counter (shared with its views and base) is bumped; a result that is
such an argument is the argument itself (`return x.add_(1)` returns x).

The trace took the arguments as distinct tensors: a call where a written argument shares
memory with another argument runs the function eagerly (`aliased`).
"""
import numpy as np

from .._core.tensor import Tensor


def aliased(traced, tensors):
    """Whether an argument the trace writes may share memory with another argument."""
    for i, _ in traced.arg_writes:
        data = tensors[i]._data
        for j, t in enumerate(tensors):
            if j != i and np.may_share_memory(data, t._data):
                return True
    return False


def results(traced, tensors, arrays):
    """The result leaves of a call whose outputs are `arrays`, once the written arguments
    hold their new values."""
    for i, k in traced.arg_writes:
        t, new = tensors[i], arrays[k]
        if new is not t._data:
            np.copyto(t._data, new, casting="unsafe")
        t._bump_version()
    returned = traced.arg_results
    return [tensors[returned[j]] if j in returned else Tensor._make(a)
            for j, a in enumerate(arrays[:traced.n_results])]
