"""The gamma family, erfinv and the modified Bessel functions I0, I1 on NumPy arrays, in
float64 (the result takes the input's dtype), with NumPy alone.

- lgamma: `math.lgamma` element by element (exact to float64 rounding; poles give inf).
- digamma: reflection for x < 0, the recurrence psi(x) = psi(x + 1) - 1/x up to x >= 10,
  then the asymptotic series. Poles: -inf at +0, +inf at -0, nan at negative integers
  (as PyTorch).
- polygamma(n, x), n >= 1: (-1)^(n+1) n! zeta(n + 1, x), the Hurwitz zeta summed directly
  up to x + N >= 20 + n and finished by Euler-Maclaurin (10 Bernoulli terms).
- erfinv: Giles' approximation refined by Halley steps on erf (|y| <= 0.5) or Newton
  steps on log erfc (the tails, where 1 - |y| is exact).
- i0: NumPy's; i1: its power series (positive terms) for |x| <= 20, the asymptotic
  expansion of e^x / sqrt(2 pi x) beyond.
- zeta(x, q): the Hurwitz zeta as Cephes (and PyTorch) compute it: the sum up to q + N > 9
  (at least 9 terms), then Euler-Maclaurin (12 terms); inf at x == 1 and at q a non-positive
  integer, nan for x < 1 and for a non-integer x with q <= 0.
- gammainc(a, x) / gammaincc(a, x): the regularized incomplete gamma functions P and Q = 1 - P,
  P by its power series for x < a + 1, Q by its continued fraction (modified Lentz) beyond;
  the edge values (a or x 0, inf, negative) as PyTorch's.
"""
import math

import numpy as np

from . import _special

# B_2k / (2k)!, k = 1..10
_BERNOULLI_OVER_FACTORIAL = [1 / 12, -1 / 720, 1 / 30240, -1 / 1209600, 1 / 47900160,
                             -691 / 1307674368000, 1 / 74724249600,
                             -3617 / 10670622842880000, 43867 / 5109094217170944000,
                             -174611 / 802857662698291200000]
_TWO_OVER_SQRT_PI = 2 / math.sqrt(math.pi)
# B_2k / 2k, k = 1..7 (digamma's asymptotic series)
_DIGAMMA_SERIES = [1 / 12, -1 / 120, 1 / 252, -1 / 240, 1 / 132, -691 / 32760, 1 / 12]


def _float64(x):
    return np.asarray(x, dtype=np.float64)


def _lgamma_scalar(v):
    try:
        return math.lgamma(v)
    except ValueError:  # a pole: 0 or a negative integer
        return math.inf


def lgamma(x):
    out = np.frompyfunc(_lgamma_scalar, 1, 1)(_float64(x))
    return np.asarray(out, dtype=np.float64).astype(x.dtype, copy=False)


def digamma(x):
    v = _float64(x).copy()
    out = np.zeros_like(v)
    reflect = v < 0
    if reflect.any():
        r = v[reflect]
        out[reflect] = -math.pi / np.tan(math.pi * r)
        v[reflect] = 1 - r
    small = v < 10
    while small.any():
        out[small] -= 1 / v[small]
        v[small] += 1
        small = v < 10
    inv2 = 1 / (v * v)
    series = np.zeros_like(v)
    for c in reversed(_DIGAMMA_SERIES):
        series = (series + c) * inv2
    out += np.log(v) - 0.5 / v - series
    xf = _float64(x)
    out = np.where(xf == 0, np.copysign(math.inf, -xf), out)
    out = np.where((xf < 0) & (xf == np.floor(xf)), math.nan, out)
    return out.astype(x.dtype, copy=False)


def polygamma(n, x):
    if n == 0:
        return digamma(x)
    xf = _float64(x)
    s = n + 1.0
    v = xf.copy()
    total = np.zeros_like(v)
    target = 20.0 + n
    low = v < target
    while low.any():
        total[low] += np.power(v[low], -s)
        v[low] += 1
        low = v < target
    # Euler-Maclaurin tail of sum_{k>=0} (v + k)^-s
    tail = np.power(v, 1 - s) / (s - 1) + 0.5 * np.power(v, -s)
    rising = s  # s (s + 1) ... (s + 2j - 2)
    power = np.power(v, -s - 1)
    inv2 = 1 / (v * v)
    for j, c in enumerate(_BERNOULLI_OVER_FACTORIAL, start=1):
        tail += c * rising * power
        rising *= (s + 2 * j - 1) * (s + 2 * j)
        power = power * inv2
    zeta = total + tail
    sign = 1.0 if n % 2 else -1.0
    out = sign * math.factorial(n) * zeta
    pole = (xf <= 0) & (xf == np.floor(xf))
    out = np.where(pole, sign * math.inf, out)
    out = np.where(xf == math.inf, 0.0 if n % 2 else -0.0, out)
    return out.astype(x.dtype, copy=False)


def _giles(y):
    w = -np.log((1 - y) * (1 + y))
    central = w < 5
    wc = w - 2.5
    p = np.full_like(y, 2.81022636e-08)
    for c in (3.43273939e-07, -3.5233877e-06, -4.39150654e-06, 0.00021858087,
              -0.00125372503, -0.00417768164, 0.246640727, 1.50140941):
        p = c + p * wc
    wt = np.sqrt(np.maximum(w, 0)) - 3
    q = np.full_like(y, -0.000200214257)
    for c in (0.000100950558, 0.00134934322, -0.00367342844, 0.00573950773, -0.0076224613,
              0.00943887047, 1.00167406, 2.83297682):
        q = c + q * wt
    return np.where(central, p, q) * y


def erfinv(y):
    yf = _float64(y).reshape(-1)
    a = np.abs(yf)
    t = np.where(a < 1, a, 0.0)
    x = _giles(t)
    central = t <= 0.5
    xc, tc = x[central], t[central]
    for _ in range(2):  # Halley's method on erf(x) = t, from Giles' 1e-7
        r = (_special.erf(xc) - tc) / (np.exp(-xc * xc) * _TWO_OVER_SQRT_PI)
        xc = xc - r / (1 + xc * r)
    x[central] = xc
    tail = ~central
    if tail.any():
        xt, ct = x[tail], 1 - t[tail]  # 1 - t is exact for t >= 0.5
        # Newton on log erfc(x) = log c: it converges from Giles' 10% in the far tail too
        for _ in range(5):
            ec = _special.erfc(xt)
            xt = xt + (np.log(ec) - np.log(ct)) * ec / (np.exp(-xt * xt) * _TWO_OVER_SQRT_PI)
        x[tail] = xt
    out = np.copysign(x, yf)
    out = np.where(a == 1, np.copysign(math.inf, yf), out)
    out = np.where((a > 1) | np.isnan(yf), math.nan, out)
    return out.reshape(np.shape(y)).astype(y.dtype, copy=False)


def i0(x):
    return np.i0(_float64(x)).astype(x.dtype, copy=False)


def i1(x):
    xf = _float64(x)
    a = np.abs(xf)
    small = a <= 20
    h = np.where(small, a, 0.0) / 2
    term = h.copy()
    series = term.copy()
    hh = h * h
    for k in range(1, 60):
        term = term * hh / (k * (k + 1))
        series += term
    big = np.where(small, 21.0, a)
    # I1(x) ~ e^x / sqrt(2 pi x) sum_k (-1)^k a_k(1) / x^k, a_k(1) = prod (4 - (2j-1)^2) / (k! 8^k)
    coeff = 1.0
    asym = np.ones_like(big)
    power = np.ones_like(big)
    for k in range(1, 25):
        coeff *= (4 - (2 * k - 1) ** 2) / (k * 8)
        power = power / big
        asym += coeff * power * (-1) ** k
    with np.errstate(over="ignore", invalid="ignore"):
        asym = asym * (np.exp(big / 2) / np.sqrt(2 * math.pi * big)) * np.exp(big / 2)
    out = np.copysign(np.where(small, series, asym), xf)
    return out.astype(x.dtype, copy=False)


_EPS = np.finfo(np.float64).eps
_ZETA_TAIL = [12.0, -720.0, 30240.0, -1209600.0, 47900160.0, -1.8924375803183791606e9,
              7.47242496e10, -2.950130727918164224e12, 1.1646782814350067249e14,
              -4.5979787224074726105e15, 1.8152105401943546773e17, -7.1661652561756670113e18]


def zeta(x, q):
    dtype = np.result_type(x, q)
    x, q = np.broadcast_arrays(_float64(x), _float64(q))
    with np.errstate(all="ignore"):
        s = q ** -x
        a, b = q.copy(), np.zeros_like(s)
        done = np.zeros(s.shape, bool)  # the sum alone has converged
        step = 0
        while True:
            going = ~done & ((step < 9) | (a <= 9.0))
            if not going.any():
                break
            step += 1
            a = np.where(going, a + 1.0, a)
            b = np.where(going, a ** -x, b)
            s = np.where(going, s + b, s)
            done |= going & (np.abs(b / s) < _EPS)
        w, tail = a, ~done
        s = np.where(tail, s + b * w / (x - 1.0) - 0.5 * b, s)
        rising, k = np.ones_like(s), 0.0
        for c in _ZETA_TAIL:
            rising = rising * (x + k)
            b = b / w
            t = rising * b / c
            s = np.where(tail, s + t, s)
            tail &= ~(np.abs(t / s) < _EPS)
            rising = rising * (x + k + 1.0)
            b = b / w
            k += 2.0
        nonpositive = q <= 0
        s = np.where(nonpositive & (x != np.floor(x)), np.nan, s)
        s = np.where(nonpositive & (q == np.floor(q)), np.inf, s)
        s = np.where(x < 1, np.nan, s)
        s = np.where(x == 1, np.inf, s)
    return s.astype(dtype, copy=False)


def _gamma_prefactor(a, x):
    """x^a e^-x / Gamma(a)."""
    return np.exp(a * np.log(x) - x - lgamma(a))


def _lower_series(a, x):
    """P(a, x) by its power series (for x < a + 1)."""
    ap, term = a.copy(), 1.0 / a
    total = term.copy()
    going = np.ones(a.shape, bool)
    for _ in range(100000):
        ap = ap + 1.0
        term = np.where(going, term * x / ap, 0.0)
        total = total + term
        going &= np.abs(term) >= np.abs(total) * _EPS
        if not going.any():
            break
    return total * _gamma_prefactor(a, x)


def _upper_fraction(a, x):
    """Q(a, x) by its continued fraction (for x >= a + 1), modified Lentz."""
    tiny = 1e-300
    b = x + 1.0 - a
    c = np.full(a.shape, 1.0 / tiny)
    d = 1.0 / b
    h = d.copy()
    going = np.ones(a.shape, bool)
    for i in range(1, 100000):
        an = -i * (i - a)
        b = b + 2.0
        d = an * d + b
        d = np.where(np.abs(d) < tiny, tiny, d)
        c = b + an / c
        c = np.where(np.abs(c) < tiny, tiny, c)
        d = 1.0 / d
        delta = np.where(going, d * c, 1.0)
        h = h * delta
        going &= np.abs(delta - 1.0) >= _EPS
        if not going.any():
            break
    return h * _gamma_prefactor(a, x)


def _incomplete_gamma(a, x, upper):
    dtype = np.result_type(a, x)
    a, x = (np.array(v, dtype=np.float64) for v in np.broadcast_arrays(_float64(a), _float64(x)))
    out = np.full(a.shape, np.nan)
    inner = (a > 0) & (x > 0) & np.isfinite(a) & np.isfinite(x)
    series = inner & (x < a + 1)
    fraction = inner & ~series
    with np.errstate(all="ignore"):
        if series.any():
            p = _lower_series(a[series], x[series])
            out[series] = 1.0 - p if upper else p
        if fraction.any():
            q = _upper_fraction(a[fraction], x[fraction])
            out[fraction] = q if upper else 1.0 - q
    low, high = (1.0, 0.0) if upper else (0.0, 1.0)  # the values at x = 0 and x = inf
    valid = (a >= 0) & (x >= 0)
    out = np.where(valid & (x == 0) & (a > 0), low, out)
    out = np.where(valid & (a == 0) & (x > 0), high, out)
    out = np.where(valid & (x == np.inf) & (a < np.inf), high, out)
    out = np.where(valid & (a == np.inf) & (x < np.inf), low, out)
    return out.astype(dtype, copy=False)


def gammainc(a, x):
    return _incomplete_gamma(a, x, upper=False)


def gammaincc(a, x):
    return _incomplete_gamma(a, x, upper=True)
