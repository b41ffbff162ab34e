"""The Winograd F(2x2, 3x3) path of 3x3 stride-1 convolutions (fluxgrad/ops/winograd.py)
against PyTorch in float64: which convolutions take it, their values, input and weight
gradients (float32 within im2col's rounding, float64 to rounding), several blocks of
images, and gradients to second order."""
import numpy as np
import pytest

import fluxgrad as fg
from fluxgrad.ops import conv as conv_ops
from fluxgrad.ops import winograd

torch = pytest.importorskip("torch")

# (batch, channels in, channels out, height, width, padding)
SHAPES = [(2, 16, 16, 8, 8, 1), (1, 16, 20, 5, 7, 1), (3, 20, 16, 6, 3, 0),
          (2, 16, 16, 4, 5, 2), (1, 17, 19, 1, 1, 1), (2, 16, 16, 3, 3, 0)]


def _case(n, c, co, h, w, dtype, seed=0):
    rng = np.random.default_rng(seed)
    return (rng.standard_normal((n, c, h, w)).astype(dtype),
            rng.standard_normal((co, c, 3, 3)).astype(dtype))


def _torch_conv(x, w, padding, g):
    """torch's output, input gradient and weight gradient in float64 for cotangent g."""
    tx = torch.tensor(x, dtype=torch.float64, requires_grad=True)
    tw = torch.tensor(w, dtype=torch.float64, requires_grad=True)
    y = torch.nn.functional.conv2d(tx, tw, padding=padding)
    y.backward(torch.tensor(g, dtype=torch.float64))
    return y.detach().numpy(), tx.grad.numpy(), tw.grad.numpy()


def _fluxgrad_conv(x, w, padding, g):
    fx = fg.tensor(x, requires_grad=True)
    fw = fg.tensor(w, requires_grad=True)
    y = fg.conv2d(fx, fw, padding=padding)
    y.backward(fg.tensor(g))
    return y.detach().numpy(), fx.grad.numpy(), fw.grad.numpy()


def _relative_error(ours, reference):
    return np.abs(ours - reference).max() / np.abs(reference).max()


def _geometry(padding):
    return dict(stride=(1, 1), pads=(padding,) * 4, dilation=(1, 1), groups=1)


def test_winograd_takes_the_small_cnns_layers_but_not_the_others():
    x16, x3 = np.zeros((2, 16, 8, 8), np.float32), np.zeros((2, 3, 8, 8), np.float32)
    one = dict(stride=(1, 1), dilation=(1, 1), groups=1)
    assert winograd.winograd_applies(x16, (32, 16, 3, 3), **one)
    assert not winograd.winograd_applies(x3, (32, 3, 3, 3), **one)  # thin input
    assert not winograd.winograd_applies(x16, (3, 16, 3, 3), **one)  # thin output
    assert not winograd.winograd_applies(x16, (32, 16, 5, 5), **one)
    assert not winograd.winograd_applies(x16, (32, 16, 3, 3), stride=(2, 1), dilation=(1, 1),
                                         groups=1)
    assert not winograd.winograd_applies(x16, (32, 16, 3, 3), stride=(1, 1), dilation=(2, 2),
                                         groups=1)
    assert not winograd.winograd_applies(x16, (32, 8, 3, 3), stride=(1, 1), dilation=(1, 1),
                                         groups=2)
    assert not winograd.winograd_applies(x16.astype(np.float16), (32, 16, 3, 3), **one)
    assert not winograd.winograd_applies(x16[:0], (32, 16, 3, 3), **one)


@pytest.mark.parametrize("n, c, co, h, w, padding", SHAPES)
def test_float64_values_and_gradients_match_torch(n, c, co, h, w, padding):
    x, wt = _case(n, c, co, h, w, np.float64)
    g = np.random.default_rng(1).standard_normal(
        (n, co, h + 2 * padding - 2, w + 2 * padding - 2))
    for ours, reference in zip(_fluxgrad_conv(x, wt, padding, g),
                               _torch_conv(x, wt, padding, g)):
        assert ours.dtype == np.float64
        np.testing.assert_allclose(ours, reference, rtol=1e-11, atol=1e-11)


@pytest.mark.parametrize("n, c, co, h, w, padding", SHAPES)
def test_float32_error_stays_at_im2cols_level(n, c, co, h, w, padding, monkeypatch):
    """Winograd's float32 results are as close to torch's float64 ones as im2col's: measured
    relative errors (max error / max value) about 2e-7 to 8e-7 for both."""
    x, wt = _case(n, c, co, h, w, np.float32)
    g = np.random.default_rng(1).standard_normal(
        (n, co, h + 2 * padding - 2, w + 2 * padding - 2)).astype(np.float32)
    reference = _torch_conv(x, wt, padding, g)
    fast = _fluxgrad_conv(x, wt, padding, g)
    monkeypatch.setattr(winograd, "MIN_CHANNELS", 10 ** 9)  # im2col for all
    slow = _fluxgrad_conv(x, wt, padding, g)
    for ours, im2col, exact in zip(fast, slow, reference):
        assert ours.dtype == np.float32
        assert _relative_error(ours, exact) < max(4 * _relative_error(im2col, exact), 2e-6)


def test_several_blocks_of_images_the_last_one_shorter(monkeypatch):
    monkeypatch.setattr(winograd, "_BLOCK_BYTES", 1)  # one image per block
    x, wt = _case(3, 16, 16, 5, 6, np.float64)
    g = np.random.default_rng(1).standard_normal((3, 16, 5, 6))
    for ours, reference in zip(_fluxgrad_conv(x, wt, 1, g), _torch_conv(x, wt, 1, g)):
        np.testing.assert_allclose(ours, reference, rtol=1e-11, atol=1e-11)
    monkeypatch.setattr(winograd, "_BLOCK_BYTES", 2 * 16 * 9 * 16 * 8)  # two images, then one
    for ours, reference in zip(_fluxgrad_conv(x, wt, 1, g), _torch_conv(x, wt, 1, g)):
        np.testing.assert_allclose(ours, reference, rtol=1e-11, atol=1e-11)


def test_input_gradient_of_a_padding_too_wide_to_flip_falls_back_to_im2col():
    # padding 3: the transposed convolution would need a padding of 2 - 3 < 0
    x, wt = _case(1, 16, 16, 4, 4, np.float64)
    g = np.random.default_rng(1).standard_normal((1, 16, 8, 8))
    for ours, reference in zip(_fluxgrad_conv(x, wt, 3, g), _torch_conv(x, wt, 3, g)):
        np.testing.assert_allclose(ours, reference, rtol=1e-11, atol=1e-11)


def test_channels_last_and_plain_inputs_give_the_same_result():
    x, wt = _case(2, 16, 16, 6, 6, np.float32)
    channels_last = np.ascontiguousarray(x.transpose(0, 2, 3, 1)).transpose(0, 3, 1, 2)
    a = conv_ops.conv2d_p.impl(x, wt, **_geometry(1))
    b = conv_ops.conv2d_p.impl(channels_last, wt, **_geometry(1))
    np.testing.assert_array_equal(a, b)


def test_second_order_gradients_match_torch():
    x, wt = _case(2, 16, 16, 5, 4, np.float64)
    rng = np.random.default_rng(2)
    g, v_x, v_w = (rng.standard_normal(s) for s in ((2, 16, 5, 4), x.shape, wt.shape))

    def second(lib, grad):
        tx, tw = lib.tensor(x, requires_grad=True), lib.tensor(wt, requires_grad=True)
        y = lib.nn.functional.conv2d(tx, tw, padding=1)
        loss = (lib.tanh(y) * lib.tensor(g)).sum()  # tanh: a nonzero second derivative
        gx, gw = grad(loss, [tx, tw], create_graph=True)
        inner = (gx * lib.tensor(v_x)).sum() + (gw * lib.tensor(v_w)).sum()
        return [t.detach().numpy() for t in grad(inner, [tx, tw])]

    ours = second(fg, fg.autograd.grad)
    theirs = second(torch, torch.autograd.grad)
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-10)
