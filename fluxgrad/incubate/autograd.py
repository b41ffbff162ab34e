"""`fluxgrad.incubate.autograd`, PaddlePaddle's higher-order autodiff API, for both modes.

On static Variables, `grad` and `forward_grad` stage derivative equations into the
program (see `fluxgrad.static.transforms`): with prim on (`enable_prim()`), reverse
mode is linearize + transpose; with prim off, each primitive's VJP rule is staged.
On eager tensors they differentiate the recorded graph, keeping it differentiable
(create_graph), so they nest the same way. `Jacobian` / `Hessian` are lazy: indexing
computes (stages) only the rows it needs and caches them. `vjp(func, xs, v=None)` returns
`(func(xs), vᵀJ)` and `jvp(func, xs, v=None)` `(func(xs), J v)` (v: ones by default), in
both modes.
"""
from .._core.tensor import Tensor

__all__ = ["enable_prim", "disable_prim", "prim_enabled", "grad", "forward_grad", "Jacobian",
           "Hessian", "vjp", "jvp"]


class _Prim:
    enabled = False


def enable_prim():
    _Prim.enabled = True


def disable_prim():
    _Prim.enabled = False


def prim_enabled():
    return _Prim.enabled


def _static(*groups):
    from ..static.transforms import is_static
    return is_static(*groups)


def grad(outputs, inputs, grad_outputs=None):
    """Gradients of `outputs` (weighted by `grad_outputs`, ones by default) w.r.t. `inputs`:
    a tensor for a single input, else a list; zeros for an input the outputs ignore."""
    if _static(outputs, inputs):
        from ..static.transforms import grad as static_grad
        return static_grad(outputs, inputs, grad_outputs)
    from ..autograd import grad as eager_grad
    from ..creation import zeros_like
    single = isinstance(inputs, Tensor)
    inputs_list = [inputs] if single else list(inputs)
    grads = eager_grad(outputs, inputs_list, grad_outputs, create_graph=True, allow_unused=True)
    grads = [zeros_like(x) if g is None else g for x, g in zip(inputs_list, grads)]
    return grads[0] if single else grads


def forward_grad(outputs, inputs, grad_inputs=None):
    """Tangents of `outputs` along `grad_inputs` (ones by default)."""
    if _static(outputs, inputs):
        from ..static.transforms import forward_grad as static_forward_grad
        return static_forward_grad(outputs, inputs, grad_inputs)
    from ..autograd.forward_grad import forward_grad as eager_forward_grad
    return eager_forward_grad(outputs, inputs, grad_inputs)


def Jacobian(func, xs, is_batched=False):
    """The lazy Jacobian of `func` at `xs` (see `fluxgrad.autograd.Jacobian`)."""
    if _static(xs):
        from ..static.jacobian import Jacobian as StaticJacobian
        return StaticJacobian(func, xs, is_batched)
    from ..autograd.functional import Jacobian as EagerJacobian
    return EagerJacobian(func, xs, is_batched)


def Hessian(func, xs, is_batched=False):
    """The lazy Hessian of scalar `func` at `xs`."""
    if _static(xs):
        from ..static.jacobian import Hessian as StaticHessian
        return StaticHessian(func, xs, is_batched)
    from ..autograd.functional import Hessian as EagerHessian
    return EagerHessian(func, xs, is_batched)


def vjp(func, xs, v=None):
    """(func(xs), the cotangent `v` pulled back to `xs`): a tensor for a tensor `xs`, else a
    tuple; zeros for an input the outputs ignore."""
    if not _static(xs):
        from ..autograd.paddle_functional import vjp as eager_vjp
        return eager_vjp(func, xs, v)
    single = isinstance(xs, Tensor)
    inputs = [xs] if single else list(xs)
    ys = func(*inputs)
    outputs = [ys] if isinstance(ys, Tensor) else list(ys)
    if v is not None:
        v = [v] if isinstance(v, Tensor) else list(v)
        if len(v) != len(outputs):
            raise ValueError(f"vjp: {len(outputs)} outputs but {len(v)} cotangents in v")
    grads = grad(outputs, inputs, v)
    return ys, grads[0] if single else tuple(grads)


def jvp(func, xs, v=None):
    """(func(xs), the tangent `v` pushed forward to the outputs): a tensor for a tensor
    output, else a tuple."""
    if not _static(xs):
        from ..autograd.paddle_functional import jvp as eager_jvp
        return eager_jvp(func, xs, v)
    single = isinstance(xs, Tensor)
    inputs = [xs] if single else list(xs)
    ys = func(*inputs)
    if v is not None:
        v = [v] if isinstance(v, Tensor) else list(v)
        if len(v) != len(inputs):
            raise ValueError(f"jvp: {len(inputs)} inputs but {len(v)} tangents in v")
    outputs = [ys] if isinstance(ys, Tensor) else list(ys)
    dots = forward_grad(outputs, inputs, v)
    return ys, dots[0] if isinstance(ys, Tensor) else tuple(dots)
