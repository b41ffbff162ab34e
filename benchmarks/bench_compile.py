"""fluxgrad.compile vs fluxgrad eager vs raw NumPy vs PyTorch eager, single thread.

    python benchmarks/bench_compile.py

A chain of 200 elementwise ops on float32[16] (40 x `(y * w + 0.5).tanh() - y * 0.25`), per op:
forward only (the compiled function on tensors that don't require grad), and forward +
backward of its sum (the compiled call is one graph node whose backward is compiled code).
The calls alternate (`interleaved_best_times`) so every side sees the same machine load.
Also the one-time cost of tracing, passes and code generation, per equation, and the
per-call overhead of a compiled call over its generated code (1 and 10 arguments).
"""
import _common  # noqa: F401  (sets single-thread environment before numpy loads)
import time

import numpy as np

import fluxgrad as fg
from _common import interleaved_best_times, torch_or_none

CHAIN = 200


def chain(y, w):
    for _ in range(CHAIN // 5):
        y = (y * w + 0.5).tanh() - y * 0.25
    return y


def chain_numpy(y, w):
    for _ in range(CHAIN // 5):
        y = np.tanh(y * w + np.float32(0.5)) - y * np.float32(0.25)
    return y


def loss(y, w):
    return chain(y, w).sum()


def line(name, times, base):
    cells = "   ".join(f"{k} {t / CHAIN * 1e6:6.3f} us/op ({t / times[base]:5.2f}x)"
                       for k, t in times.items() if t is not None)
    print(f"{name:<14} {cells}   [ratios vs {base}]", flush=True)


def main():
    torch = torch_or_none()
    data = np.random.default_rng(0).standard_normal(16).astype(np.float32)
    wdata = np.full(16, 0.9, np.float32)
    x, w = fg.tensor(data), fg.tensor(wdata)
    compiled = fg.compile(chain)
    start = time.perf_counter()
    compiled(x, w)
    first = time.perf_counter() - start
    eqs = compiled.program(x, w).equations
    print(f"trace + passes + codegen + first run: {first * 1e3:.1f} ms for {len(eqs)} equations "
          f"({first / max(len(eqs), 1) * 1e6:.1f} us per equation)")

    fns = {"compiled": lambda: compiled(x, w), "eager": lambda: chain(x, w),
           "numpy": lambda: chain_numpy(data, wdata)}
    if torch is not None:
        tx, tw = torch.tensor(data), torch.tensor(wdata)
        fns["torch"] = lambda: chain(tx, tw)
    with fg.no_grad():
        best = interleaved_best_times(*fns.values(), rounds=300)
    times = dict(zip(fns, best))
    line("forward", times, "torch" if torch is not None else "eager")
    print(f"{'':<14} compiled / numpy = {times['compiled'] / times['numpy']:.2f}x; "
          f"compiled - numpy = {(times['compiled'] - times['numpy']) / CHAIN * 1e6:.3f} us/op")

    xg, wg = fg.tensor(data, requires_grad=True), fg.tensor(wdata, requires_grad=True)
    compiled_loss = fg.compile(loss)
    compiled_loss(xg, wg).backward()

    def run_compiled():
        xg.grad = wg.grad = None
        compiled_loss(xg, wg).backward()

    def run_eager():
        xg.grad = wg.grad = None
        loss(xg, wg).backward()
    fns = {"compiled": run_compiled, "eager": run_eager}
    if torch is not None:
        txg, twg = torch.tensor(data, requires_grad=True), torch.tensor(wdata, requires_grad=True)

        def run_torch():
            txg.grad = twg.grad = None
            loss(txg, twg).backward()
        fns["torch"] = run_torch
    best = interleaved_best_times(*fns.values(), rounds=300)
    line("fwd+bwd", dict(zip(fns, best)), "torch" if torch is not None else "eager")
    per_call_overhead()


def per_call_overhead(calls=2000):
    """A compiled call's cost beyond its generated code (guards, argument flattening,
    wrapping the result): `x0 + 1` of 1 or 10 float32[4] arguments, vs the generated function
    called on the arrays."""
    print("per-call overhead (compiled call - its generated function on the arrays)")
    for n in (1, 10):
        tensors = [fg.tensor(np.ones(4, np.float32)) for _ in range(n)]
        arrays = [t.numpy() for t in tensors]
        compiled = fg.compile(lambda *xs: xs[0] + 1)
        compiled(*tensors)
        raw = next(iter(compiled._entries.values())).forward

        def run_compiled():
            for _ in range(calls):
                compiled(*tensors)

        def run_raw():
            for _ in range(calls):
                raw(*arrays)
        with fg.no_grad():
            t_compiled, t_raw = interleaved_best_times(run_compiled, run_raw, rounds=30)
        print(f"  {n:2d} args: compiled {t_compiled / calls * 1e6:6.3f} us, generated "
              f"{t_raw / calls * 1e6:6.3f} us, overhead {(t_compiled - t_raw) / calls * 1e6:6.3f}"
              " us per call (target <= 2 us)", flush=True)


if __name__ == "__main__":
    main()
