"""fluxgrad.fft against torch.fft: values and dtypes for every transform, norm and size
argument, the frequency helpers, the errors, and gradients (the per-record rules are also
checked against finite differences by the samples in tests/samples/fft.py)."""
import numpy as np
import pytest
import torch

import fluxgrad as fg

RNG = np.random.default_rng(0)
X = RNG.standard_normal((4, 6))
Z = X + 1j * RNG.standard_normal((4, 6))

CALLS = [
    ("fft", Z, {}), ("fft", X, {"n": 8, "norm": "ortho"}), ("ifft", Z, {"n": 3, "dim": 0}),
    ("fft2", Z, {}), ("ifft2", Z, {"s": (3, 7), "norm": "forward"}), ("fftn", X, {}),
    ("ifftn", Z, {"dim": (1,)}), ("fftn", Z, {"s": (5,)}), ("ifftn", Z, {"s": (2, -1)}),
    ("rfft", X, {}), ("rfft", X, {"n": 5, "dim": 0, "norm": "forward"}), ("rfft2", X, {}),
    ("rfftn", X, {"norm": "ortho"}), ("irfft", Z, {}), ("irfft", Z, {"n": 7}),
    ("irfft2", Z, {"s": (4, 9)}), ("irfftn", Z, {}), ("irfftn", Z, {"norm": "forward"}),
    ("hfft", Z, {}), ("hfft", Z, {"n": 5, "norm": "ortho"}), ("ihfft", X, {}),
    ("ihfft", X, {"n": 7, "norm": "forward"}),
]


def _numpy(t):
    return t.resolve_conj().numpy() if isinstance(t, torch.Tensor) else t.numpy()


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name, data, kwargs", CALLS, ids=[f"{c[0]}{c[2]}" for c in CALLS])
def test_transform_matches_torch(name, data, kwargs, dtype):
    if np.iscomplexobj(data):
        dtype = {"float32": "complex64", "float64": "complex128"}[dtype]
    ours = getattr(fg.fft, name)(fg.tensor(data, dtype=getattr(fg, dtype)), **kwargs)
    theirs = getattr(torch.fft, name)(torch.tensor(data, dtype=getattr(torch, dtype)), **kwargs)
    assert str(theirs.dtype) == f"torch.{ours.dtype.name}"
    single = dtype in ("float32", "complex64")
    np.testing.assert_allclose(_numpy(ours), _numpy(theirs), rtol=1e-4 if single else 1e-10,
                               atol=1e-4 if single else 1e-12)


def test_integer_input_is_transformed_in_float32():
    assert fg.fft.fft(fg.tensor([1, 2, 3])).dtype is fg.complex64
    assert fg.fft.rfft(fg.tensor([1, 2, 3])).dtype is fg.complex64


def test_frequencies_match_torch():
    for name, args, kwargs in (("fftfreq", (5,), {}), ("fftfreq", (4, 0.1), {}),
                               ("rfftfreq", (5, 0.5), {"dtype": "float64"}),
                               ("rfftfreq", (6,), {})):
        ours = getattr(fg.fft, name)(*args, **{k: getattr(fg, v) for k, v in kwargs.items()})
        theirs = getattr(torch.fft, name)(*args, **{k: getattr(torch, v)
                                                    for k, v in kwargs.items()})
        assert str(theirs.dtype) == f"torch.{ours.dtype.name}"
        np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-7)


def test_fftshift_of_fftfreq_is_increasing():
    freq = fg.fft.fftshift(fg.fft.fftfreq(6))
    assert np.all(np.diff(freq.numpy()) > 0)
    np.testing.assert_array_equal(fg.fft.ifftshift(freq).numpy(), fg.fft.fftfreq(6).numpy())


ERRORS = [
    lambda m, x, z: m.fft.fft(x, norm="bad"), lambda m, x, z: m.fft.rfft(z),
    lambda m, x, z: m.fft.ihfft(z), lambda m, x, z: m.fft.fft(x, n=0),
    lambda m, x, z: m.fft.fft(x, dim=2), lambda m, x, z: m.fft.fftn(x, s=(2, 2)),
    lambda m, x, z: m.fft.fftn(x[None], s=(2, 2), dim=(0,)),
    lambda m, x, z: m.fft.irfft(z[:1]), lambda m, x, z: m.fft.fftn(x[None], dim=(0, 0)),
    lambda m, x, z: m.fft.fft(x[0]),
]


@pytest.mark.parametrize("fn", ERRORS)
def test_errors_raise_torchs_exception_type(fn):
    with pytest.raises(Exception) as theirs:
        fn(torch, torch.ones(4), torch.ones(4, dtype=torch.complex64))
    with pytest.raises(type(theirs.value)):
        fn(fg, fg.ones(4), fg.ones(4, dtype=fg.complex64))


GRADIENTS = [
    lambda m, x, z: (m.fft.fft(z, n=8).abs() ** 2).sum() + m.fft.fft(x, dim=0).abs().sum(),
    lambda m, x, z: (m.fft.ifft2(z, norm="ortho").real * m.fft.fft2(x).imag).sum(),
    lambda m, x, z: (m.fft.rfft(x, n=5, dim=0).abs()).sum() + m.fft.irfft(z, n=9).sum(),
    lambda m, x, z: (m.fft.irfftn(m.fft.rfftn(x) * z[:, :4]) ** 2).sum(),
    lambda m, x, z: m.fft.hfft(z, norm="forward").pow(2).sum() + m.fft.ihfft(x).abs().sum(),
    lambda m, x, z: (m.fft.fftn(m.fft.fftshift(z), s=(3, 4)) * m.fft.fftfreq(4) * x[0, :4]
                     ).abs().sum(),
]


@pytest.mark.parametrize("fn", GRADIENTS)
def test_gradients_match_torch(fn):
    grads = []
    for m in (fg, torch):
        x, z = m.tensor(X, requires_grad=True), m.tensor(Z, requires_grad=True)
        fn(m, x, z).backward()
        grads.append((_numpy(x.grad), _numpy(z.grad)))
    for ours, theirs in zip(*grads):
        assert ours.dtype == theirs.dtype
        np.testing.assert_allclose(ours, theirs, rtol=1e-9, atol=1e-10)
