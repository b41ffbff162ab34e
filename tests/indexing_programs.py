"""Random indexing programs, for any library with PyTorch's API: the programs of
tests/mixed_programs.py (drawn against PyTorch itself, a step torch refuses drawn again) over a
vocabulary of indexing reads and writes, between elementwise steps that give their gradients a
second order.

Reads: basic and advanced indices (ints, negative ints, slices with steps, None, Ellipsis, bool
masks of any rank and 0-d, integer tensors and lists broadcast together, adjacent or separated by
slices), take, take_along_dim, gather, masked_select, narrow, select, unfold. Writes, each into a
clone (so every value of the program stays as it was made): `x[index] = value` with Python
scalars and broadcast tensors, index_put_ with and without accumulate, index_add / index_copy /
index_fill, scatter / scatter_add / scatter_reduce, masked_fill, masked_scatter. A write whose
result PyTorch leaves unspecified (different values written to one place without accumulating)
is not drawn; the same value written twice is.
"""
import numpy as np
import torch

import mixed_programs
from mixed_programs import _binary, _name, _unary

SCALARS = [0, 1, -2, 0.5, -1.25, 3.0, True, False]


# -- an index: a tuple of items drawn for a shape, built for either library ---------------------

def _draw_index(rng, shape):
    """Items of an index into `shape`: ("int", i), ("slice", start, stop, step), ("none",),
    ("ellipsis",), ("mask", bool array), ("bool", python bool), ("tensor", int array),
    ("list", ints). Integer tensors and lists share one broadcast shape."""
    broadcast = tuple(int(s) for s in rng.integers(1, 4, int(rng.choice([0, 1, 1, 2]))))
    items, dim, ellipsis = [], 0, False
    for _ in range(int(rng.integers(1, 4))):
        size = shape[dim] if dim < len(shape) else 0
        kind = str(rng.choice(["int", "slice", "slice", "none", "ellipsis", "mask", "tensor",
                               "tensor", "list", "int", "slice"]))
        if rng.random() < 0.05:
            kind = "bool"
        if kind == "int" and size:
            items.append(("int", int(rng.integers(-size, size))))
            dim += 1
        elif kind == "slice":
            start = None if rng.random() < 0.4 else int(rng.integers(-4, 4))
            stop = None if rng.random() < 0.5 else int(rng.integers(-4, 5))
            items.append(("slice", start, stop, int(rng.choice([1, 1, 2, 3]))))
            dim += 1
        elif kind == "none":
            items.append(("none",))
        elif kind == "ellipsis" and not ellipsis:
            ellipsis = True
            items.append(("ellipsis",))
            dim = max(dim, len(shape) - 1)
        elif kind == "mask":
            rank = int(rng.integers(0, min(2, len(shape) - dim) + 1)) if dim <= len(shape) else 0
            items.append(("mask", rng.random(shape[dim:dim + rank]) < 0.5))
            dim += rank
        elif kind == "bool":
            items.append(("bool", bool(rng.random() < 0.7)))
        elif kind in ("tensor", "list") and size:
            if kind == "list" and len(broadcast) != 1:
                continue
            index_shape = tuple(1 if rng.random() < 0.3 else s for s in broadcast)
            if rng.random() < 0.3 and index_shape:
                index_shape = index_shape[1:]
            values = rng.integers(-size, size, index_shape)
            items.append(("list", values.tolist()) if kind == "list" else ("tensor", values))
            dim += 1
    return items


def _build(m, items, bare):
    built = []
    for item in items:
        kind = item[0]
        if kind in ("int", "list", "bool"):
            built.append(item[1])
        elif kind == "slice":
            built.append(slice(*item[1:]))
        elif kind == "none":
            built.append(None)
        elif kind == "ellipsis":
            built.append(Ellipsis)
        else:
            built.append(m.tensor(item[1]))
    return built[0] if bare and len(built) == 1 else tuple(built)


def _describe(items):
    def one(item):
        kind = item[0]
        if kind == "slice":
            return ":".join("" if v is None else str(v) for v in item[1:])
        if kind in ("mask", "tensor"):
            return f"tensor({item[1].tolist()})"
        return {"none": "None", "ellipsis": "..."}.get(kind, str(item[-1]))
    return "[" + ", ".join(one(i) for i in items) + "]"


def _positions(v, index):
    """Every place of `v` that `v[index]` reads, as flat positions (torch)."""
    return torch.arange(v.numel()).reshape(v.shape)[index]


def _checked(v, items):
    """What v[index] reads (flat positions), or None where torch would read outside v but
    doesn't check (an index array beside an empty slice: fluxgrad refuses it)."""
    try:
        positions = _positions(v, _build(torch, items, False))
    except (IndexError, RuntimeError, TypeError):
        return None
    if positions.numel() == 0 and any(i[0] in ("tensor", "list") for i in items):
        return None
    return positions


def _distinct(positions):
    return positions.unique().numel() == positions.numel()


# -- families ------------------------------------------------------------------------------------

def _read(p):
    x = p.pick()
    v = p.values[x]
    items = _draw_index(p.rng, tuple(v.shape))
    if p.sized and any(i[0] in ("mask", "bool") for i in items) or _checked(v, items) is None:
        return None
    bare = bool(p.rng.random() < 0.5)
    return f"x{_describe(items)}", (lambda m, x: x[_build(m, items, bare)]), [x]


def _value(p, v, target_shape):
    """A Python scalar (None) or the position of a fresh tensor broadcastable to the target."""
    rng = p.rng
    if rng.random() < 0.35:
        return None
    shape = tuple(target_shape)
    shape = shape[int(rng.integers(0, len(shape) + 1)):] if shape else shape
    shape = tuple(1 if rng.random() < 0.3 else s for s in shape)
    dtype = _name(v.dtype) if rng.random() < 0.6 else p.float_dtype()
    return p.fresh(shape, dtype)


def _setitem(p):
    x = p.pick()
    v = p.values[x]
    items = _draw_index(p.rng, tuple(v.shape))
    if p.sized and any(i[0] in ("mask", "bool") for i in items):
        return None
    target = _checked(v, items)
    if target is None:
        return None
    value = _value(p, v, target.shape)
    describe = f"x{_describe(items)} ="
    if value is None:
        scalar = SCALARS[int(p.rng.integers(len(SCALARS)))]

        def write(m, x):
            y = x.clone()
            y[_build(m, items, False)] = scalar
            return y
        return f"{describe} {scalar!r}", write, [x]
    if not _distinct(target):
        return None

    def write_tensor(m, x, value):
        y = x.clone()
        y[_build(m, items, False)] = value
        return y
    return f"{describe} tensor", write_tensor, [x, value]


def _index_put(p):
    rng = p.rng
    x = p.pick()
    v = p.values[x]
    if v.ndim == 0 or 0 in v.shape:
        return None
    shape = tuple(v.shape)
    n = int(rng.integers(1, v.ndim + 1))
    broadcast = tuple(int(s) for s in rng.integers(1, 4, int(rng.integers(1, 3))))
    if rng.random() < 0.2:
        arrays = [rng.random(shape[:n]) < 0.5]
    else:
        arrays = [rng.integers(-shape[d], shape[d], broadcast) for d in range(n)]
    accumulate = bool(rng.integers(2))
    indices = tuple(torch.tensor(a) for a in arrays)
    target = _positions(v, indices)
    value = _value(p, v, target.shape)
    if value is None:
        value = p.fresh((), _name(v.dtype))
    elif not accumulate and not _distinct(target):
        return None

    def put(m, x, value):
        y = x.clone()
        return y.index_put_(tuple(m.tensor(a) for a in arrays), value, accumulate=accumulate)
    return f"index_put_ accumulate={accumulate} {[a.tolist() for a in arrays]}", put, [x, value]


def _index_dim(p):
    """index_add / index_copy / index_fill, in place into a clone or out of place."""
    rng = p.rng
    x = p.pick()
    v = p.values[x]
    if v.ndim == 0 and rng.random() < 0.7:
        return None
    d = p.dim(v)
    size = v.shape[d] if v.ndim else 1
    form = str(rng.choice(["index_add", "index_copy", "index_fill"]))
    in_place = bool(rng.integers(2))
    count = int(rng.integers(0, 5))
    idx = rng.integers(-size if form == "index_fill" else 0, max(size, 1), count) if size else \
        np.zeros(0, dtype=np.int64)
    name = form + ("_" if in_place else "")

    def apply(m, x, *args):
        y = x.clone() if in_place else x
        return getattr(y, name)(d, m.tensor(idx, dtype=m.int64), *args)
    if form == "index_fill":
        if rng.random() < 0.5:
            fill = SCALARS[int(rng.integers(len(SCALARS)))]
            return f"{name} dim={d} {idx.tolist()} {fill!r}", (
                lambda m, x: apply(m, x, fill)), [x]
        # (torch's backward of index_fill with a tensor value fails on negative indices)
        idx = np.where(idx < 0, idx + size, idx)
        return f"{name} dim={d} {idx.tolist()} 0-d tensor", apply, [x, p.fresh((), _name(
            v.dtype))]
    src = list(v.shape)
    if v.ndim:
        src[d] = count
    if form == "index_copy" and len(set(idx.tolist())) < count:
        return None
    source = p.fresh(tuple(src), _name(v.dtype))
    if form == "index_add" and rng.random() < 0.5:
        alpha = int(rng.choice([2, -1]))
        return f"{name} dim={d} {idx.tolist()} alpha={alpha}", (
            lambda m, x, s: apply(m, x, s, alpha=alpha)), [x, source]
    return f"{name} dim={d} {idx.tolist()}", apply, [x, source]


def _scatter(p):
    rng = p.rng
    x = p.pick()
    v = p.values[x]
    d = p.dim(v)
    size = v.shape[d] if v.ndim else 1
    if size == 0:
        return None
    index_shape = tuple(int(rng.integers(0, s + 1)) for s in v.shape)
    idx = rng.integers(0, size, index_shape)
    form = str(rng.choice(["scatter", "scatter_value", "scatter_add", "scatter_reduce"]))
    in_place = bool(rng.integers(2))
    name = ("scatter_reduce" if form == "scatter_reduce" else
            "scatter_add" if form == "scatter_add" else "scatter") + ("_" if in_place else "")
    ones = torch.zeros(v.shape, dtype=torch.int64).scatter_add(d, torch.tensor(idx), torch.ones(
        index_shape, dtype=torch.int64))
    repeated = bool((ones > 1).any())

    def apply(m, x, *args, **kwargs):
        y = x.clone() if in_place else x
        return getattr(y, name)(d, m.tensor(idx), *args, **kwargs)
    if form == "scatter_value":
        fill = SCALARS[int(rng.integers(len(SCALARS)))]
        return f"{name} dim={d} value={fill!r}", (lambda m, x: apply(m, x, fill)), [x]
    if form == "scatter" and repeated:
        return None
    source = p.fresh(index_shape, _name(v.dtype))
    if form == "scatter_reduce":
        reduce = str(rng.choice(["sum", "prod", "mean", "amax", "amin"]))
        include = bool(rng.integers(2))
        return f"{name} {reduce} include_self={include} dim={d}", (
            lambda m, x, s: apply(m, x, s, reduce, include_self=include)), [x, source]
    return f"{name} dim={d} {idx.tolist()}", apply, [x, source]


def _gather(p):
    rng = p.rng
    x = p.pick()
    v = p.values[x]
    form = str(rng.choice(["gather", "take", "take_along_dim", "take_along_flat"]))
    if form == "take":
        n = v.numel()
        idx = rng.integers(-n, max(n, 1), tuple(rng.integers(0, 3, int(rng.integers(0, 3)))))
        if n == 0:
            idx = idx.reshape(-1)[:0]
        return f"take {idx.tolist()}", (lambda m, x: m.take(x, m.tensor(idx, dtype=m.int64))), [x]
    if form == "take_along_flat":
        idx = rng.integers(0, max(v.numel(), 1), int(rng.integers(1, 5)))
        return f"take_along_dim flat {idx.tolist()}", (
            lambda m, x: m.take_along_dim(x, m.tensor(idx))), [x]
    d = p.dim(v)
    size = v.shape[d] if v.ndim else 1
    index_shape = list(v.shape)
    if v.ndim:
        index_shape[d] = int(rng.integers(0, 4))
        # (gather's index may be smaller than x in the other dims too)
        index_shape = [s if k == d or rng.random() < 0.7 or form != "gather" else
                       int(rng.integers(1, s + 1)) if s else 0 for k, s in enumerate(index_shape)]
    # (torch's take_along_dim takes negative indices, but its backward fails on them)
    idx = rng.integers(0, max(size, 1), index_shape)
    if form == "gather":
        return f"gather dim={d} {idx.tolist()}", (lambda m, x: m.gather(x, d, m.tensor(idx))), [x]
    return f"take_along_dim dim={d} {idx.tolist()}", (
        lambda m, x: m.take_along_dim(x, m.tensor(idx), dim=d)), [x]


def _masked(p):
    rng = p.rng
    x = p.pick()
    v = p.values[x]
    shape = tuple(v.shape)
    mask_shape = shape[int(rng.integers(0, len(shape) + 1)):] if shape else shape
    mask_shape = tuple(1 if rng.random() < 0.3 else s for s in mask_shape)
    mask = rng.random(mask_shape) < 0.5
    form = str(rng.choice(["masked_fill", "masked_fill_tensor", "masked_scatter",
                           "masked_select", "where"]))
    in_place = bool(rng.integers(2)) and form != "masked_select"

    def apply(m, x, name, *args):
        y = x.clone() if in_place else x
        return getattr(y, name + ("_" if in_place else ""))(m.tensor(mask), *args)
    if form == "masked_fill":
        fill = SCALARS[int(rng.integers(len(SCALARS)))]
        return f"masked_fill {mask.tolist()} {fill!r}", (
            lambda m, x: apply(m, x, "masked_fill", fill)), [x]
    if form == "masked_fill_tensor":
        return f"masked_fill {mask.tolist()} 0-d tensor", (
            lambda m, x, f: apply(m, x, "masked_fill", f)), [x, p.fresh((), _name(v.dtype))]
    if form == "masked_scatter":
        count = int(np.broadcast_to(mask, np.broadcast_shapes(mask.shape, shape)).sum())
        source = p.fresh((count + int(rng.integers(0, 3)),), _name(v.dtype))
        return f"masked_scatter {mask.tolist()}", (
            lambda m, x, s: apply(m, x, "masked_scatter", s)), [x, source]
    if form == "masked_select":
        if p.sized:
            return None
        return f"masked_select {mask.tolist()}", (
            lambda m, x: m.masked_select(x, m.tensor(mask))), [x]
    other = p.partner(v)
    return f"where {mask.tolist()}", (lambda m, x, y: m.where(m.tensor(mask), x, y)), [x, other]


def _narrow_select_unfold(p):
    rng = p.rng
    x = p.pick()
    v = p.values[x]
    d = p.dim(v)
    size = v.shape[d] if v.ndim else 1
    form = str(rng.choice(["narrow", "narrow_tensor", "select", "unfold"]))
    if form == "select":
        i = int(rng.integers(-size, max(size, 1)))
        return f"select dim={d} {i}", (lambda m, x: x.select(d, i)), [x]
    if form == "unfold":
        width, step = int(rng.integers(0, size + 2)), int(rng.integers(1, 3))
        return f"unfold dim={d} size={width} step={step}", (
            lambda m, x: x.unfold(d, width, step)), [x]
    start = int(rng.integers(-size, size + 1))
    length = int(rng.integers(0, size + 1))
    if form == "narrow_tensor":
        return f"narrow dim={d} tensor({start}) {length}", (
            lambda m, x: x.narrow(d, m.tensor(start), length)), [x]
    return f"narrow dim={d} {start} {length}", (lambda m, x: x.narrow(d, start, length)), [x]


FAMILIES = [_unary, _binary, _read, _read, _read, _setitem, _setitem, _setitem, _index_put,
            _index_put, _index_dim, _scatter, _gather, _masked, _narrow_select_unfold]


class Program(mixed_programs.Program):
    """A mixed program drawn over the indexing vocabulary."""

    families = FAMILIES
