"""Random complex programs, for any library with PyTorch's API (fluxgrad eager, static or
compiled, and torch itself).

A program has three leaves of one shape (batch dims, then n x n): real `x` and `y` (float64)
and a complex `c` (complex64 or complex128). It builds a complex value from x and y
(`complex`, `polar` or `view_as_complex`), then applies a chain of steps to it (and to `c`):
elementwise ops (add, mul, div, exp, log, sqrt, abs and angle, conj, reciprocal, pow, sin,
tanh), matmul and einsum, fft/ifft/rfft/irfft, sum and mean, and reads and writes of `.real` and
`.imag`, and ends in a real loss. Steps are drawn against PyTorch itself: a step torch refuses,
whose result is not finite or too large, or which magnifies a small change of its input 100
times (near a pole, a branch cut or 0), is drawn again. `run(m, x, y, c)` replays it with library
`m`; `loss(m, out)` is the real scalar whose derivatives are compared.
"""
import numpy as np
import torch

REFUSALS = (ValueError, RuntimeError, IndexError, TypeError)


def _real_write(m, h):
    out = h.clone()
    out.real.mul_(2)  # a write through the .real view
    return out


def _imag_write(m, h):
    out = h * 1
    out.imag[..., 0] = out.real[..., -1] * 0.5  # an indexed write through the .imag view
    return out


STEPS = {
    "add": lambda m, h, c: h + c,
    "mul": lambda m, h, c: h * c,
    "div": lambda m, h, c: h / (c + 2.5),
    "exp": lambda m, h, c: m.exp(h * 0.5),
    "log": lambda m, h, c: m.log(h),
    "sqrt": lambda m, h, c: m.sqrt(h),
    "abs_angle": lambda m, h, c: m.polar(h.abs(), h.angle() * 0.5),
    "abs_real": lambda m, h, c: h.abs() + c,
    "conj": lambda m, h, c: h.conj() * c,
    "reciprocal": lambda m, h, c: (h + 2).reciprocal(),
    "pow_scalar": lambda m, h, c: h ** 2,
    "pow_complex": lambda m, h, c: (h + 2) ** (c * 0.5),
    "sin": lambda m, h, c: m.sin(h),
    "tanh": lambda m, h, c: m.tanh(h),
    "matmul": lambda m, h, c: h @ c / h.shape[-1],
    "einsum": lambda m, h, c: m.einsum("...ij,...kj->...ik", h, c.conj()) / h.shape[-1],
    "fft": lambda m, h, c: m.fft.fft(h, dim=-1, norm="ortho"),
    "ifft": lambda m, h, c: m.fft.ifft(h, dim=-2) if h.ndim > 1 else m.fft.ifft(h),
    "rfft": lambda m, h, c: m.fft.rfft(h.real, dim=-1)[..., :1] + h,
    "irfft": lambda m, h, c: m.complex(m.fft.irfft(h, n=h.shape[-1]), h.imag),
    "sum": lambda m, h, c: h - h.sum(-1, keepdim=True) / 2,
    "mean": lambda m, h, c: h * h.mean(),
    "parts": lambda m, h, c: m.complex(h.imag, h.real * 2),
    "view_as_real": lambda m, h, c: m.view_as_complex(
        (m.view_as_real(h) * m.view_as_real(c)).contiguous()),
    "real_write": _real_write,
    "imag_write": _imag_write,
}

MAKE = {
    "complex": lambda m, x, y, dtype: m.complex(x.to(_real_of(m, dtype)), y.to(_real_of(
        m, dtype))),
    "polar": lambda m, x, y, dtype: m.polar(x.abs().to(_real_of(m, dtype)) + 0.5,
                                            y.to(_real_of(m, dtype)) * 3),
    "view_as_complex": lambda m, x, y, dtype: m.view_as_complex(
        m.stack([x * y, y - x], -1).to(_real_of(m, dtype))),
}

LOSSES = {
    "real_imag": lambda m, out, w: (out.real * w).sum() + (out.imag * w.flip(-1)).sum(),
    "abs2": lambda m, out, w: (out.abs() ** 2 * w).sum(),
    "abs": lambda m, out, w: (out.abs() * w).sum(),
    "angle_mix": lambda m, out, w: (m.view_as_real(out)[..., 0] * w).sum() + out.imag.mean(),
}


def _real_of(m, dtype):
    return m.float32 if dtype == "complex64" else m.float64


class Program:
    """Leaves, a construction, a chain of steps and a loss drawn for `seed`."""

    def __init__(self, seed, n_steps=None):
        self.rng = rng = np.random.default_rng(seed)
        self.dtype = str(rng.choice(["complex128", "complex128", "complex64"]))
        batch = tuple(int(d) for d in rng.integers(1, 3, int(rng.choice([0, 0, 1]))))
        n = int(rng.integers(1, 4))
        shape = batch + (n, n)
        self.x = rng.uniform(-1, 1, shape)
        self.y = rng.uniform(-1, 1, shape)
        self.c = (rng.uniform(-1, 1, shape) + 1j * rng.uniform(-1, 1, shape)).astype(self.dtype)
        self.make = str(rng.choice(list(MAKE)))
        self.loss_name = str(rng.choice(list(LOSSES)))
        self.w = rng.uniform(-1, 1, shape[-1:])
        x, y, c = torch.tensor(self.x), torch.tensor(self.y), torch.tensor(self.c)
        h = MAKE[self.make](torch, x, y, self.dtype)
        self.steps = []
        for _ in range(int(rng.integers(1, 5)) if n_steps is None else n_steps):
            for _attempt in range(30):
                name = str(rng.choice(list(STEPS)))
                try:
                    out = STEPS[name](torch, h, c)
                except REFUSALS:
                    continue
                if out.shape != h.shape or out.dtype != h.dtype or not bool(
                        torch.isfinite(out).all()) or out.abs().max() > 1e2 or \
                        _ill_conditioned(name, h, c, out):
                    continue
                self.steps.append(name)
                h = out
                break

    def run(self, m, x, y, c):
        h = MAKE[self.make](m, x, y, self.dtype)
        for name in self.steps:
            h = STEPS[name](m, h, c)
        return h

    def loss(self, m, out):
        return LOSSES[self.loss_name](m, out, m.tensor(self.w).to(out.real.dtype))

    def describe(self):
        return (f"{self.dtype} {self.x.shape}: {self.make} -> {' -> '.join(self.steps)}, "
                f"loss {self.loss_name}")


def _ill_conditioned(name, h, c, out):
    """Whether a step magnifies a small relative change of its input 100 times (in
    complex128: the check is of the step, not of the dtype's rounding)."""
    h, c = h.to(torch.complex128), c.to(torch.complex128)
    rng = np.random.default_rng(0)
    delta = 1e-8 * float(h.abs().max()) * torch.tensor(
        rng.uniform(-1, 1, tuple(h.shape)) + 1j * rng.uniform(-1, 1, tuple(h.shape)))
    value, moved = STEPS[name](torch, h, c), STEPS[name](torch, h + delta, c)
    return float((moved - value).abs().max()) > 1e2 * 1e-8 * max(float(value.abs().max()), 1e-3)
