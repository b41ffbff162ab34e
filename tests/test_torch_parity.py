"""Op semantics that other projects' test suites expect from PyTorch: bitwise ops on integer
tensors, integer division by zero, the axis/dim spellings of the reductions. Every expected
value comes from torch."""
import warnings

import numpy as np
import pytest

import fluxgrad as fg

torch = pytest.importorskip("torch")

A = [5, -3, 12, 0x7FFF_FFFF, -(2 ** 31)]
B = [3, 6, -7, 1, -1]


def _same(ours, theirs):
    assert str(theirs.dtype) == f"torch.{ours.dtype.name}", (ours.dtype, theirs.dtype)
    np.testing.assert_array_equal(ours.detach().numpy(), theirs.detach().numpy())


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


# --- axis= and dim= are one call ------------------------------------------------------------
DIM_OPS = [("max", {}), ("min", {}), ("argmax", {}), ("argmin", {}), ("sum", {}), ("mean", {}),
           ("prod", {}), ("amax", {}), ("amin", {}), ("var", {}), ("std", {}),
           ("logsumexp", {}), ("cumsum", {}), ("cumprod", {}), ("sort", {}), ("argsort", {}),
           ("topk", {"k": 2}), ("kthvalue", {"k": 2}), ("softmax", {}), ("log_softmax", {}),
           ("all", {}), ("any", {}), ("count_nonzero", {}), ("norm", {"p": 2}),
           ("unbind", {}), ("squeeze", {}), ("unsqueeze", {}), ("diff", {}),
           ("split", {"split_size": 1}), ("chunk", {"chunks": 2})]


def _flat(result):
    if isinstance(result, (tuple, list)):
        return [r for part in result for r in _flat(part)]
    return [result]


@pytest.mark.parametrize("name,kwargs", DIM_OPS, ids=[n for n, _ in DIM_OPS])
def test_axis_keyword_is_the_dim_keyword(name, kwargs):
    values = np.random.default_rng(0).standard_normal((3, 4))
    x, t = fg.tensor(values), torch.tensor(values)
    theirs = _flat(getattr(t, name)(dim=1, **kwargs))
    for spelling in ("dim", "axis"):
        ours = _flat(getattr(x, name)(**{spelling: 1}, **kwargs))
        assert len(ours) == len(theirs), (spelling, ours, theirs)
        for a, b in zip(ours, theirs):
            assert a.dtype.name == str(b.dtype)[6:] and a.shape == tuple(b.shape), spelling
            np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-12)


@pytest.mark.parametrize("name", ["sum", "mean", "max", "argmax", "logsumexp", "cumsum",
                                  "softmax", "all", "sort", "amax", "prod", "var"])
def test_dim_out_of_range_on_a_0d_tensor_raises_index_error(name):
    with pytest.raises(IndexError):
        getattr(torch.tensor(2.0), name)(1)
    with pytest.raises(IndexError):
        getattr(fg.tensor(2.0), name)(1)
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the variance of one value divides by 0
        np.testing.assert_equal(float(_flat(getattr(fg.tensor(2.0), name)(-1))[0]),
                                float(_flat(getattr(torch.tensor(2.0), name)(-1))[0]))


def test_max_along_a_tuple_of_dims_is_refused_as_torch():
    for lib in (torch, fg):
        with pytest.raises(TypeError):
            lib.ones(2, 3).max(dim=(0, 1))
    with pytest.raises(TypeError, match="amax"):
        fg.ones(2, 3).max(axis=(0, 1))


@pytest.mark.parametrize("dim", [1.0, "1", [0.5]])
def test_a_dim_that_is_not_an_int_names_the_argument(dim):
    with pytest.raises(TypeError, match=r"sum: dim \(axis\) must be an int"):
        fg.ones(2, 3).sum(dim=dim)


# --- derivatives of pow at singular points ---------------------------------------------------
BASES = [0.0, 0.5, 1.0, 2.0, -1.5, -2.0]
EXPONENTS = [-2.0, -1.5, -1.0, 0.0, 0.5, 1.0, 2.0, 3.0]


def _pow_grads(lib, base, exponent):
    """d(base**exponent)/d(base) and /d(exponent), each a tensor or a Python number."""
    x = lib.tensor(base, dtype=lib.float64, requires_grad=True) if isinstance(base, list) \
        else base
    y = lib.tensor(exponent, dtype=lib.float64, requires_grad=True) \
        if isinstance(exponent, list) else exponent
    out = x ** y
    wrt = [v for v in (x, y) if not isinstance(v, float)]
    return [g.detach().numpy() for g in lib.autograd.grad(out.sum(), wrt)]


@pytest.mark.parametrize("case", ["tensor ** tensor", "number ** tensor", "tensor ** number"])
def test_pow_gradients_at_singular_points_match_torch(case):
    xs, ys = np.meshgrid(BASES, EXPONENTS, indexing="ij")
    xs, ys = xs.ravel().tolist(), ys.ravel().tolist()
    if case == "tensor ** tensor":
        pairs = [(xs, ys)]
    elif case == "number ** tensor":
        pairs = [(b, EXPONENTS) for b in BASES if b >= 0]
    else:
        pairs = [(BASES, e) for e in EXPONENTS]
    with np.errstate(all="ignore"):
        for base, exponent in pairs:
            for ours, theirs in zip(_pow_grads(fg, base, exponent),
                                    _pow_grads(torch, base, exponent)):
                np.testing.assert_allclose(ours, theirs, rtol=1e-12, equal_nan=True,
                                           err_msg=f"{base} ** {exponent}")


def test_pow_gradient_of_zero_to_a_negative_power_is_minus_infinity():
    y = fg.tensor([-1.0, -0.5], requires_grad=True)
    with np.errstate(all="ignore"):
        (0.0 ** y).sum().backward()
    assert y.grad.tolist() == [-np.inf, -np.inf]
    x, y = fg.tensor([0.0, 0.0], requires_grad=True), fg.tensor([-2.0, 0.0], requires_grad=True)
    with np.errstate(all="ignore"):
        (x ** y).sum().backward()
    assert y.grad.tolist() == [-np.inf, 0.0] and x.grad.tolist() == [-np.inf, 0.0]


def test_pow_forward_mode_at_singular_points_matches_reverse_mode():
    x = fg.tensor([0.0, 0.0, 0.0, 2.0], dtype=fg.float64)
    y = fg.tensor([-1.0, 0.0, 2.0, -1.0], dtype=fg.float64)
    with np.errstate(all="ignore"):
        _, y_dot = fg.func.jvp(lambda y: x ** y, (y,), (fg.ones_like(y),))
    np.testing.assert_allclose(y_dot.detach().numpy(), [-np.inf, 0.0, 0.0, 0.5 * np.log(2.0)])


# --- linspace ---------------------------------------------------------------------------------
def test_linspace_refuses_bool_as_torch():
    with pytest.raises(NotImplementedError):
        torch.linspace(0, 1, 5, dtype=torch.bool)
    with pytest.raises(NotImplementedError, match="bool"):
        fg.linspace(0, 1, 5, dtype=fg.bool)


@pytest.mark.parametrize("start,end,steps", [(0.0, 1.0, 5), (-3.0, 7.0, 7), (2.0, -1.0, 1),
                                             (0.1, 0.7, 10)])
def test_linspace_with_tensor_ends_gives_torchs_values(start, end, steps):
    ours = fg.linspace(fg.tensor(start), fg.tensor(end), steps)
    theirs = torch.linspace(torch.tensor(start), torch.tensor(end), steps)
    _same(ours, theirs)


def test_linspace_with_tensor_ends_is_differentiable_in_both_modes():
    # out_i = start + (end - start) i / (n - 1): d/dstart = 1 - i/(n-1), d/dend = i/(n-1)
    n = 5
    weights = np.arange(n) / (n - 1)
    start, end = fg.tensor(0.5, requires_grad=True), fg.tensor(2.0, requires_grad=True)
    out = fg.linspace(start, end, n)
    g_start, g_end = fg.autograd.grad(out, [start, end], fg.tensor(np.arange(1.0, n + 1)))
    np.testing.assert_allclose(g_start.item(), np.sum((1 - weights) * np.arange(1, n + 1)),
                               rtol=1e-6)
    np.testing.assert_allclose(g_end.item(), np.sum(weights * np.arange(1, n + 1)), rtol=1e-6)
    _, tangent = fg.func.jvp(lambda s: fg.linspace(s, 1.0, n), (fg.tensor(0.0),),
                             (fg.tensor(1.0),))
    np.testing.assert_allclose(tangent.detach().numpy(), 1 - weights, rtol=1e-6)


# --- einsum's sublist form --------------------------------------------------------------------
@pytest.mark.parametrize("sublists", [
    ([0, 1], [1, 2], [0, 2]), ([0, 1], [1, 2]), ([Ellipsis, 1], [1, 2], [Ellipsis, 2]),
    ([0, 1], [1, 0], []), ([51, 30], [30, 0], [0, 51]),
])
def test_einsum_sublist_form_matches_torch(sublists):
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((2, 3)), rng.standard_normal((3, 2))
    if sublists[1] == [1, 2]:
        b = rng.standard_normal((3, 4))
    results = []
    for lib in (fg, torch):
        x = lib.tensor(a, requires_grad=True)
        y = lib.tensor(b, requires_grad=True)
        args = [x, sublists[0], y, sublists[1]] + list(sublists[2:])
        out = lib.einsum(*args)
        out.sum().backward()
        results.append([out.detach().numpy(), x.grad.detach().numpy(), y.grad.detach().numpy()])
    for ours, theirs in zip(*results):
        np.testing.assert_allclose(ours, theirs, rtol=1e-12)


def test_einsum_sublist_labels_out_of_range_are_refused():
    with pytest.raises(ValueError, match=r"ints in \[0, 52\)"):
        fg.einsum(fg.ones(2), [52])


# --- pad with negative widths -----------------------------------------------------------------
@pytest.mark.parametrize("mode", ["reflect", "replicate", "circular", "constant"])
@pytest.mark.parametrize("widths", [(-1, 2), (2, -1), (-2, 3), (3, -2), (-1, -1), (-4, 1),
                                    (-1, 2, 1, -1), (2, -2, -1, 1)])
def test_pad_with_negative_widths_matches_torch(mode, widths):
    import torch.nn.functional as TF
    values = np.arange(20.0).reshape(1, 4, 5) ** 1.5
    x = fg.tensor(values, requires_grad=True)
    t = torch.tensor(values, requires_grad=True)
    theirs = TF.pad(t, widths, mode=mode)
    ours = fg.nn.functional.pad(x, widths, mode=mode)
    np.testing.assert_array_equal(ours.detach().numpy(), theirs.detach().numpy())
    w = np.random.default_rng(0).standard_normal(tuple(theirs.shape))
    (theirs * torch.tensor(w)).sum().backward()
    (ours * fg.tensor(w)).sum().backward()
    np.testing.assert_allclose(x.grad.detach().numpy(), t.grad.detach().numpy(), rtol=1e-12)


@pytest.mark.parametrize("mode,widths", [("reflect", (-3, -3)), ("replicate", (0, -5)),
                                         ("reflect", (5, -1)), ("constant", (-3, -3))])
def test_pad_that_leaves_nothing_or_reflects_too_far_is_refused_as_torch(mode, widths):
    import torch.nn.functional as TF
    with pytest.raises(RuntimeError):
        TF.pad(torch.ones(1, 1, 5), widths, mode=mode)
    with pytest.raises(RuntimeError, match="pad"):
        fg.nn.functional.pad(fg.ones(1, 1, 5), widths, mode=mode)


# --- view: dtypes and memory layout -----------------------------------------------------------
@pytest.mark.parametrize("source,target", [("float32", "int32"), ("float64", "int32"),
                                           ("float64", "int64"), ("int64", "float32"),
                                           ("int32", "float32"), ("float32", "float64")])
def test_view_as_a_dtype_reinterprets_the_bytes_as_torch(source, target):
    values = [[1.5, -2.0, 3.25, 0.0], [7.0, 1e-3, -1e3, 2.0]]
    x = fg.tensor(values, dtype=getattr(fg, source))
    t = torch.tensor(values, dtype=getattr(torch, source))
    _same(x.view(getattr(fg, target)), t.view(getattr(torch, target)))


def test_view_as_a_dtype_shares_memory():
    x = fg.tensor([1.0, 2.0])
    bits = x.view(fg.int32)
    bits[0] = 0
    assert x.tolist() == [0.0, 2.0]


def test_view_of_a_transpose_that_needs_a_copy_is_refused_as_torch():
    with pytest.raises(RuntimeError):
        torch.ones(2, 3).t().view(6)
    x = fg.ones(2, 3)
    with pytest.raises(RuntimeError, match="reshape"):
        x.t().view(6)
    with pytest.raises(RuntimeError):
        fg.ones(4, 6)[:, :3].view(12)
    assert fg.ones(4, 6)[:, :3].view(2, 2, 3).shape == (2, 2, 3)  # torch allows this one
    assert x.t().reshape(6).shape == (6,) and x.t().contiguous().view(6).shape == (6,)


def test_writes_through_a_view_reach_the_base():
    x = fg.zeros(2, 3)
    x.view(6)[4] = 1.0
    x[:, 1:].view(2, 2)[0, 0] = 2.0
    assert x.tolist() == [[0.0, 2.0, 0.0], [0.0, 1.0, 0.0]]


def test_contiguous_and_is_contiguous_follow_torch():
    for lib in (fg, torch):
        x = lib.ones(2, 3)
        assert x.is_contiguous() and not x.t().is_contiguous()
        assert x.t().contiguous().is_contiguous() and not x[:, ::2].is_contiguous()


# --- new ops: edge cases the registry samples don't reach -------------------------------------
def test_copysign_takes_the_sign_bit_of_zeros_as_torch():
    x = [0.0, -0.0, 1.5, -2.0, 3.0]
    y = [-1.0, 1.0, -0.0, 0.0, -np.inf]
    ours = fg.copysign(fg.tensor(x, requires_grad=True), fg.tensor(y))
    theirs = torch.copysign(torch.tensor(x), torch.tensor(y))
    _same(ours.detach(), theirs)
    assert np.array_equal(np.signbit(ours.detach().numpy()), np.signbit(theirs.detach().numpy()))
    _same(fg.copysign(fg.tensor([1, 2]), -1), torch.copysign(torch.tensor([1, 2]), -1))


def test_sinc_at_zero_is_one_with_zero_gradient():
    x = fg.tensor([0.0, 0.5], requires_grad=True)
    fg.sinc(x).sum().backward()
    t = torch.tensor([0.0, 0.5], requires_grad=True)
    torch.sinc(t).sum().backward()
    np.testing.assert_allclose(x.grad.detach().numpy(), t.grad.detach().numpy(), rtol=1e-6)
    assert fg.sinc(fg.tensor([0, 1])).dtype == fg.float32


@pytest.mark.parametrize("name", ["cummax", "cummin"])
def test_running_extrema_take_the_latest_index_on_ties_as_torch(name):
    values = [1, 3, 3, 2, 5, 5, 0]
    ours = getattr(fg, name)(fg.tensor(values), 0)
    theirs = getattr(torch, name)(torch.tensor(values), 0)
    _same(ours.values, theirs.values)
    _same(ours.indices, theirs.indices)
    ours, theirs = getattr(fg.tensor(2.5), name)(0), getattr(torch.tensor(2.5), name)(0)
    assert ours.values.item() == theirs.values.item() and ours.indices.item() == 0


def test_logcumsumexp_of_extreme_values_matches_torch():
    values = [[-1000.0, 0.0, 1000.0, -np.inf, 5.0], [-np.inf, -np.inf, 1.0, 700.0, -700.0]]
    x = fg.tensor(values, dtype=fg.float64, requires_grad=True)
    t = torch.tensor(values, dtype=torch.float64, requires_grad=True)
    ours, theirs = fg.logcumsumexp(x, 1), torch.logcumsumexp(t, 1)
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=1e-12)
    w = [[1.0, -2.0, 0.5, 3.0, -1.0], [2.0, 1.0, -1.0, 0.5, 4.0]]
    ours.backward(fg.tensor(w, dtype=fg.float64))
    theirs.backward(torch.tensor(w, dtype=torch.float64))
    # where every entry so far is -inf (masked), torch's gradient is nan; fluxgrad's is 0, so
    # that masking with -inf doesn't poison the gradients (a deliberate difference)
    masked = np.isnan(t.grad.detach().numpy())
    assert masked.tolist() == [[False] * 5, [True, True, False, False, False]]
    assert np.all(x.grad.detach().numpy()[masked] == 0)
    np.testing.assert_allclose(x.grad.detach().numpy()[~masked], t.grad.detach().numpy()[~masked], rtol=1e-12)
    assert fg.logcumsumexp(fg.tensor(0.5), 0).item() == 0.5


def test_logcumsumexp_refuses_integers_as_torch():
    with pytest.raises(NotImplementedError):
        torch.logcumsumexp(torch.tensor([1, 2]), 0)
    with pytest.raises(NotImplementedError, match="float"):
        fg.logcumsumexp(fg.tensor([1, 2]), 0)


@pytest.mark.parametrize("args", [(0, 7, 1), (0, 2, 0), (0, -1, 1)])
def test_unfold_with_windows_that_dont_fit_is_refused_as_torch(args):
    with pytest.raises(RuntimeError):
        torch.arange(6.0).unfold(*args)
    with pytest.raises(RuntimeError, match="unfold"):
        fg.arange(6.0).unfold(*args)


def test_gradient_with_too_few_samples_is_refused_as_torch():
    with pytest.raises(RuntimeError):
        torch.gradient(torch.ones(2), edge_order=2)
    with pytest.raises(RuntimeError, match="edge_order"):
        fg.gradient(fg.ones(2), edge_order=2)


# --- scatter_reduce ---------------------------------------------------------------------------
@pytest.mark.parametrize("reduce", ["amax", "amin", "prod", "mean", "sum"])
@pytest.mark.parametrize("include_self", [True, False])
def test_scatter_reduce_with_ties_and_zeros_matches_torch(reduce, include_self):
    x = [[2.0, 0.0, 3.0, 1.0], [4.0, 5.0, 4.0, 0.0]]
    src = [[2.0, 2.0, 0.0], [4.0, 4.0, -1.0]]
    index = [[0, 0, 1], [2, 2, 2]]
    results = []
    for lib in (fg, torch):
        a = lib.tensor(x, dtype=lib.float64, requires_grad=True)
        b = lib.tensor(src, dtype=lib.float64, requires_grad=True)
        out = a.scatter_reduce(1, lib.tensor(index), b, reduce, include_self=include_self)
        out.backward(lib.tensor([[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0]],
                                dtype=lib.float64))
        results.append([out.detach().numpy(), a.grad.detach().numpy(), b.grad.detach().numpy()])
    if reduce in ("amax", "amin") and not include_self:
        # torch counts an entry's own value among the tied extrema even when include_self
        # is False, so the gradient it passes on sums to less than the cotangent (2/3 of it
        # at x[0, 0]); fluxgrad splits it among the values that took part
        results[1][2] = np.array([[0.5, 0.5, 2.0], [3.5, 3.5, 0.0]] if reduce == "amax"
                                 else [[0.5, 0.5, 2.0], [0.0, 0.0, 7.0]])
    for ours, theirs in zip(*results):
        np.testing.assert_allclose(ours, theirs, rtol=1e-12)


def test_scatter_reduce_mean_of_integers_rounds_down_as_torch():
    for include_self in (True, False):
        args = (0, [0, 0, 2], [2, -3, 4], "mean")
        _same(fg.tensor([5, 7, 9]).scatter_reduce(*args[:1], fg.tensor(args[1]),
                                                  fg.tensor(args[2]), args[3],
                                                  include_self=include_self),
              torch.tensor([5, 7, 9]).scatter_reduce(*args[:1], torch.tensor(args[1]),
                                                     torch.tensor(args[2]), args[3],
                                                     include_self=include_self))


def test_scatter_multiply_in_place_and_with_a_number():
    x, index = [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], [[0, 0, 1], [2, 2, 2]]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # torch deprecates reduce= for a tensor src
        expected = torch.tensor(x).scatter(1, torch.tensor(index), 3.0, reduce="multiply")
        expected_ = torch.tensor(x).scatter_(1, torch.tensor(index), torch.full((2, 3), 2.0),
                                             reduce="multiply")
    _same(fg.tensor(x).scatter(1, fg.tensor(index), 3.0, reduce="multiply"), expected)
    ours = fg.tensor(x)
    assert ours.scatter_(1, fg.tensor(index), fg.full((2, 3), 2.0), reduce="multiply") is ours
    _same(ours, expected_)


def test_scatter_reduce_refuses_an_unknown_reduction_as_torch():
    with pytest.raises(RuntimeError):
        torch.zeros(3).scatter_reduce(0, torch.tensor([0]), torch.ones(1), "maximum")
    with pytest.raises(RuntimeError, match="amax"):
        fg.zeros(3).scatter_reduce(0, fg.tensor([0]), fg.ones(1), "maximum")
    _same(fg.zeros(3).scatter_reduce(0, fg.tensor([0]), fg.ones(1), "max"),
          torch.zeros(3).scatter_reduce(0, torch.tensor([0]), torch.ones(1), "max"))


# --- interpolate / Upsample -------------------------------------------------------------------
@pytest.mark.parametrize("kwargs", [
    {"size": (8, 9)}, {"scale_factor": 1.5}, {"scale_factor": (2, 0.5), "mode": "bilinear"},
    {"size": (3, 11), "mode": "bilinear", "align_corners": True},
    {"size": (4, 4), "mode": "bilinear"}, {"scale_factor": 2.3, "mode": "nearest-exact"},
    {"size": (2, 3), "mode": "area"},
    {"scale_factor": 1.7, "mode": "bilinear", "recompute_scale_factor": True},
])
def test_interpolate_matches_torch_in_float32(kwargs):
    import torch.nn.functional as TF
    values = np.random.default_rng(0).standard_normal((2, 3, 5, 7)).astype(np.float32)
    ours = fg.nn.functional.interpolate(fg.tensor(values), **kwargs)
    theirs = TF.interpolate(torch.tensor(values), **kwargs)
    assert ours.dtype == fg.float32 and ours.shape == tuple(theirs.shape)
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("kwargs", [{"scale_factor": 2.3}, {"size": (3, 4)},
                                    {"size": (9, 2), "align_corners": True}])
def test_bicubic_interpolate_matches_torch(kwargs):
    # float32 results of the 16-tap blend differ from PyTorch's (and from the float64 result) by
    # a few 1e-6; float64 ones agree to rounding
    import torch.nn.functional as TF
    values = np.random.default_rng(0).standard_normal((2, 3, 5, 7))
    for dtype, atol in ((np.float32, 1e-5), (np.float64, 1e-12)):
        ours = fg.nn.functional.interpolate(fg.tensor(values.astype(dtype)), mode="bicubic", **kwargs)
        theirs = TF.interpolate(torch.tensor(values.astype(dtype)), mode="bicubic", **kwargs)
        assert str(ours.dtype) == str(theirs.dtype).replace("torch", "fluxgrad")
        np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=0, atol=atol)


def test_upsample_modules_match_torch():
    values = np.random.default_rng(1).standard_normal((1, 2, 3, 4))
    for ours, theirs in [(fg.nn.Upsample(scale_factor=2), torch.nn.Upsample(scale_factor=2)),
                         (fg.nn.Upsample(size=(5, 5), mode="bilinear"),
                          torch.nn.Upsample(size=(5, 5), mode="bilinear")),
                         (fg.nn.UpsamplingBilinear2d(scale_factor=2),
                          torch.nn.UpsamplingBilinear2d(scale_factor=2)),
                         (fg.nn.UpsamplingNearest2d(size=6), torch.nn.UpsamplingNearest2d(size=6))]:
        np.testing.assert_allclose(ours(fg.tensor(values)).detach().numpy(),
                                   theirs(torch.tensor(values)).detach().numpy(), rtol=1e-12)
        assert repr(ours) == repr(theirs)


def test_interpolate_refuses_what_it_cannot_do():
    with pytest.raises(ValueError, match="Anti-alias"):  # as torch
        fg.nn.functional.interpolate(fg.ones(1, 1, 4, 4), size=2, mode="nearest",
                                     antialias=True)
    with pytest.raises(NotImplementedError, match="bicubic"):  # as torch
        fg.nn.functional.interpolate(fg.ones(1, 2, 2), scale_factor=2, mode="bicubic")
    with pytest.raises(ValueError, match="exactly one"):
        fg.nn.functional.interpolate(fg.ones(1, 1, 2, 2))
    with pytest.raises(NotImplementedError, match="bilinear"):  # as torch
        fg.nn.functional.interpolate(fg.ones(1, 2, 2), scale_factor=2, mode="bilinear")


# --- pooling: ceil_mode, indices, unpooling ---------------------------------------------------
@pytest.mark.parametrize("geometry", [(3, 2, 0), (3, 2, 1), (2, 3, 0), (4, 3, 2),
                                      ((3, 2), (2, 3), (1, 0))])
def test_pooling_with_ceil_mode_matches_torch(geometry):
    import torch.nn.functional as TF
    values = np.random.default_rng(0).standard_normal((2, 3, 7, 8)).astype(np.float32)
    for count_include_pad in (True, False):
        _close(fg.nn.functional.avg_pool2d(fg.tensor(values), *geometry, ceil_mode=True,
                                           count_include_pad=count_include_pad),
               TF.avg_pool2d(torch.tensor(values), *geometry, ceil_mode=True,
                             count_include_pad=count_include_pad))
    _close(fg.nn.functional.avg_pool2d(fg.tensor(values), *geometry, ceil_mode=True,
                                       divisor_override=5),
           TF.avg_pool2d(torch.tensor(values), *geometry, ceil_mode=True, divisor_override=5))
    ours, ours_indices = fg.nn.functional.max_pool2d(fg.tensor(values), *geometry,
                                                     ceil_mode=True, return_indices=True)
    theirs, their_indices = TF.max_pool2d(torch.tensor(values), *geometry, ceil_mode=True,
                                          return_indices=True)
    _close(ours, theirs)
    _same(ours_indices, their_indices)


def _close(ours, theirs):
    assert ours.shape == tuple(theirs.shape)
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=1e-6)


def test_max_unpool_inverts_max_pool_as_torch():
    values = np.random.default_rng(2).standard_normal((1, 2, 6, 7))
    pooled, indices = fg.nn.MaxPool2d(2, return_indices=True)(fg.tensor(values))
    t_pooled, t_indices = torch.nn.MaxPool2d(2, return_indices=True)(torch.tensor(values))
    _close(fg.nn.MaxUnpool2d(2)(pooled, indices, output_size=(6, 7)),
           torch.nn.MaxUnpool2d(2)(t_pooled, t_indices, output_size=(6, 7)))
    with pytest.raises(IndexError):
        fg.nn.functional.max_unpool2d(pooled, indices + 100, 2)


# --- 3-d convolution and pooling modules ------------------------------------------------------
def test_3d_modules_with_torchs_weights_match_torch():
    torch.manual_seed(0)
    values = np.random.default_rng(3).standard_normal((2, 4, 5, 6, 5)).astype(np.float32)
    pairs = [(fg.nn.Conv3d(4, 6, 3, stride=2, padding=1), torch.nn.Conv3d(4, 6, 3, stride=2,
                                                                          padding=1)),
             (fg.nn.ConvTranspose3d(4, 2, (2, 3, 2), stride=2),
              torch.nn.ConvTranspose3d(4, 2, (2, 3, 2), stride=2)),
             (fg.nn.AvgPool3d(2, padding=1, count_include_pad=False),
              torch.nn.AvgPool3d(2, padding=1, count_include_pad=False))]
    for ours, theirs in pairs:
        for name, p in theirs.named_parameters():
            getattr(ours, name).data = p.detach().numpy().copy()
        x, t = fg.tensor(values, requires_grad=True), torch.tensor(values, requires_grad=True)
        out, t_out = ours(x), theirs(t)
        np.testing.assert_allclose(out.detach().numpy(), t_out.detach().numpy(), rtol=1e-4,
                                   atol=1e-5)
        out.sum().backward()
        t_out.sum().backward()
        np.testing.assert_allclose(x.grad.detach().numpy(), t.grad.detach().numpy(), rtol=1e-4, atol=1e-5)
