"""Op semantics that other projects' test suites expect from PyTorch: bitwise ops on integer
tensors, integer division by zero, the axis/dim spellings of the reductions. Every expected
value comes from torch."""
import numpy as np
import pytest

import fluxgrad as fg

torch = pytest.importorskip("torch")

A = [5, -3, 12, 0x7FFF_FFFF, -(2 ** 31)]
B = [3, 6, -7, 1, -1]


def _same(ours, theirs):
    assert str(theirs.dtype) == f"torch.{ours.dtype.name}", (ours.dtype, theirs.dtype)
    np.testing.assert_array_equal(ours.numpy(), theirs.numpy())


# --- bitwise ops --------------------------------------------------------------------------
@pytest.mark.parametrize("expr", [
    "a & b", "a | b", "a ^ b", "~a", "a << 3", "a >> 2", "0x1337 & a", "3 | a", "3 ^ a",
    "1 << (b % 5).abs()", "a & True", "a << (b + 30)", "a >> (b + 30)", "a >> -1",
    "a.long() << 63", "w & b", "w ^ b", "w & w", "w | w", "~w", "w ^ True", "w << 1",
])
def test_bitwise_operators_match_torch(expr):
    def run(lib, dtype):
        env = {"a": lib.tensor(A, dtype=dtype), "b": lib.tensor(B, dtype=dtype),
               "w": lib.tensor([True, False, True, False, True])}
        return eval(expr, env)
    _same(run(fg, fg.int32), run(torch, torch.int32))


@pytest.mark.parametrize("name", ["bitwise_and", "bitwise_or", "bitwise_xor",
                                  "bitwise_left_shift", "bitwise_right_shift"])
def test_bitwise_functions_match_torch_on_int64(name):
    a, b = [9, -9, 2 ** 40, 7], [1, 2, 3, 70]
    _same(getattr(fg, name)(fg.tensor(a), fg.tensor(b)),
          getattr(torch, name)(torch.tensor(a), torch.tensor(b)))
    _same(getattr(fg.tensor(a), name)(fg.tensor(b)),
          getattr(torch.tensor(a), name)(torch.tensor(b)))


def test_bitwise_not_function_and_method():
    _same(fg.bitwise_not(fg.tensor(A)), torch.bitwise_not(torch.tensor(A)))
    _same(fg.tensor([True, False]).bitwise_not(), torch.tensor([True, False]).bitwise_not())


@pytest.mark.parametrize("expr", ["x & y", "x | 1", "x ^ y", "x << 1", "3 >> x"])
def test_bitwise_ops_refuse_floats_as_torch(expr):
    for lib in (torch, fg):
        with pytest.raises(NotImplementedError):
            eval(expr, {"x": lib.tensor([1.0, 2.0]), "y": lib.tensor([1, 2])})


def test_invert_refuses_floats_as_torch():
    for lib in (torch, fg):
        with pytest.raises(TypeError):
            ~lib.tensor([1.0])


# --- integer division by zero -------------------------------------------------------------
@pytest.mark.parametrize("expr", [
    "a // 0", "a % 0", "a // b", "a % b", "b.fmod(0)", "a.div(b, rounding_mode='floor')",
    "a.div(b, rounding_mode='trunc')", "7 // b", "7 % b",
])
def test_integer_division_by_zero_raises_as_torch(expr):
    def run(lib):
        return eval(expr, {"a": lib.tensor([3, -4]), "b": lib.tensor([2, 0])})
    with pytest.raises(RuntimeError):
        run(torch)
    with pytest.raises(ZeroDivisionError, match="division by zero"):
        run(fg)
    with pytest.raises(RuntimeError):
        run(fg)


@pytest.mark.parametrize("expr", ["a // 0", "a % 0.0", "e // 0", "a.fmod(0.0)"])
def test_float_or_empty_division_by_zero_gives_torchs_values(expr):
    def run(lib):
        return eval(expr, {"a": lib.tensor([3.0, -4.0, 0.0]), "e": lib.tensor([], dtype=lib.long)})
    with np.errstate(all="ignore"):
        _same(run(fg), run(torch))
