"""Samples for the reductions and scans (fluxgrad/ops/reduce.py).

Extrema are sampled where values are distinct, and with ties that hold in a whole
neighbourhood (copies of one input), where finite differences are still valid:
they check that tied elements share the gradient rather than each taking all of
it. Products and cumulative products are sampled with one, two and three zeros
in a slice. Norms stay away from the kinks of |x| (and of max |x| for p=inf).
"""
import numpy as np

import fluxgrad as fg
from fluxgrad._core.dispatch import apply
from fluxgrad.ops.reduce import cumprod_p, cumsum_p, decayed_cumsum_p

from . import Sample, away_from, normal, positive

AXES = [(None, False), (0, False), (1, True), (-1, False), ((0, 2), False), ((0, 2), True),
        ((-1, 0, 1), False)]


def _torch_axis(axis, ndim):
    return tuple(range(ndim)) if axis is None else axis


def _torch_prod(x, axis, keepdim):
    if axis is None:
        return x.prod()
    for a in sorted((axis,) if isinstance(axis, int) else [a % x.ndim for a in axis],
                    reverse=True):
        x = x.prod(a, keepdim)
    return x


def _torch(name, axis, keepdim, **kwargs):
    def fn(x):
        import torch
        return getattr(torch, name)(x, _torch_axis(axis, x.ndim), keepdim=keepdim, **kwargs)
    return fn


def _along_axes(op, make, torch_name, x, axes=AXES, second_order=True):
    samples = []
    for axis, keepdim in axes:
        samples.append(Sample(op, make(axis, keepdim), [x], _torch(torch_name, axis, keepdim),
                              second_order=second_order))
    return samples


# --- sum and mean ------------------------------------------------------------------------------
def _sum_samples():
    x = normal(2, 3, 4)
    samples = _along_axes("sum", lambda a, k: lambda x: fg.sum(x, a, k), "sum", x)
    samples += _along_axes("sum", lambda a, k: lambda x: x.mean(dim=a, keepdims=k), "mean", x,
                           AXES[:4])
    samples += [
        Sample("sum", lambda x: x.sum(), [np.array(1.5)], lambda x: x.sum()),
        Sample("sum", lambda x: fg.sum(x, 0), [np.array(1.5)], lambda x: x.sum(0)),
        Sample("sum", lambda x: fg.sum(x, axis=[1]), [normal(4, 1)], lambda x: x.sum(1)),
        Sample("sum", lambda x: fg.mean(x, -1, keepdim=True), [normal(5)],
               lambda x: x.mean(-1, keepdim=True)),
    ]
    return samples


def _var_std_samples():
    x = normal(3, 4, seed=3)
    samples = []
    for axis, keepdim in AXES[:4]:
        t_axis = None if axis is None else axis
        samples += [
            Sample("sum", lambda x, a=axis, k=keepdim: fg.var(x, a, keepdim=k), [x],
                   lambda x, a=t_axis, k=keepdim: x.var(a, keepdim=k)),
            Sample("sum", lambda x, a=axis, k=keepdim: fg.var(x, a, False, k), [x],
                   lambda x, a=t_axis, k=keepdim: x.var(a, correction=0, keepdim=k)),
            Sample("norm", lambda x, a=axis, k=keepdim: fg.std(x, dim=a, keepdims=k), [x],
                   lambda x, a=t_axis, k=keepdim: x.std(a, keepdim=k)),
            Sample("norm", lambda x, a=axis, k=keepdim: fg.std(x, a, correction=2, keepdim=k),
                   [x], lambda x, a=t_axis, k=keepdim: x.std(a, correction=2, keepdim=k)),
        ]
    samples.append(Sample("norm", lambda x: x.std((0, 2)), [normal(2, 3, 4)],
                          lambda x: x.std((0, 2))))
    return samples


# --- product -----------------------------------------------------------------------------------
def _prod_samples():
    x = positive(2, 3, 4) * np.sign(normal(2, 3, 4, seed=4))
    samples = [Sample("prod", lambda x, a=a, k=k: fg.prod(x, a, k), [x],
                      lambda x, a=a, k=k: _torch_prod(x, a, k)) for a, k in AXES]
    # rows with no zero, one zero, two zeros and three zeros
    zeros = np.array([[1.5, -0.7, 2.0, 0.8], [1.5, 0.0, -2.0, 0.7], [0.0, 1.3, 0.0, -1.1],
                      [0.0, 0.0, 1.2, 0.0]])
    for axis, keepdim in [(None, False), (0, False), (1, True), (-1, False), ((0, 1), True)]:
        samples.append(Sample("prod", lambda x, a=axis, k=keepdim: x.prod(a, keepdim=k),
                              [zeros], lambda x, a=axis, k=keepdim: _torch_prod(x, a, k)))
    samples += [
        Sample("prod", lambda x: fg.prod(x, 0), [np.array([[1.5, 0.0, 2.0, 0.0, 3.0],
                                                           [0.5, -1.0, 1.2, 0.8, 2.0]]).T],
               lambda x: x.prod(0)),
        Sample("prod", lambda x: fg.prod(x, 0), [np.array([0.0])], lambda x: x.prod(0)),
        Sample("prod", fg.prod, [np.array(-1.3)], lambda x: x.prod()),
        Sample("prod", lambda x: fg.prod(x, dim=0), [normal(1, 3)], lambda x: x.prod(0)),
    ]
    return samples


# --- extrema -----------------------------------------------------------------------------------
_COPIES_MAX = np.array([[2.0, 2.0, 1.0, 0.5]])   # x * this: the first two tie for the max
_COPIES_MIN = np.array([[0.5, 2.0, 0.5, 1.0]])   # and here the first and third for the min


def _copies(x, weights):
    return x.reshape(-1, 1) * fg.tensor(weights, dtype=fg.float64)


def _torch_copies(x, weights):
    import torch
    return x.reshape(-1, 1) * torch.tensor(weights)


def _extremum_samples():
    x = normal(2, 3, 4, seed=5)
    samples = []
    for op, torch_name in (("amax", "amax"), ("amin", "amin")):
        fn = getattr(fg, op)
        samples += _along_axes(op, lambda a, k, fn=fn: lambda x: fn(x, a, k), torch_name, x)
    samples += [
        Sample("max_all", lambda x: fg.max(x), [x], lambda x: x.max()),
        Sample("min_all", lambda x: x.min(), [x], lambda x: x.min()),
        Sample("amax", lambda x: fg.amax(x, axis=(0, 2)), [x], lambda x: x.amax((0, 2))),
        Sample("amin", lambda x: fg.amin(x, axis=1, keepdims=True), [x],
               lambda x: x.amin(1, keepdim=True)),
        Sample("min_dim", lambda x: fg.min(x, axis=1, keepdims=True), [x],
               lambda x: x.min(axis=1, keepdim=True)),
        Sample("amax", fg.amax, [np.array(0.3)], lambda x: x.amax()),
        # ties that persist under perturbation
        Sample("amax", lambda x: fg.amax(_copies(x, _COPIES_MAX), 1), [positive(3)],
               lambda x: _torch_copies(x, _COPIES_MAX).amax(1)),
        Sample("max_all", lambda x: fg.max(_copies(x, _COPIES_MAX)), [positive(1)],
               lambda x: _torch_copies(x, _COPIES_MAX).max()),
        Sample("min_all", lambda x: fg.min(_copies(x, _COPIES_MIN)), [positive(2)],
               lambda x: _torch_copies(x, _COPIES_MIN).min()),
        Sample("amin", lambda x: fg.amin(_copies(x, _COPIES_MIN), -1, True), [positive(3)],
               lambda x: _torch_copies(x, _COPIES_MIN).amin(-1, True)),
    ]
    for op, name in (("max_dim", "max"), ("min_dim", "min")):
        for dim, keepdim in [(0, False), (1, True), (-1, False), (2, True)]:
            samples.append(Sample(
                op, lambda x, n=name, d=dim, k=keepdim: getattr(fg, n)(x, d, k), [x],
                lambda x, n=name, d=dim, k=keepdim: getattr(x, n)(d, k)))
        samples += [
            Sample(op, lambda x, n=name: getattr(x, n)(dim=1).values, [normal(3, 5, seed=6)],
                   lambda x, n=name: getattr(x, n)(dim=1).values),
        ]
    samples += [
        Sample("max_dim", lambda x: fg.max(_copies(x, _COPIES_MAX), 1), [positive(3)],
               lambda x: _torch_copies(x, _COPIES_MAX).max(1)),
        Sample("min_dim", lambda x: fg.min(_copies(x, _COPIES_MIN), 1, True), [positive(3)],
               lambda x: _torch_copies(x, _COPIES_MIN).min(1, True)),
    ]
    return samples


# --- logsumexp ---------------------------------------------------------------------------------
def _logsumexp_samples():
    x = normal(2, 3, 4, seed=8)
    samples = _along_axes("logsumexp", lambda a, k: lambda x: fg.logsumexp(x, a, k), "logsumexp",
                          x)
    samples += [
        Sample("logsumexp", lambda x: x.logsumexp(1), [np.array([[1000.0, 999.0, -1000.0],
                                                                  [-800.0, -801.0, -799.5]])],
               lambda x: x.logsumexp(1)),
        Sample("logsumexp", lambda x: fg.logsumexp(x, 0), [np.array(2.5)],
               lambda x: x.logsumexp(0)),
        Sample("logsumexp", lambda x: fg.logsumexp(x, dim=-1, keepdim=True), [normal(1)],
               lambda x: x.logsumexp(-1, keepdim=True)),
    ]
    return samples


# --- norms -------------------------------------------------------------------------------------
def _torch_norm(p, axis, keepdim):
    def fn(x):
        import torch
        return torch.linalg.vector_norm(x, 2 if p == "fro" else p, axis, keepdim)
    return fn


def _norm_samples():
    x = away_from(normal(2, 3, 4, seed=9), [0.0])
    samples = []
    for p in (2, "fro", 1, 3, 1.5, 0.5, -1.5, np.inf, -np.inf):
        for axis, keepdim in [(None, False), (1, False), ((0, 2), True), (-1, True)]:
            samples.append(Sample("norm", lambda x, p=p, a=axis, k=keepdim: fg.norm(x, p, a, k),
                                  [x], _torch_norm(p, axis, keepdim)))
    samples += [
        Sample("norm", lambda x: x.norm(), [np.array(-0.8)], lambda x: x.norm()),
        Sample("norm", lambda x: fg.norm(x, p=None, axis=[0, 1]), [x[0]],
               lambda x: x.norm(p="fro", dim=(0, 1))),
        Sample("norm", lambda x: fg.norm(x, 0, 1), [np.array([[1.0, 0.0, -2.0], [0.0, 0.0, 3.0]])],
               lambda x: x.norm(0, 1)),
        # zero entries: p = 3 is smooth there
        Sample("norm", lambda x: fg.norm(x, 3, 1), [np.array([[1.0, 0.0, -2.0], [0.5, 0.0, 0.0]])],
               lambda x: x.norm(3, 1)),
    ]
    return samples


# --- cumulative sums and products --------------------------------------------------------------
def _torch_scan(name, dim):
    def fn(x):
        return getattr(x.reshape(-1), name)(0) if dim is None else getattr(x, name)(dim)
    return fn


def _torch_reverse_scan(name, dim):
    def fn(x):
        return getattr(x.flip(dim), name)(dim).flip(dim)
    return fn


def _scan_samples():
    x = normal(2, 3, 4, seed=10)
    zeros = np.array([[1.5, 0.0, -2.0, 0.7, 1.1], [0.3, 1.2, -0.8, 2.0, 0.9],
                      [0.0, 0.6, 0.0, -1.1, 0.0], [1.4, 0.0, 0.0, 0.0, 0.9]])
    samples = []
    for op in ("cumsum", "cumprod"):
        fn = getattr(fg, op)
        prim = {"cumsum": cumsum_p, "cumprod": cumprod_p}[op]
        inputs = [x, zeros] if op == "cumprod" else [x]
        for data in inputs:
            for dim in range(-1, data.ndim):
                samples.append(Sample(op, lambda x, fn=fn, d=dim: fn(x, d), [data],
                                      _torch_scan(op, dim)))
            samples.append(Sample(op, lambda x, fn=fn: fn(x), [data], _torch_scan(op, None)))
            for dim in (0, 1):
                samples.append(Sample(
                    op, lambda x, p=prim, d=dim: apply(p, x, axis=d, reverse=True), [data],
                    _torch_reverse_scan(op, dim)))
        samples += [
            Sample(op, lambda x, fn=fn: fn(x, 0), [np.array(0.7)], _torch_scan(op, 0)),
            Sample(op, lambda x, op=op: getattr(x, op)(dim=0), [normal(1)], _torch_scan(op, 0)),
        ]
    samples.append(Sample("cumprod", lambda x: fg.cumprod(x, 0), [np.array([0.0, 0.0, 2.0])],
                          _torch_scan("cumprod", 0)))
    return samples


# --- sums of several tensors -------------------------------------------------------------------
def _add_n_samples():
    return [
        Sample("add_n", lambda x, y, z: fg.add_n([x, y, z]),
               [normal(2, 3), normal(2, 3, seed=1), normal(2, 3, seed=2)],
               lambda x, y, z: x + y + z),
        Sample("add_n", lambda x, y, z: fg.add_n((x, y, z)),
               [normal(2, 3), normal(3, seed=1), normal(1, 3, seed=2)],
               lambda x, y, z: x + y + z),
        Sample("add_n", lambda x: fg.add_n([x]), [normal(4)], lambda x: x * 1),
        Sample("add_n", lambda x, y: fg.add_n([x, y, x]), [normal(3), np.array(0.5)],
               lambda x, y: x + y + x),
    ]


# --- ops without a derivative: indices of extrema, logical reductions, counts -----------------
def _index_samples():
    x = normal(2, 3, 4, seed=11)
    samples = []
    for op in ("argmax", "argmin"):
        for axis, keepdim in [(None, False), (None, True), (0, False), (1, True), (-1, False)]:
            samples.append(Sample(op, lambda x, op=op, a=axis, k=keepdim: getattr(fg, op)(x, a, k),
                                  [x], lambda x, op=op, a=axis, k=keepdim:
                                  getattr(x, op)(a, keepdim=k)))
        samples += [
            Sample(op, lambda x, op=op: getattr(x, op)(dim=0), [np.array(0.3)],
                   lambda x, op=op: getattr(x, op)(0)),
            Sample(op, lambda x, op=op: getattr(fg, op)(x, 1, dtype="int32").astype("int64"),
                   [x], lambda x, op=op: getattr(x, op)(1)),
        ]
    return samples


def _torch_logical(name, axis, keepdim):
    def fn(x):
        import torch
        return getattr(torch, name)(x > 0, _torch_axis(axis, x.ndim), keepdim=keepdim)
    return fn


def _logical_samples():
    # exact zeros stay zero, and signs stay, when a sample is scaled by a positive factor
    x = np.where(np.abs(normal(2, 3, 4, seed=12)) < 0.5, 0.0, normal(2, 3, 4, seed=12))
    samples = []
    for op in ("all", "any"):
        for axis, keepdim in AXES:
            samples.append(Sample(op, lambda x, op=op, a=axis, k=keepdim:
                                  getattr(fg, op)(x > 0, a, k), [x],
                                  _torch_logical(op, axis, keepdim)))
        samples.append(Sample(op, lambda x, op=op: getattr(x > 0, op)(), [np.array(-0.4)],
                              lambda x, op=op: getattr(x > 0, op)()))
    for axis, keepdim in AXES:
        samples.append(Sample("count_nonzero", lambda x, a=axis, k=keepdim:
                              fg.count_nonzero(x, a, k), [x],
                              None if keepdim else lambda x, a=axis:
                              x.count_nonzero(_torch_axis(a, x.ndim))))
    samples.append(Sample("count_nonzero", fg.count_nonzero, [np.array(0.0)],
                          lambda x: x.count_nonzero()))
    return samples


def _running_samples():
    """cummax / cummin (the gradient goes to the running extremum's index) and logcumsumexp
    (large values: the shifted scans in its rules must not overflow)."""
    x = normal(3, 5, seed=12)
    samples = []
    for name in ("cummax", "cummin"):
        for dim in (0, 1, -1):
            torch_fn = (lambda n, d: lambda x: getattr(__import__("torch"), n)(x, d))(name, dim)
            samples.append(Sample(f"{name}_index", lambda x, n=name, d=dim: getattr(fg, n)(x, d),
                                  [x], torch_fn))
            samples.append(Sample("index", lambda x, n=name, d=dim: getattr(fg, n)(x, d).values,
                                  [x], lambda x, n=name, d=dim: getattr(
                                      __import__("torch"), n)(x, d).values))
    for dim in (0, 1, -1):
        for scale in (1.0, 40.0):
            samples.append(Sample("logcumsumexp", lambda x, d=dim: fg.logcumsumexp(x, d),
                                  [x * scale], lambda x, d=dim: x.logcumsumexp(d)))
    return samples


def _torch_decayed_cumsum(dim, reverse):
    """y_i = a_i y_{i-1} + t_i in closed form: y_i = sum over j <= i of t_j prod_{j<k<=i} a_k
    = exp(L_i) cumsum(t exp(-L))_i with L = cumsum(log a) (a > 0; a_0 cancels)."""
    def forward(t, a):
        import torch
        logs = torch.cumsum(torch.log(a), dim)
        return torch.exp(logs) * torch.cumsum(t * torch.exp(-logs), dim)

    def fn(t, a):
        if reverse:
            return forward(t.flip(dim), a.flip(dim)).flip(dim)
        return forward(t, a)
    return fn


def _decayed_cumsum_samples():
    """The scan that logcumsumexp's JVP runs on its tangent (PyTorch has no such op: its
    reference is a closed form, valid for positive decays)."""
    samples = []
    t, a = normal(3, 5, seed=13), positive(3, 5, seed=14)
    for dim in (0, 1, -1):
        for reverse in (False, True):
            samples.append(Sample(
                "decayed_cumsum",
                lambda t, a, d=dim, r=reverse: apply(decayed_cumsum_p, t, a, axis=d, reverse=r),
                [t, a], _torch_decayed_cumsum(dim, reverse)))
    samples += [
        Sample("decayed_cumsum",
               lambda t, a: apply(decayed_cumsum_p, t, a, axis=1, reverse=False),
               [normal(2, 4, 3, seed=15), positive(2, 4, 3, seed=16)],
               _torch_decayed_cumsum(1, False)),
        Sample("decayed_cumsum",
               lambda t, a: apply(decayed_cumsum_p, t, a, axis=0, reverse=True),
               [normal(1, 3, seed=17), positive(1, 3, seed=18)],
               _torch_decayed_cumsum(0, True)),
        # zero decays cut the sum (no closed form through log a there)
        Sample("decayed_cumsum",
               lambda t, a: apply(decayed_cumsum_p, t, a, axis=0, reverse=False),
               [normal(5, seed=19), np.array([0.4, 0.0, 0.9, 0.0, 1.3])]),
    ]
    return samples


SAMPLES = (_running_samples() + _decayed_cumsum_samples() + _sum_samples()
           + _var_std_samples() + _prod_samples() + _extremum_samples() + _logsumexp_samples()
           + _norm_samples() + _scan_samples() + _add_n_samples() + _index_samples()
           + _logical_samples())
