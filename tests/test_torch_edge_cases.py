"""Edge cases of the ops, each run in fluxgrad and in PyTorch and compared: the value, dtype
and shape of the result, or the type of the exception (as other projects' op test suites
probe them). Empty and 0-d tensors, dims out of range, type promotion with Python scalars
and 0-d tensors, nan and inf, integer division and powers, and gradients at edge points."""
import math

import numpy as np
import pytest

import fluxgrad as fg

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")

NAN, INF = math.nan, math.inf


def _as_numpy(value):
    if isinstance(value, (torch.Tensor, fg.Tensor)):
        return ("tensor", str(value.dtype).split(".")[-1], tuple(value.shape),
                value.detach().numpy())
    if isinstance(value, (tuple, list)):
        return ("sequence", [_as_numpy(v) for v in value])
    return ("value", value)


def _assert_same(ours, theirs, name):
    assert ours[0] == theirs[0], f"{name}: {ours[0]} vs torch's {theirs[0]}"
    if ours[0] == "sequence":
        assert len(ours[1]) == len(theirs[1]), name
        for a, b in zip(ours[1], theirs[1]):
            _assert_same(a, b, name)
    elif ours[0] == "tensor":
        assert ours[1:3] == theirs[1:3], f"{name}: dtype/shape {ours[1:3]} vs torch's {theirs[1:3]}"
        np.testing.assert_allclose(ours[3].astype(np.float64), theirs[3].astype(np.float64),
                                   rtol=1e-5, atol=1e-6, equal_nan=True, err_msg=name)
    else:
        assert ours[1] == theirs[1], name


def _check_like_torch(name, case):
    try:
        theirs = case(torch)
    except Exception as error:  # noqa: BLE001 - torch's exception type is the expectation
        with pytest.raises(type(error)):
            case(fg)
        return
    _assert_same(_as_numpy(case(fg)), _as_numpy(theirs), name)


def _ones(L, *shape, **kwargs):
    return L.ones(*shape, **kwargs)


# --- reductions: empty tensors, 0-d tensors, dims ------------------------------------------
REDUCTIONS = {}
for _op in ["sum", "mean", "prod", "amax", "amin", "max", "min", "argmax", "argmin", "std",
            "var", "all", "any", "norm", "nansum", "median", "count_nonzero"]:
    for _shape, _dim in [((0,), None), ((0,), 0), ((0,), -1), ((2, 0), None), ((2, 0), 0),
                         ((2, 0), 1), ((0, 3), 0), ((0, 3), -1)]:
        REDUCTIONS[f"{_op} of shape {_shape} dim={_dim}"] = (
            lambda L, op=_op, shape=_shape, dim=_dim:
            getattr(_ones(L, *shape), op)(*(() if dim is None else (dim,))))
    for _dim in [(), (0,), (-1,), (1,)]:
        REDUCTIONS[f"{_op} of a 0-d tensor dim={_dim}"] = (
            lambda L, op=_op, dim=_dim: getattr(L.tensor(2.5), op)(*dim))
    REDUCTIONS[f"{_op} dim out of range"] = lambda L, op=_op: getattr(_ones(L, 2, 3), op)(2)
    REDUCTIONS[f"{_op} dim -3 of 2"] = lambda L, op=_op: getattr(_ones(L, 2, 3), op)(-3)
    if _op != "count_nonzero":  # torch's takes no keepdim
        REDUCTIONS[f"{_op} keepdim"] = (
            lambda L, op=_op: getattr(L.arange(6.).reshape(2, 3), op)(-1, keepdim=True))
    REDUCTIONS[f"{_op} of int64"] = lambda L, op=_op: getattr(L.arange(6).reshape(2, 3), op)(1)
    REDUCTIONS[f"{_op} of bool"] = (
        lambda L, op=_op: getattr(L.tensor([[True, False], [True, True]]), op)(1))
    REDUCTIONS[f"{_op} with nan and inf"] = (
        lambda L, op=_op: getattr(L.tensor([[1., NAN, 3.], [2., -INF, INF]]), op)(1))
    REDUCTIONS[f"{_op} of a strided view"] = (
        lambda L, op=_op: getattr(L.arange(12.).reshape(3, 4).t()[::2], op)(1))
for _op in ["sum", "mean", "amax", "amin", "std", "var", "logsumexp", "norm", "all", "any"]:
    REDUCTIONS[f"{_op} over a dim tuple"] = (
        lambda L, op=_op: getattr(L.arange(24.).reshape(2, 3, 4), op)((0, -1)))
    REDUCTIONS[f"{_op} over a dim tuple, keepdim"] = (
        lambda L, op=_op: getattr(L.arange(24.).reshape(2, 3, 4), op)((0, 2), keepdim=True))
del _op, _shape, _dim


@pytest.mark.parametrize("name", list(REDUCTIONS))
def test_reduction_edge_case_matches_torch(name):
    _check_like_torch(name, REDUCTIONS[name])


# --- nan and inf: extrema, sorting, clamping ------------------------------------------------
def _with_nan(L):
    return L.tensor([[1., NAN, 3., -INF], [2., 0., INF, -1.]])


NAN_CASES = {
    "max": lambda L: _with_nan(L).max(),
    "max along a dim": lambda L: _with_nan(L).max(1),
    "min along a dim": lambda L: _with_nan(L).min(1),
    "amax": lambda L: _with_nan(L).amax(0),
    "argmax": lambda L: _with_nan(L).argmax(1),
    "argmin of all": lambda L: _with_nan(L).argmin(),
    "sort": lambda L: _with_nan(L).sort(1),
    "sort descending": lambda L: _with_nan(L).sort(1, descending=True),
    "argsort descending": lambda L: L.tensor([NAN, 1., NAN, INF]).argsort(descending=True),
    "topk": lambda L: _with_nan(L).topk(2, 1),
    "topk smallest": lambda L: _with_nan(L).topk(2, 1, largest=False),
    "kthvalue": lambda L: _with_nan(L).kthvalue(2, 1),
    "median": lambda L: _with_nan(L).median(1),
    "nanmedian": lambda L: _with_nan(L).nanmedian(1),
    "unique": lambda L: L.unique(L.tensor([1., NAN, 1., NAN, 2.])),
    "unique of an empty tensor": lambda L: L.unique(L.tensor([])),
    "cummax": lambda L: L.cummax(L.tensor([1., NAN, 3., NAN, 0.]), 0),
    "cummin": lambda L: L.cummin(L.tensor([1., NAN, -3., 0.]), 0),
    "clamp": lambda L: L.clamp(_with_nan(L), -1, 1),
    "clamp with min > max": lambda L: L.clamp(L.tensor([0., 5., -5.]), 2, 1),
    "clamp with tensor bounds holding nan": lambda L: L.clamp(
        L.tensor([0., 5., -5.]), L.tensor([1., NAN, 0.]), L.tensor([2., 2., NAN])),
    "clamp of ints by floats": lambda L: L.clamp(L.tensor([0, 5, -5]), 0.5, 2.5),
    "maximum": lambda L: L.maximum(_with_nan(L), L.zeros(2, 4)),
    "fmax": lambda L: L.fmax(_with_nan(L), L.zeros(2, 4)),
    "nan_to_num": lambda L: L.nan_to_num(_with_nan(L)),
    "nan_to_num of float16": lambda L: L.nan_to_num(_with_nan(L).half()),
    "nan_to_num with values": lambda L: L.nan_to_num(_with_nan(L), nan=1.5, posinf=9.,
                                                     neginf=-9.),
    "logsumexp of -inf rows": lambda L: L.tensor([[-INF, -INF], [0., -INF]]).logsumexp(1),
    "logsumexp of inf": lambda L: L.tensor([[INF, INF], [INF, -INF]]).logsumexp(1),
    "softmax of a -inf row": lambda L: L.softmax(L.tensor([[-INF, -INF], [0., -INF]]), 1),
    "isclose with equal_nan": lambda L: L.isclose(L.tensor([NAN, 1.]), L.tensor([NAN, 1.]),
                                                  equal_nan=True),
    "median of bool": lambda L: L.tensor([True, False]).median(),
    "argmax of bool": lambda L: L.tensor([True, False]).argmax(),
    "max of bool along a dim": lambda L: L.tensor([[True, False]]).max(1),
    "std of int": lambda L: L.tensor([1, 2]).std(),
    "var of bool": lambda L: L.tensor([True, False]).var(0),
    "norm of int": lambda L: L.tensor([3, 4]).norm(),
    "norm with negative p of an empty tensor": lambda L: L.ones(0).norm(-1),
}


@pytest.mark.parametrize("name", list(NAN_CASES))
def test_nan_inf_and_dtype_edge_case_matches_torch(name):
    _check_like_torch(name, NAN_CASES[name])
