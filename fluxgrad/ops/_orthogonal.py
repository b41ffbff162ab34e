"""The orthogonal polynomials of `torch.special` on NumPy arrays: x and the degree n
broadcast together, n is truncated to an integer and a negative n gives 0. Each follows
PyTorch's kernel branch for branch (so the values agree to rounding): the special values at
|x| == 1, the trigonometric form cos(n acos x) (and its relatives) for |x| < 1 and a degree
above 6 or 8, otherwise the three-term recurrence. The shifted Chebyshev polynomials are the
plain ones at 2x - 1. Computed in float64, returned in the dtype of the operands.
"""
import numpy as np


def _operands(x, n):
    dtype = np.result_type(*[np.asarray(v).dtype for v in (x, n) if isinstance(v, np.ndarray)])
    x, n = np.broadcast_arrays(np.asarray(x, np.float64), np.asarray(n, np.float64))
    return x, np.trunc(n), dtype


def _recurrence(x, n, p0, p1, step):
    """P_n(x) from P_0 = p0, P_1 = p1 and P_{k+1} = step(k, P_k, P_{k-1}) (k >= 1)."""
    out = np.where(n == 0, p0, p1)
    previous, current = p0, p1
    top = int(n.max(initial=0))
    for k in range(1, top):
        previous, current = current, step(k, current, previous)
        out = np.where(n == k + 1, current, out)
    return out


def _result(out, n, dtype):
    return np.where(n < 0, 0.0, out).astype(dtype, copy=False)


def _odd(n):
    return np.fmod(n, 2) != 0


def _chebyshev_recurrence(x, n, p1):
    return _recurrence(x, n, np.ones_like(x), p1, lambda k, p, q: (x + x) * p - q)


def chebyshev_t(x, n):
    x, n, dtype = _operands(x, n)
    with np.errstate(all="ignore"):
        out = _chebyshev_recurrence(x, n, x)
        out = np.where((n > 6) & (np.abs(x) < 1), np.cos(n * np.arccos(x)), out)
        out = np.where(np.abs(x) == 1, np.where((x > 0) | ~_odd(n), 1.0, -1.0), out)
        return _result(out, n, dtype)


def chebyshev_u(x, n):
    x, n, dtype = _operands(x, n)
    with np.errstate(all="ignore"):
        out = _chebyshev_recurrence(x, n, x + x)
        theta = np.arccos(x)
        trig = np.sin((n + 1) * theta) / np.sin(theta)
        out = np.where((n > 8) & (np.abs(x) < 1), trig, out)
        out = np.where(np.abs(x) == 1, np.where((x > 0) | ~_odd(n), n + 1, -(n + 1)), out)
        return _result(out, n, dtype)


def chebyshev_v(x, n):
    x, n, dtype = _operands(x, n)
    with np.errstate(all="ignore"):
        out = _chebyshev_recurrence(x, n, x + x - 1)
        theta = np.arccos(x)
        edge = np.where(_odd(n), -(n + n + 1), n + n + 1)
        trig = np.cos((n + 0.5) * theta) / np.cos(theta / 2)
        out = np.where((n > 8) & (np.abs(x) < 1), trig, out)
        return _result(np.where(np.abs(x) == 1, np.where(x > 0, 1.0, edge), out), n, dtype)


def chebyshev_w(x, n):
    x, n, dtype = _operands(x, n)
    with np.errstate(all="ignore"):
        out = _chebyshev_recurrence(x, n, x + x + 1)
        theta = np.arccos(x)
        edge = np.where(x > 0, n + n + 1, np.where(_odd(n), -1.0, 1.0))
        trig = np.sin((n + 0.5) * theta) / np.sin(theta / 2)
        out = np.where((n > 8) & (np.abs(x) < 1), trig, out)
        return _result(np.where(np.abs(x) == 1, edge, out), n, dtype)


def shifted_chebyshev_t(x, n):
    return chebyshev_t(x * 2 - 1, n)


def shifted_chebyshev_u(x, n):
    return chebyshev_u(x * 2 - 1, n)


def shifted_chebyshev_v(x, n):
    return chebyshev_v(x * 2 - 1, n)


def shifted_chebyshev_w(x, n):
    return chebyshev_w(x * 2 - 1, n)


def hermite_h(x, n):
    x, n, dtype = _operands(x, n)
    with np.errstate(all="ignore"):
        out = _recurrence(x, n, np.ones_like(x), x + x, lambda k, p, q: (x + x) * p - 2 * k * q)
        return _result(out, n, dtype)


def hermite_he(x, n):
    x, n, dtype = _operands(x, n)
    with np.errstate(all="ignore"):
        out = _recurrence(x, n, np.ones_like(x), x, lambda k, p, q: x * p - k * q)
        return _result(out, n, dtype)


def laguerre_l(x, n):
    x, n, dtype = _operands(x, n)
    with np.errstate(all="ignore"):
        out = _recurrence(x, n, np.ones_like(x), 1 - x,
                          lambda k, p, q: ((2 * k + 1 - x) * p - k * q) / (k + 1))
        return _result(np.where(x == 0, 1.0, out), n, dtype)


def legendre_p(x, n):
    x, n, dtype = _operands(x, n)
    with np.errstate(all="ignore"):
        out = _recurrence(x, n, np.ones_like(x), x,
                          lambda k, p, q: ((2 * k + 1) * x * p - k * q) / (k + 1))
        out = np.where(np.abs(x) == 1, np.where((x > 0) | ~_odd(n), 1.0, -1.0), out)
        return _result(out, n, dtype)
