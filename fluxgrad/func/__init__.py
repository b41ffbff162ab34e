"""Composable function transforms in the style of JAX and torch.func.

Each transform takes a function of tensors (or nested tuples/lists/dicts of
tensors) and returns a function. Reverse mode runs on the eager tape, forward
mode on dual tensors; they nest: `hessian = jacfwd(jacrev(f))` (forward over
reverse), `grad(grad(f))`, `grad` of a `jvp`. On static Variables (static mode, or
inside `fluxgrad.compile`) they build program equations: batching and JVP rules run as
usual and the ops they issue stage, reverse mode is the program's staged VJP.
"""
import numpy as np

from .._core import batching, engine as _engine
from .._core.errors import ShapeError
from .._core.forward_mode import state as _forward_state, tangent_tensor
from .._core.static_mode import state as _static_state
from .._core.grad_mode import enable_grad, set_grad_enabled, state as _grad_state
from .._core.open_levels import closed as _level_closed, opened as _level_opened, \
    state as _open_levels
from .._core.tensor import Tensor
from ..autograd import forward_ad
from ..autograd.forward_grad import forward_grad
from ..creation import get_rng, zeros_like
from ..ops.alias import alias
from ._tree import flatten, is_tree_of_tensors, tree_map
from ._functional_call import functional_call, stack_module_state
from ._vmap import vmap

__all__ = ["grad", "value_and_grad", "grad_and_value", "vjp", "jvp", "linearize", "jacrev",
           "jacfwd", "hessian", "hvp", "hessian_diag", "laplacian", "hutchinson_trace", "vmap",
           "functional_call", "stack_module_state"]


def _grad(outputs, inputs, grad_outputs=None, **kwargs):
    """`autograd.grad`, which also stages on static Variables (so `fluxgrad.compile` traces
    these transforms); imported late, as autograd imports this package."""
    from ..autograd import grad
    return grad(outputs, inputs, grad_outputs, **kwargs)


def _prepare(x):
    """A differentiable stand-in for `x` that keeps its graph and tangent, if it has them.

    Inside vmap it is batched at every open level, so that each example gets a gradient
    of its own even where `x` is shared by all of them."""
    if not x.is_floating_point():
        return x
    for level in batching.state.sizes:
        if not batching.is_batched_at(x, level):
            x = batching.spread(x, level)
    if x.requires_grad:
        return alias(x)
    tangent = batching.tangent_of(x)
    leaf = x.detach().requires_grad_()
    return leaf if tangent is None else batching.with_tangent(leaf, tangent)


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
        if not leaves:
            raise TypeError(f"argument {n} is differentiated but holds no tensor (got "
                            f"{type(args[n]).__name__}); pass a tensor, or a tuple/list/dict "
                            "of tensors, or leave it out of argnums")
        new = [_prepare(x) for x in leaves]
        args[n] = rebuild(new)
        prepared.append((leaves, new, rebuild))
    return args, prepared


def _nested(prepared):
    """Whether gradients w.r.t. the prepared arguments must themselves be differentiable: an
    argument requires grad, or carries a tangent that does (grad of an hvp in its vector)."""
    for old, _, _ in prepared:
        for x in old:
            if x.requires_grad:
                return True
            tangent = batching.tangent_of(x)
            if tangent is not None and tangent.requires_grad:
                return True
    return False


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
            _check_scalar(value)
            inputs = [x for _, new, _ in prepared for x in new]
            nested = _nested(prepared)
            grads = (None,) * len(inputs)
            if inputs and value.requires_grad:
                grads = _grad(value, inputs, create_graph=nested, allow_unused=True)
        grads = [zeros_like(x) if g is None else g for x, g in zip(inputs, grads)]
        g = _regroup(grads, prepared, argnums)
        if not nested:
            value, aux = value.detach(), _detached(aux)
        return ((value, aux), g) if has_aux else (value, g)
    return wrapper


def _check_scalar(value):
    if not isinstance(value, Tensor) or value.numel() != 1:
        shape = list(value.shape) if isinstance(value, Tensor) else type(value).__name__
        raise ShapeError(f"grad(f): f must return a tensor with one element, got {shape}; "
                         "use vjp or jacrev for non-scalar outputs")


def grad(f, argnums=0, has_aux=False):
    """The gradient of scalar-valued `f` w.r.t. the arguments in `argnums`."""
    vg = value_and_grad(f, argnums, has_aux)

    def wrapper(*args, **kwargs):
        value, g = vg(*args, **kwargs)
        return (g, value[1]) if has_aux else g
    return wrapper


def grad_and_value(f, argnums=0, has_aux=False):
    """torch.func's order: (gradient, value), the value being (value, aux) when has_aux."""
    vg = value_and_grad(f, argnums, has_aux)

    def wrapper(*args, **kwargs):
        value, g = vg(*args, **kwargs)
        return g, value
    return wrapper


def _split_aux(out, has_aux, name):
    if not has_aux:
        return out, None
    if not isinstance(out, (tuple, list)) or len(out) != 2:
        raise ValueError(f"{name}(has_aux=True): f must return a pair (output, aux)")
    return out[0], out[1]


def _record(f, args, has_aux, name, nums=None):
    """f run once on stand-ins for the arguments in `nums` (all by default), its graph
    recorded: (out, aux, prepared, the stand-ins' leaves)."""
    with enable_grad():
        args, prepared = _prepare_args(args, range(len(args)) if nums is None else nums)
        out = f(*args)
    out, aux = _split_aux(out, has_aux, name)
    return out, aux, prepared, [x for _, new, _ in prepared for x in new]


def vjp(f, *primals, has_aux=False):
    """(f(*primals), vjp_fn): `vjp_fn(cotangents)` gives the cotangents of every primal."""
    out, aux, prepared, inputs = _record(f, primals, has_aux, "vjp")
    out_leaves, _ = flatten(out)
    nested = _nested(prepared)

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
    if not nested:  # as torch.func's: the value carries no graph (vjp_fn keeps its own)
        out, aux = _detached(out), _detached(aux)
    return (out, vjp_fn, aux) if has_aux else (out, vjp_fn)


def jvp(f, primals, tangents, has_aux=False):
    """(f(*primals), J·tangents) in one forward pass with dual tensors."""
    if not isinstance(primals, (tuple, list)) or not isinstance(tangents, (tuple, list)):
        raise TypeError("jvp: primals and tangents must be tuples (or lists) with one entry per "
                        "argument of f, e.g. jvp(f, (x,), (v,)); got "
                        f"{type(primals).__name__} and {type(tangents).__name__}")
    primals, tangents = tuple(primals), tuple(tangents)
    if len(primals) != len(tangents):
        raise ValueError(f"jvp: {len(primals)} primals but {len(tangents)} tangents")
    _check_tangents(primals, tangents)
    if _forward_state.level:
        return _jvp_along_graph(f, primals, tangents, has_aux)
    with forward_ad.dual_level():
        duals = []
        for p, t in zip(primals, tangents):
            p_leaves, rebuild = flatten(p)
            duals.append(rebuild([forward_ad.make_dual(x, v)
                                  for x, v in zip(p_leaves, flatten(t)[0])]))
        out = f(*duals)
        out, aux = _split_aux(out, has_aux, "jvp")
        aux = tree_map(lambda t: forward_ad.unpack_dual(t)[0], aux)
        leaves, rebuild = flatten(out)
        unpacked = [forward_ad.unpack_dual(y) for y in leaves]
    primal_out = rebuild([p for p, _ in unpacked])
    tangent_out = rebuild([zeros_like(p) if t is None else t for p, t in unpacked])
    if not _any_requires_grad(primals + tangents):
        # the graph recorded by forward mode nested inside is of no use to the caller
        primal_out, tangent_out, aux = _detached(primal_out), _detached(tangent_out), _detached(aux)
    return (primal_out, tangent_out, aux) if has_aux else (primal_out, tangent_out)


def _detached(tree):
    return tree_map(lambda t: t.detach(), tree)


def _any_requires_grad(tree):
    return any(x.requires_grad for x in flatten(tree)[0])


def _check_tangents(primals, tangents):
    for i, (p, t) in enumerate(zip(primals, tangents)):
        p_leaves, t_leaves = flatten(p)[0], flatten(t)[0]
        if len(p_leaves) != len(t_leaves):
            raise ValueError(f"jvp: primal {i} and its tangent have different structures")
        for x, v in zip(p_leaves, t_leaves):
            if not isinstance(v, Tensor) or tuple(x.shape) != tuple(v.shape):
                got = list(v.shape) if isinstance(v, Tensor) else type(v).__name__
                raise ShapeError(f"jvp: a tangent has shape {got} but its primal "
                                 f"has shape {list(x.shape)}; they must match")
            if x.is_floating_point() and v.dtype != x.dtype:
                raise TypeError(f"jvp: a tangent has dtype {v.dtype} but its primal has dtype "
                                f"{x.dtype}; cast the tangent, e.g. v.to(x.dtype)")


def _jvp_along_graph(f, primals, tangents, has_aux):
    """jvp inside forward mode (jvp of jvp, jacfwd of jacfwd): f runs once, recording its
    graph (the outer tangents flow through it as usual), then the inner tangents are pushed
    along that graph by the ops' JVP rules, which carry the outer tangents in turn."""
    out, aux, _, inputs = _record(f, primals, has_aux, "jvp")
    out_leaves, rebuild_out = flatten(out)
    pairs = [(x, v) for x, v in zip(inputs, [v for t in tangents for v in flatten(t)[0]])
             if x.requires_grad]
    dots = [None] * len(out_leaves)
    if pairs and any(y.requires_grad for y in out_leaves):
        with enable_grad():
            dots = forward_grad(out_leaves, [x for x, _ in pairs], [v for _, v in pairs])
            dots = (dots,) if isinstance(dots, Tensor) else dots
    tangent_out = rebuild_out([zeros_like(y) if d is None else d
                               for y, d in zip(out_leaves, dots)])
    return (out, tangent_out, aux) if has_aux else (out, tangent_out)


def linearize(f, *primals):
    """(f(*primals), jvp_fn): f runs once; `jvp_fn(*tangents)` pushes tangents along its graph."""
    out, _, _, inputs = _record(f, primals, False, "linearize")
    out_leaves, rebuild_out = flatten(out)
    nested = _any_requires_grad(primals) or _forward_state.level

    def jvp_fn(*tangents):
        t_leaves = [t for tree in tangents for t in flatten(tree)[0]]
        if len(t_leaves) != len(inputs):
            raise ValueError(f"jvp_fn: got {len(t_leaves)} tangents for {len(inputs)} inputs")
        with set_grad_enabled(bool(nested or _any_requires_grad(t_leaves))):
            dots = forward_grad(out_leaves, inputs, t_leaves)
        return rebuild_out([zeros_like(y) if d is None else d
                            for y, d in zip(out_leaves, dots)])
    return (out if nested else _detached(out)), jvp_fn


def _unit_rows(leaves, caller):
    """The unit vectors of the space of all `leaves` flattened and joined end to end, stacked:
    one tensor per leaf, of shape [N] + its shape (N elements in all); row i of them together
    is the i-th unit vector."""
    if _static_state.armed:
        _refuse_unknown_sizes(leaves, caller)
    n, rows, offset = sum(x.numel() for x in leaves), [], 0
    for x in leaves:
        eye = np.eye(n, x.numel(), -offset, dtype=x._data.dtype)
        rows.append(Tensor(eye.reshape((n,) + tuple(x.shape))))
        offset += x.numel()
    return tuple(rows)


def _refuse_unknown_sizes(leaves, caller):
    from ..static.dims import has_symbol, pretty_shape
    for x in leaves:
        if has_symbol(x._data.shape):
            raise ValueError(
                f"{caller}: a tensor of shape {list(pretty_shape(x._data.shape))} has an unknown "
                "size (a static Variable's None / -1 dimension), so the Jacobian's size is not "
                "known when the program is built; give static.data a known size, or take "
                "per-example Jacobians with vmap over the unknown axis")


def _check_tensors(tree, what):
    """Raise unless `tree` is a tensor or a nested tuple/list/dict of tensors."""
    if not is_tree_of_tensors(tree):
        raise TypeError(f"{what} a tensor, or a tuple/list/dict of tensors, got "
                        f"{type(tree).__name__}")


def jacrev(f, argnums=0, has_aux=False, *, chunk_size=None):
    """The Jacobian by reverse mode: f runs once, then one vectorised backward pass pulls
    back every unit cotangent of all its outputs at once (vmap over them; `chunk_size` rows
    at a time). Shape: out.shape + in.shape, for each output in its structure, and within it
    for each input in theirs."""
    def wrapper(*args):
        nums = _argnums(argnums, len(args), "jacrev")
        out, aux, prepared, inputs = _record(f, args, has_aux, "jacrev", nums)
        _check_tensors(out, "jacrev: f must return")
        out_leaves, rebuild_out = flatten(out)
        pulled = [k for k, y in enumerate(out_leaves) if y.requires_grad]
        nested = _nested(prepared)

        def rows(*cotangents):
            gs = (None,) * len(inputs)
            if pulled:
                with enable_grad():
                    gs = _grad([out_leaves[k] for k in pulled], inputs,
                               [cotangents[k] for k in pulled], retain_graph=True,
                               create_graph=nested, allow_unused=True)
            return tuple(zeros_like(x) if g is None else g for x, g in zip(inputs, gs))
        jacs = vmap(rows, chunk_size=chunk_size)(*_unit_rows(out_leaves, "jacrev")) \
            if inputs else ()
        if not nested and not any(batching.tangent_of(x) is not None for x in inputs):
            jacs, aux = [j.detach() for j in jacs], _detached(aux)
        sizes = [y.numel() for y in out_leaves]
        blocks = [j.split(sizes) if len(sizes) > 1 else (j,) for j in jacs]  # [input][output]
        jac = rebuild_out([_regroup([b[k].reshape(tuple(y.shape) + tuple(x.shape))
                                     for b, x in zip(blocks, inputs)], prepared, argnums)
                           for k, y in enumerate(out_leaves)])
        return (jac, aux) if has_aux else jac
    return wrapper


def jacfwd(f, argnums=0, has_aux=False, *, chunk_size=None):
    """The Jacobian by forward mode: f runs once, in one vectorised JVP that pushes every
    unit tangent of all the inputs at once (vmap over them; `chunk_size` columns at a time).
    Shape: out.shape + in.shape, for each output in its structure, and within it for each
    input in theirs."""
    def wrapper(*args):
        nums = _argnums(argnums, len(args), "jacfwd")
        args = list(args)
        trees = [flatten(args[n]) for n in nums]
        flat = [x for leaves, _ in trees for x in leaves]

        def call(*xs):
            it = iter(xs)
            for n, (leaves, rebuild) in zip(nums, trees):
                args[n] = rebuild([next(it) for _ in leaves])
            return f(*args)

        def push(*tangents):
            out, dot, *aux = jvp(call, flat, tangents, has_aux=has_aux)
            _check_tensors(out, "jacfwd: f must return")
            if has_aux:
                _check_tensors(aux[0], "jacfwd(has_aux=True): aux must be")
            return (dot, *aux)
        dots, *aux = vmap(push, chunk_size=chunk_size)(*_unit_rows(flat, "jacfwd"))
        dot_leaves, rebuild_out = flatten(dots)
        sizes = [x.numel() for x in flat]
        per_arg = [(None, leaves, rebuild) for leaves, rebuild in trees]
        jac = []
        for d in dot_leaves:  # d: [N] + the output's shape
            columns = d.moveaxis(0, -1).split(sizes, -1)
            jac.append(_regroup([c.reshape(tuple(d.shape[1:]) + tuple(x.shape))
                                 for c, x in zip(columns, flat)], per_arg, argnums))
        jac = rebuild_out(jac)
        # aux is the same for every tangent pushed: take the first
        return (jac, tree_map(lambda t: t[0], aux[0])) if has_aux else jac
    return wrapper


def hessian(f, argnums=0):
    """The Hessian of scalar-valued `f`: forward mode over reverse mode."""
    return jacfwd(jacrev(f, argnums), argnums)


def hvp(f, primals, tangents):
    """(f(*primals), H·tangents): forward over reverse, one pass, no Hessian formed."""
    primals, tangents = tuple(primals), tuple(tangents)
    if _untaped_applies(primals, tangents):
        return _hvp_untaped(f, primals, tangents)
    value_box = []

    def gradient(*xs):
        value, g = value_and_grad(f, tuple(range(len(xs))))(*xs)
        value_box.append(value)
        return g
    _, dots = jvp(gradient, primals, tangents)
    value = forward_ad.unpack_dual(value_box[0])[0]
    return value, dots if len(primals) > 1 else dots[0]


def _untaped_applies(primals, tangents):
    """Whether `_hvp_untaped` gives what the general path would: plain floating tensors
    with matching tangents, none requiring grad (nothing outside will differentiate the
    result), grad mode on, and no vmap, forward-mode level or static trace open around the
    call (the count of open levels, in all threads, is cheaper to read than this thread's)."""
    if (_open_levels.count and (batching.state.sizes or _forward_state.level)) \
            or _static_state.enabled or not _grad_state.enabled:
        return False
    if len(primals) != len(tangents) or not primals:
        return False
    for x, v in zip(primals, tangents):
        if type(x) is not Tensor or type(v) is not Tensor or x._requires_grad \
                or v._requires_grad or x._tangent is not None or v._tangent is not None:
            return False
        data, v_data = x._data, v._data
        if data.dtype.kind != "f" or v_data.dtype != data.dtype or v_data.shape != data.shape:
            return False
    return True


def _hvp_untaped(f, primals, tangents):
    """`hvp` when nothing will differentiate its result: the tangents' computations are
    recorded nowhere (a forward level opened untaped), and the gradient's backward pass
    records nothing either."""
    # the outermost forward level (`_untaped_applies`: none is open), opened untaped
    _forward_state.level = _forward_state.untaped = 1
    _level_opened(untaped=True)
    try:
        leaves = []
        for x, v in zip(primals, tangents):
            leaf = x.detach()
            leaf._requires_grad = True
            leaf._tangent = v
            leaves.append(leaf)
        value = f(*leaves)
        _check_scalar(value)
        grads = (None,) * len(leaves)
        if value._requires_grad:
            # (f may have staged onto static Variables: then only autograd.grad knows how)
            seed = np.empty(value._data.shape, value._data.dtype)
            seed.fill(1)  # (np.ones is a Python function: measured slower)
            seed = Tensor._make(seed)
            if type(value) is Tensor:  # (the checks `grad` makes hold: the backward pass)
                grads = _engine.run((value,), (seed,), leaves, False, False, True)
            else:
                grads = _grad(value, leaves, seed, allow_unused=True)
    finally:
        _forward_state.level = _forward_state.untaped = 0
        _level_closed(untaped=True)
    dots = []
    for x, g in zip(primals, grads):
        dots.append(zeros_like(x) if g is None or g._tangent is None else
                    tangent_tensor(g._tangent))
    return Tensor._make(value._data), tuple(dots) if len(primals) > 1 else dots[0]


def hessian_diag(f, x, method="exact", num_samples=64):
    """The diagonal of f's Hessian at x: exact (an HVP per element) or Hutchinson's estimate
    E[v * Hv] (random signs v); the HVPs run as one vectorised pass, differentiably."""
    if method == "exact":
        return _mean_of_v_times_hv(f, x, _unit_rows([x], "hessian_diag")[0]) * x.numel()
    if method == "hutchinson":
        return _mean_of_v_times_hv(f, x, _rademacher(x, num_samples))
    raise ValueError(f"hessian_diag: method must be 'exact' or 'hutchinson', got {method!r}")


def _mean_of_v_times_hv(f, x, directions):
    return vmap(lambda v: v * hvp(f, (x,), (v,))[1])(directions).mean(0)


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
    if of == "hessian":
        return _mean_of_v_times_hv(f, x, _rademacher(x, num_samples)).sum()
    return vmap(lambda v: v * jvp(f, (x,), (v,))[1])(_rademacher(x, num_samples)).mean(0).sum()


def _rademacher(x, n):
    """`n` random sign vectors shaped like x, stacked."""
    if not isinstance(n, int) or n < 1:
        raise ValueError(f"num_samples must be a positive int, got {n!r}")
    signs = get_rng().integers(0, 2, (n,) + tuple(x.shape)) * 2 - 1
    return Tensor(signs.astype(x._data.dtype))
