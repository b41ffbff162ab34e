"""`Tensor.register_post_accumulate_grad_hook`: checked against PyTorch, including the
optimizer-in-backward pattern of PyTorch's docs."""
import numpy as np
import pytest
import torch

import fluxgrad as fg

LIBS = [fg, torch]
IDS = ["fluxgrad", "torch"]


@pytest.mark.parametrize("lib", LIBS, ids=IDS)
def test_hook_sees_the_leaf_after_its_grad_is_accumulated(lib):
    x = lib.ones(2, requires_grad=True)
    seen = []
    x.register_post_accumulate_grad_hook(lambda t: seen.append((t is x, t.grad.tolist())))
    x.register_hook(lambda g: g * 10)  # a tensor hook runs before the accumulation
    (x * 3).sum().backward()
    (x * 1).sum().backward()
    assert seen == [(True, [30.0, 30.0]), (True, [40.0, 40.0])]


@pytest.mark.parametrize("lib", LIBS, ids=IDS)
def test_hook_runs_for_backward_with_inputs_but_not_for_grad(lib):
    x = lib.ones(2, requires_grad=True)
    calls = []
    x.register_post_accumulate_grad_hook(lambda t: calls.append(1))
    lib.autograd.grad((x * 3).sum(), x)
    assert calls == []
    (x * 3).sum().backward(inputs=[x])
    assert calls == [1]


@pytest.mark.parametrize("lib", LIBS, ids=IDS)
def test_removed_hook_is_not_called(lib):
    x = lib.ones(2, requires_grad=True)
    calls = []
    handle = x.register_post_accumulate_grad_hook(lambda t: calls.append(1))
    (x * 3).sum().backward()
    handle.remove()
    (x * 3).sum().backward()
    assert calls == [1]


@pytest.mark.parametrize("lib", LIBS, ids=IDS)
def test_registering_on_a_non_leaf_raises(lib):
    x = lib.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match="non-leaf"):
        (x * 2).register_post_accumulate_grad_hook(lambda t: None)


@pytest.mark.parametrize("lib", LIBS, ids=IDS)
def test_registering_on_a_tensor_without_grad_raises(lib):
    with pytest.raises(RuntimeError, match="doesn't require gradient"):
        lib.ones(2).register_post_accumulate_grad_hook(lambda t: None)


@pytest.mark.parametrize("lib", LIBS, ids=IDS)
def test_hook_returning_a_value_raises(lib):
    x = lib.ones(2, requires_grad=True)
    x.register_post_accumulate_grad_hook(lambda t: t * 2)
    with pytest.raises(RuntimeError, match="should return None"):
        (x * 3).sum().backward()


def _train(lib, in_backward, steps=4):
    rng = np.random.default_rng(0)
    w, b = rng.standard_normal((3, 4)), rng.standard_normal(3)
    data, target = rng.standard_normal((8, 4)), rng.standard_normal((8, 3))
    lib.manual_seed(0)
    model = lib.nn.Linear(4, 3).double()
    with lib.no_grad():
        model.weight.copy_(lib.tensor(w))
        model.bias.copy_(lib.tensor(b))
    if in_backward:
        # PyTorch's docs: "How to save memory by fusing the optimizer step into the backward pass"
        optimizer_dict = {p: lib.optim.Adam([p], lr=0.1, foreach=False)
                          for p in model.parameters()}

        def optimizer_hook(parameter):
            optimizer_dict[parameter].step()
            optimizer_dict[parameter].zero_grad()
        for p in model.parameters():
            p.register_post_accumulate_grad_hook(optimizer_hook)
    else:
        optimizer = lib.optim.Adam(model.parameters(), lr=0.1, foreach=False)
    x, y = lib.tensor(data), lib.tensor(target)
    for _ in range(steps):
        loss = ((model(x) - y) ** 2).mean()
        loss.backward()
        if not in_backward:
            optimizer.step()
            optimizer.zero_grad()
    return [p.detach().numpy().copy() for p in model.parameters()]


def test_optimizer_in_backward_matches_torch_and_a_separate_step():
    ours = _train(fg, in_backward=True)
    for expected in (_train(torch, in_backward=True), _train(fg, in_backward=False)):
        for a, b in zip(ours, expected):
            np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)
