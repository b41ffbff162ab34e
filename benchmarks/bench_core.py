"""Eager engine overhead: fluxgrad vs PyTorch, single thread, side by side.

    python benchmarks/bench_core.py

1. A forward+backward chain of 200 elementwise ops on 16-element float32
   tensors, per op (target: ratio <= 1.0).
2. Backward time per op for chains of 1e3 .. 1e6 ops (should stay flat: linear growth).
"""
import _common  # noqa: F401  (sets single-thread environment before numpy loads)
import time

import numpy as np

import fluxgrad as fg
from _common import best_time, report, torch_or_none

CHAIN = 200


def chain(lib, x, w):
    y = x
    for _ in range(CHAIN // 5):
        y = (y * w + 0.5).tanh() - y * 0.25
    return y


def bench_chain(torch):
    data = np.random.default_rng(0).standard_normal(16).astype(np.float32)
    x = fg.tensor(data, requires_grad=True)
    w = fg.tensor(np.full(16, 0.9, np.float32), requires_grad=True)

    def ours():
        chain(fg, x, w).sum().backward()
    theirs = None
    if torch is not None:
        tx = torch.tensor(data, requires_grad=True)
        tw = torch.full((16,), 0.9, requires_grad=True)

        def theirs_fn():
            chain(torch, tx, tw).sum().backward()
        theirs = best_time(theirs_fn) / CHAIN
    report(f"chain of {CHAIN} elementwise ops, fwd+bwd, per op", best_time(ours) / CHAIN,
           theirs, target=1.0)


def bench_linear_growth():
    for n in (1_000, 10_000, 100_000, 1_000_000):
        x = fg.tensor(1.0, requires_grad=True)
        y = x
        for _ in range(n):
            y = y * 1.0
        start = time.perf_counter()
        y.backward()
        per_op = (time.perf_counter() - start) / n
        print(f"backward of a {n:>9,}-op chain: {per_op * 1e6:6.2f} us per op", flush=True)
        del y


if __name__ == "__main__":
    torch = torch_or_none()
    bench_chain(torch)
    bench_linear_growth()
