"""The memory the code `fluxgrad.compile` generates holds: gradients written into dying
buffers, equations ordered to hold fewer bytes at once, and a workspace kept between calls
that never raises a call's peak.

Expected values come from PyTorch; memory from tracemalloc (which sees NumPy's buffers),
against sizes in closed form.
"""
import tracemalloc

import numpy as np
import torch

import fluxgrad
from fluxgrad import Tensor
import fluxgrad.nn.functional as F


def _torch_grads(fn, *arrays):
    tensors = [torch.tensor(a, requires_grad=True) for a in arrays]
    fn(*tensors).backward()
    return [t.grad.numpy() for t in tensors]


def test_relu_backward_writes_into_the_gradient_that_dies_there():
    def f(x, w):
        return ((x * w).relu() ** 2).sum()
    rng = np.random.default_rng(0)
    x, w = rng.standard_normal((64, 32)), rng.standard_normal((64, 32))
    grad = fluxgrad.compile(fluxgrad.func.grad(f, argnums=(0, 1)), fullgraph=True)
    for _ in range(2):
        got = grad(Tensor(x), Tensor(w))
    for g, expected in zip(got, _torch_grads(f, x, w)):
        np.testing.assert_allclose(g.numpy(), expected, rtol=1e-12)
    line = next(line for line in grad.code.splitlines() if "_relu_backward(" in line)
    call = line.split("_relu_backward(")[1].split(")")[0].split(", ")
    assert len(call) == 3 and call[2] == call[0]  # in place, into the incoming gradient


def _two_convs(x, w1, w2, nn):
    h = nn.avg_pool2d(nn.conv2d(x, w1, padding=1).relu(), 2)  # read by no backward rule
    return (nn.conv2d(h, w2, padding=1) ** 2).sum()


def test_a_convolution_computes_its_weight_gradient_before_its_input_gradient():
    # the weight gradient's reading frees the layer's saved input (the pooling's output);
    # the input gradient, made first, would be held while it runs
    rng = np.random.default_rng(0)
    arrays = [rng.standard_normal((4, 3, 8, 8)), rng.standard_normal((8, 3, 3, 3)),
              rng.standard_normal((16, 8, 3, 3))]
    grad = fluxgrad.compile(fluxgrad.func.grad(
        lambda x, w1, w2: _two_convs(x, w1, w2, F), argnums=(0, 1, 2)), fullgraph=True)
    for _ in range(2):
        got = grad(*[Tensor(a) for a in arrays])
    expected = _torch_grads(lambda *t: _two_convs(*t, torch.nn.functional), *arrays)
    for g, e in zip(got, expected):
        np.testing.assert_allclose(g.numpy(), e, rtol=1e-10, atol=1e-10)
    second_layer = grad.code.split("_avg_pool2d_transpose(")[0]  # its backward: the first
    assert second_layer.index("_conv2d_weight(") < second_layer.index("_conv2d_input(")


def test_a_random_draw_keeps_its_place_among_the_equations():
    def f(x):
        a = fluxgrad.rand(x.shape) @ x
        b = fluxgrad.rand(x.shape) @ x
        return a - b
    x = np.random.default_rng(0).standard_normal((32, 32)).astype(np.float32)
    compiled = fluxgrad.compile(f, fullgraph=True)
    compiled(Tensor(x))
    fluxgrad.manual_seed(3)
    got = compiled(Tensor(x)).numpy()
    fluxgrad.manual_seed(3)
    np.testing.assert_allclose(got, f(Tensor(x)).numpy(), rtol=1e-5, atol=1e-5)


def test_the_workspace_kept_between_calls_never_raises_a_calls_peak():
    def f(x, w):
        s = fluxgrad.cat([x, w], 1).sum()  # the peak: a [256, 1024] array, no workspace's
        return s + (x * 3).sin().sum()  # later, a [256, 512] temporary, a workspace's
    rng = np.random.default_rng(0)
    x, w = rng.standard_normal((256, 512)), rng.standard_normal((256, 512))
    joined, temporary = 256 * 1024 * 8, x.nbytes
    compiled = fluxgrad.compile(f, fullgraph=True)
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        for _ in range(2):
            compiled(Tensor(x), Tensor(w))
        tracemalloc.reset_peak()
        got = compiled(Tensor(x), Tensor(w))
        peak = tracemalloc.get_traced_memory()[1] - before
    finally:
        tracemalloc.stop()
    np.testing.assert_allclose(got.numpy(), x.sum() + w.sum() + np.sin(x * 3).sum(), rtol=1e-12)
    # a workspace holding the temporary between calls would be there beside the joined array
    assert peak < joined + temporary // 2
    assert "_carve(" not in compiled.code
