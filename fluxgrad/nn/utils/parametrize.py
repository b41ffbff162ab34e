"""`nn.utils.parametrize`, as PyTorch's: a module's parameter or buffer computed from an
`original` tensor by small modules (a parametrization: `forward(original) -> tensor`, and
optionally `right_inverse(tensor) -> original`).

`register_parametrization(module, "weight", P())` moves the tensor to
`module.parametrizations.weight.original` (the same Parameter object, so optimizers built
before keep working), gives the module a subclass `Parametrized<Class>` whose `weight` is a
property computing `P()(original)` at every access (or once per `cached()` block), and routes
`module.weight = value` through the right inverses. `remove_parametrizations` undoes it,
keeping the current value (`leave_parametrized=True`) or the original.
"""
import contextlib

from ..._core.grad_mode import no_grad
from ..._core.tensor import Tensor
from ..layers import ModuleDict, ModuleList
from ..module import Module
from ..parameter import Parameter

__all__ = ["register_parametrization", "remove_parametrizations", "is_parametrized", "cached",
           "type_before_parametrizations", "ParametrizationList"]

_cache_depth = 0
_cache = {}


@contextlib.contextmanager
def cached():
    """Within the block, each parametrized tensor is computed once, at its first access."""
    global _cache_depth
    _cache_depth += 1
    try:
        yield
    finally:
        _cache_depth -= 1
        if not _cache_depth:
            _cache.clear()


def _assign(original, value):
    """Write `value` into `original` in place (keeping the object), whatever its shape."""
    with no_grad():
        if tuple(original.shape) == tuple(value.shape) and original.dtype == value.dtype:
            original.copy_(value)
        else:
            original.data = value.detach()


def _register_tensor(module, name, tensor):
    if isinstance(tensor, Parameter):
        module.register_parameter(name, tensor)
    else:
        module.register_buffer(name, tensor)


class ParametrizationList(ModuleList):
    """The parametrizations of one tensor, applied in order to `original` (or to `original0`,
    `original1`, ... when the first right_inverse gives a sequence of tensors)."""

    def __init__(self, modules, original, unsafe=False):
        if not modules:
            raise ValueError("ParametrizationList requires one or more modules.")
        super().__init__(modules)
        self.unsafe = unsafe
        new = original
        with no_grad():
            for module in reversed(list(self)):
                if hasattr(module, "right_inverse"):
                    new = module.right_inverse(new)
        if not isinstance(new, (Tensor, list, tuple)):
            raise ValueError(f"'right_inverse' must return a Tensor or a Sequence of tensors "
                             f"(list, tuple...). Got {type(new).__name__}")
        self.is_tensor = isinstance(new, Tensor)
        self.ntensors = 1 if self.is_tensor else len(new)
        if self.is_tensor:
            if not unsafe and (original.dtype != new.dtype or original.shape != new.shape):
                raise ValueError(f"When `right_inverse` outputs one tensor, it may not change "
                                 f"the dtype or shape.\noriginal.dtype: {original.dtype}\n"
                                 f"right_inverse(original).dtype: {new.dtype}\n"
                                 f"original.shape: {original.shape}\n"
                                 f"right_inverse(original).shape: {new.shape}")
            _assign(original, new)
            _register_tensor(self, "original", original)
        else:
            for i, part in enumerate(new):
                if not isinstance(part, Tensor):
                    raise ValueError(f"'right_inverse' must return a Tensor or a Sequence of "
                                     f"tensors. Got element {i} of type {type(part).__name__}")
                part = part.detach()
                if isinstance(original, Parameter):
                    part = Parameter(part, requires_grad=original.requires_grad)
                _register_tensor(self, f"original{i}", part)
        if not unsafe:
            self._check(original)

    def _check(self, original):
        with no_grad():
            z = self()
        if not isinstance(z, Tensor):
            raise ValueError(f"A parametrization must return a tensor. Got "
                             f"{type(z).__name__}.")
        if z.dtype != original.dtype or z.shape != original.shape:
            raise ValueError(f"Registering a parametrization may not change the shape or dtype "
                             f"of the tensor, unless the `unsafe` flag is enabled.\n"
                             f"unparametrized dtype: {original.dtype}\n"
                             f"parametrized dtype: {z.dtype}\n"
                             f"unparametrized shape: {original.shape}\n"
                             f"parametrized shape: {z.shape}")

    def right_inverse(self, value):
        """Set the original(s) so that the parametrized tensor becomes `value`."""
        with no_grad():
            for module in reversed(list(self)):
                if not hasattr(module, "right_inverse"):
                    raise RuntimeError(f"parametrization {type(module).__name__} does not "
                                       "implement right_inverse.")
                value = module.right_inverse(value)
            if self.is_tensor:
                if not isinstance(value, Tensor):
                    raise ValueError(f"`right_inverse` should return a tensor. Got "
                                     f"{type(value).__name__}")
                _assign(self.original, value)
            else:
                if len(value) != self.ntensors:
                    raise ValueError(f"'right_inverse' must return a sequence of tensors of "
                                     f"length {self.ntensors}. Got a sequence of length "
                                     f"{len(value)}")
                for i, part in enumerate(value):
                    _assign(getattr(self, f"original{i}"), part)

    def forward(self):
        parts = list(self)
        if self.is_tensor:
            x = parts[0](self.original)
        else:
            x = parts[0](*(getattr(self, f"original{i}") for i in range(self.ntensors)))
        for module in parts[1:]:
            x = module(x)
        return x


def _inject_new_class(module):
    cls = module.__class__
    module.__class__ = type(f"Parametrized{cls.__name__}", (cls,), {"_unparametrized": cls})


def _inject_property(module, tensor_name):
    def get_parametrized(self):
        parametrization = self.parametrizations[tensor_name]
        if not _cache_depth:
            return parametrization()
        key = (id(self), tensor_name)
        if key not in _cache:
            _cache[key] = parametrization()
        return _cache[key]

    def set_original(self, value):
        self.parametrizations[tensor_name].right_inverse(value)

    setattr(module.__class__, tensor_name, property(get_parametrized, set_original))


def register_parametrization(module, tensor_name, parametrization, *, unsafe=False):
    """Compute `module.<tensor_name>` as `parametrization(original)` from now on (a second
    registration on the same name applies after the first); returns the module."""
    parametrization.train(module.training)
    if is_parametrized(module, tensor_name):
        chain = module.parametrizations[tensor_name]
        if not unsafe:
            with no_grad():
                before = getattr(module, tensor_name)
                after = parametrization(before)
            if not isinstance(after, Tensor) or after.shape != before.shape or \
                    after.dtype != before.dtype:
                raise ValueError("Registering a parametrization may not change the shape or "
                                 "dtype of the tensor, unless the `unsafe` flag is enabled")
        chain.append(parametrization)
        chain.unsafe |= unsafe
    elif tensor_name in module._parameters or tensor_name in module._buffers:
        original = getattr(module, tensor_name)
        chain = ParametrizationList([parametrization], original, unsafe=unsafe)
        delattr(module, tensor_name)
        if not is_parametrized(module):
            _inject_new_class(module)
            module.parametrizations = ModuleDict()
        _inject_property(module, tensor_name)
        module.parametrizations[tensor_name] = chain
    else:
        raise ValueError(f"Module '{module}' does not have a parameter, a buffer, or a "
                         f"parametrized element with name '{tensor_name}'")
    return module


def is_parametrized(module, tensor_name=None):
    """Whether `module` has any parametrization (or one on `tensor_name`)."""
    parametrizations = module.__dict__.get("_modules", {}).get("parametrizations")
    if not isinstance(parametrizations, ModuleDict):
        return False
    if tensor_name is None:
        return len(parametrizations) > 0
    return tensor_name in parametrizations


def remove_parametrizations(module, tensor_name, leave_parametrized=True):
    """Make `module.<tensor_name>` a plain parameter or buffer again: its current
    (parametrized) value, or the original with leave_parametrized=False."""
    if not is_parametrized(module, tensor_name):
        raise ValueError(f"Module {module} does not have a parametrization on {tensor_name}")
    chain = module.parametrizations[tensor_name]
    if chain.is_tensor:
        original = chain.original
        if leave_parametrized:
            with no_grad():
                value = getattr(module, tensor_name)
            _assign(original, value)
    else:
        if not leave_parametrized:
            raise ValueError("Cannot leave unparametrized (`leave_parametrized=False`) a tensor "
                             "that is parametrized in terms of a sequence of tensors.")
        with no_grad():
            value = getattr(module, tensor_name)
        first = chain.original0
        original = (Parameter(value.detach(), requires_grad=first.requires_grad)
                    if isinstance(first, Parameter) else value.detach())
    delattr(module.__class__, tensor_name)
    del module.parametrizations[tensor_name]
    _register_tensor(module, tensor_name, original)
    if not is_parametrized(module):
        del module.parametrizations
        module.__class__ = module.__class__._unparametrized
    return module


def type_before_parametrizations(module):
    """The module's class before any parametrization was registered on it."""
    return module.__class__._unparametrized if is_parametrized(module) else type(module)
