""".grad is a buffer of its own: stored gradients never alias a tensor the user holds, stay
writable for in-place zeroing, clipping and accumulation, and concurrent backward passes
lose no update. Expected numbers come from PyTorch."""
import threading

import numpy as np
import pytest
import torch

import fluxgrad as fg
from fluxgrad.nn.utils import clip_grad_norm_, clip_grad_value_


def test_gradient_of_a_sum_accumulates_over_two_backward_passes():
    x = fg.ones(3, requires_grad=True)
    (x.sum() * 2).backward()
    (x.sum() * 2).backward()
    np.testing.assert_array_equal(x.grad.numpy(), [4.0, 4.0, 4.0])


@pytest.mark.parametrize("make_loss", [lambda x: x.sum(), lambda x: x.mean(),
                                       lambda x: (x * 3.0).sum()],
                         ids=["sum", "mean", "scalar_multiple"])
def test_broadcast_gradients_can_be_zeroed_and_clipped_in_place(make_loss):
    x = fg.ones(4, requires_grad=True)
    make_loss(x).backward()
    x.grad.zero_()
    np.testing.assert_array_equal(x.grad.numpy(), 0.0)
    make_loss(x).backward()
    clip_grad_value_([x], 0.1)
    clip_grad_norm_([x], 0.01)
    assert np.linalg.norm(x.grad.numpy()) <= 0.01 + 1e-7


def test_optimizer_zero_grad_keeping_buffers_after_a_broadcast_gradient():
    w = fg.nn.Parameter(fg.ones(3))
    opt = fg.optim.SGD([w], lr=0.1)
    w.sum().backward()
    opt.zero_grad(set_to_none=False)
    np.testing.assert_array_equal(w.grad.numpy(), 0.0)
    w.mean().backward()
    np.testing.assert_allclose(w.grad.numpy(), 1 / 3)


def test_micro_batch_accumulation_matches_torch():
    rng = np.random.default_rng(0)
    data = rng.standard_normal((4, 3)).astype(np.float32)
    w, tw = fg.ones(3, requires_grad=True), torch.ones(3, requires_grad=True)
    for row in data:
        (fg.tensor(row) * w).mean().backward()
        (torch.tensor(row) * tw).mean().backward()
    np.testing.assert_allclose(w.grad.numpy(), tw.grad.numpy(), rtol=1e-6)


def test_a_tensor_a_hook_returns_is_not_rewritten_by_later_passes():
    kept = fg.tensor([1.0, 2.0, 3.0])
    x = fg.ones(3, requires_grad=True)
    x.register_hook(lambda g: kept)
    for _ in range(3):
        (x * 2).sum().backward()
    np.testing.assert_array_equal(kept.numpy(), [1.0, 2.0, 3.0])
    np.testing.assert_array_equal(x.grad.numpy(), [3.0, 6.0, 9.0])


def test_a_gradient_a_hook_was_shown_is_not_rewritten_by_later_passes():
    seen = []
    x = fg.ones(3, requires_grad=True)
    x.register_hook(lambda g: seen.append(g))
    for _ in range(3):
        (x * 2).sum().backward()
    for g in seen:
        np.testing.assert_array_equal(g.numpy(), [2.0, 2.0, 2.0])
    np.testing.assert_array_equal(x.grad.numpy(), [6.0, 6.0, 6.0])


class _ConstantJacobian(fg.autograd.Function):
    """y = 7 x whose backward returns a Jacobian it keeps (the case of the issue)."""
    jacobian = None

    @staticmethod
    def forward(ctx, x):
        return x * 7.0

    @staticmethod
    def backward(ctx, out_bar):
        return _ConstantJacobian.jacobian


def test_a_custom_backward_returning_a_kept_tensor_gives_the_right_sum():
    _ConstantJacobian.jacobian = fg.tensor(7.0)
    x = fg.tensor(1.0, requires_grad=True)
    for _ in range(3):
        _ConstantJacobian.apply(x).backward()
    assert x.grad.item() == 21.0
    assert _ConstantJacobian.jacobian.item() == 7.0


def test_clipping_the_gradient_leaves_a_kept_constant_alone():
    _ConstantJacobian.jacobian = fg.tensor([7.0, 7.0])
    x = fg.ones(2, requires_grad=True)
    for _ in range(3):
        x.grad = None
        _ConstantJacobian.apply(x).sum().backward()
        clip_grad_norm_([x], 1.0)
    np.testing.assert_array_equal(_ConstantJacobian.jacobian.numpy(), [7.0, 7.0])


def test_a_seed_passed_to_backward_is_not_rewritten():
    seed = fg.tensor([1.0, 2.0])
    x = fg.ones(2, requires_grad=True)
    for _ in range(2):
        x.backward(seed)
    np.testing.assert_array_equal(seed.numpy(), [1.0, 2.0])
    np.testing.assert_array_equal(x.grad.numpy(), [2.0, 4.0])


def test_a_retained_gradient_is_writable_and_not_shared():
    x = fg.ones(3, requires_grad=True)
    y = x + 0.0
    y.retain_grad()
    y.sum().backward()
    y.grad.zero_()
    np.testing.assert_array_equal(x.grad.numpy(), 1.0)


def test_create_graph_gradients_are_not_shared_with_a_hook():
    kept = fg.tensor([2.0, 2.0], requires_grad=True) * 1.0
    x = fg.ones(2, requires_grad=True)
    x.register_hook(lambda g: kept)
    (x * 3).sum().backward(create_graph=True)
    (x * 3).sum().backward(create_graph=True)
    np.testing.assert_array_equal(kept.detach().numpy(), [2.0, 2.0])
    np.testing.assert_array_equal(x.grad.detach().numpy(), [4.0, 4.0])


# --- a property test: random graphs with hooks and Functions returning kept tensors -------
class _Scale(fg.autograd.Function):
    @staticmethod
    def forward(ctx, x, kept):
        ctx.kept = kept
        return x * kept

    @staticmethod
    def backward(ctx, out_bar):
        return ctx.kept, None  # a tensor the caller keeps, returned as it is


class _TorchScale(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, kept):
        ctx.kept = kept
        return x * kept

    @staticmethod
    def backward(ctx, out_bar):
        return ctx.kept, None


def _random_program(rng, n_leaves):
    steps = []
    for _ in range(rng.integers(3, 8)):
        kind = rng.choice(["mul", "add", "tanh", "scale", "hook_kept", "hook_seen", "sum_bcast"])
        steps.append((kind, int(rng.integers(0, n_leaves)),
                      rng.standard_normal(3).round(2)))
    return steps


def _run_program(lib, steps, leaves, kept, seen):
    scale = _Scale if lib is fg else _TorchScale
    values = list(leaves)
    for kind, i, c in steps:
        a = values[-1]
        b = leaves[i]
        if kind == "mul":
            out = a * b
        elif kind == "add":
            out = a + b
        elif kind == "tanh":
            out = lib.tanh(a)
        elif kind == "scale":
            out = scale.apply(a, kept[i])
        elif kind == "sum_bcast":
            out = a + b.sum()
        else:
            out = a * 1.0
            if kind == "hook_kept":
                out.register_hook(lambda g, k=kept[i]: k)
            else:
                out.register_hook(lambda g: seen.append(g))
        values.append(out)
    return values[-1].sum()


@pytest.mark.parametrize("seed", range(25))
def test_random_graphs_keep_user_tensors_unchanged_and_match_torch(seed):
    rng = np.random.default_rng(seed)
    n_leaves = 3
    steps = _random_program(rng, n_leaves)
    start = [rng.standard_normal(3).round(2) for _ in range(n_leaves)]
    consts = [rng.standard_normal(3).round(2) for _ in range(n_leaves)]
    ours = [fg.tensor(v, dtype=fg.float64, requires_grad=True) for v in start]
    theirs = [torch.tensor(v, dtype=torch.float64, requires_grad=True) for v in start]
    kept = [fg.tensor(c, dtype=fg.float64) for c in consts]
    kept_t = [torch.tensor(c, dtype=torch.float64) for c in consts]
    seen, seen_t = [], []
    for _ in range(3):
        _run_program(fg, steps, ours, kept, seen).backward()
        _run_program(torch, steps, theirs, kept_t, seen_t).backward()
    for k, c in zip(kept, consts):
        np.testing.assert_array_equal(k.numpy(), c)
    for g, gt in zip(seen, seen_t):
        np.testing.assert_allclose(g.numpy(), gt.numpy(), rtol=1e-12)
    for x, xt in zip(ours, theirs):
        assert (x.grad is None) == (xt.grad is None)
        if x.grad is not None:
            np.testing.assert_allclose(x.grad.numpy(), xt.grad.numpy(), rtol=1e-12, atol=1e-12)


def test_concurrent_backward_passes_into_one_leaf_lose_no_update():
    size, threads, passes = 200_000, 4, 25
    x = fg.zeros(size, requires_grad=True)
    start = threading.Barrier(threads)

    def work():
        start.wait()
        for _ in range(passes):
            (x * 1.0).sum().backward()

    workers = [threading.Thread(target=work) for _ in range(threads)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    np.testing.assert_array_equal(x.grad.numpy(), threads * passes)


# --- assigning .grad ------------------------------------------------------------------------
def test_assigning_a_float_to_grad_raises_type_error():
    x = fg.ones(3, requires_grad=True)
    with pytest.raises(TypeError, match="Tensor or None but got grad of type float"):
        x.grad = 0.0
    assert x.grad is None


def test_assigning_a_grad_of_another_shape_raises():
    x = fg.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError, match=r"different size.*\[4\].*\[3\]"):
        x.grad = fg.ones(4)
    assert x.grad is None


def test_assigning_a_grad_of_another_dtype_raises():
    x = fg.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="different type.*float64.*float32"):
        x.grad = fg.ones(3, dtype=fg.float64)


def test_an_assigned_grad_is_accumulated_into_as_in_torch():
    x = fg.ones(2, requires_grad=True)
    x.grad = fg.tensor([1.0, 1.0])
    (x * 2).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [3.0, 3.0])


# --- errors on the way ---------------------------------------------------------------------
def test_a_custom_backward_returning_a_string_names_the_function():
    class Bad(fg.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, out_bar):
            return "oops"

    x = fg.ones(2, requires_grad=True)
    with pytest.raises(TypeError, match="Bad.backward returned a str"):
        Bad.apply(x).sum().backward()


@pytest.mark.parametrize("write", [lambda t: t.add_(1), lambda t: t.__setitem__(0, 5.0),
                                   lambda t: t.masked_fill_(t > 0, 2.0)],
                         ids=["add_", "setitem", "masked_fill_"])
def test_writing_in_place_into_an_expanded_tensor_raises_and_changes_nothing(write):
    # PyTorch raises for add_, and writes every alias of an element for the others;
    # fluxgrad refuses them all (fill_ / zero_ excepted: tests/test_fill_broadcast_view.py)
    base = fg.tensor([1.0, 2.0, 3.0])
    view = base.expand(2, 3)
    with pytest.raises(RuntimeError, match="single memory location.*clone"):
        write(view)
    np.testing.assert_array_equal(base.numpy(), [1.0, 2.0, 3.0])


def test_a_linear_layers_weight_gradient_has_the_weights_layout_and_owns_its_memory():
    layer = fg.nn.Linear(5, 3)
    x = fg.randn(4, 5)  # needs no gradient: x @ W.T's node keeps W.T's layout
    layer(x).sum().backward()
    for p in (layer.weight, layer.bias):
        data = p.grad._data
        assert data.flags.c_contiguous and data.base is None and data.flags.writeable
    np.testing.assert_allclose(layer.weight.grad.numpy(), np.tile(x.numpy().sum(0), (3, 1)),
                               rtol=1e-6)


def test_a_gradient_a_hook_has_seen_through_a_view_is_copied_into_grad():
    w = fg.randn(3, 4, requires_grad=True)
    x = fg.randn(2, 4)
    w_t = w.T
    seen = []
    w_t.register_hook(lambda g: seen.append((g, g.numpy().copy())))
    (x @ w_t).sum().backward()
    w.grad += 1
    kept, values = seen[0]
    np.testing.assert_array_equal(kept.numpy(), values)
