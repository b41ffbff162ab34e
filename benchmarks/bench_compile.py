"""fluxgrad.compile vs fluxgrad eager vs raw NumPy vs PyTorch eager, single thread.

    python benchmarks/bench_compile.py

A chain of 200 elementwise ops on float32[16] (40 x `(y * w + 0.5).tanh() - y * 0.25`), per op:
forward only (the compiled function on tensors that don't require grad), and forward +
backward of its sum (the compiled call is one graph node whose backward is compiled code).
The calls alternate (`interleaved_best_times`) so every side sees the same machine load.
Also the one-time cost of tracing, passes and code generation, per equation, and the
per-call overhead of a compiled call over its generated code (1 and 10 arguments).

Then: the same chain on float32[10^6] and [4 * 10^6] (compiled code writes into dead buffers,
`out=`, and runs the chain in cache-sized chunks) against the same eager NumPy calls, beside
the floor of any code made of those NumPy calls (measured here: the compiled code is at the
floor, 1.15x over eager at 10^6 and 1.7x at 4 * 10^6; the 40 tanh calls alone are half of it,
so the issue's 2x is out of reach of NumPy code) and the chain as numexpr calls; the
first-call cost of a training-like program of about 1,000 equations (`func.value_and_grad`
of a 90-layer tanh MLP's loss); the compile time of a `while_loop` and a `scan` of 10 and of
10,000 iterations (`loop_compile_cost`: the same, the loop is one equation); and their run
time per iteration against the same loop in NumPy (`loop_run_time`).

Whether numexpr would beat it (`numexpr_vs_numpy`, when numexpr is installed): measured
here (2 cores), no: 0.3-0.9x of the chunked NumPy code for float32 and float64 from 10^5 to
4 * 10^6 elements on one thread, and on two threads too except float64[4 * 10^6] (1.5x, but
the benchmarks and targets are single-thread); its float32 tanh is ~15x slower than NumPy's.
So the compiler does not use it.

Function transforms compiled (`transforms`): the Hessian of sum(tanh(W x)^2), W 64x64, by
`compile(func.hessian(f))` against torch.func.hessian, and its Hessian-vector product by a
compiled `func.hvp` against torch's double backward.
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
    large_chain(10**6, with_numexpr=True)
    large_chain(4 * 10**6, rounds=8)
    kernel_crossover()
    kernel_compile_time()
    numba_transcendentals()
    numexpr_vs_numpy()
    compile_cost()
    loop_compile_cost()
    loop_run_time()
    per_call_overhead()


def large_chain(size, rounds=25, with_numexpr=False):
    """The chain on float32[size] compiled vs the same eager NumPy calls, and the floor of any
    code made of these NumPy calls: the same 200 calls on one cache-sized chunk, in place,
    repeated size / CHUNK times (no traffic to main memory, no allocation), and within it the
    40 tanh calls alone. numpy / floor is the most buffer reuse and chunking can give.
    `with_numexpr`: also the chain as numexpr calls, when numexpr is installed."""
    from fluxgrad.jit.fusion import CHUNK
    rng = np.random.default_rng(0)
    data, wdata = rng.standard_normal(size).astype(np.float32), np.full(size, 0.9, np.float32)
    x, w = fg.tensor(data), fg.tensor(wdata)
    compiled = fg.compile(chain)
    numba_compiled = fg.compile(chain, backend="numba") if _numba() else None
    y_c, w_c = data[:CHUNK].copy(), wdata[:CHUNK]
    t0, t1 = np.empty_like(y_c), np.empty_like(y_c)
    repeats = size // CHUNK

    def floor(tanh_only=False):
        for _ in range(repeats):
            y = y_c
            for _ in range(CHAIN // 5):
                if tanh_only:
                    np.tanh(y, t0)
                    continue
                np.add(np.multiply(y, w_c, t0), 0.5, t0)
                np.subtract(np.tanh(t0, t0), np.multiply(y, 0.25, t1), t0)
                y = t0 if y is not t0 else t1
    with fg.no_grad():
        compiled(x, w)
        t_compiled, t_numpy, t_floor, t_tanh = interleaved_best_times(
            lambda: compiled(x, w), lambda: chain_numpy(data, wdata), floor,
            lambda: floor(True), rounds=rounds)
    print(f"large chain    float32[{size}], {CHAIN} ops: compiled {t_compiled * 1e3:.1f} ms, "
          f"numpy {t_numpy * 1e3:.1f} ms: compiled is {t_numpy / t_compiled:.2f}x as fast "
          "(buffer reuse, chunks)")
    print(f"{'':<14} floor of these NumPy calls (in cache, in place) {t_floor * 1e3:.1f} ms, "
          f"of which the {CHAIN // 5} tanh {t_tanh * 1e3:.1f} ms: at most "
          f"{t_numpy / t_floor:.2f}x over eager from NumPy code (target 2x), compiled reaches "
          f"{t_floor / t_compiled:.0%} of it")
    if numba_compiled is not None:
        with fg.no_grad():
            numba_compiled(x, w)
            numba_compiled(x, w)  # (compiles the kernels)
            t_kernels, t_compiled, t_numpy = interleaved_best_times(
                lambda: numba_compiled(x, w), lambda: compiled(x, w),
                lambda: chain_numpy(data, wdata), rounds=rounds)
        print(f"{'':<14} backend='numba' (arithmetic as fused kernels, tanh by NumPy) "
              f"{t_kernels * 1e3:.1f} ms: {t_numpy / t_kernels:.2f}x over eager NumPy "
              f"({t_numpy / t_compiled:.2f}x without it; its {CHAIN // 5} tanh calls alone "
              f"{t_tanh * 1e3:.1f} ms: at most {t_numpy / t_tanh:.2f}x)")
    if not with_numexpr:
        return
    try:
        import numexpr
    except ImportError:
        return
    numexpr.set_num_threads(1)
    out = np.empty_like(data)

    def numexpr_chain():
        y = data
        for _ in range(CHAIN // 5):
            y = numexpr.evaluate("tanh(y * w + 0.5) - y * 0.25",
                                 local_dict={"y": y, "w": wdata}, out=out if y is not out else None)
    t_numexpr, t_compiled = interleaved_best_times(numexpr_chain, lambda: compiled(x, w),
                                                   rounds=max(2, rounds // 8))
    print(f"{'':<14} the chain as {CHAIN // 5} numexpr.evaluate calls (one thread): "
          f"{t_numexpr * 1e3:.1f} ms, {t_compiled / t_numexpr:.2f}x the compiled code's speed "
          "(a numexpr backend pays only where this is > 1)")


def _numba():
    from fluxgrad.jit import kernels
    if not kernels.available():
        print("numba is not installed: backend='numba' is not measured")
        return False
    return True


def _arithmetic(x, y):
    return ((x * y + 0.5) * x - y) * 0.25 + x


def _two_ops(x, y):
    return x * y + 0.5


def kernel_crossover(rounds=200):
    """backend='numba' vs the NumPy code compiled for the same arithmetic (a 5-op chain,
    `_arithmetic`, and the smallest group a kernel takes, 2 ops, `_two_ops`), float32, by
    size: where a fused kernel starts to pay (`kernels.MIN_SIZE`, by the group's length;
    measured with it emptied)."""
    if not _numba():
        return
    from fluxgrad.jit import kernels
    saved = kernels.MIN_SIZE
    kernels.MIN_SIZE = {}
    try:
        for fn in (_arithmetic, _two_ops):
            cells = []
            for size in (16, 64, 256, 1024, 4096, 16384, 65536, 262144):
                x, y = (fg.tensor(np.random.default_rng(k).standard_normal(size).astype(
                    np.float32)) for k in range(2))
                plain, fused = fg.compile(fn), fg.compile(fn, backend="numba")
                with fg.no_grad():
                    for _ in range(2):
                        plain(x, y), fused(x, y)
                    assert "_kernel(" in fused.code
                    t_plain, t_fused = interleaved_best_times(lambda: plain(x, y),
                                                              lambda: fused(x, y), rounds=rounds)
                cells.append(f"{size}: {t_plain / t_fused:.2f}x")
            print(f"kernel crossover {fn.__name__} (numba kernel vs NumPy code, > 1: kernel "
                  f"faster): {', '.join(cells)}")
    finally:
        kernels.MIN_SIZE = saved
    print(f"{'':<14} kernels.MIN_SIZE (by equations in the group; more: any size) = {saved}")


def numba_transcendentals(size=10**6, rounds=5):
    """Why kernels leave exp, log and tanh to NumPy: numba's float32 versions (libm's scalar
    functions) against NumPy's (SIMD): the most units in the last place (ulp) they differ by,
    from NumPy's and from PyTorch's results, and their speed."""
    if not _numba():
        return
    import math
    from numba import njit
    torch = torch_or_none()
    rng = np.random.default_rng(0)
    data = {"exp": rng.uniform(-80, 80, size), "log": np.exp(rng.uniform(-80, 80, size)),
            "tanh": rng.standard_normal(size) * 4}

    def ulps(a, b):
        a, b = a.view(np.int32).astype(np.int64), b.view(np.int32).astype(np.int64)
        a, b = (np.where(v < 0, np.int64(-2**31) - v, v) for v in (a, b))
        return int(np.abs(a - b).max())
    for name, values in data.items():
        x = values.astype(np.float32)
        out = np.empty_like(x)
        scalar = getattr(math, name)

        @njit(error_model="numpy")
        def loop(x, out):
            for i in range(x.shape[0]):
                out[i] = scalar(x[i])
        loop(x, out)
        ours = getattr(np, name)(x)
        cells = [f"vs NumPy {ulps(out, ours)} ulp"]
        if torch is not None:
            theirs = getattr(torch, name)(torch.tensor(x)).numpy()
            cells.append(f"vs torch {ulps(out, theirs)} ulp (NumPy vs torch {ulps(ours, theirs)})")
        t_numba, t_numpy = interleaved_best_times(lambda: loop(x, out),
                                                  lambda: getattr(np, name)(x, out), rounds=rounds)
        print(f"numba float32 {name:<5} {', '.join(cells)}; {t_numba / t_numpy:.1f}x NumPy's time")


def kernel_compile_time():
    """The one-time costs of backend='numba' (numba compiles a kernel lazily, at the first run
    of the generated code: not part of tracing's per-equation cost): importing numba and its
    first compilation in a process, then per new kernel compiled, and per kernel loaded from
    the disk cache (a new process, the same kernels)."""
    import os
    import tempfile
    from fluxgrad.jit import kernels
    start = time.perf_counter()
    if not _numba():
        return
    imported = time.perf_counter() - start
    x, y = (fg.tensor(np.ones(8192, np.float32)) for _ in range(2))
    saved = os.environ.get("FLUXGRAD_CACHE_DIR")
    with tempfile.TemporaryDirectory() as directory, fg.no_grad():
        os.environ["FLUXGRAD_CACHE_DIR"] = directory
        try:
            costs = []
            for repeat in range(3):  # the first: numba's own start-up, a new kernel
                kernels._compiled.clear()
                step = repeat if repeat < 2 else 0  # 2: the first kernel, from the disk cache

                def fn(x, y, step=step):
                    return ((x * y + 0.5 + step) * x - y) * 0.25
                compiled = fg.compile(fn, backend="numba")
                compiled(x, y)
                start = time.perf_counter()
                compiled(x, y)
                costs.append(time.perf_counter() - start)
        finally:
            if saved is None:
                del os.environ["FLUXGRAD_CACHE_DIR"]
            else:
                os.environ["FLUXGRAD_CACHE_DIR"] = saved
    print(f"kernel compile import numba {imported * 1e3:.0f} ms; first kernel of the process "
          f"{costs[0] * 1e3:.0f} ms; each new kernel {costs[1] * 1e3:.0f} ms; a kernel from the "
          f"disk cache {costs[2] * 1e3:.0f} ms (lazy: at the first run of the generated code)")


def numexpr_vs_numpy(rounds=7):
    """Whether numexpr (not a dependency) would beat the code the compiler writes for a fused
    elementwise run: one `numexpr.evaluate(..., out=)` against the same 5 ops as in-place
    NumPy ufuncs over cache-sized chunks (`fusion`), per dtype, size and thread count; and,
    for the chain above, how much of eager NumPy's time its 40 tanh calls take alone."""
    try:
        import numexpr
    except ImportError:
        print("numexpr is not installed: the numexpr comparison is skipped")
        return
    from fluxgrad.jit.fusion import CHUNK
    expr = "((a * b + c) * a - b) * c + a"
    print(f"numexpr {numexpr.__version__} vs chunked in-place NumPy, {expr} "
          "(ratio > 1: numexpr faster)")
    for dtype in (np.float32, np.float64):
        for size in (10**5, 10**6, 4 * 10**6):
            a = np.random.default_rng(0).random(size).astype(dtype)
            b, c, out, t = a.copy(), a.copy(), np.empty_like(a), np.empty(CHUNK, dtype)

            def chunked():
                for s in range(0, size, CHUNK):
                    ac, bc, cc, tc = a[s:s + CHUNK], b[s:s + CHUNK], c[s:s + CHUNK], t[:CHUNK]
                    tc = tc[:len(ac)]
                    np.add(np.multiply(np.subtract(np.multiply(np.add(np.multiply(
                        ac, bc, tc), cc, tc), ac, tc), bc, tc), cc, tc), ac, out[s:s + CHUNK])
            ratios = []
            for threads in (1, numexpr.detect_number_of_cores()):
                numexpr.set_num_threads(threads)
                ours, theirs = interleaved_best_times(chunked, lambda: numexpr.evaluate(
                    expr, local_dict={"a": a, "b": b, "c": c}, out=out), rounds=rounds)
                ratios.append(f"{threads} thread(s) {ours / theirs:.2f}x")
            print(f"  {np.dtype(dtype).name}[{size}]: {', '.join(ratios)}")
    numexpr.set_num_threads(1)
    data = np.random.default_rng(0).standard_normal(10**6).astype(np.float32)
    out = np.empty_like(data)
    tanh, whole = interleaved_best_times(lambda: np.tanh(data, out),
                                         lambda: chain_numpy(data, data), rounds=rounds)
    print(f"  float32[10^6] chain: its {CHAIN // 5} tanh calls alone take "
          f"{CHAIN // 5 * tanh / whole:.0%} of eager NumPy's time (the most any reuse of "
          f"buffers can save is the rest)")


def mlp_loss(x, *params):
    h = x
    for k in range(0, len(params) - 2, 2):
        h = (h @ params[k] + params[k + 1]).tanh()
    return ((h @ params[-2] + params[-1]) ** 2).mean()


def compile_cost(layers=90, rounds=5):
    rng = np.random.default_rng(0)
    params = []
    for _ in range(layers):
        params += [fg.tensor(rng.standard_normal((32, 32)).astype(np.float32) * 0.1),
                   fg.tensor(np.zeros(32, np.float32))]
    x = fg.tensor(rng.standard_normal((8, 32)).astype(np.float32))
    argnums = tuple(range(1, len(params) + 1))
    best = cpu = float("inf")
    for _ in range(rounds):
        step = fg.compile(fg.func.value_and_grad(mlp_loss, argnums=argnums))
        start, start_cpu = time.perf_counter(), time.process_time()
        step(x, *params)
        best = min(best, time.perf_counter() - start)
        cpu = min(cpu, time.process_time() - start_cpu)
    n = len(step.program(x, *params).equations)
    traced = step.traces[-1].equations_traced
    print(f"compile cost   value_and_grad of a {layers}-layer MLP: {traced} equations traced, "
          f"{n} after the passes; first call {best * 1e3:.1f} ms wall, {cpu * 1e3:.1f} ms CPU "
          f"({cpu / traced * 1e6:.1f} us CPU per traced equation, best of {rounds})")


def loop_compile_cost(rounds=5):
    """The compile time (first call less its run: trace, passes, code generation, guards) of
    a `static.nn.while_loop` and a `static.nn.scan` of 10 and of 10,000 iterations: the loop
    is one equation either way. (A scan's xs and output buffer grow with its length, and
    staging runs ops on stand-ins of their size: measured 1.3 ms -> 2.7 ms for float32[16]
    steps; the while_loop's values don't grow: 1.0 -> 1.1 ms.)"""
    from fluxgrad.jit import codegen
    from fluxgrad.static import nn
    spent = [0.0]
    first_run = codegen.first_run

    def timed_first_run(*args):
        start = time.perf_counter()
        try:
            return first_run(*args)
        finally:
            spent[0] += time.perf_counter() - start

    def squash(x, n):
        i = fg.zeros((), dtype=fg.int64)
        return nn.while_loop(lambda i, y: i < n, lambda i, y: [i + 1, (y * 0.5 + 1.0).tanh()],
                             [i, x])[1]

    def decay(init, xs):
        return nn.scan(lambda c, x: (c * 0.9 + x, c.sin()), init, xs)
    x, init = fg.tensor(np.ones(16, np.float32)), fg.zeros(16)
    cases = {"while_loop": lambda n: (squash, (x, n)),
             "scan": lambda n: (decay, (init, fg.tensor(np.ones((n, 16), np.float32))))}
    codegen.first_run = timed_first_run
    try:
        for name, case in cases.items():
            best = {}
            for n in (10, 10_000):
                fn, args = case(n)
                for _ in range(rounds):
                    compiled = fg.compile(fn)
                    spent[0] = 0.0
                    start = time.perf_counter()
                    compiled(*args)
                    elapsed = time.perf_counter() - start - spent[0]
                    best[n] = min(best.get(n, elapsed), elapsed)
                eqs = len(compiled.program(*args).equations)
            print(f"loop compile   {name}: {best[10] * 1e3:.2f} ms for 10 iterations, "
                  f"{best[10_000] * 1e3:.2f} ms for 10,000 ({best[10_000] / best[10]:.2f}x; "
                  f"{eqs} equation(s) after the passes)", flush=True)
    finally:
        codegen.first_run = first_run


def loop_run_time(n=10_000, rounds=7):
    """The generated code's run time (the compiled call after the first) of the while_loop
    and the scan of `loop_compile_cost` for `n` iterations on float32[16], per iteration,
    against the same loop written in NumPy. Measured here (shared machine, 10,000
    iterations): 2.7 / 4.8 us per iteration (1.4x / 2.7x NumPy's loop) with the loop bodies
    as generated functions and scan's outputs written into one buffer, from 20.5 / 65 us
    (5.5x / 21x) when the Executor walked the bodies and scan's index_put copied its buffer
    at every step."""
    from fluxgrad.static import nn

    def squash(x, n):
        i = fg.zeros((), dtype=fg.int64)
        return nn.while_loop(lambda i, y: i < n, lambda i, y: [i + 1, (y * 0.5 + 1.0).tanh()],
                             [i, x])[1]

    def squash_numpy(x, n):
        i, y = np.zeros((), np.int64), x
        while i < n:
            i, y = i + 1, np.tanh(y * np.float32(0.5) + np.float32(1.0))
        return y

    def decay(init, xs):
        return nn.scan(lambda c, x: (c * 0.9 + x, c.sin()), init, xs)

    def decay_numpy(init, xs):
        c, ys = init, np.zeros_like(xs)
        for k in range(len(xs)):
            ys[k] = np.sin(c)
            c = c * np.float32(0.9) + xs[k]
        return c, ys
    x = np.ones(16, np.float32)
    xs = np.ones((n, 16), np.float32)
    cases = {"while_loop": (squash, (fg.tensor(x), fg.tensor(n)), squash_numpy, (x, n)),
             "scan": (decay, (fg.zeros(16), fg.tensor(xs)), decay_numpy,
                      (np.zeros(16, np.float32), xs))}
    for name, (fn, args, numpy_fn, numpy_args) in cases.items():
        compiled = fg.compile(fn)
        compiled(*args)
        best = interleaved_best_times(lambda: compiled(*args), lambda: numpy_fn(*numpy_args),
                                      rounds=rounds)
        print(f"loop run       {name}: {best[0] / n * 1e6:.2f} us per iteration compiled, "
              f"{best[1] / n * 1e6:.2f} us in NumPy ({best[0] / best[1]:.2f}x), {n:,} "
              "iterations", flush=True)


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


def transforms():
    """Hessian and Hessian-vector product of f(x) = sum(tanh(W @ x) ** 2), W 64x64, float64:
    `compile(func.hessian(f))` vs torch.func.hessian, and the compiled `func.hvp` vs torch's
    double backward (and fluxgrad's eager transforms)."""
    from _common import report
    from fluxgrad import func
    rng = np.random.default_rng(0)
    W, x, v = rng.standard_normal((64, 64)) / 8, rng.standard_normal(64), rng.standard_normal(64)

    def f(x, W):
        return (fg.tanh(W @ x) ** 2).sum()

    def hvp(x, v, W):
        return func.hvp(lambda t: f(t, W), (x,), (v,))[1]
    fx, fv, fW = fg.tensor(x), fg.tensor(v), fg.tensor(W)
    hessian = fg.compile(func.hessian(f))
    compiled_hvp = fg.compile(hvp)
    np.testing.assert_allclose(hessian(fx, fW).numpy(), func.hessian(f)(fx, fW).numpy(),
                               rtol=1e-10)
    np.testing.assert_allclose(compiled_hvp(fx, fv, fW).numpy(), hvp(fx, fv, fW).numpy(),
                               rtol=1e-10)
    fns = [lambda: hessian(fx, fW), lambda: compiled_hvp(fx, fv, fW),
           lambda: func.hessian(f)(fx, fW), lambda: hvp(fx, fv, fW)]
    torch = torch_or_none()
    if torch is not None:
        tx, tv, tW = torch.tensor(x), torch.tensor(v), torch.tensor(W)

        def tf(t):
            return (torch.tanh(tW @ t) ** 2).sum()

        def double_backward():
            t = tx.detach().requires_grad_()
            gradient, = torch.autograd.grad(tf(t), t, create_graph=True)
            return torch.autograd.grad(gradient, t, tv)[0]
        fns += [lambda: torch.func.hessian(tf)(tx), double_backward]
    best = interleaved_best_times(*fns, rounds=300)
    theirs = best[4:] if torch is not None else (None, None)
    print(f"hessian: {len(hessian.program(fx, fW).equations)} equations, hvp: "
          f"{len(compiled_hvp.program(fx, fv, fW).equations)} equations after the passes")
    report("compile(func.hessian(f)) vs torch.func.hessian", best[0], theirs[0], target=0.15)
    report("compiled func.hvp vs torch double backward", best[1], theirs[1], target=0.5)
    report("compile(func.hessian(f)) vs eager func.hessian", best[0], best[2],
           peer="eager")
    report("compiled func.hvp vs eager func.hvp", best[1], best[3], peer="eager")


if __name__ == "__main__":
    main()
    transforms()
