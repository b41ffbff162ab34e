"""`fluxgrad.autograd.functional`: PyTorch's `torch.autograd.functional` (jacobian, hessian,
vjp, jvp, hvp, vhp), with its signatures, results and errors, built on fluxgrad.func.

As in PyTorch: `inputs` is a tensor or a tuple of tensors and each result mirrors it (and
the outputs of `func`, a tensor or a tuple of tensors); results are detached unless
`create_graph=True`, which makes them differentiable (to any order) with respect to the
inputs; an input an output doesn't depend on gets zeros, or an error with `strict=True`.
Jacobians are always computed in one vectorised pass (vmap over the rows, or the columns
for strategy='forward-mode'), so `vectorize` changes no result; it is accepted, and its
combinations that PyTorch refuses are refused.

PaddlePaddle's functional API lives beside it: the lazy `Jacobian` and `Hessian` classes
are importable from here too, while Paddle's `jvp` / `vjp` (ones as the default vector
whatever the shapes, results differentiable when the inputs have history) are
fluxgrad.autograd.jvp / vjp: called through this module, jvp and vjp are PyTorch's.
"""
from .._core.engine import grad as _grad
from .._core.grad_mode import enable_grad, is_grad_enabled, set_grad_enabled
from .._core.tensor import Tensor
from ..creation import ones_like, zeros_like
from ..func import _prepare, jacfwd, jacrev
from ..ops.alias import alias
from .forward_grad import forward_grad
from .paddle_functional import Hessian, Jacobian

__all__ = ["jacobian", "hessian", "vjp", "jvp", "hvp", "vhp", "Jacobian", "Hessian"]

_STRATEGIES = ("forward-mode", "reverse-mode")


def _as_tuple(x, what, fn):
    """(was a tuple, the tensors as a tuple); anything but a tensor or a tuple of tensors
    raises TypeError, as PyTorch."""
    is_tuple = isinstance(x, tuple)
    items = x if is_tuple else (x,)
    for i, item in enumerate(items):
        if not isinstance(item, Tensor):
            where = f"the value at index {i} has" if is_tuple else f"the given {what} has"
            raise TypeError(f"The {what} given to {fn} must be either a Tensor or a tuple of "
                            f"Tensors but {where} type {type(item)}.")
    return is_tuple, items


def _fresh(xs, create_graph, need_graph):
    """Stand-ins for `xs`: with create_graph, a tensor keeps its history (a view of it) and
    its forward-mode tangent (so that the results differentiate further by either mode);
    otherwise it is detached, requiring grad when `need_graph`."""
    if create_graph and need_graph:
        return tuple(_prepare(x) for x in xs)
    return tuple(alias(x) if create_graph and x.requires_grad
                 else x.detach().requires_grad_(need_graph) for x in xs)


def _detached(xs, create_graph):
    return xs if create_graph else tuple(x.detach() for x in xs)


def _untuple(xs, is_tuple):
    return xs if is_tuple else xs[0]


def _check_requires_grad(tensors, strict):
    if strict:
        for i, t in enumerate(tensors):
            if not t.requires_grad:
                raise RuntimeError(f"Output {i} of the user-provided function does not require "
                                   "gradients. The outputs must be computed in a differentiable "
                                   "manner from the input when running in strict mode.")


def _validate_v(v, refs, refs_tuple):
    if len(v) != len(refs):
        raise RuntimeError(f"v is a tuple of invalid length: should be {len(refs)} but got "
                           f"{len(v)}.")
    for i, (u, r) in enumerate(zip(v, refs)):
        if tuple(u.shape) != tuple(r.shape):
            prefix = f"Entry {i} in " if refs_tuple else ""
            raise RuntimeError(f"{prefix}v has invalid size: should be {list(r.shape)} but got "
                               f"{list(u.shape)}.")


def _pull(outputs, inputs, cotangents, create_graph):
    """Gradients of `outputs` weighted by `cotangents` (None: ones, for a one-element output),
    None for inputs they don't reach."""
    pairs = [(y, u) for y, u in zip(outputs, cotangents) if y.requires_grad]
    if not pairs:
        return (None,) * len(inputs)
    return _grad([y for y, _ in pairs], inputs, [u for _, u in pairs],
                 retain_graph=True, create_graph=create_graph, allow_unused=True)


def _zeros_where_unused(grads, refs, strict, message):
    out = []
    for i, (g, r) in enumerate(zip(grads, refs)):
        if g is None:
            if strict:
                raise RuntimeError(message.format(i=i))
            g = zeros_like(r)
        out.append(g)
    return tuple(out)


_INDEPENDENT = ("The output of the user-provided function is independent of input {i}. This "
                "is not allowed in strict mode.")


def _scalar_output(outputs, is_tuple, fn):
    if is_tuple:
        raise RuntimeError(f"The function given to {fn} should return a single Tensor")
    if outputs[0].numel() != 1:
        raise RuntimeError(f"The Tensor returned by the function given to {fn} should contain "
                           "a single element")


def _record(func, inputs, create_graph, fn):
    """func run on stand-ins for the tuple `inputs`, recording its graph: (stand-ins,
    is_outputs_tuple, outputs)."""
    inputs = _fresh(inputs, create_graph, need_graph=True)
    with enable_grad():
        is_outputs_tuple, outputs = _as_tuple(func(*inputs), "outputs of the user-provided "
                                              "function", fn)
    return inputs, is_outputs_tuple, outputs


def _vector(v, refs, refs_tuple, create_graph, fn, why):
    if v is None:
        if len(refs) != 1 or refs[0].numel() != 1:
            raise RuntimeError(f"The vector v can only be None if {why} a single Tensor with a "
                               "single element.")
        return None
    _, v = _as_tuple(v, "v", fn)
    v = _fresh(v, create_graph, need_graph=False)
    _validate_v(v, refs, refs_tuple)
    return v


def vjp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(inputs), vᵀJ): the vector `v` (shaped like func's outputs; may be None for a
    one-element output) pulled back to the inputs, as torch.autograd.functional.vjp."""
    is_in_tuple, inputs = _as_tuple(inputs, "inputs", "vjp")
    inputs, is_out_tuple, outputs = _record(func, inputs, create_graph, "vjp")
    _check_requires_grad(outputs, strict)
    v = _vector(v, outputs, is_out_tuple, create_graph, "vjp",
                "the user-provided function returns")
    cotangents = (None,) * len(outputs) if v is None else v
    with set_grad_enabled(create_graph or is_grad_enabled()):
        grads = _pull(outputs, inputs, cotangents, create_graph)
        grads = _zeros_where_unused(grads, inputs, strict, _INDEPENDENT)
    return (_untuple(_detached(outputs, create_graph), is_out_tuple),
            _untuple(_detached(grads, create_graph), is_in_tuple))


def jvp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(inputs), J v): the vector `v` (shaped like the inputs; may be None for a single
    one-element input) pushed forward to func's outputs, as torch.autograd.functional.jvp
    (which uses the double-backward trick; fluxgrad pushes v along func's recorded graph with
    the ops' JVP rules)."""
    is_in_tuple, inputs = _as_tuple(inputs, "inputs", "jvp")
    v = _vector(v, inputs, is_in_tuple, create_graph, "jvp",
                "the input to the user-provided function is")
    inputs, is_out_tuple, outputs = _record(func, inputs, create_graph, "jvp")
    _check_requires_grad(outputs, strict)
    tangents = tuple(ones_like(x) for x in inputs) if v is None else v
    with set_grad_enabled(create_graph):
        dots = forward_grad(outputs, inputs, tangents)
    dots = _zeros_where_unused(
        dots, outputs, strict, "The output {i} of the user-provided function is independent of "
        "its inputs (it has no derivative along v). This is not allowed in strict mode.")
    return (_untuple(_detached(outputs, create_graph), is_out_tuple),
            _untuple(_detached(dots, create_graph), is_out_tuple))


def _check_strategy(strategy, vectorize, strict, fn):
    if strategy not in _STRATEGIES:
        raise ValueError(f"{fn}: expected strategy to be either \"forward-mode\" or "
                         f"\"reverse-mode\", got {strategy!r}. Hint: if your function has more "
                         "outputs than inputs, \"forward-mode\" tends to be more performant; "
                         "otherwise, prefer \"reverse-mode\".")
    if strict and vectorize:
        raise RuntimeError(f"torch.autograd.functional.{fn}: `strict=True` and `vectorize=True` "
                           "are not supported together. Please either set `strict=False` or "
                           "`vectorize=False`.")
    if strategy == "forward-mode" and not vectorize:
        raise NotImplementedError("Computing Jacobian using forward-AD or forward-over-reverse "
                                  "Hessian is only implemented for `vectorize=True`.")


def _check_strict_pairs(outputs, inputs):
    """With strict=True: an error for the first output that depends on no path of an input."""
    for i, y in enumerate(outputs):
        reached = _pull((y,), inputs, (zeros_like(y),), create_graph=False)
        for j, g in enumerate(reached):
            if g is None:
                raise RuntimeError(f"Output {i} of the user-provided function is independent of "
                                   f"input {j}. This is not allowed in strict mode.")


def jacobian(func, inputs, create_graph=False, strict=False, vectorize=False,
             strategy="reverse-mode"):
    """The Jacobian of `func` at `inputs`, as torch.autograd.functional.jacobian: for each
    output and each input (nested as func's outputs, then the inputs, each a tuple only if it
    is one), a tensor of shape output.shape + input.shape. strategy='reverse-mode' pulls back
    every row in one vectorised pass (fluxgrad.func.jacrev), 'forward-mode' pushes every
    column (jacfwd)."""
    _check_strategy(strategy, vectorize, strict, "jacobian")
    is_in_tuple, inputs = _as_tuple(inputs, "inputs", "jacobian")
    inputs = _fresh(inputs, create_graph, need_graph=create_graph)
    seen = []

    def tupled(*xs):
        is_out_tuple, outputs = _as_tuple(func(*xs), "outputs of the user-provided function",
                                          "jacobian")
        seen.append(is_out_tuple)
        if strict:
            _check_requires_grad(outputs, strict)
            _check_strict_pairs(outputs, xs)
        return outputs
    transform = jacrev if strategy == "reverse-mode" else jacfwd
    with enable_grad():
        jac = transform(tupled, argnums=tuple(range(len(inputs))))(*inputs)
    jac = tuple(_untuple(_detached(row, create_graph), is_in_tuple) for row in jac)
    return _untuple(jac, seen[0])


def hessian(func, inputs, create_graph=False, strict=False, vectorize=False,
            outer_jacobian_strategy="reverse-mode"):
    """The Hessian of scalar-valued `func` at `inputs`, as torch.autograd.functional.hessian:
    the Jacobian (by `outer_jacobian_strategy`) of its gradient. For inputs i and j, a tensor
    of shape input_i.shape + input_j.shape, nested as a tuple of tuples when inputs is a
    tuple."""
    is_in_tuple, inputs = _as_tuple(inputs, "inputs", "hessian")
    _check_strategy(outer_jacobian_strategy, vectorize, strict, "hessian")

    def single_output(*xs):
        is_out_tuple, out = _as_tuple(func(*xs), "outputs of the user-provided function",
                                      "hessian")
        _check_requires_grad(out, strict)
        _scalar_output(out, is_out_tuple, "hessian")
        return out[0].reshape(())

    def gradient(*xs):
        g = jacobian(single_output, xs, create_graph=True, strict=strict)
        if strict:
            for i, gi in enumerate(g):
                if not gi.requires_grad:
                    raise RuntimeError(
                        f"While computing the hessian, found that the jacobian of the "
                        f"user-provided function with respect to input {i} is independent of "
                        "the input. This is not allowed in strict mode. You should ensure that "
                        "your function is twice differentiable and that the jacobian depends "
                        "on the inputs (this would be violated by a linear function for "
                        "example).")
        return g
    res = jacobian(gradient, inputs, create_graph=create_graph, strict=strict,
                   vectorize=vectorize, strategy=outer_jacobian_strategy)
    return _untuple(tuple(_untuple(row, is_in_tuple) for row in res), is_in_tuple)


def _second_order(func, inputs, v, create_graph, strict, fn):
    """func's value, its gradient (differentiable), the stand-in inputs and the vector."""
    is_in_tuple, inputs = _as_tuple(inputs, "inputs", fn)
    v = _vector(v, inputs, is_in_tuple, create_graph, fn,
                "the input to the user-provided function is")
    inputs, is_out_tuple, outputs = _record(func, inputs, create_graph, fn)
    _check_requires_grad(outputs, strict)
    _scalar_output(outputs, is_out_tuple, fn)
    with enable_grad():
        g = _pull(outputs, inputs, (ones_like(outputs[0]),), create_graph=True)
    g = _zeros_where_unused(g, inputs, strict, _INDEPENDENT)
    if strict:
        for i, gi in enumerate(g):
            if not gi.requires_grad:
                raise RuntimeError(f"The jacobian of the user-provided function with respect to "
                                   f"input {i} is independent of the input. This is not allowed "
                                   "in strict mode.")
    v = tuple(ones_like(x) for x in inputs) if v is None else v
    return is_in_tuple, inputs, outputs, g, v


def vhp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(inputs), vᵀH) for scalar-valued func, as torch.autograd.functional.vhp: reverse
    mode over reverse mode."""
    is_in_tuple, inputs, outputs, g, v = _second_order(func, inputs, v, create_graph, strict,
                                                       "vhp")
    with set_grad_enabled(create_graph or is_grad_enabled()):
        pairs = [(gi, vi) for gi, vi in zip(g, v) if gi.requires_grad]
        res = (None,) * len(inputs)
        if pairs:
            res = _grad([gi for gi, _ in pairs], inputs, [vi for _, vi in pairs],
                        retain_graph=True, create_graph=create_graph, allow_unused=True)
        res = _zeros_where_unused(res, inputs, strict, "The hessian of the user-provided "
                                  "function is independent of input {i}. This is not allowed "
                                  "in strict mode.")
    return (_detached(outputs, create_graph)[0],
            _untuple(_detached(res, create_graph), is_in_tuple))


def hvp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(inputs), H v) for scalar-valued func, as torch.autograd.functional.hvp: forward
    mode over reverse mode (v pushed along the gradient's recorded graph), one pass, no
    Hessian formed."""
    is_in_tuple, inputs, outputs, g, v = _second_order(func, inputs, v, create_graph, strict,
                                                       "hvp")
    with set_grad_enabled(create_graph):
        live = [i for i, gi in enumerate(g) if gi.requires_grad]
        dots = [None] * len(inputs)
        if live:
            pushed = forward_grad(tuple(g[i] for i in live), inputs, v)
            for i, d in zip(live, pushed):
                dots[i] = d
    res = _zeros_where_unused(dots, inputs, strict, "The hessian of the user-provided function "
                              "is independent of input {i}. This is not allowed in strict "
                              "mode.")
    return (_detached(outputs, create_graph)[0],
            _untuple(_detached(res, create_graph), is_in_tuple))
