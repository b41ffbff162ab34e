"""Random linear-algebra programs, for any library with PyTorch's API (fluxgrad eager, static or
compiled, and torch itself).

A program starts from one or two float64 inputs (matrices, possibly with batch dimensions) and
applies a chain of steps, each to the last value (and sometimes an input): solve, inv, det,
slogdet, cholesky, qr, svdvals, eigvalsh, matrix and vector norms of every order, pinv,
lstsq, matrix_power, matrix_exp, multi_dot, triangular solves, each on a well-conditioned
matrix made from the value (`_spd`: A Aᵀ + 2I; `_shifted`: A + 3I), and elementwise or shape
steps between them. Steps are drawn against PyTorch itself: a step torch refuses (or whose
result is not finite, or whose value or gradient is 100 times as sensitive as its input) is drawn
again. `run(m, xs)` replays the chain with library `m`;
`loss(m, out)` is the scalar whose derivatives are compared.
"""
import numpy as np
import torch

REFUSALS = (ValueError, RuntimeError, IndexError, TypeError)


def _eye(m, a):
    return m.eye(a.shape[-1], dtype=a.dtype)


def _spd(m, a):
    # (I of a's row count: with one column, I of its column count would broadcast 2 over
    # a rank-one matrix, singular)
    return a @ a.mT / a.shape[-1] + 2 * m.eye(a.shape[-2], dtype=a.dtype)


def _shifted(m, a):
    return a + 3 * _eye(m, a)


def _square(m, a):
    """The last two dims made square (the leading k x k block, or a @ aᵀ)."""
    if a.shape[-1] == a.shape[-2]:
        return a
    return a @ a.mT / a.shape[-1] if a.shape[-2] < a.shape[-1] else a.mT @ a / a.shape[-2]


def _sign_fixed_qr(m, a):
    q, r = m.linalg.qr(a)
    # (each column of q up to sign: R's diagonal made positive, as both libraries may differ)
    s = m.sign(m.diagonal(r, dim1=-2, dim2=-1)).unsqueeze(-2)
    return q * s


STEPS = {
    "solve": lambda m, a, b: m.linalg.solve(_shifted(m, _square(m, a)), _square(m, a)),
    "solve_spd_vec": lambda m, a, b: m.linalg.solve(_spd(m, a), a[..., 0]),
    "inv": lambda m, a, b: m.linalg.inv(_shifted(m, _square(m, a))),
    "inv_spd": lambda m, a, b: m.inverse(_spd(m, a)),
    "det": lambda m, a, b: m.linalg.det(_shifted(m, _square(m, a)))[..., None, None] * a,
    "logdet": lambda m, a, b: m.logdet(_spd(m, a)).unsqueeze(-1).unsqueeze(-1) + a,
    "slogdet": lambda m, a, b: m.linalg.slogdet(_shifted(m, _square(m, a)))[1].unsqueeze(
        -1).unsqueeze(-1) * a,
    "cholesky": lambda m, a, b: m.linalg.cholesky(_spd(m, a)),
    "cholesky_upper": lambda m, a, b: m.linalg.cholesky(_spd(m, a), upper=True),
    "cholesky_solve": lambda m, a, b: m.cholesky_solve(a, m.linalg.cholesky(_spd(m, a))),
    "qr_r": lambda m, a, b: m.linalg.qr(_shifted(m, _square(m, a)))[1].abs(),
    "qr_q": lambda m, a, b: _sign_fixed_qr(m, _shifted(m, _square(m, a))),
    "svdvals": lambda m, a, b: m.linalg.svdvals(_shifted(m, _square(m, a))).unsqueeze(-1) * a,
    "eigvalsh": lambda m, a, b: m.linalg.eigvalsh(_spd(m, a) + m.diag_embed(
        m.arange(a.shape[-2], dtype=a.dtype))),
    "fro": lambda m, a, b: m.linalg.matrix_norm(a).unsqueeze(-1).unsqueeze(-1) + a,
    "nuc": lambda m, a, b: m.linalg.matrix_norm(_shifted(m, _square(m, a)), "nuc").unsqueeze(
        -1).unsqueeze(-1) * a,
    "norm2": lambda m, a, b: m.linalg.matrix_norm(_shifted(m, _square(m, a)), 2).unsqueeze(
        -1).unsqueeze(-1) * a,
    "norm_m2": lambda m, a, b: m.linalg.matrix_norm(_shifted(m, _square(m, a)), -2).unsqueeze(
        -1).unsqueeze(-1) * a,
    "norm_inf": lambda m, a, b: m.linalg.matrix_norm(a, float("inf")).unsqueeze(-1).unsqueeze(
        -1) + a,
    "norm_1": lambda m, a, b: m.linalg.matrix_norm(a, 1).unsqueeze(-1).unsqueeze(-1) + a,
    "vector_norm3": lambda m, a, b: m.linalg.vector_norm(a, 3, dim=-1, keepdim=True) + a,
    "vector_norm_inf": lambda m, a, b: m.linalg.vector_norm(a, float("inf"), dim=(-2, -1)),
    "norm_dim": lambda m, a, b: m.linalg.norm(a, dim=-2) * a,
    "pinv": lambda m, a, b: m.linalg.pinv(a + 2 * m.ones_like(a) * (a.shape[-1] == 1)) if
    a.shape[-1] == a.shape[-2] else m.linalg.pinv(a @ a.mT @ a + a),
    "lstsq": lambda m, a, b: m.linalg.lstsq(_tall(m, a), a[..., :1] if a.ndim == 2 else
                                            _tall(m, a)[..., :1]).solution,
    "matrix_power3": lambda m, a, b: m.linalg.matrix_power(_square(m, a) / 2, 3),
    "matrix_power_m2": lambda m, a, b: m.linalg.matrix_power(_shifted(m, _square(m, a)), -2),
    "matrix_exp": lambda m, a, b: m.linalg.matrix_exp(_square(m, a) / 2),
    "multi_dot": lambda m, a, b: m.linalg.multi_dot([a, a.mT, a]) if a.ndim == 2 else a,
    "solve_triangular": lambda m, a, b: m.linalg.solve_triangular(
        m.linalg.cholesky(_spd(m, a)), a, upper=False),
    "lu_solve": lambda m, a, b: m.linalg.lu_solve(*m.linalg.lu_factor(_shifted(m, _square(
        m, a))), _square(m, a)),
    "with_input": lambda m, a, b: a @ b.mT if a.shape[-1] == b.shape[-1] else a + b.sum(),
    "tanh": lambda m, a, b: m.tanh(a),
    "transpose": lambda m, a, b: a.mT,
    "trace_mix": lambda m, a, b: a * m.diagonal(_square(m, a), dim1=-2, dim2=-1).sum(-1).unsqueeze(
        -1).unsqueeze(-1),
}


def _tall(m, a):
    """a made at least as tall as wide (a stacked on a + I)."""
    if a.shape[-2] >= a.shape[-1]:
        return a + 0.5 * m.ones_like(a)
    return m.cat([a, a.mT @ a / a.shape[-1] + 2 * _eye(m, a)], -2)


def _ill_conditioned(name, a, b, out):
    """Whether a step magnifies a small relative change of its input, in its value or in its
    gradient, 100 times (then the libraries' rounding differences, magnified so, would exceed
    the comparisons' tolerances: near-singular or near-degenerate matrices)."""
    rng = np.random.default_rng(0)
    w = torch.tensor(rng.uniform(-1, 1, tuple(out.shape)))
    delta = 1e-8 * float(a.abs().max()) * torch.tensor(rng.uniform(-1, 1, tuple(a.shape)))
    try:
        (value, grad), (moved, moved_grad) = [_response(name, x, b, w) for x in (a, a + delta)]
    except REFUSALS:
        return True
    return any(float((y - x).abs().max()) > 1e2 * 1e-8 * max(float(x.abs().max()), 1e-3)
               for x, y in ((value, moved), (grad, moved_grad)))


def _response(name, a, b, w):
    a = a.detach().requires_grad_()
    out = STEPS[name](torch, a, b)
    (grad,) = torch.autograd.grad((out * w).sum(), a, allow_unused=True)
    return out.detach(), torch.zeros_like(a) if grad is None else grad


class Program:
    """Inputs and a chain of steps drawn for `seed`."""

    def __init__(self, seed, n_steps=None):
        self.rng = rng = np.random.default_rng(seed)
        batch = tuple(int(d) for d in rng.integers(1, 4, int(rng.choice([0, 0, 1, 2]))))
        n = int(rng.integers(1, 5))
        k = n if rng.random() < .6 else int(rng.integers(1, 5))
        self.arrays = [rng.uniform(-1, 1, batch + (n, k)), rng.uniform(-1, 1, batch + (n, k))]
        self.steps = []
        values = [torch.tensor(a) for a in self.arrays]
        h = values[0]
        for _ in range(int(rng.integers(1, 5)) if n_steps is None else n_steps):
            for _attempt in range(30):
                name = str(rng.choice(list(STEPS)))
                try:
                    out = STEPS[name](torch, h, values[1])
                except REFUSALS:
                    continue
                if out.ndim < 2 or out.numel() > 400 or not bool(torch.isfinite(out).all()) \
                        or out.abs().max() > 1e3 or _ill_conditioned(name, h, values[1], out):
                    continue
                self.steps.append(name)
                h = out
                break
        self.batched = bool(batch)
        # (the same for every example of the first dim: a static program may leave it unknown)
        self.weight = rng.uniform(-1, 1, tuple(h.shape)[1:])

    def run(self, m, xs):
        h = xs[0]
        for name in self.steps:
            h = STEPS[name](m, h, xs[1])
        return h

    def loss(self, m, out):
        return (out * m.tensor(self.weight)).sum()

    def describe(self):
        return f"inputs {[a.shape for a in self.arrays]}: {' -> '.join(self.steps)}"
