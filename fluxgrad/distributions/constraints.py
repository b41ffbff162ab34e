"""`fluxgrad.distributions.constraints`: the sets a parameter or a value must lie in, under
torch's names (`real`, `positive`, `unit_interval`, `simplex`, `interval(a, b)`, ...).

`check(value)` answers per element of the batch (a bool tensor, the event dims reduced);
distributions use it to validate their arguments and the values they score.
"""
import numpy as np

from .._core.tensor import Tensor

__all__ = ["Constraint", "boolean", "dependent", "greater_than", "greater_than_eq",
           "half_open_interval", "independent", "integer_interval", "interval", "less_than",
           "lower_cholesky", "nonnegative", "nonnegative_integer", "positive", "positive_definite",
           "positive_integer", "real", "real_vector", "simplex", "unit_interval", "corr_cholesky"]


def _array(value):
    return value.detach().numpy() if isinstance(value, Tensor) else np.asarray(value)


class Constraint:
    """A set of values; `event_dim` trailing dims form one element of it."""
    event_dim = 0
    is_discrete = False

    def __init__(self, test, name, event_dim=0, is_discrete=False, kind=None, params=()):
        self._test, self._name = test, name
        self.event_dim, self.is_discrete = event_dim, is_discrete
        # the family a parameterised constraint belongs to (for biject_to / transform_to)
        self.kind, self.params = kind, params

    def check(self, value):
        value = _array(value)
        ok = np.asarray(self._test(value))
        batch_ndim = max(value.ndim - self.event_dim, 0)
        if ok.ndim > batch_ndim:  # a test that left event dims: all of an event must pass
            ok = ok.reshape(ok.shape[:batch_ndim] + (-1,)).all(-1)
        return Tensor(np.asarray(ok, dtype=bool))

    def __repr__(self):
        return self._name


def _integer(v):
    return v == np.floor(v)


def _show(bound):
    return bound.item() if isinstance(bound, Tensor) and bound.numel() == 1 else bound


def greater_than(lower_bound):
    return Constraint(lambda v: v > _array(lower_bound),
                      f"GreaterThan(lower_bound={_show(lower_bound)})", kind="greater_than",
                      params=(lower_bound,))


def less_than(upper_bound):
    return Constraint(lambda v: v < _array(upper_bound),
                      f"LessThan(upper_bound={_show(upper_bound)})", kind="less_than",
                      params=(upper_bound,))


def greater_than_eq(lower_bound):
    return Constraint(lambda v: v >= _array(lower_bound),
                      f"GreaterThanEq(lower_bound={_show(lower_bound)})",
                      kind="greater_than_eq", params=(lower_bound,))


def interval(lower_bound, upper_bound):
    return Constraint(lambda v: (v >= _array(lower_bound)) & (v <= _array(upper_bound)),
                      f"Interval(lower_bound={_show(lower_bound)}, "
                      f"upper_bound={_show(upper_bound)})", kind="interval",
                      params=(lower_bound, upper_bound))


def half_open_interval(lower_bound, upper_bound):
    return Constraint(lambda v: (v >= _array(lower_bound)) & (v < _array(upper_bound)),
                      f"HalfOpenInterval(lower_bound={_show(lower_bound)}, "
                      f"upper_bound={_show(upper_bound)})", kind="half_open_interval",
                      params=(lower_bound, upper_bound))


def integer_interval(lower_bound, upper_bound):
    return Constraint(
        lambda v: _integer(v) & (v >= _array(lower_bound)) & (v <= _array(upper_bound)),
        f"IntegerInterval(lower_bound={_show(lower_bound)}, upper_bound={_show(upper_bound)})",
        is_discrete=True)


def independent(base, reinterpreted_batch_ndims):
    return Constraint(base._test, f"IndependentConstraint({base}, {reinterpreted_batch_ndims})",
                      base.event_dim + reinterpreted_batch_ndims, base.is_discrete,
                      kind="independent", params=(base, reinterpreted_batch_ndims))


def _lower_cholesky(v):
    lower = np.all(np.triu(v, 1) == 0, axis=(-2, -1))
    return lower & np.all(np.diagonal(v, axis1=-2, axis2=-1) > 0, axis=-1)


def _corr_cholesky(v):
    tol = np.finfo(v.dtype).eps * v.shape[-1] * 10
    unit_rows = np.all(np.abs(np.linalg.norm(v, axis=-1) - 1) <= tol, axis=-1)
    return _lower_cholesky(v) & unit_rows


def _positive_definite(v):
    symmetric = np.all(np.isclose(v, np.swapaxes(v, -1, -2), atol=1e-6), axis=(-2, -1))
    return symmetric & np.all(np.linalg.eigvalsh(v) > 0, axis=-1)


real = Constraint(lambda v: v == v, "Real()")  # nan is outside
dependent = Constraint(lambda v: np.ones(np.shape(v), bool), "Dependent()")
boolean = Constraint(lambda v: (v == 0) | (v == 1), "Boolean()", is_discrete=True)
positive = greater_than(0.0)
nonnegative = greater_than_eq(0.0)
unit_interval = interval(0.0, 1.0)
nonnegative_integer = Constraint(lambda v: _integer(v) & (v >= 0),
                                 "IntegerGreaterThan(lower_bound=0)", is_discrete=True)
positive_integer = Constraint(lambda v: _integer(v) & (v >= 1),
                              "IntegerGreaterThan(lower_bound=1)", is_discrete=True)
real_vector = independent(real, 1)
simplex = Constraint(lambda v: np.all(v >= 0, axis=-1) & (np.abs(v.sum(-1) - 1) < 1e-6),
                     "Simplex()", event_dim=1)
lower_cholesky = Constraint(_lower_cholesky, "LowerCholesky()", event_dim=2)
positive_definite = Constraint(_positive_definite, "PositiveDefinite()", event_dim=2)
corr_cholesky = Constraint(_corr_cholesky, "CorrCholesky()", event_dim=2)
