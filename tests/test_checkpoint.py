"""utils.checkpoint: values and gradients as torch's non-reentrant checkpoint gives them, in
every mode (backward, grad, second order, jvp, vmap), dropout replayed, and no inner graph
kept."""
import numpy as np
import pytest
import torch
import torch.utils.checkpoint as tc

import fluxgrad as fg
from fluxgrad.func import grad as fgrad, jvp, vmap
from fluxgrad.utils.checkpoint import checkpoint, checkpoint_sequential

RNG = np.random.default_rng(0)
W, X, V = RNG.standard_normal((4, 4)), RNG.standard_normal((3, 4)), RNG.standard_normal((3, 4))


def segment(lib, w):
    """A closure over w: the checkpoint must find w itself."""
    return lambda h: lib.tanh(h @ w).sin() * 2


def _pair():
    return (fg.tensor(W, requires_grad=True), fg.tensor(X, requires_grad=True),
            torch.tensor(W, requires_grad=True), torch.tensor(X, requires_grad=True))


def test_backward_matches_torch_for_inputs_and_captured_leaves():
    w, x, tw, tx = _pair()
    out = checkpoint(segment(fg, w), x * 3)
    expected = tc.checkpoint(segment(torch, tw), tx * 3, use_reentrant=False)
    out.sum().backward()
    expected.sum().backward()
    np.testing.assert_allclose(out.detach().numpy(), expected.detach().numpy())
    np.testing.assert_allclose(w.grad.numpy(), tw.grad.numpy())
    np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy())


def test_grad_and_second_order_match_torch():
    w, x, tw, tx = _pair()
    g, = fg.autograd.grad(checkpoint(segment(fg, w), x).sum(), [w], create_graph=True)
    tg, = torch.autograd.grad(tc.checkpoint(segment(torch, tw), tx, use_reentrant=False).sum(),
                              [tw], create_graph=True)
    np.testing.assert_allclose(g.detach().numpy(), tg.detach().numpy())
    h, = fg.autograd.grad((g ** 2).sum(), [x])
    th, = torch.autograd.grad((tg ** 2).sum(), [tx])
    np.testing.assert_allclose(h.numpy(), th.numpy())


def test_forward_mode_matches_torch():
    f = segment(fg, fg.tensor(W))
    _, out_dot = jvp(lambda x: checkpoint(f, x), (fg.tensor(X),), (fg.tensor(V),))
    _, expected = torch.func.jvp(segment(torch, torch.tensor(W)), (torch.tensor(X),),
                                 (torch.tensor(V),))
    np.testing.assert_allclose(out_dot.numpy(), expected.numpy())


def test_vmap_and_per_example_gradients():
    f = segment(fg, fg.tensor(W))
    out = vmap(lambda row: checkpoint(f, row))(fg.tensor(X))
    np.testing.assert_allclose(out.numpy(), segment(torch, torch.tensor(W))(torch.tensor(X)))
    per_example = vmap(fgrad(lambda row: checkpoint(f, row).sum()))(fg.tensor(X))
    expected = torch.func.vmap(torch.func.grad(
        lambda row: segment(torch, torch.tensor(W))(row).sum()))(torch.tensor(X))
    np.testing.assert_allclose(per_example.numpy(), expected.numpy())


def test_dropout_mask_is_replayed_in_backward():
    model = fg.nn.Sequential(fg.nn.Linear(4, 8), fg.nn.Dropout(0.5), fg.nn.Linear(8, 1)).double()
    fg.manual_seed(0)
    checkpoint(model, fg.tensor(X)).sum().backward()
    recomputed = model[0].weight.grad.numpy().copy()
    model.zero_grad()
    fg.manual_seed(0)
    model(fg.tensor(X)).sum().backward()
    np.testing.assert_allclose(recomputed, model[0].weight.grad.numpy())


def test_the_segment_keeps_no_inner_graph_and_runs_again_in_backward():
    calls = []
    w = fg.tensor(W, requires_grad=True)

    def f(h):
        calls.append(1)
        return (h @ w).tanh().exp().sum(1)
    out = checkpoint(f, fg.tensor(X, requires_grad=True))
    node = out.grad_fn
    # one node whose edges go straight to x and to the captured w
    assert [type(n).__name__ for n, _ in node.next_functions if n is not None] == \
        ["AccumulateGrad"] * 2
    assert len(calls) == 2
    out.sum().backward()
    assert len(calls) == 3 and w.grad is not None


def test_checkpoint_sequential_matches_the_plain_model():
    fg.manual_seed(1)
    model = fg.nn.Sequential(*[fg.nn.Linear(4, 4) for _ in range(5)]).double()
    x = fg.tensor(X, requires_grad=True)
    checkpoint_sequential(model, 2, x).sum().backward()
    grads = [p.grad.numpy().copy() for p in model.parameters()] + [x.grad.numpy().copy()]
    model.zero_grad()
    x.grad = None
    model(x).sum().backward()
    for got, want in zip(grads, [p.grad.numpy() for p in model.parameters()] + [x.grad.numpy()]):
        np.testing.assert_allclose(got, want, rtol=1e-6)


def test_without_grad_it_is_a_plain_call():
    with fg.no_grad():
        out = checkpoint(segment(fg, fg.tensor(W, requires_grad=True)), fg.tensor(X))
    assert out.grad_fn is None


def test_a_non_tensor_result_is_refused():
    with pytest.raises(TypeError, match="tensor or a tuple of tensors"):
        checkpoint(lambda h: h.sum().item(), fg.tensor(X, requires_grad=True))
