"""Batching for vmap: a BatchedTensor is a tensor with one hidden batch dimension.

Inside `vmap`, a function sees tensors of the per-example ("logical") shape; each
one is backed by a "physical" tensor that holds the whole batch along `bdim`.
An op on batched tensors runs its primitive's batching rule, which calls ordinary
ops on the physical tensors (so autograd and forward mode see only physical
tensors and work unchanged) and says where the result's batch dimension is.

Every open vmap has a level; nested vmaps nest BatchedTensors, the highest level
outermost. A tensor not batched at a level is the same for every example of it. So is a
batched tensor marked `_uniform` (spread from an unbatched one, e.g. a primal whose tangent
alone is batched in jacfwd / hessian, or computed by non-random ops from such alone): its
value can be read inside the vmapped function (a Python branch on it), as in torch.func.

Physical tensors may be static Variables (static mode, `fluxgrad.compile`): the ops the
rules issue then stage. A level's size may be a program's unknown dimension (`unknown`):
a constant repeated over it is then staged too.
"""
import threading

import numpy as np

from . import open_levels
from .forward_mode import state as _forward_state, tangent_tensor
from .static_mode import state as _static_state
from .primitive import REGISTRY
from .tensor import Tensor


class _State(threading.local):
    def __init__(self):
        self.sizes = {}  # open level -> batch size
        self.randomness = {}  # open level -> 'error', 'different' or 'same'
        self.unknown = set()  # open levels whose size is a static program's unknown dim
        self.next_level = 1


state = _State()


class BatchedTensor(Tensor):
    __slots__ = ("_physical", "_bdim", "_level", "_uniform")

    @property
    def requires_grad(self):
        return self._physical.requires_grad

    @requires_grad.setter
    def requires_grad(self, flag):
        self._physical.requires_grad = flag

    def requires_grad_(self, requires_grad=True):
        self._physical.requires_grad_(requires_grad)
        return self

    @property
    def grad_fn(self):
        return self._physical.grad_fn

    @property
    def program(self):
        """The static program of the Variable underneath, or None: code that must not read
        a static Variable's (stand-in) values checks `program` and sees through batching."""
        return getattr(self._physical, "program", None)

    @property
    def is_leaf(self):
        return self._physical.is_leaf

    def detach(self):
        return _rewrap(self, self._physical.detach())

    def _shallow_copy(self):
        return _rewrap(self, self._physical._shallow_copy())

    def _before_inplace(self, *others):
        physical = self._physical
        others = [o._physical if type(o) is BatchedTensor else o for o in others]
        before = physical._before_inplace(*others)
        before._tangent = physical._tangent
        return _rewrap(self, before)

    def _rebase_inplace(self, result):
        found, plain = layers(self)
        for level, _ in layers(result)[0]:
            if level not in dict(found):
                Tensor._rebase_inplace(self, result)  # raises: shared tensor, batched result
        for level, bdim in found:
            result = take_level(result, level, bdim, state.sizes[level])
        plain._rebase_inplace(result)
        if result._tangent is not None:
            plain._tangent = result._tangent
        return self

    def _refuse_read(self):
        raise RuntimeError(
            f"vmap: this tensor of shape {list(self.shape)} holds a different value for each of "
            f"the {self._physical.shape[self._bdim]} examples of the batch, so its value cannot "
            "be read inside the vmapped function (item(), numpy(), bool(), float(), ...); "
            "express the computation with tensor ops instead (e.g. fluxgrad.where for a "
            "data-dependent choice)")

    def _read(name):
        def read(self, *args, **kwargs):
            if not shared_by_all_examples(self):
                self._refuse_read()
            return getattr(Tensor, name)(self, *args, **kwargs)
        read.__name__ = name
        return read

    numpy, item, tolist, __array__ = _read("numpy"), _read("item"), _read("tolist"), _read(
        "__array__")
    __bool__, __float__, __int__, __index__ = _read("__bool__"), _read("__float__"), _read(
        "__int__"), _read("__index__")
    __dlpack__ = _read("__dlpack__")
    del _read

    def __repr__(self):
        return (f"BatchedTensor(level={self._level}, bdim={self._bdim}, "
                f"physical={self._physical!r})")


def shared_by_all_examples(t):
    """Whether `t` is marked uniform at each of its levels and its examples there do hold one
    value (a tensor written in place since it was marked may no longer): then its value is
    example 0's. Never for a static Variable, whose values are stand-ins."""
    while type(t) is BatchedTensor:
        if not t._uniform:
            return False
        data = np.moveaxis(t._physical._data, t._bdim, 0)
        if not np.array_equal(data, np.broadcast_to(data[:1], data.shape),
                              equal_nan=data.dtype.kind in "fc"):
            return False
        t = t._physical
    return getattr(t, "program", None) is None


def _uniform_levels(t):
    found = set()
    while type(t) is BatchedTensor:
        if t._uniform:
            found.add(t._level)
        t = t._physical
    return found


def _mark_uniform(t, levels):
    """`t` with its layers at `levels` marked uniform (returned for chaining)."""
    layer = t
    while type(layer) is BatchedTensor:
        if layer._level in levels:
            layer._uniform = True
        layer = layer._physical
    return t


def wrap(physical, level, bdim):
    """The tensor whose examples at `level` are `physical`'s slices along `bdim`."""
    if type(physical) is BatchedTensor and physical._level > level:
        # Keep the highest level outermost: the new level goes inside.
        outer = physical._bdim
        pos = bdim + (1 if outer <= bdim else 0)
        inner = wrap(physical._physical, level, pos)
        return _batched(inner, outer - (1 if pos < outer else 0), physical._level)
    return _batched(physical, bdim, level)


def _batched(physical, bdim, level):
    t = object.__new__(BatchedTensor)
    data = physical._data[(slice(None),) * bdim + (0, Ellipsis)]
    data.flags.writeable = False
    t._data = data
    t._physical = physical
    t._bdim = bdim
    t._level = level
    t._uniform = False
    t._requires_grad = False
    t._grad_fn = None
    t._out_index = 0
    t._version_counter = physical._counter()
    t.grad = None
    t._hooks = None
    t.name = None
    t._tangent = None
    return t


def _rewrap(batched, physical):
    t = _batched(physical, batched._bdim, batched._level)
    t._uniform = batched._uniform
    return t


def layers(t):
    """[(level, bdim)] of `t`'s batch layers, outermost first, and its innermost plain tensor."""
    found = []
    while type(t) is BatchedTensor:
        found.append((t._level, t._bdim))
        t = t._physical
    return found, t


def rebuild(plain, found):
    """Wrap `plain` (shaped like the innermost physical tensor) in the layers `found`."""
    for level, bdim in reversed(found):
        plain = wrap(plain, level, bdim)
    return plain


def to_physical_like(t, found):
    """`t`, shaped like a tensor with batch layers `found`, shaped like its innermost physical
    tensor instead (the layers' batch dimensions made visible, broadcast where `t` lacks them)."""
    for level, bdim in found:
        t = take_level(t, level, bdim, state.sizes[level])
    return t


def is_batched_at(t, level):
    while type(t) is BatchedTensor:
        if t._level == level:
            return True
        if t._level < level:
            return False
        t = t._physical
    return False


def take_level(t, level, dim, size):
    """`t` with the batch dimension of `level` made visible at `dim` (size `size`): its
    physical form if `t` is batched at `level`, else `t` repeated `size` times there."""
    if type(t) is not BatchedTensor or t._level < level:
        from .dispatch import apply
        t = apply(REGISTRY["reshape"], t, shape=t.shape[:dim] + (1,) + t.shape[dim:])
        shape = t.shape[:dim] + (size,) + t.shape[dim + 1:]
        if level in state.unknown and type(t) is Tensor and t._tangent is None:
            # a constant repeated an unknown number of times: only the program knows how many
            return _static_state.stage(REGISTRY["broadcast_to"], (t,), {"shape": tuple(shape)},
                                       True)
        return apply(REGISTRY["broadcast_to"], t, shape=shape)
    if t._level == level:
        return move_dim(t._physical, t._bdim, dim)
    outer = t._bdim + (1 if dim <= t._bdim else 0)
    inner = take_level(t._physical, level, dim + (1 if outer <= dim else 0), size)
    return _batched(inner, outer, t._level)


def move_dim(x, source, destination):
    if source == destination:
        return x
    perm = [d for d in range(x.ndim) if d != source]
    perm.insert(destination, source)
    from .dispatch import apply
    return apply(REGISTRY["permute"], x, perm=tuple(perm))


def tangent_of(t):
    """The tangent a (possibly batched) tensor carries in forward mode, or None."""
    found, plain = layers(t)
    tangent = tangent_tensor(plain._tangent)
    return None if tangent is None else rebuild(tangent, found)


def with_tangent(t, tangent):
    """A new tensor with `t`'s value and history carrying `tangent` (its batch dimensions
    made to line up with those of `t`'s physical tensor)."""
    found, plain = layers(t)
    for level, bdim in found:
        tangent = take_level(tangent, level, bdim, state.sizes[level])
    plain = _new_handle(plain)
    plain._tangent = tangent
    return _mark_uniform(rebuild(plain, found), _uniform_levels(t))


def _new_handle(t):
    """A new tensor object for `t`'s value that stays in `t`'s graph (a leaf's copy would be
    a new leaf, which gradients and `forward_grad` would not trace back to `t`)."""
    if t._requires_grad:
        from .dispatch import apply
        return apply(REGISTRY["alias"], t)
    return t._shallow_copy()


def spread(t, level):
    """`t`, which is the same for every example of `level`, as a tensor batched at `level`
    (a broadcast view; its tangent, if any, follows its examples)."""
    size = state.sizes[level]
    tangent = tangent_of(t)
    if tangent is not None:
        t = without_tangent(t)
    out = _mark_uniform(wrap(take_level(t, level, 0, size), level, 0), {level})
    return out if tangent is None else with_tangent(out, tangent)


def without_tangent(t):
    found, plain = layers(t)
    plain = _new_handle(plain)
    plain._tangent = None
    return _mark_uniform(rebuild(plain, found), _uniform_levels(t))


def peel(inputs, level):
    """(physicals, bdims): each input's physical tensor at `level` and the dimension that
    holds the batch there (None, and the input itself, where it is the same in every
    example)."""
    if level not in state.sizes:
        raise RuntimeError("vmap: a batched tensor was used after its vmap returned; return "
                           "it from the vmapped function instead of keeping it elsewhere")
    physicals, bdims = [], []
    lifting = _forward_state.level
    for x in inputs:
        if lifting and isinstance(x, Tensor) and not is_batched_at(x, level):
            tangent = tangent_of(x)
            if tangent is not None and is_batched_at(tangent, level):
                x = spread(x, level)  # its tangent differs between examples: so does x
        if type(x) is BatchedTensor and x._level == level:
            physicals.append(x._physical)
            bdims.append(x._bdim)
        else:
            physicals.append(x)
            bdims.append(None)
    return physicals, tuple(bdims)


def apply_batched(prim, inputs, params):
    """Run `prim` on inputs some of which are batched, through its batching rule."""
    if prim.batch is None:
        raise NotImplementedError(f"vmap: the op {prim.name!r} has no batching rule yet")
    level = max(x._level for x in inputs if type(x) is BatchedTensor)
    # inputs not batched at `level` are shared by its examples: so are the outputs, if the
    # batched ones are too and the op draws no random numbers different in every example
    different = getattr(prim, "draws", False) and state.randomness[level] == "different"
    uniform = not different and all(
        x._uniform for x in inputs if type(x) is BatchedTensor and x._level == level)
    physicals, bdims = peel(inputs, level)
    out, out_bdim = prim.batch(bdims, *physicals, **params)
    levels = {level} if uniform else ()
    if prim.n_outputs == 1:
        return out if out_bdim is None else _mark_uniform(wrap(out, level, out_bdim), levels)
    return tuple(o if b is None else _mark_uniform(wrap(o, level, b), levels)
                 for o, b in zip(out, out_bdim))


def batch_size(level):
    return state.sizes[level]


def open_level(size, randomness="error", unknown=False):
    """A new level of `size` examples (`unknown`: the size is a static program's unknown
    dimension, whose value only the program knows when it runs)."""
    level = state.next_level
    state.next_level += 1
    state.sizes[level] = size
    state.randomness[level] = randomness
    if unknown:
        state.unknown.add(level)
    open_levels.opened(batching=True)
    return level


def close_level(level):
    del state.sizes[level]
    del state.randomness[level]
    state.unknown.discard(level)
    open_levels.closed(batching=True)


def random_levels():
    """The open levels whose examples each draw their own random numbers (in order)."""
    for level, how in state.randomness.items():
        if how == "error":
            raise RuntimeError(
                "vmap: random numbers are drawn inside a function vmapped with "
                "randomness='error' (the default); pass randomness='different' for different "
                "numbers in every example, or randomness='same' for the same numbers in all")
    return [level for level, how in state.randomness.items() if how == "different"]
