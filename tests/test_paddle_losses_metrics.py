"""PaddlePaddle's losses and helpers by their Paddle names: `square_error_cost`,
`softmax_with_cross_entropy` (against torch), `metric.Accuracy`, `optimizer.Lamb` (against
its documented update, in NumPy), `amp.auto_cast`, `get_flags` / `set_flags`."""
import warnings

import numpy as np
import pytest
import torch

import fluxgrad as fg
from fluxgrad import nn
from fluxgrad.nn import functional as F

rng = np.random.default_rng(0)


def test_square_error_cost_is_the_elementwise_square_and_differentiates():
    a, b = rng.standard_normal((3, 2)), rng.standard_normal((3, 2))
    x = fg.tensor(a, requires_grad=True)
    out = F.square_error_cost(x, fg.tensor(b))
    np.testing.assert_allclose(out.detach().numpy(), (a - b) ** 2)
    out.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 2 * (a - b))


@pytest.mark.parametrize("axis", [-1, 1])
def test_softmax_with_cross_entropy_hard_labels_keep_the_axis_and_ignore_an_index(axis):
    logits = rng.standard_normal((4, 5, 3))
    classes = logits.shape[axis]
    label = rng.integers(0, classes, size=(4, 5, 3))
    label_shape = list(logits.shape)
    label_shape[axis] = 1
    label = np.take(label, [0], axis=axis)
    label.reshape(-1)[[1, 5]] = -1
    x = fg.tensor(logits, requires_grad=True)
    loss, soft = F.softmax_with_cross_entropy(x, fg.tensor(label), ignore_index=-1, axis=axis,
                                              return_softmax=True)
    assert list(loss.shape) == label_shape
    tx = torch.tensor(logits, requires_grad=True)
    t_axis = axis % 3
    t_logits = tx.movedim(t_axis, 1)
    expected = torch.nn.functional.cross_entropy(
        t_logits, torch.tensor(label).squeeze(t_axis), ignore_index=-1, reduction="none")
    np.testing.assert_allclose(loss.detach().numpy().squeeze(t_axis), expected.detach().numpy(),
                               rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(soft.detach().numpy(), torch.softmax(tx, t_axis).detach().numpy(),
                               rtol=1e-10)
    loss.sum().backward()
    expected.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), rtol=1e-9, atol=1e-12)


def test_softmax_with_cross_entropy_soft_labels():
    logits = rng.standard_normal((4, 6))
    probs = rng.random((4, 6))
    probs /= probs.sum(1, keepdims=True)
    loss = F.softmax_with_cross_entropy(fg.tensor(logits), fg.tensor(probs), soft_label=True)
    expected = torch.nn.functional.cross_entropy(torch.tensor(logits), torch.tensor(probs),
                                                 reduction="none")
    assert list(loss.shape) == [4, 1]
    np.testing.assert_allclose(loss.numpy()[:, 0], expected.numpy(), rtol=1e-10)


def test_softmax_with_cross_entropy_refuses_labels_of_the_wrong_shape():
    with pytest.raises(ValueError, match=r"\[4, 1\]"):
        F.softmax_with_cross_entropy(fg.randn(4, 6), fg.tensor([1, 2, 3, 0]))


def test_accuracy_metric_accumulates_over_batches_for_each_topk():
    m = fg.metric.Accuracy(topk=(1, 2))
    assert m.name() == ["acc_top1", "acc_top2"]
    pred = fg.tensor([[0.1, 0.7, 0.2], [0.5, 0.3, 0.2], [0.1, 0.2, 0.7]])
    correct = m.compute(pred, fg.tensor([[2], [0], [1]]))
    np.testing.assert_array_equal(correct.numpy(), [[0, 1], [1, 0], [0, 1]])
    assert m.update(correct) == pytest.approx([1 / 3, 1.0])
    m.update(m.compute(pred[:1], fg.tensor([1])))  # [N] labels: one more hit at top 1
    assert m.accumulate() == pytest.approx([2 / 4, 4 / 4])
    m.reset()
    assert m.accumulate() == [0.0, 0.0]
    single = fg.metric.Accuracy()
    assert single.name() == ["acc"]
    assert single.update(single.compute(pred, fg.tensor([1, 0, 0]))) == pytest.approx(2 / 3)
    with pytest.raises(ValueError, match="topk"):
        fg.metric.Accuracy(topk=(0,))


def _lamb_reference(w, grads, lr, wd, b1=0.9, b2=0.999, eps=1e-6):
    m = np.zeros_like(w)
    v = np.zeros_like(w)
    for t, g in enumerate(grads, 1):
        m = b1 * m + (1 - b1) * g
        v = b2 * v + (1 - b2) * g * g
        r = (m / (1 - b1 ** t)) / (np.sqrt(v / (1 - b2 ** t)) + eps) + wd * w
        w = w - lr * np.linalg.norm(w) / np.linalg.norm(r) * r
    return w


def test_lamb_follows_its_documented_update():
    layer = nn.Linear(3, 2, dtype=fg.float64)
    w0 = layer.weight.detach().numpy().copy()
    opt = fg.optimizer.Lamb(learning_rate=0.1, lamb_weight_decay=0.05,
                            parameters=[layer.weight])
    grads = []
    for k in range(3):
        opt.clear_grad()
        x = fg.tensor(rng.standard_normal((4, 3)))
        (layer(x) ** 2).sum().backward()
        grads.append(layer.weight.grad.numpy().copy())
        opt.step()
    np.testing.assert_allclose(layer.weight.detach().numpy(), _lamb_reference(w0, grads, 0.1, 0.05),
                               rtol=1e-10)


def test_lamb_excluded_parameters_get_no_decay_and_no_trust_ratio():
    b = nn.Parameter(fg.tensor([1.0, -2.0], dtype=fg.float64))
    opt = fg.optimizer.Lamb(learning_rate=0.1, lamb_weight_decay=0.5, parameters=[b],
                            exclude_from_weight_decay_fn=lambda p: p.ndim == 1)
    b.grad = fg.tensor([0.3, 0.3], dtype=fg.float64)
    opt.step()
    r = 1.0 / (1.0 + 1e-6 / 0.3)  # m_hat / (sqrt(v_hat) + eps) with m_hat = g, v_hat = g^2
    np.testing.assert_allclose(b.detach().numpy(), [1.0 - 0.1 * r, -2.0 - 0.1 * r], rtol=1e-12)


def test_auto_cast_is_autocast_and_checks_its_arguments():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with fg.amp.auto_cast(level="O1", dtype="bfloat16"):
            y = fg.ones(2) @ fg.ones(2)
    assert y.dtype == fg.float32
    with pytest.raises(ValueError, match="level"):
        fg.amp.auto_cast(level="O3")
    model = nn.Linear(2, 2)
    assert fg.amp.decorate(model, level="O2") is model


def test_flags_get_and_set_the_honoured_ones_and_refuse_the_others():
    old = fg.get_flags("FLAGS_cudnn_deterministic")
    try:
        fg.set_flags({"FLAGS_cudnn_deterministic": True})
        assert fg.get_flags(["FLAGS_cudnn_deterministic"]) == {"FLAGS_cudnn_deterministic": True}
        assert fg.are_deterministic_algorithms_enabled()
    finally:
        fg.set_flags(old)
    with pytest.raises(ValueError, match="FLAGS_use_mkldnn"):
        fg.get_flags("FLAGS_use_mkldnn")
    with pytest.raises(ValueError, match="FLAGS_nope"):
        fg.set_flags({"FLAGS_cudnn_deterministic": True, "FLAGS_nope": 1})
    assert fg.get_flags("FLAGS_cudnn_deterministic") == old
