"""Reverse-mode entry points, custom functions and gradient checking."""
from .._core.engine import backward, grad
from . import forward_ad
from .forward_grad import forward_grad
from .paddle_functional import Hessian, Jacobian, jvp, vjp
from . import functional
from .function import Function, FunctionCtx, PyLayer, PyLayerContext
from .gradcheck import GradcheckError, gradcheck, gradgradcheck
from .anomaly import AnomalyError, detect_anomaly, is_anomaly_enabled, set_detect_anomaly
from .summary import graph_summary

__all__ = ["backward", "grad", "Function", "FunctionCtx", "PyLayer", "PyLayerContext",
           "gradcheck", "gradgradcheck", "GradcheckError", "forward_ad", "forward_grad", "jvp",
           "vjp", "Jacobian", "Hessian", "functional", "detect_anomaly", "set_detect_anomaly",
           "is_anomaly_enabled", "AnomalyError", "graph_summary"]
