"""`nn.utils.parametrize`: a module's tensor computed from other tensors, as PyTorch's.

`register_parametrization(module, "weight", p)` moves the parameter to
`module.parametrizations.weight.original` (the same Parameter object, so an optimizer that
holds it keeps working) and makes `module.weight` a property that returns `p(original)`,
recomputed at each access (once per `cached()` block). Several parametrizations of one tensor
chain in registration order. A parametrization with a `right_inverse` sets the originals from a
value: on registration (a tuple from `right_inverse` gives `original0`, `original1`, ...) and
on `module.weight = value`. The module's class becomes a generated subclass
`Parametrized<Class>` holding the properties; `remove_parametrizations` undoes it all.
"""
import contextlib

from ..._core.grad_mode import no_grad
from ..._core.tensor import Tensor
from ..layers import ModuleDict, ModuleList
from ..module import Module
from ..parameter import Parameter

__all__ = ["register_parametrization", "remove_parametrizations", "is_parametrized", "cached",
           "type_before_parametrizations", "ParametrizationList"]

_cache = {"enabled": 0, "values": {}}


@contextlib.contextmanager
def cached():
    """Compute each parametrized tensor once inside the block (as PyTorch's `cached()`)."""
    _cache["enabled"] += 1
    try:
        yield
    finally:
        _cache["enabled"] -= 1
        if not _cache["enabled"]:
            _cache["values"] = {}


def _register(owner, name, tensor):
    if isinstance(tensor, Parameter):
        owner.register_parameter(name, tensor)
    else:
        owner.register_buffer(name, tensor)


def _set_in_place(original, value, unsafe):
    """Write `value` into `original` (the Parameter keeps its identity), as torch's set_."""
    if not isinstance(value, Tensor):
        raise ValueError(f"parametrize: right_inverse must return a Tensor, got "
                         f"{type(value).__name__}")
    if value.shape == original.shape and value.dtype == original.dtype:
        original._data[...] = value._data
    elif unsafe:
        original._data = value._data.copy()
    else:
        raise ValueError(f"parametrize: right_inverse gave a tensor of shape {list(value.shape)} "
                         f"and dtype {value.dtype} for an original of shape "
                         f"{list(original.shape)} and dtype {original.dtype}; pass unsafe=True "
                         "to allow it")
    original._bump_version()


class ParametrizationList(ModuleList):
    """The parametrizations of one tensor and its originals (`original`, or `original0`,
    `original1`, ... when the first `right_inverse` returns several tensors)."""

    def __init__(self, modules, original, unsafe=False):
        super().__init__(modules)
        self.unsafe = unsafe
        new = original
        with no_grad():
            for module in reversed(list(self)):
                if hasattr(module, "right_inverse"):
                    new = module.right_inverse(new)
        self.is_tensor = isinstance(new, Tensor)
        self.ntensors = 1 if self.is_tensor else len(new)
        if self.is_tensor:
            with no_grad():
                _set_in_place(original, new, unsafe=True)
            _register(self, "original", original)
        else:
            for i, value in enumerate(new):
                value = value.detach().clone()
                if isinstance(original, Parameter):
                    value = Parameter(value, requires_grad=original.requires_grad)
                _register(self, f"original{i}", value)

    def right_inverse(self, value):
        """Set the originals so that the parametrized tensor becomes `value`."""
        with no_grad():
            for module in reversed(list(self)):
                if hasattr(module, "right_inverse"):
                    value = module.right_inverse(value)
                elif not self.unsafe:
                    raise RuntimeError(f"parametrization {type(module).__name__} has no "
                                       "right_inverse, so the parametrized tensor can't be "
                                       "assigned")
            if self.is_tensor:
                _set_in_place(self.original, value, self.unsafe)
            else:
                if isinstance(value, Tensor) or len(value) != self.ntensors:
                    raise ValueError(f"parametrize: right_inverse must return {self.ntensors} "
                                     "tensors")
                for i, tensor in enumerate(value):
                    _set_in_place(getattr(self, f"original{i}"), tensor, self.unsafe)

    def forward(self):
        if self.is_tensor:
            x = self[0](self.original)
        else:
            x = self[0](*(getattr(self, f"original{i}") for i in range(self.ntensors)))
        for module in list(self)[1:]:
            x = module(x)
        return x


def _property(name):
    def get(module):
        parametrization = module.parametrizations[name]
        if not _cache["enabled"]:
            return parametrization()
        key = (id(module), name)
        if key not in _cache["values"]:
            _cache["values"][key] = parametrization()
        return _cache["values"][key]

    def set_(module, value):
        module.parametrizations[name].right_inverse(value)
    return property(get, set_)


def _inject_class(module):
    cls = module.__class__
    module.__class__ = type(f"Parametrized{cls.__name__}", (cls,), {"_unparametrized": cls})


def _check_unchanged(x, y, tensor_name):
    if not isinstance(x, Tensor) or x.shape != y.shape or x.dtype != y.dtype:
        raise ValueError(f"register_parametrization: the new parametrization changes "
                         f"{tensor_name!r} of shape {list(y.shape)} and dtype {y.dtype}; "
                         "pass unsafe=True to allow it")


def register_parametrization(module, tensor_name, parametrization, *, unsafe=False):
    """Make `module.<tensor_name>` the result of `parametrization` (a Module) applied to the
    tensor it was; see the module docstring."""
    parametrization.train(module.training)
    if is_parametrized(module, tensor_name):
        chain = module.parametrizations[tensor_name]
        if not unsafe:
            y = getattr(module, tensor_name)
            _check_unchanged(parametrization(y), y, tensor_name)
        chain.append(parametrization)
        chain.unsafe |= unsafe
        return module
    if tensor_name not in module._parameters and tensor_name not in module._buffers:
        raise ValueError(f"register_parametrization: module {type(module).__name__} has no "
                         f"parameter or buffer named {tensor_name!r}")
    original = getattr(module, tensor_name)
    chain = ParametrizationList([parametrization], original, unsafe=unsafe)
    if not unsafe:  # evaluated once now, as PyTorch: a parametrization that fails, fails here
        _check_unchanged(chain(), original, tensor_name)
    delattr(module, tensor_name)
    if not is_parametrized(module):
        module.parametrizations = ModuleDict()
        _inject_class(module)
    module.parametrizations[tensor_name] = chain
    setattr(type(module), tensor_name, _property(tensor_name))
    return module


def is_parametrized(module, tensor_name=None):
    """Whether `module` has a parametrization (on `tensor_name`, if given)."""
    parametrizations = module.__dict__.get("_modules", {}).get("parametrizations")
    if not isinstance(parametrizations, ModuleDict):
        return False
    return tensor_name is None or tensor_name in parametrizations.keys()


def type_before_parametrizations(module):
    """The module's class before parametrizations were registered on it."""
    return module._unparametrized if is_parametrized(module) else type(module)


def remove_parametrizations(module, tensor_name, leave_parametrized=True):
    """Undo `register_parametrization`: `tensor_name` becomes a parameter again, holding the
    parametrized value (`leave_parametrized`) or the original."""
    if not is_parametrized(module, tensor_name):
        raise ValueError(f"remove_parametrizations: Module {type(module).__name__} does not "
                         f"have a parametrization on {tensor_name}")
    chain = module.parametrizations[tensor_name]
    if chain.is_tensor:
        original = chain.original
        if leave_parametrized:
            with no_grad():
                value = getattr(module, tensor_name)
                _set_in_place(original, value, unsafe=True)
    else:
        if not leave_parametrized:
            raise ValueError("remove_parametrizations: cannot leave unparametrized "
                             "(leave_parametrized=False) a tensor that is parametrized in terms "
                             "of a sequence of tensors; pass leave_parametrized=True")
        with no_grad():
            value = getattr(module, tensor_name)
        original = Parameter(value.detach().clone(), requires_grad=value.requires_grad) \
            if isinstance(chain.original0, Parameter) else value.detach().clone()
    delattr(type(module), tensor_name)
    del module.parametrizations._modules[tensor_name]
    _register(module, tensor_name, original)
    if not module.parametrizations._modules:
        delattr(module, "parametrizations")
        module.__class__ = module._unparametrized
    return module
