"""Max pooling over windows that hold NaN, against torch: the window's maximum is NaN, and its
index and gradient go to the window's last NaN (torch's kernels take `val > max || isnan(val)`),
for every pooling path (tiled and general 2-d windows, 1-d, 3-d, adaptive)."""
import numpy as np
import pytest

import fluxgrad as fg

torch = pytest.importorskip("torch")

CASES = {
    "max_pool1d": ((2, 2, 7), lambda m, x: m.nn.functional.max_pool1d(x, 3, 2, 1)),
    "max_pool1d_indices": ((2, 2, 8),
                           lambda m, x: m.nn.functional.max_pool1d(x, 2, return_indices=True)),
    "max_pool2d_tiled": ((1, 2, 6, 6),
                         lambda m, x: m.nn.functional.max_pool2d(x, 2, return_indices=True)),
    "max_pool2d_overlapping": ((1, 2, 6, 5),
                               lambda m, x: m.nn.functional.max_pool2d(x, 3, 1, 1)),
    "max_pool3d": ((1, 2, 4, 4, 4), lambda m, x: m.nn.functional.max_pool3d(x, 2)),
    "adaptive_max_pool1d": ((1, 2, 7), lambda m, x: m.nn.functional.adaptive_max_pool1d(
        x, 3, return_indices=True)),
    "adaptive_max_pool2d": ((1, 2, 7, 5),
                            lambda m, x: m.nn.functional.adaptive_max_pool2d(x, 3)),
    "adaptive_max_pool3d": ((1, 2, 5, 5, 5),
                            lambda m, x: m.nn.functional.adaptive_max_pool3d(x, 2)),
}


def _run(module, call, a, g=None):
    x = module.tensor(a, requires_grad=True)
    out = call(module, x)
    values, indices = out if isinstance(out, tuple) else (out, None)
    if g is None:
        g = np.random.default_rng(0).standard_normal(tuple(values.shape))
    (values * module.tensor(g)).sum().backward()
    return values.detach().numpy(), None if indices is None else indices.numpy(), x.grad.numpy()


@pytest.mark.parametrize("name", sorted(CASES))
def test_windows_holding_nan_pool_as_torch(name):
    shape, call = CASES[name]
    rng = np.random.default_rng(sorted(CASES).index(name))
    for _ in range(20):
        a = rng.standard_normal(shape)
        a[rng.random(shape) < 0.2] = np.nan
        a[rng.random(shape) < 0.1] = 0.0  # ties
        got, want = _run(fg, call, a), _run(torch, call, a)
        np.testing.assert_array_equal(got[0], want[0])
        if want[1] is not None:
            np.testing.assert_array_equal(got[1], want[1])
        np.testing.assert_allclose(got[2], want[2], rtol=1e-12, atol=1e-12)
