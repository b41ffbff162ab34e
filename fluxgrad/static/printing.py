"""`static.Print(x, message=..., summarize=...)`: PaddlePaddle's print op.

`print_p` is the identity with an effect: each time it runs it prints the value (name,
message, shape, dtype and the first `summarize` entries; -1: all), and returns it unchanged.
Its derivative is itself on the cotangent (forward mode: on the tangent), marked as the
gradient, so a program's backward prints the gradient there too (`print_phase`: 'forward',
'backward' or 'both' says which of the two print). In a program it is an effect (`effect`):
staged even on constants, never folded, merged or removed while its result is used; as
Paddle's, it prints only where its result is used (fetched, or fed into what is fetched).
`first_n` (> 0) prints only the first n runs of each print op.
"""
import numpy as np

from .._core.dispatch import apply
from .._core.primitive import Primitive
from .._core.tensor import Tensor

_PHASES = ("forward", "backward", "both")


class _EffectPrimitive(Primitive):
    """A primitive whose every run matters (printing): see the module docstring."""
    __slots__ = ()
    effect = True

    @staticmethod
    def abstract(inputs, params):
        """The output has the input's type; the impl does not run to find it (it prints)."""
        x = inputs[0]
        dims = x.dims if hasattr(x, "dims") else x._data.shape
        return [(tuple(dims), x._data.dtype)]


def _impl(x, *, message, summarize, first_n, name, print_phase, gradient, runs):
    if print_phase == "both" or print_phase == ("backward" if gradient else "forward"):
        runs[0] += 1
        if first_n <= 0 or runs[0] <= first_n:
            print(_report(x, message, summarize, name, gradient), flush=True)
    return x


def _report(x, message, summarize, name, gradient):
    flat = np.asarray(x).reshape(-1)
    shown = flat if summarize < 0 else flat[:summarize]
    lines = [f"Variable: {name}{'@GRAD' if gradient else ''}"]
    if message:
        lines.append(f"  - message: {message}")
    lines += [f"  - shape: {list(np.shape(x))}", f"  - dtype: {np.asarray(x).dtype}",
              f"  - data: [{' '.join(map(str, shown.tolist()))}]"]
    return "\n".join(lines)


def _gradient_params(params):
    return {**params, "gradient": not params["gradient"], "runs": [0]}


print_p = _EffectPrimitive(
    "print", _impl,
    vjp=(lambda out_bar, out, x, **params: apply(print_p, out_bar,
                                                 **_gradient_params(params)),),
    jvp=lambda tangents, out, x, **params: apply(print_p, tangents[0],
                                                 **_gradient_params(params)),
    saves_inputs=False, linear="all",
    batch=lambda bdims, x, **params: (apply(print_p, x, **params), bdims[0]))


def Print(input, first_n=-1, message=None, summarize=20, print_tensor_name=True,
          print_tensor_type=True, print_tensor_shape=True, print_tensor_layout=True,
          print_tensor_lod=True, print_phase="both"):
    """PaddlePaddle's `static.Print`: `input` unchanged, printed at every run of the program
    that uses the result (see the module docstring). Use the result, not `input`, after it."""
    if print_phase not in _PHASES:
        raise ValueError(f"static.Print: print_phase must be one of {list(_PHASES)}, got "
                         f"{print_phase!r}")
    if not isinstance(summarize, int) or isinstance(summarize, bool):
        raise TypeError(f"static.Print: summarize must be an int (-1: every entry), got "
                        f"{summarize!r}")
    x = input if isinstance(input, Tensor) else Tensor(np.asarray(input))
    name = getattr(x, "name", None) or "tensor"
    return apply(print_p, x, message=message or "", summarize=summarize, first_n=first_n,
                 name=name if print_tensor_name else "", print_phase=print_phase,
                 gradient=False, runs=[0])
