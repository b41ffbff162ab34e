"""`set_num_threads` / `get_num_threads`: how many threads NumPy's BLAS may use, as PyTorch's
intra-op thread count.

The limit is applied through `threadpoolctl` (the `threads` extra: `pip install
fluxgrad[threads]`). Without it the number can't be changed and `set_num_threads` raises,
naming the extra; `get_num_threads` then reports the machine's CPU count.
"""
import operator
import os

__all__ = ["set_num_threads", "get_num_threads"]

_limits = None  # the active threadpoolctl limiter, replaced by each set_num_threads


def set_num_threads(n):
    global _limits
    try:
        n = operator.index(n)
    except TypeError:
        raise TypeError(f"set_num_threads: expected an int, got {type(n).__name__}") from None
    if n < 1:
        raise ValueError(f"set_num_threads: the number of threads must be at least 1, got {n}")
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:
        raise ModuleNotFoundError(
            "set_num_threads needs threadpoolctl to limit NumPy's BLAS threads: "
            "pip install 'fluxgrad[threads]' (or set OMP_NUM_THREADS before starting Python)"
        ) from None
    if _limits is not None:
        _limits.restore_original_limits()
    _limits = threadpool_limits(n)


def get_num_threads():
    try:
        from threadpoolctl import threadpool_info
    except ImportError:
        return os.cpu_count() or 1
    counts = [pool["num_threads"] for pool in threadpool_info()]
    return max(counts) if counts else 1
