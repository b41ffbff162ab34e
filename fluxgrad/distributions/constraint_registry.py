"""`biject_to` and `transform_to`, torch's registries from constraints to transforms:
`biject_to(c)` is a bijection from unconstrained space onto `c` (for HMC-style samplers
that need a log-determinant), `transform_to(c)` any transform onto it (for constrained
optimisation: `param = transform_to(c)(unconstrained)`). `register(constraint, factory)`
(or as a decorator) adds a constraint object, or a family of them by its `kind`
("greater_than", "interval", ...), with `factory(constraint) -> Transform`.
"""

from . import constraints
from . import transforms as T

__all__ = ["ConstraintRegistry", "biject_to", "transform_to"]


class ConstraintRegistry:
    def __init__(self):
        self._by_object, self._by_kind = {}, {}

    def register(self, constraint, factory=None):
        """Map `constraint` (an object, or a kind name) to `factory`; without `factory`,
        returns a decorator."""
        if factory is None:
            return lambda factory: self.register(constraint, factory)
        if isinstance(constraint, str):
            self._by_kind[constraint] = factory
        else:
            self._by_object[id(constraint)] = (constraint, factory)
        return factory

    def __call__(self, constraint):
        found = self._by_object.get(id(constraint))
        if found is not None:
            return found[1](constraint)
        factory = self._by_kind.get(getattr(constraint, "kind", None))
        if factory is None:
            raise NotImplementedError(f"Cannot transform {constraint!r} constraints; register "
                                      "a transform for it with .register(constraint, factory)")
        return factory(constraint)


biject_to = ConstraintRegistry()
transform_to = ConstraintRegistry()


def _independent(registry):
    def factory(constraint):
        base, n = constraint.params
        return T.IndependentTransform(registry(base), n)
    return factory


def _above(constraint):
    return T.ComposeTransform([T.ExpTransform(), T.AffineTransform(constraint.params[0], 1)])


def _below(constraint):
    return T.ComposeTransform([T.ExpTransform(), T.AffineTransform(constraint.params[0], -1)])


def _interval(constraint):
    lower, upper = constraint.params
    if _is_number(lower, 0) and _is_number(upper, 1):
        return T.SigmoidTransform()
    return T.ComposeTransform([T.SigmoidTransform(), T.AffineTransform(lower, upper - lower)])


def _is_number(value, target):
    return isinstance(value, (int, float)) and value == target


for _registry in (biject_to, transform_to):
    _registry.register(constraints.real, lambda c: T.identity_transform)
    _registry.register(constraints.positive, lambda c: T.ExpTransform())
    _registry.register(constraints.nonnegative, lambda c: T.ExpTransform())
    _registry.register("greater_than", _above)
    _registry.register("greater_than_eq", _above)
    _registry.register("less_than", _below)
    _registry.register("interval", _interval)
    _registry.register("half_open_interval", _interval)
    _registry.register("independent", _independent(_registry))
    _registry.register(constraints.corr_cholesky, lambda c: T.CorrCholeskyTransform())

biject_to.register(constraints.simplex, lambda c: T.StickBreakingTransform())
transform_to.register(constraints.simplex, lambda c: T.SoftmaxTransform())
# (not bijections: torch's biject_to has none for these either)
transform_to.register(constraints.lower_cholesky, lambda c: T.LowerCholeskyTransform())
transform_to.register(constraints.positive_definite, lambda c: T.PositiveDefiniteTransform())
