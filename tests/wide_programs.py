"""Random programs over a wide vocabulary of ops, drawn with their shapes, for any library with
PyTorch's API (fluxgrad eager, static or compiled, and torch itself).

A program is a list of steps on a growing list of values, starting from its inputs. Each step
applies one op to one or two earlier values (or to a value and a constant drawn with it), with
every parameter (dims, sizes, slices, indices, masks) drawn when the program is made, so that
the libraries run the same program; only the values' shapes guide the draw. The program's
output is a scalar made of its last values, so every step feeds it.
"""
import numpy as np

UNARY = {
    "tanh": lambda m, x: m.tanh(x),
    "sigmoid": lambda m, x: m.sigmoid(x),
    "sin": lambda m, x: m.sin(x),
    "cos": lambda m, x: m.cos(x),
    "atan": lambda m, x: m.atan(x),
    "erf": lambda m, x: m.erf(x),
    "softplus": lambda m, x: m.nn.functional.softplus(x),
    "gelu": lambda m, x: m.nn.functional.gelu(x),
    "gelu_tanh": lambda m, x: m.nn.functional.gelu(x, approximate="tanh"),
    "silu": lambda m, x: m.nn.functional.silu(x),
    "elu": lambda m, x: m.nn.functional.elu(x),
    "selu": lambda m, x: m.nn.functional.selu(x),
    "mish": lambda m, x: m.nn.functional.mish(x),
    "leaky_relu": lambda m, x: m.nn.functional.leaky_relu(x, 0.1),
    "logsigmoid": lambda m, x: m.nn.functional.logsigmoid(x),
    "hardtanh": lambda m, x: m.nn.functional.hardtanh(x, -0.8, 0.9),
    "relu_mix": lambda m, x: m.relu(x) - 0.3 * x,
    "abs_mix": lambda m, x: x.abs() + 0.5 * x,
    "neg": lambda m, x: -x,
    "square": lambda m, x: m.square(x),
    "cube": lambda m, x: x ** 3,
    "pow_float": lambda m, x: (x * x + 1).pow(1.5),
    "exp_gauss": lambda m, x: m.exp(-x * x),
    "expm1": lambda m, x: m.expm1(m.tanh(x)),
    "log1p": lambda m, x: m.log1p(x * x),
    "log": lambda m, x: m.log(x * x + 0.5),
    "sqrt": lambda m, x: m.sqrt(x * x + 1),
    "rsqrt": lambda m, x: m.rsqrt(x * x + 1),
    "reciprocal": lambda m, x: m.reciprocal(x * x + 1),
    "sinh": lambda m, x: m.sinh(m.tanh(x)),
    "cosh": lambda m, x: m.cosh(m.tanh(x)),
    "asinh": lambda m, x: m.asinh(x),
    "sinc": lambda m, x: m.sinc(x),
    "logit": lambda m, x: m.logit(m.sigmoid(x)),
    "clamp": lambda m, x: x.clamp(-0.7, 0.8),
    "clamp_min": lambda m, x: m.clamp_min(x, -0.4),
    "trunc_mix": lambda m, x: x.trunc() + x,
    "frac": lambda m, x: m.frac(x),
    "sign_mix": lambda m, x: x.sign() * x,
}

BINARY = {
    "add": lambda m, x, y: x + y,
    "sub": lambda m, x, y: x - 2 * y,
    "mul": lambda m, x, y: x * y,
    "div": lambda m, x, y: x / (1 + y * y),
    "rdiv": lambda m, x, y: 1.5 / (1 + x * x) - y,
    "maximum": lambda m, x, y: m.maximum(x, y),
    "minimum": lambda m, x, y: m.minimum(x, y),
    "atan2": lambda m, x, y: m.atan2(x, y * y + 1),
    "where": lambda m, x, y: m.where(x > y, x, y * 2),
    "hypot": lambda m, x, y: m.hypot(x, y),
    "logaddexp": lambda m, x, y: m.logaddexp(x, y),
    "lerp": lambda m, x, y: m.lerp(x, y, 0.3),
    "xlogy": lambda m, x, y: m.xlogy(x, y * y + 1),
    "addcmul": lambda m, x, y: m.addcmul(x, x, y, value=0.5),
    "pow": lambda m, x, y: (x * x + 1) ** y,
    "sq_diff": lambda m, x, y: (x - y) ** 2,
    "fmod": lambda m, x, y: m.fmod(x, 1.3) + y,
    "copysign": lambda m, x, y: m.copysign(x, y),
}

# reductions over one dim: (op, keeps the dim's place when keepdim, can keepdim)
REDUCE = {
    "sum": lambda m, x, d, k: x.sum(d, keepdim=k),
    "mean": lambda m, x, d, k: x.mean(d, keepdim=k),
    "amax": lambda m, x, d, k: x.amax(d, keepdim=k),
    "amin": lambda m, x, d, k: x.amin(d, keepdim=k),
    "max": lambda m, x, d, k: x.max(d, keepdim=k).values,
    "min": lambda m, x, d, k: x.min(d, keepdim=k)[0],
    "prod": lambda m, x, d, k: x.prod(d, keepdim=k),
    "logsumexp": lambda m, x, d, k: m.logsumexp(x, d, keepdim=k),
    "var": lambda m, x, d, k: x.var(d, keepdim=k, correction=0),
    "std": lambda m, x, d, k: (x.std(d, keepdim=k, correction=0) + 0.1),
    "norm": lambda m, x, d, k: (x.norm(dim=d, keepdim=k) + 0.1),
    "norm1": lambda m, x, d, k: m.linalg.vector_norm(x, 1, dim=d, keepdim=k),
    "sum_tuple": lambda m, x, d, k: x.sum((d, 0) if d not in (0, -x.ndim) else d, keepdim=k),
}

ALONG = {  # ops that keep the shape, along one dim
    "cumsum": lambda m, x, d: x.cumsum(d),
    "cumprod": lambda m, x, d: m.cumprod(x, d),
    "logcumsumexp": lambda m, x, d: m.logcumsumexp(x, d),
    "softmax": lambda m, x, d: m.softmax(x, d),
    "log_softmax": lambda m, x, d: m.log_softmax(x, d),
    "flip": lambda m, x, d: x.flip(d),
    "cummax": lambda m, x, d: m.cummax(x, d).values,
    # (shifted: a program can make a vector of exact zeros, whose direction is rounding noise)
    "normalize": lambda m, x, d: m.nn.functional.normalize(x + 0.3, dim=d),
}


LOSSES = ["cross_entropy", "nll", "mse", "l1", "smooth_l1", "huber", "bce_logits", "kl_div",
          "soft_margin", "poisson_nll"]


def _loss(m, x, name, target, get, smoothing):
    """A scalar loss of `x` (logits over its last dim, or a prediction of a fresh input)."""
    F = m.nn.functional
    if name in ("cross_entropy", "nll"):
        logits = x.reshape(-1, x.shape[-1])
        target = m.tensor(target)
        if name == "nll":
            return F.nll_loss(F.log_softmax(logits, -1), target)
        return F.cross_entropy(logits, target, label_smoothing=0.1 if smoothing else 0.0)
    y = get(target)
    if name == "bce_logits":
        return F.binary_cross_entropy_with_logits(x, m.sigmoid(y))
    if name == "kl_div":
        return F.kl_div(F.log_softmax(x, -1), F.softmax(y, -1), reduction="batchmean")
    if name == "soft_margin":
        return F.soft_margin_loss(x, m.sign(y.detach()))
    if name == "poisson_nll":
        return F.poisson_nll_loss(x, y * y)
    return {"mse": F.mse_loss, "l1": F.l1_loss, "smooth_l1": F.smooth_l1_loss,
            "huber": F.huber_loss}[name](x, y)


def _broadcastable_shape(rng, shape):
    """A shape that broadcasts with `shape`: some leading dims dropped, some dims made 1."""
    drop = rng.integers(0, len(shape) + 1) if shape else 0
    return tuple(1 if rng.random() < 0.3 else s for s in shape[drop:])


class Program:
    """Inputs (shapes) and steps; `run(m, *inputs)` builds it with library `m`."""

    def __init__(self, seed, n_steps=None):
        self.rng = rng = np.random.default_rng(seed)
        self.inputs = []
        self.steps = []
        n_steps = int(rng.integers(3, 11)) if n_steps is None else n_steps
        shapes = [self._input(tuple(int(s) for s in rng.integers(1, 5, rng.integers(0, 4))))]
        for _ in range(n_steps):
            shapes.append(self._step(shapes))
        self.out_shape = shapes[-1]
        self.data_seed = int(rng.integers(2 ** 32))

    def _input(self, shape):
        self.inputs.append(shape)
        return shape

    def _fresh(self, shape):
        """A step that makes a new input of `shape`: its value index."""
        self._input(shape)
        return ("input", len(self.inputs) - 1)

    def _step(self, shapes):
        rng = self.rng
        at = len(shapes) - 1 if rng.random() < 0.7 else int(rng.integers(0, len(shapes)))
        shape = shapes[at]
        kinds = ["unary", "binary", "shape"] + (["reduce", "along"] if shape else [])
        kind = kinds[rng.integers(len(kinds))]
        if kind == "unary":
            name = sorted(UNARY)[rng.integers(len(UNARY))]
            self.steps.append(("unary", name, at))
            return shape
        if kind == "binary":
            name = sorted(BINARY)[rng.integers(len(BINARY))]
            other = _broadcastable_shape(rng, shape)
            partner = [i for i, s in enumerate(shapes) if s == other]
            source = ("value", partner[-1]) if partner and rng.random() < 0.5 else \
                self._fresh(other)
            self.steps.append(("binary", name, at, source))
            return tuple(np.broadcast_shapes(shape, other))
        d = int(rng.integers(-len(shape), len(shape))) if shape else 0
        if kind == "reduce":
            name = sorted(REDUCE)[rng.integers(len(REDUCE))]
            keep = bool(rng.integers(2))
            if name in ("var", "std", "norm", "norm1") and shape[d] == 1:
                name = "sum"  # (the spread of one number is 0, where these have kinks)
            self.steps.append(("reduce", name, at, d, keep))
            if name == "sum_tuple" and d not in (0, -len(shape)):
                dims = {d % len(shape), 0}
            else:
                dims = {d % len(shape)}
            return tuple(1 if i in dims else s for i, s in enumerate(shape)
                         if keep or i not in dims)
        if kind == "along":
            name = sorted(ALONG)[rng.integers(len(ALONG))]
            if shape[d] == 1 and name in ("softmax", "log_softmax", "normalize"):
                name = "flip"  # (constant results, where normalize has a kink)
            self.steps.append(("along", name, at, d))
            return shape
        return self._shape_step(shapes, at, shape, d)

    def _shape_step(self, shapes, at, shape, d):
        rng = self.rng
        options = ["reshape", "unsqueeze", "expand", "matmul", "cat", "stack", "pad", "repeat"]
        if shape:
            options += ["slice", "index_select", "gather", "roll", "narrow", "select",
                        "index", "masked_fill", "permute", "transpose", "setitem", "inplace",
                        "sort", "topk", "scatter_add", "index_add", "linear", "layer_norm"]
        if len(shape) == 2:
            options += ["tril", "diagonal", "t", "einsum", "embedding"]
        if len(shape) >= 2:
            options += ["loss", "loss", "cosine"]
        if len(shape) == 3:
            options += ["conv1d", "pool1d"]
        if len(shape) == 4:
            options += ["conv2d", "pool2d", "norm2d", "upsample"]
        if 1 in shape:
            options += ["squeeze"]
        op = options[rng.integers(len(options))]
        n = len(shape)
        if op == "reshape":
            new = (-1,) if n != 1 else (1, shape[0])
            out = (int(np.prod(shape)),) if n != 1 else (1, shape[0])
            self.steps.append(("call", "reshape", at, new))
            return out
        if op == "unsqueeze":
            u = int(rng.integers(-n - 1, n + 1))
            self.steps.append(("call", "unsqueeze", at, u))
            out = list(shape)
            out.insert(u % (n + 1), 1)
            return tuple(out)
        if op == "squeeze":
            s = [i for i, v in enumerate(shape) if v == 1][0]
            self.steps.append(("call", "squeeze", at, s))
            return shape[:s] + shape[s + 1:]
        if op == "expand":
            new = tuple(3 if v == 1 else v for v in shape)
            new = ((2,) + new) if rng.random() < 0.5 else new
            self.steps.append(("call", "expand", at, new))
            return new
        if op == "repeat":
            reps = tuple(int(r) for r in rng.integers(1, 3, n + int(rng.integers(0, 2))))
            self.steps.append(("call", "repeat", at, reps))
            padded = (1,) * (len(reps) - n) + shape
            return tuple(r * v for r, v in zip(reps, padded))
        if op == "matmul":
            k = shape[-1] if shape else 1
            if n == 0:
                source = self._fresh((3,))
                self.steps.append(("binary", "mul", at, source))
                return (3,)
            other = (k,) if rng.random() < 0.3 else (k, int(rng.integers(1, 4)))
            source = self._fresh(other)
            self.steps.append(("matmul", at, source))
            return shape[:-1] + other[1:]
        if op == "cat":
            c = d if n else None
            self.steps.append(("cat", at, c))
            if not n:
                return (2,)
            out = list(shape)
            out[c] *= 2
            return tuple(out)
        if op == "stack":
            s = int(rng.integers(-n - 1, n + 1))
            self.steps.append(("stack", at, s))
            out = list(shape)
            out.insert(s % (n + 1), 2)
            return tuple(out)
        if op == "pad":
            if not n:
                self.steps.append(("unary", "tanh", at))
                return shape
            left, right = int(rng.integers(0, 3)), int(rng.integers(0, 2))
            self.steps.append(("pad", at, (left, right)))
            return shape[:-1] + (shape[-1] + left + right,)
        size = shape[d]
        if op == "slice":
            start = int(rng.integers(0, size))
            step = int(rng.integers(1, 3))
            self.steps.append(("slice", at, d % n, start, step))
            return shape[:d % n] + (len(range(start, size, step)),) + shape[d % n + 1:]
        if op == "narrow":
            start = int(rng.integers(0, size))
            length = int(rng.integers(1, size - start + 1))
            self.steps.append(("call", "narrow", at, d, start, length))
            return shape[:d % n] + (length,) + shape[d % n + 1:]
        if op == "select":
            i = int(rng.integers(-size, size))
            self.steps.append(("call", "select", at, d, i))
            return shape[:d % n] + shape[d % n + 1:]
        if op == "index_select":
            idx = rng.integers(0, size, int(rng.integers(1, 5)))
            self.steps.append(("index_select", at, d, idx))
            return shape[:d % n] + (len(idx),) + shape[d % n + 1:]
        if op == "index":
            idx = rng.integers(0, shape[0], int(rng.integers(1, 4)))
            self.steps.append(("index", at, idx))
            return (len(idx),) + shape[1:]
        if op == "gather":
            out = list(shape)
            out[d] = int(rng.integers(1, 4))
            idx = rng.integers(0, size, out)
            self.steps.append(("gather", at, d, idx))
            return tuple(out)
        if op == "roll":
            self.steps.append(("call", "roll", at, int(rng.integers(-3, 4)), d))
            return shape
        if op == "setitem":
            start = int(rng.integers(0, size))
            self.steps.append(("setitem", at, d % n, start))
            return shape
        if op == "inplace":
            self.steps.append(("inplace", at, ["add_", "mul_", "sub_", "div_"][rng.integers(4)]))
            return shape
        if op == "sort":
            self.steps.append(("sort", at, d, bool(rng.integers(2))))
            return shape
        if op == "topk":
            k = int(rng.integers(1, size + 1))
            self.steps.append(("topk", at, k, d, bool(rng.integers(2))))
            return shape[:d % n] + (k,) + shape[d % n + 1:]
        if op in ("scatter_add", "index_add"):
            out = list(shape)
            out[d] = int(rng.integers(1, 4))
            if op == "scatter_add":
                idx = rng.integers(0, out[d], shape)
            else:
                idx = rng.integers(0, out[d], size)
            self.steps.append((op, at, d, idx, tuple(out)))
            return tuple(out)
        if op == "linear":
            features = int(rng.integers(1, 4))
            weight = self._fresh((features, shape[-1]))
            bias = self._fresh((features,)) if rng.random() < 0.7 else None
            self.steps.append(("linear", at, weight, bias))
            return shape[:-1] + (features,)
        if op == "layer_norm":
            self.steps.append(("layer_norm", at, self._fresh(shape[-1:]), self._fresh(shape[-1:])))
            return shape
        if op == "loss":
            name = LOSSES[rng.integers(len(LOSSES))]
            if name in ("cross_entropy", "nll"):
                target = rng.integers(0, shape[-1], int(np.prod(shape[:-1])))
                self.steps.append(("loss", at, name, target, bool(rng.integers(2))))
            else:
                self.steps.append(("loss", at, name, self._fresh(shape), None))
            return ()
        if op == "cosine":
            self.steps.append(("cosine", at, self._fresh(shape)))
            return shape[:-1]
        if op == "embedding":
            idx = rng.integers(0, shape[0], (int(rng.integers(1, 4)), 2))
            self.steps.append(("embedding", at, idx))
            return idx.shape + shape[1:]
        if op in ("conv1d", "conv2d"):
            spatial = shape[2:]
            kernel = tuple(int(rng.integers(1, s + 1)) for s in spatial)
            out_channels = int(rng.integers(1, 4))
            padding = int(rng.integers(0, 2))
            weight = self._fresh((out_channels, shape[1]) + kernel)
            bias = self._fresh((out_channels,)) if rng.random() < 0.5 else None
            self.steps.append((op, at, weight, bias, padding))
            return (shape[0], out_channels) + tuple(s + 2 * padding - k + 1
                                                    for s, k in zip(spatial, kernel))
        if op in ("pool1d", "pool2d"):
            spatial = shape[2:]
            kernel = int(rng.integers(1, min(spatial) + 1))
            kind = ["max", "avg"][rng.integers(2)]
            self.steps.append((op, at, kind, kernel))
            return shape[:2] + tuple((s - kernel) // kernel + 1 for s in spatial)
        if op == "norm2d":
            kind = ["batch", "group", "instance"][rng.integers(3)]
            if kind == "batch" and shape[0] * shape[2] * shape[3] == 1:
                kind = "group"
            if kind == "instance" and shape[2] * shape[3] == 1:
                kind = "group"
            self.steps.append(("norm2d", at, kind, self._fresh(shape[1:2]),
                               self._fresh(shape[1:2])))
            return shape
        if op == "upsample":
            mode = ["nearest", "bilinear"][rng.integers(2)]
            self.steps.append(("upsample", at, mode, bool(rng.integers(2))))
            return shape[:2] + (shape[2] * 2, shape[3] * 2)
        if op == "masked_fill":
            mask = rng.random(shape) < 0.3
            self.steps.append(("masked_fill", at, mask))
            return shape
        if op == "permute":
            perm = tuple(int(p) for p in rng.permutation(n))
            self.steps.append(("call", "permute", at, perm))
            return tuple(shape[p] for p in perm)
        if op == "transpose":
            e = int(rng.integers(-n, n))
            self.steps.append(("call", "transpose", at, d, e))
            out = list(shape)
            out[d], out[e] = out[e], out[d]
            return tuple(out)
        if op == "tril":
            k = int(rng.integers(-1, 2))
            self.steps.append(("call", "tril" if rng.random() < 0.5 else "triu", at, k))
            return shape
        if op == "diagonal":
            self.steps.append(("call", "diagonal", at))
            return (min(shape),)
        if op == "t":
            self.steps.append(("call", "t", at))
            return shape[::-1]
        # einsum: a contraction with a fresh matrix
        other = (shape[1], int(rng.integers(1, 4)))
        source = self._fresh(other)
        self.steps.append(("einsum", at, source))
        return (shape[0], other[1])

    def run(self, m, *inputs):
        values = [inputs[0]]

        def get(source):
            kind, i = source
            return inputs[i] if kind == "input" else values[i]

        for step in self.steps:
            values.append(self._apply(m, step, values, get))
        last = values[-1]
        return (last * last).sum() + last.sum() + 0.5 * values[-2].sum()

    @staticmethod
    def _apply(m, step, values, get):
        kind, at = step[0], step[2] if step[0] in ("unary", "binary", "reduce", "along",
                                                   "call") else step[1]
        x = values[at]
        if kind == "unary":
            return UNARY[step[1]](m, x)
        if kind == "binary":
            return BINARY[step[1]](m, x, get(step[3]))
        if kind == "reduce":
            return REDUCE[step[1]](m, x, step[3], step[4])
        if kind == "along":
            return ALONG[step[1]](m, x, step[3])
        if kind == "call":
            return getattr(x, step[1])(*step[3:])
        if kind == "matmul":
            return x @ get(step[2])
        if kind == "einsum":
            return m.einsum("ij,jk->ik", x, get(step[2]))
        if kind == "cat":
            if step[2] is None:
                return m.stack([x, m.tanh(x)])
            return m.cat([x, m.tanh(x)], step[2])
        if kind == "stack":
            return m.stack([x, x * 0.5], step[2])
        if kind == "pad":
            return m.nn.functional.pad(x, step[2], value=0.25)
        if kind == "slice":
            _, _, dim, start, stride = step
            return x[(slice(None),) * dim + (slice(start, None, stride),)]
        if kind == "index_select":
            return m.index_select(x, step[2], m.tensor(step[3]))
        if kind == "index":
            return x[m.tensor(step[2])]
        if kind == "gather":
            return m.gather(x, step[2], m.tensor(step[3]))
        if kind == "setitem":
            _, _, dim, start = step
            where = (slice(None),) * dim + (slice(start, start + 1),)
            y = x * 1.0
            y[where] = m.tanh(x[where]) * 2
            return y
        if kind == "inplace":
            y = x * 1.0
            getattr(y, step[2])(m.sigmoid(x) + 0.5)
            return y
        if kind == "sort":
            return m.sort(x, step[2], descending=step[3]).values
        if kind == "topk":
            return m.topk(x, step[2], step[3], largest=step[4])[0]
        if kind in ("scatter_add", "index_add"):
            _, _, dim, idx, out = step
            base = m.zeros(out, dtype=x.dtype)
            if kind == "scatter_add":
                return base.scatter_add(dim, m.tensor(idx), x)
            return base.index_add(dim, m.tensor(idx), x)
        if kind == "linear":
            bias = None if step[3] is None else get(step[3])
            return m.nn.functional.linear(x, get(step[2]), bias)
        if kind == "layer_norm":
            return m.nn.functional.layer_norm(x, x.shape[-1:], get(step[2]), get(step[3]))
        if kind == "loss":
            return _loss(m, x, step[2], step[3], get, step[4])
        if kind == "cosine":
            return m.nn.functional.cosine_similarity(x, get(step[2]), dim=-1)
        if kind == "embedding":
            return m.nn.functional.embedding(m.tensor(step[2]), x)
        if kind in ("conv1d", "conv2d"):
            _, _, weight, bias, padding = step
            conv = getattr(m.nn.functional, kind)
            return conv(x, get(weight), None if bias is None else get(bias), padding=padding)
        if kind in ("pool1d", "pool2d"):
            pool = getattr(m.nn.functional, f"{step[2]}_{kind[:4]}{kind[4:]}")
            return pool(x, step[3])
        if kind == "norm2d":
            F = m.nn.functional
            weight, bias = get(step[3]), get(step[4])
            if step[2] == "batch":
                return F.batch_norm(x, None, None, weight, bias, training=True)
            if step[2] == "instance":
                return F.instance_norm(x, weight=weight, bias=bias)
            return F.group_norm(x, 1, weight, bias)
        if kind == "upsample":
            align = step[3] if step[2] == "bilinear" else None
            return m.nn.functional.interpolate(x, scale_factor=2, mode=step[2],
                                               align_corners=align)
        if kind == "masked_fill":
            return x.masked_fill(m.tensor(step[2]), 0.5)
        raise AssertionError(kind)

    def arrays(self, draw=0):
        """Inputs for the program, float64, in [-1.5, 1.5] (another set for each `draw`)."""
        rng = np.random.default_rng((self.data_seed, draw))
        return [rng.uniform(-1.5, 1.5, s) for s in self.inputs]
