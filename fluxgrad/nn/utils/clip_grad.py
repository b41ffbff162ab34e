"""`nn.utils`: gradient clipping (outside the graph) and flattening parameters to one vector
(recorded, as PyTorch's, so the vector differentiates back to the parameters).

PaddlePaddle's clipping objects (`grad_clip=` of an optimizer) leave out the parameters whose
ParamAttr says need_clip=False; `clipped` is their formula in fluxgrad ops, for the
gradients of a static program's `minimize`."""
import numpy as np

from ... import ops
from ..._core.tensor import Tensor
from ...param_attr import needs_clip

__all__ = ["clip_grad_norm_", "clip_grad_norm", "get_total_norm", "clip_grads_with_norm_",
           "clip_grad_value_", "parameters_to_vector", "vector_to_parameters",
           "ClipGradByGlobalNorm", "ClipGradByNorm", "ClipGradByValue"]


def _params(parameters):
    return [parameters] if isinstance(parameters, Tensor) else list(parameters)


def _clipped_params(parameters):
    return [p for p in _params(parameters) if needs_clip(p)]


def _scale(norm, clip_norm):
    """The factor clip_grad_norm_ scales by: min(clip_norm / (norm + 1e-6), 1)."""
    return ops.minimum(clip_norm / (norm + 1e-6), 1.0)


def get_total_norm(tensors, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """The `norm_type` norm of all `tensors` taken together (the norm of their norms), a 0-d
    tensor; 0 for no tensors. `foreach` is accepted and changes nothing."""
    arrays = [t._data for t in _params(tensors) if t is not None]
    if not arrays:
        return Tensor(np.zeros((), np.float32))
    norm_type = float(norm_type)
    if norm_type == np.inf:
        total = max(float(np.abs(a).max()) if a.size else 0.0 for a in arrays)
    else:
        total = float(sum(float(np.sum(np.abs(a) ** norm_type)) for a in arrays)) ** (1 / norm_type)
    if error_if_nonfinite and not np.isfinite(total):
        raise RuntimeError(f"clip_grad_norm_: the total norm of order {float(norm_type)} of the "
                           f"gradients is non-finite ({total}), so it can't be clipped; pass "
                           "error_if_nonfinite=False to scale them by it anyway")
    return Tensor(np.asarray(total, arrays[0].dtype))


def clip_grads_with_norm_(parameters, max_norm, total_norm, foreach=None):
    """Scale the gradients, in place, by max_norm / total_norm when that is below 1."""
    scale = max_norm / (float(total_norm) + 1e-6)
    if scale < 1:
        for p in _params(parameters):
            if p.grad is not None:
                p.grad._data *= scale


def clip_grad_norm_(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """Scale all gradients together, in place, so their joint norm is at most `max_norm`.

    Returns the total norm before clipping (a 0-d tensor).
    """
    params = _params(parameters)
    total = get_total_norm([p.grad for p in params], norm_type, error_if_nonfinite)
    clip_grads_with_norm_(params, max_norm, total)
    return total


clip_grad_norm = clip_grad_norm_  # PyTorch's deprecated spelling


def clip_grad_value_(parameters, clip_value, foreach=None):
    """Clamp every gradient element to [-clip_value, clip_value], in place."""
    for p in _params(parameters):
        if p.grad is not None:
            np.clip(p.grad._data, -clip_value, clip_value, out=p.grad._data)


def parameters_to_vector(parameters):
    """All parameters flattened and concatenated into one 1-d tensor."""
    params = _params(parameters)
    if not params:
        return Tensor(np.zeros(0, np.float32))
    return ops.cat([p.reshape(-1) for p in params])


def vector_to_parameters(vec, parameters):
    """Copy consecutive slices of `vec` into the parameters, in place."""
    data = vec._data if isinstance(vec, Tensor) else np.asarray(vec)
    params = _params(parameters)
    total = sum(p.numel() for p in params)
    if data.shape != (total,):
        raise ValueError(f"vector_to_parameters: expected a vector of {total} elements, got shape "
                         f"{list(data.shape)}")
    start = 0
    for p in params:
        p._data[...] = data[start:start + p.numel()].reshape(p.shape)
        p._bump_version()
        start += p.numel()


class ClipGradByGlobalNorm:
    """PaddlePaddle's `grad_clip=`: scale all gradients so their joint 2-norm is <= clip_norm."""

    def __init__(self, clip_norm):
        self.clip_norm = float(clip_norm)

    def __call__(self, parameters):
        clip_grad_norm_(_clipped_params(parameters), self.clip_norm)

    def clipped(self, pairs):
        """[(param, grad)] with the grads clipped, in fluxgrad ops."""
        chosen = [g for p, g in pairs if needs_clip(p)]
        if not chosen:
            return pairs
        scale = _scale(sum((g * g).sum() for g in chosen) ** 0.5, self.clip_norm)
        return [(p, g * scale.astype(g.dtype) if needs_clip(p) else g) for p, g in pairs]


class ClipGradByNorm:
    """PaddlePaddle's `grad_clip=`: scale each gradient on its own so its 2-norm is <= clip_norm."""

    def __init__(self, clip_norm):
        self.clip_norm = float(clip_norm)

    def __call__(self, parameters):
        for p in _clipped_params(parameters):
            clip_grad_norm_(p, self.clip_norm)

    def clipped(self, pairs):
        """[(param, grad)] with the grads clipped, in fluxgrad ops."""
        return [(p, g * _scale((g * g).sum() ** 0.5, self.clip_norm).astype(g.dtype)
                 if needs_clip(p) else g) for p, g in pairs]


class ClipGradByValue:
    """PaddlePaddle's `grad_clip=`: clamp every gradient element to [min, max] (min = -max)."""

    def __init__(self, max, min=None):
        self.max = float(max)
        self.min = -self.max if min is None else float(min)

    def __call__(self, parameters):
        for p in _clipped_params(parameters):
            if p.grad is not None:
                np.clip(p.grad._data, self.min, self.max, out=p.grad._data)

    def clipped(self, pairs):
        """[(param, grad)] with the grads clipped, in fluxgrad ops."""
        return [(p, g.clip(self.min, self.max) if needs_clip(p) else g) for p, g in pairs]
