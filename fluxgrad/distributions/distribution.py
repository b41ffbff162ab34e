"""The `Distribution` base class (shapes, argument and value validation, sample/rsample
plumbing) and the helpers every family uses to take its parameters.

A family sets `arg_constraints` and `support` (see `constraints`) and calls
`super().__init__(batch_shape, event_shape, validate_args)` after storing its parameters;
with validation on (the default, as in torch) a parameter outside its constraint raises
ValueError there, and `log_prob`/`cdf` of a value outside the support raise ValueError.
Validation reads concrete numbers, so it is skipped while a static program is being built.
"""
import copy

from .. import ops
from .._core.grad_mode import no_grad
from .._core.size import Size
from .._core.static_mode import state as _static_state
from .._core.tensor import Tensor
from ..creation import tensor
from . import constraints

__all__ = ["Distribution", "as_float", "broadcast_all"]


def _staged(value):
    """Whether `value` is a value of a program being built (static mode or fluxgrad.compile's
    tracing): its numbers are not known, so it can't be validated."""
    if not _static_state.armed:
        return False
    from ..static.program import Variable
    return _static_state.enabled or isinstance(value, Variable)


def as_float(value):
    return value if isinstance(value, Tensor) else tensor(float(value))


def broadcast_all(*values):
    """Parameters (tensors or numbers) as tensors of one broadcast shape; numbers take the
    dtype of the tensors among them (else the default float dtype)."""
    like = next((v for v in values if isinstance(v, Tensor)), None)
    values = [v if isinstance(v, Tensor) else
              tensor(float(v), dtype=like.dtype if like is not None and like.is_floating_point()
                     else None) for v in values]
    return ops.broadcast_tensors(*values)


def _brief(value):
    return value.item() if value.numel() == 1 else f"torch.Size({list(value.shape)})"


class Distribution:
    """Base class: a batch of independent distributions of shape `batch_shape`, each over
    events of shape `event_shape`."""
    has_rsample = False
    has_enumerate_support = False
    arg_constraints = {}
    support = None
    _validate_default = True

    @staticmethod
    def set_default_validate_args(value):
        if value not in (True, False):
            raise ValueError(f"set_default_validate_args: expected True or False, got {value!r}")
        Distribution._validate_default = value

    def __init__(self, batch_shape=(), event_shape=(), validate_args=None):
        self._batch_shape, self._event_shape = Size(batch_shape), Size(event_shape)
        self._validate_args = self._validate_default if validate_args is None else validate_args
        if self._validate_args:
            for name, constraint in self.arg_constraints.items():
                if constraint is constraints.dependent or name not in self.__dict__:
                    continue  # a parameter derived from another one (probs from logits)
                value = self.__dict__[name]
                if not (_staged(value) or constraint.check(value).all()):
                    raise ValueError(
                        f"Expected parameter {name} ({type(value).__name__} of shape "
                        f"{tuple(value.shape)}) of distribution {self!r} to satisfy the "
                        f"constraint {constraint!r}, but found invalid values:\n{value}")

    @property
    def batch_shape(self):
        return self._batch_shape

    @property
    def event_shape(self):
        return self._event_shape

    def _extended(self, sample_shape):
        return tuple(Size(sample_shape)) + tuple(self.batch_shape) + tuple(self.event_shape)

    def _validate_sample(self, value):
        """ValueError for a value outside the support (with validation on)."""
        if not self._validate_args or self.support is None or _staged(value):
            return
        if not isinstance(value, Tensor):
            raise ValueError("The value argument to log_prob must be a Tensor")
        if not self.support.check(value).all():
            raise ValueError(
                f"Expected value argument ({type(value).__name__} of shape "
                f"{tuple(value.shape)}) to be within the support ({self.support!r}) of the "
                f"distribution {self!r}, but found invalid values:\n{value}")

    def expand(self, batch_shape, _instance=None):
        """This distribution with its batch dimensions broadcast to `batch_shape` (every tensor
        parameter expanded, not copied). Wrappers of other distributions expand those."""
        batch_shape, old = Size(batch_shape), len(self.batch_shape)
        new = copy.copy(self)
        for name, value in self.__dict__.items():
            if isinstance(value, Tensor) and tuple(value.shape[:old]) == tuple(self.batch_shape):
                new.__dict__[name] = value.expand(*batch_shape, *value.shape[old:])
            elif isinstance(value, Distribution):
                raise NotImplementedError(f"{type(self).__name__}.expand: the distribution "
                                          f"{name} inside it must be expanded too")
        new._batch_shape = batch_shape
        return new

    def expand_shape(self, sample_shape):
        return Size(self._extended(sample_shape))

    def sample(self, sample_shape=()):
        """A draw of shape sample_shape + batch_shape + event_shape, outside the graph."""
        with no_grad():
            return self.rsample(sample_shape)

    def sample_n(self, n):
        return self.sample((n,))

    def rsample(self, sample_shape=()):
        raise NotImplementedError(f"{type(self).__name__} has no reparameterised sample "
                                  "(rsample); use sample(), which gives no gradient")

    def enumerate_support(self, expand=True):
        raise NotImplementedError(f"{type(self).__name__} has no enumerate_support (its support "
                                  "is not finite)")

    def log_prob(self, value):
        raise NotImplementedError(f"{type(self).__name__} has no log_prob")

    def cdf(self, value):
        raise NotImplementedError(f"{type(self).__name__} has no cdf")

    def icdf(self, value):
        raise NotImplementedError(f"{type(self).__name__} has no icdf")

    def entropy(self):
        raise NotImplementedError(f"{type(self).__name__} has no entropy")

    def perplexity(self):
        return ops.exp(self.entropy())

    @property
    def mean(self):
        raise NotImplementedError(f"{type(self).__name__} has no mean")

    @property
    def mode(self):
        raise NotImplementedError(f"{type(self).__name__} has no mode")

    @property
    def variance(self):
        raise NotImplementedError(f"{type(self).__name__} has no variance")

    @property
    def stddev(self):
        return ops.sqrt(self.variance)

    def __repr__(self):
        names = [n for n in self.arg_constraints if n in self.__dict__]
        if not names:
            return f"{type(self).__name__}(batch_shape={list(self.batch_shape)})"
        shown = ", ".join(f"{n}: {_brief(self.__dict__[n])}" for n in names)
        return f"{type(self).__name__}({shown})"


class LocationScale(Distribution):
    """A real distribution with a location `loc` and a positive `scale` (Normal, Laplace,
    Cauchy, Gumbel), whose mode is `loc`."""
    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    def __init__(self, loc, scale, validate_args=None):
        self.loc, self.scale = broadcast_all(loc, scale)
        super().__init__(self.loc.shape, validate_args=validate_args)

    @property
    def mode(self):
        return self.loc
