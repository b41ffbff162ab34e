"""Samples for the general eigendecomposition (fluxgrad/ops/linalg_eig.py).

Each eigenvector is defined up to a phase, so the samples return functions that don't depend
on it (the values, |V|, V diag(sin L) V^-1), as real tensors. Real inputs are decomposed
as real matrices, complex ones are built from real pairs (samples/complex.py). The matrices
have distinct eigenvalues, where the derivatives exist.
"""
import fluxgrad as fg
from fluxgrad import linalg as fla

from . import Sample, normal


def _torch():
    import torch
    return torch


def _invariants(mod, w, v):
    f = mod.matmul(v * w.sin().unsqueeze(-2), mod.linalg.inv(v))
    return mod.view_as_real(w), v.abs(), mod.view_as_real(f)


def _eig(complex_input):
    def fn(*parts):
        a = fg.complex(*parts) if complex_input else parts[0]
        return _invariants(fg, *fla.eig(a))

    def torch_fn(*parts):
        torch = _torch()
        a = torch.complex(*parts) if complex_input else parts[0]
        return _invariants(torch, *torch.linalg.eig(a))
    return fn, torch_fn


def _eigvals(complex_input):
    def fn(*parts):
        a = fg.complex(*parts) if complex_input else parts[0]
        return fg.view_as_real(fla.eigvals(a))

    def torch_fn(*parts):
        torch = _torch()
        a = torch.complex(*parts) if complex_input else parts[0]
        return torch.view_as_real(torch.linalg.eigvals(a))
    return fn, torch_fn


def _samples():
    samples = []
    for k, shape in enumerate([(3, 3), (4, 4), (2, 3, 3), (1, 1)]):
        for op, make in (("eig", _eig), ("eigvals", _eigvals)):
            fn, torch_fn = make(False)
            samples.append(Sample(op, fn, [normal(*shape, seed=k)], torch_fn))
    for k, shape in enumerate([(3, 3), (2, 2, 2)]):
        for op, make in (("eig", _eig), ("eigvals", _eigvals)):
            fn, torch_fn = make(True)
            samples.append(Sample(op, fn, [normal(*shape, seed=10 + k),
                                           normal(*shape, seed=20 + k)], torch_fn))
    return samples


SAMPLES = _samples()
