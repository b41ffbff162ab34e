"""Samples for indexing (fluxgrad/ops/indexing.py): getitem, setitem, gather/scatter, masks.

Index constants are NumPy arrays closed over by both callables; repeated indices
are included wherever the op accumulates (their gradients must add up).
"""
import numpy as np

import fluxgrad as fg
from fluxgrad._core.dispatch import apply
from fluxgrad.ops import indexing

from . import Sample, normal


def _t(a):
    import torch
    return torch.as_tensor(a)


def _f(a):
    return fg.tensor(a)


ROWS = np.array([2, 0, 2, 1])           # repeated
MASK = normal(3, 4, seed=5) > 0
IDX2 = np.array([[0, 2], [1, 1]])


def _slice_samples():
    return [
        Sample("slice", lambda x: x[1], [normal(3, 4)], lambda x: x[1]),
        Sample("slice", lambda x: x[-1, 1:3], [normal(3, 4)], lambda x: x[-1, 1:3]),
        Sample("slice", lambda x: x[:, ::2], [normal(3, 5)], lambda x: x[:, ::2]),
        Sample("slice", lambda x: x[..., ::-1], [normal(2, 3)], lambda x: x.flip(-1)),
        Sample("slice", lambda x: x[::-2], [normal(5)], lambda x: x.flip(0)[::2]),
        Sample("slice", lambda x: x[None, 0, ..., None], [normal(2, 3, 4)],
               lambda x: x[None, 0, ..., None]),
        Sample("slice", lambda x: x[...], [normal()], lambda x: x[...]),
        Sample("slice", lambda x: x[None], [normal()], lambda x: x[None]),
        Sample("slice", lambda x: x[1:1], [normal(3)], lambda x: x[1:1]),
        Sample("slice", lambda x: x[_f(1), -2:], [normal(2, 3)], lambda x: x[1, -2:]),
        Sample("slice", lambda x: x[0][1] * x[1][2], [normal(2, 3)], lambda x: x[0][1] * x[1][2]),
        Sample("slice", lambda x: [r for r in x], [normal(3, 2)], lambda x: [r for r in x]),
    ]


def _index_samples():
    return [
        Sample("index", lambda x: x[ROWS], [normal(3, 2)], lambda x: x[_t(ROWS)]),
        Sample("index", lambda x: x[[0, 0, 1]], [normal(2)], lambda x: x[[0, 0, 1]]),
        Sample("index", lambda x: x[:, _f(ROWS)], [normal(2, 3)], lambda x: x[:, _t(ROWS)]),
        Sample("index", lambda x: x[[0, 1, 1], [2, 0, 2]], [normal(2, 3)],
               lambda x: x[[0, 1, 1], [2, 0, 2]]),
        Sample("index", lambda x: x[IDX2], [normal(3, 2)], lambda x: x[_t(IDX2)]),
        Sample("index", lambda x: x[1:, IDX2, None], [normal(3, 3, 2)],
               lambda x: x[1:, _t(IDX2), None]),
        Sample("index", lambda x: x[IDX2, :, IDX2], [normal(3, 2, 3)],
               lambda x: x[_t(IDX2), :, _t(IDX2)]),
        Sample("index", lambda x: x[_f(MASK)], [normal(3, 4)], lambda x: x[_t(MASK)]),
        Sample("index", lambda x: x[MASK[0]], [normal(4, 2)], lambda x: x[_t(MASK[0])]),
        Sample("index", lambda x: x[..., MASK[:, 0]], [normal(2, 3)],
               lambda x: x[..., _t(MASK[:, 0])]),
        Sample("index", lambda x: x[[]], [normal(3, 2)], lambda x: x[[]]),
        Sample("index", lambda x: x[np.array([-1, 0])], [normal(3)],
               lambda x: x[_t(np.array([-1, 0]))]),
        Sample("index", lambda x: x.masked_select(_f(MASK[0])), [normal(3, 4)],
               lambda x: x.masked_select(_t(MASK[0]))),
        Sample("index", lambda x: x.index_select(1, _f(ROWS)), [normal(2, 3)],
               lambda x: x.index_select(1, _t(ROWS))),
        Sample("index", lambda x: fg.index_select(x, _f(ROWS), axis=-1), [normal(2, 3)],
               lambda x: x.index_select(-1, _t(ROWS))),
        Sample("index", lambda x: x.gather(1, _f(IDX2)), [normal(2, 3)],
               lambda x: x.gather(1, _t(IDX2))),
        Sample("index", lambda x: x.gather(0, _f(IDX2)), [normal(3, 4)],
               lambda x: x.gather(0, _t(IDX2))),
        Sample("index", lambda x: x.gather(-1, _f(ROWS[None, :, None] % 2)), [normal(1, 4, 2)],
               lambda x: x.gather(-1, _t(ROWS[None, :, None] % 2))),
        Sample("index", lambda x: fg.gather(x, _f(ROWS), 0), [normal(3, 2)],
               lambda x: x[_t(ROWS)]),
        Sample("index", lambda x: x.take_along_dim(_f(IDX2[:, :1]), 1), [normal(2, 3)],
               lambda x: x.take_along_dim(_t(IDX2[:, :1]), 1)),
        Sample("index", lambda x: fg.take_along_axis(x, _f(IDX2.T[None]), 1),
               [normal(3, 3, 1)], lambda x: x.take_along_dim(_t(IDX2.T[None]), 1)),
        Sample("index", lambda x: x.take_along_dim(_f(ROWS)), [normal(2, 2)],
               lambda x: x.take_along_dim(_t(ROWS))),
        Sample("index", lambda x: x.take(_f(IDX2)), [normal(2, 3)],
               lambda x: x.take(_t(IDX2))),
    ]


def _scatter(g, index, shape):
    static, arrays = indexing._normalize(index)
    return apply(indexing.index_scatter_p, g, *arrays, index=static, shape=shape)


def _torch_scatter(g, index, shape):
    import torch
    return torch.zeros(shape, dtype=g.dtype).index_put(index, g, accumulate=True)


def _scatter_samples():
    return [
        Sample("index_scatter", lambda g: _scatter(g, (ROWS,), (3, 2)), [normal(4, 2)],
               lambda g: _torch_scatter(g, (_t(ROWS),), (3, 2))),
        Sample("index_scatter", lambda g: _scatter(g, (MASK,), (3, 4)),
               [normal(int(MASK.sum()))], lambda g: _torch_scatter(g, (_t(MASK),), (3, 4))),
        Sample("index_scatter", lambda g: _scatter(g, (slice(None), 1), (2, 3)), [normal(2)],
               lambda g: _torch_scatter(g, (_t([0, 1]), _t([1, 1])), (2, 3))),
        Sample("index_scatter", lambda g: _scatter(g, (1,), (3,)), [normal()],
               lambda g: _torch_scatter(g, (_t([1]),), (3,)).reshape(3)),
    ]


def _setitem(x, index, v=None, value=None):
    y = x.clone()
    y[index] = value if v is None else v
    return y


def _put_samples():
    samples = [
        Sample("index_put", lambda x, v: _setitem(x, 1, v), [normal(3, 2), normal(2, seed=1)],
               lambda x, v: _setitem(x, 1, v)),
        Sample("index_put", lambda x, v: _setitem(x, (slice(None), 0), v),
               [normal(3, 2), normal(1, seed=1)], lambda x, v: _setitem(x, (slice(None), 0), v)),
        Sample("index_put", lambda x, v: _setitem(x, (Ellipsis, slice(1, None)), v),
               [normal(2, 3), normal(1, 2, seed=1)],
               lambda x, v: _setitem(x, (Ellipsis, slice(1, None)), v)),
        Sample("index_put", lambda x, v: _setitem(x, 0, v), [normal(3), normal(seed=1)],
               lambda x, v: _setitem(x, 0, v)),
        Sample("index_put", lambda x: _setitem(x, _f(MASK), value=2.0), [normal(3, 4)],
               lambda x: _setitem(x, _t(MASK), value=2.0)),
        Sample("index_put", lambda x, v: _setitem(x, MASK[0], v),
               [normal(4, 2), normal(2, seed=1)], lambda x, v: _setitem(x, _t(MASK[0]), v)),
        Sample("index_put", lambda x, v: _setitem(x, ([2, 0], [1, 1]), v),
               [normal(3, 2), normal(2, seed=1)],
               lambda x, v: _setitem(x, (_t([2, 0]), _t([1, 1])), v)),
        # a value that requires grad written into a constant buffer
        Sample("index_put", lambda v: _setitem(fg.zeros(3, 2, dtype=fg.float64), 1, v),
               [normal(2)], lambda v: _setitem(_t(np.zeros((3, 2))), 1, v),
               vmap=False),  # vmap refuses to write examples into a tensor they all share
        Sample("index_put", lambda x, v: x.index_put((_f(ROWS),), v, accumulate=True),
               [normal(3, 2), normal(4, 2, seed=1)],
               lambda x, v: x.index_put((_t(ROWS),), v, accumulate=True)),
        Sample("index_put", lambda x, v: fg.index_put(x, (_f([0, 2]),), v),
               [normal(3), normal(2, seed=1)], lambda x, v: x.index_put((_t([0, 2]),), v)),
        Sample("index_put", lambda x, s: x.scatter(1, _f(np.array([[0, 2], [1, 0]])), s),
               [normal(2, 3), normal(2, 2, seed=1)],
               lambda x, s: x.scatter(1, _t(np.array([[0, 2], [1, 0]])), s)),
        Sample("index_put", lambda x: x.scatter(0, _f(np.array([[1, 0, 2]])), 1.5),
               [normal(3, 3)], lambda x: x.scatter(0, _t(np.array([[1, 0, 2]])), 1.5)),
        Sample("index_put", lambda x, s: x.scatter_add(0, _f(IDX2), s),
               [normal(3, 2), normal(2, 2, seed=1)],
               lambda x, s: x.scatter_add(0, _t(IDX2), s)),
        Sample("index_put", lambda x, s: x.scatter_add(-1, _f(ROWS[None]), s),
               [normal(2, 3), normal(1, 4, seed=1)],
               lambda x, s: x.scatter_add(-1, _t(ROWS[None]), s)),
        Sample("index_put", lambda x, s: x.scatter(1, _f(IDX2), s, reduce="add"),
               [normal(2, 3), normal(2, 2, seed=1)],
               lambda x, s: x.scatter_add(1, _t(IDX2), s)),
        Sample("index_put", lambda x, s: fg.scatter(x, _f([2, 0]), s),
               [normal(3, 2), normal(2, 2, seed=1)],
               lambda x, s: x.index_put((_t([2, 0]),), s)),
        Sample("index_put", lambda x, s: fg.scatter(x, _f([2, 0, 2]), s, overwrite=False),
               [normal(3, 2), normal(3, 2, seed=1)],
               lambda x, s: x.index_fill(0, _t([2, 0]), 0.0).index_add(0, _t([2, 0, 2]), s)),
        Sample("index_put", lambda x, s: x.index_add(1, _f(ROWS), s, alpha=2.0),
               [normal(2, 3), normal(2, 4, seed=1)],
               lambda x, s: x.index_add(1, _t(ROWS), s, alpha=2.0)),
        Sample("index_put", lambda x, s: fg.index_add(x, _f(ROWS), 0, s),
               [normal(3, 2), normal(4, 2, seed=1)],
               lambda x, s: x.index_add(0, _t(ROWS), s)),
        Sample("where", lambda x: x.masked_fill(_f(MASK), -1.0), [normal(3, 4)],
               lambda x: x.masked_fill(_t(MASK), -1.0)),
        Sample("where", lambda x, v: x.masked_fill(_f(MASK[0]), v), [normal(3, 4), normal()],
               lambda x, v: x.masked_fill(_t(MASK[0]), v)),
    ]
    for sample in samples:  # the setitem ones write into a copy of their first argument
        sample.in_place = "_setitem" in sample.fn.__code__.co_names and sample.vmap
    return samples


def _inplace(method, *args):
    def run(x, *values):
        y = x * 1.0
        getattr(y, method)(*args, *values)
        return y
    return run


def _inplace_samples():
    return [
        # no repeated index: where scatter_ writes one place twice, the last write wins
        Sample("index_put", _inplace("scatter_", 1, _f(IDX2.T)), [normal(2, 3), normal(2, 2)],
               _inplace("scatter_", 1, _t(IDX2.T))),
        Sample("index_put", _inplace("scatter_add_", 0, _f(IDX2)), [normal(3, 2), normal(2, 2)],
               _inplace("scatter_add_", 0, _t(IDX2))),
        Sample("index_put", _inplace("index_add_", 0, _f(ROWS)), [normal(3, 2), normal(4, 2)],
               _inplace("index_add_", 0, _t(ROWS))),
        Sample("index_put", lambda x, v: _inplace("index_put_", (_f(ROWS),))(x, v, True),
               [normal(3), normal(4)],
               lambda x, v: _inplace("index_put_", (_t(ROWS),))(x, v, True)),
        Sample("where", _inplace("masked_fill_", _f(MASK)), [normal(3, 4), normal()],
               _inplace("masked_fill_", _t(MASK))),
    ]


def _in_place(samples):
    for sample in samples:
        sample.in_place = sample.vmap
    return samples


SAMPLES = (_slice_samples() + _index_samples() + _scatter_samples() + _put_samples()
           + _in_place(_inplace_samples()))


def _scatter_reduce_samples():
    """scatter_reduce with repeated indices, with and without the entries' own values; src
    holds a zero (prod's gradient must stay exact there)."""
    x = normal(2, 4, seed=21)
    src = normal(2, 3, seed=22)
    src[0, 1] = 0.0
    index = np.array([[0, 0, 3], [2, 2, 2]])
    samples = []
    for reduce in ("sum", "prod", "mean", "amax", "amin"):
        for include_self in (True, False):
            samples.append(Sample(
                "index_put", lambda x, s, r=reduce, i=include_self: x.scatter_reduce(
                    1, fg.tensor(index), s, r, include_self=i), [x, src],
                lambda x, s, r=reduce, i=include_self: x.scatter_reduce(
                    1, __import__("torch").tensor(index), s, r, include_self=i)))
    samples.append(Sample("index_put", lambda x, s: x.scatter(0, fg.tensor([[0, 1], [1, 1]]), s,
                                                              reduce="multiply"),
                          [x, src], None))
    return samples


SAMPLES += _scatter_reduce_samples()


def _nonzero_samples():
    """nonzero (no derivative): exact zeros among the entries, none at all, and a 0-d one."""
    x = normal(3, 4, seed=31)
    x[x < 0.2] = 0.0
    return [
        Sample("nonzero", lambda x: fg.nonzero(x), [x], lambda x: x.nonzero()),
        Sample("nonzero", lambda x: fg.nonzero(x * 0), [normal(2, 3)],
               lambda x: (x * 0).nonzero()),
        Sample("nonzero", lambda x: fg.nonzero(x), [np.array(1.5)], lambda x: x.nonzero()),
        Sample("nonzero", lambda x: fg.stack(fg.nonzero(x, as_tuple=True)), [x],
               lambda x: __import__("torch").stack(x.nonzero(as_tuple=True))),
    ]


SAMPLES += _nonzero_samples()
