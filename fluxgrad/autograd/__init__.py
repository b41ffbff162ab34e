"""Reverse-mode entry points, custom functions and gradient checking."""
from .._core.engine import backward, grad as _eager_grad
from .._core.static_mode import state as _static_state
from . import forward_ad
from .forward_grad import forward_grad
from .paddle_functional import Hessian, Jacobian, jvp, vjp
from . import functional
from .function import Function, FunctionCtx, PyLayer, PyLayerContext
from .gradcheck import GradcheckError, gradcheck, gradgradcheck
from .anomaly import AnomalyError, detect_anomaly, is_anomaly_enabled, set_detect_anomaly
from .summary import graph_summary
from .variable import Variable

__all__ = ["backward", "grad", "Function", "FunctionCtx", "PyLayer", "PyLayerContext",
           "gradcheck", "gradgradcheck", "GradcheckError", "forward_ad", "forward_grad", "jvp",
           "vjp", "Jacobian", "Hessian", "functional", "detect_anomaly", "set_detect_anomaly",
           "is_anomaly_enabled", "AnomalyError", "graph_summary", "Variable"]


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False,
         allow_unused=False):
    """Gradients of `outputs` (weighted by `grad_outputs`) w.r.t. `inputs`, as a tuple.

    Leaves' `.grad` is left untouched. With `create_graph=True` the results are
    differentiable, to any order. On static Variables the gradient equations are staged
    into their program (always differentiable again).
    """
    if _static_state.armed:
        from ..static.transforms import is_static, vjp
        if is_static(outputs, inputs):
            grads = tuple(vjp(outputs, inputs, grad_outputs))
            if not allow_unused and any(g is None for g in grads):
                i = next(i for i, g in enumerate(grads) if g is None)
                raise RuntimeError(f"grad(): inputs[{i}] is not used to compute the outputs; "
                                   "pass allow_unused=True if this is what you want")
            return grads
    return _eager_grad(outputs, inputs, grad_outputs, retain_graph, create_graph, allow_unused)
