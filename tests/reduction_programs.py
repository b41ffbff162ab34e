"""Random reductions, scans and NaN handling, for any library with PyTorch's API: one op at a
time on an input with NaN, infinities, ties and zeros mixed in (float32/float64), or an
integer or bool input, with a random dim (or dims, or none), keepdim, dtype= and
correction; NaN-aware ops (nansum, nanmean, nanmedian, nan_to_num, isnan/isinf feeding
where, fmax/fmin), NaN-propagating ones (amax, max, clamp, minimum, sort and argsort with
NaN, stable sorts with ties, topk, cummax, logcumsumexp).

A case is drawn against PyTorch: a candidate torch refuses is kept as a case whose refusal
fluxgrad must share (the same exception type). `Case.run(m, x)` returns the op's results as
a list of tensors.
"""
import numpy as np

REFUSALS = (ValueError, RuntimeError, IndexError, TypeError)
DTYPES = ("float64", "float32", "int64", "int32", "bool", "uint8")


def _dims(rng, ndim):
    r = rng.random()
    if ndim == 0 or r < .2:
        return None
    if r < .8:
        return int(rng.integers(-ndim, ndim))
    k = int(rng.integers(1, ndim + 1))
    return tuple(int(d) for d in rng.choice(ndim, k, replace=False))


def _one_dim(rng, ndim):
    return int(rng.integers(-ndim, ndim)) if ndim else 0


def _kw(dim, keepdim):
    return {} if dim is None else dict(dim=dim, keepdim=keepdim)


OPS = {
    # name: (kinds of input it takes, maker(rng, ndim) -> fn(m, x) -> result or tuple)
    "sum": ("fib", lambda r, n, d, k: lambda m, x: x.sum(**_kw(d, k))),
    "sum_dtype": ("fib", lambda r, n, d, k: lambda m, x: m.sum(x, **_kw(d, k), dtype=m.float64)),
    "prod": ("fib", lambda r, n, d, k: lambda m, x: x.prod(**_kw(_single(d), k))),
    "mean": ("f", lambda r, n, d, k: lambda m, x: x.mean(**_kw(d, k))),
    "nansum": ("fi", lambda r, n, d, k: lambda m, x: m.nansum(x, **_kw(d, k))),
    "nanmean": ("f", lambda r, n, d, k: lambda m, x: m.nanmean(x, **_kw(d, k))),
    "var": ("f", lambda r, n, d, k: lambda m, x: m.var(x, **_kw(d, k),
                                                       correction=int(r.integers(0, 3)))),
    "std_mean": ("f", lambda r, n, d, k: lambda m, x: m.std_mean(x, **_kw(d, k))),
    "amax": ("fib", lambda r, n, d, k: lambda m, x: x.amax(**({} if d is None else
                                                              dict(dim=d, keepdim=k)))),
    "amin": ("fib", lambda r, n, d, k: lambda m, x: x.amin(**({} if d is None else
                                                              dict(dim=d, keepdim=k)))),
    "max_dim": ("fi", lambda r, n, d, k: lambda m, x: tuple(x.max(_one_dim(r, n) if n else 0,
                                                                 keepdim=k)) if n else x.max()),
    "min_all": ("fib", lambda r, n, d, k: lambda m, x: x.min()),
    "aminmax": ("fi", lambda r, n, d, k: lambda m, x: tuple(m.aminmax(x, **(
        {} if d is None or isinstance(d, tuple) else dict(dim=d, keepdim=k))))),
    "argmax": ("fi", lambda r, n, d, k: lambda m, x: x.argmax(**({} if not n else dict(
        dim=_one_dim(r, n), keepdim=k)))),
    "argmin": ("fi", lambda r, n, d, k: lambda m, x: x.argmin()),
    "median": ("fi", lambda r, n, d, k: lambda m, x: x.median()),
    "median_dim": ("fi", lambda r, n, d, k: lambda m, x: tuple(x.median(_one_dim(r, n),
                                                                       keepdim=k))),
    "nanmedian": ("f", lambda r, n, d, k: lambda m, x: m.nanmedian(x)),
    "nanmedian_dim": ("f", lambda r, n, d, k: lambda m, x: tuple(m.nanmedian(
        x, _one_dim(r, n), keepdim=k))),
    "logsumexp": ("f", lambda r, n, d, k: lambda m, x: m.logsumexp(x, dim=_single(d) if d is
                                                                   not None else 0,
                                                                   keepdim=k)),
    "all": ("fib", lambda r, n, d, k: lambda m, x: x.all(**({} if d is None else dict(
        dim=_single(d), keepdim=k)))),
    "any": ("fib", lambda r, n, d, k: lambda m, x: x.any(**({} if d is None else dict(
        dim=_single(d), keepdim=k)))),
    "count_nonzero": ("fib", lambda r, n, d, k: lambda m, x: m.count_nonzero(x, dim=d)),
    "cumsum": ("fib", lambda r, n, d, k: lambda m, x: m.cumsum(x, _one_dim(r, n))),
    "cumprod": ("fi", lambda r, n, d, k: lambda m, x: m.cumprod(x, _one_dim(r, n))),
    "cummax": ("fib", lambda r, n, d, k: lambda m, x: tuple(m.cummax(x, _one_dim(r, n)))),
    "cummin": ("fi", lambda r, n, d, k: lambda m, x: tuple(m.cummin(x, _one_dim(r, n)))),
    "logcumsumexp": ("f", lambda r, n, d, k: lambda m, x: m.logcumsumexp(x, _one_dim(r, n))),
    "nan_to_num": ("f", lambda r, n, d, k: lambda m, x: m.nan_to_num(
        x, nan=float(r.choice([0., 1.5])), posinf=None if r.random() < .5 else 9.,
        neginf=None if r.random() < .5 else -9.)),
    "where_isnan": ("f", lambda r, n, d, k: lambda m, x: m.where(m.isnan(x), m.zeros_like(x),
                                                                 x * 2)),
    "where_isinf": ("f", lambda r, n, d, k: lambda m, x: m.where(m.isinf(x) | m.isnan(x),
                                                                 -1.0, x)),
    "isfinite_sum": ("fib", lambda r, n, d, k: lambda m, x: m.isfinite(x).sum(**_kw(d, k))),
    "clamp": ("fi", lambda r, n, d, k: lambda m, x: x.clamp(-1, 1)),
    "clamp_tensor": ("f", lambda r, n, d, k: lambda m, x: m.clamp(x, min=x.flip(-1) if n else x,
                                                                  max=x * 0 + 1)),
    "maximum_flip": ("fib", lambda r, n, d, k: lambda m, x: m.maximum(x, x.flip(0) if n else x)),
    "minimum_flip": ("fi", lambda r, n, d, k: lambda m, x: m.minimum(x, x.flip(0) if n else x)),
    "fmax_flip": ("fi", lambda r, n, d, k: lambda m, x: m.fmax(x, x.flip(0) if n else x)),
    "fmin_scalar": ("f", lambda r, n, d, k: lambda m, x: m.fmin(x, m.zeros_like(x))),
    "sort": ("fib", lambda r, n, d, k: lambda m, x: tuple(m.sort(
        x, dim=_one_dim(r, n), descending=bool(r.random() < .5), stable=True))),
    "sort_values": ("fib", lambda r, n, d, k: lambda m, x: m.sort(
        x, dim=_one_dim(r, n), descending=bool(r.random() < .5))[0]),
    "argsort_stable": ("fib", lambda r, n, d, k: lambda m, x: m.argsort(
        x, dim=_one_dim(r, n), descending=bool(r.random() < .5), stable=True)),
    "topk_values": ("fi", lambda r, n, d, k: lambda m, x: m.topk(
        x, 1, dim=_one_dim(r, n), largest=bool(r.random() < .5))[0]),
    "msort": ("fi", lambda r, n, d, k: lambda m, x: m.msort(x)),
    "unique_sorted": ("fib", lambda r, n, d, k: lambda m, x: tuple(m.unique(
        x, sorted=True, return_inverse=True, return_counts=True))),
    "kthvalue": ("fi", lambda r, n, d, k: lambda m, x: tuple(m.kthvalue(
        x, 1, dim=_one_dim(r, n), keepdim=k))),
    "quantile": ("f", lambda r, n, d, k: lambda m, x: m.quantile(
        x, float(r.choice([0., .3, .5, 1.])), dim=None if n == 0 or r.random() < .3 else
        _one_dim(r, n), keepdim=k, interpolation=str(r.choice(["linear", "lower", "higher",
                                                               "midpoint", "nearest"]))) if
        x.dtype == m.float64 else x),
    "nanquantile": ("f", lambda r, n, d, k: lambda m, x: m.nanquantile(x, .5) if
                    x.dtype == m.float64 else x),
    "mode": ("fi", lambda r, n, d, k: lambda m, x: m.mode(x, _one_dim(r, n))[0]),
    "bincount": ("i", lambda r, n, d, k: lambda m, x: m.bincount(x.reshape(-1).abs())),
    "histc": ("f", lambda r, n, d, k: lambda m, x: m.histc(m.nan_to_num(x, 0., 2., -2.),
                                                            bins=4, min=-1, max=1)),
    "diff": ("fib", lambda r, n, d, k: lambda m, x: m.diff(x, dim=_one_dim(r, n))),
    "trapezoid": ("f", lambda r, n, d, k: lambda m, x: m.trapezoid(x, dim=_one_dim(r, n))),
    "norm_dim": ("f", lambda r, n, d, k: lambda m, x: m.linalg.vector_norm(
        x, float(r.choice([1, 2, float("inf"), 0])), dim=d, keepdim=k)),
    "softmax_nan": ("f", lambda r, n, d, k: lambda m, x: m.softmax(x, _one_dim(r, n))),
}


def _single(d):
    return d[0] if isinstance(d, tuple) else d


class Case:
    """An input (shape, dtype, values with NaN/inf/ties) and an op drawn for `seed`."""

    def __init__(self, seed):
        self.rng = r = np.random.default_rng(seed)
        ndim = int(r.choice([0, 1, 2, 2, 3]))
        shape = tuple(int(r.choice([0, 1, 2, 3, 4], p=[.05, .2, .25, .25, .25]))
                      for _ in range(ndim))
        self.name = str(r.choice(list(OPS)))
        kinds, maker = OPS[self.name]
        kind = str(r.choice(list(kinds)))
        if kind == "f":
            dtype = str(r.choice(["float64", "float32"]))
            pool = np.array([np.nan, np.inf, -np.inf, 0., -0., 1., 1., -2., .5, 3.])
            a = np.where(r.random(shape) < .5, r.choice(pool, shape),
                         np.round(r.uniform(-3, 3, shape), 1))
            if r.random() < .3:
                a = np.where(np.isnan(a) | np.isinf(a), 0.5, a)  # (some cases finite only)
        elif kind == "i":
            dtype = str(r.choice(["int64", "int32", "uint8", "int16"]))
            a = r.integers(0 if dtype == "uint8" else -4, 5, shape)
        else:
            dtype = "bool"
            a = r.random(shape) < .5
        self.array = np.asarray(a).astype(dtype)
        # (the op draws its own parameters when run, from a generator reset at every run)
        self.op_rng = np.random.default_rng(int(r.integers(2 ** 31)))
        self.op_state = self.op_rng.bit_generator.state
        self.fn = maker(self.op_rng, ndim, _dims(r, ndim), bool(r.random() < .5))

    def run(self, m, x):
        self.op_rng.bit_generator.state = self.op_state
        out = self.fn(m, x)
        return list(out) if isinstance(out, tuple) else [out]

    def describe(self):
        return f"{self.name} on {self.array.dtype}{list(self.array.shape)}:\n{self.array!r}"
