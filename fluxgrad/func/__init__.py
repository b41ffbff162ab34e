"""Composable function transforms in the style of JAX and torch.func.

Each transform takes a function of tensors (or nested tuples/lists/dicts of
tensors) and returns a function. Reverse mode runs on the eager tape, forward
mode on dual tensors; they nest: `hessian = jacfwd(jacrev(f))` (forward over
reverse), `grad(grad(f))`, `grad` of a `jvp`.
"""
import numpy as np

from .._core.engine import grad as _grad
from .._core.forward_mode import state as _forward_state
from .._core.grad_mode import enable_grad
from .._core.tensor import Tensor
from ..autograd import forward_ad
from ..autograd.forward_grad import forward_grad
from ..creation import get_rng, zeros_like
from ..ops.alias import alias
from ._tree import flatten, tree_map

__all__ = ["grad", "value_and_grad", "vjp", "jvp", "linearize", "jacrev", "jacfwd", "hessian",
           "hvp", "hessian_diag", "laplacian", "hutchinson_trace"]


def _prepare(x):
    """A differentiable stand-in for `x` that keeps its graph and tangent, if it has them."""
    if not x.is_floating_point():
        return x
    if x.requires_grad:
        return alias(x)
    leaf = x.detach().requires_grad_()
    leaf._tangent = x._tangent
    return leaf


def _argnums(argnums, nargs, name):
    nums = (argnums,) if isinstance(argnums, int) else tuple(argnums)
    for n in nums:
        if not -nargs <= n < nargs:
            raise ValueError(f"{name}: argnums {argnums} is out of range for {nargs} arguments")
    return nums


def _prepare_args(args, nums):
    """Replace args[n] for n in nums by prepared copies; return (args, per-arg (leaves, rebuild))."""
    args = list(args)
    prepared = []
    for n in nums:
        leaves, rebuild = flatten(args[n])
        new = [_prepare(x) for x in leaves]
        args[n] = rebuild(new)
        prepared.append((leaves, new, rebuild))
    return args, prepared


def _regroup(flat, prepared, argnums):
    """Per-leaf results back into the arguments' structures: one argument if `argnums` is an
    int, else a tuple with one entry per prepared argument."""
    results, start = [], 0
    for _, new, rebuild in prepared:
        results.append(rebuild(flat[start:start + len(new)]))
        start += len(new)
    return results[0] if isinstance(argnums, int) else tuple(results)


def value_and_grad(f, argnums=0, has_aux=False):
    """`f`'s value and its gradient w.r.t. the arguments in `argnums` (f must return a scalar)."""
    def wrapper(*args, **kwargs):
        nums = _argnums(argnums, len(args), "grad")
        with enable_grad():
            args, prepared = _prepare_args(args, nums)
            out = f(*args, **kwargs)
            value, aux = _split_aux(out, has_aux, "grad")
            if not isinstance(value, Tensor) or value.numel() != 1:
                shape = list(value.shape) if isinstance(value, Tensor) else type(value).__name__
                raise ValueError(f"grad(f): f must return a tensor with one element, got {shape}; "
                                 "use vjp or jacrev for non-scalar outputs")
            inputs = [x for _, new, _ in prepared for x in new]
            nested = any(x.requires_grad for old, _, _ in prepared for x in old)
            grads = _grad(value, inputs, create_graph=nested, allow_unused=True) if inputs else ()
        grads = [zeros_like(x) if g is None else g for x, g in zip(inputs, grads)]
        g = _regroup(grads, prepared, argnums)
        if not nested:
            value, aux = value.detach(), tree_map(Tensor.detach, aux)
        return ((value, aux), g) if has_aux else (value, g)
    return wrapper


def grad(f, argnums=0, has_aux=False):
    """The gradient of scalar-valued `f` w.r.t. the arguments in `argnums`."""
    vg = value_and_grad(f, argnums, has_aux)

    def wrapper(*args, **kwargs):
        value, g = vg(*args, **kwargs)
        return (g, value[1]) if has_aux else g
    return wrapper


def _split_aux(out, has_aux, name):
    if not has_aux:
        return out, None
    if not isinstance(out, (tuple, list)) or len(out) != 2:
        raise ValueError(f"{name}(has_aux=True): f must return a pair (output, aux)")
    return out[0], out[1]


def vjp(f, *primals, has_aux=False):
    """(f(*primals), vjp_fn): `vjp_fn(cotangents)` gives the cotangents of every primal."""
    with enable_grad():
        args, prepared = _prepare_args(primals, range(len(primals)))
        out = f(*args)
    out, aux = _split_aux(out, has_aux, "vjp")
    out_leaves, _ = flatten(out)
    inputs = [x for _, new, _ in prepared for x in new]
    nested = any(x.requires_grad for old, _, _ in prepared for x in old)

    def vjp_fn(cotangents):
        cot_leaves, _ = flatten(cotangents)
        if len(cot_leaves) != len(out_leaves):
            raise ValueError(f"vjp_fn: got {len(cot_leaves)} cotangents for {len(out_leaves)} "
                             "outputs")
        for i, (c, y) in enumerate(zip(cot_leaves, out_leaves)):
            if tuple(c.shape) != tuple(y.shape):
                raise ValueError(f"vjp_fn: cotangent {i} has shape {list(c.shape)} but the output "
                                 f"has shape {list(y.shape)}")
        pairs = [(y, c) for y, c in zip(out_leaves, cot_leaves) if y.requires_grad]
        grads = (None,) * len(inputs)
        if pairs and inputs:
            with enable_grad():
                grads = _grad([y for y, _ in pairs], inputs, [c for _, c in pairs],
                              retain_graph=True, create_graph=nested, allow_unused=True)
        grads = [zeros_like(x) if g is None else g for x, g in zip(inputs, grads)]
        return _regroup(grads, prepared, None)
    return (out, vjp_fn, aux) if has_aux else (out, vjp_fn)


def jvp(f, primals, tangents, has_aux=False):
    """(f(*primals), J·tangents) in one forward pass with dual tensors."""
    primals, tangents = tuple(primals), tuple(tangents)
    if len(primals) != len(tangents):
        raise ValueError(f"jvp: {len(primals)} primals but {len(tangents)} tangents")
    if _forward_state.level:
        raise NotImplementedError("jvp: forward mode inside forward mode (jvp of jvp, jacfwd of "
                                  "jacfwd) is not supported; nest reverse mode instead, e.g. "
                                  "jacfwd(jacrev(f))")
    with forward_ad.dual_level():
        duals = []
        for i, (p, t) in enumerate(zip(primals, tangents)):
            p_leaves, rebuild = flatten(p)
            t_leaves, _ = flatten(t)
            if len(p_leaves) != len(t_leaves):
                raise ValueError(f"jvp: primal {i} and its tangent have different structures")
            for x, v in zip(p_leaves, t_leaves):
                if tuple(x.shape) != tuple(v.shape):
                    raise ValueError(f"jvp: a tangent has shape {list(v.shape)} but its primal "
                                     f"has shape {list(x.shape)}; they must match")
            duals.append(rebuild([forward_ad.make_dual(x, v) for x, v in zip(p_leaves,
                                                                             t_leaves)]))
        out = f(*duals)
        out, aux = _split_aux(out, has_aux, "jvp")
        leaves, rebuild = flatten(out)
        unpacked = [forward_ad.unpack_dual(y) for y in leaves]
    primal_out = rebuild([p for p, _ in unpacked])
    tangent_out = rebuild([zeros_like(p) if t is None else t for p, t in unpacked])
    return (primal_out, tangent_out, aux) if has_aux else (primal_out, tangent_out)


def linearize(f, *primals):
    """(f(*primals), jvp_fn): f runs once; `jvp_fn(*tangents)` pushes tangents along its graph."""
    with enable_grad():
        args, prepared = _prepare_args(primals, range(len(primals)))
        out = f(*args)
    out_leaves, rebuild_out = flatten(out)
    inputs = [x for _, new, _ in prepared for x in new]

    def jvp_fn(*tangents):
        t_leaves = [t for tree in tangents for t in flatten(tree)[0]]
        if len(t_leaves) != len(inputs):
            raise ValueError(f"jvp_fn: got {len(t_leaves)} tangents for {len(inputs)} inputs")
        dots = forward_grad(out_leaves, inputs, t_leaves)
        return rebuild_out([zeros_like(y) if d is None else d
                            for y, d in zip(out_leaves, dots)])
    return out, jvp_fn


def _unit(shape, index, like):
    e = np.zeros(int(np.prod(shape)), like._data.dtype)
    e[index] = 1
    return Tensor(e.reshape(shape))


def _jacobian_transform(f, argnums, has_aux, name, jacobians):
    """A Jacobian transform; `jacobians(out, inputs, nested)` gives one per input leaf."""
    def wrapper(*args):
        nums = _argnums(argnums, len(args), name)
        with enable_grad():
            args, prepared = _prepare_args(args, nums)
            out = f(*args)
        out, aux = _split_aux(out, has_aux, name)
        if not isinstance(out, Tensor):
            raise TypeError(f"{name}: f must return a single tensor")
        inputs = [x for _, new, _ in prepared for x in new]
        nested = any(x.requires_grad for old, _, _ in prepared for x in old)
        jacs = jacobians(out, inputs, nested)
        if not nested:
            jacs = [j.detach() for j in jacs]
        jac = _regroup(jacs, prepared, argnums)
        return (jac, aux) if has_aux else jac
    return wrapper


def _rows_by_vjp(out, inputs, nested):
    rows = [[] for _ in inputs]
    for i in range(out.numel()):
        gs = (None,) * len(inputs)
        if out.requires_grad:
            with enable_grad():
                gs = _grad(out, inputs, _unit(out.shape, i, out), retain_graph=True,
                           create_graph=nested, allow_unused=True)
        for k, (x, g) in enumerate(zip(inputs, gs)):
            rows[k].append((zeros_like(x) if g is None else g).reshape(-1))
    return [_assemble(r, 0, out.shape, x.shape) for r, x in zip(rows, inputs)]


def _columns_by_jvp(out, inputs, nested):
    jacs = []
    for k, x in enumerate(inputs):
        cols = []
        for j in range(x.numel()):
            tangents = [_unit(x.shape, j, x) if m == k else zeros_like(z)
                        for m, z in enumerate(inputs)]
            dot = forward_grad(out, inputs, tangents) if out.requires_grad else None
            cols.append((zeros_like(out) if dot is None else dot).reshape(-1))
        jacs.append(_assemble(cols, 1, out.shape, x.shape))
    return jacs


def _assemble(vectors, axis, out_shape, in_shape):
    """Rows (axis 0) or columns (axis 1) of a flat Jacobian, shaped out_shape + in_shape."""
    from ..ops import stack
    shape = tuple(out_shape) + tuple(in_shape)
    if not vectors:
        return Tensor(np.zeros(shape))
    return stack(vectors, axis=axis).reshape(shape)


def jacrev(f, argnums=0, has_aux=False):
    """The Jacobian by reverse mode (one VJP per output element): shape out.shape + in.shape."""
    return _jacobian_transform(f, argnums, has_aux, "jacrev", _rows_by_vjp)


def jacfwd(f, argnums=0, has_aux=False):
    """The Jacobian by forward mode (one JVP per input element): shape out.shape + in.shape."""
    return _jacobian_transform(f, argnums, has_aux, "jacfwd", _columns_by_jvp)


def hessian(f, argnums=0):
    """The Hessian of scalar-valued `f`: forward mode over reverse mode."""
    return jacfwd(jacrev(f, argnums), argnums)


def hvp(f, primals, tangents):
    """(f(*primals), H·tangents): forward over reverse, one pass, no Hessian formed."""
    primals, tangents = tuple(primals), tuple(tangents)
    value_box = []

    def gradient(*xs):
        value, g = value_and_grad(f, tuple(range(len(xs))))(*xs)
        value_box.append(value)
        return g
    _, dots = jvp(gradient, primals, tangents)
    value = forward_ad.unpack_dual(value_box[0])[0]
    return value, dots if len(primals) > 1 else dots[0]


def hessian_diag(f, x, method="exact", num_samples=64):
    """The diagonal of f's Hessian at x: exact (one HVP per element) or Hutchinson's estimate."""
    if method == "exact":
        diag = np.empty(x.numel(), x._data.dtype)
        for i in range(x.numel()):
            _, hv = hvp(f, (x,), (_unit(x.shape, i, x),))
            diag[i] = hv._data.reshape(-1)[i]
        return Tensor(diag.reshape(x.shape))
    if method == "hutchinson":
        total = zeros_like(x)
        for v in _rademacher(x, num_samples):
            _, hv = hvp(f, (x,), (v,))
            total = total + v * hv
        return total / num_samples
    raise ValueError(f"hessian_diag: method must be 'exact' or 'hutchinson', got {method!r}")


def laplacian(f, x, method="exact", num_samples=64):
    """Sum of f's second derivatives at x (the trace of the Hessian), e.g. for PDE residuals."""
    if method == "exact":
        return hessian_diag(f, x, "exact").sum()
    if method == "hutchinson":
        return hutchinson_trace(f, x, num_samples=num_samples, of="hessian")
    raise ValueError(f"laplacian: method must be 'exact' or 'hutchinson', got {method!r}")


def hutchinson_trace(f, x, num_samples=64, of="hessian"):
    """Hutchinson's estimate E[vᵀ A v] of the trace of f's Hessian (or Jacobian, for square f)."""
    if of not in ("hessian", "jacobian"):
        raise ValueError(f"hutchinson_trace: of must be 'hessian' or 'jacobian', got {of!r}")
    total = 0.0
    for v in _rademacher(x, num_samples):
        if of == "hessian":
            _, av = hvp(f, (x,), (v,))
        else:
            _, av = jvp(f, (x,), (v,))
        total = total + (v * av).sum()
    return total / num_samples


def _rademacher(x, n):
    rng = get_rng()
    for _ in range(n):
        yield Tensor((rng.integers(0, 2, x.shape) * 2 - 1).astype(x._data.dtype))
