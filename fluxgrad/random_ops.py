"""The random primitives: each draw is one op record whose numbers are drawn when `impl` runs.

Eager mode runs `impl` at once; a static program or a compiled function stages the draw as
an equation, and every Executor run or compiled call runs `impl` again: new numbers each
time, from the generator the `generator` param names when the draw runs (absent: the
default generator, so `manual_seed` before a run repeats it; a fluxgrad or NumPy Generator;
an int: a generator freshly seeded with it at every draw, PaddlePaddle's `seed=`).

Every record is a `RandomPrimitive`: no derivative (samples are constants; PyTorch gives
them zero gradients), `draws = True` (staging records it even with no Variable among its
inputs while a program is built, and the passes never fold, merge or drop it), and an
`abstract` rule giving its output's dims and dtype (the staging can't probe `impl`: that
would draw). A draw is one NumPy call on the generator, the same whichever mode runs it,
so a seed gives the same numbers in eager mode, in a compiled call and in a static program
run that make the same draws in the same order.

- `random_uniform(*, shape, dtype, low=0.0, high=1.0)`: `low + (high - low) * U[0, 1)`
- `random_normal(mean, std, *, shape, dtype)`: `mean + std * N(0, 1)` (std >= 0 is checked)
- `random_integers(*, low, high, shape, dtype)`: uniform on [low, high)
- `random_exponential(*, shape, dtype, rate)`, `random_permutation(*, n, dtype)`
- `random_bernoulli(probs, *, p=None)`: 1 with probability probs (or the scalar p), in probs'
  dtype; `random_poisson(rates)`; `random_gamma(concentrations)` (standard gamma, rate 1); `random_multinomial(probs, *, num_samples, replacement)`

Under vmap the ops with tensor inputs draw for every example (their batch rules); the ones
without inputs are never batched: `fluxgrad.random` draws the batch's numbers itself. The
functions below apply vmap's `randomness` to their tensor inputs as torch.func does: 'error'
refuses any draw; 'different' spreads an input that is the same in every example, so that
each example draws its own numbers; 'same' draws once for all examples: a bernoulli of
probabilities that differ between examples compares one draw of uniform numbers with each
example's, and the other draws refuse such inputs, as PyTorch.
"""
import contextlib

import numpy as np

from ._core import batching
from ._core.dispatch import apply
from ._core.primitive import REGISTRY, Primitive
from ._core.tensor import Tensor
from ._generator import Generator, default_generator, numpy_generator

__all__ = ["uniform", "normal", "integers", "exponential", "permutation", "bernoulli",
           "multinomial", "poisson", "gamma"]


class RandomPrimitive(Primitive):
    """A primitive that draws random numbers (see the module docstring)."""
    __slots__ = ("abstract",)
    draws = True

    def __init__(self, name, impl, abstract, batch):
        super().__init__(name, impl, batch=batch, saves_inputs=False)
        self.abstract = abstract


def _rng(generator):
    if type(generator) is int:
        return np.random.default_rng(generator)
    return numpy_generator(generator)


# --- output types for the staging (dims may hold unknown sizes, see static.dims) -------------
def _dims_of(shape, op):
    from .static import dims as _dims
    dims = _dims.dims_of(tuple(shape))
    for d in dims:
        if type(d) is int and _dims.mentions_symbol(d):
            raise ValueError(f"{op}: a size computed from an unknown dimension ({d}) can't be "
                             "drawn; give static.data a known size, or draw in the shape of the "
                             "unknown size itself")
    return dims


def _input_dims(x):
    from .static.program import Variable
    if isinstance(x, Variable):
        return x.dims
    return np.shape(x._data if isinstance(x, Tensor) else x)


def _input_dtype(x):
    return np.asarray(x._data if isinstance(x, Tensor) else x).dtype


def _of_shape(op):
    return lambda inputs, params: [(_dims_of(params["shape"], op), np.dtype(params["dtype"]))]


def _unbatched(name):
    """The batch rule of an op without inputs: vmap never reaches it (no input is batched);
    `fluxgrad.random` draws every example's numbers by drawing in the batched shape."""
    def rule(bdims, **params):
        return apply(REGISTRY[name], **params), None
    return rule


# --- draws in a given shape ---------------------------------------------------------------
def _uniform(*, shape, dtype, low=0.0, high=1.0, generator=None):
    u = _rng(generator).random(shape)
    if low != 0.0 or high != 1.0:
        u = low + (high - low) * u  # NumPy's own uniform(low, high): the same numbers
    return u.astype(dtype, copy=False)


uniform_p = RandomPrimitive("random_uniform", _uniform, _of_shape("random_uniform"),
                            _unbatched("random_uniform"))


def _normal(mean, std, *, shape, dtype, generator=None):
    if std < 0 if type(std) is float else np.any(std < 0):
        raise RuntimeError(f"normal: std must be non-negative, got {np.min(std)}")
    z = _rng(generator).standard_normal(shape)
    if not (type(mean) is float and type(std) is float and mean == 0.0 and std == 1.0):
        z = mean + std * z  # NumPy's own normal(mean, std): the same numbers
    return z.astype(dtype, copy=False)


def _normal_batch(bdims, mean, std, *, shape, **params):
    size = next(x.shape[b] for x, b in zip((mean, std), bdims) if b is not None)
    args = []
    for x, b in zip((mean, std), bdims):
        if b is not None:  # batch in front, then this example's dims aligned to `shape`'s end
            x = x.movedim(b, 0)
            x = x.reshape((size,) + (1,) * (len(shape) + 1 - x.ndim) + tuple(x.shape[1:]))
        args.append(x)
    return apply(normal_p, *args, shape=(size,) + tuple(shape), **params), 0


normal_p = RandomPrimitive("random_normal", _normal, _of_shape("random_normal"), _normal_batch)


def _integers(*, low, high, shape, dtype, generator=None):
    return _rng(generator).integers(low, high, size=shape).astype(dtype, copy=False)


integers_p = RandomPrimitive("random_integers", _integers, _of_shape("random_integers"),
                             _unbatched("random_integers"))


def _exponential(*, shape, dtype, rate=1.0, generator=None):
    return (_rng(generator).standard_exponential(shape) / rate).astype(dtype, copy=False)


exponential_p = RandomPrimitive("random_exponential", _exponential,
                                _of_shape("random_exponential"), _unbatched("random_exponential"))


def _permutation(*, n, dtype, generator=None):
    return _rng(generator).permutation(n).astype(dtype, copy=False)


permutation_p = RandomPrimitive(
    "random_permutation", _permutation,
    lambda inputs, params: [(_dims_of((params["n"],), "randperm"), np.dtype(params["dtype"]))],
    _unbatched("random_permutation"))


# --- draws shaped by a tensor of probabilities or rates ----------------------------------
def _like_input(inputs, params):
    return [(_input_dims(inputs[0]), _input_dtype(inputs[0]))]


def _per_element(name):
    def rule(bdims, x, **params):
        return apply(REGISTRY[name], x, **params), bdims[0]
    return rule


def _bernoulli(probs, *, p=None, generator=None):
    if p is not None:
        probs = np.full(probs.shape, p, probs.dtype)
    if np.any((probs < 0) | (probs > 1)) or np.any(np.isnan(probs)):
        raise RuntimeError("bernoulli: every probability must be in [0, 1]")
    return (_rng(generator).random(probs.shape) < probs).astype(probs.dtype)


bernoulli_p = RandomPrimitive("random_bernoulli", _bernoulli, _like_input,
                              _per_element("random_bernoulli"))


def _poisson(rates, *, generator=None):
    if np.any(rates < 0) or np.any(np.isnan(rates)):
        raise RuntimeError("poisson: every rate must be non-negative")
    return _rng(generator).poisson(rates).astype(rates.dtype)


poisson_p = RandomPrimitive("random_poisson", _poisson, _like_input,
                            _per_element("random_poisson"))


def _gamma(concentrations, *, generator=None):
    if np.any(concentrations <= 0) or np.any(np.isnan(concentrations)):
        raise RuntimeError("gamma: every concentration must be positive")
    return _rng(generator).standard_gamma(concentrations).astype(concentrations.dtype)


gamma_p = RandomPrimitive("random_gamma", _gamma, _like_input, _per_element("random_gamma"))


def _multinomial(probs, *, num_samples, replacement, generator=None):
    if probs.shape[-1] == 0:
        raise RuntimeError(f"multinomial: the weights of shape {list(probs.shape)} hold no "
                           "category to draw; give each row at least one weight")
    rows = probs.reshape(-1, probs.shape[-1]).astype(np.float64)
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
    rng = _rng(generator)
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
    return picks.reshape(probs.shape[:-1] + (num_samples,)).astype(np.int64)


def _multinomial_abstract(inputs, params):
    return [(tuple(_input_dims(inputs[0]))[:-1] + (params["num_samples"],), np.dtype(np.int64))]


def _multinomial_batch(bdims, probs, **params):
    probs = probs.movedim(bdims[0], 0)
    rows = probs.reshape((-1, probs.shape[-1]))  # every example's rows, drawn as one batch
    picks = apply(multinomial_p, rows, **params)
    return picks.reshape(tuple(probs.shape[:-1]) + (params["num_samples"],)), 0


multinomial_p = RandomPrimitive("random_multinomial", _multinomial, _multinomial_abstract,
                                _multinomial_batch)


# --- the records applied (argument checks and vmap's batch of draws are fluxgrad.random's) --
def _shape(shape):
    return tuple(int(s) for s in shape)  # an unknown size's SymInt as its plain sentinel


def _with_generator(params, generator):
    if generator is not None:
        params["generator"] = generator
    return params


def uniform(shape, dtype, low=0.0, high=1.0, generator=None):
    params = dict(shape=_shape(shape), dtype=np.dtype(dtype))
    if low != 0.0 or high != 1.0:
        params.update(low=float(low), high=float(high))
    return apply(uniform_p, **_with_generator(params, generator))


def _for_vmap(x, op, same_draw=False):
    """(x, same): the tensor input `x` of a draw as the open vmaps' `randomness` asks (see
    the module docstring); `same` says a level with randomness='same' batches x, which only
    an op with `same_draw` (bernoulli) takes."""
    if not isinstance(x, Tensor) or not batching.state.randomness:  # (no vmap open)
        return x, False
    for level in batching.random_levels():  # (refuses under randomness='error')
        if not batching.is_batched_at(x, level):
            x = batching.spread(x, level)
    same = any(how == "same" and batching.is_batched_at(x, level)
               for level, how in batching.state.randomness.items())
    if same and not same_draw:
        raise RuntimeError(
            f"vmap: {op} of a tensor that differs between the examples can't draw the same "
            "numbers for all of them (randomness='same'), as in PyTorch (\"Vmap does not "
            "currently support same randomness with a batched tensor input\"); use "
            "randomness='different', or draw outside vmap")
    return x, same


def normal(mean, std, shape, dtype, generator=None):
    mean, _ = _for_vmap(mean, "normal")
    std, _ = _for_vmap(std, "normal")
    return apply(normal_p, mean, std, **_with_generator(
        dict(shape=_shape(shape), dtype=np.dtype(dtype)), generator))


def integers(low, high, shape, dtype, generator=None):
    return apply(integers_p, **_with_generator(
        dict(low=int(low), high=int(high), shape=_shape(shape), dtype=np.dtype(dtype)), generator))


def exponential(shape, dtype, rate=1.0, generator=None):
    return apply(exponential_p, **_with_generator(
        dict(shape=_shape(shape), dtype=np.dtype(dtype), rate=float(rate)), generator))


def permutation(n, dtype, generator=None):
    return apply(permutation_p, **_with_generator(dict(n=int(n), dtype=np.dtype(dtype)),
                                                  generator))


def bernoulli(probs, p=None, generator=None):
    probs, same = _for_vmap(probs, "bernoulli", same_draw=True)
    if same:  # one draw of uniform numbers for every example, against each one's probs
        every = probs
        while type(every) is batching.BatchedTensor:  # (every example's probabilities)
            every = every._physical
        if p is None and type(every) is Tensor:
            if np.any((every._data < 0) | (every._data > 1)) or np.any(np.isnan(every._data)):
                raise RuntimeError("bernoulli: every probability must be in [0, 1]")
        from .random import _draw  # (per example of the levels with randomness='different')
        draw = _draw(lambda shape: uniform(shape, probs.dtype.np, generator=generator),
                     probs.shape, False)
        return (draw < (probs if p is None else float(p))).to(probs.dtype)
    params = {} if p is None else {"p": float(p)}
    return apply(bernoulli_p, probs, **_with_generator(params, generator))


def poisson(rates, generator=None):
    rates, _ = _for_vmap(rates, "poisson")
    return apply(poisson_p, rates, **_with_generator({}, generator))


def gamma(concentrations, generator=None):
    concentrations, _ = _for_vmap(concentrations, "gamma")
    return apply(gamma_p, concentrations, **_with_generator({}, generator))


def multinomial(probs, num_samples, replacement, generator=None):
    probs, _ = _for_vmap(probs, "multinomial")
    return apply(multinomial_p, probs, **_with_generator(
        dict(num_samples=int(num_samples), replacement=bool(replacement)), generator))


# --- the generators a program's draws read: their states, to undo or replay draws ----------
def draws_in(program):
    """Whether `program` (or a sub-program of its control flow) draws random numbers."""
    return any(getattr(eq.prim, "draws", False) or any(
        draws_in(v) for v in eq.params.values() if hasattr(v, "equations"))
        for eq in program.equations)


def generator_states(program):
    """The states of the generators that `program`'s draws read, to give back with
    `restore_states`: [(generator, (its NumPy Generator, that one's state))]."""
    return [(g, _state_of(g)) for g in _generators(program)]


def _generators(program):
    cached = program.__dict__.get("_draw_generators")
    if cached is not None and cached[0] == program.version:
        return cached[1]
    found = {}
    for eq in program.equations:
        if getattr(eq.prim, "draws", False):
            g = eq.params.get("generator", default_generator)
            if type(g) is not int:  # a seed: the same numbers at every draw anyway
                found[id(g)] = g
        for v in eq.params.values():
            if hasattr(v, "equations"):
                found.update((id(g), g) for g in _generators(v))
    program.__dict__["_draw_generators"] = program.version, list(found.values())
    return list(found.values())


def _state_of(g):
    rng = g.np if isinstance(g, Generator) else g
    return rng, dict(rng.bit_generator.state)


def restore_states(states):
    for g, (rng, state) in states:
        if isinstance(g, Generator):
            g.np = rng  # manual_seed in between gave it another NumPy Generator
        rng.bit_generator.state = state


@contextlib.contextmanager
def draws_undone(program):
    """Inside, `program` may run without using up random numbers (a run made only to learn
    about the program): its generators get their states back on leaving."""
    states = generator_states(program)
    try:
        yield
    finally:
        restore_states(states)


@contextlib.contextmanager
def replaying(states):
    """Inside, the generators in `states` (from `generator_states`) draw again what they drew
    from there (a backward that recomputes its forward's masks); on leaving, they are back
    where they were."""
    now = [(g, _state_of(g)) for g, _ in states]
    restore_states(states)
    try:
        yield
    finally:
        restore_states(now)
