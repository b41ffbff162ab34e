"""Control flow in programs: `cond`, `while_loop` and `scan`, with derivatives.

Each traces its Python functions once into sub-programs (`Program(parent=...)`): a
sub-program reads Variables of the enclosing program as `captures` and its loop-carried
values as `args`. The equation that runs it names a `ControlOp` (an op record like a
Primitive, not registered, with its own `abstract` shape rule since its impl runs the
sub-programs) and holds the sub-programs in its params.

Derivatives are sub-programs too. Forward mode: a branch gets its JVP staged into it and a
new cond returns values and tangents; a while_loop becomes a new loop carrying the tangents
beside the values (its body staged again, plus its JVP). Reverse mode: each branch gets its
VJP staged into it (cond); a loop body's VJP is replayed backwards over the values the
forward loop kept, one per iteration (`while_loop_grad`), so a trip count known only at run
time is fine (while_loop, scan; when no equation reads those values, `passes.dce` has the loop
keep none, and of each iteration only the values the backward loop reads: the param `kept`).
That backward loop is an op with rules of its own: it reads the trajectory only as a cache of
the forward loop's run, and its rules run the forward loop again carrying tangents, then that
loop's backward loop; so loops differentiate to any order, in either mode. With prim on, a
cond is transposed by the same VJP, restricted to its tangent inputs.
Under vmap (values batched by its levels, seen through BatchedTensors), a loop runs once over
the whole batch, each value batched only where it has to be; a predicate that differs between
examples runs it until none holds, each finished example keeping its values (JAX's rule).
A cond whose predicate differs between examples runs both branches on the batch and selects
each example's values (`where`); one whose predicate doesn't stays a single cond, run once
for the whole batch.
In eager mode (no Variables), cond, while_loop and scan are plain Python control flow.
"""
import numpy as np

from .._core.batching import BatchedTensor, batch_size, close_level, is_batched_at, layers, \
    open_level, rebuild, take_level, to_physical_like, wrap
from .._core.dispatch import apply
from .._core.grad_mode import enable_grad, state as _grad_state
from .._core.static_mode import state as _static_state
from .._core.tensor import Tensor
from . import staging
from .dims import Dim, has_symbol
from .executor import evaluate
from .program import Program, Variable

__all__ = ["cond", "while_loop", "scan"]


class ControlOp:
    """An op record for control flow: the fields the staging, the Executor and the transforms
    read from a Primitive, with `pullback(out_bar, out, inputs, needs, params)` and
    `jvp(tangents, out, *inputs, **params)` of its own."""
    view = False
    transposable = True
    trajectory = False  # whether the last output is a loop's trajectory (see while_op)
    saves_out = True
    batch = None
    vjp_rules = None
    array_jvp = None

    def __init__(self, name, impl, abstract, jvp=None, vjp=None, linear=None):
        self.name, self.impl, self.abstract = name, impl, abstract
        self.jvp, self._vjp, self.linear = jvp, vjp, linear
        self.n_outputs = None
        self.differentiable = vjp is not None

    def pullback(self, out_bar, out, inputs, needs, params):
        return self._vjp(out_bar, out, inputs, needs, params)

    def __repr__(self):
        return f"<control op {self.name}>"


def _flat(out):
    if isinstance(out, Tensor):
        return [out], True
    if isinstance(out, (list, tuple)):
        return list(out), False
    raise TypeError(f"control flow: a branch or body must return tensors, got "
                    f"{type(out).__name__}")


def _type(x):
    if isinstance(x, Variable):
        return x.dims, x._data.dtype
    return tuple(x._data.shape), x._data.dtype


def _union(*lists):
    seen, out = set(), []
    for lst in lists:
        for v in lst:
            if id(v) not in seen:
                seen.add(id(v))
                out.append(v)
    return out


def _zeros(v, where):
    """Zeros like Variable `v`, staged into sub-program `where` when its shape is unknown."""
    if not has_symbol(v._data.shape):
        return Tensor(np.zeros(v._data.shape, v._data.dtype))
    from ._ops import full_like
    with staging.guard(where):
        return full_like(v, 0)


def _is_float(v):
    return isinstance(v, Tensor) and v._data.dtype.kind in "fc"


# --- cond -----------------------------------------------------------------------------------
def cond(pred, true_fn=None, false_fn=None, name=None):
    """`true_fn()` if `pred` else `false_fn()`, decided when the program runs. Both branches
    return the same number of tensors, of the same shapes and dtypes. Under vmap, a `pred`
    that differs between the examples runs both branches on the whole batch and takes each
    example's result from its own branch (`_select`)."""
    if type(pred) is BatchedTensor:
        return _select(pred, true_fn, false_fn)
    if not isinstance(pred, Variable):
        out = (true_fn if bool(pred) else false_fn)()
        if isinstance(out, (list, tuple)):
            return type(out)(_cut_under_no_grad(out))
        return _cut_under_no_grad([out])[0]
    if pred._data.size != 1:
        raise ValueError(f"cond: pred must hold one value, got {pred.type_str}")
    outer = staging.programs.main
    subs, outs, single = [], [], True
    for fn in (true_fn, false_fn):
        sub = Program(parent=outer)
        with staging.guard(sub):
            out, single = _flat(fn())
        subs.append(sub)
        outs.append(tuple(out))
    _check_branches(outs)
    result = _stage_cond(pred, subs, outs)
    return result[0] if single else list(result)


def _check_branches(outs):
    if len(outs[0]) != len(outs[1]) or any(
            _type(a) != _type(b) for a, b in zip(*outs)):
        raise TypeError("cond: the branches return different types: "
                        f"{[_type(a) for a in outs[0]]} and {[_type(b) for b in outs[1]]}")


def _select(pred, true_fn, false_fn):
    """cond with a predicate batched by vmap (JAX's rule): both branches run on the whole
    batch and `where` takes each example's values from its own branch, so the other
    branch's values (inf or NaN, say) reach neither the result nor the gradients: `where`
    passes each branch the cotangent of its own examples and exact zeros elsewhere (a zero
    that a branch's infinite derivative still turns into NaN, as in JAX: the branches are
    closures, whose inputs this can't guard)."""
    from ..ops import where
    if pred._data.size != 1:
        raise ValueError(f"cond: pred must hold one value per example, got shape "
                         f"{list(pred.shape)}")
    if pred._data.dtype != np.bool_:
        pred = pred != 0
    outs, single = [], True
    for fn in (true_fn, false_fn):
        out, single = _flat(fn())
        outs.append(tuple(out))
    _check_branches(outs)
    pred = pred.reshape(())
    result = [where(pred, a, b) for a, b in zip(*outs)]
    return result[0] if single else result


def _needed_captures(sub, outs):
    """The captures of `sub` that computing `outs` reads (a sub-program keeps every capture it
    ever made, also those of derivatives staged into it and later dropped)."""
    needed = {id(o) for o in outs if isinstance(o, Variable)}
    for eq in reversed(sub.equations):
        if any(id(o) in needed for o in eq.outputs):
            needed.update(id(x) for x in eq.inputs if isinstance(x, Variable))
    return [c for c in sub.captures if id(c) in needed]


def _stage_cond(pred, subs, outs):
    """The cond_op choosing between the values `outs` of sub-programs `subs`. Values batched by
    vmap among them (branches reading batched values, cotangents of a jacrev's rows) are
    returned, over every level either branch has, as the plain tensors underneath: the cond
    runs once for the whole batch."""
    found = _flat_levels([o for branch in outs for o in branch])
    if found:
        outs = list(outs)
        for k, sub in enumerate(subs):
            with staging.guard(sub):
                outs[k] = tuple(to_physical_like(o, found) for o in outs[k])
    captures = tuple(_union(*(_needed_captures(s, o) for s, o in zip(subs, outs))))
    result = apply(cond_op, pred, *captures, branches=tuple(subs), outs=tuple(outs),
                   captures=captures)
    return [rebuild(r, found) for r in result] if found else result


def _cond_batch(bdims, pred, *captured, branches, outs, captures):
    """A cond whose equation is replayed on batched values: `cond` again on them, its
    branches replayed (a batched predicate selects per example, `_select`)."""
    def run(logical):
        mapping = {id(c): v for c, v in zip(captures, logical[1:])}
        return _flat(cond(logical[0], *(
            (lambda k=k: tuple(_replay(branches[k], mapping, list(outs[k]))))
            for k in (0, 1))))[0]
    out = _in_own_level(bdims, (pred,) + captured, run)
    return out, (0,) * len(out)


def _cond_impl(pred, *values, branches, outs, captures):
    env = {id(c): v for c, v in zip(captures, values)}
    k = 0 if bool(np.asarray(pred)) else 1
    return tuple(evaluate(branches[k], env, outs[k]))


def _cond_abstract(inputs, params):
    return [_type(o) for o in params["outs"][0]]


def _cond_jvp(tangents, out, pred, *captured, branches, outs, captures):
    from .transforms import _push
    with_dot = [(c, t) for c, t in zip(captures, tangents[1:]) if t is not None]
    new_outs = []
    for sub, o in zip(branches, outs):
        with staging.guard(sub):
            dots = _push(sub, [c for c, _ in with_dot], [t for _, t in with_dot], list(o))
        new_outs.append(tuple(o) + tuple(
            dots.get(id(y)) if id(y) in dots else (_zeros(y, sub) if isinstance(y, Variable)
                                                   else Tensor(np.zeros_like(y._data)))
            for y in o))
    result = _stage_cond(pred, branches, new_outs)
    return result[len(outs[0]):]


def _cond_vjp(out_bar, out, inputs, needs, params):
    from .transforms import vjp_in
    branches, outs, captures = params["branches"], params["outs"], params["captures"]
    wanted = [c for c, need in zip(captures, needs[1:]) if need and _is_float(c)]
    if not wanted:
        return [None] * len(inputs)
    bars = list(out_bar) if isinstance(out_bar, tuple) else [out_bar]
    new_outs = []
    for sub, o in zip(branches, outs):
        pairs = [(y, b) for y, b in zip(o, bars) if isinstance(y, Variable) and b is not None]
        cts = vjp_in(sub, [y for y, _ in pairs], wanted, [b for _, b in pairs]) if pairs else \
            [None] * len(wanted)
        new_outs.append(tuple(_zeros(c, sub) if g is None else g for c, g in zip(wanted, cts)))
    result = _stage_cond(inputs[0], branches, new_outs)
    by_id = {id(c): g for c, g in zip(wanted, result)}
    return [None] + [by_id.get(id(c)) for c in captures]


# the JVP of a cond is linear in the tangents it reads, so transpose uses its VJP (restricted
# to those inputs)
cond_op = ControlOp("cond", _cond_impl, _cond_abstract, jvp=_cond_jvp, vjp=_cond_vjp,
                    linear="all")
cond_op.batch = _cond_batch


# --- while_loop -----------------------------------------------------------------------------
def _trace(fn, outer, templates):
    sub = Program(parent=outer)
    args = [sub.new_arg(*_type(t)) for t in templates]
    with staging.guard(sub), enable_grad():  # (the op's own rules differentiate the body)
        out = fn(*args)
    return sub, args, out


def while_loop(cond, body, loop_vars, is_test=False, name=None):
    """Run `loop_vars = body(*loop_vars)` while `cond(*loop_vars)`, when the program runs;
    returns the final loop_vars (a list). `body` keeps each value's shape and dtype.
    Derivatives of any order, in either mode, work for any trip count (each iteration's values
    are kept)."""
    loop_vars = [v if isinstance(v, Tensor) else Tensor(v) for v in loop_vars]
    staged = None
    if _static_state.enabled or any(_is_static(v) for v in loop_vars):
        staged = _stage_while(cond, body, loop_vars)
    if staged is None:  # eager mode (or nothing static)
        return _cut_under_no_grad(_python_loop(cond, body, loop_vars))
    return list(staged.out[:-1])


def _cut_under_no_grad(values):
    """Eager control flow's results as the staged op's: under no_grad none carries a graph
    (compile and static mode follow the op by stop_gradient there), also a value passed
    through untouched (a loop of 0 trips, a branch returning what it captured)."""
    if _grad_state.enabled:
        return values
    from ._ops import stop_gradient
    return [stop_gradient(v) if isinstance(v, Tensor) and v.requires_grad else v
            for v in values]


def _python_loop(cond, body, loop_vars):
    """The loop in Python; a predicate that differs between the examples of a vmap runs it
    until none holds, an example whose predicate is false keeping its values."""
    from ..ops import where
    while True:
        pred = cond(*loop_vars)
        found = _flat_levels([pred])
        if not found:
            if not bool(pred):
                return loop_vars
            loop_vars = _flat(body(*loop_vars))[0]
            continue
        if not bool(to_physical_like(pred, found).any()):
            return loop_vars
        new = _flat(body(*loop_vars))[0]
        loop_vars = [where(pred, y, x) for y, x in zip(new, loop_vars)]


def _is_static(v):
    """Whether `v` is a static Variable, or one seen through vmap's batching."""
    return isinstance(v, Tensor) and isinstance(layers(v)[1], Variable)


class _Staged:
    """A staged while_loop: `out`, its results (the values, then the trajectory), and what
    `pull` needs: the equation's inputs and params, and for a loop over the examples of vmaps
    (`_flat_loop`) their levels (`found`) and the capture standing for each capture."""

    def __init__(self, out, inputs=None, params=None, found=(), stand_ins=None):
        self.inputs, self.params, self.found = inputs, params, found
        self.stand_ins = stand_ins or {}
        self.physical = out
        self.out = out if not found else tuple(
            rebuild(o, found) for o in out[:-1]) + (out[-1],)

    def pull(self, bars, captures):
        """Cotangents of the loop's initial values and of `captures` (None for one it doesn't
        read), given its values' cotangents `bars` (None: zero)."""
        found, n = self.found, self.params["n"]
        if found:
            bars = [None if b is None else to_physical_like(b, found) for b in bars]
        grads = _while_vjp(tuple(bars) + (None,), self.physical, self.inputs,
                           [True] * len(self.inputs), self.params)
        by_capture = {id(c): g for c, g in zip(self.inputs[n:], grads[n:])}
        caps = [by_capture.get(id(self.stand_ins.get(id(c), c))) for c in captures]
        values = list(grads[:n])
        if found:
            values, caps = ([None if g is None else rebuild(g, found) for g in gs]
                            for gs in (values, caps))
        return values, caps


def _top_level(values):
    levels = [v._level for v in values if type(v) is BatchedTensor]
    return max(levels) if levels else None


def _stage_while(cond, body, loop_vars):
    """The while_op running `cond` and `body` (traced) from `loop_vars`, staged (a `_Staged`);
    None where neither they nor what the functions read is static. Values batched by vmap
    (the loop variables, or values the functions read) make it a loop over the batch
    (`_lift`)."""
    level = _top_level(loop_vars)
    if level is not None:
        return _lift(level, cond, body, loop_vars)
    outer = staging.programs.main
    c_sub, c_args, c_out = _trace(cond, outer, loop_vars)
    if isinstance(c_out, Tensor) and c_out._data.size != 1:
        raise ValueError(f"while_loop: cond must return one boolean, got shape "
                         f"{list(c_out.shape)}")
    if not isinstance(c_out, Tensor):
        c_out = Tensor(np.asarray(bool(c_out)))
    b_sub, b_args, b_out = _trace(body, outer, loop_vars)
    b_out, _ = _flat(b_out)
    if len(b_out) != len(loop_vars) or any(_type(a) != _type(b)
                                           for a, b in zip(loop_vars, b_out)):
        raise TypeError("while_loop: body must return the loop variables' types "
                        f"{[_type(v) for v in loop_vars]}, got {[_type(v) for v in b_out]}")
    level = _top_level([c_out] + b_out)
    if level is not None:
        return _lift(level, cond, body, loop_vars)
    captures = tuple(_union(_needed_captures(c_sub, [c_out]), _needed_captures(b_sub, b_out)))
    if not any(_is_static(v) for v in loop_vars + list(captures)):
        return None
    params = dict(cond=c_sub, body=b_sub, c_args=tuple(c_args), c_out=c_out,
                  b_args=tuple(b_args), b_outs=tuple(b_out), captures=captures,
                  n=len(loop_vars))
    inputs = list(loop_vars) + list(captures)
    out = apply(while_op, *inputs, **params)
    result = out[0]
    for eq in reversed(outer.equations):
        if eq.outputs and eq.outputs[0] is result:
            if eq.prim is while_op:
                params = eq.params  # (its reverse loop records in them what it reads)
                break
            result = eq.inputs[0]  # staged under no_grad: a stop_gradient of the loop's
    return _Staged(out, inputs, params)


class _Widen(Exception):
    """A loop over a batch found another value that differs between its examples (the arg:
    that loop's flags)."""


def _lift(level, cond, body, loop_vars):
    """The loop of `cond` and `body` on values batched at vmap level `level` (JAX's rule): one
    loop over the whole batch, each value batched (along axis 0) where its initial value or
    the body makes it so. A predicate that differs between examples batches every value: the
    loop runs until no example's holds, and an example whose predicate is false keeps its
    values."""
    size = batch_size(level)
    flags = [is_batched_at(v, level) for v in loop_vars]
    masked = []

    def examples(state):
        return [wrap(v, level, 0) if f else v for v, f in zip(state, flags)]

    def batch_cond(*state):
        pred = cond(*examples(state))
        if not is_batched_at(pred, level):
            return pred
        if not all(flags):
            flags[:] = [True] * len(flags)
            raise _Widen(flags)
        masked.append(True)
        return take_level(pred, level, 0, size).any()

    def batch_body(*state):
        values = examples(state)
        new = _flat(body(*values))[0]
        wider = [k for k, y in enumerate(new) if not flags[k] and is_batched_at(y, level)]
        for k in wider:
            flags[k] = True
        if wider:
            raise _Widen(flags)
        new = [take_level(y, level, 0, size) if f else y for y, f in zip(new, flags)]
        if not masked:
            return new
        return _keep_finished(take_level(cond(*values), level, 0, size), new, state)
    while True:
        masked.clear()
        try:
            staged = _stage_while(batch_cond, batch_body, [
                take_level(v, level, 0, size) if f else v for v, f in zip(loop_vars, flags)])
            break
        except _Widen as widen:
            if widen.args[0] is not flags:  # (another loop's, around this one)
                raise
    return _Staged(tuple(wrap(o, level, 0) if f else o for o, f in zip(staged.out[:-1], flags))
                   + (staged.out[-1],))


def _keep_finished(pred, new, old):
    """`new` where the examples' predicate `pred` (the leading axes) holds, else `old`."""
    from ..ops import where
    return [where(pred[(Ellipsis,) + (None,) * (y.ndim - pred.ndim)], y, x)
            for y, x in zip(new, old)]


def _flat_levels(values):
    """[(level, axis)]: every vmap level any of `values` is batched at, outermost first, each
    at its own leading axis of the plain tensors underneath (see `batching.rebuild`)."""
    levels = sorted({level for v in values if isinstance(v, Tensor)
                     for level, _ in layers(v)[0]}, reverse=True)
    return [(level, axis) for axis, level in enumerate(levels)]


def _while_impl(*values, cond, body, c_args, c_out, b_args, b_outs, captures, n, keep=True,
                kept=None):
    state = list(values[:n])
    base = {id(c): v for c, v in zip(captures, values[n:])}
    trajectory = []
    while True:
        env = dict(base)
        env.update((id(a), v) for a, v in zip(c_args, state))
        if not bool(evaluate(cond, env, [c_out])[0]):
            break
        if keep:
            trajectory.append(state if kept is None else
                              [v if k in kept else None for k, v in enumerate(state)])
        env = dict(base)
        env.update((id(a), v) for a, v in zip(b_args, state))
        state = evaluate(body, env, list(b_outs))
    kept = np.empty((), object)
    kept[()] = trajectory
    return tuple(state) + (kept,)


def _while_abstract(inputs, params):
    return [_type(v) for v in inputs[:params["n"]]] + [((), np.dtype(object))]


def _while_vjp(out_bar, out, inputs, needs, params):
    from .transforms import vjp_in
    if not params.get("keep", True):
        raise RuntimeError("while_loop: this loop keeps no values of its iterations (dce found "
                           "nothing reading them), so it can't be differentiated; "
                           "differentiate the program before optimizing it")
    n, body, b_args, b_outs = params["n"], params["body"], params["b_args"], params["b_outs"]
    captures = params["captures"]
    float_pos = [i for i in range(n) if _is_float(inputs[i])]
    float_caps = [c for c in captures if _is_float(c)]
    seeds = [body.new_arg(*_type(b_args[i])) for i in float_pos]
    cts = vjp_in(body, [b_outs[i] for i in float_pos], [b_args[i] for i in float_pos] +
                 float_caps, seeds)
    cts = tuple(_zeros(x, body) if g is None else g
                for x, g in zip([b_args[i] for i in float_pos] + float_caps, cts))
    # the forward loop keeps, of each iteration, only the values this backward loop reads
    # (a scan's output buffer, which grows with the trip count, is not among them)
    read = {id(x) for eq in _needed_equations(body, list(cts)) for x in eq.inputs}
    params["kept"] = tuple(sorted(set(params.get("kept") or ()) | {
        k for k, a in enumerate(b_args) if id(a) in read}))
    outer = staging.programs.main
    bars = [_zeros(inputs[i], outer) if out_bar[i] is None else out_bar[i] for i in float_pos]
    n_own = len(captures)
    all_captures = tuple(_union(captures, _needed_captures(body, cts)))
    result = apply(while_grad_op, out[-1], *bars, *inputs, *all_captures[n_own:], body=body,
                   b_args=b_args, seeds=tuple(seeds), cts=cts, n_args=len(float_pos),
                   captures=all_captures, n_own=n_own,
                   types=tuple(_type(inputs[i]) for i in float_pos) +
                   tuple(_type(c) for c in float_caps),
                   cond=params["cond"], c_args=params["c_args"], c_out=params["c_out"],
                   b_outs=b_outs, n=n)
    result = list(result)
    by_position = dict(zip(float_pos, result[:len(float_pos)]))
    by_capture = {id(c): g for c, g in zip(float_caps, result[len(float_pos):])}
    return [by_position.get(i) for i in range(n)] + [by_capture.get(id(c)) for c in captures]


def _while_grad_impl(kept, *values, body, b_args, seeds, cts, n_args, captures, n_own,
                     types, cond, c_args, c_out, b_outs, n):
    bars = list(values[:n_args])
    caps = values[n_args + n:]
    base = {id(c): v for c, v in zip(captures, caps)}
    totals = [np.zeros_like(v) for c, v in zip(captures[:n_own], caps) if _is_float(c)]
    for state in reversed(kept[()]):
        env = dict(base)
        env.update((id(a), v) for a, v in zip(b_args, state))
        env.update((id(s), b) for s, b in zip(seeds, bars))
        res = evaluate(body, env, list(cts))
        bars = res[:n_args]
        totals = [t + r for t, r in zip(totals, res[n_args:])]
    return tuple(bars) + tuple(totals)


# The reverse loop R(x, c, b) = J(x, c)^T b of a loop L (values x, captures c, J the Jacobian
# of its float results) reads L's trajectory only as a cache of L's run: its inputs are L's
# values and captures too, and its rules rerun L, carrying tangents (`_flat_loop`), then that
# loop's own reverse loop (`_Staged.pull`). So they work to any order, in either mode.
def _grad_inputs(inputs, params):
    """(cotangents b, values x, captures c of L) among a while_loop_grad's inputs (or
    tangents); the captures its reverse body alone reads come after them."""
    k, n = 1 + params["n_args"], params["n"]
    return list(inputs[1:k]), list(inputs[k:k + n]), list(inputs[k + n:k + n + params["n_own"]])


def _loop_of(params):
    """The params of the loop L a while_loop_grad's params describe."""
    loop = {k: params[k] for k in ("cond", "body", "c_args", "c_out", "b_args", "b_outs", "n")}
    loop["captures"] = params["captures"][:params["n_own"]]
    return loop


def _float_positions(xs):
    return [i for i, x in enumerate(xs) if _is_float(x)]


def _while_grad_vjp(out_bar, out, inputs, needs, params):
    """With (x_hat, c_hat) the cotangents of R's results: b's is J (x_hat, c_hat), L's tangent
    along them, and that of (x, c) the gradient of b . J (x_hat, c_hat), by the reverse loop of
    L's JVP loop along (x_hat, c_hat)."""
    bars, xs, caps = _grad_inputs(inputs, params)
    out_bar = list(out_bar) if isinstance(out_bar, tuple) else [out_bar]
    x_dots, cap_dots = [None] * len(xs), [None] * len(caps)
    for k, i in enumerate(_float_positions(xs)):
        x_dots[i] = out_bar[k]
    for k, j in enumerate(_float_positions(caps)):
        cap_dots[j] = out_bar[len(bars) + k]
    staged = _flat_loop(_loop_of(params), xs, caps, x_dots, cap_dots, bars)
    result = [None] * len(inputs)
    result[1:1 + len(bars)] = staged.out[len(xs):len(xs) + len(bars)]
    start, stop = 1 + len(bars), 1 + len(bars) + len(xs) + len(caps)
    if any(needs[start:stop]):
        x_bars, c_bars = staged.pull([None] * len(xs) + bars, caps)
        result[start:stop] = x_bars[:len(xs)] + c_bars
    return result


def _while_grad_jvp(tangents, out, *inputs, **params):
    """R's tangent J^T b_dot + (the Hessian being symmetric) the gradient of b . J (x_dot, c_dot):
    one reverse loop of L's JVP loop along (x_dot, c_dot)."""
    bars, xs, caps = _grad_inputs(inputs, params)
    b_dots, x_dots, cap_dots = _grad_inputs(tangents, params)
    outer = staging.programs.main
    b_dots = [_zeros(b, outer) if d is None else d for b, d in zip(bars, b_dots)]
    if all(t is None for t in x_dots + cap_dots):  # linear in b
        return apply(while_grad_op, inputs[0], *b_dots, *inputs[1 + len(bars):], **params)
    staged = _flat_loop(_loop_of(params), xs, caps, x_dots, cap_dots, b_dots + bars)
    value_bars = [None] * len(xs)
    for k, i in enumerate(_float_positions(xs)):
        value_bars[i] = b_dots[k]
    x_bars, c_bars = staged.pull(value_bars + bars, caps)
    return tuple(x_bars[i] for i in _float_positions(xs)) + tuple(
        c_bars[j] for j in _float_positions(caps))


def _replay(sub, mapping, outs):
    """Stage the equations of `sub` that `outs` need again, into the program being built,
    with `mapping` (id -> Variable) standing for its arguments."""
    mapping = dict(mapping)
    for eq in _needed_equations(sub, outs):
        result = apply(eq.prim, *[mapping.get(id(x), x) if isinstance(x, Variable) else x
                                  for x in eq.inputs], **eq.params)
        result = (result,) if eq.prim.n_outputs == 1 else result
        mapping.update((id(o), r) for o, r in zip(eq.outputs, result))
    return [mapping.get(id(o), o) if isinstance(o, Variable) else o for o in outs]


def _needed_equations(sub, outs):
    needed = {id(o) for o in outs if isinstance(o, Variable)}
    steps = []
    for eq in reversed(sub.equations):
        if any(id(o) in needed for o in eq.outputs):
            steps.append(eq)
            needed.update(id(x) for x in eq.inputs if isinstance(x, Variable))
    return steps[::-1]


def _flat_loop(loop, xs, caps, x_dots=None, cap_dots=None, bars=()):
    """Stage the while_loop `loop` (a while_op's params) again, from values `xs` and captures
    `caps`; given `x_dots`, `cap_dots` (one each, None: zero), carrying their tangents beside
    the values (its body the old one plus that body's JVP, staged again). Returns a `_Staged`
    whose outputs are the values, the tangents of the float ones, then the trajectory.

    Where vmap batches any of them, or the cotangents `bars` that `pull` will take, every value, tangent and float capture is spread over
    every level found, and one loop runs on the plain tensors underneath, its body the old
    one applied to all examples at once (each example's own run, so that `pull` gives each
    its own cotangents); a predicate that differs between examples runs it until none holds,
    an example whose predicate is false keeping its values."""
    from .transforms import _push
    n, cond, body = loop["n"], loop["cond"], loop["body"]
    float_pos = _float_positions(xs)
    tangents = x_dots is not None
    x_dots, cap_dots = x_dots or [None] * n, cap_dots or [None] * len(caps)
    found = _flat_levels(list(xs) + list(caps) + list(x_dots) + list(cap_dots) + list(bars))

    def flat(v):
        return to_physical_like(v, found) if found else v

    def examples(v):
        return rebuild(v, found) if found else v
    outer = staging.programs.main
    stand_ins = [flat(c) if found and (_is_float(c) or layers(c)[0]) else c for c in caps]
    # the sub-programs read the captures the loop's equation was staged with
    renamed = {id(c): (examples(p) if p is not v else v)
               for c, v, p in zip(loop["captures"], caps, stand_ins)}
    cap_dots = [(p, flat(t)) for p, t in zip(stand_ins, cap_dots) if t is not None]
    init_dots = [flat(_zeros(xs[i], outer) if x_dots[i] is None else x_dots[i])
                 for i in float_pos] if tangents else []
    masked = []

    def cond2(*state):
        mapping = {**renamed, **{id(a): examples(v) for a, v in zip(loop["c_args"], state)}}
        pred = _replay(cond, mapping, [loop["c_out"]])[0]
        if type(pred) is not BatchedTensor:
            return pred
        masked.append(True)
        return flat(pred).any()

    def body2(*state):
        values, dots = list(state[:n]), list(state[n:])
        mapping = {**renamed, **{id(a): examples(v) for a, v in zip(loop["b_args"], values)}}
        new = [flat(y) for y in _replay(body, mapping, list(loop["b_outs"]))]
        if tangents:
            pushed = _push(staging.programs.main, [values[i] for i in float_pos] +
                           [p for p, _ in cap_dots], dots + [t for _, t in cap_dots],
                           [new[i] for i in float_pos])
            new_dots = [pushed.get(id(new[i])) for i in float_pos]
            new += [d if d is not None else _zeros(new[i], staging.programs.main)
                    for d, i in zip(new_dots, float_pos)]
        if not masked:
            return new
        mapping = {**renamed, **{id(a): examples(v) for a, v in zip(loop["c_args"], values)}}
        return _keep_finished(flat(_replay(cond, mapping, [loop["c_out"]])[0]), new, state)
    staged = _stage_while(cond2, body2, [flat(x) for x in xs] + init_dots)
    return _Staged(staged.out, staged.inputs, staged.params, found,
                   {id(c): p for c, p in zip(caps, stand_ins)})


def _while_jvp(tangents, out, *inputs, **params):
    """A while_loop carrying the tangents of the loop variables beside them."""
    n = params["n"]
    result = _flat_loop(params, inputs[:n], inputs[n:], tangents[:n], tangents[n:]).out
    by_position = dict(zip(_float_positions(inputs[:n]), result[n:]))
    return tuple(by_position.get(i) for i in range(n)) + (None,)


def _in_own_level(bdims, inputs, run):
    """vmap rule: `run(inputs)` on the inputs as batched tensors of a level of its own, its
    results made plain again, batched along axis 0."""
    size = next(x.shape[d] for x, d in zip(inputs, bdims) if d is not None)
    level = open_level(size, "error", has_symbol((size,)))
    try:
        out = run([x if d is None else wrap(x, level, d) for x, d in zip(inputs, bdims)])
        return tuple(o if o is None or not isinstance(o, Tensor) or o._data.dtype == object
                     else take_level(o, level, 0, size) for o in out)
    finally:
        close_level(level)


def _while_batch(bdims, *inputs, **params):
    """A loop whose equation is replayed on batched values: each example's own run
    (`_flat_loop`)."""
    n = params["n"]
    out = _in_own_level(bdims, inputs, lambda xs: _flat_loop(params, xs[:n], xs[n:]).out)
    return out, (0,) * n + (None,)


def _while_grad_batch(bdims, *inputs, **params):
    """The reverse loop of batched values (rows of a Jacobian, say): each example's own run of
    L (`_flat_loop`) and its reverse loop."""
    def run(logical):
        bars, xs, caps = _grad_inputs(logical, params)
        staged = _flat_loop(_loop_of(params), xs, caps, bars=bars)
        value_bars = [None] * len(xs)
        for k, i in enumerate(_float_positions(xs)):
            value_bars[i] = bars[k]
        x_bars, c_bars = staged.pull(value_bars, caps)
        outer = staging.programs.main
        return [x_bars[i] for i in _float_positions(xs)] + [
            _zeros(caps[j], outer) if c_bars[j] is None else c_bars[j]
            for j in _float_positions(caps)]
    out = _in_own_level(bdims, inputs, run)
    return out, (0,) * len(out)


while_op = ControlOp("while_loop", _while_impl, _while_abstract, jvp=_while_jvp,
                     vjp=_while_vjp)
while_op.batch = _while_batch
while_op.transposable = False
# its last output is the trajectory (every iteration's values, for reverse mode): `dce` sets
# the param `keep=False` where no equation reads it, and the loop then keeps nothing
while_op.trajectory = True
while_grad_op = ControlOp("while_loop_grad", _while_grad_impl,
                          lambda inputs, params: list(params["types"]), jvp=_while_grad_jvp,
                          vjp=_while_grad_vjp)
while_grad_op.transposable = False
while_grad_op.batch = _while_grad_batch


# --- scan -----------------------------------------------------------------------------------
def scan(f, init, xs):
    """`carry, y = f(carry, x)` for each x along axis 0 of `xs`; returns (carry, ys), ys
    stacked along axis 0. A while_loop over the index, so reverse mode works the same way."""
    from ..ops import index_put, stack
    single = isinstance(init, Tensor)
    init = [init] if single else list(init)
    if not _static_state.enabled and not any(_is_static(v) for v in init + [xs]):
        carry, ys = init if not single else init[0], []
        for k in range(len(xs)):  # eager mode: a Python loop
            carry, y = f(carry, xs[k])
            ys.append(y)
        return carry, stack(ys)
    length = xs._data.shape[0] if isinstance(xs, Tensor) else len(xs)
    if isinstance(xs, Variable) and isinstance(xs.dims[0], Dim):
        raise ValueError("scan: the length of xs (axis 0) must be known when the program is "
                         "built")
    outer = staging.programs.main
    probe = Program(parent=outer)
    args = [probe.new_arg(*_type(c)) for c in init]
    x_arg = probe.new_arg(tuple(xs.dims[1:]) if isinstance(xs, Variable) else
                          xs._data.shape[1:], xs._data.dtype)
    with staging.guard(probe):
        _, y = f(args if not single else args[0], x_arg)
    y_dims, y_dtype = _type(y)
    if any(isinstance(d, Dim) for d in y_dims):
        raise ValueError("scan: f must return a y of known shape")
    buffer = Tensor(np.zeros((length,) + tuple(y_dims), y_dtype))
    counter = Tensor(np.asarray(0, np.int64))

    def body(i, *state):
        carry, ys = list(state[:-1]), state[-1]
        new_carry, y_i = f(carry if not single else carry[0], xs[i])
        new_carry = [new_carry] if single else list(new_carry)
        return [i + 1] + new_carry + [index_put(ys, (i,), y_i)]
    out = while_loop(lambda i, *state: i < length, body, [counter] + init + [buffer])
    carry = out[1:-1]
    return (carry[0] if single else carry), out[-1]
