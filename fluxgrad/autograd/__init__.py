"""Reverse-mode entry points, custom functions and gradient checking."""
from .._core.engine import backward, grad
from . import forward_ad
from .forward_grad import forward_grad
from .functional import Hessian, Jacobian, jvp, vjp
from .function import Function, FunctionCtx, PyLayer, PyLayerContext
from .gradcheck import GradcheckError, gradcheck, gradgradcheck
from .anomaly import AnomalyError, detect_anomaly, is_anomaly_enabled, set_detect_anomaly
from .summary import graph_summary
from .variable import Variable

__all__ = ["backward", "grad", "Function", "FunctionCtx", "PyLayer", "PyLayerContext",
           "gradcheck", "gradgradcheck", "GradcheckError", "forward_ad", "forward_grad", "jvp",
           "vjp", "Jacobian", "Hessian", "detect_anomaly", "set_detect_anomaly",
           "is_anomaly_enabled", "AnomalyError", "graph_summary", "Variable"]
