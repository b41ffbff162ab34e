"""PaddlePaddle's optimizer.Lamb in a static program's minimize: the update formula of
lamb.py's docstring, checked against the same formula in NumPy over two steps."""
import numpy as np
import pytest

import fluxgrad as fg
from fluxgrad import static
from fluxgrad.nn import initializer as I

from static_programs import build_program

W0 = np.array([[1.0, -2.0], [0.5, -0.25], [0.0, 3.0]], np.float32)
X = np.random.default_rng(0).standard_normal((4, 3)).astype(np.float32)
LR, WD, B1, B2, EPS = 0.1, 0.01, 0.9, 0.999, 1e-6


def _lamb_steps(w, grad_of, steps, decay=WD, adapt=True):
    m, v = np.zeros_like(w), np.zeros_like(w)
    for t in range(1, steps + 1):
        g = grad_of(w)
        m, v = B1 * m + (1 - B1) * g, B2 * v + (1 - B2) * g * g
        r = (m / (1 - B1 ** t)) / (np.sqrt(v / (1 - B2 ** t)) + EPS) + decay * w
        ratio = np.linalg.norm(w) / np.linalg.norm(r) if adapt else 1.0
        w = w - LR * ratio * r
    return w


@pytest.mark.parametrize("excluded", [False, True])
def test_static_lamb_minimize_follows_the_lamb_formula(scoped, excluded):
    def build():
        x = static.data("x", [4, 3], "float32")
        y = static.nn.fc(x, 2, weight_attr=fg.ParamAttr(name="w", initializer=I.Assign(W0)),
                         bias_attr=False)
        loss = fg.mean(y * y)
        fg.optimizer.Lamb(learning_rate=LR, lamb_weight_decay=WD, beta1=B1, beta2=B2,
                          epsilon=EPS, exclude_from_weight_decay_fn=(
                              (lambda p: True) if excluded else None)).minimize(loss)
        return x, loss
    main, startup, _ = build_program(build)
    exe = static.Executor()
    exe.run(startup)
    for _ in range(2):
        exe.run(main, feed={"x": X}, fetch_list=[])

    def grad_of(w):  # d mean((x w)^2) / dw
        return 2 * X.T @ (X @ w) / (X.shape[0] * w.shape[1])
    want = _lamb_steps(W0.astype(np.float64), grad_of, 2, decay=0.0 if excluded else WD,
                       adapt=not excluded)
    np.testing.assert_allclose(static.global_scope().find_var("w").get_tensor(), want,
                               rtol=2e-5, atol=1e-6)
