"""Gradient checking: reverse-mode Jacobians against central finite differences, in float64.

`gradcheck(fn, inputs)` builds the full Jacobian of `fn` at `inputs` twice: row
by row from reverse mode (one-hot cotangents) and column by column from central
differences, and compares them element by element. `gradgradcheck` does the same
for the function `(inputs, v) -> vjp(fn, inputs, v)`, i.e. second derivatives.
Inputs that are Tensors with `requires_grad=True` are differentiated (as float64
copies); every other argument is passed through unchanged.
"""
import numpy as np

from .._core.engine import grad
from .._core.tensor import Tensor

__all__ = ["gradcheck", "gradgradcheck", "GradcheckError"]


class GradcheckError(RuntimeError):
    """Raised by gradcheck / gradgradcheck when the Jacobians disagree."""


def gradcheck(fn, inputs, eps=1e-6, atol=1e-5, rtol=1e-3, raise_exception=True):
    """True if `fn`'s reverse-mode Jacobian matches central differences at `inputs`.

    An element passes when |analytical - numerical| <= atol + rtol * |numerical|.
    On failure, raise GradcheckError (or return False with raise_exception=False)
    with the worst element: output index, input index, element, both values.
    """
    inputs, slots = _prepare(inputs, "gradcheck")
    outputs = _float_outputs(fn(*inputs))
    numerical = _numerical_jacobian(fn, inputs, slots, outputs, eps)
    analytical = _analytical_jacobian(outputs, [inputs[i] for i in slots])
    return _compare(numerical, analytical, slots, atol, rtol, raise_exception, "gradcheck")


def gradgradcheck(fn, inputs, grad_outputs=None, eps=1e-6, atol=1e-5, rtol=1e-3,
                  raise_exception=True):
    """gradcheck of the map (inputs, grad_outputs) -> gradients of `fn`'s outputs weighted by them.

    `grad_outputs` defaults to random float64 tensors (fixed seed), one per
    floating output of `fn`. Checks the second derivatives (double backward).
    """
    inputs, slots = _prepare(inputs, "gradgradcheck")
    outputs = _float_outputs(fn(*inputs))
    n_outputs = len(outputs)
    if grad_outputs is None:
        rng = np.random.default_rng(0)
        grad_outputs = [Tensor(rng.standard_normal(o.shape), requires_grad=True)
                        for o in outputs]
    else:
        grad_outputs = [_float64_leaf(g) for g in _tuple(grad_outputs)]
    if len(grad_outputs) != n_outputs:
        raise ValueError(f"gradgradcheck: got {len(grad_outputs)} grad_outputs for {n_outputs} "
                         "floating outputs; pass one per output")
    n = len(inputs)

    def first_derivative(*args):
        xs, vs = args[:n], args[n:]
        diff = [xs[i] for i in slots]
        pairs = [(o, v) for o, v in zip(_float_outputs(fn(*xs)), vs) if o._requires_grad]
        grads = grad([o for o, _ in pairs], diff, grad_outputs=[v for _, v in pairs],
                     create_graph=True, allow_unused=True) if pairs else [None] * len(diff)
        return tuple(Tensor(np.zeros(x.shape)) if g is None else g for x, g in zip(diff, grads))

    return gradcheck(first_derivative, tuple(inputs) + tuple(grad_outputs), eps=eps, atol=atol,
                     rtol=rtol, raise_exception=raise_exception)


def _prepare(inputs, caller):
    inputs = list(_tuple(inputs))
    slots = [i for i, x in enumerate(inputs) if isinstance(x, Tensor) and x._requires_grad]
    if not slots:
        raise ValueError(f"{caller}: none of the inputs requires grad; set requires_grad=True on "
                         "the tensors to differentiate")
    for i in slots:
        inputs[i] = _float64_leaf(inputs[i])
    return inputs, slots


def _float64_leaf(x):
    data = x._data if isinstance(x, Tensor) else np.asarray(x)
    return Tensor(np.array(data, dtype=np.float64), requires_grad=True)


def _tuple(x):
    return (x,) if isinstance(x, Tensor) else tuple(x)


def _float_outputs(out):
    outs = _tuple(out)
    for i, o in enumerate(outs):
        if not isinstance(o, Tensor):
            raise TypeError(f"gradcheck: the function returned a {type(o).__name__} as output "
                            f"{i}; it must return Tensors")
    return [o for o in outs if o.is_floating_point()]


def _numerical_jacobian(fn, inputs, slots, outputs, eps):
    """jac[k][j]: the (output k size, input j size) block, from central differences."""
    blocks = [[np.zeros((o.numel(), inputs[s].numel())) for s in slots] for o in outputs]
    for j, slot in enumerate(slots):
        base = inputs[slot]._data
        for e in range(base.size):
            values = []
            for sign in (1, -1):
                moved = base.copy()
                moved.reshape(-1)[e] += sign * eps
                args = list(inputs)
                args[slot] = Tensor(moved, requires_grad=True)
                values.append(_float_outputs(fn(*args)))
            for k, (plus, minus) in enumerate(zip(*values)):
                blocks[k][j][:, e] = (plus._data.reshape(-1).astype(np.float64)
                                      - minus._data.reshape(-1)) / (2 * eps)
    return blocks


def _analytical_jacobian(outputs, diff):
    """jac[k][j] from reverse mode: one backward pass per output element."""
    blocks = []
    for out in outputs:
        rows = [np.zeros((out.numel(), x.numel())) for x in diff]
        if out._requires_grad:
            for m in range(out.numel()):
                one_hot = np.zeros(out.numel(), dtype=out._data.dtype)
                one_hot[m] = 1
                grads = grad(out, diff, grad_outputs=Tensor(one_hot.reshape(out.shape)),
                             retain_graph=True, allow_unused=True)
                for j, g in enumerate(grads):
                    if g is not None:
                        rows[j][m] = g._data.reshape(-1)
        blocks.append(rows)
    return blocks


def _compare(numerical, analytical, slots, atol, rtol, raise_exception, caller):
    worst = None
    for k, (num_row, an_row) in enumerate(zip(numerical, analytical)):
        for j, (num, an) in enumerate(zip(num_row, an_row)):
            if num.size == 0:
                continue
            excess = np.abs(an - num) - (atol + rtol * np.abs(num))
            e = np.unravel_index(np.argmax(excess), excess.shape)
            if excess[e] > 0 and (worst is None or excess[e] > worst[0]):
                worst = (excess[e], k, j, e, num[e], an[e])
    if worst is None:
        return True
    _, k, j, (out_el, in_el), num, an = worst
    message = (f"{caller}: Jacobian mismatch for output {k} with respect to input {slots[j]}: "
               f"the analytical Jacobian does not match finite differences. Worst element: d output[{k}].flat[{out_el}] / "
               f"d input[{slots[j]}].flat[{in_el}]: numerical {num:.6g}, analytical {an:.6g} "
               f"(difference {abs(an - num):.3g}, allowed atol + rtol*|numerical| = "
               f"{atol + rtol * abs(num):.3g})")
    if raise_exception:
        raise GradcheckError(message)
    return False
