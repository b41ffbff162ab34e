"""Random stacks of function transforms (vmap with random in_dims/out_dims, grad, jacrev,
jacfwd, jvp, vjp, hessian, functional_call) over random bodies, for fluxgrad.func and
torch.func alike.

A program is a body `f(x, y)` (elementwise ops, broadcasting, reductions over a dim, softmax,
matmul, a Linear layer called by functional_call with parameters made of y) wrapped by a stack
of transforms, drawn from the inside out against torch.func itself: each candidate transform
is applied and run by torch on inputs of the shapes it needs, and one torch refuses is drawn
again. `function(m)` is the whole stack with library `m`; it takes two inputs of the shapes in
`shapes` and returns one tensor.
"""
import numpy as np
import torch

REFUSALS = (ValueError, RuntimeError, IndexError, TypeError)

UNARY = {
    "tanh": lambda m, x: m.tanh(x),
    "sin_x": lambda m, x: m.sin(x) * x,
    "gauss": lambda m, x: m.exp(-x * x),
    "sigmoid": lambda m, x: m.sigmoid(x),
    "softplus": lambda m, x: m.nn.functional.softplus(x),
    "cube": lambda m, x: x ** 3 / 3,
    "log1p_sq": lambda m, x: m.log1p(x * x),
    "softmax": lambda m, x: m.softmax(x, -1) if x.ndim else x,
    "sum_keep": lambda m, x: x.sum(-1, keepdim=True) * x if x.ndim else x,
    "mean0": lambda m, x: x.mean(0) if x.ndim else x,
    "logsumexp": lambda m, x: m.logsumexp(x, -1) if x.ndim else x,
    "cumsum": lambda m, x: m.cumsum(x, -1) if x.ndim else x,
    "transpose": lambda m, x: x.transpose(0, -1) if x.ndim else x,
    "norm": lambda m, x: m.linalg.vector_norm(x * x + 1, dim=-1) if x.ndim else x,
}
BINARY = {
    "add": lambda m, x, y: x + y,
    "mul": lambda m, x, y: x * y,
    "div": lambda m, x, y: x / (1 + y * y),
    "atan2": lambda m, x, y: m.atan2(x, y * y + 1),
    "matmul": lambda m, x, y: x @ y.transpose(-1, -2) if x.ndim >= 2 and y.ndim >= 2 else x * y,
    "where": lambda m, x, y: m.where(y > 0, x, m.tanh(x)),
    "linear": lambda m, x, y: _linear(m, x, y),
}


_LAYERS = {}


def _linear(m, x, y):
    """A Linear layer whose weight and bias are made of y, called by functional_call."""
    if x.ndim < 1 or y.ndim < 1:
        return x * y
    key = (m.__name__, x.shape[-1], y.shape[-1])
    if key not in _LAYERS:  # (built once: a compiled function can't draw its initial weights)
        _LAYERS[key] = m.nn.Linear(x.shape[-1], y.shape[-1]).double()
    layer = _LAYERS[key]
    weight = m.sin(y.reshape(-1)[:1] + m.ones(y.shape[-1], x.shape[-1], dtype=m.float64))
    bias = y.reshape(-1)[-y.shape[-1]:] if y.numel() >= y.shape[-1] else None
    params = {"weight": weight, "bias": bias if bias is not None else layer.bias.detach()}
    return m.func.functional_call(layer, params, (x,))


def _scalar(m, out):
    return (out * out).sum() * 0.5 + m.sin(out).sum()


def _tangents(m, x, y):
    return m.cos(x), y * 0.5 + 1


class Program:
    """A body and a stack of transforms, with the input shapes, drawn for `seed`."""

    def __init__(self, seed, n_transforms=None):
        self.rng = rng = np.random.default_rng(seed)
        sx = tuple(int(d) for d in rng.integers(1, 4, int(rng.integers(0, 3))))
        k = int(rng.integers(0, len(sx) + 1))
        sy = sx[k:] if rng.random() < .6 else tuple(int(d) for d in rng.integers(
            1, 4, int(rng.integers(0, 3))))
        self.body = []
        for _ in range(int(rng.integers(1, 5))):
            for _attempt in range(20):
                names = list(UNARY) + list(BINARY)
                step = str(rng.choice(names))
                if self._works(self.body + [step], [], (sx, sy)):
                    self.body.append(step)
                    break
        self.transforms = []  # from the inside out
        self.shapes = (sx, sy)
        n = int(rng.integers(1, 4)) if n_transforms is None else n_transforms
        for _ in range(n):
            for _attempt in range(20):
                transform, shapes = self._candidate()
                if self._works(self.body, self.transforms + [transform], shapes):
                    self.transforms.append(transform)
                    self.shapes = shapes
                    break
        self.arrays = [rng.uniform(-1.2, 1.2, s) for s in self.shapes]

    def _works(self, body, transforms, shapes):
        args = [torch.tensor(self.rng.uniform(-1, 1, s)) for s in shapes]
        try:
            out = self._stack(torch, body, transforms)(*args)
        except REFUSALS:
            return False
        if not isinstance(out, torch.Tensor) or not 0 < out.numel() <= 600:
            return False
        if transforms and transforms[-1][0] == "vmap":
            # torch.func's vmap puts a result that is the same for every example at out_dims
            # 0 whatever out_dims says: checked against the examples one at a time
            _, in_dims, out_dims = transforms[-1]
            inner = self._stack(torch, body, transforms[:-1])
            size = [a.shape[d] for a, d in zip(args, in_dims) if d is not None][0]
            try:
                loop = torch.stack([inner(*[a if d is None else a.select(d, i) for a, d in
                                            zip(args, in_dims)]) for i in range(size)],
                                   out_dims)
            except REFUSALS:
                return False
            return loop.shape == out.shape and bool(torch.allclose(loop, out))
        return True

    def _candidate(self):
        rng = self.rng
        sx, sy = self.shapes
        kind = str(rng.choice(["vmap", "vmap", "grad", "jacrev", "jacfwd", "jvp", "vjp",
                               "hessian"]))
        if kind == "vmap":
            size = int(rng.integers(1, 4))
            dims = [int(rng.integers(0, len(s) + 1)) if rng.random() < .75 else None
                    for s in (sx, sy)]
            if dims == [None, None]:
                dims[0] = 0
            shapes = tuple(s if d is None else s[:d] + (size,) + s[d:] for s, d in
                           zip((sx, sy), dims))
            return ("vmap", tuple(dims), int(rng.integers(0, 3))), shapes
        if kind in ("grad", "jacrev", "jacfwd", "hessian"):
            argnums = int(rng.integers(0, 2)) if kind != "grad" or rng.random() < .7 else (0, 1)
            return (kind, argnums), (sx, sy)
        return (kind, int(rng.integers(0, 2))), (sx, sy)

    # -- running --------------------------------------------------------------------------------
    @staticmethod
    def _stack(m, body, transforms):
        def f(x, y):
            h = x
            for step in body:
                h = UNARY[step](m, h) if step in UNARY else BINARY[step](m, h, y)
            return h
        for t in transforms:
            f = _wrap(m, t, f)
        return f

    def function(self, m):
        return self._stack(m, self.body, self.transforms)

    def describe(self):
        return (f"x {self.shapes[0]}, y {self.shapes[1]}: body {' -> '.join(self.body)}; "
                f"transforms (inside out) {self.transforms}")


def _wrap(m, t, f):
    kind = t[0]
    func = m.func
    if kind == "vmap":
        _, in_dims, out_dims = t
        return func.vmap(f, in_dims=in_dims, out_dims=out_dims)
    if kind == "grad":
        g = func.grad(lambda x, y: _scalar(m, f(x, y)), argnums=t[1])
        if isinstance(t[1], tuple):
            return lambda x, y: sum(a.sum() for a in g(x, y)) + g(x, y)[0]
        return g
    if kind in ("jacrev", "jacfwd"):
        return getattr(func, kind)(f, argnums=t[1])
    if kind == "hessian":
        return func.hessian(lambda x, y: _scalar(m, f(x, y)), argnums=t[1])
    if kind == "jvp":
        def jvp(x, y):
            tx, ty = _tangents(m, x, y)
            if t[1]:
                return func.jvp(lambda a: f(x, a), (y,), (ty,))[1]
            return func.jvp(f, (x, y), (tx, ty))[1]
        return jvp
    if kind == "vjp":
        def vjp(x, y):
            out, pullback = func.vjp(f, x, y)
            return pullback(m.sin(out))[t[1]]
        return vjp
    raise ValueError(kind)
