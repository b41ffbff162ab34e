"""Complex tensors against PyTorch: dtypes and promotion, printing, parts and views, the
complex functions, refusals, and gradients (PyTorch's convention: for a real loss L of
z = x + iy, z.grad is dL/dx + i dL/dy), checked against torch and against central finite
differences over the real and imaginary parts. Per-op rules are also checked by the registry
samples in tests/samples/complex.py."""
import numpy as np
import pytest
import torch

import fluxgrad as fg

RNG = np.random.default_rng(0)
A = RNG.standard_normal((3, 4)) + 1j * RNG.standard_normal((3, 4))
B = RNG.standard_normal((4, 2)) + 1j * RNG.standard_normal((4, 2))
W = RNG.standard_normal(4)


def both(fn):
    """fn(fluxgrad, ...) and fn(torch, ...) as NumPy arrays."""
    return np.asarray(fn(fg).numpy()), fn(torch).numpy()


# --- dtypes, creation, promotion -----------------------------------------------------------
def test_python_complex_data_makes_the_default_complex_dtype():
    assert fg.tensor([1 + 2j, 3]).dtype is fg.complex64
    assert fg.tensor(1j).dtype is fg.complex64
    fg.set_default_dtype(fg.float64)
    try:
        assert fg.tensor([1 + 2j]).dtype is fg.complex128
    finally:
        fg.set_default_dtype(fg.float32)


def test_complex_dtypes_and_their_aliases():
    assert fg.cfloat is fg.complex64 and fg.cdouble is fg.complex128
    assert fg.complex64.is_complex and not fg.complex64.is_floating_point
    assert not fg.float32.is_complex
    assert fg.zeros(2, dtype=fg.cfloat).dtype is fg.complex64
    assert fg.ones(2, dtype="complex128").dtype is fg.complex128
    assert fg.from_numpy(np.array([1j])).dtype is fg.complex128
    z = fg.tensor([1j])
    assert z.is_complex() and fg.is_complex(z) and not z.is_floating_point()
    assert not fg.ones(1).is_complex()
    assert fg.ones(2).cdouble().dtype is fg.complex128
    assert fg.finfo(fg.complex128).eps == torch.finfo(torch.complex128).eps


PROMOTIONS = [
    (lambda m: m.ones(2) + 1j),
    (lambda m: m.ones(2, dtype=m.float64) + 1j),
    (lambda m: m.ones(2, dtype=m.int64) + 1j),
    (lambda m: m.ones(2, dtype=m.bool) * 1j),
    (lambda m: m.ones(2) + m.tensor(1j, dtype=m.complex128)),
    (lambda m: m.ones(2, dtype=m.float64) + m.tensor(1j, dtype=m.complex64)),
    (lambda m: m.ones(2, dtype=m.float64) + m.ones(2, dtype=m.complex64)),
    (lambda m: m.ones(2, dtype=m.complex64) * 2.5),
    (lambda m: m.ones(2, dtype=m.complex64) * m.tensor(2.5, dtype=m.float64)),
    (lambda m: m.ones(2, dtype=m.int32) + m.ones(2, dtype=m.complex128)),
    (lambda m: m.tensor(2) / m.tensor(1 + 1j)),
    (lambda m: m.exp(m.ones(2, dtype=m.complex64))),
]


@pytest.mark.parametrize("fn", PROMOTIONS)
def test_type_promotion_matches_torch(fn):
    ours, theirs = fn(fg), fn(torch)
    assert str(theirs.dtype) == f"torch.{ours.dtype.name}"
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-6)


@pytest.mark.parametrize("data, dtype", [
    ([1 + 2j, 3 - 1j], None), ([1.5 + 2j, 3 - 1j], None), (1 + 2j, None),
    ([[1.123456 + 2j, -3e-5 - 1j], [0, 1e9j]], None), ([1 + 2j], "complex128"),
    ([0.1 + 0.2j, 100.5 - 3j], None), ([float("nan") + 1j, float("inf")], None),
    ([-0.5 - 0.25j, 2j], None)])
def test_printing_matches_torch(data, dtype):
    ours = fg.tensor(data, dtype=None if dtype is None else getattr(fg, dtype))
    theirs = torch.tensor(data, dtype=None if dtype is None else getattr(torch, dtype))
    assert repr(ours) == repr(theirs).replace("torch.", "fluxgrad.")


# --- parts, views and the complex functions ------------------------------------------------
VALUES = [
    lambda m, z: m.real(z), lambda m, z: z.imag, lambda m, z: z.abs(), lambda m, z: z.angle(),
    lambda m, z: z.conj().resolve_conj(), lambda m, z: m.conj_physical(z),
    lambda m, z: m.view_as_real(z), lambda m, z: m.sgn(z), lambda m, z: m.isreal(z),
    lambda m, z: m.view_as_complex(m.view_as_real(z) * 2),
    lambda m, z: m.angle(m.real(z)), lambda m, z: z.mH.resolve_conj(),
    lambda m, z: z.T.H.resolve_conj(),
]


@pytest.mark.parametrize("fn", VALUES)
def test_complex_functions_match_torch(fn):
    z = np.array([[1 + 2j, -3 - 0.5j], [0, 2.0]], np.complex64)
    ours, theirs = fn(fg, fg.tensor(z)), fn(torch, torch.tensor(z))
    assert str(theirs.dtype) == f"torch.{ours.dtype.name}"
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-6)


def test_complex_and_polar_build_from_real_parts():
    re, im = RNG.standard_normal(3), RNG.standard_normal(3)
    for name in ("complex", "polar"):
        ours = getattr(fg, name)(fg.tensor(re), fg.tensor(im))
        theirs = getattr(torch, name)(torch.tensor(re), torch.tensor(im))
        assert ours.dtype is fg.complex128
        np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-12)
    inf = fg.complex(fg.tensor([np.inf]), fg.tensor([0.0]))
    assert inf.numpy()[0] == complex(np.inf, 0)  # not nan, as re + 1j * im would give


def test_real_and_imag_are_views_that_write_into_the_tensor():
    ours, theirs = fg.tensor([1 + 2j, 3 - 1j]), torch.tensor([1 + 2j, 3 - 1j])
    for z in (ours, theirs):
        z.real.mul_(2)
        z.imag[0] = 5.0
        z.real = z.imag
    np.testing.assert_array_equal(ours.numpy(), theirs.numpy())


def test_a_write_through_real_reaches_the_gradient():
    ours, theirs = fg.tensor(A, requires_grad=True), torch.tensor(A, requires_grad=True)
    for m, z in ((fg, ours), (torch, theirs)):
        y = z * 2
        y.real.mul_(3)
        (y.abs() ** 2).sum().backward()
    np.testing.assert_allclose(ours.grad.numpy(), theirs.grad.numpy(), rtol=1e-12)


def test_real_of_a_real_tensor_is_itself():
    x = fg.ones(2)
    assert fg.real(x) is x and x.conj() is x and x.resolve_conj() is x


# --- refusals ------------------------------------------------------------------------------
REFUSED = [
    lambda m, z: z < z, lambda m, z: z >= 1, lambda m, z: z.max(), lambda m, z: z.min(),
    lambda m, z: m.amax(z), lambda m, z: z.max(0), lambda m, z: z.sort(),
    lambda m, z: z.argsort(), lambda m, z: m.topk(z, 1), lambda m, z: z.argmax(),
    lambda m, z: z.clamp(0, 1), lambda m, z: m.clamp(z, max=1), lambda m, z: m.erf(z),
    lambda m, z: m.maximum(z, z), lambda m, z: z.floor(), lambda m, z: z.round(),
    lambda m, z: m.atan2(z, z), lambda m, z: z.imag.imag,
    lambda m, z: m.view_as_real(z.real), lambda m, z: m.view_as_complex(m.ones(3)),
    lambda m, z: m.view_as_complex(m.ones(2, 2, dtype=m.int64)),
    lambda m, z: m.complex(z, z), lambda m, z: m.complex(z.real, z.real.double()),
    lambda m, z: m.polar(z.real.long(), z.real.long()),
    lambda m, z: m.ones(2, dtype=m.int64).requires_grad_(),
    lambda m, z: (m.ones(2, requires_grad=True) * z).sum().backward(),
]


@pytest.mark.parametrize("fn", REFUSED)
def test_refusals_raise_torchs_exception_type(fn):
    z = np.array([1 + 2j, 3j], np.complex64)
    with pytest.raises(Exception) as theirs:
        fn(torch, torch.tensor(z))
    with pytest.raises(type(theirs.value)):
        fn(fg, fg.tensor(z))


def test_requires_grad_is_allowed_for_complex_tensors():
    z = fg.tensor([1j], requires_grad=True)
    assert z.requires_grad and (z * 2).requires_grad


# --- gradients -----------------------------------------------------------------------------
def _loss_abs2(m, out):
    return (out.abs() ** 2).sum()


def _loss_weighted_real(m, out):
    return (out.real * m.tensor(W[:out.shape[-1]] if out.ndim else W[0])).sum()


FUNCTIONS = {
    "matmul": lambda m, a, b: a @ b,
    "einsum": lambda m, a, b: m.einsum("ij,jk->ik", a, b),
    "bmm": lambda m, a, b: m.bmm(a[None], b[None])[0],
    "mm_mv": lambda m, a, b: m.mv(a, b[:, 0]) + m.mm(a, b)[:, 1],
    "sum_mean_pow": lambda m, a, b: a.sum(1, keepdim=True) ** 2 + a.mean() + b.sum(),
    "reshape_transpose": lambda m, a, b: (a.reshape(4, 3).T @ b).mean(0),
    "index_cat_stack": lambda m, a, b: m.cat([a, a * 2], 0)[1:3] @ m.stack([b, b])[1],
    "exp_sqrt_log": lambda m, a, b: m.exp(a) @ m.sqrt(b) + m.log(a).sum(),
    "tanh_sigmoid_div": lambda m, a, b: (a[:, :2].conj() * b[0]).tanh() / m.sigmoid(a[:, 2:]),
    "sin_cos_reciprocal": lambda m, a, b: m.sin(a) * m.cos(a) + a.reciprocal() - (-a) + b[0, 0],
    "sub_neg_pow": lambda m, a, b: (a - b[:3, :1]) ** b[0, 0] - a ** 2.5,
    "abs_angle": lambda m, a, b: a.abs() * a.angle() + m.polar(b.abs(), b.angle()).sum(),
    "parts": lambda m, a, b: m.complex(a.real * a.imag, m.view_as_real(b)[..., 1].sum() + a.imag),
    "real_input": lambda m, a, b: (a.real.to(m.complex128) * b[0, 0]) @ b,
    "view_as_complex": lambda m, a, b: m.view_as_complex(m.view_as_real(a) ** 2) @ b,
}


def _grads(m, fn, loss, a=A, b=B):
    a_t, b_t = m.tensor(a, requires_grad=True), m.tensor(b, requires_grad=True)
    loss(m, fn(m, a_t, b_t)).backward()
    return [t.grad.numpy() for t in (a_t, b_t)]


@pytest.mark.parametrize("loss", [_loss_abs2, _loss_weighted_real])
@pytest.mark.parametrize("name", FUNCTIONS)
def test_gradients_match_torch(name, loss):
    ours, theirs = _grads(fg, FUNCTIONS[name], loss), _grads(torch, FUNCTIONS[name], loss)
    for o, t in zip(ours, theirs):
        assert o.dtype == t.dtype
        np.testing.assert_allclose(o, t, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("name", FUNCTIONS)
def test_gradients_match_finite_differences_over_real_and_imaginary_parts(name):
    fn, h = FUNCTIONS[name], 1e-6

    def loss_at(a, b):
        with fg.no_grad():
            return float(_loss_weighted_real(fg, fn(fg, fg.tensor(a), fg.tensor(b))))
    grads = _grads(fg, fn, _loss_weighted_real)
    for which, (z, g) in enumerate(zip((A, B), grads)):
        for direction in (1, 1j):  # dL/dx, then dL/dy: z.grad = dL/dx + i dL/dy
            fd = np.zeros(z.shape)
            for idx in np.ndindex(z.shape):
                step = np.zeros(z.shape, complex)
                step[idx] = h * direction
                args = [A, B]
                args[which] = z + step
                up = loss_at(*args)
                args[which] = z - step
                fd[idx] = (up - loss_at(*args)) / (2 * h)
            part = g.real if direction == 1 else g.imag
            np.testing.assert_allclose(part, fd, rtol=1e-6, atol=1e-7)


def test_a_real_leaf_gets_the_real_part_of_its_complex_gradient():
    ours = fg.tensor(W, requires_grad=True)
    theirs = torch.tensor(W, requires_grad=True)
    for m, x in ((fg, ours), (torch, theirs)):
        (x * m.tensor(1 + 2j) * m.tensor(A[0])).abs().sum().backward()
    assert ours.grad.dtype is fg.float64
    np.testing.assert_allclose(ours.grad.numpy(), theirs.grad.numpy(), rtol=1e-12)


def test_second_order_through_complex_ops_matches_torch():
    def second(m):
        z = m.tensor(A[0], requires_grad=True)
        loss = (m.exp(z) * z.conj()).abs().sum()
        (g,) = m.autograd.grad(loss, z, create_graph=True)
        (h,) = m.autograd.grad((g.abs() ** 2).sum(), z)
        return h
    ours, theirs = second(fg), second(torch)
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-10)


def test_forward_mode_through_complex_ops_matches_torch():
    import torch.autograd.forward_ad as tfwd
    import fluxgrad.autograd.forward_ad as ffwd
    results = []
    for m, fwd in ((fg, ffwd), (torch, tfwd)):
        with fwd.dual_level():
            z = fwd.make_dual(m.tensor(A), m.tensor(A * 0.5j + 1))
            out = (m.exp(z) @ m.tensor(B)).abs()
            results.append(fwd.unpack_dual(out).tangent.numpy())
    np.testing.assert_allclose(results[0], results[1], rtol=1e-10)


@pytest.mark.parametrize("op", ["prod", "prod_all", "cumprod", "cumprod_reverse", "logsumexp"])
def test_complex_gradients_of_products_and_logsumexp_match_torch(op):
    # (prod's and cumprod's VJPs multiplied by the derivative, not its conjugate: wrong
    # gradients for complex input; a zero entry takes prod's other path)
    rng = np.random.default_rng(3)
    a = rng.standard_normal((3, 4)) + 1j * rng.standard_normal((3, 4))
    a[0, 1] = 0

    def grad_of(m):
        z = m.tensor(a, requires_grad=True)
        y = {"prod": lambda: z.prod(1), "prod_all": lambda: z.prod(),
             "cumprod": lambda: m.cumprod(z, 1), "logsumexp": lambda: m.logsumexp(z, 1),
             "cumprod_reverse": lambda: m.flip(m.cumprod(m.flip(z, [1]), 1), [1])}[op]()
        (y.real * 2 + y.imag * 3).sum().backward()
        return np.asarray(z.grad.detach().numpy())

    np.testing.assert_allclose(grad_of(fg), grad_of(torch), rtol=1e-12, atol=1e-12)
