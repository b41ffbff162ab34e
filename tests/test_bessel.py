"""special.bessel_j0/j1/y0/y1 and airy_ai: values against scipy.special (Cephes, to rounding)
when scipy is installed and against torch.special (whose translation of Cephes is off by up to
1e-6) always; derivatives against scipy's jvp/yvp/airy."""
import numpy as np
import pytest

import fluxgrad

torch = pytest.importorskip("torch")

X = np.concatenate([np.linspace(-40.0, 40.0, 4001), [0.0, 1e-7, 5.0, -5.0, 2.09, -2.09]])
NAMES = ["bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1", "airy_ai"]


def ours(name, x):
    return getattr(fluxgrad.special, name)(fluxgrad.tensor(x)).numpy()


@pytest.mark.parametrize("name", NAMES)
def test_values_match_torch_to_its_accuracy(name):
    theirs = getattr(torch.special, name)(torch.tensor(X)).numpy()
    np.testing.assert_allclose(ours(name, X), theirs, rtol=1e-5, atol=4e-6, equal_nan=True)


@pytest.mark.parametrize("name", NAMES)
def test_values_match_cephes_to_rounding(name):
    special = pytest.importorskip("scipy.special")
    reference = {"bessel_j0": special.j0, "bessel_j1": special.j1, "bessel_y0": special.y0,
                 "bessel_y1": special.y1, "airy_ai": lambda x: special.airy(x)[0]}[name](X)
    np.testing.assert_allclose(ours(name, X), reference, rtol=1e-13, atol=1e-14,
                               equal_nan=True)


@pytest.mark.parametrize("name,order", [("bessel_j0", 0), ("bessel_j1", 1), ("bessel_y0", 0),
                                        ("bessel_y1", 1), ("airy_ai", None)])
def test_gradient_matches_scipy_derivative(name, order):
    special = pytest.importorskip("scipy.special")
    x = np.linspace(0.3, 30.0, 200) if name.startswith("bessel_y") else np.linspace(-30, 30, 201)
    t = fluxgrad.tensor(x, requires_grad=True)
    (g,) = fluxgrad.autograd.grad(getattr(fluxgrad.special, name)(t).sum(), t)
    expected = (special.airy(x)[1] if order is None else
                special.yvp(order, x) if name.startswith("bessel_y") else special.jvp(order, x))
    np.testing.assert_allclose(g.numpy(), expected, rtol=1e-10, atol=1e-12)


def test_integer_input_gives_float32():
    out = fluxgrad.special.bessel_j0(fluxgrad.tensor([0, 1, 2]))
    assert out.dtype == fluxgrad.float32
