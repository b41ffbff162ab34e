"""Function transforms: fluxgrad.func vs torch.func, single thread, side by side.

    python benchmarks/bench_transforms.py

Hessian and Hessian-vector product of f(x) = sum(tanh(W @ x) ** 2) with W 64x64, and the
per-sample Jacobian of a 2-layer MLP (32 -> 64 -> 16) for a batch of 128 inputs, both as
vmap(jacrev(mlp)) and with fluxgrad's batched lazy Jacobian (every row in one vectorised
pass), against torch.func's vmap(jacrev). fluxgrad's and torch's calls are interleaved and
the best of each is kept, so that a busy machine slows both sides alike. The Hessian is also
compared with jax.hessian (with and without jit) where jax is installed.
"""
import _common  # noqa: F401  (sets single-thread environment before numpy loads)

import numpy as np

import fluxgrad as fg
from _common import best_time, interleaved_best_times, jax_or_none, report, torch_or_none
from fluxgrad import func

rng = np.random.default_rng(0)
W = rng.standard_normal((64, 64)) / 8
x = rng.standard_normal(64)
v = rng.standard_normal(64)
W1, W2 = rng.standard_normal((64, 32)) / 6, rng.standard_normal((16, 64)) / 8
batch = rng.standard_normal((128, 32))


def f(x, W):
    return (fg.tanh(W @ x) ** 2).sum()


def main():
    torch = torch_or_none()
    fW, fx, fv = fg.tensor(W), fg.tensor(x), fg.tensor(v)
    fW1, fW2, fb = fg.tensor(W1), fg.tensor(W2), fg.tensor(batch)
    ours = [lambda: func.hessian(lambda t: f(t, fW))(fx),
            lambda: func.hvp(lambda t: f(t, fW), (fx,), (fv,)),
            lambda: func.vmap(func.jacrev(lambda b: fg.tanh(b @ fW1.T) @ fW2.T))(fb),
            lambda: fg.autograd.Jacobian(lambda b: fg.tanh(b @ fW1.T) @ fW2.T, fb,
                                         is_batched=True)[:]]
    if torch is None:
        ours_h, ours_hvp, ours_vmap, ours_jac = (best_time(fn) for fn in ours)
        theirs = [None, None, None]
    else:
        tW, tx, tv = torch.tensor(W), torch.tensor(x), torch.tensor(v)
        tW1, tW2, tb = torch.tensor(W1), torch.tensor(W2), torch.tensor(batch)

        def tf(t):
            return (torch.tanh(tW @ t) ** 2).sum()
        per_sample = torch.func.vmap(torch.func.jacrev(lambda b: torch.tanh(b @ tW1.T) @ tW2.T))
        ours_h, ours_hvp, ours_vmap, ours_jac, *theirs = interleaved_best_times(
            *ours, lambda: torch.func.hessian(tf)(tx),
            lambda: torch.func.jvp(torch.func.grad(tf), (tx,), (tv,)),
            lambda: per_sample(tb))
    report("hessian, f = sum(tanh(W x)^2), W 64x64", ours_h, theirs[0], target=1.0)
    report("hessian-vector product of the same f", ours_hvp, theirs[1], target=1.0)
    jax = jax_or_none()
    if jax is not None:
        jW, jx = jax.numpy.asarray(W), jax.numpy.asarray(x)
        jax_hessian = jax.hessian(lambda t: (jax.numpy.tanh(jW @ t) ** 2).sum())
        jitted = jax.jit(jax_hessian)
        jitted(jx).block_until_ready()
        report("  the same hessian vs jax.hessian, no jit", ours_h,
               best_time(lambda: jax_hessian(jx).block_until_ready(), repeat=3), peer="jax")
        report("  the same hessian vs jax.jit(jax.hessian)", ours_h,
               best_time(lambda: jitted(jx).block_until_ready()), peer="jax")
    report("vmap(jacrev(MLP 32-64-16)), batch 128", ours_vmap, theirs[2], target=1.0)
    report("lazy batched Jacobian of the same MLP", ours_jac, theirs[2], target=1.0)


if __name__ == "__main__":
    main()
