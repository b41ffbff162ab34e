"""Static mode: the Executor's cost per equation, and a static training step against the
eager one. Ratios are printed, not asserted.

    python benchmarks/bench_static.py

1. A chain of 300 elementwise equations on 16-element float64 arrays: one Executor run
   against the same NumPy calls written out by hand; the difference per equation is the
   Executor's overhead (target: at most 1.5 us above the NumPy call).
2. One training step of an MLP 64-128-128-10 (tanh, MSE, Adam) at batch 32: exe.run of the
   minimized program against fluxgrad's eager forward + backward + step (target: the
   static step no slower, ratio <= 1.0).
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from _common import interleaved_best_times  # noqa: E402

import numpy as np  # noqa: E402

import fluxgrad as fg  # noqa: E402
from fluxgrad import static  # noqa: E402

N_EQ = 300


def chain_numpy(x):
    for k in range(N_EQ // 3):
        x = np.sin(x)
        x = np.multiply(x, 1.5)
        x = np.add(x, 0.25)
    return x


def executor_per_equation():
    fg.enable_static()
    main = static.Program()
    with static.program_guard(main, static.Program()):
        x = static.data('x', shape=[16], dtype='float64')
        y = x
        for k in range(N_EQ // 3):
            y = fg.sin(y)
            y = y * 1.5
            y = y + 0.25
    fg.disable_static()
    assert len(main.equations) == N_EQ, len(main.equations)
    exe = static.Executor()
    xv = np.linspace(-1, 1, 16)
    feed = {'x': xv}
    np.testing.assert_allclose(exe.run(main, feed=feed, fetch_list=[y])[0], chain_numpy(xv))
    t_exe, t_np = interleaved_best_times(lambda: exe.run(main, feed=feed, fetch_list=[y]),
                                         lambda: chain_numpy(xv), rounds=300)
    over = (t_exe - t_np) / N_EQ
    print(f"Executor, {N_EQ} equations on 16 elements: {t_exe * 1e6:8.1f} us   NumPy calls "
          f"{t_np * 1e6:8.1f} us   ratio {t_exe / t_np:5.2f}x   overhead per equation "
          f"{over * 1e6:5.2f} us  (target <= 1.5 us: {'met' if over <= 1.5e-6 else 'NOT met'})")


def mlp():
    return fg.nn.Sequential(fg.nn.Linear(64, 128), fg.nn.Tanh(), fg.nn.Linear(128, 128),
                            fg.nn.Tanh(), fg.nn.Linear(128, 10))


def training_step():
    rng = np.random.default_rng(0)
    xv = rng.standard_normal((32, 64)).astype(np.float32)
    tv = rng.standard_normal((32, 10)).astype(np.float32)
    eager = mlp()
    net = mlp()
    net.load_state_dict(eager.state_dict())
    fg.enable_static()
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        x = static.data('x', shape=[None, 64], dtype='float32')
        t = static.data('t', shape=[None, 10], dtype='float32')
        loss = ((net(x) - t) ** 2).mean()
        fg.optim.Adam(1e-3).minimize(loss)
    fg.disable_static()
    exe = static.Executor()
    exe.run(startup)
    opt = fg.optim.Adam(eager.parameters(), lr=1e-3)
    xt, tt = fg.tensor(xv), fg.tensor(tv)

    def eager_step():
        opt.zero_grad()
        out = ((eager(xt) - tt) ** 2).mean()
        out.backward()
        opt.step()

    feed = {'x': xv, 't': tv}
    t_static, t_eager = interleaved_best_times(
        lambda: exe.run(main, feed=feed, fetch_list=[loss]), eager_step, rounds=200)
    print(f"MLP 64-128-128-10 Adam step, batch 32: static {t_static * 1e6:8.1f} us   eager "
          f"{t_eager * 1e6:8.1f} us   ratio {t_static / t_eager:5.2f}x  (target <= 1.0x: "
          f"{'met' if t_static <= t_eager else 'NOT met'}); {len(main.equations)} equations")
    pruned = static.passes.optimize(main, [loss])
    t_opt, t_eager = interleaved_best_times(
        lambda: exe.run(pruned, feed=feed, fetch_list=[loss]), eager_step, rounds=200)
    print(f"  after passes.optimize ({len(pruned.equations)} equations): static "
          f"{t_opt * 1e6:8.1f} us   eager {t_eager * 1e6:8.1f} us   ratio "
          f"{t_opt / t_eager:5.2f}x")


if __name__ == "__main__":
    executor_per_equation()
    training_step()
