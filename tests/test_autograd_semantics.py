"""Engine semantics as PyTorch's own autograd tests expect them; expected numbers are
PyTorch's (the random-roots test runs the same program in both)."""
import numpy as np
import pytest
import torch

import fluxgrad as fg


# --- an output that is itself one of the inputs ---------------------------------------------
def test_grad_of_an_output_that_is_the_input_adds_its_direct_contribution():
    a = fg.tensor(1.0, requires_grad=True)
    g, = fg.autograd.grad([a, a * 2], [a], grad_outputs=[fg.tensor(3.0), fg.tensor(5.0)])
    assert g.item() == 13.0


def test_grad_of_the_same_input_listed_twice_as_output_sums_both_seeds():
    a = fg.tensor(1.0, requires_grad=True)
    g, = fg.autograd.grad([a, a], [a], grad_outputs=[fg.tensor(3.0), fg.tensor(5.0)])
    assert g.item() == 8.0


def test_backward_with_a_leaf_among_several_roots():
    a = fg.tensor(2.0, requires_grad=True)
    fg.autograd.backward([a, a * a], [fg.tensor(3.0), fg.tensor(5.0)])
    assert a.grad.item() == 3.0 + 5.0 * 4.0


def _program(lib, x, y):
    h = lib.tanh(x * y)
    z = h * x + y
    return h, z, z.sum() * h.sum()


@pytest.mark.parametrize("seed", range(30))
def test_grad_and_backward_with_any_mix_of_roots_match_torch(seed):
    rng = np.random.default_rng(seed)
    xv, yv = rng.standard_normal(3), rng.standard_normal(3)
    x, y = (fg.tensor(v, dtype=fg.float64, requires_grad=True) for v in (xv, yv))
    xt, yt = (torch.tensor(v, dtype=torch.float64, requires_grad=True) for v in (xv, yv))
    ours = dict(zip("xyhzs", (x, y) + _program(fg, x, y)))
    theirs = dict(zip("xyhzs", (xt, yt) + _program(torch, xt, yt)))
    names = list(rng.choice(list("xyhzs"), size=rng.integers(1, 5)))  # repeats allowed
    wrt = sorted(set(rng.choice(list("xyh"), size=rng.integers(1, 3))))
    seeds = [rng.standard_normal(ours[n].shape) for n in names]
    got = fg.autograd.grad([ours[n] for n in names], [ours[n] for n in wrt],
                           [fg.tensor(s, dtype=fg.float64) for s in seeds], allow_unused=True,
                           retain_graph=True)
    want = torch.autograd.grad([theirs[n] for n in names], [theirs[n] for n in wrt],
                               [torch.tensor(s, dtype=torch.float64) for s in seeds],
                               allow_unused=True, retain_graph=True)
    for g, w in zip(got, want):
        assert (g is None) == (w is None)
        if g is not None:
            np.testing.assert_allclose(g.numpy(), w.numpy(), rtol=1e-12, atol=1e-14)
    fg.autograd.backward([ours[n] for n in names], [fg.tensor(s, dtype=fg.float64) for s in seeds])
    torch.autograd.backward([theirs[n] for n in names],
                            [torch.tensor(s, dtype=torch.float64) for s in seeds])
    for leaf, leaf_t in ((x, xt), (y, yt)):
        assert (leaf.grad is None) == (leaf_t.grad is None)
        if leaf.grad is not None:
            np.testing.assert_allclose(leaf.grad.numpy(), leaf_t.grad.numpy(), rtol=1e-12)


# --- grad modes on generator functions ------------------------------------------------------
@pytest.mark.parametrize("mode", ["no_grad", "enable_grad"])
def test_a_grad_mode_decorator_switches_each_resumption_of_a_generator(mode):
    def make(lib):
        @getattr(lib, mode)()
        def gen():
            yield lib.is_grad_enabled()
            yield lib.is_grad_enabled()
        return gen

    def observe(lib):
        outer = mode == "no_grad"
        with lib.set_grad_enabled(outer):
            it = make(lib)()
            first = next(it)
            between = lib.is_grad_enabled()
            second = next(it)
        return first, between, second

    assert observe(fg) == observe(torch) == ((mode != "no_grad"), mode == "no_grad",
                                              (mode != "no_grad"))


def test_a_generator_decorated_with_no_grad_records_nothing():
    x = fg.ones(2, requires_grad=True)

    @fg.no_grad()
    def doubles():
        for _ in range(2):
            yield x * 2

    assert [y.requires_grad for y in doubles()] == [False, False]
    assert fg.is_grad_enabled()


# --- second backward: raise only when a freed buffer is needed ---------------------------
def test_a_second_backward_through_nodes_that_saved_nothing_runs():
    b = fg.ones(2, requires_grad=True)
    o = fg.tensor([1.0, 2.0])
    c = b + 1
    c.backward(o)
    c.backward(o)
    np.testing.assert_array_equal(b.grad.numpy(), [2.0, 4.0])


def test_successive_backward_over_unbind_pieces():
    x = fg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    for piece in x.unbind():
        (piece * 1.0).backward()
    np.testing.assert_array_equal(x.grad.numpy(), [1.0, 1.0, 1.0])


def test_a_second_backward_that_needs_freed_buffers_still_raises():
    x = fg.ones(2, requires_grad=True)
    y = (x * x).sum()
    y.backward()
    with pytest.raises(RuntimeError, match="MulBackward.*retain_graph=True"):
        y.backward()


def test_a_custom_function_that_saved_nothing_runs_twice():
    class Double(fg.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, out_bar):
            return out_bar * 2

    x = fg.ones(2, requires_grad=True)
    y = Double.apply(x).sum()
    y.backward()
    y.backward()
    np.testing.assert_array_equal(x.grad.numpy(), [4.0, 4.0])


# --- in-place after an op whose rules that will run don't read what changed ----------------
@pytest.mark.parametrize("make", [lambda x: x / 2.0, lambda x: 10.0 / x, lambda x: x ** 2.0],
                         ids=["x/2", "10/x", "x**2"])
def test_in_place_on_an_output_no_running_rule_reads(make):
    x, xt = fg.tensor(3.0, requires_grad=True), torch.tensor(3.0, requires_grad=True)
    g, gt = make(x), make(xt)
    g += 1
    gt += 1
    g.backward()
    gt.backward()
    assert x.grad.item() == pytest.approx(xt.grad.item(), rel=1e-6)


def test_in_place_on_the_dividend_when_the_divisor_needs_no_grad():
    x, xt = fg.tensor(3.0, requires_grad=True), torch.tensor(3.0, requires_grad=True)
    f, ft = x * 1, xt * 1
    g, gt = f / 2.0, ft / 2.0
    f += 1
    ft += 1
    g.backward()
    gt.backward()
    assert x.grad.item() == xt.grad.item() == 0.5


def test_in_place_on_an_output_a_running_rule_reads_still_raises():
    x = fg.tensor(3.0, requires_grad=True)
    g = 2.0 ** x
    g += 1
    with pytest.raises(RuntimeError, match="modified by an in-place operation"):
        g.backward()


# --- _version is an int ----------------------------------------------------------------------
def test_version_is_an_int_that_counts_in_place_writes_and_views_share_it():
    x = fg.zeros(3)
    before = x._version
    view = x[1:]
    x.add_(1)
    view.mul_(2)
    assert isinstance(before, int) and before == 0
    assert x._version == view._version == 2


def test_mismatched_grad_output_shape_uses_pytorch_wording():
    y = fg.ones(3, requires_grad=True) * 2
    with pytest.raises(RuntimeError, match=r"Mismatch in shape: grad_output\[0\] has a shape of"):
        fg.autograd.grad([y], [y], [fg.ones(2)])


# --- custom Functions with several outputs, as torch.autograd.Function ----------------------
def _two_outputs(lib, materialize, seen):
    class Two(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x, k):
            ctx.set_materialize_grads(materialize)
            b = x.exp()
            ctx.save_for_backward(b)  # an output
            seen["needs"] = ctx.needs_input_grad
            return x * k, b

        @staticmethod
        def backward(ctx, a_bar, b_bar):
            b, = ctx.saved_tensors
            seen["bars"] = tuple(None if g is None else g.tolist() for g in (a_bar, b_bar))
            x_bar = 0
            if a_bar is not None:
                x_bar = x_bar + a_bar * 3
            if b_bar is not None:
                x_bar = x_bar + b_bar * b
            return x_bar, None
    return Two


@pytest.mark.parametrize("materialize", [True, False])
@pytest.mark.parametrize("used", [0, 1])
def test_function_output_without_gradient_reaches_backward_as_torch_passes_it(materialize,
                                                                               used):
    results = []
    for lib in (fg, torch):
        seen = {}
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        outs = _two_outputs(lib, materialize, seen).apply(x, 3)
        (outs[used] * 2).sum().backward()
        results.append((seen["needs"], seen["bars"], x.grad.tolist()))
    (needs, bars, grad), (t_needs, t_bars, t_grad) = results
    assert needs == t_needs == (True, False)
    assert bars == t_bars  # zeros with materialize_grads (the default), None without
    np.testing.assert_allclose(grad, t_grad, rtol=1e-6)


def test_function_non_differentiable_outputs_get_materialized_zeros_of_their_dtype():
    results = []
    for lib in (fg, torch):
        seen = {}

        class MaxAndIndex(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                index = x.argmax()
                doubled = x * 2
                ctx.mark_non_differentiable(doubled)
                ctx.save_for_backward(index)
                return x.max(), index, doubled

            @staticmethod
            def backward(ctx, value_bar, index_bar, doubled_bar):
                index, = ctx.saved_tensors
                seen["bars"] = [(g.tolist(), str(g.dtype).split(".")[-1])
                                for g in (value_bar, index_bar, doubled_bar)]
                x_bar = lib.zeros(3)
                x_bar[index] = value_bar
                return x_bar
        x = lib.tensor([1.0, 5.0, 2.0], requires_grad=True)
        value, index, doubled = MaxAndIndex.apply(x)
        flags = (value.requires_grad, index.requires_grad, doubled.requires_grad)
        value.backward()
        results.append((flags, seen["bars"], x.grad.tolist()))
    assert results[0] == results[1]
    assert results[0][0] == (True, False, False)


@pytest.mark.parametrize("returned, words", [(1, r"expected 2, got 1"),
                                             (3, r"expected 2, got 3")])
def test_function_backward_returning_a_wrong_number_of_gradients_raises_as_torch(returned,
                                                                                 words):
    for lib in (fg, torch):
        class Mul(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x, y):
                return x * y

            @staticmethod
            def backward(ctx, out_bar):
                return (out_bar,) * returned
        x, y = (lib.tensor([1.0], requires_grad=True) for _ in range(2))
        with pytest.raises(RuntimeError, match="MulBackward returned an incorrect number of "
                                               "gradients \\(" + words):
            Mul.apply(x, y).sum().backward()


def test_function_with_non_tensor_arguments_takes_none_for_them():
    for lib in (fg, torch):
        class Scale(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x, factor, label):
                ctx.factor = factor
                assert ctx.needs_input_grad == (True, False, False)
                return x * factor

            @staticmethod
            def backward(ctx, out_bar):
                return out_bar * ctx.factor, None, None
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        Scale.apply(x, 2.5, "scale").sum().backward()
        assert x.grad.tolist() == [2.5, 2.5]


def test_function_gradient_for_a_non_tensor_argument_raises_as_torch():
    for lib in (fg, torch):
        class Scale(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x, factor):
                return x * factor

            @staticmethod
            def backward(ctx, out_bar):
                return out_bar * 2, lib.ones(1)
        x = lib.tensor([1.0], requires_grad=True)
        with pytest.raises(RuntimeError, match="returned a gradient different than None at "
                                               "position 2, but the corresponding forward input "
                                               "was not a Variable"):
            Scale.apply(x, 2.0).sum().backward()


def test_function_gradient_of_a_wrong_shape_raises_as_torch():
    for lib in (fg, torch):
        class Bad(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2

            @staticmethod
            def backward(ctx, out_bar):
                return lib.ones(5)
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        with pytest.raises(RuntimeError, match=r"BadBackward returned an invalid gradient at "
                                               r"index 0 - got \[5\] but expected shape "
                                               r"compatible with \[2\]"):
            Bad.apply(x).sum().backward()


def test_function_mark_dirty_returns_the_input_rebased_onto_its_node():
    results = []
    for lib in (fg, torch):
        class Double_(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                x.mul_(2)
                ctx.mark_dirty(x)
                return x

            @staticmethod
            def backward(ctx, out_bar):
                return out_bar * 2
        a = lib.tensor([1.0, 3.0], requires_grad=True)
        b = a * a
        c = Double_.apply(b)
        assert c is b and type(c.grad_fn).__name__ == "Double_Backward"
        (c * c).sum().backward()
        results.append(a.grad.tolist())
        leaf = lib.tensor([1.0], requires_grad=True)
        with pytest.raises(RuntimeError, match="a leaf Variable that requires grad has been "
                                               "used in an in-place operation"):
            Double_.apply(leaf)
    np.testing.assert_allclose(results[0], results[1])


def test_function_may_return_a_non_tensor_which_backward_sees_as_none():
    results = []
    for lib in (fg, torch):
        seen = {}

        class WithCount(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2, 5, x * 3

            @staticmethod
            def backward(ctx, a_bar, count_bar, b_bar):
                seen["bars"] = (a_bar.tolist(), count_bar, b_bar.tolist())
                return a_bar * 2 + b_bar * 3
        x = lib.tensor([1.0], requires_grad=True)
        a, count, b = WithCount.apply(x)
        a.sum().backward()
        results.append((count, b.requires_grad, seen["bars"], x.grad.tolist()))
    assert results[0] == results[1] == (5, True, ([1.0], None, [0.0]), [2.0])
