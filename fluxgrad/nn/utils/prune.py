"""`nn.utils.prune`: PyTorch's mask-based pruning of a module's parameters.

Pruning `module.<name>` moves the parameter to `<name>_orig`, keeps a 0/1 buffer `<name>_mask`,
and a forward pre-hook (the pruning method itself) sets the plain attribute `module.<name> =
<name>_orig * <name>_mask` before each call, so the pruned entries get no gradient. Pruning the
same parameter again combines the methods in a `PruningContainer`, the new one choosing among
the entries (or channels) still unpruned; `remove` makes the pruned tensor the parameter again.
The amount is a fraction of the entries (a float in [0, 1], rounded as Python's round) or a
count (an int).
"""
import numbers

from ... import ops
from ..._core.grad_mode import no_grad
from ...creation import ones_like, rand_like, zeros_like
from ...random import rand
from .clip_grad import parameters_to_vector

__all__ = ["BasePruningMethod", "PruningContainer", "Identity", "RandomUnstructured",
           "L1Unstructured", "RandomStructured", "LnStructured", "CustomFromMask", "identity",
           "random_unstructured", "l1_unstructured", "random_structured", "ln_structured",
           "global_unstructured", "custom_from_mask", "remove", "is_pruned"]


class BasePruningMethod:
    """A way to choose a mask; subclasses set PRUNING_TYPE ("unstructured", "structured" or
    "global") and write `compute_mask(t, default_mask)`."""
    _tensor_name = None

    def __call__(self, module, inputs):
        setattr(module, self._tensor_name, self.apply_mask(module))

    def compute_mask(self, t, default_mask):
        raise NotImplementedError(f"{type(self).__name__} must define compute_mask")

    def apply_mask(self, module):
        """The pruned tensor: `<name>_orig` times `<name>_mask`."""
        orig = getattr(module, self._tensor_name + "_orig")
        mask = getattr(module, self._tensor_name + "_mask")
        return mask.to(dtype=orig.dtype) * orig

    @classmethod
    def apply(cls, module, name, *args, importance_scores=None, **kwargs):
        """Prune `module.<name>` with a new `cls(*args, **kwargs)`, on top of any earlier
        pruning of it; the scores that rank entries are the tensor's own unless
        `importance_scores` (its shape) is given. Returns the method (or container) in use."""
        method = _composite_method(cls, module, name, *args, **kwargs)
        orig = getattr(module, name)
        if importance_scores is None:
            importance_scores = orig
        elif tuple(importance_scores.shape) != tuple(orig.shape):
            raise ValueError(f"importance_scores should have the same shape as parameter {name} "
                             f"of {module}: {list(importance_scores.shape)} != "
                             f"{list(orig.shape)}")
        first = not isinstance(method, PruningContainer)
        if first:
            module.register_parameter(name + "_orig", orig)
            del module._parameters[name]
            default_mask = ones_like(orig)
        else:
            default_mask = getattr(module, name + "_mask").detach().clone()
        try:
            with no_grad():
                mask = method.compute_mask(importance_scores.detach(), default_mask=default_mask)
            module.register_buffer(name + "_mask", mask)
            setattr(module, name, method.apply_mask(module))
            module.register_forward_pre_hook(method)
        except Exception:
            if first:
                module.register_parameter(name, module._parameters.pop(name + "_orig"))
            raise
        return method

    def prune(self, t, default_mask=None, importance_scores=None):
        """`t` with this method's mask applied (the module untouched)."""
        scores = t if importance_scores is None else importance_scores
        default_mask = ones_like(t) if default_mask is None else default_mask
        with no_grad():
            mask = self.compute_mask(scores, default_mask=default_mask)
        return t * mask

    def remove(self, module):
        """Make the pruned tensor `module.<name>` a parameter again (the `_orig` parameter,
        now holding the pruned values) and drop `_orig`, `_mask` and the hook's effect."""
        if self._tensor_name is None:
            raise ValueError(f"{type(self).__name__} was never applied to a module, so there is "
                             "nothing to remove")
        weight = self.apply_mask(module)
        if self._tensor_name in module.__dict__:
            delattr(module, self._tensor_name)
        orig = module._parameters.pop(self._tensor_name + "_orig")
        orig.data = weight.data
        del module._buffers[self._tensor_name + "_mask"]
        setattr(module, self._tensor_name, orig)


def _composite_method(cls, module, name, *args, **kwargs):
    """The new method, alone or added to the pruning already applied to `module.<name>` (whose
    hook is taken off: the caller registers the result)."""
    old = [(key, hook) for key, hook in module._forward_pre_hooks.items()
           if isinstance(hook, BasePruningMethod) and hook._tensor_name == name]
    method = cls(*args, **kwargs)
    method._tensor_name = name
    if not old:
        return method
    key, old_method = old[0]
    del module._forward_pre_hooks[key]
    if isinstance(old_method, PruningContainer):
        old_method.add_pruning_method(method)
        return old_method
    container = PruningContainer(old_method)
    container.add_pruning_method(method)
    return container


class PruningContainer(BasePruningMethod):
    """Pruning methods applied one after another to one tensor."""

    def __init__(self, *methods):
        self._pruning_methods = ()
        if len(methods) == 1:
            self._tensor_name = methods[0]._tensor_name
        for method in methods:
            self.add_pruning_method(method)

    def add_pruning_method(self, method):
        if not isinstance(method, BasePruningMethod):
            raise TypeError(f"{type(method)} is not a BasePruningMethod subclass")
        if self._tensor_name != method._tensor_name:
            raise ValueError(f"Can only add pruning methods acting on the parameter named "
                             f"'{self._tensor_name}' to PruningContainer {self}. Found "
                             f"'{method._tensor_name}'")
        self._pruning_methods += (method,)

    def __len__(self):
        return len(self._pruning_methods)

    def __iter__(self):
        return iter(self._pruning_methods)

    def __getitem__(self, index):
        return self._pruning_methods[index]

    def compute_mask(self, t, default_mask):
        """The latest method's mask, computed on the entries (or channels) the earlier ones
        left, within `default_mask`."""
        method = self._pruning_methods[-1]
        mask = default_mask.to(dtype=t.dtype)
        if method.PRUNING_TYPE == "unstructured":
            keep = mask == 1
        elif method.PRUNING_TYPE == "structured":
            dim = method.dim + t.ndim if method.dim < 0 else method.dim
            if not 0 <= dim < t.ndim:
                raise IndexError(f"Index is out of bounds for tensor with dimensions {t.ndim}")
            others = [d for d in range(t.ndim) if d != dim]
            keep = [slice(None)] * t.ndim
            keep[dim] = mask.sum(dim=others) != 0
            keep = tuple(keep)
        elif method.PRUNING_TYPE == "global":
            keep = (slice(None),) * t.ndim
        else:
            raise ValueError(f"Unrecognized PRUNING_TYPE {method.PRUNING_TYPE}")
        partial = method.compute_mask(t[keep], default_mask=mask[keep])
        mask[keep] = partial.to(dtype=mask.dtype)
        return mask


class Identity(BasePruningMethod):
    """Prunes nothing (a mask of ones)."""
    PRUNING_TYPE = "unstructured"

    def compute_mask(self, t, default_mask):
        return default_mask

    @classmethod
    def apply(cls, module, name):
        return super().apply(module, name)


class RandomUnstructured(BasePruningMethod):
    """Prunes `amount` entries chosen at random."""
    PRUNING_TYPE = "unstructured"

    def __init__(self, amount):
        _check_amount(amount)
        self.amount = amount

    def compute_mask(self, t, default_mask):
        k = _count(self.amount, t.numel())
        if k == 0:
            return default_mask.clone()
        return _zero_flat(default_mask, ops.topk(rand_like(t).reshape(-1), k).indices)

    @classmethod
    def apply(cls, module, name, amount):
        return super().apply(module, name, amount=amount)


class L1Unstructured(BasePruningMethod):
    """Prunes the `amount` entries of smallest absolute value."""
    PRUNING_TYPE = "unstructured"

    def __init__(self, amount):
        _check_amount(amount)
        self.amount = amount

    def compute_mask(self, t, default_mask):
        k = _count(self.amount, t.numel())
        if k == 0:
            return default_mask.clone()
        return _zero_flat(default_mask, ops.topk(ops.abs(t).reshape(-1), k, largest=False).indices)

    @classmethod
    def apply(cls, module, name, amount, importance_scores=None):
        return super().apply(module, name, amount=amount, importance_scores=importance_scores)


class RandomStructured(BasePruningMethod):
    """Prunes `amount` whole channels along `dim`, chosen at random."""
    PRUNING_TYPE = "structured"

    def __init__(self, amount, dim=-1):
        _check_amount(amount)
        self.amount, self.dim = amount, dim

    def compute_mask(self, t, default_mask):
        size = _channels(t, self.dim)
        k = _count(self.amount, size)
        if k == 0:
            return default_mask
        draws = rand(size)
        kept = draws > ops.kthvalue(draws, k).values
        return _channel_mask(t, self.dim, kept) * default_mask.to(dtype=t.dtype)

    @classmethod
    def apply(cls, module, name, amount, dim=-1):
        return super().apply(module, name, amount=amount, dim=dim)


class LnStructured(BasePruningMethod):
    """Prunes the `amount` channels along `dim` of smallest L`n` norm."""
    PRUNING_TYPE = "structured"

    def __init__(self, amount, n, dim=-1):
        _check_amount(amount)
        self.amount, self.n, self.dim = amount, n, dim

    def compute_mask(self, t, default_mask):
        size = _channels(t, self.dim)
        k = _count(self.amount, size)
        if k == 0:
            return default_mask
        dim = self.dim % t.ndim
        norms = ops.norm(t, p=self.n, dim=[d for d in range(t.ndim) if d != dim])
        kept = ops.topk(norms, size - k, largest=True).indices
        return _channel_mask(t, self.dim, kept) * default_mask.to(dtype=t.dtype)

    @classmethod
    def apply(cls, module, name, amount, n, dim, importance_scores=None):
        return super().apply(module, name, amount=amount, n=n, dim=dim,
                             importance_scores=importance_scores)


class CustomFromMask(BasePruningMethod):
    """Prunes where the given `mask` is 0."""
    PRUNING_TYPE = "global"

    def __init__(self, mask):
        self.mask = mask

    def compute_mask(self, t, default_mask):
        if tuple(default_mask.shape) != tuple(self.mask.shape):
            raise ValueError(f"custom_from_mask: the mask's shape {list(self.mask.shape)} is not "
                             f"the parameter's {list(default_mask.shape)}")
        return default_mask * self.mask.to(dtype=default_mask.dtype)

    @classmethod
    def apply(cls, module, name, mask):
        return super().apply(module, name, mask=mask)


def _check_amount(amount):
    if isinstance(amount, bool) or not isinstance(amount, numbers.Real):
        raise TypeError(f"Invalid type for amount: {amount}. Must be int or float.")
    if (amount < 0 if isinstance(amount, numbers.Integral) else not 0.0 <= amount <= 1.0):
        raise ValueError(f"amount={amount} should either be a float in the range [0, 1] or a "
                         f"non-negative integer")


def _count(amount, size):
    """How many of `size` entries (or channels) `amount` prunes."""
    k = amount if isinstance(amount, numbers.Integral) else round(amount * size)
    if k > size:
        raise ValueError(f"amount={amount} should be smaller than the number of parameters to "
                         f"prune={size}")
    return k


def _channels(t, dim):
    if t.ndim <= 1:
        raise ValueError(f"Structured pruning can only be applied to multidimensional tensors. "
                         f"Found tensor of shape {tuple(t.shape)} with {t.ndim} dims")
    if dim >= t.ndim:
        raise IndexError(f"Invalid index {dim} for tensor of size {tuple(t.shape)}")
    return t.shape[dim]


def _zero_flat(default_mask, indices):
    """`default_mask` with the flat positions `indices` set to 0 (a copy)."""
    flat = default_mask.reshape(-1).clone()
    flat[indices] = 0
    return flat.reshape(default_mask.shape)


def _channel_mask(t, dim, kept):
    """Ones on the channels `kept` (indices or a boolean mask) along `dim`, zeros elsewhere."""
    mask = zeros_like(t)
    where = [slice(None)] * t.ndim
    where[dim] = kept
    mask[tuple(where)] = 1
    return mask


def identity(module, name):
    """Register the pruning machinery on `module.<name>` without pruning anything."""
    Identity.apply(module, name)
    return module


def random_unstructured(module, name, amount):
    RandomUnstructured.apply(module, name, amount)
    return module


def l1_unstructured(module, name, amount, importance_scores=None):
    L1Unstructured.apply(module, name, amount=amount, importance_scores=importance_scores)
    return module


def random_structured(module, name, amount, dim):
    RandomStructured.apply(module, name, amount, dim)
    return module


def ln_structured(module, name, amount, n, dim, importance_scores=None):
    LnStructured.apply(module, name, amount, n, dim, importance_scores=importance_scores)
    return module


def custom_from_mask(module, name, mask):
    CustomFromMask.apply(module, name, mask)
    return module


def global_unstructured(parameters, pruning_method, importance_scores=None, **kwargs):
    """Prune the (module, name) pairs in `parameters` together: `pruning_method`
    (unstructured) ranks all their entries as one vector."""
    parameters = list(parameters)
    importance_scores = importance_scores or {}
    scores = parameters_to_vector([importance_scores.get((m, n), getattr(m, n))
                                   for m, n in parameters])
    default_mask = parameters_to_vector([getattr(m, n + "_mask", ones_like(getattr(m, n)))
                                         for m, n in parameters])
    method = pruning_method(**kwargs)
    method._tensor_name = "temp"
    if method.PRUNING_TYPE != "unstructured":
        raise TypeError(f'Only "unstructured" PRUNING_TYPE supported for the `pruning_method`. '
                        f"Found method {pruning_method} of type {method.PRUNING_TYPE}")
    container = PruningContainer(method)
    with no_grad():
        final = container.compute_mask(scores.detach(), default_mask)
    start = 0
    for module, name in parameters:
        size = getattr(module, name).numel()
        custom_from_mask(module, name, final[start:start + size].view_as(getattr(module, name)))
        start += size


def remove(module, name):
    """Make the pruning of `module.<name>` permanent (see BasePruningMethod.remove)."""
    for key, hook in module._forward_pre_hooks.items():
        if isinstance(hook, BasePruningMethod) and hook._tensor_name == name:
            hook.remove(module)
            del module._forward_pre_hooks[key]
            return module
    raise ValueError(f"Parameter '{name}' of module {module} has to be pruned before pruning "
                     "can be removed")


def is_pruned(module):
    """Whether any sub-module of `module` has a pruned parameter."""
    return any(isinstance(hook, BasePruningMethod)
               for _, sub in module.named_modules() for hook in sub._forward_pre_hooks.values())
