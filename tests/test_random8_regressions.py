"""Disagreements with PyTorch that round 8's random programs (the soak of the linalg, module and
optimizer generators, complex programs and whole training runs) found, each with the program
that showed it and the expected numbers from PyTorch or a closed form."""
import numpy as np
import pytest

import fluxgrad as fg

torch = pytest.importorskip("torch")


def _complex_program(m, z):
    w = m.fft.fft(z * z.conj() + m.exp(z))
    return (w.real * 2 + w.imag).sum()


def test_a_compiled_call_carries_gradients_to_complex_arguments():
    # (the compiled call counted only float arguments and results as differentiable: a complex
    # argument got no gradient, and a loss of it alone could not be backpropagated)
    a = np.array([1 + 2j, 3 - 1j, -0.5 + 0.25j])
    want = torch.tensor(a, requires_grad=True)
    _complex_program(torch, want).backward()
    compiled = fg.compile(_complex_program_fg, fullgraph=True)
    for _ in range(2):  # the trace, then the generated code
        z = fg.tensor(a, requires_grad=True)
        loss = compiled(z)
        loss.backward()
        np.testing.assert_allclose(z.grad.numpy(), want.grad.numpy(), rtol=1e-12)


def _complex_program_fg(z):
    return _complex_program(fg, z)


def test_a_compiled_call_with_a_complex_result_is_differentiable():
    a = np.array([[1 + 2j, 3 - 1j], [0.5j, -1.0 + 0j]])
    compiled = fg.compile(lambda z: fg.exp(z) @ z, fullgraph=True)
    z, t = fg.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)
    (torch.exp(t) @ t).abs().sum().backward()
    out = compiled(z)
    assert out.requires_grad and out.dtype is fg.complex128
    out.abs().sum().backward()
    np.testing.assert_allclose(z.grad.numpy(), t.grad.numpy(), rtol=1e-12)


def _doubling(m):
    class Doubling(m.autograd.Function):
        @staticmethod
        def forward(ctx, z):
            return z * 2

        @staticmethod
        def backward(ctx, out_bar):
            return out_bar * 2

        @staticmethod
        def jvp(ctx, z_dot):
            return z_dot * 2
    return Doubling


def test_a_custom_function_with_a_complex_result_is_differentiable_as_in_torch():
    a = np.array([1 + 2j, -0.5 + 0.25j])
    grads = []
    for m in (fg, torch):
        z = m.tensor(a, requires_grad=True)
        out = _doubling(m).apply(z)
        assert out.requires_grad
        (out * out).real.sum().backward()
        grads.append(z.grad.numpy())
    np.testing.assert_allclose(grads[0], grads[1], rtol=1e-12)


def test_a_custom_function_pushes_a_complex_tangent_as_in_torch():
    import fluxgrad.autograd.forward_ad as ffwd
    import torch.autograd.forward_ad as tfwd
    a, t = np.array([1 + 2j, -0.5j]), np.array([0.5 - 1j, 2 + 0j])
    tangents = []
    for m, fwd in ((fg, ffwd), (torch, tfwd)):
        with fwd.dual_level():
            out = _doubling(m).apply(fwd.make_dual(m.tensor(a), m.tensor(t)))
            tangents.append(fwd.unpack_dual(out).tangent.numpy())
    np.testing.assert_allclose(tangents[0], tangents[1], rtol=1e-12)


def _lp_pool_of_zeros(m):
    # (a ReLU RNN's zeros, pooled: LP pooling is (sign(s) relu(|s|) k)^(1/p), whose power has
    # an infinite derivative at 0 that relu's backward stops)
    x = m.tensor([[[0.0, 1.0, -1.0, 0.0]]], dtype=m.float64, requires_grad=True)
    m.nn.functional.lp_pool1d(x, 2.0, 1, stride=1).sum().backward()
    return x.grad.numpy()


def test_lp_pool_of_zeros_has_torchs_zero_gradient_not_nan():
    np.testing.assert_array_equal(_lp_pool_of_zeros(fg), _lp_pool_of_zeros(torch))
    np.testing.assert_array_equal(_lp_pool_of_zeros(fg), [[[0.0, 1.0, -1.0, 0.0]]])


@pytest.mark.parametrize("upstream", [np.inf, -np.inf, np.nan])
def test_relu_backward_stops_a_non_finite_gradient_where_the_output_is_0(upstream):
    # PyTorch's threshold_backward is a select: 0 where the output is 0, not inf * 0 = NaN
    want = np.array([0.0, upstream, 0.0], np.float32)
    x = fg.tensor([0.0, 2.0, -1.0], requires_grad=True)
    fg.relu(x).backward(fg.tensor([upstream] * 3, dtype=fg.float32))
    np.testing.assert_array_equal(x.grad.numpy(), want)
    (g,) = fg.grad(fg.relu(x), x, fg.tensor([upstream] * 3), create_graph=True)
    np.testing.assert_array_equal(g.detach().numpy(), want)


def test_compiled_relu_backward_stops_a_non_finite_gradient_where_the_output_is_0():
    compiled = fg.compile(lambda x: (fg.relu(x) ** 0.5).sum(), fullgraph=True)
    for _ in range(2):  # the trace, then the generated code
        x = fg.tensor([0.0, 1.0, -1.0], requires_grad=True)
        compiled(x).backward()
        np.testing.assert_array_equal(x.grad.numpy(), [0.0, 0.5, 0.0])


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_relu_backward_has_torchs_sign_of_zero(dtype):
    # a negative gradient where the output is 0 gives +0, not -0 (g * mask gave -0, printed
    # "-0.0000" where PyTorch prints "0.0000"); a -0 gradient where the output isn't 0 stays -0
    x, g = [-1.0, 0.0, 2.0, np.nan], [-3.0, -0.5, -0.0, -0.0]

    def grad_of(m):
        t = m.tensor(x, dtype=getattr(m, dtype), requires_grad=True)
        m.relu(t).backward(m.tensor(g, dtype=getattr(m, dtype)))
        return t.grad.numpy()

    ours, theirs = grad_of(fg), grad_of(torch)
    np.testing.assert_array_equal(ours, theirs)
    np.testing.assert_array_equal(np.signbit(ours), np.signbit(theirs))
    np.testing.assert_array_equal(np.signbit(ours), [False, False, True, True])
    compiled = fg.compile(lambda t: fg.relu(t * 1.0).sum() * -1.0, fullgraph=True)
    for _ in range(2):  # the trace, then the generated code
        t = fg.tensor([-1.0, 2.0], dtype=getattr(fg, dtype), requires_grad=True)
        compiled(t).backward()
        np.testing.assert_array_equal(np.signbit(t.grad.numpy()), [False, True])
