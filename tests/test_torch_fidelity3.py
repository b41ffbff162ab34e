"""PyTorch fidelity, third round: the generator state as a byte tensor, inference tensors,
as_strided, module forward argument names, indexing corner cases, special functions.

Expected values and behaviour come from torch 2.13 run side by side."""
import inspect

import numpy as np
import pytest

import fluxgrad as fg

torch = pytest.importorskip("torch")


# --- the generator state -----------------------------------------------------------------
def test_rng_state_is_a_uint8_tensor_of_torchs_size():
    ours, theirs = fg.get_rng_state(), torch.get_rng_state()
    assert isinstance(ours, fg.Tensor) and str(ours.dtype) == "fluxgrad.uint8"
    assert tuple(ours.shape) == tuple(theirs.shape)
    assert tuple(fg.random.get_rng_state().shape) == tuple(theirs.shape)


def test_set_rng_state_repeats_the_draws():
    fg.manual_seed(11)
    state = fg.get_rng_state()
    first = fg.randn(5).numpy()
    fg.rand(7)
    fg.set_rng_state(state)
    np.testing.assert_array_equal(fg.randn(5).numpy(), first)
    assert fg.initial_seed() == 11


def test_generator_state_round_trips_and_carries_the_seed():
    g = fg.Generator().manual_seed(3)
    fg.rand(4, generator=g)
    state = g.get_state()
    drawn = fg.rand(6, generator=g).numpy()
    other = fg.Generator().manual_seed(99)
    assert other.set_state(state) is other
    np.testing.assert_array_equal(fg.rand(6, generator=other).numpy(), drawn)
    assert other.initial_seed() == 3


def test_fork_rng_restores_the_state():
    fg.manual_seed(2)
    with fg.random.fork_rng():
        fg.randn(3)
    after = fg.randn(3).numpy()
    fg.manual_seed(2)
    np.testing.assert_array_equal(fg.randn(3).numpy(), after)


@pytest.mark.parametrize("bad, error", [
    (lambda L: L.zeros(3, dtype=L.uint8), RuntimeError),
    (lambda L: L.zeros(5056), TypeError),
    (lambda L: [1, 2], TypeError)])
def test_set_rng_state_refuses_what_torch_refuses(bad, error):
    with pytest.raises(error):
        torch.set_rng_state(bad(torch))
    fg.manual_seed(4)
    state = fg.get_rng_state()
    with pytest.raises(error, match="state"):
        fg.set_rng_state(bad(fg))
    assert fg.equal(fg.get_rng_state(), state)


# --- inference mode -----------------------------------------------------------------------
def test_tensors_made_in_inference_mode_are_inference_tensors():
    for L in (torch, fg):
        outside = L.ones(2)
        with L.inference_mode():
            inside = L.ones(2) * 3
            layer = L.nn.Linear(2, 2)
        assert not outside.is_inference() and inside.is_inference()
        assert layer.weight.is_inference()
        assert inside.view(2, 1).is_inference()  # a view of an inference tensor
        assert not (inside + 1).is_inference() and not inside.clone().is_inference()


@pytest.mark.parametrize("L", [torch, fg], ids=["torch", "fluxgrad"])
def test_inference_mode_false_leaves_inference_mode_and_turns_grad_on(L):
    with L.inference_mode():
        assert L.is_inference_mode_enabled() and not L.is_grad_enabled()
        with L.no_grad(), L.inference_mode(False):
            assert not L.is_inference_mode_enabled() and L.is_grad_enabled()
            assert not L.ones(1).is_inference()
        with L.inference_mode(False), L.inference_mode():
            assert L.is_inference_mode_enabled() and not L.is_grad_enabled()

    @L.inference_mode(False)
    def inside():
        return L.is_inference_mode_enabled(), L.is_grad_enabled()
    with L.inference_mode():
        assert inside() == (False, True)
    assert not L.is_inference_mode_enabled() and L.is_grad_enabled()
