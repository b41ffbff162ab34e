"""Reverse-mode entry points, custom functions and gradient checking."""
from .._core import batching as _batching
from .._core.engine import backward, grad as _eager_grad
from .._core.grad_mode import enable_grad, no_grad, set_grad_enabled
from .._core.inference_mode import inference_mode
from .._core.tensor import Tensor
from ..creation import zeros_like as _zeros_like
from ..ops.shape import stack as _stack
from .._core.static_mode import state as _static_state
from . import forward_ad, graph
from .forward_grad import forward_grad
from .paddle_functional import Hessian, Jacobian, jvp, vjp
from ..incubate.jacobian import hessian, jacobian  # PaddlePaddle 2.5's, of computed outputs
from . import functional
from .function import Function, FunctionCtx, PyLayer, PyLayerContext
from .gradcheck import GradcheckError, gradcheck, gradgradcheck
from .anomaly import AnomalyError, detect_anomaly, is_anomaly_enabled, set_detect_anomaly
from .summary import graph_summary
from . import profiler
from .variable import Variable

__all__ = ["backward", "grad", "Function", "FunctionCtx", "PyLayer", "PyLayerContext",
           "gradcheck", "gradgradcheck", "GradcheckError", "forward_ad", "forward_grad", "jvp",
           "vjp", "Jacobian", "Hessian", "functional", "detect_anomaly", "set_detect_anomaly",
           "is_anomaly_enabled", "AnomalyError", "graph_summary", "Variable", "no_grad",
           "enable_grad", "set_grad_enabled", "inference_mode", "graph", "profiler", "jacobian", "hessian"]


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False,
         only_inputs=True, allow_unused=None, is_grads_batched=False, materialize_grads=False):
    """Gradients of `outputs` (weighted by `grad_outputs`) w.r.t. `inputs`, as a tuple.

    Leaves' `.grad` is left untouched. With `create_graph=True` the results are
    differentiable, to any order. On static Variables the gradient equations are staged
    into their program (always differentiable again). `materialize_grads=True` gives zeros
    for the inputs the outputs don't use (and implies allow_unused); `is_grads_batched=True`
    reads the first dimension of each grad_output as a batch and stacks the gradients.
    `only_inputs` is accepted and ignored, as in PyTorch (where it is deprecated).
    """
    if materialize_grads and allow_unused is False:
        raise ValueError("grad(): expected allow_unused to be True or not passed when "
                         "materialize_grads=True, but got allow_unused=False")
    allow_unused = bool(allow_unused or materialize_grads)
    if is_grads_batched:
        return _batched_grads(outputs, inputs, grad_outputs, retain_graph, create_graph,
                              allow_unused, materialize_grads)
    grads = _grad(outputs, inputs, grad_outputs, retain_graph, create_graph, allow_unused)
    if materialize_grads:
        inputs = (inputs,) if isinstance(inputs, Tensor) else tuple(inputs)
        grads = tuple(_zeros_like(x) if g is None else g for g, x in zip(grads, inputs))
    return grads


def _batched_grads(outputs, inputs, grad_outputs, retain_graph, create_graph, allow_unused,
                   materialize_grads):
    """One gradient per entry of the grad_outputs' first dimension, stacked."""
    seeds = (grad_outputs,) if isinstance(grad_outputs, Tensor) else tuple(grad_outputs or ())
    if not seeds or any(not isinstance(g, Tensor) or g.ndim == 0 for g in seeds):
        raise RuntimeError("grad(): is_grads_batched=True needs grad_outputs, each a tensor "
                           "whose first dimension is the batch")
    size = seeds[0].shape[0]
    rows = [grad(outputs, inputs, [g[i] for g in seeds], True if i < size - 1 else retain_graph,
                 create_graph, allow_unused=allow_unused, materialize_grads=materialize_grads)
            for i in range(size)]
    return tuple(None if column[0] is None else _stack(list(column)) for column in zip(*rows))


def _grad(outputs, inputs, grad_outputs, retain_graph, create_graph, allow_unused):
    if _static_state.armed:
        from ..static.transforms import is_static, vjp
        if _batching.state.sizes:
            outputs = (outputs,) if isinstance(outputs, Tensor) else tuple(outputs)
            inputs = (inputs,) if isinstance(inputs, Tensor) else tuple(inputs)
            if any(type(t) is _batching.BatchedTensor for t in outputs + inputs) and is_static(
                    [_batching.layers(t)[1] for t in outputs + inputs]):
                return _batched_static_grad(outputs, inputs, grad_outputs, allow_unused)
        if is_static(outputs, inputs):
            grads = tuple(vjp(outputs, inputs, grad_outputs))
            if not allow_unused and any(g is None for g in grads):
                i = next(i for i, g in enumerate(grads) if g is None)
                raise RuntimeError(f"grad(): inputs[{i}] is not used to compute the outputs; "
                                   "pass allow_unused=True if this is what you want")
            return grads
    return _eager_grad(outputs, inputs, grad_outputs, retain_graph, create_graph, allow_unused)


def _batched_static_grad(outputs, inputs, grad_outputs, allow_unused):
    """`grad` inside vmap on static Variables: the staged VJP of the physical Variables, for
    every example at once (as the eager engine does with physical tensors); the examples'
    gradients come back batched like their inputs."""
    if grad_outputs is None:
        grad_outputs = (None,) * len(outputs)  # ones, staged in the physical shapes
    grad_outputs = (grad_outputs,) if isinstance(grad_outputs, Tensor) else tuple(grad_outputs)
    out_layers = [_batching.layers(y) for y in outputs]
    in_layers = [_batching.layers(x) for x in inputs]
    out_levels = {level for found, _ in out_layers for level, _ in found}
    for i, (found, _) in enumerate(in_layers):
        if out_levels - {level for level, _ in found}:
            raise RuntimeError(
                f"grad() inside vmap: inputs[{i}] is the same for every example but the outputs "
                "differ between examples, so its gradient would mix the examples; use "
                "fluxgrad.func.grad (or vjp), which gives each example its own gradient")
    seeds = [None if g is None else _batching.to_physical_like(g, found)
             for g, (found, _) in zip(grad_outputs, out_layers)]
    grads = grad([plain for _, plain in out_layers], [plain for _, plain in in_layers], seeds,
                 allow_unused=allow_unused)
    return tuple(None if g is None else _batching.rebuild(g, found)
                 for g, (found, _) in zip(grads, in_layers))
