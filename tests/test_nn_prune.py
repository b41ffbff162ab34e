"""nn.utils.prune against PyTorch's: the masks each method chooses (given the same weights),
the reparametrization it leaves on the module, iterative pruning, remove, and the random methods'
counts."""
import numpy as np
import pytest

import fluxgrad
import fluxgrad.nn.utils.prune as prune

torch = pytest.importorskip("torch")
import torch.nn.utils.prune as torch_prune  # noqa: E402

WEIGHTS = np.random.default_rng(3).standard_normal((4, 3, 2)).astype(np.float32)


def both(make):
    """The same module in fluxgrad and PyTorch, with WEIGHTS as its weight."""
    out = []
    for m in (fluxgrad, torch):
        module = make(m)
        with m.no_grad():
            module.weight.copy_(m.tensor(WEIGHTS))
        out.append(module)
    return out


def conv(m):
    return m.nn.Conv1d(3, 4, 2)


def assert_same(ours, theirs):
    np.testing.assert_array_equal(ours.detach().numpy(), theirs.detach().numpy())


@pytest.mark.parametrize("steps", [
    [("l1_unstructured", dict(amount=0.3))],
    [("l1_unstructured", dict(amount=5)), ("l1_unstructured", dict(amount=0.5))],
    [("ln_structured", dict(amount=1, n=2, dim=0)), ("l1_unstructured", dict(amount=3))],
    [("l1_unstructured", dict(amount=4)), ("ln_structured", dict(amount=0.5, n=1, dim=1))],
    [("ln_structured", dict(amount=2, n=float("inf"), dim=-1))],
])
def test_pruning_steps_choose_pytorchs_masks(steps):
    ours, theirs = both(conv)
    for name, kwargs in steps:
        getattr(prune, name)(ours, "weight", **kwargs)
        getattr(torch_prune, name)(theirs, "weight", **kwargs)
        assert_same(ours.weight_mask, theirs.weight_mask)
        assert_same(ours.weight, theirs.weight)
    assert [n for n, _ in ours.named_parameters()] == [n for n, _ in theirs.named_parameters()]
    assert list(ours.state_dict()) == list(theirs.state_dict())


def test_pruned_entries_get_no_gradient_and_remove_keeps_the_pruned_values():
    module = conv(fluxgrad)
    prune.l1_unstructured(module, "weight", amount=0.5)
    mask = module.weight_mask.numpy().copy()
    module(fluxgrad.ones(1, 3, 5)).sum().backward()
    assert np.all(module.weight_orig.grad.numpy()[mask == 0] == 0)
    pruned = module.weight.detach().numpy().copy()
    prune.remove(module, "weight")
    assert isinstance(module.weight, fluxgrad.nn.Parameter)
    np.testing.assert_array_equal(module.weight.detach().numpy(), pruned)
    assert [n for n, _ in module.named_buffers()] == [] and not prune.is_pruned(module)


def test_global_unstructured_ranks_all_layers_together():
    ours = [fluxgrad.nn.Linear(4, 3), fluxgrad.nn.Linear(3, 2)]
    theirs = [torch.nn.Linear(4, 3), torch.nn.Linear(3, 2)]
    rng = np.random.default_rng(1)
    for a, b in zip(ours, theirs):
        w = rng.standard_normal(tuple(a.weight.shape)).astype(np.float32)
        with fluxgrad.no_grad():
            a.weight.copy_(fluxgrad.tensor(w))
        with torch.no_grad():
            b.weight.copy_(torch.tensor(w))
    prune.global_unstructured([(m, "weight") for m in ours], prune.L1Unstructured, amount=0.5)
    torch_prune.global_unstructured([(m, "weight") for m in theirs], torch_prune.L1Unstructured,
                                    amount=0.5)
    for a, b in zip(ours, theirs):
        assert_same(a.weight_mask, b.weight_mask)


def test_random_methods_prune_the_asked_counts():
    module = conv(fluxgrad)
    prune.random_unstructured(module, "weight", amount=0.25)
    assert int((module.weight_mask == 0).sum()) == 6
    prune.random_structured(module, "weight", amount=2, dim=0)
    channels = module.weight_mask.sum(dim=(1, 2)).numpy()
    assert (channels == 0).sum() == 2


def test_bad_amounts_raise_like_pytorch():
    with pytest.raises(ValueError, match="float in the range"):
        prune.l1_unstructured(fluxgrad.nn.Linear(2, 2), "weight", amount=1.5)
    with pytest.raises(ValueError, match="smaller than the number"):
        prune.l1_unstructured(fluxgrad.nn.Linear(2, 2), "weight", amount=5)
    module = fluxgrad.nn.Linear(2, 2)
    with pytest.raises(ValueError, match="multidimensional"):
        prune.ln_structured(module, "bias", amount=1, n=2, dim=0)
    assert [n for n, _ in module.named_parameters()] == ["weight", "bias"]
