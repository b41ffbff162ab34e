"""Shared set-up for the benchmarks: one thread for every library, a small timer, ratio lines."""
import os

for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(var, "1")

import time  # noqa: E402


def best_time(fn, repeat=5, number=None):
    """Best wall time of one call of `fn`, over `repeat` rounds of `number` calls."""
    if number is None:
        number = 1
        while True:
            start = time.perf_counter()
            for _ in range(number):
                fn()
            if time.perf_counter() - start > 0.2:
                break
            number *= 2
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        for _ in range(number):
            fn()
        best = min(best, (time.perf_counter() - start) / number)
    return best


def interleaved_best_times(*fns, rounds=100):
    """Best wall time of one call of each of `fns`, called in turn `rounds` times: on a busy
    machine, both sides of a ratio then see the same conditions."""
    best = [float("inf")] * len(fns)
    for _ in range(rounds):
        for i, fn in enumerate(fns):
            start = time.perf_counter()
            fn()
            best[i] = min(best[i], time.perf_counter() - start)
    return best


def torch_or_none():
    try:
        import torch
    except ImportError:
        return None
    torch.set_num_threads(1)
    return torch


def jax_or_none():
    """jax on one CPU thread in float64, if it is installed (never required)."""
    os.environ.setdefault("XLA_FLAGS", "--xla_cpu_multi_thread_eigen=false "
                                       "intra_op_parallelism_threads=1")
    try:
        import jax
    except ImportError:
        return None
    jax.config.update("jax_enable_x64", True)
    jax.config.update("jax_platforms", "cpu")
    return jax


def report(name, ours, theirs, target=None, peer="torch"):
    line = f"{name:<55} fluxgrad {ours * 1e6:10.1f} us"
    if theirs is not None:
        ratio = ours / theirs
        line += f"   {peer} {theirs * 1e6:10.1f} us   ratio {ratio:5.2f}x"
        if target is not None:
            line += f"  (target <= {target}x: {'met' if ratio <= target else 'NOT met'})"
    print(line, flush=True)
