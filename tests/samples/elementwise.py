"""Samples for the elementwise ops (fluxgrad/ops/elementwise.py) and the in-place methods
(fluxgrad/ops/inplace.py).

Inputs respect each op's domain (log: positive, asin: inside (-1, 1), ...) and stay
away from discontinuities and kinks (|x| at 0, rounding at integers, remainder where
x / y is an integer, clamp at its bounds) except where the op is smooth across a
whole neighbourhood (maximum(x, x) is a tie everywhere). erf and erfc get arrays of
more than 512 elements too, which take the vectorised path.
"""
import numpy as np

import fluxgrad as fg
from fluxgrad._core.dispatch import apply
from fluxgrad.ops.elementwise import cast_p
from fluxgrad.ops.inplace import fill

from . import Sample, away_from, normal, positive, rng

SHAPES = [(3, 4), (), (1,), (2, 1, 3)]
PAIRS = [((3, 4), (3, 4)), ((2, 3, 4), (4,)), ((3, 1), (1, 4)), ((), (3,)), ((2, 3), ())]


def uniform(low, high, *shape, seed=0):
    return rng(seed).uniform(low, high, shape)


def _torch(name):
    def fn(*args):
        import torch
        return getattr(torch, name)(*args)
    return fn


def _constant(value):
    """`value` as a float64 torch tensor (for torch functions that take no Python scalar)."""
    import torch
    return torch.tensor(value, dtype=torch.float64)


# --- unary ops ------------------------------------------------------------------------
UNARY = [  # (op, inputs of a given shape)
    ("exp", lambda *s: normal(*s)),
    ("exp2", lambda *s: normal(*s)),
    ("expm1", lambda *s: normal(*s)),
    ("log", lambda *s: positive(*s)),
    ("log2", lambda *s: positive(*s)),
    ("log10", lambda *s: positive(*s)),
    ("log1p", lambda *s: uniform(-0.6, 2.0, *s)),
    ("sqrt", lambda *s: positive(*s)),
    ("rsqrt", lambda *s: positive(*s)),
    ("reciprocal", lambda *s: away_from(normal(*s), [0], 0.3)),
    ("sin", lambda *s: normal(*s) * 2),
    ("cos", lambda *s: normal(*s) * 2),
    ("tan", lambda *s: uniform(-1.2, 1.2, *s)),
    ("asin", lambda *s: uniform(-0.8, 0.8, *s)),
    ("acos", lambda *s: uniform(-0.8, 0.8, *s)),
    ("atan", lambda *s: normal(*s) * 2),
    ("sinh", lambda *s: normal(*s)),
    ("cosh", lambda *s: normal(*s)),
    ("tanh", lambda *s: normal(*s)),
    ("asinh", lambda *s: normal(*s) * 2),
    ("acosh", lambda *s: uniform(1.2, 3.0, *s)),
    ("atanh", lambda *s: uniform(-0.8, 0.8, *s)),
    ("erf", lambda *s: normal(*s) * 1.5),
    ("erfc", lambda *s: normal(*s) * 1.5),
    ("abs", lambda *s: away_from(normal(*s), [0])),
    ("neg", lambda *s: normal(*s)),
]


def _unary_samples():
    samples = []
    for op, make in UNARY:
        name = {"neg": "negative"}.get(op, op)
        for shape in SHAPES:
            samples.append(Sample(op, getattr(fg, name), [make(*shape)], _torch(name)))
        samples.append(Sample(op, lambda x, n=name: getattr(x, n)(), [make(5)],
                              lambda x, n=name: getattr(x, n)()))
    wide = normal(24, 25, seed=3) * 3  # 600 elements: the vectorised erf
    wide[0, :5] = [0.0, 0.3, -0.49, 6.7, -7.5]
    for op in ("erf", "erfc"):
        samples.append(Sample(op, getattr(fg, op), [wide], _torch(op)))
    samples += [
        Sample("exp", lambda x: fg.exp(x) * x.exp(), [normal(4)],
               lambda x: x.exp() * x.exp()),
        Sample("log", lambda x: fg.log(fg.exp(x) + x * x), [normal(3, 2)],
               lambda x: (x.exp() + x * x).log()),
        Sample("abs", abs, [away_from(normal(2, 3), [0])], abs),
        Sample("neg", lambda x: -x, [normal(2, 3)], lambda x: -x),
        Sample("mul", fg.square, [normal(2, 3)], lambda x: x.square()),
        Sample("asin", fg.arcsin, [uniform(-0.9, 0.9, 4)], _torch("arcsin")),
    ]
    return samples


# --- rounding and sign: zero gradient ----------------------------------------------------------
def _rounding_samples():
    x = away_from(normal(3, 4) * 3, range(-12, 13), 0.1)
    half = away_from(normal(3, 4) * 3, np.arange(-12.5, 13), 0.1)
    tenths = away_from(normal(3, 4), np.arange(-50, 51) / 10 + 0.05, 0.02)
    samples = []
    for op in ("floor", "ceil", "trunc"):
        samples += [Sample(op, getattr(fg, op), [x], _torch(op)),
                    Sample(op, lambda x, op=op: getattr(fg, op)(x) * x, [x],
                           lambda x, op=op: getattr(x, op)() * x)]
    samples += [
        Sample("round", fg.round, [half], _torch("round")),
        Sample("round", lambda x: fg.round(x) * x, [half], lambda x: x.round() * x),
        Sample("round", lambda x: x.round(decimals=1) * x, [tenths],
               lambda x: x.round(decimals=1) * x),
        Sample("trunc", lambda x: x.frac(), [x], lambda x: x.frac()),
        Sample("sign", fg.sign, [away_from(normal(3, 4), [0])], _torch("sign")),
        Sample("sign", lambda x: fg.sign(x) * x * x, [away_from(normal(5), [0])],
               lambda x: x.sign() * x * x),
        Sample("sign", fg.sign, [np.array(-0.7)], _torch("sign")),
    ]
    return samples


# --- binary arithmetic ---------------------------------------------------------------------------
def _pairs(op, fn, torch_fn, make_x=normal, make_y=normal):
    return [Sample(op, fn, [make_x(*sx, seed=1), make_y(*sy, seed=2)], torch_fn)
            for sx, sy in PAIRS]


def _nonzero(*shape, seed=0):
    return away_from(normal(*shape, seed=seed), [0], 0.4)


def _positive(*shape, seed=0):
    return positive(*shape, seed=seed)


def _modulus_args(shape_x, shape_y, signed, seed):
    """x (of the broadcast shape) and y with x / y = k + f, f in [0.2, 0.8]: away from the
    jumps of the modulus."""
    y = positive(*shape_y, seed=seed)
    if signed:
        y = y * np.where(rng(seed + 1).random(shape_y) < 0.5, -1, 1)
    q = rng(seed + 2).integers(-3, 4, shape_x) + rng(seed + 3).uniform(0.2, 0.8, shape_x)
    return q * y, y


_ZERO_BASE = fg.tensor([0.0, 0.0, 1.5], dtype=fg.float64)


def _arithmetic_samples():
    samples = []
    samples += _pairs("add", fg.add, _torch("add"))
    samples += _pairs("sub", fg.subtract, _torch("subtract"))
    samples += _pairs("mul", fg.multiply, _torch("multiply"))
    samples += _pairs("div", fg.divide, _torch("divide"), make_y=_nonzero)
    samples += _pairs("pow", fg.pow, _torch("pow"), make_x=_positive)
    samples += _pairs("atan2", fg.atan2, _torch("atan2"), make_y=_nonzero)
    samples += _pairs("logaddexp", fg.logaddexp, _torch("logaddexp"))
    samples += _pairs("copysign", fg.copysign, _torch("copysign"), make_x=_nonzero,
                      make_y=_nonzero)
    x, y = normal(3, 4, seed=1), normal(3, 4, seed=2)
    samples += [
        Sample("add", lambda x: x + 2.5, [x], lambda x: x + 2.5),
        Sample("add", lambda x: 2 + x, [x], lambda x: 2 + x),
        Sample("add", lambda x, y: fg.add(x, y, alpha=-0.5), [x, y],
               lambda x, y: x.add(y, alpha=-0.5)),
        Sample("sub", lambda x: 1.5 - x, [x], lambda x: 1.5 - x),
        Sample("sub", lambda x, y: x.sub(y, alpha=3), [x, y], lambda x, y: x.sub(y, alpha=3)),
        Sample("mul", lambda x: x * 3, [x], lambda x: x * 3),
        Sample("mul", lambda x: x * x, [x], lambda x: x * x),
        Sample("div", lambda x: x / 4, [x], lambda x: x / 4),
        Sample("div", lambda x: 2 / x, [_nonzero(3, 4)], lambda x: 2 / x),
        Sample("mul", lambda x, y, z: fg.addcmul(x, y, z, value=0.5), [x, y, normal(4)],
               lambda x, y, z: x.addcmul(y, z, value=0.5)),
        Sample("div", lambda x, y, z: x.addcdiv(y, z, value=-2), [x, y, _nonzero(4)],
               lambda x, y, z: x.addcdiv(y, z, value=-2)),
        Sample("pow", lambda x: x ** 2, [x], lambda x: x ** 2),
        Sample("pow", lambda x: x ** 3, [x], lambda x: x ** 3),
        Sample("pow", lambda x: x ** 0.5, [positive(3, 4)], lambda x: x ** 0.5),
        Sample("pow", lambda x: x ** -1.5, [positive(3, 4)], lambda x: x ** -1.5),
        Sample("pow", lambda x: x ** 0 * x, [np.array([0.0, 1.5, -2.0])],
               lambda x: x ** 0 * x),
        Sample("pow", lambda x: 2 ** x, [x], lambda x: 2 ** x),
        Sample("pow", lambda x: 0.5 ** x, [np.array(0.3)], lambda x: 0.5 ** x),
        # 0 ** y: PyTorch's second derivative is nan there, ours 0 like the function
        Sample("pow", lambda y: _ZERO_BASE ** y, [positive(3, seed=4)],
               lambda y: _constant(_ZERO_BASE.tolist()) ** y, second_order=False),
        Sample("pow", lambda y: _ZERO_BASE ** y, [positive(3, seed=4)]),
        Sample("logaddexp", fg.logaddexp, [normal(5) + 800, normal(5, seed=3) + 801],
               _torch("logaddexp")),
        Sample("atan2", lambda x: fg.atan2(x, 0.5), [x], lambda x: x.atan2(_constant(0.5))),
    ]
    for shapes in [((3, 4), (3, 4)), ((2, 3), (3,)), ((2, 3), ())]:
        for op, torch_name in (("remainder", "remainder"), ("fmod", "fmod")):
            a, b = _modulus_args(*shapes, signed=op == "fmod", seed=5)
            samples.append(Sample(op, getattr(fg, op), [a, b], _torch(torch_name)))
    a, b = _modulus_args((3, 4), (), signed=False, seed=7)
    samples += [Sample("remainder", lambda x: x % float(b), [a], lambda x: x % float(b)),
                Sample("fmod", lambda x: x.fmod(-float(b)), [a], lambda x: x.fmod(-float(b)))]
    return samples


# --- selection: maximum, minimum, where, clamp, lerp ---------------------------------------------
def _selection_samples():
    samples = []
    for op in ("maximum", "minimum"):
        samples += _pairs(op, getattr(fg, op), _torch(op))
        samples += [
            Sample(op, lambda x, op=op: getattr(fg, op)(x, x), [normal(3)],
                   lambda x, op=op: getattr(x, op)(x)),
        ]
    cond = rng(4).random((3, 4)) > 0.5
    for sx, sy in [((3, 4), (3, 4)), ((3, 1), (4,)), ((), (3, 4))]:
        samples.append(Sample("where", lambda x, y: fg.where(fg.tensor(cond), x, y),
                              [normal(*sx, seed=1), normal(*sy, seed=2)],
                              lambda x, y: _torch("where")(_constant(cond).bool(), x, y)))
    samples.append(Sample("where", lambda x: fg.where(cond, x, 0.0), [normal(3, 4)],
                          lambda x: x.where(_constant(cond).bool(), 0.0)))
    samples += _clamp_samples()
    samples += _lerp_samples()
    return samples


def _clamp_samples():
    x = away_from(normal(3, 4, seed=1), [-0.5, 0.7], 0.05)
    lo = normal(3, 4, seed=2) - 0.5
    hi = lo + positive(3, 4, seed=3)
    # below, inside and above [lo, hi], at least 0.05 from either bound
    x_t = lo + (hi - lo) * away_from(uniform(-0.5, 1.5, 3, 4, seed=4), [0, 1], 0.1)
    crossed_lo, crossed_hi = hi, lo  # lo > hi: the result is hi everywhere
    return [
        Sample("clamp", lambda x: fg.clamp(x, -0.5, 0.7), [x], lambda x: x.clamp(-0.5, 0.7)),
        Sample("clamp", lambda x: x.clamp(min=-0.5), [x], lambda x: x.clamp(min=-0.5)),
        Sample("clamp", lambda x: x.clip(max=0.7), [x], lambda x: x.clip(max=0.7)),
        Sample("clamp", lambda x: fg.clamp(x, 0.7, -0.5), [x], lambda x: x.clamp(0.7, -0.5)),
        Sample("clamp", lambda x: fg.clamp_min(x, 0.0) * x, [away_from(x, [0])],
               lambda x: x.clamp_min(0.0) * x),
        Sample("clamp", fg.clamp, [x_t, lo, hi], _torch("clamp")),
        Sample("clamp", lambda x, lo: fg.clamp(x, lo), [x_t, lo],
               lambda x, lo: x.clamp(min=lo)),
        Sample("clamp", lambda x, hi: fg.clamp(x, max=hi), [x_t, hi],
               lambda x, hi: x.clamp(max=hi)),
        Sample("clamp", fg.clamp, [x_t, crossed_lo, crossed_hi], _torch("clamp")),
        Sample("clamp", lambda x, lo: fg.clamp(x, lo, 0.8), [normal(2, 3, seed=5),
                                                             np.array(-0.3)],
               lambda x, lo: x.clamp(lo, _constant(0.8))),
    ]


def _lerp_samples():
    weight = np.array([[0.1, 0.4, 0.6, 1.3]] * 3)  # both of the formulas of the impl
    return [
        Sample("lerp", fg.lerp, [normal(3, 4, seed=1), normal(3, 4, seed=2), weight],
               _torch("lerp")),
        Sample("lerp", fg.lerp, [normal(3, 1, seed=1), normal(4, seed=2), np.array(0.7)],
               _torch("lerp")),
        Sample("lerp", lambda a, b: fg.lerp(a, b, 0.25), [normal(3, 4, seed=1),
                                                          normal(3, 4, seed=2)],
               lambda a, b: a.lerp(b, 0.25)),
        Sample("lerp", lambda a, b: a.lerp(b, 0.75), [normal(2, 3, seed=1),
                                                      normal(3, seed=2)],
               lambda a, b: a.lerp(b, 0.75)),
    ]


# --- dtype conversion --------------------------------------------------------------------------
def _cast_samples():
    # a float64 -> float64 conversion: a float32 result would be too coarse for the
    # finite differences of the generic tests
    return [Sample("cast", lambda x: apply(cast_p, x, dtype=fg.float64), [normal(3, 4)],
                   lambda x: x.to(x.dtype))]


# --- in place ----------------------------------------------------------------------------------
def _iop(fn):
    """`fn(t, *rest)` applied in place to a copy of the first argument; returns the copy."""
    def run(x, *rest):
        t = x * 1
        out = fn(t, *rest)
        return t if out is None else out
    return run


def _iadd(t, y):
    t += y


def _isub(t, y):
    t -= y


def _imul(t, y):
    t *= y


def _idiv(t, y):
    t /= y


def _inplace_samples():
    x, y = normal(3, 4, seed=1), normal(3, 4, seed=2)
    samples = [
        Sample("fill", fill, [x, np.array(0.7)], lambda x, v: (x * 1).fill_(v)),
        Sample("fill", lambda x: fill(x, 1.5) * x, [x], lambda x: (x * 1).fill_(1.5) * x),
        Sample("fill", _iop(lambda t, v: t.fill_(v)), [x, np.array(-2.0)],
               _iop(lambda t, v: t.fill_(v))),
        Sample("fill", _iop(lambda t: t.zero_()), [x], _iop(lambda t: t.zero_())),
        Sample("fill", _iop(lambda t, s: t.copy_(s)), [x, normal(4, seed=3)],
               _iop(lambda t, s: t.copy_(s))),
        Sample("add", _iop(_iadd), [x, y], _iop(_iadd)),
        Sample("add", _iop(lambda t, y: t.add_(y, alpha=2)), [x, normal(4)],
               _iop(lambda t, y: t.add_(y, alpha=2))),
        Sample("sub", _iop(_isub), [x, y], _iop(_isub)),
        Sample("mul", _iop(_imul), [x, y], _iop(_imul)),
        Sample("mul", _iop(lambda t: t.mul_(t)), [x]),  # PyTorch refuses to differentiate it
        Sample("div", _iop(_idiv), [x, _nonzero(3, 4)], _iop(_idiv)),
        Sample("exp", _iop(lambda t: t.exp_()), [x], _iop(lambda t: t.exp_())),
        Sample("tanh", _iop(lambda t: t.tanh_()), [x], _iop(lambda t: t.tanh_())),
        Sample("clamp", _iop(lambda t: t.clamp_(-0.5, 0.7)),
               [away_from(x, [-0.5, 0.7], 0.05)], _iop(lambda t: t.clamp_(-0.5, 0.7))),
        Sample("lerp", _iop(lambda t, e: t.lerp_(e, 0.1)), [x, y],
               _iop(lambda t, e: t.lerp_(e, 0.1))),
        Sample("mul", _iop(lambda t, a, b: t.addcmul_(a, b, value=0.3)), [x, y, normal(4)],
               _iop(lambda t, a, b: t.addcmul_(a, b, value=0.3))),
    ]
    for sample in samples:
        sample.in_place = sample.fn.__name__ == "run"
    return samples


SAMPLES = (_unary_samples() + _rounding_samples() + _arithmetic_samples()
           + _selection_samples() + _cast_samples() + _inplace_samples())


def _fused_backward_samples():
    from fluxgrad.ops.activation import sigmoid_backward
    from fluxgrad.ops.elementwise import tanh_backward
    aten = lambda name: lambda g, y: getattr(__import__("torch").ops.aten, name)(g, y)  # noqa: E731
    samples = []
    for g_shape, y_shape in [((3, 4), (3, 4)), ((), ()), ((2, 3), (3,))]:
        g = normal(*g_shape, seed=5)
        y = rng(6).uniform(-0.9, 0.9, y_shape)
        samples.append(Sample("tanh_backward", tanh_backward, [g, y], aten("tanh_backward")))
        samples.append(Sample("sigmoid_backward", sigmoid_backward, [g, (y + 1) / 2],
                              aten("sigmoid_backward")))
    return samples


SAMPLES += _fused_backward_samples()


def _comparison_samples():
    """Comparisons, logic and predicates: no derivative, but a value and a batching rule."""
    samples = []
    x, y = normal(3, 4, seed=7), normal(4, seed=8)
    for name in ("equal", "not_equal", "less", "less_equal", "greater", "greater_equal"):
        op = "eq" if name == "equal" else name  # fg.equal is torch's one-bool equal
        samples.append(Sample(name, lambda a, b, n=op: getattr(fg, n)(a, b.round()),
                              [x.round(), y], _torch_rounded(name)))
    for name in ("logical_and", "logical_or", "logical_xor"):
        samples.append(Sample(name, lambda a, b, n=name: getattr(fg, n)(a > 0, b > 0), [x, y],
                              lambda a, b, n=name: getattr(__import__("torch"), n)(a > 0, b > 0)))
    samples.append(Sample("logical_not", lambda a: fg.logical_not(a > 0), [x],
                          lambda a: __import__("torch").logical_not(a > 0)))
    special = np.array([0.5, np.nan, np.inf, -np.inf, -2.0])
    for name in ("isnan", "isinf", "isfinite"):
        samples.append(Sample(name, getattr(fg, name), [special], _torch(name)))
    samples.append(Sample("isclose", lambda a, b: fg.isclose(a, b + 1e-9, atol=1e-6), [x, x],
                          lambda a, b: __import__("torch").isclose(a, b + 1e-9, atol=1e-6)))
    for name in ("bitwise_and", "bitwise_or", "bitwise_xor"):
        samples.append(Sample(name, lambda a, b, n=name: getattr(fg, n)(_ints(a), _ints(b)),
                              [x, y], lambda a, b, n=name: getattr(
                                  __import__("torch"), n)(_ints(a), _ints(b))))
        samples.append(Sample(name, lambda a, b, n=name: getattr(fg, n)(a > 0, b > 0), [x, y],
                              lambda a, b, n=name: getattr(__import__("torch"), n)(a > 0, b > 0)))
    shifts = rng(11).integers(-2, 70, (3, 4)).astype(float)
    for name in ("bitwise_left_shift", "bitwise_right_shift"):
        samples.append(Sample(name, lambda a, b, n=name: getattr(fg, n)(_ints(a), b.long()),
                              [x, shifts], lambda a, b, n=name: getattr(
                                  __import__("torch"), n)(_ints(a), b.long())))
    samples.append(Sample("bitwise_not", lambda a: fg.bitwise_not(_ints(a)), [x],
                          lambda a: __import__("torch").bitwise_not(_ints(a))))
    samples.append(Sample("bitwise_not", lambda a: ~(a > 0), [x], lambda a: ~(a > 0)))
    samples.append(Sample("floor_divide", lambda a, b: fg.floor_divide(a, b).long(),
                          [normal(3, 4, seed=9) * 5, positive(4, seed=10)],
                          lambda a, b: __import__("torch").floor_divide(a, b).long()))
    return samples


def _ints(a):
    """Signed integers of several bits from a float sample (either library's tensor)."""
    return (a * 1000).long()


def _torch_rounded(name):
    def fn(a, b):
        import torch
        return getattr(torch, "eq" if name == "equal" else name)(a, b.round())
    return fn


SAMPLES += _comparison_samples()


def _sign_and_angle_samples():
    """copysign (signs of y, zeros included), degree conversions, sinc (away from 0)."""
    x = away_from(normal(3, 4, seed=13), [0.0])
    y = np.array([1.0, -1.0, 2.5, -0.5] * 3).reshape(3, 4)  # FD must not cross a sign change
    return [
        Sample("copysign", fg.copysign, [x, y], lambda a, b: __import__("torch").copysign(a, b)),
        Sample("copysign", lambda a: fg.copysign(a, -2.0), [x],
               lambda a: __import__("torch").copysign(a, -2.0)),
        Sample("mul", fg.rad2deg, [x], _torch("rad2deg")),
        Sample("mul", fg.deg2rad, [x], _torch("deg2rad")),
        Sample("where", fg.sinc, [x], _torch("sinc")),
        Sample("signbit", fg.signbit, [np.array([1.0, -1.0, 0.0, -0.0])], _torch("signbit")),
    ]


SAMPLES += _sign_and_angle_samples()
