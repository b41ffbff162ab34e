"""Behaviour of the ops added to close test_opinfo's gaps (fluxgrad.masked, signal.windows,
fft shifts, fill, nonzero_static, as_strided_scatter, native_batch_norm, histogramdd) beyond
the OpInfo samples: masks that broadcast or mask whole rows, refusals with their messages,
gradients torch gets wrong, and in-place updates."""
import numpy as np
import pytest

import fluxgrad

torch = pytest.importorskip("torch")


def test_masked_sum_ignores_masked_elements_and_their_gradient():
    x = fluxgrad.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
    mask = fluxgrad.tensor([True, False, True])  # broadcasts over the rows
    total = fluxgrad.masked.sum(x, 1, mask=mask)
    np.testing.assert_array_equal(total.detach().numpy(), [4.0, 10.0])
    (g,) = fluxgrad.autograd.grad(total.sum(), x)
    np.testing.assert_array_equal(g.numpy(), [[1.0, 0.0, 1.0], [1.0, 0.0, 1.0]])


def test_fully_masked_rows_give_the_identity_or_nan():
    x = fluxgrad.tensor([[1.0, 2.0], [3.0, 4.0]])
    mask = fluxgrad.tensor([[False, False], [True, False]])
    np.testing.assert_array_equal(fluxgrad.masked.sum(x, 1, mask=mask).numpy(), [0.0, 3.0])
    np.testing.assert_array_equal(fluxgrad.masked.amax(x, 1, mask=mask).numpy(), [-np.inf, 3.0])
    mean = fluxgrad.masked.mean(x, 1, mask=mask).numpy()
    assert np.isnan(mean[0]) and mean[1] == 3.0


def test_masked_mask_with_more_dimensions_is_refused():
    with pytest.raises(IndexError, match="more dimensions"):
        fluxgrad.masked.sum(fluxgrad.ones(3), mask=fluxgrad.ones(2, 3, dtype=fluxgrad.bool))


def test_masked_mean_of_integers_asks_for_a_float_dtype():
    with pytest.raises(ValueError, match="floating point"):
        fluxgrad.masked.mean(fluxgrad.tensor([1, 2, 3]))


def test_window_refuses_negative_length_and_integer_dtype():
    with pytest.raises(ValueError, match="non-negative window length"):
        fluxgrad.signal.windows.hann(-1)
    with pytest.raises(ValueError, match="float32 or float64"):
        fluxgrad.signal.windows.kaiser(4, dtype=fluxgrad.int64)


def test_periodic_window_is_the_symmetric_one_of_length_plus_one_cut():
    periodic = fluxgrad.signal.windows.hann(8, sym=False, dtype=fluxgrad.float64).numpy()
    symmetric = fluxgrad.signal.windows.hann(9, dtype=fluxgrad.float64).numpy()
    np.testing.assert_allclose(periodic, symmetric[:8], atol=1e-15)


@pytest.mark.parametrize("n", [4, 5])
def test_ifftshift_undoes_fftshift(n):
    x = fluxgrad.arange(float(n * 3)).reshape(3, n)
    np.testing.assert_array_equal(fluxgrad.fft.ifftshift(fluxgrad.fft.fftshift(x)).numpy(),
                                  x.numpy())


def test_nonzero_static_pads_and_cuts():
    x = fluxgrad.tensor([0, 3, 0, 7])
    np.testing.assert_array_equal(fluxgrad.nonzero_static(x, size=3, fill_value=-5).numpy(),
                                  [[1], [3], [-5]])
    np.testing.assert_array_equal(fluxgrad.nonzero_static(x, size=1).numpy(), [[1]])


def test_fill_with_a_one_element_vector_is_refused():
    with pytest.raises(RuntimeError, match="0-dimension"):
        fluxgrad.fill(fluxgrad.zeros(3), fluxgrad.tensor([1.0]))


def test_as_strided_scatter_gradient_matches_finite_differences():
    # torch 2.13's gradient for `input` is wrong here (its own gradcheck fails)
    rng = np.random.default_rng(0)
    x = fluxgrad.tensor(rng.standard_normal((3, 3)), requires_grad=True)
    src = fluxgrad.tensor(rng.standard_normal((2, 2)), requires_grad=True)
    assert fluxgrad.autograd.gradcheck(
        lambda a, b: fluxgrad.as_strided_scatter(a, b, (2, 2), (1, 2), 1), (x, src))


def test_native_batch_norm_updates_running_statistics_as_torch():
    x = np.random.default_rng(1).standard_normal((4, 3, 5))
    t_mean, t_var = torch.zeros(3, dtype=torch.float64), torch.ones(3, dtype=torch.float64)
    torch.native_batch_norm(torch.tensor(x), None, None, t_mean, t_var, True, 0.3, 1e-5)
    mean, var = fluxgrad.zeros(3, dtype=fluxgrad.float64), fluxgrad.ones(3, dtype=fluxgrad.float64)
    fluxgrad.native_batch_norm(fluxgrad.tensor(x), None, None, mean, var, True, 0.3, 1e-5)
    np.testing.assert_allclose(mean.numpy(), t_mean.numpy(), rtol=1e-12)
    np.testing.assert_allclose(var.numpy(), t_var.numpy(), rtol=1e-12)


def test_histogramdd_refuses_bins_of_the_wrong_length():
    with pytest.raises(RuntimeError, match="innermost dimension"):
        fluxgrad.histogramdd(fluxgrad.zeros(5, 2), [2, 2, 2])
