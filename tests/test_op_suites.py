"""Op test suites in the shape other projects write them (tinygrad's `helper_test_op`,
PyTorch's OpInfo sweeps), run against fluxgrad with torch as the reference.

`check` runs one function twice on the same NumPy inputs, once with `torch` and once with
`fluxgrad` passed as its first argument, and compares the outputs' shapes, dtypes and
values, then the gradients of `out.sum()` with respect to every floating input. Every
expected number comes from torch.
"""
import math

import numpy as np
import pytest

import fluxgrad

torch = pytest.importorskip("torch")


def _inputs(lib, shapes, vals, low, high, dtype, forward_only):
    if shapes is not None:
        rng = np.random.default_rng(0)
        arrays = [rng.uniform(low, high, size=s).astype(dtype) for s in shapes]
        made = [lib.tensor(a) for a in arrays]
    else:
        made = [lib.tensor(v) if not isinstance(v, np.ndarray) else lib.tensor(v.copy())
                for v in vals]
    return [t.requires_grad_() if t.is_floating_point() and not forward_only else t
            for t in made]


def _as_list(out):
    return list(out) if isinstance(out, (tuple, list)) else [out]


def _compare(what, ours, theirs, atol, rtol):
    assert tuple(ours.shape) == tuple(theirs.shape), f"{what}: shape {ours.shape} != {theirs.shape}"
    assert str(theirs.dtype) == f"torch.{ours.dtype.name}", \
        f"{what}: dtype {ours.dtype} != {theirs.dtype}"
    a, b = ours.detach().numpy(), theirs.detach().numpy(force=True)  # (sgn's zero gradient)
    if np.issubdtype(b.dtype, np.floating):
        np.testing.assert_allclose(a, b, atol=atol, rtol=rtol, equal_nan=True, err_msg=what)
    else:
        np.testing.assert_array_equal(a, b, err_msg=what)


def check(shapes, fn, *, vals=None, low=-2.0, high=2.0, dtype=np.float32, forward_only=False,
          atol=1e-6, rtol=1e-3, grad_atol=1e-4, grad_rtol=1e-3):
    """fn(lib, *inputs) with lib = torch and lib = fluxgrad agree, forward and backward."""
    with np.errstate(all="ignore"):
        ts = _inputs(torch, shapes, vals, low, high, dtype, forward_only)
        fs = _inputs(fluxgrad, shapes, vals, low, high, dtype, forward_only)
        theirs, ours = _as_list(fn(torch, *ts)), _as_list(fn(fluxgrad, *fs))
        assert len(ours) == len(theirs)
        for i, (o, t) in enumerate(zip(ours, theirs)):
            _compare(f"forward output {i}", o, t, atol, rtol)
        wrt = [i for i, t in enumerate(ts) if t.requires_grad]
        outs = [i for i, t in enumerate(theirs) if t.requires_grad]
        if forward_only or not wrt or not outs:
            return
        t_grads = torch.autograd.grad(sum(theirs[i].sum() for i in outs), [ts[i] for i in wrt],
                                      allow_unused=True)
        f_grads = fluxgrad.autograd.grad(sum(ours[i].sum() for i in outs), [fs[i] for i in wrt],
                                         allow_unused=True)
        for i, f, t in zip(wrt, f_grads, t_grads):
            if t is None:
                t = torch.zeros_like(ts[i])
            if f is None:
                f = fluxgrad.zeros_like(fs[i])
            _compare(f"gradient of input {i}", f, t, grad_atol, grad_rtol)


def F(lib):
    return lib.nn.functional


CASES = []


def case(name, shapes, fn, **kw):
    CASES.append(pytest.param(shapes, fn, kw, id=name))


# --- elementwise: unary -----------------------------------------------------------------------
UNARY = ["neg", "abs", "exp", "exp2", "log", "log2", "log10", "log1p", "expm1", "sqrt", "rsqrt",
         "sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "tanh", "asinh", "acosh",
         "atanh", "sigmoid", "relu", "sign", "sgn", "floor", "ceil", "round", "trunc", "frac",
         "reciprocal", "square", "erf", "erfc", "erfinv", "lgamma", "digamma", "logit", "i0",
         "sinc", "deg2rad", "rad2deg", "signbit", "isnan", "isinf", "isfinite", "logical_not",
         "positive", "nan_to_num", "fix", "arcsin", "arccos", "arctan", "arcsinh", "arctanh",
         "arccosh", "negative", "absolute"]
DOMAIN = {"log": (0.1, 3), "log2": (0.1, 3), "log10": (0.1, 3), "sqrt": (0.1, 3),
          "rsqrt": (0.1, 3), "asin": (-0.9, 0.9), "acos": (-0.9, 0.9), "arcsin": (-0.9, 0.9),
          "arccos": (-0.9, 0.9), "acosh": (1.1, 4), "arccosh": (1.1, 4), "atanh": (-0.9, 0.9),
          "arctanh": (-0.9, 0.9), "erfinv": (-0.9, 0.9), "logit": (0.1, 0.9),
          "lgamma": (0.1, 4), "digamma": (0.2, 4), "log1p": (-0.5, 3), "reciprocal": (0.5, 2)}
for _name in UNARY:
    _lo, _hi = DOMAIN.get(_name, (-2, 2))
    case(f"{_name}-method", [(5, 7)], lambda T, x, n=_name: getattr(x, n)(), low=_lo, high=_hi)
    case(f"{_name}-function-0d", [()], lambda T, x, n=_name: getattr(T, n)(x), low=_lo, high=_hi)

for _name in ["sin", "cos", "tan"]:
    case(f"{_name}-huge", None, lambda T, x, n=_name: getattr(x, n)(),
         vals=[[1e1, 1e2, 1e3, 1e4, 1e5, 1e6, -1e1, -1e2, -1e3, -1e4, -1e5, -1e6]],
         atol=3e-3, rtol=3e-3, grad_atol=3e-3, grad_rtol=3e-3)
    case(f"{_name}-nonfinite", None, lambda T, x, n=_name: getattr(x, n)(),
         vals=[[math.nan, math.inf, -math.inf, 0.0]])
for _name in ["exp", "exp2", "log", "log2", "sqrt", "sigmoid", "tanh", "relu", "abs", "floor"]:
    case(f"{_name}-nonfinite", None, lambda T, x, n=_name: getattr(T, n)(x),
         vals=[[math.inf, -math.inf, math.nan]])
for _name, (_lo, _hi) in {"asin": (300, 303), "acos": (-300, -297), "atan": (300, 303),
                          "sinh": (300, 303), "cosh": (-300, -297), "tanh": (-300, -297),
                          "asinh": (-300, -297), "acosh": (300, 303), "atanh": (300, 303),
                          "sigmoid": (300, 400), "erf": (-400, -300)}.items():
    case(f"{_name}-extreme", [(9, 13)], lambda T, x, n=_name: getattr(x, n)(), low=_lo, high=_hi,
         forward_only=_name in ("sinh", "cosh"), atol=1e-2 if _name == "asinh" else 1e-6)
case("sigmoid-very-negative", [(9, 13)], lambda T, x: x.sigmoid(), low=-400, high=-300)
for _name in ["floor", "ceil", "round", "trunc"]:
    case(f"{_name}-halves", None, lambda T, x, n=_name: getattr(x, n)(), forward_only=True,
         vals=[[1.499, 1.5, 1.501, 1.0, 2.1, 0.0, -5.0, -2.499, -2.5, -2.501, 2.5, -1.5]])
case("round-decimals", [(4, 5)], lambda T, x: x.round(decimals=2), forward_only=True)
case("relu-at-kink", None, lambda T, x: x.relu(), vals=[[-1.0, 0.0, 1.0]])
case("abs-at-kink", None, lambda T, x: x.abs(), vals=[[-1.0, 0.0, 1.0]])
case("sign-at-kink", None, lambda T, x: x.sign(), vals=[[-1.0, 0.0, 1.0]])
case("sqrt-at-zero", None, lambda T, x: x.sqrt(), vals=[[0.0]])
case("rsqrt-at-zero", None, lambda T, x: x.rsqrt(), vals=[[0.0]])
case("isinf-mixed", None, lambda T, x: [T.isinf(x), T.isnan(x), T.isfinite(x), T.isposinf(x),
                                        T.isneginf(x)],
     vals=[[-math.inf, 0.0, math.inf, math.nan, 1.1]])
case("logical_not-float", None, lambda T, x: T.logical_not(x), vals=[[1.0, 2.0, 0.0, 0.5]])
case("logical_not-bool", None, lambda T, x: T.logical_not(x), vals=[[True, False, True]])
case("nan_to_num-args", None, lambda T, x: x.nan_to_num(nan=1.5, posinf=9.0, neginf=-9.0),
     vals=[[math.nan, math.inf, -math.inf, 2.0]])

# --- elementwise: integer inputs to floating ops -----------------------------------------------
for _name in ["sin", "exp", "sqrt", "log", "sigmoid", "tanh", "erf", "reciprocal", "rsqrt",
              "log1p", "atan", "exp2"]:
    case(f"{_name}-of-int64", None, lambda T, x, n=_name: getattr(T, n)(x), vals=[[1, 2, 3, 4]])
case("sin-of-int32", None, lambda T, x: T.sin(x.int()), vals=[[1, 2, 3]])
case("sin-of-bool", None, lambda T, x: T.sin(x), vals=[[True, False]])
case("mean-of-int-with-dtype", None, lambda T, x: x.mean(dtype=T.float32), vals=[[1, 2, 4]])
case("true-divide-ints", None, lambda T, x, y: x / y, vals=[[5, 6, 7], [1, 2, 3]])
case("int-div-by-int-scalar", None, lambda T, x: x / 2, vals=[[3, 4, 5]])
case("int-floordiv", None, lambda T, x, y: x // y, vals=[[5, -6, 7], [2, 4, -3]])
case("int-neg-abs", None, lambda T, x: [-x, x.abs(), x.sign(), x.square()], vals=[[-3, 0, 4]])

# --- elementwise: binary, broadcasting, scalars --------------------------------------------------
BINARY_SHAPES = [[(4, 5), (4, 5)], [(4, 5), (4, 1)], [(4, 5), ()], [(4, 5), (5,)], [(), ()],
                 [(3, 1, 5), (1, 4, 1)], [(1, 3, 1, 7, 1), (2, 1, 5, 1, 8)]]
BINARY = {"add": lambda T, x, y: x + y, "sub": lambda T, x, y: x - y,
          "mul": lambda T, x, y: x * y, "div": lambda T, x, y: x / y,
          "maximum": lambda T, x, y: T.maximum(x, y), "minimum": lambda T, x, y: T.minimum(x, y),
          "atan2": lambda T, x, y: T.atan2(x, y), "copysign": lambda T, x, y: T.copysign(x, y),
          "logaddexp": lambda T, x, y: T.logaddexp(x, y), "hypot": lambda T, x, y: T.hypot(x, y),
          "fmod": lambda T, x, y: T.fmod(x, y), "remainder": lambda T, x, y: x % y,
          "xlogy": lambda T, x, y: T.xlogy(x, y.abs() + 0.1),
          "sub-alpha": lambda T, x, y: T.sub(x, y, alpha=2),
          "add-alpha": lambda T, x, y: x.add(y, alpha=-0.5)}
for _name, _fn in BINARY.items():
    for _shapes in BINARY_SHAPES:
        case(f"{_name}-{_shapes}", _shapes, _fn,
             forward_only=_name in ("fmod", "remainder"))
for _shapes in [[(4, 5), (4, 5)], [(3, 1, 5), (1, 4, 1)], [(4, 1), (4, 5)]]:
    case(f"pow-{_shapes}", _shapes, lambda T, x, y: x ** y, low=0.5, high=3)
    case(f"pow-method-{_shapes}", _shapes, lambda T, x, y: x.pow(y), low=0.5, high=3)
case("add3", [(4, 5)] * 3, lambda T, x, y, z: x + y + z)
case("topo-sort", [(4, 5)], lambda T, x: (x + x) * x)
for _expr in ["x - 2", "2 - x", "x * 2", "2 * x", "x * -1", "255 * x", "x / 255", "1 / x",
              "2 / x", "x / 1", "x ** 0", "x ** 1", "x ** 2", "x ** 3", "x ** -2", "x ** 0.5",
              "x ** 2.0", "x ** -1.0", "x ** 5.5", "x ** 8.0", "2.0 ** x", "0.7 ** x",
              "1.0 ** x", "5.5 ** x", "(-5.5) ** x", "x + True", "x * math.inf",
              "x * -math.inf", "x * math.nan", "x / math.inf", "math.inf / x", "math.nan / x",
              "x % 2", "x % 3.5", "100 % x", "x // 2", "x.abs() ** 0.2", "x.abs() ** 1.2"]:
    case(f"scalar:{_expr}", [(4, 5)], lambda T, x, e=_expr: eval(e, {"x": x, "math": math}),
         forward_only="%" in _expr or "//" in _expr)
    case(f"scalar-0d:{_expr}", [()], lambda T, x, e=_expr: eval(e, {"x": x, "math": math}),
         forward_only="%" in _expr or "//" in _expr)
case("pow-negative-base-int-exp", [(4, 5)], lambda T, x: x ** 3, low=-30, high=-27)
case("pow-negative-base-frac-exp", [(4, 5)], lambda T, x: x ** 0.2, low=-30, high=-27)
case("pow-zero-base", None, lambda T, x: [x ** 0.3, x ** 0.0, x ** -0.3, x ** 1.1],
     vals=[[0.0]])
case("pow-zero-tensor-tensor", None, lambda T, x, y: x ** y,
     vals=[[0.0, 0.0, 0.0], [0.0, 0.3, -0.3]])
case("pow-const-base-zero", None, lambda T, x: 0 ** x, vals=[[-2.0, -1, 0, 1, 2, 3]])
case("pow-const-base-negative", None, lambda T, x: (-2) ** x, vals=[[-2.0, -1, 0, 1, 2, 3]])
case("pow-float-base-int-tensor", None, lambda T, x: 0.7 ** x, vals=[[-2, -1, 0, 1, 2, 3]])
case("pow-int-int", None, lambda T, x: [x ** 0, x ** 1, x ** 2, x ** 7],
     vals=[[-2, 0, 2, 11]])
case("maximum-scalar-tensor", None, lambda T, x, y: T.maximum(x, y), vals=[[1.0, 0, 3, -4], 3.0])
case("maximum-ties", None, lambda T, x, y: [T.maximum(x, y), T.minimum(x, y)],
     vals=[[1.0, 0.0, 3.0, -4.0], [-1.0, -2.0, 3.0, 0.0]])
case("maximum-int-extremes", None, lambda T, x, y: T.maximum(x, y),
     vals=[[-1234, 0, 1234, 2 ** 31 - 1, -2 ** 31], 2 ** 31 - 1])
case("maximum-bool", None, lambda T, x, y: [T.maximum(x, y), T.minimum(x, y)],
     vals=[[True, False, False], [True, True, False]])
case("maximum-relu-exact", None, lambda T, x: T.maximum(x, T.zeros_like(x)), vals=[[-1.0, 0, 1]])
case("copysign-exact", None, lambda T, x, y: T.copysign(x, y),
     vals=[[-1.0, -1.0, -1.0, 0.0, 0.0, 0.0, 1.0, 1.0, 1.0], [-1.0, 0.0, 1.0] * 3])
case("logaddexp-large", None, lambda T, x, y: T.logaddexp(x, y),
     vals=[[1.0, 2000, 30000], [-1.0, 2, 3]])
case("logaddexp-small", None, lambda T, x, y: T.logaddexp(x, y),
     vals=[[-100.0, -200, -300], [-1.0, 2, 3]])
case("logaddexp-broadcast", None, lambda T, x, y: T.logaddexp(x, y), vals=[[-1.0], [-1.0, 2, 3]])
case("lerp-tensor-weight", [(4, 5)] * 3, lambda T, x, y, z: x.lerp(y, z))
case("lerp-scalar-weight", None, lambda T, x, y: x.lerp(y, 0.5), vals=[[1.0, 2, 3], [4.0, 5, 6]])
case("addcmul", [(4, 5)] * 3, lambda T, x, y, z: T.addcmul(x, y, z, value=0.5))
case("addcdiv", [(4, 5)] * 3, lambda T, x, y, z: T.addcdiv(x, y, z.abs() + 1, value=2))
for _r in [None, "trunc", "floor"]:
    for _den in [-3, -2, 2, 5, -2.5, 3.0]:
        case(f"div-rounding-{_r}-{_den}-int", None,
             lambda T, x, y, r=_r: x.div(y, rounding_mode=r), vals=[[5, 6, 7, 0, -5, -6, -7],
                                                                    [_den]])
        case(f"div-rounding-{_r}-{_den}-float", None,
             lambda T, x, y, r=_r: T.div(x, y, rounding_mode=r), forward_only=True,
             vals=[[5.0, 6, 7, 0, -5, -6, -7], [_den]])
for _a_float in (True, False):
    for _b_float in (True, False):
        _a = [-4, 7, 5, 4, -7, 8, -9]
        _b = [2, -3, 8, -2, 3, 5, -5]
        case(f"mod-{_a_float}-{_b_float}", None, lambda T, x, y: [x % y, T.fmod(x, y), x % 3],
             forward_only=True, vals=[[float(v) for v in _a] if _a_float else _a,
                                      [float(v) for v in _b] if _b_float else _b])

# --- comparisons and logic ----------------------------------------------------------------------
CMP = {"eq": lambda x, y: x == y, "ne": lambda x, y: x != y, "gt": lambda x, y: x > y,
       "ge": lambda x, y: x >= y, "lt": lambda x, y: x < y, "le": lambda x, y: x <= y}
_specials = [0.0, 1.0, -1.0, math.inf, -math.inf, math.nan]
for _name, _op in CMP.items():
    for _v in ([[0.0, 1, 2], [2.0, 1, 0]], [[0, 1, 2], [2, 1, 0]],
               [[True, True, False], [False, True, False]],
               [[s for s in _specials for _ in _specials], _specials * len(_specials)]):
        case(f"cmp-{_name}-{type(_v[0][0]).__name__}-{len(_v[0])}", None,
             lambda T, x, y, op=_op: op(x, y), vals=_v)
    case(f"cmp-{_name}-broadcast", [(3, 4, 5), (5,)], lambda T, x, y, op=_op: op(x, y),
         forward_only=True)
    case(f"cmp-{_name}-const", None, lambda T, x, op=_op: [op(x, 2), op(2, x), op(x, 1.5)],
         vals=[[0.0, 1, 2]])
    case(f"cmp-{_name}-function", [(3, 4), (3, 4)],
         lambda T, x, y, n=_name: getattr(T, n)(x, y), forward_only=True)
case("cmp-mask-gradient", [(4, 5)], lambda T, x: x * (x < 0) + x * (x != 0))
case("and-or-of-comparisons", None, lambda T, x: [(1 < x) & (x < 2), (x < 1.1) | (x > 3)],
     vals=[[1.2, 1.2, 1.2, 3.2]])
case("bitwise-int", None, lambda T, x, y: [x ^ y, x & y, x | y, ~x, x ^ 0x1337, 0x1337 & x,
                                           x << 2, x >> 1, x.bitwise_not()],
     vals=[np.array([[1, -8, 1], [32, 1, 6]], dtype=np.int32),
           np.array([[3, 8, -1], [2, 1, 7]], dtype=np.int32)])
case("logical-ops", None, lambda T, x, y: [T.logical_and(x, y), T.logical_or(x, y),
                                           T.logical_xor(x, y), x.logical_not()],
     vals=[[1.0, 0.0, 2.0, 0.0], [1.0, 1.0, 0.0, 0.0]])
case("isclose", [(3, 4), (3, 4)], lambda T, x, y: [x.isclose(x), x.isclose(y),
                                                   x.isclose(x + 1e-6, atol=0.0),
                                                   x.isclose(x + 1e-9, rtol=0.01)],
     forward_only=True)
case("isclose-tiny", None, lambda T, x, y: x.isclose(y), vals=[[1e-7, 1e-8, 1e-9], [0.0, 0.0, 0.0]])
for _a in [math.inf, -math.inf, math.nan, 0.0]:
    case(f"isclose-special-{_a}", None,
         lambda T, x, y: [x.isclose(y), x.isclose(y, equal_nan=True)],
         vals=[[_a] * 4, [math.inf, -math.inf, math.nan, 0.0]])

# --- clamp, where, masked_fill ------------------------------------------------------------------
for _lo, _hi in [(-2.3, 1.2), (0, 0), (10, 100), (0, 0.1), (-0.3, -0.2), (3, 0), (None, 0),
                 (0, None)]:
    case(f"clip-{_lo}-{_hi}", [(4, 5)], lambda T, x, lo=_lo, hi=_hi: x.clip(lo, hi))
case("clamp-boundaries", None, lambda T, x: x.clamp(-2.5, 1.5), vals=[[-3.0, -2.5, 0, 1.5, 2]])
case("clamp-tensor-bounds", [(4, 5), (4, 5), (5,)], lambda T, x, lo, hi: x.clamp(lo, hi + 2))
case("clamp-keywords", [(4, 5)], lambda T, x: [T.clamp(x, min=0.1), T.clamp(x, max=-0.1),
                                               x.clamp_min(0.5), x.clamp_max(0.5)])
case("clamp-int", None, lambda T, x: x.clamp(0, 3), vals=[[-2, 1, 5]])
case("where-const", [(10,)], lambda T, x: T.where(x > 0.5, 4, 2), forward_only=True)
case("where-const-float", [(10,)], lambda T, x: T.where(x > 0.5, 4.0, x))
for _shapes in [[(8,), (1,), (1,)], [(10, 10), (10,), (10,)], [(6,)] * 3, [(4, 4)] * 3]:
    case(f"where-{_shapes}", _shapes, lambda T, x, a, b: T.where(x > 0.5, a, b))
case("where-method", [(4, 5), (4, 5)], lambda T, x, y: x.where(x > 0, y))
case("where-inf", None, lambda T, x: T.where(x < 0, x, 1.0), vals=[[math.inf] * 3])
case("masked_fill-neg-inf", [(6, 5)], lambda T, x: x.masked_fill((x > 0.1).detach(), -math.inf))
case("masked_fill-broadcast", [(6, 5)], lambda T, x: x.masked_fill(x[0] > 0, 3.0))
case("masked_fill-tensor-value", [(6, 5)], lambda T, x: x.masked_fill(x < 0, T.tensor(2.0)))
case("masked_select", [(6, 5)], lambda T, x: x.masked_select(x > 0.5))

# --- reductions -----------------------------------------------------------------------------------
REDUCE_CALLS = ["x.sum()", "x.sum(3)", "x.sum((1, 3))", "x.sum(axis=(0, 2))",
                "x.sum(dim=1, keepdim=True)",
                "x.sum(-1)", "x.sum([0, 2])", "x.sum((0, 1)).sum()", "x.mean()", "x.mean((1, 2))",
                "x.mean(dim=-1, keepdim=True)", "x.prod()", "x.prod(dim=3)",
                "x.prod(1, keepdim=True)",
                "x.max()", "x.min()", "x.max(1)[0]", "x.max(dim=1).values", "x.min(dim=2).values",
                "x.max(1, keepdim=True)[0]", "x.amax((1, 2))", "x.amin(-1, keepdim=True)",
                "x.var()", "x.var(0)", "x.var([1, 2])", "x.var(2, correction=0)",
                "x.var(correction=5)", "x.var(keepdim=True)", "x.var(0, unbiased=False)",
                "x.std()", "x.std(0)", "x.std([1, 2], correction=0)", "x.std(keepdim=True)",
                "x.logsumexp(0)", "x.logsumexp(2, keepdim=True)", "x.logsumexp((1, 2))",
                "x.norm()", "x.norm(dim=1)", "x.norm(p=1, dim=(1, 2))", "x.norm(p=3, dim=0)",
                "x.norm(p=float('inf'), dim=-1)", "x.sum(dtype=T.float64)", "x.nansum(1)",
                "x.nanmean()", "x.median()", "x.max(-1)[1]", "x.argmax()", "x.argmin()",
                "x.argmax(1)", "x.argmin(0, keepdim=True)", "x.argmax(1, True)",
                "x.count_nonzero(1)", "x.aminmax()[0]", "T.std_mean(x)[0]",
                "T.std_mean(x, (1, 2))[1]",
                "T.var_mean(x, 1, keepdim=True)[0]", "x.mean(1).sum()", "x.sum(()).shape and x"]
for _expr in REDUCE_CALLS:
    case(f"reduce:{_expr}", [(3, 4, 5, 2)], lambda T, x, e=_expr: eval(e, {"x": x, "T": T}))
for _expr in ["x.sum()", "x.sum(0)", "x.sum(-1)", "x.sum(())", "x.mean()", "x.prod()",
              "x.prod(0)", "x.max()", "x.min()", "x.logsumexp(0)", "x.softmax(0)",
              "x.log_softmax(-1)", "x.cumsum(0)", "x.cumprod(0)", "x.argmax()", "x.norm()"]:
    case(f"reduce-0d:{_expr}", [()], lambda T, x, e=_expr: eval(e, {"x": x, "T": T}))
for _expr in ["x.sum(0)", "x.sum(1)", "x.sum((0, 1))", "x.mean(0)", "x.prod(1)", "x.amax(0)",
              "x.logsumexp(1)", "x.cumsum(0)", "x.cumsum(1)", "x.var(1)"]:
    case(f"reduce-empty:{_expr}", [(4, 0)], lambda T, x, e=_expr: eval(e, {"x": x, "T": T}),
         forward_only=True)
case("mean-zero-axis", [(1, 0, 3, 0, 5)], lambda T, x: x.mean(axis=(1, 3)))
case("var-zero-axis", [(1, 0, 3, 0, 5)], lambda T, x: [x.var(axis=(1, 3)), x.std(axis=(1, 3))],
     forward_only=True)
case("var-one-in-axis", [(1, 2, 3, 1, 5)], lambda T, x: [x.var(axis=(0, 4)),
                                                         x.var(axis=(0, 3), correction=0)])
case("max-ties", None, lambda T, x: x.max() * 0.5, vals=[[[1.0, 1.0, 0.0, 1.0]]])
case("min-ties", None, lambda T, x: x.min(), vals=[[[0.0, 2.0, 0.0, 1.0]]])
case("max-dim-ties", None, lambda T, x: x.max(1)[0], vals=[[[1.0, 1.0, 0.0], [2.0, 2.0, 2.0]]])
case("amax-ties", None, lambda T, x: x.amax(1), vals=[[[1.0, 1.0, 0.0], [2.0, 2.0, 2.0]]])
case("stack-max", None, lambda T, x, y: T.stack((x, y)).max(axis=0)[0], vals=[[1.0], [2.0]])
case("max-int", None, lambda T, x: [x.max(), x.min(), x.argmax(), x.sum(), x.prod()],
     vals=[[0, -2 ** 31, 5]])
case("max-bool", None, lambda T, x: [x.max(), x.min(), x.any(), x.all()],
     vals=[[False, True]])
case("argmax-ties", None, lambda T, x: [x.argmax(), x.argmin()], vals=[[1.0, 2, 2, 1]])
case("any-all", [(3, 4, 5)], lambda T, x: [x.any(), x.all(), (x > 0).any(axis=(1, 2)),
                                           (x > 0).all(dim=1), (x > 0).any(1, keepdim=True)])
case("any-zero-axis", [(1, 0, 3, 0, 5)], lambda T, x: [x.any(axis=(1, 3)), x.all(axis=(1, 3))])
case("sum-int-promotes", None, lambda T, x: [x.sum(), x.sum(0), x.cumsum(0), x.prod()],
     vals=[np.array([1, 2, 3], dtype=np.int32)])
case("sum-bool", None, lambda T, x: [x.sum(), x.float().mean()], vals=[[True, False, True]])
case("sum-of-uint8", None, lambda T, x: x.sum(), vals=[np.array([200, 100], dtype=np.uint8)])

# --- scans --------------------------------------------------------------------------------------
for _shape, _dim in [((10,), 0), ((5, 6), 0), ((5, 6), 1), ((3, 4, 5), 2), ((3, 4, 5), -1),
                     ((2, 0, 4), 1), ((), 0)]:
    case(f"cumsum-{_shape}-{_dim}", [_shape], lambda T, x, d=_dim: T.cumsum(x, dim=d))
    case(f"cumprod-{_shape}-{_dim}", [_shape], lambda T, x, d=_dim: T.cumprod(x, dim=d))
    case(f"cummax-{_shape}-{_dim}", [_shape], lambda T, x, d=_dim: T.cummax(x, dim=d).values)
    case(f"cummin-{_shape}-{_dim}", [_shape], lambda T, x, d=_dim: list(T.cummin(x, dim=d)))
    case(f"logcumsumexp-{_shape}-{_dim}", [_shape], lambda T, x, d=_dim: T.logcumsumexp(x, d))
case("logcumsumexp-large", None, lambda T, x: T.logcumsumexp(x, dim=0), vals=[[0.0, 100.0]])
case("cumprod-with-zero", None, lambda T, x: x.cumprod(0), vals=[[2.0, 0.0, 3.0, 0.0, 4.0]])
case("cumsum-int", None, lambda T, x: x.cumsum(0), vals=[[1, 2, 3]])
case("cumsum-dtype", [(4,)], lambda T, x: x.cumsum(0, dtype=T.float64))

# --- softmax and friends ------------------------------------------------------------------------
for _shape, _dim in [((6, 7), 1), ((6,), 0), ((), 0), ((), -1), ((4, 5, 6), 0), ((4, 5, 6), 1),
                     ((4, 5, 6), 2)]:
    case(f"softmax-{_shape}-{_dim}", [_shape], lambda T, x, d=_dim: x.softmax(d), atol=1e-7,
         grad_atol=1e-7)
    case(f"log_softmax-{_shape}-{_dim}", [_shape], lambda T, x, d=_dim: x.log_softmax(d),
         atol=1e-6, grad_atol=1e-6)
    case(f"logsumexp-{_shape}-{_dim}", [_shape], lambda T, x, d=_dim: T.logsumexp(x, dim=d),
         atol=1e-6)
case("softmax-module", [(6, 7)], lambda T, x: [T.nn.Softmax(dim=1)(x), T.nn.LogSoftmax(dim=1)(x)])
case("softmax-dtype", [(6, 7)], lambda T, x: F(T).softmax(x, dim=1, dtype=T.float64))
case("softmax-argmax", [(6, 7)], lambda T, x: [x.softmax(0).argmax(), x.softmax(1).argmax(1)])
case("softmax-inf", None, lambda T, x: x.softmax(-1), vals=[[[0.0, -math.inf, 1.0]]])
case("softmin", [(6, 7)], lambda T, x: F(T).softmin(x, dim=1))
case("log_softmax-extreme", None, lambda T, x: x.log_softmax(0), vals=[[1000.0, 0.0, -1000.0]])

# --- matmul and einsum --------------------------------------------------------------------------
for _shapes in [[(5,), (5,)], [(5,), (5, 4)], [(4, 5), (5,)], [(3, 4, 5), (5,)],
                [(5,), (3, 5, 4)], [(4, 4), (4, 4)], [(8, 9), (9, 7)], [(2, 4, 5), (2, 5, 3)],
                [(3,), (1, 3, 3, 5)], [(4, 3), (1, 3, 3, 5)], [(2, 1, 4, 5), (3, 5, 2)],
                [(6, 4, 5), (5, 4)], [(3, 3, 4, 5), (3, 3, 5, 4)], [(8, 8), (8, 0)],
                [(0, 8), (8, 8)], [(8, 0), (0, 8)], [(0,), (0,)], [(0,), (0, 8)]]:
    case(f"matmul-{_shapes}", _shapes, lambda T, x, y: x.matmul(y), atol=1e-5)
    case(f"at-{_shapes}", _shapes, lambda T, x, y: x @ y, atol=1e-5)
case("matmul-range", None, lambda T, x, y: x @ y,
     vals=[np.arange(64, dtype=np.float32).reshape(8, 8),
           np.arange(64, 128, dtype=np.float32).reshape(8, 8)])
case("matvecmat", [(1, 16), (16, 16), (16, 16)], lambda T, x, y, z: (x @ y).relu() @ z, atol=1e-5)
case("mm-bmm-mv-dot", [(3, 4), (4, 5), (4,)],
     lambda T, a, b, v: [T.mm(a, b), T.bmm(a[None], b[None]), T.mv(a, v), T.dot(v, v),
                         T.outer(v, v), T.inner(v, v), T.vdot(v, v)])
case("addmm-addmv-baddbmm", [(3, 5), (3, 4), (4, 5)],
     lambda T, c, a, b: [T.addmm(c, a, b, beta=0.5, alpha=2), T.baddbmm(c[None], a[None], b[None]),
                         T.addmv(c[:, 0], a, b[:, 0])])
case("tensordot", [(3, 4, 5), (4, 5, 2)], lambda T, a, b: [T.tensordot(a, b, dims=2),
                                                          T.tensordot(a, b, dims=([1], [0]))])
case("kron-cross", [(2, 3), (3, 3)], lambda T, a, b: [T.kron(a, b), T.linalg.cross(b, b.flip(0)),
                                                      T.cross(b, b.flip(0), dim=1)])
EINSUM = [("->", [()]), ("ij->ji", [(4, 4)]), ("ij -> ji", [(4, 4)]), ("ji", [(4, 4)]),
          ("jki", [(2, 3, 4)]), ("dog", [(2, 3, 4)]), ("ij,jk", [(3, 4), (4, 5)]),
          ("ijk->", [(2, 3, 4)]), ("ij->j", [(5, 5)]), ("ij->i", [(5, 5)]),
          ("ik,k->i", [(3, 4), (4,)]), ("ik,kj->ij", [(3, 4), (4, 5)]),
          ("jk,ki->ji", [(3, 4), (4, 5)]), ("i,i->i", [(5,), (5,)]),
          ("ij,ij->ij", [(5, 6), (5, 6)]), ("i,j->ij", [(5,), (5,)]),
          ("ijk,ikl->ijl", [(2, 4, 6), (2, 6, 8)]), ("ijk,ikl->jil", [(2, 4, 5), (2, 5, 7)]),
          ("jik,ikl->jil", [(4, 2, 5), (2, 5, 7)]), ("ijk,ika->ija", [(2, 4, 6), (2, 6, 8)]),
          ("pqrs,tuqvr->pstuv", [(3, 5, 2, 4), (2, 3, 5, 2, 2)]),
          ("ik,jkl,il->ij", [(2, 3), (5, 3, 7), (2, 7)]),
          ("...id,...jd->...ij", [(3, 8, 9), (3, 8, 9)]), ("...id, ...jd", [(3, 8, 9), (3, 8, 9)]),
          ("i...j,ji...->...", [(2, 3, 4, 5), (5, 2, 4)]), ("ij...,ij...->ij",
                                                            [(2, 3, 4), (2, 3, 4)]),
          ("i,i", [(5,), (5,)]), ("ii->i", [(4, 4)]), ("ii->", [(4, 4)]), ("...ii->...i",
                                                                           [(3, 5, 5)]),
          ("...ii->...", [(3, 5, 5)]), ("bij,bjk->bik", [(2, 3, 4), (2, 4, 5)])]
for _eq, _shapes in EINSUM:
    case(f"einsum-{_eq}", _shapes, lambda T, *xs, eq=_eq: T.einsum(eq, *xs), atol=1e-5)
case("einsum-list-operands", [(2, 4, 6), (2, 6, 8)],
     lambda T, a, b: T.einsum("ijk,ikl->ijl", [a, b]), atol=1e-5)

# --- shape ops ------------------------------------------------------------------------------------
SHAPE_CALLS = [
    ("x.T", (3, 4)), ("x.mT", (2, 3, 4)), ("x.transpose(1, 2)", (2, 3, 4)),
    ("x.transpose(0, 2)", (2, 3, 4)), ("x.permute((3, 0, 2, 1))", (1, 2, 3, 4)),
    ("x.permute(3, 2, 1, 0)", (2, 3, 4, 5)), ("x.permute((-2, -1, 1, 0))", (2, 3, 4, 5)),
    ("x.permute(())", ()), ("x.reshape((12, 3, 2))", (4, 3, 3, 2)),
    ("x.reshape((-1, 3, 3, 2))", (4, 3, 3, 2)), ("x.reshape(-1, 1, 3, 2)", (4, 3, 3, 2)),
    ("x.reshape(())", ()), ("x.reshape(())", (1,)), ("x.reshape((1,))", ()),
    ("x.reshape((1, 1, 1))", ()), ("x.view(2, 3)", (6,)), ("x.view([2, 3])", (6, 1)),
    ("x.view((3, 2))", (1, 6)), ("x.view(6)", (3, 2)), ("x.view(-1)", (2, 3, 4)),
    ("x.flip((0,))", (4, 3, 5)), ("x.flip((0, 1))", (4, 3, 5)), ("x.flip((0, 1, 2))", (4, 3, 5)),
    ("x.flip(-1)", (4, 3, 5)), ("x.flip(0, 2)", (4, 3, 5)), ("x.flip(())", (4, 3)),
    ("x.flip(())", ()), ("x.flip((0, 1)).flip(0)", (4, 3)), ("T.fliplr(x)", (4, 3)),
    ("T.flipud(x)", (4, 3)), ("x.squeeze(0)", (1, 3, 4)), ("x.squeeze(1)", (4, 3, 1, 6)),
    ("x.squeeze(3)", (4, 3, 6, 6)), ("x.squeeze(-1)", (4, 3, 1)), ("x.squeeze()", (4, 3, 6)),
    ("x.squeeze()", (1, 3, 1)), ("x.squeeze(-1)", ()), ("x.squeeze(0)", ()), ("x.squeeze()", ()),
    ("x.squeeze((0, 2))", (1, 3, 1)), ("x.unsqueeze(0)", (4, 3)), ("x.unsqueeze(2)", (4, 3)),
    ("x.unsqueeze(-1)", (4, 3)), ("x.unsqueeze(-3)", (4, 3)), ("x.unsqueeze(0)", ()),
    ("x.flatten()", (4, 3, 2)), ("x.flatten(start_dim=1)", (4, 3, 2, 2)),
    ("x.flatten(end_dim=1)", (4, 3, 2, 2)), ("x.flatten(1, 2)", (4, 3, 2, 2)),
    ("x.flatten()", ()), ("x.flatten()", (1,)), ("x.unflatten(0, (2, 2))", (4, 3)),
    ("x.unflatten(-1, (3, 2, 1))", (4, 6)), ("x.unflatten(1, (-1, 2))", (4, 6)),
    ("x.expand((4, 3, 2, 6))", (4, 3, 1, 6)), ("x.expand(4, 3, 2, 6)", (1, 1, 1, 1)),
    ("x.expand((6, 1, 4, 3, 2, 6))", (4, 3, 1, 6)), ("x.expand((4, 3, 0, 6))", (4, 3, 1, 6)),
    ("x.expand((4, 3, 2, 6))", ()), ("x.expand([])", ()), ("x.expand(-1, 5)", (3, 1)),
    ("x.expand_as(T.ones(2, 3, 4))", (3, 1)), ("x.broadcast_to((2, 3, 4))", (3, 1)),
    ("x.repeat(2, 4, 3)", (4, 6, 3)), ("x.repeat(2, 4, 3, 2)", (4, 6, 3)),
    ("x.repeat(3, 2, 2, 1, 1)", (4, 6, 3)), ("x.repeat(2, 3)", ()), ("x.repeat((2, 0, 4))",
                                                                     (2, 3, 1)),
    ("x.repeat(3, 3, 4)", (3, 3)), ("x.tile((2, 2))", (2, 3)), ("x.tile(2)", (2, 3)),
    ("x.repeat_interleave(6)", (3, 3)), ("x.repeat_interleave(2, 1)", (3, 3)),
    ("x.repeat_interleave(2, 0)", (3, 3)), ("x.repeat_interleave(2, -1)", (3, 3)),
    ("x.repeat_interleave(T.tensor([1, 0, 2]), dim=0)", (3, 3)),
    ("x.roll(1)", (2, 4)), ("x.roll((1,))", (2, 4)), ("x.roll(1, 0)", (2, 4)),
    ("x.roll(-1, 0)", (2, 4)), ("x.roll(shifts=(2, 1), dims=(0, 1))", (2, 4)),
    ("x.roll(5, 0)", (2, 4)), ("x.roll(-5, 0)", (2, 4)), ("x.roll(1, -1)", (2, 4)),
    ("x.roll(shifts=(2, -3), dims=(0, 2))", (2, 4, 6)), ("x.roll(0, 0)", (2, 4)),
    ("x.roll(shifts=(1, 2, -1), dims=(0, 1, 2))", (2, 4, 6)),
    ("x.tril()", (3, 3)), ("x.tril(1)", (3, 3)), ("x.tril(-1)", (3, 3)), ("x.tril(6)", (4, 5)),
    ("x.tril(-6)", (4, 5)), ("x.tril()", (5, 3, 3)), ("x.tril()", (5, 0, 3)),
    ("x.triu()", (3, 3)), ("x.triu(2)", (3, 3)), ("x.triu(-2)", (3, 3)), ("x.triu(5)", (4, 5)),
    ("x.triu(-4)", (4, 5)), ("x.triu(1)", (5, 3, 3)), ("T.triu(x, diagonal=1)", (4, 4)),
    ("T.tril(x, diagonal=-1)", (4, 4)), ("x.diag()", (5,)), ("x.diag(1)", (5,)),
    ("x.diag()", (4, 5)), ("x.diag(-1)", (4, 5)), ("x.diagonal()", (5, 5)),
    ("x.diagonal(1)", (4, 5)), ("x.diagonal(0, 1, 2)", (2, 3, 3)),
    ("x.diagonal(offset=-1, dim1=0, dim2=2)", (3, 2, 4)), ("T.diag_embed(x)", (2, 3)),
    ("x.trace()", (4, 5)), ("x.unfold(0, 2, 1)", (8,)), ("x.unfold(0, 2, 2)", (8,)),
    ("x.unfold(0, 7, 3)", (8,)), ("x.unfold(2, 2, 8)", (3, 3, 3)), ("x.unfold(1, 0, 8)", (3, 3, 3)),
    ("x.unfold(-1, 2, 2)", (2, 2, 2, 3, 3)), ("x.narrow(1, 1, 2)", (3, 4)),
    ("x.movedim(0, -1)", (2, 3, 4)), ("T.moveaxis(x, (0, 1), (2, 0))", (2, 3, 4)),
    ("x.swapaxes(0, 1)", (2, 3)), ("x.swapdims(0, 2)", (2, 3, 4)), ("x.contiguous()", (2, 3)),
    ("x.t().contiguous().view(-1)", (2, 3)), ("x.t()", (5,)), ("x.view_as(x.T)", (3, 3)),
    ("x.reshape_as(T.zeros(6))", (2, 3)), ("x.type_as(T.zeros(1, dtype=T.float64))", (2, 3)),
    ("T.rot90(x)", (2, 3)), ("T.rot90(x, 2, (0, 1))", (2, 3)), ("T.rot90(x, -1)", (2, 3)),
    ("x.ravel()", (2, 3)), ("T.atleast_2d(x)", (3,)), ("T.atleast_3d(x)", (3, 2)),
    ("x.new_zeros(2) + x.sum()", (2, 3)), ("x.clone()", (2, 3)), ("x.detach()", (2, 3)),
    ("x.data", (2, 3)), ("x.float()", (2, 3)), ("x.double()", (2, 3)), ("x.half()", (2, 3)),
    ("x.to(T.float64)", (2, 3)), ("x.type(T.float64)", (2, 3)), ("x.int()", (2, 3)),
    ("x.long()", (2, 3)), ("x.bool()", (2, 3)), ("x.to(T.uint8)", (2, 3)),
    ("x.abs().mul(50).type(T.uint8)", (2, 3)), ("x.view(T.int32)", (2, 3)),
]
for _expr, _shape in SHAPE_CALLS:
    case(f"shape:{_expr}-{_shape}", [_shape], lambda T, x, e=_expr: eval(e, {"x": x, "T": T}),
         atol=1e-3 if "half" in _expr else 1e-6)
case("split-sizes", [(10, 3)], lambda T, x: list(x.split(3)) + list(x.split([1, 4, 5])))
case("split-dim", [(4, 4)], lambda T, x: list(x.split([2, 2], dim=1)) + list(T.split(x, 1, 1)))
case("chunk", [(13, 8)], lambda T, x: list(x.chunk(6, 0)) + list(x.chunk(3, -1)))
case("unbind", [(3, 4)], lambda T, x: list(x.unbind(1)) + list(T.unbind(x)))
case("tensor_split", [(7, 3)], lambda T, x: list(x.tensor_split(3)) + list(x.tensor_split([1, 5])))
for _dim in range(-2, 3):
    case(f"cat-{_dim}", [(4, 5, 3)] * 3, lambda T, x, y, z, d=_dim: T.cat((x, y, z), d))
    case(f"stack-{_dim}", [(4, 5, 3)] * 3, lambda T, x, y, z, d=_dim: T.stack((x, y, z), d))
case("stack-dim-3", [(4, 5, 3)] * 2, lambda T, x, y: T.stack([x, y], dim=3))
case("cat-zero-in-other-axis", [(4, 0, 3)] * 3, lambda T, x, y, z: T.cat((x, y, z), 0))
case("cat-zero-in-cat-axis", [(4, 0, 3), (4, 1, 3), (4, 2, 3)],
     lambda T, x, y, z: T.cat((x, y, z), 1))
case("cat-1d-empty-legacy", [(4, 3), (0,)], lambda T, x, y: T.cat([x, y]))
case("concat-concatenate", [(2, 3), (2, 3)], lambda T, x, y: [T.concat([x, y], 1),
                                                             T.concatenate([x, y], axis=0)])
case("stacks", [(2, 3), (2, 3)], lambda T, x, y: [T.hstack([x, y]), T.vstack([x, y]),
                                                  T.dstack([x, y]), T.column_stack([x, y])])
case("stack-slice", [(4,)], lambda T, x: T.stack([x for _ in range(3)])[0, :])
case("stack-0d", [()], lambda T, x: T.stack([x, x]))
case("meshgrid-ij", [(3,), (4,), ()], lambda T, x, y, z: list(T.meshgrid(x, y, z, indexing="ij")))
case("meshgrid-xy", [(3,), (4,)], lambda T, x, y: list(T.meshgrid(x, y, indexing="xy")))
case("meshgrid-one", [(3,)], lambda T, x: list(T.meshgrid(x, indexing="ij")))
case("meshgrid-list", [(3,), (2,)], lambda T, x, y: list(T.meshgrid([x, y], indexing="ij")))

# --- indexing -----------------------------------------------------------------------------------
INDEX = [("x[1:3]", (3,)), ("x[0:2]", (3,)), ("x[-2:2]", (3,)), ("x[None]", ()),
         ("x[0]", (3,)), ("x[-1]", (3,)), ("x[-3]", (3,)), ("x[1]", (4, 4)), ("x[1, 1, 1]",
                                                                              (3, 3, 3)),
         ("x[1:2]", (3, 3, 3)), ("x[1:2, 2]", (3, 3, 3)), ("x[1:2, 1:2, 0:-1]", (3, 3, 3)),
         ("x[None]", (3, 3, 3)), ("x[1:2, None]", (3, 3, 3)), ("x[1:2, None, 1:2]", (3, 3, 3)),
         ("x[1:2, 1:2, None, -1]", (3, 3, 3)), ("x[None, None, 1, None, 2, 0:2]", (3, 3, 3)),
         ("x[:, [0], :]", (3, 3, 3)), ("x[0:4]", (3, 3, 3)), ("x[-6:4]", (3, 3, 3)),
         ("x[1:50]", (3, 3, 3)), ("x[1:50, 1:2, -1]", (3, 3, 3)), ("x[::2, ::3, ::4]", (7, 5, 10)),
         ("x[1:5:2, ::3, ::4]", (7, 5, 10)), ("x[1:5:2, 3, ::4]", (7, 5, 10)),
         ("x[1:5:2, None, None, 3, None, ::4]", (7, 5, 10)), ("x[5:10]", (3, 3, 3)),
         ("x[-15:-7]", (3, 3, 3)), ("x[-2:-5]", (3, 3, 3)), ("x[1:1]", (4, 4)),
         ("x[..., 0]", (3, 3, 3, 3)), ("x[0, ...]", (3, 3, 3, 3)), ("x[0, ..., 0]", (3, 3, 3, 3)),
         ("x[0:3, ..., 2:3]", (3, 3, 3, 3)), ("x[None, 0:3, ..., 0, None]", (3, 3, 3, 3)),
         ("x[:, 1:2][1:2]", (4, 4)), ("x[1:3][1:2]", (4, 4)), ("x[:, 1:2][:, 0:1]", (4, 4)),
         ("x[[0, 2, 2, 1]]", (4, 3)), ("x[[True, False, 2]]", (5, 6)),
         ("x[T.tensor([[0, 0, 0], [0, 0, 0]]), T.tensor(1)]", (2, 3)),
         ("x[T.tensor([1]), T.tensor([[0, 0, 0], [0, 0, 0]])]", (2, 3)),
         ("x[T.tensor([[0, 1, -1], [-1, -2, 0]]), T.tensor([2, 1, -1])]", (2, 3)),
         ("x[x > 0]", (4, 5)), ("x[x[:, 0] > 0]", (4, 5)), ("x[:, T.tensor([True, False, True])]",
                                                            (2, 3)),
         ("x[((0,),)]", (2, 5, 3)), ("x[(1, 0, -1), [0, 1, 2], :]", (2, 5, 3)),
         ("x[[[0], [1]], [[1, 2]], 0]", (2, 5, 3)), ("x[1, :, [0, 2]]", (2, 5, 3)),
         ("x[:, [0, 2], 1:3]", (2, 5, 3)), ("x[[0, 1], ..., [1, 2]]", (2, 5, 3)),
         ("x[T.tensor([0, 1]), None, T.tensor([1, 2])]", (2, 5, 3)),
         ("x[[0, 1], :, None, [1, 2]]", (2, 5, 3, 4)), ("x[:, [1, 1, 3]]", (3, 5)),
         ("x[T.tensor(1)]", (3, 5)), ("x[T.tensor([2, 2, 0])][:, 1:]", (3, 5)),
         ("x[..., None]", (2, 3)), ("x[...]", (2, 3)), ("x[:, None, :, None]", (2, 3))]
for _expr, _shape in INDEX:
    case(f"index:{_expr}-{_shape}", [_shape], lambda T, x, e=_expr: eval(e, {"x": x, "T": T}))
case("index-fancy-inf", None, lambda T, x: x[T.tensor([0, 1, 2, 2])],
     vals=[[math.inf, -math.inf, math.nan]])
_IDX = np.random.default_rng(1).integers(0, 3, size=(3, 4, 5))
for _dim in (0, 1, 2, -1, -2, -3):
    case(f"gather-{_dim}", [(4, 5, 6)],
         lambda T, x, d=_dim: x.gather(dim=d, index=T.tensor(_IDX)))
    case(f"scatter-{_dim}", [(4, 5, 6), (3, 4, 5)],
         lambda T, x, src, d=_dim: x.scatter(dim=d, index=T.tensor(_IDX), src=src))
    case(f"scatter_add-{_dim}", [(4, 5, 6), (3, 4, 5)],
         lambda T, x, src, d=_dim: x.scatter_add(d, T.tensor(_IDX), src))
case("gather-function", [(3, 4, 5)], lambda T, x: T.gather(x, 0, T.tensor(_IDX)))
case("gather-small", None, lambda T, x: x.gather(dim=0, index=T.tensor([2, 1, 0, 1, 2])),
     vals=[[-math.inf, 2.0, 3.0]])
case("take_along_dim", [(3, 4)], lambda T, x: T.take_along_dim(x, x.argsort(1), dim=1))
case("take", [(3, 4)], lambda T, x: T.take(x, T.tensor([[0, 5], [11, 3]])))
case("scatter-value", [(4, 5, 6)], lambda T, x: [x.scatter(dim=1, index=T.tensor(_IDX), value=3),
                                                 x.scatter(1, T.tensor(_IDX), float("inf"))])
case("scatter-value-reduce", [(4, 5, 6)],
     lambda T, x: [x.scatter(dim=1, index=T.tensor(_IDX), value=2.0, reduce="add"),
                   x.scatter(1, T.tensor(_IDX), 2.0, reduce="multiply")], forward_only=True)
case("scatter-src-reduce", [(4, 5, 6), (4, 5, 6)],
     lambda T, x, s: [x.scatter(1, T.tensor(_IDX), s, reduce="add"),
                      x.scatter(1, T.tensor(_IDX), s, reduce="multiply")], forward_only=True)
case("scatter-overlapping", None, lambda T, x, src: x.scatter(0, T.tensor([0, 0]), src),
     vals=[[1.0, 2.0, 3.0, 4.0], [1.0, 0.0]], forward_only=True)
case("scatter-bigger-src", [(10, 3, 10), (10, 10, 10)],
     lambda T, x, src: x.scatter(1, T.tensor(_IDX), src), forward_only=True)
for _reduce in ("sum", "prod", "mean", "amin", "amax"):
    for _incl in (True, False):
        case(f"scatter_reduce-{_reduce}-{_incl}", [(3, 4, 5), (3, 4, 5)],
             lambda T, x, s, r=_reduce, i=_incl: x.scatter_reduce(
                 1, T.tensor(_IDX), s, reduce=r, include_self=i),
             forward_only=_reduce in ("amin", "amax", "prod"))
case("index_select", [(4, 5)], lambda T, x: [x.index_select(0, T.tensor([3, 0, 3])),
                                             T.index_select(x, 1, T.tensor([1]))])
case("index_add-copy-fill", [(4, 5), (2, 5)],
     lambda T, x, s: [x.index_add(0, T.tensor([1, 1]), s), x.index_copy(0, T.tensor([3, 0]), s),
                      x.index_fill(1, T.tensor([0, 2]), -1.0)])
case("masked_scatter", [(3, 4), (12,)], lambda T, x, s: x.masked_scatter(x > 0, s))
case("nonzero-argwhere", [(3, 4)], lambda T, x: [(x > 0).nonzero(), T.argwhere(x > 0),
                                                 (x > 0).nonzero(as_tuple=True)[1]])
case("put-index_put", [(3, 4), (2,)],
     lambda T, x, v: [x.index_put((T.tensor([0, 2]), T.tensor([1, 3])), v),
                      x.index_put((T.tensor([0, 0]), T.tensor([1, 1])), v, accumulate=True)])
case("setitem-on-clone", [(3, 4), (4,)], lambda T, x, v: _setitem(x, v))


def _setitem(x, v):
    y = x.clone()
    y[1] = v
    y[:, 0] = 5.0
    y[y > 1.5] = 0.0
    return y * 2


# --- sorting ------------------------------------------------------------------------------------
for _dim in (-1, 0, 1):
    for _desc in (True, False):
        case(f"sort-{_dim}-{_desc}", [(4, 5, 3)],
             lambda T, x, d=_dim, s=_desc: list(x.sort(d, s)))
        case(f"argsort-{_dim}-{_desc}", [(4, 5, 3)],
             lambda T, x, d=_dim, s=_desc: T.argsort(x, dim=d, descending=s, stable=True))
        case(f"topk-{_dim}-{_desc}", [(5, 5, 4)],
             lambda T, x, d=_dim, s=_desc: list(x.topk(3, d, s, True)))
for _shape in [(0,), (0, 5), (1,), (1, 5)]:
    case(f"sort-{_shape}", [_shape], lambda T, x: list(x.sort(0)))
case("sort-stable-ties", None, lambda T, x: [*x.sort(stable=True),
                                             *x.sort(stable=True, descending=True)],
     vals=[[0.0, 1.0] * 9])
case("sort-int", None, lambda T, x: list(T.sort(x, descending=True)), vals=[[3, 1, 2, 5]])
case("topk-1d", [(8,)], lambda T, x: list(x.topk(3)))
case("topk-keywords", [(4, 8)], lambda T, x: list(T.topk(x, k=2, dim=1, largest=False)))
case("kthvalue-median-mode", [(4, 7)], lambda T, x: [*x.kthvalue(3, 1), *x.median(1),
                                                     x.median(), *x.msort().max(0)])
case("msort-unique", None, lambda T, x: [T.unique(x), *T.unique(x, return_counts=True),
                                         T.unique_consecutive(x)], vals=[[3, 1, 1, 2, 3, 3]])
case("searchsorted-bucketize", None,
     lambda T, x, v: [T.searchsorted(x, v), T.searchsorted(x, v, right=True), T.bucketize(v, x)],
     vals=[[1.0, 2.0, 4.0, 8.0], [0.5, 2.0, 3.0, 9.0]])

# --- activations ---------------------------------------------------------------------------------
ACT = {
    "relu": lambda T, x: F(T).relu(x),
    "leaky_relu": lambda T, x: F(T).leaky_relu(x, 0.01),
    "leaky_relu-kw": lambda T, x: F(T).leaky_relu(x, negative_slope=0.2),
    "celu-1": lambda T, x: F(T).celu(x, 1.0),
    "celu-3": lambda T, x: F(T).celu(x, alpha=3.0),
    "selu": lambda T, x: F(T).selu(x),
    "silu": lambda T, x: F(T).silu(x),
    "elu": lambda T, x: F(T).elu(x),
    "elu-0.1": lambda T, x: F(T).elu(x, alpha=0.1),
    "relu6": lambda T, x: F(T).relu6(x),
    "hardswish": lambda T, x: F(T).hardswish(x),
    "hardsigmoid": lambda T, x: F(T).hardsigmoid(x),
    "mish": lambda T, x: F(T).mish(x),
    "softplus": lambda T, x: F(T).softplus(x),
    "softplus-beta3": lambda T, x: F(T).softplus(x, beta=3),
    "softplus-beta-third": lambda T, x: F(T).softplus(x, beta=1 / 3),
    "softplus-threshold": lambda T, x: F(T).softplus(x, beta=2, threshold=1),
    "softsign": lambda T, x: F(T).softsign(x),
    "logsigmoid": lambda T, x: F(T).logsigmoid(x),
    "gelu": lambda T, x: F(T).gelu(x),
    "gelu-tanh": lambda T, x: F(T).gelu(x, approximate="tanh"),
    "quick-gelu": lambda T, x: x * T.sigmoid(1.702 * x),
    "tanhshrink": lambda T, x: F(T).tanhshrink(x),
    "hardtanh": lambda T, x: F(T).hardtanh(x),
    "hardtanh-args": lambda T, x: F(T).hardtanh(x, -0.5, 0.7),
    "hardshrink": lambda T, x: F(T).hardshrink(x, 0.5),
    "softshrink": lambda T, x: F(T).softshrink(x),
    "threshold": lambda T, x: F(T).threshold(x, 0.3, -1.0),
    "glu": lambda T, x: F(T).glu(x, -1),
    "rrelu-eval": lambda T, x: F(T).rrelu(x, training=False),
    "prelu": lambda T, x: F(T).prelu(x, T.tensor([0.25], dtype=x.dtype)),
    "sigmoid-F": lambda T, x: F(T).sigmoid(x),
    "tanh-F": lambda T, x: F(T).tanh(x),
    "normalize": lambda T, x: F(T).normalize(x, dim=-1),
    "normalize-p1": lambda T, x: F(T).normalize(x, p=1, dim=0),
}
for _name, _fn in ACT.items():
    case(f"act-{_name}", [(6, 8)], _fn)
    if _name not in ("glu", "normalize", "normalize-p1"):
        case(f"act-{_name}-0d", [()], _fn)
for _name in ["softplus", "gelu-tanh", "quick-gelu", "silu", "logsigmoid", "mish", "selu", "elu",
              "celu-1", "softsign", "hardswish"]:
    case(f"act-{_name}-large", [(6, 8)], ACT[_name], low=300, high=400)
    case(f"act-{_name}-very-negative", [(6, 8)], ACT[_name], low=-400, high=-300)
for _name in ["relu", "relu6", "hardtanh", "hardswish", "hardsigmoid", "leaky_relu", "elu",
              "softsign"]:
    case(f"act-{_name}-kinks", None, ACT[_name], vals=[[-3.0, -1.0, 0.0, 1.0, 3.0, 6.0]])
case("act-modules", [(6, 8)], lambda T, x: [T.nn.ReLU()(x), T.nn.GELU()(x), T.nn.SiLU()(x),
                                            T.nn.LeakyReLU(0.1)(x), T.nn.Hardtanh(-1, 1)(x),
                                            T.nn.Tanh()(x), T.nn.Sigmoid()(x), T.nn.ELU()(x),
                                            T.nn.Softplus(beta=2)(x), T.nn.Mish()(x)])

# --- losses ---------------------------------------------------------------------------------------
_CLASSES = np.random.default_rng(2).integers(0, 10, size=(12,))
_CLASSES_3D = np.random.default_rng(3).integers(0, 10, size=(4, 3, 3))
_WEIGHT = np.random.default_rng(4).uniform(0.1, 2, size=(10,)).astype(np.float32)
for _r in ("mean", "sum", "none"):
    case(f"cross_entropy-indices-{_r}", [(12, 10)],
         lambda T, x, r=_r: F(T).cross_entropy(x, T.tensor(_CLASSES), reduction=r))
    case(f"cross_entropy-probs-{_r}", [(12, 10), (12, 10)],
         lambda T, x, y, r=_r: F(T).cross_entropy(x, y.softmax(1), reduction=r))
    case(f"cross_entropy-weight-{_r}", [(12, 10)],
         lambda T, x, r=_r: F(T).cross_entropy(x, T.tensor(_CLASSES),
                                               T.tensor(_WEIGHT, dtype=x.dtype), reduction=r))
    case(f"nll_loss-{_r}", [(12, 10)],
         lambda T, x, r=_r: F(T).nll_loss(F(T).log_softmax(x, dim=1), T.tensor(_CLASSES),
                                          reduction=r))
    case(f"nll_loss-weight-{_r}", [(12, 10)],
         lambda T, x, r=_r: F(T).nll_loss(x.log_softmax(1), T.tensor(_CLASSES),
                                          T.tensor(_WEIGHT, dtype=x.dtype),
                                          reduction=r))
    case(f"nll_loss-3d-weight-{_r}", [(4, 10, 3, 3)],
         lambda T, x, r=_r: F(T).nll_loss(x.log_softmax(1), T.tensor(_CLASSES_3D),
                                          T.tensor(_WEIGHT, dtype=x.dtype), reduction=r))
    case(f"bce-{_r}", [(8, 10), (8, 10)],
         lambda T, x, y, r=_r: F(T).binary_cross_entropy(x.sigmoid(), y.clip(0, 1), reduction=r))
    case(f"bce-logits-{_r}", [(8, 10), (8, 10)],
         lambda T, x, y, r=_r: F(T).binary_cross_entropy_with_logits(x, y.clip(0, 1), reduction=r))
    case(f"mse-l1-smoothl1-huber-{_r}", [(8, 10), (8, 10)],
         lambda T, x, y, r=_r: [F(T).mse_loss(x, y, reduction=r), F(T).l1_loss(x, y, reduction=r),
                                F(T).smooth_l1_loss(x, y, reduction=r, beta=0.5),
                                F(T).huber_loss(x, y, reduction=r, delta=0.7)])
    case(f"kl_div-{_r}", [(8, 10), (8, 10)],
         lambda T, x, y, r=_r: F(T).kl_div(x.log_softmax(1), y.softmax(1), reduction=r))
case("cross_entropy-1d-probs", [(10,), (10,)], lambda T, x, y: F(T).cross_entropy(x, y.softmax(0)))
case("cross_entropy-1d-index", [(10,)], lambda T, x: F(T).cross_entropy(x, T.tensor(3)))
case("cross_entropy-spatial-probs", [(4, 4, 3, 3), (4, 4, 3, 3)],
     lambda T, x, y: F(T).cross_entropy(x, y.softmax(1)))
case("cross_entropy-spatial-index", [(4, 10, 3, 3)],
     lambda T, x: F(T).cross_entropy(x, T.tensor(_CLASSES_3D)))
for _ls in (0.0, 0.3, 0.7, 1.0):
    case(f"cross_entropy-smoothing-{_ls}", [(12, 10)],
         lambda T, x, ls=_ls: F(T).cross_entropy(x, T.tensor(_CLASSES), label_smoothing=ls))
    case(f"cross_entropy-probs-smoothing-{_ls}", [(12, 10), (12, 10)],
         lambda T, x, y, ls=_ls: F(T).cross_entropy(x, y.softmax(1), label_smoothing=ls))
for _ii in (-1, 0, 3):
    case(f"cross_entropy-ignore-{_ii}", [(12, 10)],
         lambda T, x, i=_ii: T.nn.CrossEntropyLoss(ignore_index=i)(x, T.tensor(_CLASSES % 4)))
case("cross_entropy-all-args", [(12, 10)],
     lambda T, x: T.nn.CrossEntropyLoss(reduction="mean", ignore_index=int(_CLASSES[0]),
                                        label_smoothing=0.3, weight=T.tensor(_WEIGHT,
                                                                             dtype=x.dtype))(
         x, T.tensor(_CLASSES)))
case("cross_entropy-permuted-batch", [(3, 12, 10)],
     lambda T, x: T.nn.CrossEntropyLoss()(x.permute(0, 2, 1),
                                          T.tensor(_CLASSES_3D[:3, 0].repeat(4).reshape(3, 12))))
case("nll_loss-ignore-index", None,
     lambda T, x: F(T).nll_loss(F(T).log_softmax(x, dim=1), T.tensor([0, 1, 2]), ignore_index=1),
     vals=[[[2.0, 0.5, -1.0], [1.5, 2.5, -0.5], [0.0, -2.0, 1.0]]])
case("bce-logits-pos-weight", [(8, 10), (8, 10)],
     lambda T, x, y: F(T).binary_cross_entropy_with_logits(
         x, y.clip(0,
                   1), pos_weight=T.tensor([0.25, 0.5, 0.75, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0])))
case("bce-weight", [(8, 10), (8, 10)],
     lambda T, x, y: F(T).binary_cross_entropy(x.sigmoid(), y.clip(0, 1), weight=y.abs().detach()))
case("other-losses", [(8, 10), (8, 10)],
     lambda T, x, y: _other_losses(F(T), x, y.detach(), T.tensor(_CLASSES[:8])))


def _other_losses(F, x, y, classes):
    return [F.soft_margin_loss(x, y.sign()), F.hinge_embedding_loss(x, y.sign()),
            F.poisson_nll_loss(x, y.abs()), F.gaussian_nll_loss(x, y, x.abs() + 0.1),
            F.cosine_embedding_loss(x, y, y[:, 0].sign()),
            F.margin_ranking_loss(x[:, 0], y[:, 0], y[:, 1].sign()),
            F.multilabel_soft_margin_loss(x, y.gt(0).float()), F.triplet_margin_loss(x, y,
                                                                                     x.flip(0)),
            F.multi_margin_loss(x, classes)]


_C5 = np.random.default_rng(2).integers(0, 5, size=(6,))
_W5 = np.random.default_rng(4).uniform(0.1, 2, size=(5,)).astype(np.float32)
MORE_LOSSES = {
    "ce-probs-weight-smoothing": ([(6, 5), (6, 5)], lambda T, x, y: F(T).cross_entropy(
        x, y.softmax(1), weight=T.tensor(_W5, dtype=x.dtype), label_smoothing=0.2)),
    "ce-ignore-weight-smoothing": ([(6, 5)], lambda T, x: [F(T).cross_entropy(
        x, T.tensor(_C5), weight=T.tensor(_W5, dtype=x.dtype), ignore_index=int(_C5[0]),
        label_smoothing=0.3, reduction=r) for r in ("mean", "sum", "none")]),
    "nll-unbatched": ([(5,)], lambda T, x: F(T).nll_loss(x.log_softmax(0), T.tensor(2))),
    "ce-unbatched-weight": ([(5,)], lambda T, x: F(T).cross_entropy(
        x, T.tensor(2), weight=T.tensor(_W5, dtype=x.dtype))),
    "bce-weight-broadcast": ([(6, 5), (6, 5), (5,)], lambda T, x, y, w: F(T).binary_cross_entropy(
        x.sigmoid(), y.sigmoid(), weight=w.abs().detach())),
    "bce-logits-weight-pos-weight": ([(6, 5), (6, 5), (5,)],
                                     lambda T, x, y, w: F(T).binary_cross_entropy_with_logits(
                                         x, y.sigmoid(), weight=w.abs().detach(),
                                         pos_weight=w.abs().detach() + 1)),
    "kl-log-target-batchmean": ([(6, 5), (6, 5)], lambda T, x, y: F(T).kl_div(
        x.log_softmax(1), y.log_softmax(1), reduction="batchmean", log_target=True)),
    "huber-delta": ([(6, 5), (6, 5)], lambda T, x, y: F(T).huber_loss(x, y, delta=0.3)),
    "smooth-l1-beta-0": ([(6, 5), (6, 5)], lambda T, x, y: F(T).smooth_l1_loss(x, y, beta=0.0)),
    "poisson-full": ([(6, 5), (6, 5)], lambda T, x, y: F(T).poisson_nll_loss(
        x.abs() + 0.1, y.abs() * 3, log_input=False, full=True)),
    "gaussian-full": ([(6, 5), (6, 5), (6, 5)], lambda T, x, y, v: F(T).gaussian_nll_loss(
        x, y, v.abs() + 0.1, full=True)),
    "gaussian-var-broadcast": ([(6, 5), (6, 5), (6, 1)], lambda T, x, y, v: F(T).gaussian_nll_loss(
        x, y, v.abs() + 0.1)),
    "multilabel-margin": ([(3, 4)], lambda T, x: F(T).multilabel_margin_loss(
        x, T.tensor([[3, 0, -1, 1], [0, 1, 2, 3], [1, -1, 0, 0]]))),
    "multi-margin-p2-weight": ([(6, 5)], lambda T, x: F(T).multi_margin_loss(
        x, T.tensor(_C5), p=2, margin=0.7, weight=T.tensor(_W5, dtype=x.dtype))),
    "triplet-swap-p1": ([(6, 5), (6, 5), (6, 5)],
                        lambda T, a, p, n: F(T).triplet_margin_loss(a, p, n, p=1, swap=True)),
    "ctc": ([(7, 2, 5)], lambda T, x: [F(T).ctc_loss(
        x.log_softmax(2), T.tensor([[1, 2, 2], [3, 4, 0]]), T.tensor([7, 6]), T.tensor([3, 2]),
        reduction=r, zero_infinity=True) for r in ("mean", "sum")]),
    "embedding-bag": ([(10, 3)], lambda T, w: [
        F(T).embedding_bag(T.tensor([1, 2, 4, 5, 4, 3, 2, 9]), w, T.tensor([0, 4]), mode="mean"),
        F(T).embedding_bag(T.tensor([[1, 2], [4, 5]]), w, mode="max")]),
    "local-response-norm": ([(2, 6, 4, 4)], lambda T, x: F(T).local_response_norm(x, 3)),
    "channel-shuffle": ([(2, 6, 2, 2)], lambda T, x: F(T).channel_shuffle(x, 3)),
}
for _name, (_shapes, _fn) in MORE_LOSSES.items():
    case(f"loss-{_name}", _shapes, _fn, atol=1e-5)
case("one_hot", None, lambda T, x: [F(T).one_hot(x, 6), F(T).one_hot(x)], vals=[[1, 2, 4]])
case("one_hot-3d", None, lambda T, x: F(T).one_hot(x, 8),
     vals=[[[[1, 2, 3], [0, 3, 5]], [[1, 2, 3], [0, 3, 5]]]])

# --- normalisation layers, linear, attention, dropout in eval -------------------------------------
case("layer_norm", [(4, 5, 6), (6,), (6,)],
     lambda T, x, w, b: F(T).layer_norm(x, (6,), w, b, eps=1e-5), atol=1e-5)
case("layer_norm-2d-shape", [(4, 5, 6), (5, 6), (5, 6)],
     lambda T, x, w, b: F(T).layer_norm(x, [5, 6], w, b), atol=1e-5)
case("layer_norm-no-affine", [(4, 6)], lambda T, x: F(T).layer_norm(x, (6,)), atol=1e-5)
case("rms_norm", [(4, 6), (6,)], lambda T, x, w: F(T).rms_norm(x, (6,), w, eps=1e-6), atol=1e-5)
case("group_norm", [(2, 6, 4, 4), (6,), (6,)],
     lambda T, x, w, b: F(T).group_norm(x, 3, w, b), atol=1e-5)
case("instance_norm", [(2, 3, 5, 5)], lambda T, x: F(T).instance_norm(x), atol=1e-5)
case("batch_norm-train", [(4, 3, 5, 5), (3,), (3,)],
     lambda T, x, w, b: F(T).batch_norm(x, None, None, w, b, training=True), atol=1e-5)
case("batch_norm-train-1d", [(8, 3), (3,), (3,)],
     lambda T, x, w, b: F(T).batch_norm(x, None, None, w, b, training=True, eps=1e-3), atol=1e-5)
case("batch_norm-eval", [(4, 3, 5), (3,), (3,), (3,), (3,)],
     lambda T, x, m, v, w, b: F(T).batch_norm(x, m.detach(), v.detach().abs() + 0.5, w,
                                              b), atol=1e-5)
case("batch_norm-running-stats", [(4, 3, 5, 5)], lambda T, x: _running_stats(T, x), atol=1e-5)


def _running_stats(T, x):
    mean, var = T.zeros(3, dtype=x.dtype), T.ones(3, dtype=x.dtype)
    out = F(T).batch_norm(x, mean, var, training=True, momentum=0.3)
    return [out, mean, var]


case("linear", [(4, 5), (3, 5), (3,)], lambda T, x, w, b: F(T).linear(x, w, b), atol=1e-5)
case("linear-no-bias-3d", [(2, 4, 5), (3, 5)], lambda T, x, w: F(T).linear(x, w), atol=1e-5)
case("bilinear", [(4, 5), (4, 3), (2, 5, 3), (2,)],
     lambda T, x, y, w, b: F(T).bilinear(x, y, w, b), atol=1e-5)
case("sdpa", [(2, 3, 4, 8)] * 3, lambda T, q, k, v: F(T).scaled_dot_product_attention(q, k, v),
     atol=1e-5)
case("sdpa-mask", [(2, 3, 4, 8), (2, 3, 4, 8), (2, 3, 4, 8), (2, 3, 4, 4)],
     lambda T, q, k, v, m: F(T).scaled_dot_product_attention(q, k, v, attn_mask=m), atol=1e-5)
case("sdpa-bool-mask", [(2, 3, 4, 8)] * 3,
     lambda T, q, k, v: F(T).scaled_dot_product_attention(q, k, v,
                                                          attn_mask=T.ones(4, 4).tril().bool()),
     atol=1e-5)
case("sdpa-causal", [(2, 3, 4, 8)] * 3,
     lambda T, q, k, v: F(T).scaled_dot_product_attention(q, k, v, is_causal=True), atol=1e-5)
case("sdpa-causal-and-mask", [(2, 3, 4, 8), (2, 3, 4, 8), (2, 3, 4, 8), (2, 3, 4, 4)],
     lambda T, q, k, v, m: F(T).scaled_dot_product_attention(q, k, v, attn_mask=m.detach(),
                                                             is_causal=True), atol=1e-5)
case("sdpa-mismatched-lengths", [(2, 3, 2, 8), (2, 3, 5, 8), (2, 3, 5, 8)],
     lambda T, q, k, v: F(T).scaled_dot_product_attention(q, k, v, scale=0.3), atol=1e-5)
case("sdpa-gqa", [(2, 4, 3, 8), (2, 2, 3, 8), (2, 2, 3, 8)],
     lambda T, q, k, v: F(T).scaled_dot_product_attention(q, k, v, enable_gqa=True), atol=1e-5)
case("dropout-eval", [(4, 5)], lambda T, x: [F(T).dropout(x, 0.5, training=False),
                                             F(T).dropout(x, p=0.0), T.nn.Dropout(0.3).eval()(x)])
case("pairwise-cosine", [(4, 5), (4, 5)],
     lambda T, x, y: [F(T).pairwise_distance(x, y), F(T).cosine_similarity(x, y),
                      T.cdist(x, y), T.dist(x, y)], atol=1e-5)
case("embedding", [(10, 4)], lambda T, w: F(T).embedding(T.tensor([[1, 2], [9, 1]]), w))
case("embedding-padding", [(10, 4)],
     lambda T, w: F(T).embedding(T.tensor([[1, 2], [0, 1]]), w, padding_idx=1))

# --- convolutions ---------------------------------------------------------------------------------
CONV2D = [([(1, 4, 9, 9), (4, 4, 3, 3)], {}), ([(1, 4, 9, 9), (4, 4, 3, 3), (4,)], {}),
          ([(2, 4, 9, 9), (4, 4, 1, 1)], {}), ([(1, 3, 5, 7), (6, 1, 3, 3)], {"groups": 3}),
          ([(1, 3, 5, 7), (6, 3, 2, 1)], {}), ([(2, 3, 5, 7), (6, 3, 3, 5)], {}),
          ([(1, 4, 1, 1), (2, 2, 1, 1)], {"groups": 2}), ([(1, 8, 6, 6), (8, 1, 1, 1)],
                                                          {"groups": 8}),
          ([(2, 15, 5, 5), (35, 3, 3, 3)], {"groups": 5}), ([(2, 3, 11, 14), (3, 1, 3, 3)],
                                                            {"groups": 3}),
          ([(2, 1, 5, 1), (1, 1, 3, 1)], {"stride": 2}), ([(2, 3, 11, 14), (4, 3, 3, 3)],
                                                          {"stride": 2}),
          ([(2, 3, 11, 14), (4, 3, 3, 3)], {"stride": (2, 1)}),
          ([(2, 3, 11, 14), (4, 3, 3, 3)], {"padding": (2, 1)}),
          ([(2, 3, 11, 14), (4, 3, 3, 3)], {"padding": 2}), ([(2, 3, 11, 14), (4, 3, 1, 1)],
                                                             {"padding": 2}),
          ([(2, 3, 11, 14), (4, 3, 3, 3)], {"dilation": 2}),
          ([(2, 3, 11, 14), (4, 3, 3, 3)], {"dilation": (2, 1)}),
          ([(2, 3, 11, 14), (4, 3, 3, 3)], {"padding": "same"}),
          ([(2, 3, 11, 14), (4, 3, 3, 2)], {"padding": "same", "dilation": 2}),
          ([(2, 3, 11, 14), (4, 3, 3, 3)], {"padding": "valid"}),
          ([(2, 3, 11, 14), (6, 1, 3, 3), (6,)],
           {"stride": 2, "padding": 1, "dilation": 2, "groups": 3}),
          ([(2, 3, 11, 14), (4, 3, 3, 3)], {"padding": 1, "stride": 3}),
          ([(2, 3, 9, 9), (4, 3, 3, 3)], {"padding": 1, "padding_mode": "reflect"}),
          ([(2, 3, 9, 9), (4, 3, 3, 3)], {"padding": 2, "padding_mode": "circular"}),
          ([(2, 3, 9, 9), (4, 3, 3, 3)], {"padding": 1, "padding_mode": "replicate"}),
          ([(3, 9, 9), (4, 3, 3, 3)], {})]
for _shapes, _kw in CONV2D:
    _mode = _kw.pop("padding_mode", None)
    if _mode:
        case(f"Conv2d-{_shapes}-{_mode}", _shapes, lambda T, x, w, kw=_kw, m=_mode: F(T).conv2d(
            F(T).pad(x, (kw["padding"],) * 4, mode=m), w, **{k: v for k,
                                                             v in kw.items() if k != "padding"}),
             atol=1e-5)
    else:
        case(f"conv2d-{_shapes}-{_kw}", _shapes,
             lambda T, x, w, *b, kw=_kw: F(T).conv2d(x, w, *b, **kw), atol=1e-5)
case("conv2d-nhwc", [(2, 9, 9, 4), (3, 3, 4, 5)],
     lambda T, x, w: F(T).conv2d(x.permute(0, 3, 1, 2), w.permute(3, 2, 0, 1)), atol=1e-5)
case("conv2d-nested-relu", [(1, 4, 7, 7), (4, 4, 3, 3), (4,)],
     lambda T, x, w, b: F(T).conv2d(F(T).conv2d(x, w, b).relu(), w, b), atol=1e-5)
case("conv2d-asymmetric-pad", [(1, 1, 4, 4), (1, 1, 2, 2)],
     lambda T, x, w: F(T).conv2d(F(T).pad(x, (2, 0, 2, 1)), w))
case("conv2d-pad-vals", None, lambda T, x, w: F(T).conv2d(F(T).pad(x, (1, 1, 1, 1)), w),
     vals=[[[[[2.0, 3.0]]]], [[[[1.0]]]]])
case("conv2d-sliced-input", [(1, 1, 10, 10), (1, 1, 3, 3)],
     lambda T, x, w: F(T).conv2d(x[:, :, 1:-1, 1:-1], w))
for _shapes, _kw in [([(1, 1, 11), (6, 1, 1)], {}), ([(8, 3, 11), (6, 3, 5)], {}),
                     ([(8, 3, 11), (6, 1, 5)], {"groups": 3}),
                     ([(2, 1, 5), (1, 1, 3)], {"stride": 2}),
                     ([(2, 2, 11), (6, 2, 5), (6,)], {"padding": 2, "dilation": 2}),
                     ([(2, 2, 11), (6, 2, 4)], {"padding": "same"}), ([(2, 11), (6, 2, 3)], {})]:
    case(f"conv1d-{_shapes}-{_kw}", _shapes,
         lambda T, x, w, *b, kw=_kw: F(T).conv1d(x, w, *b, **kw), atol=1e-5)
case("conv1d-pad-first", [(6, 2, 11), (6, 2, 5)],
     lambda T, x, w: F(T).conv1d(F(T).pad(x, (1, 1)), w))
for _shapes, _kw in [([(1, 2, 5, 5, 5), (3, 2, 3, 3, 3)], {}),
                     ([(1, 2, 5, 5, 5), (3, 2, 3, 3, 3), (3,)], {"padding": 1}),
                     ([(1, 4, 5, 6, 5), (4, 2, 2, 3, 2)],
                      {"groups": 2, "stride": (1, 2, 1), "dilation": 2})]:
    case(f"conv3d-{_shapes}-{_kw}", _shapes,
         lambda T, x, w, *b, kw=_kw: F(T).conv3d(x, w, *b, **kw), atol=1e-5)
CONVT = [([(2, 4, 9, 9), (4, 4, 3, 3)], {}), ([(2, 4, 9, 9), (4, 4, 3, 3), (4,)], {}),
         ([(2, 4, 9, 9), (4, 4, 3, 3)], {"groups": 2}), ([(2, 4, 9, 9), (4, 2, 3, 3)],
                                                         {"groups": 2}),
         ([(2, 4, 5, 5), (4, 4, 3, 3)], {"padding": (1, 2)}), ([(2, 4, 5, 5), (4, 4, 3, 3)],
                                                               {"padding": 2}),
         ([(2, 4, 5, 5), (4, 4, 3, 3)], {"dilation": (1, 2)}), ([(2, 4, 5, 5), (4, 4, 3, 3)],
                                                                {"dilation": 2}),
         ([(2, 4, 4, 5), (4, 4, 3, 3)], {"stride": (2, 1)}), ([(2, 4, 4, 5), (4, 4, 3, 3)],
                                                              {"stride": 2}),
         ([(2, 4, 6, 5), (4, 4, 3, 3), (4,)], {"output_padding": (1, 1), "stride": (2, 3)}),
         ([(2, 4, 6, 5), (4, 4, 3, 3), (4,)], {"output_padding": (2, 1), "stride": (3, 2)}),
         ([(2, 4, 6, 5), (4, 3, 2, 2)], {"stride": 2, "padding": 1, "output_padding": 1})]
for _shapes, _kw in CONVT:
    case(f"conv_transpose2d-{_shapes}-{_kw}", _shapes,
         lambda T, x, w, *b, kw=_kw: F(T).conv_transpose2d(x, w, *b, **kw), atol=1e-5)
case("conv_transpose1d", [(2, 4, 7), (4, 3, 3), (3,)],
     lambda T, x, w, b: F(T).conv_transpose1d(x, w, b, stride=2, padding=1,
                                              output_padding=1), atol=1e-5)
case("conv_transpose3d", [(1, 2, 3, 4, 3), (2, 3, 2, 2, 2)],
     lambda T, x, w: F(T).conv_transpose3d(x, w, stride=2), atol=1e-5)
case("conv-modules", [(2, 3, 8, 8)], lambda T, x: _conv_modules(T, x), atol=1e-5)


def _conv_modules(T, x):
    T.manual_seed(0)
    conv = T.nn.Conv2d(3, 4, 3, padding=1, bias=False)
    convt = T.nn.ConvTranspose2d(4, 2, 2, stride=2, bias=False)
    with T.no_grad():
        conv.weight.copy_(T.linspace(-1, 1, 108).reshape(4, 3, 3, 3))
        convt.weight.copy_(T.linspace(-1, 1, 32).reshape(4, 2, 2, 2))
    return convt.to(x.dtype)(conv.to(x.dtype)(x))


# --- pooling --------------------------------------------------------------------------------------
POOL2D = [{"kernel_size": (2, 2)}, {"kernel_size": 3}, {"kernel_size": (3, 2)},
          {"kernel_size": (5, 1)},
          {"kernel_size": 2, "padding": 1}, {"kernel_size": (3, 3), "padding": (1, 0)},
          {"kernel_size": 3, "padding": (0, 1)}, {"kernel_size": 2, "stride": (2, 3)},
          {"kernel_size": 2, "stride": 3}, {"kernel_size": 5, "stride": 1},
          {"kernel_size": (5, 5), "stride": (3, 2)}, {"kernel_size": 3, "padding": 1, "stride": 3,
                                                      "ceil_mode": True},
          {"kernel_size": (3, 2), "padding": 1, "stride": 3, "ceil_mode": True},
          {"kernel_size": 4, "padding": 1, "stride": 3, "ceil_mode": True},
          {"kernel_size": 2, "stride": 2, "ceil_mode": True}, {"kernel_size": (11, 14)}]
for _kw in POOL2D:
    case(f"max_pool2d-{_kw}", [(2, 2, 11, 14)], lambda T, x, kw=_kw: F(T).max_pool2d(x, **kw))
    case(f"avg_pool2d-{_kw}", [(2, 2, 11, 14)], lambda T, x, kw=_kw: F(T).avg_pool2d(x, **kw),
         rtol=1e-5)
    if "padding" in _kw:
        case(f"avg_pool2d-exclude-pad-{_kw}", [(2, 2, 11, 14)],
             lambda T, x, kw=_kw: F(T).avg_pool2d(x, count_include_pad=False, **kw), rtol=1e-5)
for _kw in [{"kernel_size": 2, "stride": (2, 3), "dilation": (3, 2)},
            {"kernel_size": (5, 5), "dilation": 2}, {"kernel_size": 3, "dilation": (2, 3)},
            {"kernel_size": 2, "stride": 4, "dilation": 6}]:
    case(f"max_pool2d-dilation-{_kw}", [(2, 2, 17, 14)],
         lambda T, x, kw=_kw: F(T).max_pool2d(x, **kw))
case("max_pool2d-6x6-ceil", [(1, 1, 6, 6)],
     lambda T, x: F(T).max_pool2d(x, kernel_size=(3, 3), padding=1, stride=3, ceil_mode=True))
case("max_pool2d-5x5-ceil-drop-window", [(1, 1, 5, 5)],
     lambda T, x: [F(T).max_pool2d(x, kernel_size=(3, 3), stride=3, padding=1, ceil_mode=True),
                   F(T).avg_pool2d(x, kernel_size=(3, 3), stride=3, padding=1, ceil_mode=True),
                   F(T).avg_pool2d(x, 3, 3, 1, True, False)])
case("avg_pool2d-asymmetric", [(1, 1, 8, 8)],
     lambda T, x: F(T).avg_pool2d(x, kernel_size=(1, 2), padding=(0, 1), stride=(5, 1)))
case("avg_pool2d-divisor", [(2, 2, 6, 6)],
     lambda T, x: F(T).avg_pool2d(x, 3, padding=1, divisor_override=2))
case("max_pool2d-ties", None, lambda T, x: F(T).max_pool2d(x, kernel_size=(2, 2), stride=1),
     vals=[[[[[1.0, 2.0] * 3] * 6]]])
case("max_pool2d-all-equal", None, lambda T, x: F(T).max_pool2d(x, kernel_size=3, stride=1),
     vals=[[[[[1.0] * 6] * 6]]])
case("max_pool2d-pad-neg-inf", [(2, 2, 11, 14)],
     lambda T, x: F(T).max_pool2d(F(T).pad(x, (0, 1, 0, 1), value=float("-inf")),
                                  kernel_size=(5, 5)))
case("max_pool2d-int", [(2, 2, 8, 8)], lambda T, x: F(T).max_pool2d((x * 10).int(), 2, padding=1),
     forward_only=True)
for _kw in [{"kernel_size": (2, 2)}, {"kernel_size": (3, 2), "stride": 1},
            {"kernel_size": 3, "padding": 1}, {"kernel_size": 2, "stride": 2, "ceil_mode": True}]:
    case(f"max_pool2d-indices-{_kw}", [(2, 3, 7, 7)],
         lambda T, x, kw=_kw: list(F(T).max_pool2d(x, return_indices=True, **kw)))
    case(f"max_unpool2d-{_kw}", [(2, 3, 7, 7)],
         lambda T, x, kw=_kw: F(T).max_unpool2d(*F(T).max_pool2d(x, return_indices=True, **kw),
                                                 kw["kernel_size"], stride=kw.get("stride"),
                                                 padding=kw.get("padding", 0), output_size=(7, 7)))
case("max_unpool2d-output-size-nchw", [(1, 3, 7, 6)],
     lambda T, x: F(T).max_unpool2d(*F(T).max_pool2d(x, kernel_size=2, return_indices=True),
                                    kernel_size=2, output_size=(99, 99, 7, 6)))
for _kw in [{"kernel_size": 2}, {"kernel_size": 3, "stride": 1, "padding": 1},
            {"kernel_size": 3, "stride": 2, "ceil_mode": True}]:
    case(f"max_pool1d-{_kw}", [(2, 3, 11)], lambda T, x, kw=_kw: F(T).max_pool1d(x, **kw))
    case(f"avg_pool1d-{_kw}", [(2, 3, 11)], lambda T, x, kw=_kw: F(T).avg_pool1d(x, **kw))
    case(f"max_pool3d-{_kw}", [(1, 2, 5, 6, 5)], lambda T, x, kw=_kw: F(T).max_pool3d(x, **kw))
    case(f"avg_pool3d-{_kw}", [(1, 2, 5, 6, 5)], lambda T, x, kw=_kw: F(T).avg_pool3d(x, **kw))
case("avg_pool3d-big", [(1, 1, 12, 12, 12)],
     lambda T, x: F(T).avg_pool3d(x, kernel_size=(6, 6, 6), stride=5, padding=1,
                                  count_include_pad=False))
for _out in [1, 2, 3, (2, 5), (None, 3), (4, 7)]:
    case(f"adaptive_avg_pool2d-{_out}", [(2, 3, 8, 7)],
         lambda T, x, o=_out: F(T).adaptive_avg_pool2d(x, o))
    case(f"adaptive_max_pool2d-{_out}", [(2, 3, 8, 7)],
         lambda T, x, o=_out: F(T).adaptive_max_pool2d(x, o))
case("adaptive_pool1d", [(2, 3, 10)], lambda T, x: [F(T).adaptive_avg_pool1d(x, 3),
                                                    F(T).adaptive_max_pool1d(x, 4)])
case("lp_pool2d", [(2, 3, 8, 8)], lambda T, x: F(T).lp_pool2d(x.abs() + 0.1, 2, 2))
case("pool-modules", [(2, 3, 8, 8)], lambda T, x: [T.nn.MaxPool2d(2)(x), T.nn.AvgPool2d(3, 1, 1)(x),
                                                   T.nn.AdaptiveAvgPool2d((1, 1))(x),
                                                   T.nn.AdaptiveMaxPool2d(2)(x)])

# --- padding --------------------------------------------------------------------------------------
for _pad in [(1, 2, 3, 4), (-1, 2, -3, 4), (0, 0, 3, 4), (0, 0, 0, 0), (1, 1)]:
    case(f"pad-constant-{_pad}", [(3, 3, 3, 3)], lambda T, x, p=_pad: F(T).pad(x, p))
    case(f"pad-value-{_pad}", [(3, 3, 3, 3)], lambda T, x, p=_pad: F(T).pad(x, p, value=5.0))
    case(f"pad-2d-{_pad}", [(3, 3)], lambda T, x, p=_pad: F(T).pad(x, p, "constant", 1.0))
case("pad-inf", [(3, 3, 3, 3)], lambda T, x: [F(T).pad(x, (1, 2, 3, 4), value=math.inf),
                                              F(T).pad(x, (-1, 2, -3, 4), value=-math.inf)])
case("pad-all-dims", [(1, 1, 1, 2)],
     lambda T, x: F(T).pad(x, (0, 4, 2, 2, 1, 2, 0, 2)).reshape(4, 3, 6, 5))
case("pad-reshape", [(1, 2)], lambda T, x: [F(T).pad(x, (0, 1, 1, 0)).reshape((3, 2)),
                                            F(T).pad(x, (0, 2, 1, 1)).reshape((4, 3))])
for _pad, _shape in [((0, 2, 3, 2), (1, 1, 5, 5)), ((0, 2), (5, 5, 5)),
                     ((1, 2, 3, 4, 1, 2), (1, 1, 5, 5, 5)),
                     ((4, 4, 0, 4), (1, 1, 5, 5)), ((-1, 2, 2, -1), (3, 3, 3, 3)),
                     ((3, -3, 0, -3), (1, 1, 5, 5)), ((1, 1), (2, 5))]:
    case(f"pad-reflect-{_pad}", [_shape], lambda T, x, p=_pad: F(T).pad(x, p, mode="reflect"))
    case(f"pad-replicate-{_pad}", [_shape], lambda T, x, p=_pad: F(T).pad(x, p, mode="replicate"))
case("pad-replicate-huge", [(1, 1, 5, 5)],
     lambda T, x: F(T).pad(x, (3, 11, 0, 30), mode="replicate"))
for _pad, _shape in [((0, 2, 3, 2), (1, 1, 5, 5)), ((0, 2), (5, 5, 5)),
                     ((1, 2, 3, 5, 1, 2), (1, 1, 5, 5, 5))]:
    case(f"pad-circular-{_pad}", [_shape], lambda T, x, p=_pad: F(T).pad(x, p, mode="circular"))
for _value in (0.0, 3.456):
    for _expr in ["F.pad(x, (1, 0), value=v)[0]", "F.pad(x, (3, 0), value=v)[0:1]",
                  "F.pad(x, (0, 3), value=v)[6]", "F.pad(x, (0, 3), value=v)[4:6]"]:
        case(f"pad-slice-{_value}-{_expr}", [(4,)],
             lambda T, x, e=_expr, v=_value: eval(e, {"x": x, "F": F(T), "v": v}))
    for _expr in ["F.pad(x, (0, 0, 1, 0), value=v)[0]", "F.pad(x, (3, 0, 0, 0), value=v)[1, 0:4]",
                  "F.pad(x, (3, 4, 1, 2), value=v)[:, 4]",
                  "F.pad(x, (0, 1, 3, 2), value=v)[0:2, :]",
                  "F.pad(x, (0, 0, 0, 2), value=v)[3:5]"]:
        case(f"pad-slice-2d-{_value}-{_expr}", [(4, 4)],
             lambda T, x, e=_expr, v=_value: eval(e, {"x": x, "F": F(T), "v": v}))
case("pad-add", [(12, 12), (8, 8)], lambda T, x, w: x + F(T).pad(w, (2, 2, 2, 2)))
case("pad-gemm", [(5, 5), (5, 5)],
     lambda T, x, y: F(T).pad(x, (0, 3, 0, 3)) @ F(T).pad(y, (0, 3, 0, 3)))
case("pad-modules", [(1, 2, 4, 4)],
     lambda T, x: [T.nn.ZeroPad2d(1)(x), T.nn.ConstantPad2d((1, 0, 2, 0), 2.0)(x),
                                                  T.nn.ReflectionPad2d(2)(x),
                                                  T.nn.ReplicationPad2d((1, 2, 0, 1))(x)])

# --- interpolate ----------------------------------------------------------------------------------
for _in, _out in [((12,), (7,)), ((7,), (12,))]:
    case(f"interpolate-linear-{_in}-{_out}", [(2, 3) + _in],
         lambda T, x, o=_out: F(T).interpolate(x, size=o, mode="linear"))
    case(f"interpolate-linear-aligned-{_in}-{_out}", [(2, 3) + _in],
         lambda T, x, o=_out: F(T).interpolate(x, size=o, mode="linear", align_corners=True))
for _mode in ("nearest", "nearest-exact"):
    for _in, _out in [((13,), (9,)), ((9,), (13,)), ((13, 10), (9, 11)), ((9, 11), (10, 13)),
                      ((5, 2, 8), (3, 6, 4))]:
        case(f"interpolate-{_mode}-{_in}-{_out}", [(2, 3) + _in],
             lambda T, x, o=_out, m=_mode: F(T).interpolate(x, size=o, mode=m))
for _in, _out in [((6, 10), (5, 13)), ((6, 5), (13, 10)), ((9, 13), (10, 6))]:
    for _align in (False, True):
        case(f"interpolate-bilinear-{_in}-{_out}-{_align}", [(2, 3) + _in],
             lambda T, x, o=_out, a=_align: F(T).interpolate(x, size=o, mode="bilinear",
                                                             align_corners=a),
             atol=1e-5)
    case(f"interpolate-bicubic-{_in}-{_out}", [(2, 3) + _in],
         lambda T, x, o=_out: F(T).interpolate(x, size=o, mode="bicubic"), atol=1e-5)
for _align in (False, True):
    case(f"interpolate-trilinear-{_align}", [(2, 3, 5, 2, 8)],
         lambda T, x, a=_align: F(T).interpolate(x, size=(3, 6, 4), mode="trilinear",
                                                 align_corners=a),
         atol=1e-5)
case("interpolate-scale-factor", [(2, 3, 4, 5)],
     lambda T, x: [F(T).interpolate(x, scale_factor=2),
                   F(T).interpolate(x, scale_factor=(1.5, 2), mode="bilinear"),
                   F(T).interpolate(x, scale_factor=0.5, mode="area")], atol=1e-5)
case("interpolate-bicubic-aligned", [(2, 3, 5, 6)],
     lambda T, x: F(T).interpolate(x, size=(9, 4), mode="bicubic", align_corners=True), atol=1e-5)
case("interpolate-bicubic-scale", [(1, 2, 4, 5)],
     lambda T, x: F(T).interpolate(x, scale_factor=2.5, mode="bicubic"), atol=1e-5)
case("interpolate-area", [(2, 3, 8, 9)],
     lambda T, x: F(T).interpolate(x, size=(3, 4), mode="area"), atol=1e-5)
case("upsample-modules", [(1, 2, 3, 4)],
     lambda T, x: [T.nn.Upsample(scale_factor=2)(x), T.nn.Upsample(size=(5, 5), mode="bilinear")(x),
                   T.nn.UpsamplingNearest2d(scale_factor=2)(x)], atol=1e-5)
case("interpolate-uint8-nearest", [(2, 3, 16, 16)],
     lambda T, x: F(T).interpolate((10 * x).relu().type(T.uint8), size=(10, 10), mode="nearest"))
case("pixel_shuffle", [(2, 8, 3, 3)], lambda T, x: [F(T).pixel_shuffle(x, 2),
                                                    F(T).pixel_unshuffle(F(T).pixel_shuffle(x, 2),
                                                                         2)])
case("unfold-fold", [(2, 3, 6, 6)], lambda T, x: [F(T).unfold(x, 3, padding=1, stride=2),
                                                  F(T).fold(F(T).unfold(x, 2, stride=2), (6, 6), 2,
                                                            stride=2)])
case("grid_sample", [(1, 2, 5, 5), (1, 3, 4, 2)],
     lambda T, x, g: F(T).grid_sample(x, g.clip(-1, 1) * 0.9, align_corners=False), atol=1e-5)
case("affine_grid", [(2, 2, 3)],
     lambda T, t: F(T).affine_grid(t, [2, 1, 4, 5], align_corners=False))


# --- factories and casts ------------------------------------------------------------------------
CREATION = ["T.zeros(4, 6)", "T.zeros([4, 6])", "T.zeros([])", "T.ones(4, 6)", "T.ones(())",
            "T.full((4, 6), 4)", "T.full((4, 6), 4.0)", "T.full((2,), True)",
            "T.full((4, 6), 4, dtype=T.int32)",
            "T.full_like(T.ones(2, 3, dtype=T.int32), 4)", "T.full_like(T.ones(2, 3), 2).prod()",
            "T.zeros_like(T.ones(2, 3, dtype=T.int32))",
            "T.ones_like(T.ones(2, 3), dtype=T.float64)",
            "T.eye(10)", "T.eye(3, 5)", "T.eye(5, 3)", "T.eye(1)", "T.eye(0)",
            "T.arange(10)", "T.arange(10, dtype=T.int32)", "T.arange(5, 10, 3)",
            "T.arange(10, 5, -3)",
            "T.arange(11, 5, -3)", "T.arange(1, 78, 2)", "T.arange(5.5, 175.5, 2.5)",
            "T.arange(-30.2, -0.3, 0.75)", "T.arange(-50.3, -380.2, -2.25)", "T.arange(0, 1, 0.1)",
            "T.arange(3.0)", "T.arange(T.tensor(4))", "T.linspace(5, 10, 3)",
            "T.linspace(5, 10, 1)",
            "T.linspace(5, 10, 0)", "T.linspace(5, 10, 30)", "T.linspace(-5.5, 5.5, 10)",
            "T.linspace(5.5, -5.5, 10)", "T.linspace(5, 10, 3, dtype=T.int32)",
            "T.linspace(5, 10, 20, dtype=T.int32)", "T.linspace(5, -5, 20, dtype=T.int32)",
            "T.logspace(0, 2, 5)", "T.logspace(0, 2, 5, base=2)",
            "T.tensor([[1, 2, 3], [4, 5, 6]])",
            "T.tensor(3.5)", "T.tensor([1.5, 2])", "T.tensor([True, 1])",
            "T.tensor([], dtype=T.float64)",
            "T.tensor([[1, 2], [3, 4]], dtype=T.float16)",
            "T.as_tensor([1, 2, 3], dtype=T.float32)",
            "T.empty(45, 65) * 0 / 0", "T.ones(4, 4).sum(axis=1)", "(-T.ones(3, 3)).sum(axis=1)",
            "F.pad(T.ones(16, 16), pad=(0, 4, 0, 0)).sum(axis=1)",
            "T.cat([T.ones(16, 16), T.zeros(16, 4)], dim=1).sum(axis=1)",
            "T.ones(16, 16).max(1)[0]",
            "T.eye(6) @ T.eye(6).flip(0)",
            "T.tensor(1.0).reshape((1, 1, 1)).expand(2, 4, 3).sum(-1)",
            "T.ones((1, 2)).matmul(T.ones((2, 3)))",
            "T.arange(13, dtype=T.int32).repeat(8, 1).chunk(6, 1)[2]",
            "T.arange(13, dtype=T.int32).repeat(8, 3, 3).chunk(3, -2)[1]",
            "T.arange(10).split([1, 4, 5])[1]",
            "T.arange(12, dtype=T.int32).reshape(3, 4).split(1, dim=1)[3]",
            "T.ones(2 ** 16).bool().all()",
            "T.tril_indices(4, 3)", "T.triu_indices(3, 4, 1)",
            "T.tensor([2.0, -2.0, 300.5]).type(T.uint8)",
            "T.tensor([1.7, -1.7, 2.5]).int()", "T.tensor([0.0, 0.5, -1.0]).bool()",
            "T.tensor([True, False]).float()", "T.tensor([0, 1, 2, 3]).float()",
            "T.tensor([200, 100], dtype=T.uint8) + T.tensor([100, 200], dtype=T.uint8)",
            "T.tensor([1, 2], dtype=T.int8) * 100", "T.tensor([1, 2]) * 1.5",
            "T.tensor([1, 2], dtype=T.int32) + T.tensor([1, 2], dtype=T.int64)",
            "T.tensor([1.0], dtype=T.float16) + T.tensor([1.0])",
            "T.tensor([1, 2], dtype=T.uint8) + 1.5",
            "T.tensor([True, False]) + T.tensor([True, True])",
            "T.tensor([3, 4]) / T.tensor([2, 2])",
            "T.tensor([3, 4]) // 2.0", "T.tensor([3, 4], dtype=T.int32) ** 2.0",
            "T.tensor(2) ** T.tensor([1.5])",
            "T.tensor([1.0, 2.0]).new_tensor([3, 4])", "T.tensor([1, 2]).new_ones(3)",
            "T.tensor([1.0]).new_full((2,), 7)"]
for _expr in CREATION:
    case(f"create:{_expr}", None, lambda T, e=_expr: eval(e, {"T": T, "F": F(T)}), vals=[],
         atol=1e-3 if "float16" in _expr else 1e-6)
case("where-const-int32", [(10,)],
     lambda T, x: T.where(x > 0.5, 4, 2).type(T.int32).reshape(2, 5).permute(1, 0))
case("argmax-cast", [(5, 6)], lambda T, x: [x.argmax().type(T.int32), x.argmax(0, False).int(),
                                            x.argmax(1, True).to(T.int32)])
case("masked_select-0d-mask", [(4, 5)], lambda T, x: x.masked_select(T.tensor(True)))
case("unfold-negative-dim", [(3, 3, 3, 3, 3)], lambda T, x: x.unfold(-1, 2, 2))
case("detach-0d", [()], lambda T, x: x.detach())


# --- micrograd-style scalar programs and teenygrad-style small networks ---------------------------
def _micrograd_sanity(T, x):
    z = 2 * x + 2 + x
    q = z.relu() + z * x
    h = (z * z).relu()
    return h + q + q * x


def _micrograd_more_ops(T, a, b):
    c = a + b
    d = a * b + b ** 3
    c = c + c + 1
    c = c + 1 + c + (-a)
    d = d + d * 2 + (b + a).relu()
    d = d + 3 * d + (b - a).relu()
    e = c - d
    f = e ** 2
    g = f / 2.0
    return g + 10.0 / f


def _augmented_assignment(T, a, b):
    c = a * b
    c += c + 1
    c *= 2
    c -= a
    c /= b.abs() + 1
    return c


def _teenygrad_backward_pass(T, x, w, m):
    out = x.matmul(w).relu()
    out = out.log_softmax(1)
    return out.mul(m).add(m).sum()


case("micrograd-sanity", None, _micrograd_sanity, vals=[-4.0], dtype=np.float64)
case("micrograd-more-ops", None, _micrograd_more_ops, vals=[-4.0, 2.0])
case("micrograd-more-ops-float64", None, _micrograd_more_ops,
     vals=[np.float64(-4.0), np.float64(2.0)])
case("augmented-assignment-non-leaf", [(3, 4), (3, 4)], _augmented_assignment)
case("teenygrad-backward-pass", [(1, 3), (3, 3), (1, 3)], _teenygrad_backward_pass)
case("teenygrad-mlp", [(5, 7), (7, 4), (4,), (4, 3)],
     lambda T, x, w1, b1, w2: (x @ w1 + b1).tanh().matmul(w2).sigmoid().mean())
case("teenygrad-dot-chain", [(4, 4), (4, 4), (4, 4)],
     lambda T, a, b, c: a[0].dot(b[0]) * c.sum() + (a @ b @ c).sum())
case("value-reuse-diamond", [(3,)], lambda T, x: (x * x).exp() + (x * x).sin() * x)
case("value-chain-long", [(3,)], lambda T, x: _long_chain(x))


def _long_chain(x):
    for _ in range(200):
        x = x * 0.99 + 0.01
    return x


# --- linear algebra -------------------------------------------------------------------------------
def _spd(T, a):
    return a @ a.mT + 3 * T.eye(a.shape[-1], dtype=a.dtype)


def _well_conditioned(T, a):
    return a + 3 * T.eye(a.shape[-1], dtype=a.dtype)


LINALG = {
    "det": ([(4, 4)], lambda T, a: [T.linalg.det(a), T.det(a), *T.linalg.slogdet(a)]),
    "det-batched": ([(2, 3, 3)], lambda T, a: T.det(a)),
    "logdet": ([(4, 4)], lambda T, a: T.logdet(_spd(T, a))),
    "inv": ([(2, 4, 4)], lambda T, a: [T.linalg.inv(_well_conditioned(T, a)),
                                       T.inverse(_well_conditioned(T, a))]),
    "solve": ([(4, 4), (4, 2)], lambda T, a, b: T.linalg.solve(_well_conditioned(T, a), b)),
    "solve-vector": ([(4, 4), (4,)], lambda T, a, b: T.linalg.solve(_well_conditioned(T, a), b)),
    "cholesky": ([(4, 4)], lambda T, a: [T.linalg.cholesky(_spd(T, a)),
                                         T.linalg.cholesky(_spd(T, a), upper=True)]),
    "qr": ([(5, 3)], lambda T, a: list(T.linalg.qr(a))),
    "svdvals": ([(5, 3)],
                lambda T, a: [T.linalg.svdvals(a), T.linalg.svd(a, full_matrices=False)[1]]),
    "eigh": ([(4, 4)], lambda T, a: [T.linalg.eigvalsh(_spd(T, a)), T.linalg.eigh(_spd(T, a))[0]]),
    "norms": ([(4, 5)],
              lambda T, a: [T.linalg.norm(a), T.linalg.norm(a, "fro"), T.linalg.norm(a, 2),
                                      T.linalg.norm(a, -2), T.linalg.norm(a, 1),
                                      T.linalg.norm(a, float("inf")), T.linalg.norm(a, "nuc")]),
    "vector_norm": ([(4, 5)],
                    lambda T, a: [T.linalg.vector_norm(a), T.linalg.vector_norm(a, 3, dim=1),
                                            T.linalg.vector_norm(a, 0.5, dim=(0, 1), keepdim=True),
                                            T.linalg.vector_norm(a, float("-inf"))]),
    "matrix_norm": ([(2, 4, 5)], lambda T, a: [T.linalg.matrix_norm(a), T.linalg.matrix_norm(a, 1),
                                               T.linalg.matrix_norm(a, "nuc")]),
    "pinv": ([(5, 3)], lambda T, a: T.linalg.pinv(a)),
    "matrix_power": ([(3, 3)], lambda T, a: [T.linalg.matrix_power(a, 3), T.matrix_power(a, 0),
                                             T.linalg.matrix_power(_well_conditioned(T, a), -2)]),
    "matrix_exp": ([(3, 3)], lambda T, a: T.linalg.matrix_exp(a)),
    "lstsq": ([(5, 3), (5, 2)], lambda T, a, b: T.linalg.lstsq(a, b).solution),
    "multi_dot": ([(2, 3), (3, 4), (4, 2)], lambda T, a, b, c: T.linalg.multi_dot([a, b, c])),
    "cross-vecdot": ([(4, 3), (4, 3)], lambda T, a, b: [T.linalg.cross(a, b), T.linalg.vecdot(a, b),
                                                        T.linalg.vecdot(a, b, dim=0)]),
    "solve_triangular": ([(4, 4), (4, 2)], lambda T, a, b: T.linalg.solve_triangular(
        _well_conditioned(T, a.triu()), b, upper=True)),
    "triangular_solve": ([(4, 2), (4, 4)], lambda T, b, a: list(T.triangular_solve(
        b, _well_conditioned(T, a.triu())))),
    "triangular_solve-lower-transposed": ([(4, 2), (4, 4)], lambda T, b, a: T.triangular_solve(
        b, _well_conditioned(T, a.tril()), upper=False, transpose=True).solution),
    "cholesky_solve": ([(4, 2), (4, 4)],
                       lambda T, b, a: T.cholesky_solve(b, T.linalg.cholesky(_spd(T, a)))),
    "tensorinv": ([(2, 3, 6)], lambda T, a: T.linalg.tensorinv(
        _well_conditioned(T, a.reshape(6, 6)).reshape(2, 3, 6), ind=2)),
    "tensorsolve": ([(6, 2, 3), (6,)], lambda T, a, b: T.linalg.tensorsolve(
        _well_conditioned(T, a.reshape(6, 6)).reshape(6, 2, 3), b)),
    "tensorsolve-dims": ([(2, 3, 6), (6,)], lambda T, a, b: T.linalg.tensorsolve(
        _well_conditioned(T, a.reshape(6, 6)).reshape(2, 3, 6), b, dims=(0, 1))),
    "cond-rank": ([(4, 4)], lambda T, a: [T.linalg.cond(a), T.linalg.matrix_rank(a)]),
}
for _name, (_shapes, _fn) in LINALG.items():
    case(f"linalg-{_name}", _shapes, _fn, atol=1e-4, grad_atol=1e-3)


# --- torch's top-level spellings: in-place functions, *_copy, nn functions ------------------------
for _name in ["relu", "sigmoid", "tanh", "exp", "abs", "neg", "sqrt", "floor", "clamp_min", "frac"]:
    case(f"toplevel-{_name}_", [(4, 5)],
         lambda T, x, n=_name: _in_place_copy(T, x, n), low=0.1, high=2.0, forward_only=True)
COPY_CALLS = ["T.permute_copy(x, (1, 0, 2))", "T.t_copy(x[0])", "T.transpose_copy(x, 0, 2)",
              "T.expand_copy(x[:, :1], (3, 3, 5))", "T.view_copy(x, (12, 5))",
              "T.unsqueeze_copy(x, 1)",
              "T.squeeze_copy(x[:, :1], 1)", "T.select_copy(x, 1, 2)", "T.slice_copy(x, 2, 1, 4)",
              "T.slice_copy(x, 0, None, None, 2)", "T.diagonal_copy(x, 0, 0, 2)",
              "T.detach_copy(x).detach()",
              "T.alias_copy(x)", "T.unfold_copy(x, 2, 2, 1)", "T.split_copy(x, 2, 1)[1]",
              "T.split_with_sizes_copy(x, [1, 4], 2)[1]", "T.unbind_copy(x, 1)[3]",
              "T.unsafe_chunk(x, 2, 1)[1]", "T.unsafe_split(x, 2)[1]", "x.unsafe_split(3, 2)[0]",
              "x.hardshrink(0.3)", "x.prelu(T.tensor([0.2], dtype=x.dtype))",
              "T.diagonal_scatter(x, x.diagonal(1, 0, 2) * 2, 1, 0, 2)",
              "x.diagonal_scatter(x.diagonal(0, 1, 2).exp(), 0, 1, 2)",
              "T.diagonal_scatter(x[0], x[1].diagonal(-1) + 1, -1)",
              "T.layer_norm(x, (5,))", "T.group_norm(x[None], 3)", "T.dropout(x, 0.5, False)",
              "T.constant_pad_nd(x, (1, 2), 3.0)", "T.embedding(x[0], T.tensor([[0, 3], [1, 1]]))",
              "T.batch_norm(x, None, None, None, None, True, 0.1, 1e-5, False)",
              "T.instance_norm(x, None, None, None, None, True, 0.1, 1e-5, False)",
              "T.hardshrink(x, 0.5)", "T.threshold(x, 0.1, 2.0)", "T.rms_norm(x, (5,))",
              "T.prelu(x, T.tensor([0.1, 0.2, 0.3, 0.4], dtype=x.dtype))"]
for _expr in COPY_CALLS:
    case(f"spelling:{_expr}", [(3, 4, 5)], lambda T, x, e=_expr: eval(e, {"x": x, "T": T}),
         atol=1e-5)


def _in_place_copy(T, x, name):
    y = x.clone()
    result = getattr(T, name + "_")(y, *([0.5] if name == "clamp_min" else []))
    assert result is y
    return y


case("max_pool_with_indices", [(2, 3, 6, 7)],
     lambda T, x: [*F(T).max_pool2d_with_indices(x, 2), *F(T).max_pool1d_with_indices(x[0], 3, 2),
                   *F(T).adaptive_max_pool2d_with_indices(x, (2, 3)),
                   *F(T).adaptive_max_pool1d_with_indices(x[0], 4),
                   *F(T).max_pool3d_with_indices(x[None], 2)])
case("max_unpool1d", [(2, 3, 11)],
     lambda T, x: F(T).max_unpool1d(*F(T).max_pool1d(x, 3, 2, 1, return_indices=True), 3, 2, 1,
                                    output_size=(11,)))
case("max_unpool3d", [(1, 2, 4, 6, 5)],
     lambda T, x: F(T).max_unpool3d(*F(T).max_pool3d(x, 2, return_indices=True), 2,
                                    output_size=(4, 6, 5)))
case("max_unpool3d-default-size", [(1, 2, 4, 6, 4)],
     lambda T, x: F(T).max_unpool3d(*F(T).max_pool3d(x, 2, return_indices=True), 2))
case("lp_pool3d", [(1, 2, 4, 6, 4)], lambda T, x: F(T).lp_pool3d(x.abs() + 0.1, 2, 2), atol=1e-5)
case("lp_pool3d-p3-stride", [(1, 2, 5, 6, 5)],
     lambda T, x: F(T).lp_pool3d(x.abs() + 0.1, 3, (2, 3, 2), stride=1), atol=1e-5)
case("triplet_margin_with_distance_loss", [(6, 5), (6, 5), (6, 5)],
     lambda T, a, p, n: [F(T).triplet_margin_with_distance_loss(a, p, n),
                         F(T).triplet_margin_with_distance_loss(
                             a, p, n, distance_function=lambda u, v: 1 - F(T).cosine_similarity(u,
                                                                                                v),
                             margin=0.5, swap=True, reduction="sum")], atol=1e-5)


# --- writes through views: the base sees them, forward and backward -------------------------------
VIEW_WRITES = ["y.T[0] = 1.0", "y.t()[1:3] = 2.0", "y.transpose(0, 1)[0] = x[0] * 3",
               "y.permute(1, 0)[0] = 1.0", "y[1:][0] = 3.0", "y.view(16)[0:4] = 1.0",
               "y.reshape(2, 8)[0] = 1.0", "y.unsqueeze(0)[0, 1] = 1.0", "y.T.T[0] = 1.0",
               "y[:, ::2][0] = 1.0", "y.t()[::2] = 1.0", "y.narrow(1, 0, 2)[0] = 1.0",
               "y.flatten()[0:4] = 1.0", "y.movedim(0, 1)[0] = 1.0", "y.mT[0] = x[1]",
               "y.diagonal().zero_()", "y.diagonal(1).fill_(2.0)", "y.diagonal()[1:] = x[0, :3]",
               "y.T.diagonal(-1).mul_(3)", "y.T[0].fill_(1.0)", "y.t().mul_(2)", "y.t()[0].mul_(2)",
               "y.select(1, 0).fill_(1.0)", "y[::2].mul_(2)", "y[:, 1:3].exp_()",
               "y.view(-1)[::3] += 1.0", "y.unsqueeze(0).transpose(1, 2)[0, 1].fill_(3.0)",
               "y.T.masked_fill_(y.T > 0, 0.5)", "y.t().clamp_(-0.5, 0.5)",
               "y.t()[[0, 2]] = x[:2] * 2", "y.T[y.T > 1] = 0.0",
               "y[1:].index_fill_(1, T.tensor([0]), 4.0)"]
for _expr in VIEW_WRITES:
    case(f"view-write:{_expr}", [(4, 4)], lambda T, x, e=_expr: _written_through_view(T, x, e))


def _written_through_view(T, x, statement):
    y = x.clone()
    exec(statement, {"x": x, "y": y, "T": T})
    return y * x


case("max_pool2d-indices-dilation", [(1, 1, 10, 10)],
     lambda T, x: list(F(T).max_pool2d(x, kernel_size=(3, 2), dilation=(2, 3),
                                       return_indices=True)))
case("max_pool2d-indices-global", [(1, 1, 12, 13)],
     lambda T, x: list(F(T).max_pool2d(x, kernel_size=(12, 13), return_indices=True)))
case("avg_pool3d-ceil-exclude-pad", [(1, 2, 6, 7, 5)],
     lambda T, x: F(T).avg_pool3d(x, 3, stride=2, padding=1, ceil_mode=True,
                                  count_include_pad=False))
case("avg_pool3d-ceil-include-pad", [(1, 2, 6, 7, 5)],
     lambda T, x: F(T).avg_pool3d(x, (3, 2, 3), stride=(2, 3, 2), padding=1, ceil_mode=True))


@pytest.mark.parametrize("shapes,fn,kw", CASES)
def test_op_matches_torch(shapes, fn, kw):
    check(shapes, fn, **kw)


@pytest.mark.parametrize("shapes,fn,kw", [c for c in CASES if c.values[0]])
def test_op_matches_torch_in_float64(shapes, fn, kw):
    check(shapes, fn, **{**kw, "dtype": np.float64})


# --- errors: the same exception type as torch -----------------------------------------------------
ERRORS = [
    ("cumsum(dim=1) of 0-d", [()], lambda T, x: T.cumsum(x, dim=1), IndexError),
    ("cumsum(dim=-2) of 1-d", [(5,)], lambda T, x: T.cumsum(x, dim=-2), IndexError),
    ("cumprod(dim=1) of 1-d", [(5,)], lambda T, x: T.cumprod(x, dim=1), IndexError),
    ("cummax(dim=1) of 0-d", [()], lambda T, x: T.cummax(x, dim=1), IndexError),
    ("sum(5) of 4-d", [(3, 4, 5, 6)], lambda T, x: x.sum(5), IndexError),
    ("sum((1,)) of 0-d", [()], lambda T, x: x.sum((1,)), IndexError),
    ("topk past the size", [(4,)], lambda T, x: x.topk(5), RuntimeError),
    ("permute too few dims", [(3, 4, 5, 6)], lambda T, x: x.permute((0, 2)), RuntimeError),
    ("permute repeated dims", [(3, 4, 5, 6)], lambda T, x: x.permute((0, 0, 1, 2)), RuntimeError),
    ("reshape two -1", [(3, 4)], lambda T, x: x.reshape((-1, -1, 2)), RuntimeError),
    ("reshape wrong size", [(3, 4)], lambda T, x: x.reshape(5, 2), RuntimeError),
    ("flip repeated dims", [(3, 4)], lambda T, x: x.flip((1, -1)), RuntimeError),
    ("squeeze(50)", [(4, 3, 6, 6)], lambda T, x: x.squeeze(50), IndexError),
    ("squeeze(1) of 0-d", [()], lambda T, x: x.squeeze(1), IndexError),
    ("roll shifts without dims", [(2, 4)], lambda T, x: x.roll((1, 2)), RuntimeError),
    ("roll mismatched shifts", [(3, 3)], lambda T, x: x.roll(shifts=1, dims=(0, 1)), RuntimeError),
    ("unfold size past the dim", [(8,)], lambda T, x: x.unfold(0, 9, 3), RuntimeError),
    ("unfold dim out of range", [(8,)], lambda T, x: x.unfold(1, 8, 3), IndexError),
    ("unfold negative step", [(8,)], lambda T, x: x.unfold(0, 1, -1), RuntimeError),
    ("pad odd length", [(3, 3)], lambda T, x: F(T).pad(x, (2, 0, 2)), RuntimeError),
    ("pad too long", [(3, 3)], lambda T, x: F(T).pad(x, (0, 0, 0, 0, 1, 0, 3, 0)), RuntimeError),
    ("pad mode typo", [(3, 3, 3)], lambda T, x: F(T).pad(x, (3, 0), mode="typo"),
     NotImplementedError),
    ("reflect pad past the size", [(1, 1, 5, 5)],
     lambda T, x: F(T).pad(x, (3, 5, 0, 0), mode="reflect"), RuntimeError),
    ("circular pad wraps twice", [(1, 1, 5, 5)],
     lambda T, x: F(T).pad(x, (3, 6, 0, 0), mode="circular"), RuntimeError),
    ("conv2d kernel past the input", [(1, 1, 6, 7), (6, 1, 3, 3)],
     lambda T, x, w: F(T).conv2d(x, w, dilation=3), RuntimeError),
    ("conv2d input smaller than kernel", [(2, 16, 2, 2), (32, 16, 3, 3)],
     lambda T, x, w: F(T).conv2d(x, w), RuntimeError),
    ("conv2d three paddings", [(2, 16, 2, 2), (32, 16, 3, 3)],
     lambda T, x, w: F(T).conv2d(x, w, padding=(1, 1, 1)), RuntimeError),
    ("conv2d channel mismatch", [(2, 3, 5, 5), (4, 2, 3, 3)],
     lambda T, x, w: F(T).conv2d(x, w), RuntimeError),
    ("conv_transpose2d three paddings", [(2, 16, 2, 2), (16, 32, 3, 3)],
     lambda T, x, w: F(T).conv_transpose2d(x, w, padding=(1, 1, 1)), RuntimeError),
    ("max_pool2d three paddings", [(1, 2, 11, 8)],
     lambda T, x: F(T).max_pool2d(x, kernel_size=(2, 2), padding=(1, 1, 1)), RuntimeError),
    ("avg_pool2d three paddings", [(1, 2, 11, 8)],
     lambda T, x: F(T).avg_pool2d(x, kernel_size=(2, 2), padding=(1, 1, 1)), RuntimeError),
    ("gather index out of range", [(4, 5)],
     lambda T, x: x.gather(1, T.tensor([[7]])), RuntimeError),
    ("scatter index longer than src", [(10, 3, 10), (10, 3, 10)],
     lambda T, x, src: x.scatter(1, T.zeros(3, 4, 5, dtype=T.int64), src), RuntimeError),
    ("scatter mixed dtypes", [(3, 4, 5), (3, 4, 5)],
     lambda T, x, src: x.half().scatter(1, T.zeros(3, 4, 5, dtype=T.int64), src), RuntimeError),
    ("scatter_reduce typo", [(4, 5), (4, 5)],
     lambda T, x, src: x.scatter_reduce(0, T.zeros(4, 5, dtype=T.int64), src, reduce="INVALID"),
     RuntimeError),
    ("einsum shape mismatch", [(3, 8, 10, 5), (11, 5, 13, 16, 8)],
     lambda T, a, b: T.einsum("pqrs,tuqvr->pstuv", a, b), RuntimeError),
    ("einsum too many operands", [(4, 5), (5, 6), (6, 4)],
     lambda T, a, b, c: T.einsum("ij,jk->ij", a, b, c), RuntimeError),
    ("einsum too few operands", [(4, 4)], lambda T, a: T.einsum("ij,jk->ij", a), RuntimeError),
    ("einsum two ellipses", [(2, 3, 4), (2, 3, 4)],
     lambda T, a, b: T.einsum("...ik...,...jk->", a, b), RuntimeError),
    ("matmul 1-d mismatch", [(4,), (1, 2)], lambda T, x, y: x.matmul(y), RuntimeError),
    ("matmul 2-d mismatch", [(2, 4), (1, 3)], lambda T, x, y: x @ y, RuntimeError),
    ("matmul 0-d", [(), ()], lambda T, x, y: x.matmul(y), RuntimeError),
    ("matmul 0-d with 2-d", [(), (3, 3)], lambda T, x, y: x @ y, RuntimeError),
    ("cross_entropy target shape", [(8, 10), (8, 1)], lambda T, x, y: F(T).cross_entropy(x, y),
     RuntimeError),
    ("cross_entropy reduction typo", [(8, 10), (8, 10)],
     lambda T, x, y: F(T).cross_entropy(x, y, reduction="typo"), ValueError),
    ("nll_loss reduction typo", [(8, 10)],
     lambda T, x: F(T).nll_loss(x, T.zeros(8, dtype=T.int64), reduction="typo"), ValueError),
    ("clamp without bounds", [(4,)], lambda T, x: x.clamp(), RuntimeError),
    ("clip(None, None)", [(4,)], lambda T, x: x.clip(None, None), RuntimeError),
    ("div rounding_mode typo", [(4,), (4,)], lambda T, x, y: x.div(y, rounding_mode="typo"),
     RuntimeError),
    ("int to a negative int power", None, lambda T: T.tensor([-2, 0, 2]) ** -2, RuntimeError),
    ("bitwise_xor of floats", [(4,), (4,)], lambda T, x, y: x.bitwise_xor(y), RuntimeError),
    ("bitwise_not of floats", [(4,)], lambda T, x: x.bitwise_not(), RuntimeError),
    ("linspace negative steps", None, lambda T: T.linspace(1, 2, -1), RuntimeError),
    ("meshgrid bad indexing", [(3,)], lambda T, x: T.meshgrid(x, indexing="bad"), RuntimeError),
    ("expand a non-1 dim", [(4, 3, 1, 6)], lambda T, x: x.expand(4, 6, 1, 6), RuntimeError),
    ("expand to fewer dims", [(4, 3, 1, 6)], lambda T, x: x.expand(3, 1, 6), RuntimeError),
    ("expand to 0", [(4, 3, 2, 6)], lambda T, x: x.expand(4, 3, 0, 6), RuntimeError),
    ("cat of 0-d tensors", [(), ()], lambda T, x, y: T.cat([x, y]), RuntimeError),
    ("cat shape mismatch", [(2, 3), (3, 3)], lambda T, x, y: T.cat([x, y], 1), RuntimeError),
    ("stack dim out of range", [(4, 5, 3)], lambda T, x: T.stack([x], dim=77), IndexError),
    ("stack shape mismatch", [(2,), (3,)], lambda T, x, y: T.stack([x, y]), RuntimeError),
    ("index too many", [(4, 3)], lambda T, x: x[1, 77, 77, 77], IndexError),
    ("index out of bounds", [(4, 3)], lambda T, x: x[1, 3], IndexError),
    ("negative index out of bounds", [(4, 3)], lambda T, x: x[1, -4], IndexError),
    ("zero slice step", [(4, 3)], lambda T, x: x[::0, 1], ValueError),
    ("slice of a 0-d tensor", [()], lambda T, x: x[:], IndexError),
    ("int index of a 0-d tensor", [()], lambda T, x: x[0], IndexError),
    ("float tensor index", [(4, 3)], lambda T, x: x[T.tensor(1.1)], IndexError),
    ("indices that do not broadcast", [(10, 11, 12)],
     lambda T, x: x[T.zeros(3, 1, 1, 1, dtype=T.int64), T.zeros(1, 4, 1, 1, 1, dtype=T.int64)],
     IndexError),
    ("index_select out of range", [(4, 3)], lambda T, x: x.index_select(0, T.tensor([4])),
     IndexError),
    ("view of a non-contiguous tensor", [(4, 3)], lambda T, x: x.t().view(12), RuntimeError),
    ("softmax dim out of range", [(4, 3)], lambda T, x: x.softmax(2), IndexError),
    ("layer_norm shape mismatch", [(4, 3)], lambda T, x: F(T).layer_norm(x, (4,)), RuntimeError),
    ("one_hot too few classes", None, lambda T: F(T).one_hot(T.tensor([1, 5]), 3), RuntimeError),
    ("interpolate both size and scale", [(1, 1, 4, 4)],
     lambda T, x: F(T).interpolate(x, size=2, scale_factor=2), ValueError),
    ("mean of an int tensor", None, lambda T: T.tensor([1, 2]).mean(), RuntimeError),
]


@pytest.mark.parametrize("shapes,fn,expected",
                         [pytest.param(s, f, e, id=n) for n, s, f, e in ERRORS])
def test_error_matches_torch(shapes, fn, expected):
    inputs = (lambda lib: _inputs(lib, shapes, None, -1.5, 1.5, np.float32, True)) if shapes \
        else (lambda lib: [])
    with pytest.raises(expected):
        fn(torch, *inputs(torch))
    with pytest.raises(expected):
        fn(fluxgrad, *inputs(fluxgrad))


# --- OpInfo-style sweeps: the function, the method, the in-place method, out= and a
# non-contiguous input agree with torch's own ------------------------------------------------
def _variants(name, n_args, inplace=True):
    def function(lib, *xs):
        return getattr(lib, name)(*xs)

    def method(lib, x, *rest):
        return getattr(x, name)(*rest)

    def in_place(lib, x, *rest):
        y = x.clone()
        result = getattr(y, name + "_")(*rest)
        assert result is y, f"{name}_ returns its tensor"
        return y

    def out(lib, *xs):
        buffer = lib.empty(0, dtype=function(lib, *xs).dtype)
        result = getattr(lib, name)(*xs, out=buffer)
        assert result is buffer, f"{name}(out=) returns its buffer"
        return buffer

    def non_contiguous(lib, *xs):
        return getattr(lib, name)(*(x.t() for x in xs))
    found = {"function": function, "method": method, "non-contiguous": non_contiguous}
    if name != "relu":  # (torch.relu has no out=)
        found["out"] = out
    if inplace:
        found["in-place"] = in_place
    return found


UNARY_OPINFO = ["abs", "neg", "exp", "exp2", "log", "log2", "log10", "log1p", "expm1", "sqrt",
                "rsqrt", "sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "tanh",
                "asinh", "atanh", "sigmoid", "sign", "floor", "ceil", "round", "trunc", "frac",
                "reciprocal", "square", "erf", "erfc", "erfinv", "lgamma", "digamma", "i0",
                "sinc", "deg2rad", "rad2deg", "nan_to_num", "fix", "logit", "relu", "sgn",
                "negative", "absolute", "arcsin", "arctan"]
BINARY_OPINFO = ["add", "sub", "mul", "div", "pow", "fmod", "remainder", "atan2", "hypot",
                 "copysign", "xlogy", "true_divide", "subtract", "multiply", "divide",
                 "maximum", "minimum", "fmax", "fmin", "logaddexp", "eq", "ne", "lt", "le",
                 "gt", "ge", "float_power", "nextafter", "ldexp", "logical_and", "logical_or"]
NO_INPLACE = {"maximum", "minimum", "fmax", "fmin", "logaddexp",
              "float_power"}  # (float_power_ of float32 raises, in torch too)
_OPINFO_CASES = (
    [pytest.param(name, 1, variant, id=f"{name}-{variant}") for name in UNARY_OPINFO
     for variant in _variants(name, 1, name not in NO_INPLACE)]
    + [pytest.param(name, 2, variant, id=f"{name}-{variant}") for name in BINARY_OPINFO
       for variant in _variants(name, 2, name not in NO_INPLACE)])


@pytest.mark.parametrize("name,n_args,variant", _OPINFO_CASES)
def test_opinfo_variants_match_torch(name, n_args, variant):
    rng = np.random.default_rng(5)
    arrays = [rng.uniform(0.2, 0.9, size=(4, 3)).astype(np.float32) for _ in range(n_args)]
    fn = _variants(name, n_args, name not in NO_INPLACE)[variant]
    with np.errstate(all="ignore"):
        ours = fn(fluxgrad, *(fluxgrad.tensor(a) for a in arrays))
        theirs = fn(torch, *(torch.tensor(a) for a in arrays))
    _compare(f"{name} ({variant})", ours, theirs, 1e-6, 1e-5)


def _torch_accepts(name, dtype):
    try:
        getattr(torch, name)(torch.tensor(np.array([0, 1, 2, 3], dtype=dtype)))
    except (RuntimeError, TypeError):
        return False
    return True


# (where torch has no kernel for the dtype, fluxgrad may compute: docs/porting-from-pytorch.md)
@pytest.mark.parametrize("name,dtype", [
    pytest.param(n, d, id=f"{n}-{d}") for d in ("int64", "int32", "bool", "uint8")
    for n in UNARY_OPINFO if _torch_accepts(n, d)])
def test_integer_input_to_unary_op_matches_torch(name, dtype):
    values = np.array([0, 1, 2, 3], dtype=dtype)
    with np.errstate(all="ignore"):
        ours = getattr(fluxgrad, name)(fluxgrad.tensor(values))
    _compare(f"{name} of {dtype}", ours, getattr(torch, name)(torch.tensor(values)), 1e-6, 1e-5)


REDUCTION_KWARGS = [
    ("sum", {"dim": 1}), ("sum", {"dim": (0, 1), "keepdim": True}), ("sum", {"dtype": "float64"}),
    ("sum", {"dim": 1, "dtype": "float64"}), ("mean", {"dim": 0}), ("mean",
                                                                    {"dim": -1, "keepdim": True}),
    ("mean", {"dtype": "float64"}), ("prod", {"dim": 1}), ("prod",
                                                           {"dim": 0, "keepdim": True,
                                                            "dtype": "float64"}),
    ("amax", {"dim": (0, 1)}), ("amin", {"dim": 1, "keepdim": True}), ("logsumexp", {"dim": 1}),
    ("cumsum", {"dim": 1}), ("cumsum", {"dim": 0, "dtype": "float64"}), ("cumprod", {"dim": 1}),
    ("std", {"dim": 1}), ("std", {"dim": 1, "correction": 0, "keepdim": True}), ("var", {"dim": 0}),
    ("var", {"dim": None, "unbiased": False}), ("norm", {"dim": 1}), ("norm",
                                                                      {"p": 1, "dim": 0,
                                                                       "keepdim": True}),
    ("argmax", {"dim": 1}), ("argmin", {"dim": 0, "keepdim": True}), ("nansum", {"dim": 1}),
    ("nanmean", {"dim": 0}), ("count_nonzero", {"dim": 1}), ("all", {"dim": 1}), ("any",
                                                                                  {"dim": 0}),
    ("softmax", {"dim": 1}), ("log_softmax", {"dim": 0}), ("softmax",
                                                           {"dim": 1, "dtype": "float64"}),
    ("median", {"dim": 1}), ("max", {"dim": 1}), ("min", {"dim": 0, "keepdim": True}),
    ("sort", {"dim": 0, "descending": True}), ("argsort", {"dim": 1}), ("cummax", {"dim": 1}),
    ("topk", {"k": 2, "dim": 0, "largest": False}), ("kthvalue", {"k": 2, "dim": 1}),
    ("aminmax", {"dim": 1}), ("std_mean", {"dim": 1}), ("var_mean", {"dim": 0, "correction": 0}),
    ("quantile", {"q": 0.3, "dim": 1}), ("mode", {"dim": 1}), ("diff", {"dim": 0}),
    ("flip", {"dims": (0,)}), ("roll", {"shifts": 1, "dims": 1}), ("squeeze", {"dim": 0}),
    ("unsqueeze", {"dim": 2}), ("transpose", {"dim0": 0, "dim1": 1}), ("cross",
                                                                       {"other": None, "dim": 1}),
]


@pytest.mark.parametrize("name,kwargs,spelling", [
    pytest.param(n, k, s, id=f"{s}-{n}-{sorted(k)}") for n, k in REDUCTION_KWARGS
    for s in ("function", "method") if s == "function" or hasattr(torch.Tensor, n)])
def test_keyword_arguments_match_torch(name, kwargs, spelling):
    values = np.random.default_rng(6).uniform(-1, 1, size=(4, 3)).astype(np.float32)
    results = []
    for lib in (torch, fluxgrad):
        x = lib.tensor(values)
        kw = {k: (getattr(lib, v) if k == "dtype" else x if v is None and k == "other" else v)
              for k, v in kwargs.items()}
        fn = getattr(lib, name) if spelling == "function" else getattr(x, name)
        out = fn(x, **kw) if spelling == "function" else fn(**kw)
        results.append(_as_list(out))
    theirs, ours = results
    assert len(ours) == len(theirs)
    for o, t in zip(ours, theirs):
        _compare(f"{name}({kwargs})", o, t, 1e-6, 1e-5)


_WITH_OUT = [(n, k) for n, k in REDUCTION_KWARGS[:22] if "dim" in k]  # (torch: out= needs dim)


@pytest.mark.parametrize("name,kwargs", _WITH_OUT, ids=[f"{n}-{sorted(k)}" for n, k in _WITH_OUT])
def test_reduction_out_keyword_matches_torch(name, kwargs):
    values = np.random.default_rng(7).uniform(-1, 1, size=(4, 3)).astype(np.float32)
    results = []
    for lib in (torch, fluxgrad):
        x = lib.tensor(values)
        kw = {k: (getattr(lib, v) if k == "dtype" else v) for k, v in kwargs.items()}
        buffer = lib.empty(0, dtype=getattr(lib, name)(x, **kw).dtype)
        assert getattr(lib, name)(x, **kw, out=buffer) is buffer
        results.append(buffer)
    _compare(f"{name}(out=)", results[1], results[0], 1e-6, 1e-5)


# --- PyTorch's keyword names for the leading arguments (input=, other=, exponent=, ...) ----------
KEYWORD_CALLS = [
    "T.sum(input=x, dim=1)", "T.add(input=x, other=y, alpha=2)", "T.mul(input=x, other=y)",
    "T.clamp(input=x, min=-0.5, max=0.5)", "T.gather(input=x, dim=1, index=i)",
    "T.matmul(input=x, other=y.T)", "T.where(condition=x > 0, input=x, other=y)",
    "T.topk(input=x, k=2, dim=1, largest=False, sorted=True)[0]",
    "T.reshape(input=x, shape=(4, 3))",
    "T.transpose(input=x, dim0=0, dim1=1)", "T.narrow(input=x, dim=1, start=1, length=2)",
    "T.max(input=x, dim=1, keepdim=True)[0]", "T.mean(input=x, dim=0, dtype=T.float64)",
    "T.argmax(input=x, dim=1, keepdim=True)", "T.cumsum(input=x, dim=1, dtype=T.float64)",
    "T.flatten(input=x, start_dim=0, end_dim=1)", "T.squeeze(input=x[None], dim=0)",
    "T.unsqueeze(input=x, dim=0)", "T.permute(input=x, dims=(1, 0))", "T.flip(input=x, dims=(0,))",
    "T.roll(input=x, shifts=1, dims=0)", "T.sort(input=x, dim=1, descending=True, stable=True)[0]",
    "T.argsort(input=x, dim=0, descending=True)",
    "T.std(input=x, dim=1, correction=0, keepdim=True)",
    "T.norm(input=x, p=2, dim=1)", "T.pow(input=x, exponent=2)", "T.pow(x, exponent=3)",
    "T.exp(input=x)", "T.abs(input=x)", "T.lerp(input=x, end=y, weight=0.3)",
    "T.index_select(input=x, dim=0, index=i[:, 0])",
    "T.masked_fill(input=x, mask=x > 0, value=1.0)",
    "T.tril(input=x, diagonal=-1)", "T.chunk(input=x, chunks=2, dim=1)[0]",
    "T.repeat_interleave(input=x, repeats=2, dim=0)", "T.tile(input=x, dims=(2, 1))",
    "T.diagonal(input=x, offset=0, dim1=0, dim2=1)", "T.logsumexp(input=x, dim=1, keepdim=True)",
    "T.prod(input=x, dim=1, keepdim=False, dtype=T.float64)", "T.all(input=x > 0, dim=1)",
    "T.isclose(input=x, other=y, rtol=1e-5, atol=1e-8, equal_nan=False)",
    "T.allclose(input=x, other=x)", "T.equal(input=x, other=x)", "T.clone(input=x)",
    "T.full_like(input=x, fill_value=2.0)", "T.zeros_like(input=x, dtype=T.float64)",
    "T.mm(input=x, mat2=y.T)", "T.bmm(input=x[None], mat2=y.T[None])",
    "T.addmm(input=x[:, :1], mat1=x, mat2=y.T[:, :1], beta=0.5, alpha=2)",
    "T.softmax(input=x, dim=1)", "F.softmax(input=x, dim=1)", "F.relu(input=x)",
    "F.leaky_relu(input=x, negative_slope=0.2)", "F.gelu(input=x, approximate='tanh')",
    "F.pad(input=x, pad=(1, 1), mode='constant', value=0.0)", "F.softplus(input=x, beta=2)",
    "F.log_softmax(input=x, dim=-1)", "F.hardtanh(input=x, min_val=-0.5, max_val=0.5)",
    "F.elu(input=x, alpha=0.5)", "F.linear(input=x, weight=y, bias=None)",
    "F.layer_norm(input=x, normalized_shape=(3,), weight=None, bias=None, eps=1e-5)",
    "F.normalize(input=x, p=2.0, dim=1)",
    "F.cross_entropy(input=x, target=i[:, 0], reduction='sum')",
    "F.mse_loss(input=x, target=y, reduction='none')", "F.embedding(input=i, weight=y)",
    "F.cosine_similarity(x1=x, x2=y, dim=1, eps=1e-8)",
    "F.scaled_dot_product_attention(query=x[None], key=y[None], value=y[None])",
]


@pytest.mark.parametrize("call", KEYWORD_CALLS)
def test_torch_keyword_names_are_accepted(call):
    rng = np.random.default_rng(8)
    x = rng.standard_normal((4, 3)).astype(np.float32)
    y = rng.standard_normal((4, 3)).astype(np.float32)
    i = np.array([[0, 1, 2], [2, 1, 0], [1, 1, 1], [0, 0, 0]])
    results = []
    for lib in (torch, fluxgrad):
        env = {"T": lib, "F": lib.nn.functional, "x": lib.tensor(x), "y": lib.tensor(y),
               "i": lib.tensor(i)}
        results.append(eval(call, env))
    theirs, ours = results
    if isinstance(theirs, bool):
        assert ours == theirs
    else:
        _compare(call, ours, theirs, 1e-6, 1e-5)
