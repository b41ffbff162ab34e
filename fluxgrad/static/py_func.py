"""PaddlePaddle's `static.py_func(func, x, out, backward_func=None,
skip_vars_in_backward_input=None)`: a Python function on NumPy arrays staged as one op.

`func` gets the arrays of `x` (a Variable or a list of them) and returns one array per
Variable of `out` (made beforehand, e.g. with `block.create_var(name, dtype, shape)`: only
their shapes and dtypes are read, as by Paddle); the op's results are written into `out`,
which is returned. The op's gradient is another py_func op: `backward_func` gets the arrays
of x (less those in skip_vars_in_backward_input), of out and of out's gradients (zeros for
an output the loss does not reach), and returns one gradient per x (None: zero). Without
backward_func no gradient flows back through the op, as in Paddle. There is no forward
mode (nor prim-on linearize + transpose) through it: Paddle's rule is reverse only. Under
vmap func runs once per example.
"""
import numpy as np

from .._core.dispatch import apply
from .._core.primitive import Primitive
from .._core.tensor import Tensor

__all__ = ["py_func"]


def _type_of(x):
    return tuple(getattr(x, "dims", x.shape)), x._data.dtype.str


def _impl(*arrays, func, backward, out_types, keep):
    results = func(*arrays)
    results = tuple(results) if isinstance(results, (tuple, list)) else (results,)
    if len(results) != len(out_types):
        raise ValueError(f"py_func: {getattr(func, '__name__', func)} returned {len(results)} "
                         f"results for {len(out_types)} out variables; return one array each")
    arrays = []
    for i, (result, (dims, dtype)) in enumerate(zip(results, out_types)):
        if result is None:  # a gradient backward_func leaves out
            if not all(isinstance(d, int) and d >= 0 for d in dims):
                raise ValueError(f"py_func: {getattr(func, '__name__', func)} returned None for "
                                 f"result {i}, whose shape {list(dims)} is not known; return "
                                 "an array of zeros instead")
            result = np.zeros(dims, dtype)
        array = np.asarray(result, dtype=dtype)
        if array.ndim != len(dims) or any(isinstance(d, int) and d >= 0 and d != n
                                           for d, n in zip(dims, array.shape)):
            raise ValueError(f"py_func: {getattr(func, '__name__', func)} returned shape "
                             f"{list(array.shape)} for result {i}, which is declared "
                             f"{list(dims)}; return arrays of the out variables' shapes")
        arrays.append(array)
    return tuple(arrays)


def _vjp(out_bar, out, *inputs, func, backward, out_types, keep):
    if backward is None:
        return [None] * len(inputs)
    from ..creation import zeros_like
    out_bar = [zeros_like(o) if b is None else b for o, b in zip(out, out_bar)]
    kept = [x for x, k in zip(inputs, keep) if k]
    arguments = (*kept, *out, *out_bar)
    return list(apply(py_func_p, *arguments, func=backward, backward=None,
                      out_types=tuple(_type_of(x) for x in inputs),
                      keep=(True,) * len(arguments)))


def _jvp(tangents, out, *inputs, func, **_):
    raise NotImplementedError(
        f"py_func ({getattr(func, '__name__', func)}): no forward-mode derivative, as in "
        "PaddlePaddle: backward_func is a reverse-mode rule; differentiate in reverse mode "
        "(append_backward, static.gradients) with prim off")


def _batch(bdims, *inputs, **params):
    """One call of func per example (it runs on one example's arrays), stacked."""
    from ..ops.shape import select, stack
    size = next(x.shape[b] for x, b in zip(inputs, bdims) if b is not None)
    results = [apply(py_func_p, *[x if b is None else select(x, b, i)
                                  for x, b in zip(inputs, bdims)], **params)
               for i in range(size)]
    n = len(params["out_types"])
    return tuple(stack([r[k] for r in results]) for k in range(n)), (0,) * n


class _PyFuncOp(Primitive):
    """The py_func record: its outputs' types are the out variables' (func is not probed)."""
    __slots__ = ()

    @staticmethod
    def abstract(inputs, params):
        return [(dims, np.dtype(dtype)) for dims, dtype in params["out_types"]]


py_func_p = _PyFuncOp("py_func", _impl, vjp=_vjp, jvp=_jvp, n_outputs=None,
                      saves_out=True, batch=_batch)


def py_func(func, x, out, backward_func=None, skip_vars_in_backward_input=None):
    """Stage `func` (on NumPy arrays) as an op from `x` to `out` (see the module docstring)."""
    xs = [x] if isinstance(x, Tensor) else list(x)
    if out is None:
        raise NotImplementedError("static.py_func: out=None (a function run for its side "
                                  "effects) is not supported; give it an out variable")
    outs = [out] if isinstance(out, Tensor) else list(out)
    if not callable(func) or (backward_func is not None and not callable(backward_func)):
        raise TypeError("static.py_func: func and backward_func must be callable")
    for name, group in (("x", xs), ("out", outs)):
        for v in group:
            if not isinstance(v, Tensor):
                raise TypeError(f"static.py_func: {name} must be Variables (or a list of "
                                f"them), got {type(v).__name__}")
    skip = skip_vars_in_backward_input
    skip = [] if skip is None else [skip] if isinstance(skip, Tensor) else list(skip)
    for v in skip:
        if not any(v is x for x in xs):
            raise ValueError("static.py_func: skip_vars_in_backward_input must hold variables "
                             f"of x, got {getattr(v, 'name', v)!r}")
    keep = tuple(not any(v is x for v in skip) for x in xs)
    results = apply(py_func_p, *xs, func=func, backward=backward_func,
                    out_types=tuple(_type_of(o) for o in outs), keep=keep)
    for o, result in zip(outs, results):
        o._rebase_inplace(result)
    return out
