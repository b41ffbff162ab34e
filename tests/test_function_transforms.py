"""Custom Functions under the transforms: vmap, jacfwd, hessian, nested forward mode and
`forward_grad` treat a Function like the fluxgrad ops it stands for.

Each Function here has a twin written in fluxgrad ops; every transform must give the
twin's result (which the registry tests check against finite differences and PyTorch).
"""
import numpy as np
import pytest

import fluxgrad as fg
from fluxgrad import func
from fluxgrad.autograd import Function, forward_grad

rng = np.random.default_rng(11)


class Cube(Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x ** 3

    @staticmethod
    def backward(ctx, out_bar):
        x, = ctx.saved_tensors
        return 3 * x * x * out_bar

    @staticmethod
    def jvp(ctx, x_dot):
        x, = ctx.saved_tensors
        return 3 * x * x * x_dot


class ScaledSinCos(Function):
    """(sin(x) * s, cos(x) * s) for a tensor x, a float s and a tensor w weighting the cos:
    two outputs, a non-tensor argument, an output saved, gradients per tensor argument
    (PaddlePaddle's convention)."""

    @staticmethod
    def forward(ctx, x, s, w):
        sin, cos = fg.sin(x) * s, fg.cos(x) * s * w
        ctx.s = s
        ctx.save_for_backward(x, w, sin)
        return sin, cos

    @staticmethod
    def backward(ctx, sin_bar, cos_bar):
        x, w, sin = ctx.saved_tensors
        return (sin_bar * fg.cos(x) * ctx.s - cos_bar * sin * w,
                (cos_bar * fg.cos(x) * ctx.s))

    @staticmethod
    def jvp(ctx, x_dot, s_dot, w_dot):
        x, w, sin = ctx.saved_tensors
        cos_dot = -sin * w * x_dot
        if w_dot is not None:
            cos_dot = cos_dot + fg.cos(x) * ctx.s * w_dot
        return fg.cos(x) * ctx.s * x_dot, cos_dot


def twin(x, s, w):
    return fg.sin(x) * s, fg.cos(x) * s * w


def cube_sum(t):
    return Cube.apply(t).sum()


def close(ours, expected):
    np.testing.assert_allclose(ours.detach().numpy(), expected.detach().numpy(), rtol=1e-12,
                               atol=1e-14)


@pytest.mark.parametrize("transform", [
    lambda f: func.hessian(f),
    lambda f: func.jacfwd(func.jacfwd(f)),
    lambda f: func.jacrev(func.jacfwd(f)),
    lambda f: func.jacfwd(func.jacrev(f)),
    lambda f: func.vmap(func.grad(f)),
    lambda f: func.vmap(func.hessian(f)),
], ids=["hessian", "jacfwd-jacfwd", "jacrev-jacfwd", "jacfwd-jacrev", "vmap-grad",
        "vmap-hessian"])
def test_transforms_of_a_function_match_its_twin(transform):
    x = fg.tensor(rng.standard_normal((3, 4)))
    close(transform(cube_sum)(x), transform(lambda t: (t ** 3).sum())(x))


def test_third_order_forward_mode_through_a_function():
    x = fg.tensor(rng.standard_normal(3))
    third = func.jacfwd(func.jacfwd(func.jacfwd(cube_sum)))(x)
    expected = np.zeros((3, 3, 3))
    expected[range(3), range(3), range(3)] = 6.0
    np.testing.assert_allclose(third.numpy(), expected, rtol=1e-14)


@pytest.mark.parametrize("in_dims", [(0, None, 0), (0, None, None), (None, None, 1)])
def test_per_example_gradients_through_a_function_with_several_outputs(in_dims):
    x, w = rng.standard_normal((5, 3)), rng.standard_normal((5, 3))
    args = [fg.tensor(x if in_dims[0] == 0 else x[0]), 0.7,
            fg.tensor(w.T if in_dims[2] == 1 else w if in_dims[2] == 0 else w[0])]

    def loss(apply):
        return lambda x, s, w: sum(((o - 0.3) ** 2).sum() for o in apply(x, s, w))
    grads = func.vmap(func.grad(loss(ScaledSinCos.apply), argnums=(0, 2)), in_dims=in_dims)
    expected = func.vmap(func.grad(loss(twin), argnums=(0, 2)), in_dims=in_dims)
    for ours, theirs in zip(grads(*args), expected(*args)):
        close(ours, theirs)


def test_jacobians_through_a_function_with_several_outputs():
    x, w = fg.tensor(rng.standard_normal(4)), fg.tensor(rng.standard_normal(4))
    for jac in (func.jacrev, func.jacfwd):
        for k in range(2):
            ours = jac(lambda x, w: ScaledSinCos.apply(x, 1.5, w)[k], argnums=(0, 1))(x, w)
            theirs = jac(lambda x, w: twin(x, 1.5, w)[k], argnums=(0, 1))(x, w)
            for o, t in zip(ours, theirs):
                close(o, t)


def test_backward_after_vmap_returned_reaches_the_shared_and_the_batched_inputs():
    x = fg.tensor(rng.standard_normal((4, 3)), requires_grad=True)
    w = fg.tensor(rng.standard_normal(3), requires_grad=True)
    out = func.vmap(lambda x: ScaledSinCos.apply(x, 2.0, w)[1])(x)
    out.sum().backward()
    x_twin, w_twin = x.detach().requires_grad_(), w.detach().requires_grad_()
    twin(x_twin, 2.0, w_twin)[1].sum().backward()
    close(x.grad, x_twin.grad)
    close(w.grad, w_twin.grad)


def test_double_backward_through_a_vmapped_function_reaches_its_inputs():
    x = fg.tensor(rng.standard_normal((4, 3)), requires_grad=True)
    g, = fg.grad(func.vmap(Cube.apply)(x).sum(), x, create_graph=True)
    gg, = fg.grad(g.sum(), x)
    close(gg, 6 * x.detach())


def test_forward_grad_and_linearize_run_the_functions_jvp_along_the_graph():
    x = fg.tensor(rng.standard_normal(3), requires_grad=True)
    v = fg.tensor(rng.standard_normal(3))
    close(forward_grad(Cube.apply(x), x, v), 3 * x.detach() ** 2 * v)
    _, jvp_fn = func.linearize(Cube.apply, x.detach())
    close(jvp_fn(v), 3 * x.detach() ** 2 * v)


def test_a_function_without_jvp_under_jacfwd_says_what_to_define():
    class NoJvp(Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, out_bar):
            return out_bar * 2
    with pytest.raises(NotImplementedError, match="NoJvp has no jvp rule"):
        func.jacfwd(NoJvp.apply)(fg.tensor(rng.standard_normal(3)))
