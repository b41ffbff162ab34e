"""Samples for the complex ops (fluxgrad/ops/complex.py, the conjugate in ops/_conj.py) and
complex inputs of the holomorphic ops whose rules conjugate their derivative.

The harness differentiates real float64 arrays, so each sample builds its complex inputs
from real ones (`complex(a, b)`) and returns real outputs (`view_as_real`, `real`, `abs`):
the finite-difference, adjoint and PyTorch checks then cover the complex rules over the real
and imaginary parts, as PyTorch's convention defines the gradient.
"""
import fluxgrad as fg

from . import Sample, normal, positive


def _pair(*shape, seed=0):
    return [normal(*shape, seed=seed), normal(*shape, seed=seed + 1)]


def _z(a, b):
    return fg.complex(a, b)


def _tz(a, b):
    import torch
    return torch.complex(a, b)


def _torch_real(z):
    import torch
    return torch.view_as_real(z.resolve_conj())


def _unary(op, fn, torch_fn, *shape, args=None, **kwargs):
    return Sample(op, lambda a, b: fg.view_as_real(fn(_z(a, b))),
                  args if args is not None else _pair(*shape),
                  torch_fn=lambda a, b: _torch_real(torch_fn(_tz(a, b))), **kwargs)


def _binary(op, fn, torch_fn, shape_x, shape_y):
    return Sample(op, lambda a, b, c, d: fg.view_as_real(fn(_z(a, b), _z(c, d))),
                  _pair(*shape_x) + _pair(*shape_y, seed=5),
                  torch_fn=lambda a, b, c, d: _torch_real(torch_fn(_tz(a, b), _tz(c, d))))


def _torch(name):
    def fn(*args):
        import torch
        return getattr(torch, name)(*args)
    return fn


SAMPLES = [
    Sample("complex", lambda a, b: fg.view_as_real(fg.complex(a, b)), _pair(3, 4),
           torch_fn=lambda a, b: _torch_real(_tz(a, b))),
    Sample("complex", lambda a, b: fg.view_as_real(fg.complex(a, b)),
           [normal(2, 3), normal(3, seed=2)],
           torch_fn=lambda a, b: _torch_real(_tz(*_torch("broadcast_tensors")(a, b)))),
    Sample("view_as_real", lambda a, b: fg.view_as_real(_z(a, b)), _pair(2, 3),
           torch_fn=lambda a, b: _torch_real(_tz(a, b))),
    Sample("view_as_complex", lambda x: fg.view_as_real(fg.view_as_complex(x) * 2),
           [normal(3, 2)], torch_fn=lambda x: _torch_real(_torch("view_as_complex")(x) * 2)),
    Sample("real", lambda a, b: fg.real(_z(a, b) * _z(b, -a)), _pair(3),
           torch_fn=lambda a, b: (_tz(a, b) * _tz(b, -a)).real),
    Sample("imag", lambda a, b: fg.imag(_z(a, b) * _z(b, -a)), _pair(3),
           torch_fn=lambda a, b: (_tz(a, b) * _tz(b, -a)).imag),
    _unary("conj", fg.conj, _torch("conj_physical"), 2, 3),
    Sample("complex_abs", lambda a, b: fg.abs(_z(a, b)), _pair(4),
           torch_fn=lambda a, b: _tz(a, b).abs()),
    Sample("complex_abs", lambda a, b: fg.abs(_z(a, b) * _z(a, b)), _pair(2, 2, seed=3),
           torch_fn=lambda a, b: (_tz(a, b) * _tz(a, b)).abs()),
    # holomorphic ops on complex inputs: their VJPs multiply by the conjugate derivative
    _binary("mul", fg.mul, _torch("mul"), (3, 4), (4,)),
    _binary("div", fg.div, _torch("div"), (3,), (3,)),
    _binary("add", fg.add, _torch("add"), (2, 3), (2, 3)),
    _binary("sub", fg.sub, _torch("sub"), (3,), ()),
    _binary("pow", fg.pow, _torch("pow"), (3,), (3,)),
    _unary("pow", lambda z: z ** 3, lambda z: z ** 3, 4),
    _unary("neg", fg.neg, _torch("neg"), 3),
    _unary("exp", fg.exp, _torch("exp"), 3),
    _unary("log", fg.log, _torch("log"), 3),
    _unary("sqrt", fg.sqrt, _torch("sqrt"), args=[positive(3), normal(3)]),
    _unary("reciprocal", fg.reciprocal, _torch("reciprocal"), 3),
    _unary("sin", fg.sin, _torch("sin"), 3),
    _unary("cos", fg.cos, _torch("cos"), 3),
    _unary("tanh", fg.tanh, _torch("tanh"), 3),
    _unary("sigmoid", fg.sigmoid, _torch("sigmoid"), 3),
    # a real tensor meets a complex one: its gradient is the real part of the complex one
    Sample("mul", lambda x, a, b: fg.view_as_real(x * _z(a, b)), [normal(3)] + _pair(3),
           torch_fn=lambda x, a, b: _torch_real(x * _tz(a, b))),
    Sample("cast", lambda x: fg.view_as_real(x.to(fg.complex128) * (1 + 2j)), [normal(3)],
           torch_fn=lambda x: _torch_real(x.to(_torch_dtype("complex128")) * (1 + 2j))),
]


def _torch_dtype(name):
    import torch
    return getattr(torch, name)

