"""nn.utils reparametrizations against PyTorch: weight_norm and spectral_norm (the hook-based
functions and `nn.utils.parametrizations`), and `nn.utils.parametrize` with a custom
parametrization: names, state_dict keys, values and gradients in float64."""
import copy
import warnings

import numpy as np
import pytest

import fluxgrad as fg

torch = pytest.importorskip("torch")

RNG = np.random.default_rng(0)
W, B, X = RNG.standard_normal((4, 3)), RNG.standard_normal(4), RNG.standard_normal((2, 3))
CONV_W = RNG.standard_normal((5, 2, 3, 3))


def _linear(lib):
    m = lib.nn.Linear(3, 4).double()
    with lib.no_grad():
        m.weight.copy_(lib.tensor(W))
        m.bias.copy_(lib.tensor(B))
    return m


def _conv(lib, transposed=False):
    m = (lib.nn.ConvTranspose2d(5, 2, 3, bias=False) if transposed else
         lib.nn.Conv2d(2, 5, 3, bias=False)).double()
    with lib.no_grad():
        m.weight.copy_(lib.tensor(CONV_W))
    return m


def _names(m):
    return [n for n, _ in m.named_parameters()], list(m.state_dict())


@pytest.mark.parametrize("dim", [0, 1, None])
def test_weight_norm_hook_matches_torch(dim):
    results = []
    for lib in (fg, torch):
        with pytest.warns(FutureWarning, match="weight_norm` is deprecated in favor of"):
            m = lib.nn.utils.weight_norm(_linear(lib), dim=dim)
        y = m(lib.tensor(X))
        (y * y).sum().backward()
        results.append((_names(m), y.detach().numpy(), m.weight_g.detach().numpy(),
                        m.weight_g.grad.numpy(), m.weight_v.grad.numpy()))
        lib.nn.utils.remove_weight_norm(m)
        results[-1] += (_names(m), m.weight.detach().numpy())
    ours, theirs = results
    for a, b in zip(ours, theirs):
        if isinstance(a, np.ndarray):
            np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-14)
        else:
            assert a == b


def test_weight_norm_hook_on_a_conv_trains_as_torch():
    results = []
    for lib in (fg, torch):
        m = lib.nn.utils.weight_norm(_conv(lib))
        opt = lib.optim.SGD(m.parameters(), lr=0.1)
        x = lib.tensor(RNG.standard_normal((2, 2, 5, 5)) if lib is fg else results[0][1])
        for _ in range(3):
            opt.zero_grad()
            (m(x) ** 2).mean().backward()
            opt.step()
        results.append((m.weight.detach().numpy(), x.numpy()))
    np.testing.assert_allclose(results[0][0], results[1][0], rtol=1e-10)


def test_weight_norm_twice_on_one_parameter_raises_as_torch():
    for lib in (fg, torch):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", FutureWarning)
            m = lib.nn.utils.weight_norm(_linear(lib))
            with pytest.raises(RuntimeError, match="Cannot register two weight_norm hooks"):
                lib.nn.utils.weight_norm(m)


@pytest.mark.parametrize("dim", [0, 1, None])
def test_parametrizations_weight_norm_matches_torch(dim):
    results = []
    for lib in (fg, torch):
        m = lib.nn.utils.parametrizations.weight_norm(_linear(lib), dim=dim)
        y = m(lib.tensor(X))
        (y * y).sum().backward()
        chain = m.parametrizations.weight
        results.append([type(m).__name__, _names(m), y.detach().numpy(),
                        chain.original0.grad.numpy(), chain.original1.grad.numpy()])
        lib.nn.utils.parametrize.remove_parametrizations(m, "weight")
        results[-1] += [type(m).__name__, _names(m), m.weight.detach().numpy()]
    for a, b in zip(*results):
        if isinstance(a, np.ndarray):
            np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-14)
        else:
            assert a == b


class _Symmetric:
    """A parametrization written for PyTorch: the upper triangle mirrored."""

    @staticmethod
    def make(lib):
        class Symmetric(lib.nn.Module):
            def forward(self, x):
                return x.triu() + x.triu(1).mT

            def right_inverse(self, a):
                return a.triu()
        return Symmetric()


def test_register_parametrization_matches_torch():
    square = RNG.standard_normal((3, 3))
    inputs = RNG.standard_normal((2, 3))
    results = []
    for lib in (fg, torch):
        m = lib.nn.Linear(3, 3).double()
        with lib.no_grad():
            m.weight.copy_(lib.tensor(square))
        original = m.weight
        opt = lib.optim.SGD(m.parameters(), lr=0.1)
        lib.nn.utils.parametrize.register_parametrization(m, "weight", _Symmetric.make(lib))
        assert m.parametrizations.weight.original is original  # the optimizer's parameter
        assert lib.nn.utils.parametrize.is_parametrized(m, "weight")
        assert lib.nn.utils.parametrize.type_before_parametrizations(m) is lib.nn.Linear
        row = [type(m).__name__, _names(m), m.weight.detach().numpy()]
        m(lib.tensor(inputs)).sum().backward()
        opt.step()
        row += [original.detach().numpy().copy(), m.weight.detach().numpy()]
        m.weight = lib.tensor(np.arange(9.0).reshape(3, 3))  # through right_inverse
        row += [m.weight.detach().numpy(), original.detach().numpy().copy()]
        with lib.nn.utils.parametrize.cached():
            row.append(m.weight is m.weight)
        row.append(m.weight is m.weight)
        clone = copy.deepcopy(m)
        row.append(clone.weight.detach().numpy())
        lib.nn.utils.parametrize.remove_parametrizations(m, "weight", leave_parametrized=False)
        row += [type(m).__name__, _names(m), m.weight.detach().numpy()]
        results.append(row)
    for a, b in zip(*results):
        if isinstance(a, np.ndarray):
            np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-14)
        else:
            assert a == b


def test_spectral_norm_parametrization_matches_torch_from_the_same_vectors():
    results = []
    for lib in (fg, torch):
        m = lib.nn.utils.parametrizations.spectral_norm(_conv(lib))
        sn = m.parametrizations.weight[0]
        if lib is torch:  # start both from the same singular-vector estimates
            with torch.no_grad():
                sn._u.copy_(torch.tensor(results[0][0]))
                sn._v.copy_(torch.tensor(results[0][1]))
        row = [sn._u.numpy().copy(), sn._v.numpy().copy(), _names(m)]
        x = lib.tensor(RNG.standard_normal((1, 2, 5, 5)) if lib is fg else results[0][-1])
        y = m(x)  # training: one power-method step, then weight / sigma
        y.sum().backward()
        row += [y.detach().numpy(), m.parametrizations.weight.original.grad.numpy(),
                sn._u.numpy().copy()]
        m.eval()
        row += [m(x).detach().numpy(), x.numpy()]
        results.append(row)
    for a, b in zip(results[0][2:], results[1][2:]):
        if isinstance(a, np.ndarray):
            np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)
        else:
            assert a == b


def test_spectral_norm_parametrization_divides_by_the_largest_singular_value():
    fg.manual_seed(0)
    m = fg.nn.utils.parametrizations.spectral_norm(_linear(fg))
    assert np.linalg.svd(m.weight.detach().numpy(), compute_uv=False)[0] == pytest.approx(
        1.0, rel=1e-6)  # 15 power-method steps on registration
    t = fg.nn.utils.parametrizations.spectral_norm(_conv(fg, transposed=True))
    assert t.parametrizations.weight[0].dim == 1  # as torch, for transposed convolutions


def test_spectral_norm_hook_matches_torch_from_the_same_vectors():
    results = []
    for lib in (fg, torch):
        m = lib.nn.utils.spectral_norm(_linear(lib))
        if lib is torch:
            with torch.no_grad():
                m.weight_u.copy_(torch.tensor(results[0][0]))
                m.weight_v.copy_(torch.tensor(results[0][1]))
        row = [m.weight_u.numpy().copy(), m.weight_v.numpy().copy(), _names(m)]
        y = m(lib.tensor(X))
        y.sum().backward()
        row += [y.detach().numpy(), m.weight_orig.grad.numpy(), m.weight_v.numpy().copy()]
        lib.nn.utils.remove_spectral_norm(m)
        row += [_names(m), m.weight.detach().numpy()]
        results.append(row)
    for a, b in zip(results[0][2:], results[1][2:]):
        if isinstance(a, np.ndarray):
            np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)
        else:
            assert a == b
