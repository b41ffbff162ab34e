"""Random numbers: `Generator`, the default generator behind `manual_seed`, and sampling.

Every sampling function takes `generator=` (a `fluxgrad.Generator`, or a NumPy
`Generator`); without one it draws from the default generator, which
`manual_seed` reseeds. Samples are constants for autograd (PyTorch gives them
zero gradients; here they simply don't require grad). Inside
`vmap(randomness='different')`, rand/randn/randint draw per example.
"""
import numpy as np

from ._core import batching, dtypes
from ._core.devices import check_device
from ._core.errors import ArgumentError, ShapeError
from ._core.outputs import written
from ._core.static_mode import state as _static_state
from ._core.tensor import Tensor, tensor_method

__all__ = ["Generator", "default_generator", "manual_seed", "seed", "initial_seed", "get_rng",
           "get_rng_state", "set_rng_state", "rand", "randn", "randint", "randperm",
           "multinomial", "bernoulli", "normal", "poisson", "uniform"]


class Generator:
    """A seedable stream of random numbers (PyTorch's `torch.Generator`, CPU only)."""

    def __init__(self, device="cpu"):
        self.device = check_device(device, "Generator")
        self.manual_seed(int(np.random.SeedSequence().entropy % (2 ** 63)))

    def manual_seed(self, seed):
        """Restart the stream from `seed`; returns the generator, as PyTorch's does."""
        seed = int(seed)
        self._seed = seed
        self.np = np.random.default_rng(seed % (2 ** 64))
        return self

    def seed(self):
        """Reseed from fresh entropy and return the new seed."""
        new = int(np.random.SeedSequence().entropy % (2 ** 63))
        self.manual_seed(new)
        return new

    def initial_seed(self):
        return self._seed

    def get_state(self):
        return dict(self.np.bit_generator.state)

    def set_state(self, state):
        self.np.bit_generator.state = state
        return self


default_generator = Generator()


def manual_seed(seed):
    """Seed the default generator, so that every random function repeats."""
    return default_generator.manual_seed(seed)


def seed():
    return default_generator.seed()


def initial_seed():
    return default_generator.initial_seed()


def get_rng_state():
    return default_generator.get_state()


def set_rng_state(state):
    default_generator.set_state(state)


def get_rng():
    """The default generator's NumPy Generator, for code that draws random numbers."""
    return default_generator.np


def _drawn_now(op):
    """Refuse a draw while a static program is being built: its values would be frozen into
    the program and repeat on every run."""
    if _static_state.enabled:
        raise NotImplementedError(
            f"{op}: random numbers can't be staged into a static program yet (they would be "
            "drawn once, when the program is built, and repeat on every run); draw them in "
            "eager mode and feed them, e.g. exe.run(feed={'noise': np.random.rand(...)})")


def numpy_generator(generator):
    """The NumPy Generator that `generator=` (None, a fluxgrad or NumPy Generator) names."""
    if generator is None:
        return default_generator.np
    if isinstance(generator, Generator):
        return generator.np
    if isinstance(generator, np.random.Generator):
        return generator
    raise TypeError(f"generator must be a fluxgrad.Generator, got {type(generator).__name__}")


def sizes(args, op):
    """PyTorch's `*size` (ints, or one tuple/list/Size/tensor) as a tuple of ints."""
    if len(args) == 1 and isinstance(args[0], (tuple, list)):
        args = args[0]
    elif len(args) == 1 and isinstance(args[0], Tensor):
        args = args[0].tolist()
        args = args if isinstance(args, list) else [args]
    try:
        if any(isinstance(s, (float, np.floating, str)) for s in args):
            raise TypeError
        shape = tuple(int(s) for s in args)
    except (TypeError, ValueError):
        raise TypeError(f"{op}: the size must be ints or one tuple of ints, got "
                        f"{tuple(args)!r}") from None
    if any(s < 0 for s in shape):
        raise RuntimeError(f"{op}: a size can't be negative, got {tuple(args)!r}")
    return shape


def _float(dtype, op):
    if dtype is None:
        return dtypes.default_float.np
    dtype = dtypes.as_dtype(dtype)
    if not dtype.is_floating_point:
        raise TypeError(f"{op}: dtype must be a floating dtype, got {dtype}")
    return dtype.np


def _draw(draw, shape, np_dtype, requires_grad):
    """`draw(shape)` as a tensor; inside vmap(randomness='different') a different draw for
    every example (see `batching.random_levels`)."""
    levels = batching.random_levels()
    lead = tuple(batching.batch_size(level) for level in levels)
    t = Tensor(draw(lead + tuple(shape)).astype(np_dtype, copy=False),
               requires_grad=requires_grad)
    for level in levels:  # outermost vmap first: each takes the leading dimension left
        t = batching.wrap(t, level, 0)
    return t



def _paddle_dtype(size, dtype):
    """PaddlePaddle's `rand(shape, dtype)`: a dtype after the shape."""
    if len(size) == 2 and isinstance(size[1], (str, dtypes.DType)) and dtype is None:
        return size[:1], size[1]
    return size, dtype


def rand(*size, generator=None, dtype=None, device=None, requires_grad=False, out=None):
    """Uniform samples on [0, 1)."""
    _drawn_now("rand")
    check_device(device, "rand")
    size, dtype = _paddle_dtype(size, dtype)
    rng = numpy_generator(generator)
    return written(_draw(rng.random, sizes(size, "rand"), _float(dtype, "rand"), requires_grad),
                 out, "rand")


def randn(*size, generator=None, dtype=None, device=None, requires_grad=False, out=None):
    """Standard normal samples."""
    _drawn_now("randn")
    check_device(device, "randn")
    size, dtype = _paddle_dtype(size, dtype)
    rng = numpy_generator(generator)
    return written(_draw(rng.standard_normal, sizes(size, "randn"), _float(dtype, "randn"),
                       requires_grad), out, "randn")


def _is_size(value):
    return isinstance(value, (tuple, list)) or (isinstance(value, Tensor) and value.ndim == 1)


def randint(low=0, high=None, size=None, *, shape=None, generator=None, dtype=None, device=None,
            requires_grad=False, out=None):
    """Integers uniform on [low, high).

    PyTorch's forms `randint(high, size)` and `randint(low, high, size)`, and
    PaddlePaddle's `randint(low, high, shape)` / `randint(high)`; without a size the
    result is 0-d.
    """
    _drawn_now("randint")
    check_device(device, "randint")
    if size is None and high is not None and _is_size(high):
        low, high, size = 0, low, high  # randint(high, size)
    if shape is not None:
        size = shape
    if high is None:
        low, high = 0, low
    size = () if size is None else sizes((size,) if isinstance(size, (int, np.integer))
                                         else (size,), "randint")
    low, high = int(low), int(high)
    if low >= high:
        raise ArgumentError(f"randint: the range [low, high) = [{low}, {high}) is empty; "
                            "give high > low")
    np_dtype = dtypes.as_dtype(dtype if dtype is not None else "int64").np
    rng = numpy_generator(generator)
    return written(_draw(lambda s: rng.integers(low, high, size=s), size, np_dtype, requires_grad),
                 out, "randint")


def uniform(shape, dtype=None, min=-1.0, max=1.0, seed=0, *, generator=None, device=None):
    """PaddlePaddle's `uniform`: samples on [min, max)."""
    _drawn_now("uniform")
    check_device(device, "uniform")
    rng = np.random.default_rng(seed) if seed else numpy_generator(generator)
    shape = sizes((shape,), "uniform")
    return Tensor(rng.uniform(min, max, shape).astype(_float(dtype, "uniform")))


def randperm(n, dtype=None, *, generator=None, device=None, requires_grad=False, out=None):
    """A random permutation of 0..n-1 (int64 unless `dtype` says otherwise)."""
    _drawn_now("randperm")
    check_device(device, "randperm")
    if int(n) < 0:
        raise ArgumentError(f"randperm: n must be non-negative, got {n}")
    perm = numpy_generator(generator).permutation(int(n))
    np_dtype = dtypes.as_dtype(dtype if dtype is not None else "int64").np
    return written(Tensor(perm.astype(np_dtype), requires_grad=requires_grad), out, "randperm")


def _probabilities(x, op):
    if not isinstance(x, Tensor):
        x = Tensor(np.asarray(x, dtype=np.float64))
    p = x._data
    if p.dtype.kind != "f":
        raise TypeError(f"{op}: the weights must be a floating tensor, got {x.dtype}")
    return p


@tensor_method("multinomial")
def multinomial(input, num_samples, replacement=False, *, generator=None, out=None):
    """Indices drawn from each row of non-negative weights `input` (1-d or 2-d).

    Without replacement a category is drawn at most once per row, so a row needs
    at least `num_samples` positive weights.
    """
    _drawn_now("multinomial")
    p = _probabilities(input, "multinomial")
    if p.ndim not in (1, 2):
        raise ShapeError(f"multinomial: input must be 1-d or 2-d, got shape {list(p.shape)}")
    rows = p.reshape(-1, p.shape[-1]).astype(np.float64)
    num_samples = int(num_samples)
    if num_samples <= 0:
        raise ArgumentError(f"multinomial: num_samples must be positive, got {num_samples}")
    if not np.all(np.isfinite(rows)) or np.any(rows < 0):
        raise RuntimeError("multinomial: the weights contain inf, nan or a negative value")
    totals = rows.sum(axis=1)
    if np.any(totals <= 0):
        raise RuntimeError("multinomial: a row of weights sums to zero")
    positive = (rows > 0).sum(axis=1)
    if not replacement and np.any(positive < num_samples):
        raise RuntimeError(f"multinomial: can't draw {num_samples} samples without replacement "
                           f"from a row with only {positive.min()} positive weights; use "
                           "replacement=True or fewer samples")
    rng = numpy_generator(generator)
    if replacement:
        cdf = np.cumsum(rows / totals[:, None], axis=1)
        u = rng.random((rows.shape[0], num_samples))
        picks = np.stack([np.searchsorted(c, v, side="right") for c, v in zip(cdf, u)])
        picks = np.minimum(picks, rows.shape[1] - 1)
    else:
        # exponential races: the k first arrivals at rates `rows` are a draw without replacement
        with np.errstate(divide="ignore"):
            arrival = rng.standard_exponential(rows.shape) / rows
        picks = np.argsort(arrival, axis=1, kind="stable")[:, :num_samples]
    picks = picks.reshape(p.shape[:-1] + (num_samples,)).astype(np.int64)
    return written(Tensor(picks), out, "multinomial")


@tensor_method("bernoulli")
def bernoulli(input, p=None, *, generator=None, out=None):
    """1 with probability `input` (or `p`, if given), else 0, in input's dtype."""
    _drawn_now("bernoulli")
    probs = _probabilities(input, "bernoulli")
    if p is not None:
        probs = np.full(probs.shape, float(p), probs.dtype)
    if np.any((probs < 0) | (probs > 1)) or np.any(np.isnan(probs)):
        raise RuntimeError("bernoulli: every probability must be in [0, 1]")
    draws = numpy_generator(generator).random(probs.shape) < probs
    return written(Tensor(draws.astype(probs.dtype)), out, "bernoulli")


def normal(mean=0.0, std=1.0, size=None, *, shape=None, generator=None, dtype=None, device=None,
           requires_grad=False, out=None):
    """Normal samples: `mean` and `std` tensors or numbers (broadcast), or numbers and a size."""
    _drawn_now("normal")
    check_device(device, "normal")
    size = shape if shape is not None else size
    arrays = [a._data for a in (mean, std) if isinstance(a, Tensor)]
    m = mean._data if isinstance(mean, Tensor) else mean
    s = std._data if isinstance(std, Tensor) else std
    if np.any(np.asarray(s) < 0):
        raise RuntimeError("normal: std must be non-negative")
    if size is not None:
        out_shape = sizes((size,), "normal")
    else:
        out_shape = np.broadcast_shapes(*(a.shape for a in arrays)) if arrays else ()
    if dtype is not None:
        np_dtype = _float(dtype, "normal")
    elif arrays:
        np_dtype = np.result_type(*arrays)
        np_dtype = np_dtype if np_dtype.kind == "f" else dtypes.default_float.np
    else:
        np_dtype = dtypes.default_float.np
    z = numpy_generator(generator).standard_normal(out_shape)
    t = Tensor((m + s * z).astype(np_dtype), requires_grad=requires_grad)
    return written(t, out, "normal")


def poisson(input, generator=None):
    """Poisson counts with rates `input`, in input's dtype."""
    _drawn_now("poisson")
    rates = _probabilities(input, "poisson")
    if np.any(rates < 0) or np.any(np.isnan(rates)):
        raise RuntimeError("poisson: every rate must be non-negative")
    return Tensor(numpy_generator(generator).poisson(rates).astype(rates.dtype))


# --- in-place samplers on a tensor ---------------------------------------------------------
def _fill(x, values, op):
    """Overwrite x with `values` as PyTorch's in-place samplers do: x's history is cut
    (the samples are constants; gradients through x become zero)."""
    from .ops.elementwise import where
    from ._core.grad_mode import state
    values = np.asarray(values).astype(x._data.dtype, copy=False)
    if x._grad_fn is not None and state.enabled:
        result = where(Tensor(np.zeros(x.shape, bool)), x, Tensor(values))
    else:
        result = Tensor(values)
    return x._rebase_inplace(result)


@tensor_method("uniform_")
def uniform_(x, a=0.0, b=1.0, *, generator=None, **paddle):
    """Fill with samples uniform on [a, b) (PaddlePaddle's `min=`/`max=` work too)."""
    a, b = paddle.get("min", a), paddle.get("max", b)
    return _fill(x, numpy_generator(generator).uniform(a, b, x.shape), "uniform_")


@tensor_method("normal_")
def normal_(x, mean=0.0, std=1.0, *, generator=None):
    return _fill(x, numpy_generator(generator).normal(mean, std, x.shape), "normal_")


@tensor_method("bernoulli_")
def bernoulli_(x, p=0.5, *, generator=None):
    probs = p._data if isinstance(p, Tensor) else p
    return _fill(x, numpy_generator(generator).random(x.shape) < probs, "bernoulli_")


@tensor_method("exponential_")
def exponential_(x, lambd=1.0, *, generator=None):
    return _fill(x, numpy_generator(generator).standard_exponential(x.shape) / lambd,
                 "exponential_")


@tensor_method("random_")
def random_(x, from_=0, to=None, *, generator=None):
    """Integers uniform on [from, to); `random_(to)` is [0, to); with neither, [0, 2**m]
    where m is the mantissa width of a float dtype (or the int's largest value)."""
    if to is None and from_ != 0:
        from_, to = 0, from_
    if to is None:
        kind = x._data.dtype
        to = 2 ** (np.finfo(kind).nmant + 1) + 1 if kind.kind == "f" else (
            2 if kind == np.bool_ else int(np.iinfo(kind).max))
    return _fill(x, numpy_generator(generator).integers(from_, to, x.shape), "random_")
