"""Random programs over a mixed vocabulary, for any library with PyTorch's API (fluxgrad eager,
static or compiled, and torch itself): integer, bool, float32 and float64 tensors with Python
scalars and 0-d tensors, empty and size-1 dims, negative dims, keepdim reductions, indexing,
scatter and gather, sorting, shape ops, nn.functional ops and losses.

Unlike tests/wide_programs.py, which tracks shapes by hand, a program here is drawn against
PyTorch itself: each candidate step is run by torch on the values so far, and a step torch
refuses is drawn again (so shapes, dtypes and validity never need predicting). A program is a
schedule of inputs and steps; `run(m, inputs)` replays it with library `m` and returns every
value it made. With `grad=True` every float input is float64 (no float32 casts), so that
gradients can be compared tightly.
"""
import numpy as np
import torch

FLOATS = ("float32", "float64")
INTS = ("int64", "int32", "uint8", "int16")


def _dtype(m, name):
    return getattr(m, name)


class Program:
    """Inputs (shapes, dtype names) and steps drawn for `seed`; `run(m, inputs)` replays it."""

    families = None  # the step families drawn from (None: this module's FAMILIES)

    def __init__(self, seed, grad=False, n_steps=None, sized=False):
        self.rng = np.random.default_rng(seed)
        self.grad = grad
        self.sized = sized  # no step whose output size depends on values (x[x > 0])
        self.inputs = []      # (shape, dtype name)
        self.arrays = []      # input values (numpy), drawn with the program
        self.schedule = []    # ("input", i) or ("step", description, fn, arg positions, n_out)
        self.values = []      # torch values made while drawing
        self.loose = []       # whether a value went through float32 (compared to its precision)
        n_steps = int(self.rng.integers(3, 10)) if n_steps is None else n_steps
        for _ in range(int(self.rng.integers(1, 3))):
            self.fresh(self.shape(), self.any_dtype())
        for _ in range(n_steps):
            self._draw_step()

    # -- drawing helpers --------------------------------------------------------------------------
    def shape(self, ndim=None):
        rng = self.rng
        ndim = int(rng.choice([0, 1, 2, 2, 3, 3, 4])) if ndim is None else ndim
        return tuple(int(rng.choice([0, 1, 1, 2, 3, 3, 4], p=[.04, .16, .16, .2, .2, .12, .12]))
                     for _ in range(ndim))

    def any_dtype(self):
        r = self.rng.random()
        if r < 0.55:
            return self.float_dtype()
        if r < 0.85:
            return INTS[0] if self.rng.random() < 0.7 else str(self.rng.choice(INTS))
        return "bool"

    def float_dtype(self):
        return "float64" if self.grad or self.rng.random() < 0.6 else "float32"

    def fresh(self, shape, dtype):
        """A new input: its position among the values."""
        rng = self.rng
        if dtype in FLOATS:
            a = rng.uniform(-1.5, 1.5, shape)
        elif dtype == "bool":
            a = rng.random(shape) < 0.5
        elif dtype == "uint8":
            a = rng.integers(0, 7, shape)
        else:
            a = rng.integers(-6, 7, shape)
        a = np.asarray(a).astype(dtype)
        self.inputs.append((tuple(shape), dtype))
        self.arrays.append(a)
        self.schedule.append(("input", len(self.inputs) - 1))
        self.values.append(torch.tensor(a, requires_grad=self.grad and dtype in FLOATS))
        self.loose.append(dtype == "float32")
        return len(self.values) - 1

    def pick(self, want=None):
        """A value's position: a recent one most often; `want` filters by kind."""
        ok = [i for i, v in enumerate(self.values) if want is None or _kind(v) in want]
        if not ok:
            return None
        if self.rng.random() < 0.6:
            return ok[-1]
        return ok[int(self.rng.integers(len(ok)))]

    def dim(self, x):
        n = max(x.ndim, 1)
        return int(self.rng.integers(-n, n))

    def partner(self, x, dtype=None):
        """A value or fresh input whose shape broadcasts with x's: size-1 and dropped dims."""
        rng = self.rng
        shape = tuple(x.shape)
        drop = int(rng.integers(0, len(shape) + 1)) if shape else 0
        other = tuple(1 if rng.random() < 0.25 else s for s in shape[drop:])
        if rng.random() < 0.15:
            other = (1,) + other
        dtype = dtype or (self.any_dtype() if rng.random() < 0.5 else _name(x.dtype))
        same = [i for i, v in enumerate(self.values)
                if tuple(v.shape) == other and _name(v.dtype) == dtype]
        if same and rng.random() < 0.5:
            return same[-1]
        return self.fresh(other, dtype)

    def scalar(self, kind=None):
        rng = self.rng
        kind = kind or str(rng.choice(["int", "float", "bool", "tensor0"]))
        if kind == "int":
            return int(rng.choice([-3, -2, -1, 2, 3, 5]))
        if kind == "float":
            return float(rng.choice([-2.5, -0.5, 0.5, 1.5, 3.0]))
        if kind == "bool":
            return bool(rng.integers(2))
        return None  # a 0-d tensor: the caller makes an input

    # -- the draw ---------------------------------------------------------------------------------
    def _draw_step(self):
        for _ in range(40):
            families = self.families or FAMILIES
            family = families[int(self.rng.integers(len(families)))]
            mark = (len(self.inputs), len(self.arrays), len(self.schedule), len(self.values))
            drawn = family(self)
            if drawn is None:
                self._undo(mark)
                continue
            description, fn, args = drawn
            try:
                out = fn(torch, *[self.values[i] for i in args])
            except (RuntimeError, TypeError, ValueError, IndexError, NotImplementedError,
                    AttributeError, ZeroDivisionError):
                self._undo(mark)
                continue
            outs = list(out) if isinstance(out, (tuple, list)) else [out]
            if not all(isinstance(o, torch.Tensor) for o in outs) or any(
                    o.numel() > 400 for o in outs):
                self._undo(mark)
                continue
            if self.grad and any(o.dtype == torch.float32 or type(o.grad_fn).__name__ ==
                                 "NotImplemented" for o in outs):
                self._undo(mark)
                continue
            if any(o.is_floating_point() and not torch.isfinite(o).all() for o in outs):
                self._undo(mark)
                continue
            if description.split()[0] in TIE_SENSITIVE and any(
                    self.values[i].unique().numel() < self.values[i].numel() for i in args):
                self._undo(mark)  # (which of equal elements comes first is torch's own choice)
                continue
            loose = any(self.loose[i] or self.values[i].dtype == torch.float32 for i in args) \
                or any(o.dtype == torch.float32 for o in outs)
            self.schedule.append(("step", description, fn, args, len(outs)))
            self.values.extend(outs)
            self.loose.extend([loose] * len(outs))
            return

    def _undo(self, mark):
        n_inputs, n_arrays, n_schedule, n_values = mark
        del self.inputs[n_inputs:], self.arrays[n_arrays:], self.schedule[n_schedule:]
        del self.values[n_values:], self.loose[n_values:]

    # -- replay -----------------------------------------------------------------------------------
    def run(self, m, inputs):
        """Every value of the program, built with library `m` from `inputs`."""
        values = []
        for entry in self.schedule:
            if entry[0] == "input":
                values.append(inputs[entry[1]])
                continue
            _, _, fn, args, _ = entry
            out = fn(m, *[values[i] for i in args])
            values.extend(out if isinstance(out, (tuple, list)) else [out])
        return values

    def describe(self):
        lines, n = [], 0
        for entry in self.schedule:
            if entry[0] == "input":
                lines.append(f"v{n} = input {self.inputs[entry[1]]}")
                n += 1
            else:
                _, description, _, args, n_out = entry
                outs = ", ".join(f"v{n + k}" for k in range(n_out))
                lines.append(f"{outs} = {description} of {['v%d' % a for a in args]}")
                n += n_out
        return "\n".join(lines)

    def loss(self, m, values):
        """A float64 scalar fed by the float values the program made after its inputs."""
        total = None
        for k, v in enumerate(values):
            if v.dtype != m.float64 or k < 1:
                continue
            term = (v * v * 0.25 + v * (0.1 + 0.01 * k)).sum()
            total = term if total is None else total + term
        return total


TIE_SENSITIVE = {"sort", "sort_desc", "argsort", "topk", "kthvalue", "median", "cummax"}


def _kind(v):
    if v.dtype == torch.bool:
        return "bool"
    return "float" if v.is_floating_point() else "int"


def _name(dtype):
    return str(dtype).replace("torch.", "")


# -- families: each draws (description, fn(m, *values), value positions) or None -----------------

def _unary(p):
    rng = p.rng
    x = p.pick()
    kind = _kind(p.values[x])
    if kind == "float":
        names = sorted(UNARY_FLOAT)
        name = names[int(rng.integers(len(names)))]
        if p.grad and name in TORCH_GRADIENT_ROUNDED:
            return None
        return name, UNARY_FLOAT[name], [x]
    names = sorted(UNARY_ANY)
    name = names[int(rng.integers(len(names)))]
    return name, UNARY_ANY[name], [x]


def _softplus(beta, threshold):
    return lambda m, x: m.nn.functional.softplus(x, beta=beta, threshold=threshold)


# torch's gradient of celu is off by up to 5e-8 relative (exp(x / alpha) with 1 / alpha
# rounded to float32); fluxgrad's is exact to rounding
TORCH_GRADIENT_ROUNDED = {"celu"}

UNARY_FLOAT = {
    "tanh": lambda m, x: m.tanh(x),
    "sigmoid": lambda m, x: m.sigmoid(x),
    "exp": lambda m, x: m.exp(x.clamp(-4, 4)),
    "gelu_tanh": lambda m, x: m.nn.functional.gelu(x, approximate="tanh"),
    "silu": lambda m, x: m.nn.functional.silu(x),
    "softplus_b2_t1": _softplus(2.0, 1.0),
    "softplus_b05_t20": _softplus(0.5, 20.0),
    "softplus_b3_t0.5": _softplus(3, 0.5),
    "logsigmoid": lambda m, x: m.nn.functional.logsigmoid(x),
    "dropout_p0": lambda m, x: m.nn.functional.dropout(x, p=0.0),
    "dropout_eval": lambda m, x: m.nn.functional.dropout(x, p=0.5, training=False),
    "hardswish": lambda m, x: m.nn.functional.hardswish(x),
    "elu_alpha": lambda m, x: m.nn.functional.elu(x, alpha=0.7),
    "celu": lambda m, x: m.nn.functional.celu(x, alpha=1.3),
    "softsign": lambda m, x: m.nn.functional.softsign(x),
    "tanhshrink": lambda m, x: m.nn.functional.tanhshrink(x),
    "log_safe": lambda m, x: m.log(x * x + 0.5),
    "sqrt_safe": lambda m, x: (x * x + 0.1).sqrt(),
    "rsqrt_safe": lambda m, x: (x * x + 0.1).rsqrt(),
    "floor": lambda m, x: x.floor(),
    "round": lambda m, x: x.round(),
    "round_decimals": lambda m, x: x.round(decimals=1),
    "frac": lambda m, x: x.frac(),
    "to_int": lambda m, x: x.long(),
    "to_int32": lambda m, x: x.to(m.int32),
    "to_bool": lambda m, x: x.bool(),
    "gt0": lambda m, x: x > 0,
    "isclose": lambda m, x: m.isclose(x, x.round()),
    "double": lambda m, x: x.double(),
    "float": lambda m, x: x.float(),
    "relu": lambda m, x: m.relu(x),
    "abs": lambda m, x: x.abs(),
    "sign_mul": lambda m, x: m.sign(x) * x,
    "pow_int": lambda m, x: x ** 3,
    "rpow": lambda m, x: 2 ** x,
    "rdiv": lambda m, x: 1 / (x * x + 1),
    "hardtanh": lambda m, x: m.nn.functional.hardtanh(x, -0.5, 0.7),
    "relu6": lambda m, x: m.nn.functional.relu6(x * 4),
    "leaky": lambda m, x: m.nn.functional.leaky_relu(x, 0.2),
    "square": lambda m, x: m.square(x),
    "nan_to_num": lambda m, x: m.nan_to_num(x),
}

UNARY_ANY = {  # ints and bools
    "to_float": lambda m, x: x.float(),
    "to_double": lambda m, x: x.double(),
    "to_long": lambda m, x: x.long(),
    "to_bool": lambda m, x: x.bool(),
    "abs": lambda m, x: x.abs(),
    "neg": lambda m, x: -x,
    "square": lambda m, x: m.square(x),
    "sign": lambda m, x: m.sign(x),
    "sqrt_abs": lambda m, x: m.sqrt(x.abs()),
    "exp": lambda m, x: m.exp(x.clamp(max=3)),
    "sigmoid": lambda m, x: m.sigmoid(x),
    "tanh": lambda m, x: m.tanh(x),
    "not": lambda m, x: ~x,
    "logical_not": lambda m, x: m.logical_not(x),
    "sum": lambda m, x: x.sum(),
    "mean_float": lambda m, x: x.float().mean(),
    "pow2": lambda m, x: x ** 2,
    "pow_float": lambda m, x: x.abs() ** 0.5,
    "rpow": lambda m, x: 2 ** x.clamp(0, 5),
    "reciprocal": lambda m, x: m.reciprocal(x.abs() + 1),
    "true_div": lambda m, x: x / 2,
    "floor_div_scalar": lambda m, x: x // 2,
    "floor_divide_neg": lambda m, x: m.floor_divide(x, -3),
    "remainder_neg": lambda m, x: m.remainder(x, -4),
    "mod": lambda m, x: x % 3,
    "fmod": lambda m, x: m.fmod(x, -3),
    "add_float": lambda m, x: x + 0.5,
    "mul_bool": lambda m, x: x * True,
    "clamp": lambda m, x: x.clamp(-2, 3),
    "clamp_float": lambda m, x: x.clamp(min=-1.5),
    "nonzero_count": lambda m, x: m.count_nonzero(x),
    "any": lambda m, x: x.any(),
    "all": lambda m, x: x.all(),
    "floor": lambda m, x: x.floor(),
    "isnan": lambda m, x: m.isnan(x),
    "zeros_like": lambda m, x: m.zeros_like(x) + x,
    "ones_like_float": lambda m, x: m.ones_like(x, dtype=m.float64) * x,
    "full_like": lambda m, x: m.full_like(x, 7) - x,
}

BINARY = {
    "add": lambda m, x, y: x + y,
    "sub": lambda m, x, y: x - y,
    "rsub": lambda m, x, y: m.sub(x, y, alpha=2),
    "add_alpha": lambda m, x, y: m.add(x, y, alpha=3),
    "mul": lambda m, x, y: x * y,
    "true_div": lambda m, x, y: x / (y * y + 1),
    "div_floor": lambda m, x, y: m.div(x, y.abs() + 1, rounding_mode="floor"),
    "div_trunc": lambda m, x, y: m.div(x, y.abs() + 1, rounding_mode="trunc"),
    "floor_divide": lambda m, x, y: x // (y.abs() + 1),
    "remainder": lambda m, x, y: x % (y.abs() + 1),
    "remainder_neg": lambda m, x, y: m.remainder(x, -(y.abs() + 1)),
    "fmod": lambda m, x, y: m.fmod(x, y.abs() + 1),
    "maximum": lambda m, x, y: m.maximum(x, y),
    "minimum": lambda m, x, y: m.minimum(x, y),
    "gt": lambda m, x, y: x > y,
    "le": lambda m, x, y: x <= y,
    "eq": lambda m, x, y: x == y,
    "ne": lambda m, x, y: x != y,
    "where_gt": lambda m, x, y: m.where(x > y, x, y),
    "where_scalar": lambda m, x, y: m.where(x < y, x, 0.5),
    "where_int_scalar": lambda m, x, y: m.where(y > 0, 2, x),
    "masked_fill": lambda m, x, y: x.masked_fill(y > 0, -1),
    "masked_fill_float": lambda m, x, y: x.masked_fill(y >= 0, 0.25),
    "masked_fill_tensor": lambda m, x, y: x.masked_fill(x > 0, m.tensor(2)),
    "clamp_tensor": lambda m, x, y: x.clamp(min=-y.abs(), max=y.abs() + 0.5),
    "clamp_min_tensor": lambda m, x, y: m.clamp(x, min=y),
    "clamp_max_tensor": lambda m, x, y: m.clamp(x, max=y),
    "atan2": lambda m, x, y: m.atan2(x, y * y + 1),
    "pow": lambda m, x, y: (x * x + 1) ** y,
    "logical_and": lambda m, x, y: m.logical_and(x, y),
    "logical_or": lambda m, x, y: m.logical_or(x, y > 0),
    "bitand": lambda m, x, y: x & y,
    "bitor": lambda m, x, y: x | y,
    "bitxor": lambda m, x, y: x ^ y,
    "hypot": lambda m, x, y: m.hypot(x, y),
    "copysign": lambda m, x, y: m.copysign(x, y),
    "lerp": lambda m, x, y: m.lerp(x, y, 0.25),
    "addcmul": lambda m, x, y: m.addcmul(x, x, y, value=0.5),
    "addcdiv": lambda m, x, y: m.addcdiv(x, x, y * y + 1, value=-2),
    "xlogy": lambda m, x, y: m.xlogy(x, y * y + 1),
    "dist": lambda m, x, y: m.dist(x, y + 0.1),
}


def _binary(p):
    rng = p.rng
    x = p.pick()
    names = sorted(BINARY)
    name = names[int(rng.integers(len(names)))]
    if rng.random() < 0.25:
        s = p.scalar()
        if s is None:
            y = p.fresh((), p.any_dtype())
            return name + " 0-d", BINARY[name], [x, y]
        return f"{name} scalar {s!r}", (lambda m, x: BINARY[name](m, x, s)), [x]
    y = p.partner(p.values[x])
    if rng.random() < 0.3:
        return name + " swapped", (lambda m, a, b: BINARY[name](m, b, a)), [x, y]
    return name, BINARY[name], [x, y]


def _scalar_left(p):
    """A Python scalar on the left: 3 - x, 2.5 / x, 2 ** x, 7 // x, -5 % x."""
    rng = p.rng
    x = p.pick()
    s = p.scalar(str(rng.choice(["int", "float"])))
    op = str(rng.choice(["rsub", "rtruediv", "rpow", "rfloordiv", "rmod", "radd", "rmul"]))
    fns = {"rsub": lambda m, x: s - x, "rtruediv": lambda m, x: s / (x * x + 1),
           "rpow": lambda m, x: abs(s) ** x, "rfloordiv": lambda m, x: s // (x.abs() + 1),
           "rmod": lambda m, x: s % (x.abs() + 1), "radd": lambda m, x: s + x,
           "rmul": lambda m, x: s * x}
    return f"{op} {s!r}", fns[op], [x]


REDUCE = {
    "sum": lambda m, x, d, k: x.sum(d, keepdim=k),
    "sum_dtype": lambda m, x, d, k: x.sum(d, keepdim=k, dtype=m.float64),
    "mean": lambda m, x, d, k: x.mean(d, keepdim=k),
    "nanmean": lambda m, x, d, k: x.nanmean(d, keepdim=k),
    "amax": lambda m, x, d, k: x.amax(d, keepdim=k),
    "amin": lambda m, x, d, k: x.amin(d, keepdim=k),
    "logsumexp": lambda m, x, d, k: m.logsumexp(x, d, keepdim=k),
    "var0": lambda m, x, d, k: x.var(d, keepdim=k, correction=0),
    "var1": lambda m, x, d, k: x.var(d, keepdim=k),
    "var_unbiased_false": lambda m, x, d, k: m.var(x, d, unbiased=False, keepdim=k),
    "std1": lambda m, x, d, k: x.std(d, keepdim=k) + 0.1,
    "std2": lambda m, x, d, k: x.std(d, keepdim=k, correction=2) + 0.1,
    "var_mean": lambda m, x, d, k: m.var_mean(x, d, keepdim=k, correction=1),
    "std_mean": lambda m, x, d, k: m.std_mean(x, d, keepdim=k, correction=0),
    "prod": lambda m, x, d, k: x.prod(d if isinstance(d, int) else d[0], keepdim=k),
    "norm2": lambda m, x, d, k: x.norm(dim=d, keepdim=k) + 0.1,
    "norm1": lambda m, x, d, k: x.norm(p=1, dim=d, keepdim=k),
    "norm3": lambda m, x, d, k: x.norm(p=3, dim=d, keepdim=k) + 0.1,
    "norm_inf": lambda m, x, d, k: x.norm(p=float("inf"), dim=d, keepdim=k),
    "norm_neginf": lambda m, x, d, k: m.linalg.vector_norm(x, float("-inf"), dim=d, keepdim=k),
    "vnorm_half": lambda m, x, d, k: m.linalg.vector_norm(x * x + 0.5, 0.5, dim=d, keepdim=k),
    "vnorm0": lambda m, x, d, k: m.linalg.vector_norm(x, 0, dim=d, keepdim=k),
    "max_dim": lambda m, x, d, k: m.max(x, d if isinstance(d, int) else d[0], keepdim=k),
    "min_dim": lambda m, x, d, k: x.min(d if isinstance(d, int) else d[0], k),
    "argmax": lambda m, x, d, k: x.argmax(d if isinstance(d, int) else d[0], keepdim=k),
    "argmin": lambda m, x, d, k: m.argmin(x, d if isinstance(d, int) else d[0], keepdim=k),
    "median": lambda m, x, d, k: x.median(d if isinstance(d, int) else d[0], keepdim=k),
    "any": lambda m, x, d, k: x.any(d, keepdim=k),
    "all": lambda m, x, d, k: m.all(x, d, keepdim=k),
    "count_nonzero": lambda m, x, d, k: m.count_nonzero(x, d),
    "aminmax": lambda m, x, d, k: m.aminmax(x, dim=d if isinstance(d, int) else d[0],
                                            keepdim=k),
}


def _reduce(p):
    rng = p.rng
    x = p.pick()
    v = p.values[x]
    names = sorted(REDUCE)
    name = names[int(rng.integers(len(names)))]
    if v.ndim == 0:
        d = int(rng.choice([0, -1]))
    elif v.ndim >= 2 and rng.random() < 0.3:
        d = tuple(int(a) for a in rng.choice(np.arange(-v.ndim, 0), 2, replace=False))
    else:
        d = p.dim(v)
    k = bool(rng.integers(2))
    return f"{name} dim={d} keepdim={k}", (lambda m, x: REDUCE[name](m, x, d, k)), [x]


ALONG = {
    "cumsum": lambda m, x, d: x.cumsum(d),
    "cumsum_dtype": lambda m, x, d: m.cumsum(x, d, dtype=m.float64),
    "cumprod": lambda m, x, d: m.cumprod(x, d),
    "softmax": lambda m, x, d: m.softmax(x, d),
    "log_softmax": lambda m, x, d: m.nn.functional.log_softmax(x, dim=d),
    "softmax_dtype": lambda m, x, d: m.softmax(x, d, dtype=m.float64),
    "softmin": lambda m, x, d: m.nn.functional.softmin(x, d),
    "normalize": lambda m, x, d: m.nn.functional.normalize(x + 0.3, dim=d),
    "normalize_p1": lambda m, x, d: m.nn.functional.normalize(x + 0.3, p=1, dim=d),
    "cummax": lambda m, x, d: m.cummax(x, d),
    "cummin_values": lambda m, x, d: x.cummin(d).values,
    "sort": lambda m, x, d: m.sort(x, d),
    "sort_desc": lambda m, x, d: x.sort(dim=d, descending=True),
    "argsort": lambda m, x, d: m.argsort(x, d, descending=True),
    "flip": lambda m, x, d: x.flip(d),
    "roll": lambda m, x, d: x.roll(-1, d),
    "glu": lambda m, x, d: m.nn.functional.glu(x, d),
    "diff": lambda m, x, d: m.diff(x, dim=d),
    "logcumsumexp": lambda m, x, d: m.logcumsumexp(x, d),
}


FLOAT_ONLY = {"softmax", "log_softmax", "softmin", "glu", "logcumsumexp"}


def _along(p):
    rng = p.rng
    x = p.pick()
    names = sorted(ALONG)
    name = names[int(rng.integers(len(names)))]
    if name in FLOAT_ONLY and _kind(p.values[x]) != "float":
        return None  # (torch refuses them, but on an empty tensor gives one of its dtype)
    d = p.dim(p.values[x])
    return f"{name} dim={d}", (lambda m, x: ALONG[name](m, x, d)), [x]


def _topk(p):
    rng = p.rng
    x = p.pick()
    v = p.values[x]
    d = p.dim(v)
    size = v.shape[d] if v.ndim else 1
    k = int(rng.integers(0, size + 1))
    largest = bool(rng.integers(2))
    if rng.random() < 0.3:
        return f"kthvalue {k} dim={d}", (lambda m, x: m.kthvalue(x, max(k, 1), d)), [x]
    return (f"topk {k} dim={d} largest={largest}",
            lambda m, x: m.topk(x, k, dim=d, largest=largest), [x])


def _matmul(p):
    rng = p.rng
    x = p.pick(("float", "int"))
    if x is None:
        return None
    v = p.values[x]
    if v.ndim == 0:
        return None
    k = v.shape[-1]
    form = str(rng.choice(["vec", "mat", "batched", "left_vec", "bmm_broadcast"]))
    dtype = _name(v.dtype)
    if form == "vec":
        y = p.fresh((k,), dtype)
    elif form == "mat":
        y = p.fresh((k, int(rng.integers(1, 4))), dtype)
    elif form == "batched":
        y = p.fresh((int(rng.choice([1, 2])), k, int(rng.integers(1, 4))), dtype)
    elif form == "left_vec":
        if v.ndim < 2:
            return None
        y = p.fresh((v.shape[-2],), dtype)
        return "vec @ x", (lambda m, x, y: m.matmul(y, x)), [x, y]
    else:
        y = p.fresh((1,) * max(v.ndim - 2, 1) + (k, 2), dtype)
    return f"matmul {form}", (lambda m, x, y: x @ y), [x, y]


EINSUM = [
    ("ij,jk->ik", lambda s: [s, (s[1], 3)]),
    ("ij->ji", lambda s: [s]),
    ("ij->", lambda s: [s]),
    ("ij,ij->i", lambda s: [s, s]),
    ("i,j->ij", lambda s: [s[:1], (3,)]),
    ("bij,bjk->bik", lambda s: [s, (s[0], s[2], 2)]),
    ("...j,kj->...k", lambda s: [s, (2, s[-1])]),
    ("ii->i", lambda s: [s]),
    ("ij,j", lambda s: [s, s[1:]]),
]


def _einsum(p):
    rng = p.rng
    x = p.pick(("float",))
    if x is None:
        return None
    v = p.values[x]
    equation, shapes = EINSUM[int(rng.integers(len(EINSUM)))]
    lhs = equation.split("->")[0].split(",")[0]
    if len(lhs.replace("...", "")) > v.ndim or ("..." not in lhs and len(lhs) != v.ndim):
        return None
    shapes = shapes(tuple(v.shape))
    others = [p.fresh(s, _name(v.dtype)) for s in shapes[1:]]
    return f"einsum {equation}", (lambda m, *xs: m.einsum(equation, *xs)), [x] + others


def _index(p):
    """Basic and advanced indexing: ints, slices, None, Ellipsis, int tensors, bool masks."""
    rng = p.rng
    x = p.pick()
    v = p.values[x]
    if v.ndim == 0:
        return "x[None]", (lambda m, x: x[None]), [x]
    shape = tuple(v.shape)
    form = str(rng.choice(["int_tensor", "int_pair", "mask", "mask_row", "ellipsis", "slice_none",
                           "neg_int", "list", "mask_data", "int_tensor_2d"]))
    if form == "int_tensor":
        idx = rng.integers(-shape[0], max(shape[0], 1), int(rng.integers(0, 4)))
        if shape[0] == 0:
            idx = idx[:0]
        return f"x[{idx.tolist()}]", (lambda m, x: x[m.tensor(idx, dtype=m.int64)]), [x]
    if form == "int_tensor_2d":
        if shape[0] == 0:
            return None
        if v.ndim == 1:
            idx = rng.integers(0, shape[0], (2, 2))
            return f"x[tensor{idx.tolist()}]", (lambda m, x: x[m.tensor(idx)]), [x]
        if shape[1] == 0:
            return None  # (torch doesn't check the index against an empty tensor)
        idx = rng.integers(-shape[1], shape[1], 2)
        return f"x[:, tensor{idx.tolist()}]", (lambda m, x: x[:, m.tensor(idx)]), [x]
    if form == "int_pair":
        if v.ndim < 2 or 0 in shape[:2]:
            return None
        a = rng.integers(0, shape[0], 3)
        b = rng.integers(-shape[1], shape[1], 3)
        return f"x[{a.tolist()}, {b.tolist()}]", (
            lambda m, x: x[m.tensor(a), m.tensor(b)]), [x]
    if form == "mask":
        mask = rng.random(shape) < 0.5
        return "x[mask]", (lambda m, x: x[m.tensor(mask)]), [x]
    if form == "mask_row":
        mask = rng.random(shape[:1]) < 0.5
        return f"x[{mask.tolist()}, ...]", (lambda m, x: x[m.tensor(mask), ...]), [x]
    if form == "mask_data":
        if p.sized:
            return None
        return "x[x > 0]", (lambda m, x: x[x > 0] if x.dtype != m.bool else x[x]), [x]
    if form == "ellipsis":
        i = int(rng.integers(-shape[-1], max(shape[-1], 1)))
        return f"x[..., {i}]", (lambda m, x: x[..., i]), [x]
    if form == "slice_none":
        start = int(rng.integers(-3, 3))
        step = int(rng.integers(1, 3))
        return f"x[{start}::{step}, None]", (lambda m, x: x[start::step, None]), [x]
    if form == "neg_int":
        return "x[-1]", (lambda m, x: x[-1]), [x]
    idx = [int(i) for i in rng.integers(0, max(shape[0], 1), 2)]
    return f"x[None, {idx}]", (lambda m, x: x[None, idx]), [x]


def _gather_family(p):
    rng = p.rng
    x = p.pick()
    v = p.values[x]
    if v.ndim == 0:
        return None
    d = p.dim(v)
    shape = list(v.shape)
    size = shape[d]
    form = str(rng.choice(["index_select", "gather", "take_along_dim", "take_along_flat",
                           "scatter_add", "scatter", "index_add", "index_fill", "scatter_reduce",
                           "index_copy"]))
    if form == "index_select":
        idx = rng.integers(0, max(size, 1), int(rng.integers(0, 4)) if size else 0)
        return f"index_select dim={d} {idx.tolist()}", (
            lambda m, x: m.index_select(x, d, m.tensor(idx, dtype=m.int64))), [x]
    if form in ("gather", "take_along_dim"):
        out = list(shape)
        out[d] = int(rng.integers(0, 4))
        idx = rng.integers(0, max(size, 1), out)
        if form == "gather":
            return f"gather dim={d}", (lambda m, x: m.gather(x, d, m.tensor(idx))), [x]
        return f"take_along_dim dim={d}", (
            lambda m, x: m.take_along_dim(x, m.tensor(idx), dim=d)), [x]
    if form == "take_along_flat":
        idx = rng.integers(0, max(v.numel(), 1), int(rng.integers(1, 5)))
        return "take_along_dim flat", (lambda m, x: m.take_along_dim(x, m.tensor(idx))), [x]
    out = list(shape)
    out[d] = int(rng.integers(1, 4))
    src_dtype = _name(v.dtype)
    if form in ("scatter_add", "scatter", "scatter_reduce"):
        idx = rng.integers(0, out[d], shape)
        if form == "scatter":
            # distinct targets (torch leaves which duplicate wins unspecified)
            if size > out[d]:
                return None
            idx = np.moveaxis(np.argsort(rng.random(np.moveaxis(np.zeros(shape), d, -1).shape[
                :-1] + (out[d],)), axis=-1)[..., :size], -1, d)
        base = p.fresh(tuple(out), src_dtype)
        if form == "scatter_add":
            return f"scatter_add dim={d}", (
                lambda m, b, x: b.scatter_add(d, m.tensor(idx), x)), [base, x]
        if form == "scatter":
            return f"scatter dim={d}", (lambda m, b, x: b.scatter(d, m.tensor(idx), x)), [base, x]
        reduce = str(rng.choice(["sum", "prod", "mean", "amax", "amin"]))
        include = bool(rng.integers(2))
        return f"scatter_reduce {reduce} include_self={include} dim={d}", (
            lambda m, b, x: b.scatter_reduce(d, m.tensor(idx), x, reduce,
                                             include_self=include)), [base, x]
    idx = rng.integers(0, out[d], size)
    base = p.fresh(tuple(out), src_dtype)
    if form == "index_add":
        alpha = int(rng.choice([1, 2, -1]))
        return f"index_add dim={d} alpha={alpha}", (
            lambda m, b, x: b.index_add(d, m.tensor(idx), x, alpha=alpha)), [base, x]
    if form == "index_copy":
        if size > out[d]:
            return None
        idx = rng.permutation(out[d])[:size]
        return f"index_copy dim={d} {idx.tolist()}", (
            lambda m, b, x: b.index_copy(d, m.tensor(idx), x)), [base, x]
    fill_idx = rng.integers(0, max(size, 1), 2) if size else np.zeros(0, dtype=np.int64)
    return f"index_fill dim={d}", (
        lambda m, x: x.index_fill(d, m.tensor(fill_idx, dtype=m.int64), -2)), [x]


def _shape(p):
    rng = p.rng
    x = p.pick()
    v = p.values[x]
    n = v.ndim
    shape = tuple(v.shape)
    form = str(rng.choice(["stack", "cat", "split", "split_list", "chunk", "unbind", "permute",
                           "transpose", "flatten", "unflatten", "squeeze_tuple", "expand",
                           "repeat", "roll_tuple", "roll_flat", "flip_tuple", "tril", "triu",
                           "movedim", "reshape", "unsqueeze", "narrow", "diagonal",
                           "tensor_split", "repeat_interleave", "mT", "broadcast_to",
                           "diag_embed", "hstack", "view_neg"]))
    d = p.dim(v)
    if form in ("stack", "cat", "hstack"):
        y = p.fresh(shape, p.any_dtype() if rng.random() < 0.4 else _name(v.dtype))
        if form == "stack":
            s = int(rng.integers(-n - 1, n + 1))
            return f"stack dim={s}", (lambda m, x, y: m.stack([x, y], s)), [x, y]
        if form == "hstack":
            return "hstack", (lambda m, x, y: m.hstack([x, y])), [x, y]
        return f"cat dim={d}", (lambda m, x, y: m.cat((x, y, x), dim=d)), [x, y]
    if form == "split":
        size = int(rng.integers(1, 4))
        return f"split {size} dim={d}", (lambda m, x: m.split(x, size, d)), [x]
    if form == "split_list":
        if not n:
            return None
        total = shape[d]
        cut = int(rng.integers(0, total + 1))
        return f"split [{cut}, {total - cut}] dim={d}", (
            lambda m, x: x.split([cut, total - cut], dim=d)), [x]
    if form == "chunk":
        c = int(rng.integers(1, 4))
        return f"chunk {c} dim={d}", (lambda m, x: x.chunk(c, d)), [x]
    if form == "tensor_split":
        c = int(rng.integers(1, 4))
        return f"tensor_split {c} dim={d}", (lambda m, x: m.tensor_split(x, c, dim=d)), [x]
    if form == "unbind":
        return f"unbind dim={d}", (lambda m, x: m.unbind(x, d)), [x]
    if form == "permute":
        perm = [int(a) - n if rng.random() < 0.5 else int(a) for a in rng.permutation(n)]
        return f"permute {perm}", (lambda m, x: x.permute(*perm)), [x]
    if form == "transpose":
        e = p.dim(v)
        return f"transpose {d} {e}", (lambda m, x: m.transpose(x, d, e)), [x]
    if form == "flatten":
        s = p.dim(v)
        e = int(rng.integers(s % max(n, 1), max(n, 1))) if n else 0
        return f"flatten {s} {e}", (lambda m, x: m.flatten(x, s, e)), [x]
    if form == "unflatten":
        if not n or shape[d] not in (4, 6, 2, 0):
            return None
        sizes = {4: (2, -1), 6: (-1, 3), 2: (1, 2, 1), 0: (0, 2)}[shape[d]]
        return f"unflatten dim={d} {sizes}", (lambda m, x: x.unflatten(d, sizes)), [x]
    if form == "squeeze_tuple":
        dims = tuple(i - n if rng.random() < 0.5 else i for i in range(n) if rng.random() < 0.6)
        return f"squeeze {dims}", (lambda m, x: x.squeeze(dims)), [x]
    if form == "expand":
        new = tuple(-1 if s != 1 or rng.random() < 0.3 else 3 for s in shape)
        new = ((2,) + new) if rng.random() < 0.4 else new
        return f"expand {new}", (lambda m, x: x.expand(*new)), [x]
    if form == "broadcast_to":
        new = tuple(2 if s == 1 else s for s in shape)
        return f"broadcast_to {new}", (lambda m, x: m.broadcast_to(x, (1,) + new)), [x]
    if form == "repeat":
        reps = tuple(int(r) for r in rng.integers(0 if rng.random() < 0.1 else 1, 3,
                                                  n + int(rng.integers(0, 2))))
        return f"repeat {reps}", (lambda m, x: x.repeat(*reps) if reps else x.repeat(())), [x]
    if form == "repeat_interleave":
        r = int(rng.integers(1, 3))
        return f"repeat_interleave {r} dim={d}", (
            lambda m, x: m.repeat_interleave(x, r, dim=d)), [x]
    if form == "roll_tuple":
        if n < 2:
            return None
        shifts = tuple(int(s) for s in rng.integers(-3, 4, 2))
        return f"roll {shifts} (0, -1)", (lambda m, x: m.roll(x, shifts, (0, -1))), [x]
    if form == "roll_flat":
        s = int(rng.integers(-5, 6))
        return f"roll {s} flat", (lambda m, x: x.roll(s)), [x]
    if form == "flip_tuple":
        dims = tuple(sorted({p.dim(v) for _ in range(2)}))
        return f"flip {dims}", (lambda m, x: m.flip(x, dims)), [x]
    if form in ("tril", "triu"):
        k = int(rng.integers(-2, 3))
        return f"{form} {k}", (lambda m, x: getattr(m, form)(x, k)), [x]
    if form == "movedim":
        e = p.dim(v)
        return f"movedim {d} {e}", (lambda m, x: m.movedim(x, d, e)), [x]
    if form in ("reshape", "view_neg"):
        new = (-1,) + shape[2:] if n >= 2 else (1, -1)
        if form == "view_neg":
            return f"contiguous().view {new}", (lambda m, x: x.contiguous().view(*new)), [x]
        return f"reshape {new}", (lambda m, x: x.reshape(new)), [x]
    if form == "unsqueeze":
        u = int(rng.integers(-n - 1, n + 1))
        return f"unsqueeze {u}", (lambda m, x: m.unsqueeze(x, u)), [x]
    if form == "narrow":
        if not n:
            return None
        start = int(rng.integers(-shape[d], shape[d] + 1)) if shape[d] else 0
        length = int(rng.integers(0, shape[d] - start % max(shape[d], 1) + 1)) if shape[d] else 0
        return f"narrow dim={d} {start} {length}", (lambda m, x: x.narrow(d, start, length)), [x]
    if form == "diagonal":
        off = int(rng.integers(-1, 2))
        return f"diagonal offset={off} dims=(-1, 0)", (
            lambda m, x: m.diagonal(x, off, -1, 0)), [x]
    if form == "diag_embed":
        return "diag_embed", (lambda m, x: m.diag_embed(x)), [x]
    return "mT", (lambda m, x: x.mT), [x]


def _nn(p):
    rng = p.rng
    F_ops = ["linear", "linear_nobias", "conv1d", "conv2d", "layer_norm", "layer_norm2",
             "normalize", "pad_constant", "pad_reflect", "pad_replicate", "pad_circular",
             "group_norm", "rms_norm", "cosine", "pairwise", "bilinear_nobias"]
    form = str(rng.choice(F_ops))
    x = p.pick(("float",))
    if x is None:
        return None
    v = p.values[x]
    shape = tuple(v.shape)
    dtype = _name(v.dtype)
    if v.ndim == 0:
        return None
    if form in ("linear", "linear_nobias"):
        out = int(rng.integers(1, 4))
        w = p.fresh((out, shape[-1]), dtype)
        if form == "linear":
            b = p.fresh((out,), dtype)
            return "linear", (lambda m, x, w, b: m.nn.functional.linear(x, w, b)), [x, w, b]
        return "linear no bias", (lambda m, x, w: m.nn.functional.linear(x, w)), [x, w]
    if form == "bilinear_nobias":
        w = p.fresh((2, shape[-1], shape[-1]), dtype)
        return "bilinear", (lambda m, x, w: m.nn.functional.bilinear(x, x, w)), [x, w]
    if form in ("conv1d", "conv2d"):
        spatial = 1 if form == "conv1d" else 2
        if v.ndim != spatial + 2 and v.ndim != spatial + 1:
            return None
        channels = shape[-spatial - 1]
        groups = int(rng.choice([1, channels])) if channels else 1
        out = groups * int(rng.integers(1, 3))
        kernel = tuple(int(rng.integers(1, 3)) for _ in range(spatial))
        stride = int(rng.integers(1, 3))
        padding = rng.choice(["same", 0, 1]) if stride == 1 else int(rng.integers(0, 2))
        padding = padding if padding == "same" else int(padding)
        dilation = int(rng.integers(1, 3))
        w = p.fresh((out, max(channels // max(groups, 1), 1)) + kernel, dtype)
        b = p.fresh((out,), dtype)
        conv = form
        return (f"{form} stride={stride} padding={padding} dilation={dilation} groups={groups}",
                lambda m, x, w, b: getattr(m.nn.functional, conv)(
                    x, w, b, stride=stride, padding=padding, dilation=dilation, groups=groups),
                [x, w, b])
    if form in ("layer_norm", "layer_norm2"):
        k = 1 if form == "layer_norm" or v.ndim < 2 else 2
        normalized = shape[-k:]
        if rng.random() < 0.5:
            w, b = p.fresh(normalized, dtype), p.fresh(normalized, dtype)
            return f"layer_norm {normalized}", (lambda m, x, w, b: m.nn.functional.layer_norm(
                x, normalized, w, b, eps=1e-3)), [x, w, b]
        return f"layer_norm {normalized} no affine", (
            lambda m, x: m.nn.functional.layer_norm(x, normalized)), [x]
    if form == "rms_norm":
        normalized = shape[-1:]
        w = p.fresh(normalized, dtype)
        return "rms_norm", (lambda m, x, w: m.nn.functional.rms_norm(x, normalized, w,
                                                                        eps=1e-4)), [x, w]
    if form == "group_norm":
        if v.ndim < 2:
            return None
        groups = int(rng.choice([1, shape[1]])) if shape[1] else 1
        return f"group_norm {groups}", (
            lambda m, x: m.nn.functional.group_norm(x, groups, eps=1e-3)), [x]
    if form == "normalize":
        pn = float(rng.choice([1.0, 2.0, 3.0]))
        d = p.dim(v)
        return f"normalize p={pn} dim={d}", (
            lambda m, x: m.nn.functional.normalize(x + 0.2, p=pn, dim=d)), [x]
    if form == "cosine":
        y = p.fresh(shape, dtype)
        d = p.dim(v)
        return f"cosine_similarity dim={d}", (
            lambda m, x, y: m.nn.functional.cosine_similarity(x + 0.3, y, dim=d)), [x, y]
    if form == "pairwise":
        y = p.fresh(shape, dtype)
        return "pairwise_distance", (
            lambda m, x, y: m.nn.functional.pairwise_distance(x, y)), [x, y]
    mode = form[4:]
    k = 1 if v.ndim < 4 or rng.random() < 0.5 else 2
    pad = tuple(int(a) for a in rng.integers(0, 3, 2 * k))
    value = 0.5
    if mode == "constant":
        return f"pad {pad} constant", (
            lambda m, x: m.nn.functional.pad(x, pad, value=value)), [x]
    return f"pad {pad} {mode}", (lambda m, x: m.nn.functional.pad(x, pad, mode=mode)), [x]


def _loss(p):
    rng = p.rng
    x = p.pick(("float",))
    if x is None:
        return None
    v = p.values[x]
    shape = tuple(v.shape)
    dtype = _name(v.dtype)
    reduction = str(rng.choice(["mean", "sum", "none"]))
    form = str(rng.choice(["mse", "l1", "smooth_l1", "huber", "bce_logits", "kl_div",
                           "cross_entropy", "cross_entropy_probs", "nll", "bce"]))
    if form in ("mse", "l1", "smooth_l1", "huber"):
        y = p.partner(v, dtype)
        kw = {}
        if form == "smooth_l1":
            kw["beta"] = float(rng.choice([0.0, 0.5, 1.0, 2.0]))
        if form == "huber":
            kw["delta"] = float(rng.choice([0.3, 1.0, 2.0]))
        fn = {"mse": "mse_loss", "l1": "l1_loss", "smooth_l1": "smooth_l1_loss",
              "huber": "huber_loss"}[form]
        return f"{fn} {reduction} {kw}", (lambda m, x, y: getattr(m.nn.functional, fn)(
            x, y.expand_as(x) if y.shape != x.shape else y, reduction=reduction, **kw)), [x, y]
    if form in ("bce_logits", "bce"):
        y = p.fresh(shape, dtype)
        if form == "bce":
            return f"binary_cross_entropy {reduction}", (
                lambda m, x, y: m.nn.functional.binary_cross_entropy(
                    m.sigmoid(m.tanh(x) * 3), m.sigmoid(y * 3), reduction=reduction)), [x, y]
        args = [x, y]
        with_pos = bool(rng.integers(2)) and v.ndim > 0
        if with_pos:
            args.append(p.fresh(shape[-1:], dtype))
        with_weight = bool(rng.integers(2))
        if with_weight:
            args.append(p.partner(v, dtype))

        def bce(m, x, y, *rest):
            pos = rest[0] if with_pos else None
            weight = rest[-1] if with_weight else None
            return m.nn.functional.binary_cross_entropy_with_logits(
                x, m.sigmoid(y), weight=weight,
                pos_weight=None if pos is None else pos * pos + 0.5, reduction=reduction)
        return f"bce_with_logits {reduction} pos={with_pos} weight={with_weight}", bce, args
    if form == "kl_div":
        y = p.fresh(shape, dtype)
        log_target = bool(rng.integers(2))
        reduction = str(rng.choice(["batchmean", "sum", "mean", "none"]))

        def kl(m, x, y):
            d = -1 if x.ndim else 0
            target = m.log_softmax(y, d) if log_target else m.softmax(y, d)
            return m.nn.functional.kl_div(m.log_softmax(x, d), target, reduction=reduction,
                                          log_target=log_target)
        return f"kl_div {reduction} log_target={log_target}", kl, [x, y]
    if v.ndim not in (1, 2, 3) or 0 in shape:
        return None
    classes = shape[1] if v.ndim >= 2 else shape[0]
    target_shape = (shape[0],) + shape[2:] if v.ndim >= 2 else ()
    smoothing = float(rng.choice([0.0, 0.1, 0.3]))
    if form == "cross_entropy_probs":
        y = p.fresh(shape, dtype)
        return f"cross_entropy probs smoothing={smoothing} {reduction}", (
            lambda m, x, y: m.nn.functional.cross_entropy(
                x, m.softmax(y, 1 if x.ndim > 1 else 0), label_smoothing=smoothing,
                reduction=reduction)), [x, y]
    target = rng.integers(0, classes, target_shape)
    ignore = int(rng.choice([-100, 0]))
    args = [x]
    weighted = bool(rng.integers(2))
    if weighted:
        args.append(p.fresh((classes,), dtype))

    def ce(m, x, *w):
        weight = w[0] * w[0] + 0.1 if w else None
        t = m.tensor(target, dtype=m.int64)
        if form == "nll":
            return m.nn.functional.nll_loss(m.log_softmax(x, 1 if x.ndim > 1 else 0), t,
                                            weight=weight, ignore_index=ignore,
                                            reduction=reduction)
        return m.nn.functional.cross_entropy(x, t, weight=weight, ignore_index=ignore,
                                             label_smoothing=smoothing, reduction=reduction)
    return (f"{form} target={target.tolist()} weight={weighted} ignore={ignore} "
            f"smoothing={smoothing} {reduction}", ce, [x] + args[1:])


FAMILIES = [_unary, _unary, _binary, _binary, _binary, _scalar_left, _reduce, _reduce, _along,
            _topk, _matmul, _einsum, _index, _gather_family, _gather_family, _shape, _shape,
            _shape, _nn, _loss]
