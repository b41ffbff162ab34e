"""Indexing against PyTorch on random index expressions that mix integers, slices, None,
Ellipsis, lists, integer tensors and boolean masks: the result's shape and values, writes
through the index, and the gradients of both. PyTorch applies integers as selections before
the index arrays, so `t[1, :, [0, 1]]` keeps the arrays' dimension after the slice's."""
import numpy as np
import pytest

import fluxgrad as fg

torch = pytest.importorskip("torch")

SHAPE = (4, 5, 6, 3)


def _entry(rng, n, unique):
    """One random index entry for a dimension of size n, as (kind, value, dims consumed)."""
    kind = rng.choice(["int", "slice", "list", "array", "column", "mask"])
    if kind == "int":
        return int(rng.integers(-n, n))
    if kind == "slice":
        start, stop = sorted(rng.integers(-n, n + 1, 2).tolist())
        return slice(int(start) if rng.random() < 0.7 else None,
                     int(stop) if rng.random() < 0.7 else None, int(rng.integers(1, 3)))
    size = int(rng.integers(1, min(n, 3) + 1))
    picks = rng.choice(n, size, replace=False) if unique else rng.integers(0, n, size)
    picks = [int(p) - (n if rng.random() < 0.3 else 0) for p in picks]
    if kind == "list":
        return picks
    if kind == "array":
        return np.array(picks)
    if kind == "column":
        return np.array(picks).reshape(-1, 1) if len(picks) > 1 else np.array(picks)
    return rng.random(n) < 0.5


def random_index(rng, unique=False):
    entries, dims = [], list(SHAPE)
    ellipsis_left = rng.random() < 0.3
    while dims:
        r = rng.random()
        if r < 0.1:
            entries.append(None)
            continue
        if ellipsis_left and r < 0.2:
            entries.append(Ellipsis)
            ellipsis_left = False
            dims = dims[int(rng.integers(0, len(dims) + 1)):]
            continue
        if r > 0.9 and len(entries) >= 2 and not any(e is Ellipsis for e in entries):
            break  # the remaining dimensions are taken whole (after an Ellipsis, the
            # entries count from the last dimension, so they must take all the rest)
        entries.append(_entry(rng, dims.pop(0), unique))
    return tuple(entries)


def _for(lib, index):
    def convert(e):
        if isinstance(e, np.ndarray):
            return lib.tensor(e.tolist(), dtype=lib.bool if e.dtype == bool else lib.int64)
        return e
    return tuple(convert(e) for e in index)


def _arrays_fit(index):
    """Whether the index arrays broadcast together (else both libraries refuse it)."""
    shapes = []
    for e in index:
        if isinstance(e, np.ndarray) and e.dtype == bool:
            shapes.append((int(e.sum()),))
        elif isinstance(e, (list, np.ndarray)):
            shapes.append(np.shape(e))
    try:
        np.broadcast_shapes(*shapes)
        return True
    except ValueError:
        return False


def _indices(seed, unique=False):
    rng = np.random.default_rng(seed)
    found = []
    while len(found) < 40:
        index = random_index(rng, unique)
        if _arrays_fit(index):
            found.append(index)
    return found


VALUES = np.random.default_rng(99).standard_normal(SHAPE)


@pytest.mark.parametrize("seed", range(8))
def test_getitem_and_its_gradient_match_torch(seed):
    for index in _indices(seed):
        x = fg.tensor(VALUES, requires_grad=True)
        t = torch.tensor(VALUES, requires_grad=True)
        theirs = t[_for(torch, index)]
        ours = x[_for(fg, index)]
        assert ours.shape == tuple(theirs.shape), index
        np.testing.assert_array_equal(ours.detach().numpy(), theirs.detach().numpy())
        w = np.random.default_rng(seed).standard_normal(tuple(theirs.shape))
        (theirs * torch.tensor(w)).sum().backward()
        (ours * fg.tensor(w)).sum().backward()
        np.testing.assert_allclose(x.grad.detach().numpy(), t.grad.detach().numpy(), rtol=1e-12, err_msg=index)


@pytest.mark.parametrize("seed", range(8))
def test_setitem_and_its_gradients_match_torch(seed):
    rng = np.random.default_rng(100 + seed)
    for index in _indices(seed, unique=True):
        shape = tuple(torch.zeros(SHAPE)[_for(torch, index)].shape)
        # the value as large as the result, or broadcast along its leading dimension
        value_shape = shape[1:] if shape and rng.random() < 0.3 else shape
        value = rng.standard_normal(value_shape)
        results = []
        for lib in (fg, torch):
            x = lib.tensor(VALUES, requires_grad=True)
            v = lib.tensor(value, requires_grad=True)
            y = x * 1
            y[_for(lib, index)] = v
            w = lib.tensor(np.arange(y.numel(), dtype=float).reshape(SHAPE))
            (y * w).sum().backward()
            results.append([y.detach().numpy(), x.grad.detach().numpy(), v.grad.detach().numpy()])
        for ours, theirs in zip(*results):
            np.testing.assert_allclose(ours, theirs, rtol=1e-12, err_msg=str(index))


@pytest.mark.parametrize("index,shape", [
    ((1, slice(None), [0, 1]), (5, 2, 5, 3, 4)),
    ((slice(None), 1, [0, 1]), (2, 2, 5, 3, 4)),
    ((1, slice(None), [0, 1], 0), (5, 2, 3, 4)),
    (([0, 1], slice(None), 1), (2, 5, 5, 3, 4)),
    ((0, Ellipsis, [0, 1]), (5, 6, 5, 3, 2)),
])
def test_integers_next_to_index_arrays_select_first(index, shape):
    t = torch.zeros(2, 5, 6, 5, 3, 4)
    assert tuple(t[index].shape) == shape
    assert fg.zeros(2, 5, 6, 5, 3, 4)[index].shape == shape


def test_mixed_index_inside_vmap_matches_a_loop():
    x = np.random.default_rng(1).standard_normal((3, 2, 5, 4))
    out = fg.func.vmap(lambda e: e[1, :, [0, 2]])(fg.tensor(x))
    expected = np.stack([torch.tensor(e)[1, :, [0, 2]].detach().numpy() for e in x])
    np.testing.assert_array_equal(out.detach().numpy(), expected)
    index = np.array([[0, 1], [3, 2], [1, 1]])
    out = fg.func.vmap(lambda e, i: e[1, :, i])(fg.tensor(x), fg.tensor(index))
    expected = np.stack([torch.tensor(e)[1, :, torch.tensor(i)].detach().numpy()
                         for e, i in zip(x, index)])
    np.testing.assert_array_equal(out.detach().numpy(), expected)
