"""Random numbers: `Generator`, the default generator behind `manual_seed`, and sampling.

Every sampling function takes `generator=` (a `fluxgrad.Generator`, or a NumPy
`Generator`); without one it draws from the default generator, which
`manual_seed` reseeds. Samples are constants for autograd (PyTorch gives them
zero gradients; here they simply don't require grad). Inside
`vmap(randomness='different')`, rand/randn/randint draw per example.

Each function normalises its arguments and applies one record of `random_ops`, so in a
static program or a function traced by `fluxgrad.compile` a draw is an equation whose
numbers are drawn anew at every run or call (from the generator's state at that time).
"""
import contextlib

import numpy as np

from ._core import batching, dtypes
from ._core.devices import check_device
from ._core.errors import ArgumentError, DTypeNotImplemented, ShapeError, refuse_python_value
from ._core.grad_mode import state as _grad_state
from ._core.outputs import written
from ._core.static_mode import state as _static_state
from ._core.tensor import Tensor, tensor_method
from ._generator import Generator, default_generator, numpy_generator
from . import random_ops as _ops

__all__ = ["Generator", "default_generator", "manual_seed", "seed", "initial_seed", "get_rng",
           "get_rng_state", "set_rng_state", "fork_rng", "rand", "randn", "randint", "randperm",
           "multinomial", "bernoulli", "normal", "poisson", "uniform"]


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


@contextlib.contextmanager
def fork_rng(devices=None, enabled=True, device_type="cpu"):
    """A block whose draws from the default generator leave its state as it was before."""
    if not enabled:
        yield
        return
    state = get_rng_state()
    try:
        yield
    finally:
        set_rng_state(state)


def get_rng():
    """The default generator's NumPy Generator, for code that draws random numbers."""
    return default_generator.np


def size_keyword(args, size, op):
    """The sizes given either positionally (`zeros(2, 3)`) or as torch's `size=` keyword."""
    if size is None:
        return args
    if args:
        raise TypeError(f"{op}() got the size both positionally {args} and as size={size}; "
                        f"give it once")
    return (size,)


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
        raise DTypeNotImplemented(f"{op}: dtype must be a floating dtype, got {dtype} (as in "
                                  "PyTorch, which has no such kernel for it)")
    return dtype.np


def _float_or_complex(dtype, op):
    """The NumPy dtype to draw in, and whether the draw is of complex numbers (drawn as
    pairs of that real dtype)."""
    if dtype is not None and dtypes.as_dtype(dtype).is_complex:
        return dtypes.to_real(dtypes.as_dtype(dtype)).np, True
    return _float(dtype, op), False


def _complex_pairs(draw, complex_):
    """`draw` itself, or for a complex draw: pairs drawn along a new last dimension, as
    PyTorch draws the real and imaginary parts of a complex tensor."""
    if not complex_:
        return draw
    from .ops.complex import view_as_complex
    return lambda s: view_as_complex(draw(tuple(s) + (2,)))


def _generator(generator):
    """`generator=` checked now (the draw may run later, in a program)."""
    if generator is not None:
        numpy_generator(generator)
    return generator


def _draw(draw, shape, requires_grad):
    """`draw(shape)` (a tensor); inside vmap(randomness='different') a different draw for
    every example (see `batching.random_levels`)."""
    levels = batching.random_levels()
    lead = tuple(batching.batch_size(level) for level in levels)
    t = draw(lead + tuple(shape))
    if requires_grad:
        t.requires_grad_(True)
    for level in levels:  # outermost vmap first: each takes the leading dimension left
        t = batching.wrap(t, level, 0)
    return t


def _paddle_dtype(size, dtype):
    """PaddlePaddle's `rand(shape, dtype)`: a dtype after the shape."""
    if len(size) == 2 and isinstance(size[1], (str, dtypes.DType)) and dtype is None:
        return size[:1], size[1]
    return size, dtype


def rand(*args, size=None, generator=None, dtype=None, device=None, requires_grad=False,
         out=None):
    """Uniform samples on [0, 1)."""
    check_device(device, "rand")
    size, dtype = _paddle_dtype(size_keyword(args, size, "rand"), dtype)
    (np_dtype, complex_), generator = _float_or_complex(dtype, "rand"), _generator(generator)
    draw = _complex_pairs(lambda s: _ops.uniform(s, np_dtype, generator=generator), complex_)
    return written(_draw(draw, sizes(size, "rand"), requires_grad), out, "rand")


def randn(*args, size=None, generator=None, dtype=None, device=None, requires_grad=False,
          out=None):
    """Standard normal samples."""
    check_device(device, "randn")
    size, dtype = _paddle_dtype(size_keyword(args, size, "randn"), dtype)
    (np_dtype, complex_), generator = _float_or_complex(dtype, "randn"), _generator(generator)
    # a complex standard normal has E|z|^2 = 1: each part has variance 1/2
    std = np.sqrt(0.5) if complex_ else 1.0
    draw = _complex_pairs(lambda s: _ops.normal(0.0, std, s, np_dtype, generator), complex_)
    return written(_draw(draw, sizes(size, "randn"), requires_grad), out, "randn")


def _is_size(value):
    return isinstance(value, (tuple, list)) or (isinstance(value, Tensor) and value.ndim == 1)


def randint(low=0, high=None, size=None, *, shape=None, generator=None, dtype=None, device=None,
            requires_grad=False, out=None):
    """Integers uniform on [low, high).

    PyTorch's forms `randint(high, size)` and `randint(low, high, size)`, and
    PaddlePaddle's `randint(low, high, shape)` / `randint(high)`; without a size the
    result is 0-d.
    """
    check_device(device, "randint")
    for arg, bound in (("low", low), ("high", high)):
        if type(bound) is float:
            raise TypeError(f"randint(): argument '{arg}' must be int, not float; got "
                            f"{bound!r}, pass int({bound!r})")
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
    generator = _generator(generator)
    return written(_draw(lambda s: _ops.integers(low, high, s, np_dtype, generator), size,
                         requires_grad), out, "randint")


def uniform(shape, dtype=None, min=-1.0, max=1.0, seed=0, *, generator=None, device=None):
    """PaddlePaddle's `uniform`: samples on [min, max); a nonzero `seed` gives the same
    numbers at every call (or run)."""
    check_device(device, "uniform")
    generator = int(seed) if seed else _generator(generator)
    return _ops.uniform(sizes((shape,), "uniform"), _float(dtype, "uniform"), min, max,
                        generator)


def randperm(n, dtype=None, *, generator=None, device=None, requires_grad=False, out=None):
    """A random permutation of 0..n-1 (int64 unless `dtype` says otherwise)."""
    check_device(device, "randperm")
    if type(n) is float:
        raise TypeError(f"randperm(): argument 'n' must be int, not float; got {n!r}, pass "
                        f"int({n!r})")
    if int(n) < 0:
        raise ArgumentError(f"randperm: n must be non-negative, got {n}")
    np_dtype = dtypes.as_dtype(dtype if dtype is not None else "int64").np
    perm = _ops.permutation(n, np_dtype, _generator(generator))
    if requires_grad:
        perm.requires_grad_(True)
    return written(perm, out, "randperm")


def _probabilities(x, op):
    if not isinstance(x, Tensor):
        refuse_python_value(x, op)
        x = Tensor(np.asarray(x, dtype=np.float64))
    if x._data.dtype.kind != "f":
        raise TypeError(f"{op}: the weights must be a floating tensor, got {x.dtype}")
    return x


@tensor_method("multinomial")
def multinomial(input, num_samples, replacement=False, *, generator=None, out=None):
    """Indices drawn from each row of non-negative weights `input` (1-d or 2-d).

    Without replacement a category is drawn at most once per row, so a row needs
    at least `num_samples` positive weights.
    """
    probs = _probabilities(input, "multinomial")
    if probs.ndim not in (1, 2):
        raise ShapeError(f"multinomial: input must be 1-d or 2-d, got shape {list(probs.shape)}")
    num_samples = int(num_samples)
    if num_samples <= 0:
        raise ArgumentError(f"multinomial: num_samples must be positive, got {num_samples}")
    return written(_ops.multinomial(probs, num_samples, replacement, _generator(generator)),
                   out, "multinomial")


@tensor_method("bernoulli")
def bernoulli(input, p=None, *, generator=None, out=None):
    """1 with probability `input` (or `p`, if given), else 0, in input's dtype."""
    return written(_ops.bernoulli(_probabilities(input, "bernoulli"), p, _generator(generator)),
                   out, "bernoulli")


def normal(mean=0.0, std=1.0, size=None, *, shape=None, generator=None, dtype=None, device=None,
           requires_grad=False, out=None):
    """Normal samples: `mean` and `std` tensors or numbers (broadcast), or numbers and a size."""
    check_device(device, "normal")
    size = shape if shape is not None else size
    tensors = [a for a in (mean, std) if isinstance(a, Tensor)]
    if not tensors and size is None:
        raise TypeError(f"normal(): with numbers for mean and std ({mean!r}, {std!r}) give a "
                        "size, as PyTorch: normal(mean, std, size=(n,)); or pass mean or std "
                        "as a tensor")
    if not isinstance(std, Tensor) and std < 0:
        raise RuntimeError(f"normal: std must be non-negative, got {std}")
    if size is not None:
        out_shape = sizes((size,), "normal")
    else:
        out_shape = np.broadcast_shapes(*(t.shape for t in tensors)) if tensors else ()
    if dtype is not None:
        np_dtype = _float(dtype, "normal")
    elif tensors:
        np_dtype = np.result_type(*(t._data for t in tensors))
        np_dtype = np_dtype if np_dtype.kind == "f" else dtypes.default_float.np
    else:
        np_dtype = dtypes.default_float.np
    t = _ops.normal(mean if isinstance(mean, Tensor) else float(mean),
                    std if isinstance(std, Tensor) else float(std), out_shape, np_dtype,
                    _generator(generator))
    if requires_grad:
        t.requires_grad_(True)
    return written(t, out, "normal")


def poisson(input, generator=None):
    """Poisson counts with rates `input`, in input's dtype."""
    return _ops.poisson(_probabilities(input, "poisson"), _generator(generator))


# --- in-place samplers on a tensor ---------------------------------------------------------
def _fill(x, draw, op):
    """Overwrite x with `draw()` as PyTorch's in-place samplers do: x's history is cut (the
    samples are constants; gradients through x become zero). A static Variable takes the
    staged draw as its new value."""
    if _static_state.armed:
        from .static.program import Variable
        from .ops.elementwise import cast
        if isinstance(x, Variable):
            x._before_inplace()
            return x._rebase_inplace(cast(draw(), x.dtype))
        values = draw()
        if isinstance(values, Variable):
            raise NotImplementedError(
                f"{op}: fills a tensor of shape {list(x.shape)} that is not a value of the "
                "program being built (static mode, or a function traced by fluxgrad.compile): "
                "its numbers would be drawn once and frozen. Draw a new tensor instead "
                "(fluxgrad.rand(shape), randn, randint), which the program draws at every run")
    else:
        values = draw()
    values = values._data.astype(x._data.dtype, copy=False)
    if x._grad_fn is not None and _grad_state.enabled:
        from .ops.elementwise import where
        result = where(Tensor(np.zeros(x.shape, bool)), x, Tensor(values))
    else:
        result = Tensor(values)
    return x._rebase_inplace(result)


@tensor_method("uniform_")
def uniform_(x, a=0.0, b=1.0, *, generator=None, **paddle):
    """Fill with samples uniform on [a, b) (PaddlePaddle's `min=`/`max=` work too)."""
    a, b = paddle.get("min", a), paddle.get("max", b)
    if a > b:
        raise ArgumentError(f"uniform_ expects to return a [from, to) range, but found "
                            f"from={a} > to={b}; swap them")
    generator = _generator(generator)
    return _fill(x, lambda: _ops.uniform(x.shape, np.float64, a, b, generator), "uniform_")


@tensor_method("normal_")
def normal_(x, mean=0.0, std=1.0, *, generator=None):
    generator = _generator(generator)
    return _fill(x, lambda: _ops.normal(float(mean), float(std), x.shape, np.float64, generator),
                 "normal_")


@tensor_method("bernoulli_")
def bernoulli_(x, p=0.5, *, generator=None):
    from .ops.elementwise import less
    generator = _generator(generator)
    return _fill(x, lambda: less(_ops.uniform(x.shape, np.float64, generator=generator), p),
                 "bernoulli_")


@tensor_method("exponential_")
def exponential_(x, lambd=1.0, *, generator=None):
    if not lambd > 0:
        raise ArgumentError(f"exponential_ expects lambda > 0.0, but found lambda={lambd}")
    generator = _generator(generator)
    return _fill(x, lambda: _ops.exponential(x.shape, np.float64, lambd, generator),
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
    generator = _generator(generator)
    return _fill(x, lambda: _ops.integers(from_, to, x.shape, np.int64, generator), "random_")
