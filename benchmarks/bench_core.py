"""Eager engine overhead: fluxgrad vs PyTorch, single thread, side by side.

    python benchmarks/bench_core.py

1. A forward+backward chain of 200 elementwise ops on 16-element float32
   tensors, per op (target: ratio <= 1.0).
2. A Hessian-vector product of sum(tanh(W x)^2), W 64x64 float64, by double backward
   (grad with create_graph, then grad of <g, v>), against torch's double backward
   (target: ratio <= 1.0); and by `fluxgrad.func.hvp` (forward over reverse) against the
   same torch double backward (target: ratio <= 0.5).
3. Backward time per op for chains of 1e3 .. 1e6 ops (should stay flat: linear growth).

The fluxgrad measured is the checkout this file is in (not an installed one).
"""
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import _common  # noqa: E402,F401  (sets single-thread environment before numpy loads)

import numpy as np  # noqa: E402

import fluxgrad as fg  # noqa: E402
from _common import best_time, interleaved_best_times, report, torch_or_none  # noqa: E402

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
    if torch is None:
        report(f"chain of {CHAIN} elementwise ops, fwd+bwd, per op", best_time(ours) / CHAIN,
               None)
        return
    tx = torch.tensor(data, requires_grad=True)
    tw = torch.full((16,), 0.9, requires_grad=True)

    def theirs():
        chain(torch, tx, tw).sum().backward()
    ours_time, theirs_time = interleaved_best_times(ours, theirs, rounds=300)
    report(f"chain of {CHAIN} elementwise ops, fwd+bwd, per op", ours_time / CHAIN,
           theirs_time / CHAIN, target=1.0)


def bench_double_backward_hvp(torch):
    rng = np.random.default_rng(0)
    W, x, v = rng.standard_normal((64, 64)) / 8, rng.standard_normal(64), rng.standard_normal(64)

    def hvp(lib, W, x, v):
        g, = lib.autograd.grad((lib.tanh(W @ x) ** 2).sum(), x, create_graph=True)
        return lib.autograd.grad((g * v).sum(), x)[0]
    fW, fx, fv = fg.tensor(W), fg.tensor(x, requires_grad=True), fg.tensor(v)

    def func_hvp():
        return fg.func.hvp(lambda t: (fg.tanh(fW @ t) ** 2).sum(), (fx.detach(),), (fv,))
    if torch is None:
        report("HVP by double backward, sum(tanh(W x)^2), W 64x64", best_time(
            lambda: hvp(fg, fW, fx, fv)), None)
        report("HVP by fluxgrad.func.hvp, the same f", best_time(func_hvp), None)
        return
    tW, tx, tv = torch.tensor(W), torch.tensor(x, requires_grad=True), torch.tensor(v)
    ours, by_func, theirs = interleaved_best_times(
        lambda: hvp(fg, fW, fx, fv), func_hvp, lambda: hvp(torch, tW, tx, tv), rounds=300)
    report("HVP by double backward, sum(tanh(W x)^2), W 64x64", ours, theirs, target=1.0)
    report("HVP by fluxgrad.func.hvp vs torch's double backward", by_func, theirs, target=0.5)


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
    bench_double_backward_hvp(torch)
    bench_linear_growth()
