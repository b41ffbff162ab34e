"""Embedding's scale_grad_by_freq: each row's gradient over how often the batch looks it up."""
import numpy as np
import pytest

import fluxgrad

torch = pytest.importorskip("torch")


def test_scale_grad_by_freq_matches_pytorch():
    weight = np.random.default_rng(0).standard_normal((6, 3)).astype(np.float32)
    idx = [[1, 0, 3], [3, 3, 5]]
    out_bar = np.arange(18.0, dtype=np.float32).reshape(2, 3, 3)
    grads = []
    for m in (fluxgrad, torch):
        w = m.tensor(weight, requires_grad=True)
        out = m.nn.functional.embedding(m.tensor(idx), w, scale_grad_by_freq=True)
        np.testing.assert_array_equal(out.detach().numpy(), weight[np.array(idx)])
        (out * m.tensor(out_bar)).sum().backward()
        grads.append(w.grad.numpy())
    np.testing.assert_allclose(grads[0], grads[1])
    np.testing.assert_allclose(grads[0][3], out_bar[[0, 1, 1], [2, 0, 1]].sum(0) / 3)

