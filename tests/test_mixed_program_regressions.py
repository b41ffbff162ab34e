"""Disagreements with PyTorch found by the mixed-dtype random programs (tests/mixed_programs.py),
one test each: the smallest program that showed it."""
import warnings

import numpy as np
import pytest

import fluxgrad as fg
from fluxgrad import static
from static_programs import build_program

torch = pytest.importorskip("torch")


@pytest.mark.parametrize("cut", [lambda x: fg.split(x, 2, 0), lambda x: fg.chunk(x, 2),
                                 lambda x: fg.unbind(x), lambda x: fg.tensor_split(x, 3),
                                 lambda x: x.split(1)])
def test_cutting_a_dimension_of_unknown_size_is_refused_while_building(cut):
    # (the pieces were fixed for the stand-in size: chunk(2) of 4 rows gave all 4 and 0)
    def build():
        x = static.data("x", shape=[None, 4], dtype="float64")
        with pytest.raises(ValueError, match="unknown until the static program runs"):
            cut(x)
    build_program(build)


def test_cutting_a_known_dimension_beside_an_unknown_one_runs():
    def build():
        x = static.data("x", shape=[None, 4], dtype="float64")
        return fg.chunk(x, 2, 1)
    main, _, (a, b) = build_program(build)
    feed = np.arange(12.).reshape(3, 4)
    got = static.Executor().run(main, feed={"x": feed}, fetch_list=[a, b])
    want = torch.tensor(feed).chunk(2, 1)
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w.numpy())


@pytest.mark.parametrize("value", [0.25, -0.5, 0.0, 2])
def test_masked_fill_of_a_bool_tensor_with_a_number_fills_its_truth(value):
    # (0.25 was truncated to the int 0 first: False where PyTorch gives True)
    x = np.array([True, False, False])
    mask = np.array([False, True, True])
    want = torch.tensor(x).masked_fill(torch.tensor(mask), value)
    got = fg.tensor(x).masked_fill(fg.tensor(mask), value)
    assert got.dtype == fg.bool
    np.testing.assert_array_equal(got.numpy(), want.numpy())


@pytest.mark.parametrize("op", [lambda m, x: x + 200, lambda m, x: x * 1000, lambda m, x: 300 - x,
                                lambda m, x: x - (-129)])
def test_arithmetic_with_a_python_int_out_of_a_small_int_dtypes_range_wraps_around(op):
    # (NumPy 2 refused it: OverflowError: Python integer 200 out of bounds for int8)
    x = np.array([1, 2, -3], dtype=np.int8)
    want = op(torch, torch.tensor(x))
    got = op(fg, fg.tensor(x))
    assert str(got.dtype).split(".")[-1] == str(want.dtype).split(".")[-1]
    np.testing.assert_array_equal(got.numpy(), want.numpy())


@pytest.mark.parametrize("value", [-2, -255, 255])
@pytest.mark.parametrize("fill", [lambda m, x, v: x.index_fill(0, m.tensor([0, 2]), v),
                                  lambda m, x, v: x.masked_fill(x > 1, v)])
def test_a_fill_into_uint8_wraps_a_negative_around(fill, value):
    x = np.array([1, 2, 3], dtype=np.uint8)
    want = fill(torch, torch.tensor(x), value)
    got = fill(fg, fg.tensor(x), value)
    np.testing.assert_array_equal(got.numpy(), want.numpy())


@pytest.mark.parametrize("value", [200, -200, 255])
@pytest.mark.parametrize("fill", [lambda m, x, v: x.index_fill(0, m.tensor([0, 2]), v),
                                  lambda m, x, v: x.masked_fill(x > 1, v)])
def test_a_fill_past_a_signed_dtypes_range_is_refused(fill, value):
    x = np.array([1, 2, 3], dtype=np.int8)
    with pytest.raises(RuntimeError):
        fill(torch, torch.tensor(x), value)
    with pytest.raises(RuntimeError, match="without overflow"):
        fill(fg, fg.tensor(x), value)


@pytest.mark.parametrize("k", [0, 1])
def test_topk_of_a_0d_tensor_gives_the_element_for_k_0_and_1(k):
    # (k=0 gave an empty 1-d tensor; PyTorch gives the 0-d element and index 0)
    want = torch.topk(torch.tensor(1.5), k)
    got = fg.topk(fg.tensor(1.5), k)
    assert got.values.shape == want.values.shape == ()
    assert got.values.item() == want.values.item()
    assert got.indices.item() == want.indices.item() == 0


@pytest.mark.parametrize("x", [1.5, [1.0, 2.0]])
def test_kthvalue_with_k_0_is_refused(x):
    # (a 1-d tensor failed inside narrow: "start -1 and length 1 fall outside dimension 0")
    with pytest.raises(RuntimeError):
        torch.kthvalue(torch.tensor(x), 0)
    with pytest.raises(RuntimeError, match="kthvalue: k=0 is out of range"):
        fg.kthvalue(fg.tensor(x), 0)


def _dtype_name(t):
    return str(t.dtype).split(".")[-1]


ALPHA_AND_VALUE = [
    # (alpha multiplied before promotion: bool + bool gave int64, float64 + 3 * float32 was
    # rounded to float32 first; addcmul's value promoted uint8 to float32)
    lambda m: m.add(m.tensor([True, False]), m.tensor([True, True]), alpha=3),
    lambda m: m.add(m.tensor([True, False]), True, alpha=3),
    lambda m: m.add(m.tensor([1, 2]), m.tensor([True, False]), alpha=3),
    lambda m: m.add(m.tensor([0.3, 0.9], dtype=m.float64),
                    m.tensor([0.1, 0.7], dtype=m.float32), alpha=3),
    lambda m: m.addcmul(m.tensor([1, 2], dtype=m.uint8), m.tensor([1, 2], dtype=m.uint8),
                        m.tensor(1.5, dtype=m.float64), value=0.5),
    lambda m: m.addcmul(m.tensor([1, 2], dtype=m.uint8), m.tensor([3, 4], dtype=m.uint8),
                        m.tensor([True, False]), value=0.5),
    lambda m: m.addcmul(m.tensor([0.3, 0.9], dtype=m.float64),
                        m.tensor([0.1, 0.7], dtype=m.float32),
                        m.tensor([0.2, 0.6], dtype=m.float32), value=0.1),
]


@pytest.mark.parametrize("op", ALPHA_AND_VALUE)
def test_alpha_and_value_are_applied_in_the_result_dtype(op):
    want, got = op(torch), op(fg)
    assert _dtype_name(got) == _dtype_name(want)
    np.testing.assert_array_equal(got.numpy(), want.numpy())


@pytest.mark.parametrize("op", [lambda m: m.add(m.tensor([1]), m.tensor([2]), alpha=0.5),
                                lambda m: m.addcdiv(m.tensor([1.0]), m.tensor([1]),
                                                    m.tensor([2]))])
def test_integer_operands_refuse_a_float_alpha_and_integer_addcdiv(op):
    with pytest.raises(RuntimeError):
        op(torch)
    with pytest.raises(RuntimeError):
        op(fg)


def test_mT_of_a_0d_tensor_is_the_identity_with_pytorchs_deprecation_warning():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (PyTorch warns once per process)
        want = torch.tensor(1.5).mT
    x = fg.tensor(1.5, requires_grad=True)
    with pytest.warns(UserWarning, match="deprecated on 0-D"):
        got = x.mT
    assert got.shape == want.shape == ()
    assert got.item() == want.item()
    assert fg.grad(got * 2, x)[0].item() == 2
    with pytest.raises(RuntimeError):
        fg.ones(3).mT


@pytest.mark.parametrize("shape, dim", [((0,), 0), ((2, 0), 1), ((0, 3), 0)])
def test_chunk_of_an_empty_dimension_gives_that_many_empty_pieces(shape, dim):
    # (it gave one piece, so glu of an empty dimension failed to unpack two halves)
    want = torch.chunk(torch.zeros(shape), 3, dim)
    got = fg.chunk(fg.zeros(shape), 3, dim)
    assert [tuple(g.shape) for g in got] == [tuple(w.shape) for w in want]
    glu = fg.nn.functional.glu(fg.zeros(shape), dim)
    assert glu.shape == torch.nn.functional.glu(torch.zeros(shape), dim).shape


@pytest.mark.parametrize("alpha", [-1, 2, 0])
@pytest.mark.parametrize("in_place", [False, True])
def test_index_add_into_a_bool_tensor_takes_the_truth_of_alpha(alpha, in_place):
    # (alpha * source was added as an int: True + -1 * True gave False)
    def run(m):
        x = m.tensor([[True, False, False], [False, False, True]])
        source = m.tensor([[True], [True]])
        add = x.index_add_ if in_place else x.index_add
        return add(1, m.tensor([2]), source, alpha=alpha)
    np.testing.assert_array_equal(run(fg).numpy(), run(torch).numpy())


NO_KERNEL = [
    # (fluxgrad computed these; PyTorch has no kernel for the dtype)
    ("abs", lambda m: m.abs(m.tensor([True, False]))),
    ("floor", lambda m: m.floor(m.tensor([True, False]))),
    ("round", lambda m: m.tensor([True]).round()),
    ("frac", lambda m: m.frac(m.tensor([1, -2]))),
    ("lerp", lambda m: m.lerp(m.tensor([1, 2]), m.tensor([3, 4]), 0.5)),
    ("hypot", lambda m: m.hypot(m.tensor([3]), m.tensor([4]))),
    ("softmax", lambda m: m.softmax(m.tensor([1, 2]), 0)),
    ("log_softmax", lambda m: m.nn.functional.log_softmax(m.tensor([True, False]), 0)),
    ("topk", lambda m: m.topk(m.tensor([True, False]), 1)),
    ("kthvalue", lambda m: m.kthvalue(m.tensor([True, False]), 1)),
    ("where", lambda m: m.where(m.tensor([1, 0]), m.tensor([1.0, 2.0]), 0.0)),
    ("relu", lambda m: m.relu(m.tensor([True]))),
    ("matmul", lambda m: m.matmul(m.tensor([[True]]), m.tensor([[False]]))),
    ("matmul", lambda m: m.mm(m.tensor([[True]]), m.tensor([[False]]))),
    ("matmul", lambda m: m.bmm(m.tensor([[[True]]]), m.tensor([[[False]]]))),
    ("matmul", lambda m: m.mv(m.tensor([[True]]), m.tensor([False]))),
    ("matmul", lambda m: m.addmm(m.tensor([[True]]), m.tensor([[True]]), m.tensor([[True]]))),
    ("matmul", lambda m: m.dot(m.tensor([True]), m.tensor([False]))),
    ("vdot", lambda m: m.vdot(m.tensor([True]), m.tensor([False]))),
    ("einsum", lambda m: m.einsum("i,i->", m.tensor([True, True]), m.tensor([False, True]))),
    ("einsum", lambda m: m.tensordot(m.tensor([True, True]), m.tensor([False, True]), 1)),
    ("trace", lambda m: m.trace(m.tensor([[True, False], [False, True]]))),
    ("bincount", lambda m: m.bincount(m.tensor([True, False]))),
    ("searchsorted", lambda m: m.searchsorted(m.tensor([False, True]), m.tensor([True]))),
    ("searchsorted", lambda m: m.bucketize(m.tensor([True]), m.tensor([False, True]))),
    ("trapezoid", lambda m: m.trapezoid(m.tensor([True, False]))),
    ("cumulative_trapezoid", lambda m: m.cumulative_trapezoid(m.tensor([True, False]))),
    ("floor_divide", lambda m: m.tensor([True]) // m.tensor([True])),
    ("remainder", lambda m: m.tensor([True]) % m.tensor([True])),
    ("fmod", lambda m: m.fmod(m.tensor([True]), m.tensor([True]))),
    ("trunc", lambda m: m.div(m.tensor([True]), m.tensor([True]), rounding_mode="trunc")),
    ("logaddexp", lambda m: m.logaddexp(m.tensor([1, 2]), m.tensor([3, 4]))),
    ("logaddexp2", lambda m: m.logaddexp2(m.tensor([True]), m.tensor([False]))),
    ("nextafter", lambda m: m.nextafter(m.tensor([1]), m.tensor([2]))),
    ("gelu", lambda m: m.nn.functional.gelu(m.tensor([1, -2]))),
    ("cdist", lambda m: m.cdist(m.ones(1, 2, 1, dtype=m.int64), m.ones(1, 2, 1, dtype=m.int64))),
    ("addcmul", lambda m: m.addcmul(m.tensor([True]), m.tensor([True]), m.tensor([True]))),
    ("isin", lambda m: m.isin(m.tensor([True]), m.tensor([True]))),
]


@pytest.mark.parametrize("name, op", NO_KERNEL, ids=[n for n, _ in NO_KERNEL])
def test_an_op_without_a_kernel_for_the_dtype_refuses_it_as_pytorch(name, op):
    with pytest.raises(Exception) as theirs:
        op(torch)
    with pytest.raises(type(theirs.value), match=name):
        op(fg)


@pytest.mark.parametrize("op", [lambda m: m.softmax(m.tensor([1, 2]), 0, dtype=m.float64),
                                lambda m: m.kthvalue(m.tensor(True), 1).values,
                                lambda m: m.where(m.tensor([1, 0], dtype=m.uint8), 1.0, 0.0),
                                lambda m: m.floor(m.tensor([3, -2])),
                                lambda m: m.searchsorted(m.tensor([0.0, 1.0]), m.tensor([True])),
                                lambda m: m.outer(m.tensor([True]), m.tensor([False, True])),
                                lambda m: m.relu(m.tensor([-3, 2], dtype=m.uint8)),
                                lambda m: m.matmul(m.tensor([[1, 2]]), m.tensor([[3], [4]])),
                                lambda m: m.einsum("ij->", m.tensor([[True, False], [True, True]])),
                                lambda m: m.einsum("ii->", m.tensor([[True, False], [True, True]])),
                                lambda m: m.einsum("i,j->", m.tensor([True, True]),
                                                   m.tensor([True, False])),
                                lambda m: m.einsum("i,j->ij", m.tensor([True, True]),
                                                   m.tensor([True, False]))])
def test_the_neighbouring_cases_pytorch_accepts_still_run(op):
    # (a bool einsum that sums a label gave a bool, True, where PyTorch counts: int64)
    want, got = op(torch), op(fg)
    assert _dtype_name(got) == _dtype_name(want)
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-15)
