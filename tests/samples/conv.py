"""Samples for the convolution and pooling primitives (fluxgrad/ops/conv.py)."""
import numpy as np

import fluxgrad as fg
from . import Sample, normal

try:
    import torch
    import torch.nn.functional as TF
except ImportError:  # pragma: no cover
    torch = TF = None


def _conv(stride=1, padding=0, dilation=1, groups=1):
    return Sample(
        "conv2d", lambda x, w: fg.conv2d(x, w, None, stride, padding, dilation, groups),
        None, lambda x, w: TF.conv2d(x, w, None, stride, padding, dilation, groups))


def _conv_t(stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    return Sample(
        "conv2d_input",
        lambda y, w: fg.conv_transpose2d(y, w, None, stride, padding, output_padding, groups,
                                         dilation),
        None,
        lambda y, w: TF.conv_transpose2d(y, w, None, stride, padding, output_padding, groups,
                                         dilation))


def _with_args(sample, *arrays):
    sample.args = list(arrays)
    return sample


def _conv_weight(stride, padding, dilation, groups, kernel, x, y):
    """The weight-gradient op on its own, against torch.nn.grad.conv2d_weight."""
    def fn(x, y):
        from fluxgrad._core.dispatch import apply
        from fluxgrad.ops.conv import conv2d_weight_p
        return apply(conv2d_weight_p, x, y, stride=(stride,) * 2, pads=(padding,) * 4,
                     dilation=(dilation,) * 2, groups=groups, kernel=kernel)

    def torch_fn(x, y):
        w_shape = (y.shape[1], x.shape[1] // groups) + kernel
        return torch.nn.grad.conv2d_weight(x, w_shape, y, stride, padding, dilation, groups)
    return Sample("conv2d_weight", fn, [x, y], torch_fn)


def _distinct(*shape, seed=0):
    """Values with no ties, so max pooling's argmax is stable under finite differences."""
    n = int(np.prod(shape))
    return (np.random.default_rng(seed).permutation(n).reshape(shape) * 0.37 / n) - 0.1


SAMPLES = [
    _with_args(_conv(), normal(2, 3, 5, 5), normal(4, 3, 3, 3, seed=1)),
    _with_args(_conv(stride=2, padding=1), normal(1, 2, 6, 7), normal(3, 2, 3, 2, seed=1)),
    _with_args(_conv(dilation=2, padding=2), normal(2, 2, 6, 6), normal(2, 2, 3, 3, seed=1)),
    _with_args(_conv(groups=2, stride=(1, 2)), normal(2, 4, 5, 6), normal(6, 2, 2, 3, seed=1)),
    _with_args(_conv(padding="same"), normal(1, 2, 5, 4), normal(3, 2, 2, 3, seed=1)),
    _with_args(_conv(), normal(1, 1, 1, 1), normal(1, 1, 1, 1, seed=1)),
    _with_args(_conv_t(), normal(2, 3, 4, 4), normal(3, 2, 3, 3, seed=1)),
    _with_args(_conv_t(stride=2, padding=1, output_padding=1), normal(1, 2, 3, 4),
               normal(2, 3, 3, 3, seed=1)),
    _with_args(_conv_t(groups=2, dilation=2), normal(1, 4, 3, 3), normal(4, 1, 2, 2, seed=1)),
    _conv_weight(1, 1, 1, 1, (3, 3), normal(2, 3, 5, 5), normal(2, 4, 5, 5, seed=1)),
    _conv_weight(2, 0, 1, 2, (2, 2), normal(1, 4, 5, 5), normal(1, 2, 2, 2, seed=1)),
    # images large enough that the convolutions run over several blocks of images, the last
    # one shorter (fluxgrad/ops/conv.py's _BLOCK_BYTES)
    _with_args(_conv(padding=1), normal(5, 2, 48, 48), normal(3, 2, 3, 3, seed=1)),
    _with_args(_conv_t(stride=2, padding=1, output_padding=1), normal(3, 3, 40, 40),
               normal(3, 4, 3, 3, seed=1)),
    _conv_weight(1, 1, 1, 2, (3, 3), normal(5, 4, 32, 32), normal(5, 2, 32, 32, seed=1)),
    # 3x3 stride-1 convolutions with at least 16 channels in and out run on Winograd's
    # F(2x2, 3x3) (fluxgrad/ops/winograd.py), their input and weight gradients too: odd and
    # even sizes, paddings 0, 1, 2 and uneven, a batch of 1
    _with_args(_conv(padding=1), normal(2, 16, 5, 7), normal(16, 16, 3, 3, seed=1)),
    _with_args(_conv(), normal(1, 16, 6, 4), normal(17, 16, 3, 3, seed=1)),
    _with_args(_conv(padding=2), normal(1, 17, 3, 4), normal(16, 17, 3, 3, seed=1)),
    Sample("conv2d", lambda x, w: fg.conv2d(x, w, padding=(0, 1, 2, 1)),
           [normal(2, 16, 4, 5), normal(16, 16, 3, 3, seed=1)],
           lambda x, w: TF.conv2d(TF.pad(x, (2, 1, 0, 1)), w)),
    _with_args(_conv_t(padding=1), normal(2, 16, 5, 6), normal(16, 16, 3, 3, seed=1)),
    _conv_weight(1, 2, 1, 1, (3, 3), normal(1, 16, 5, 3), normal(1, 18, 7, 5, seed=1)),
    Sample("conv2d", lambda x, w: fg.conv1d(x, w, None, 2, 1),
           [normal(2, 3, 7), normal(4, 3, 3, seed=1)],
           lambda x, w: TF.conv1d(x, w, None, 2, 1)),
    Sample("max_pool2d", lambda x: fg.max_pool2d(x, 2), [_distinct(2, 3, 4, 6)],
           lambda x: TF.max_pool2d(x, 2)),
    Sample("max_pool2d", lambda x: fg.max_pool2d(x, 3, 2, 1), [_distinct(1, 2, 5, 6)],
           lambda x: TF.max_pool2d(x, 3, 2, 1)),
    Sample("max_pool2d", lambda x: fg.max_pool2d(x, (2, 3), (1, 2), dilation=(2, 1),
                                                 ceil_mode=True),
           [_distinct(1, 2, 6, 7)],
           lambda x: TF.max_pool2d(x, (2, 3), (1, 2), dilation=(2, 1), ceil_mode=True)),
    Sample("max_pool2d", lambda x: fg.max_pool1d(x, 2), [_distinct(2, 2, 6)],
           lambda x: TF.max_pool1d(x, 2)),
    Sample("avg_pool2d", lambda x: fg.avg_pool2d(x, 2), [normal(2, 3, 4, 6)],
           lambda x: TF.avg_pool2d(x, 2)),
    Sample("avg_pool2d", lambda x: fg.avg_pool2d(x, 3, 2, 1), [normal(1, 2, 5, 6)],
           lambda x: TF.avg_pool2d(x, 3, 2, 1)),
    Sample("avg_pool2d", lambda x: fg.avg_pool2d(x, 3, 2, 1, count_include_pad=False),
           [normal(1, 2, 5, 6)],
           lambda x: TF.avg_pool2d(x, 3, 2, 1, count_include_pad=False)),
    Sample("avg_pool2d", lambda x: fg.adaptive_avg_pool2d(x, (2, 3)), [normal(2, 2, 4, 6)],
           lambda x: TF.adaptive_avg_pool2d(x, (2, 3))),
]


def _pool_transpose_samples():
    # the transposes on their own: differentiate the pooling op's VJP in its cotangent
    def avg_t(g):
        from fluxgrad._core.dispatch import apply
        from fluxgrad.ops.conv import avg_pool2d_transpose_p
        return apply(avg_pool2d_transpose_p, g, kernel=(3, 3), stride=(2, 2), pads=(1, 1, 1, 1),
                     count_include_pad=False, divisor_override=None, size=(5, 6))

    def avg_t_torch(g):
        x = torch.zeros(g.shape[:2] + (5, 6), dtype=g.dtype, requires_grad=True)
        y = TF.avg_pool2d(x, 3, 2, 1, count_include_pad=False)
        return torch.autograd.grad(y, x, g, create_graph=True)[0]

    x = _distinct(1, 2, 5, 6, seed=3)
    pool = dict(kernel=(3, 3), stride=(2, 2), pads=(1, 1, 1, 1), dilation=(1, 1))

    def argmax():
        from fluxgrad.ops.conv import max_pool2d_p
        return fg.tensor(max_pool2d_p.impl(x, **pool)[1])

    def scatter(g):
        from fluxgrad._core.dispatch import apply
        from fluxgrad.ops.conv import max_pool2d_scatter_p
        return apply(max_pool2d_scatter_p, g, argmax(), size=(5, 6), **pool)

    def scatter_torch(g):
        xt = torch.tensor(x, requires_grad=True)
        y = TF.max_pool2d(xt, 3, 2, 1)
        return torch.autograd.grad(y, xt, g, create_graph=True)[0]

    def gather(h):
        from fluxgrad._core.dispatch import apply
        from fluxgrad.ops.conv import max_pool2d_gather_p
        return apply(max_pool2d_gather_p, h, argmax(), **pool)

    return [Sample("avg_pool2d_transpose", avg_t, [normal(1, 2, 3, 3)], avg_t_torch),
            Sample("max_pool2d_scatter", scatter, [normal(1, 2, 3, 3)], scatter_torch),
            Sample("max_pool2d_gather", gather, [normal(1, 2, 5, 6)])]


SAMPLES += _pool_transpose_samples()


def _interpolate_samples():
    """F.interpolate: gathers (nearest) and blends of two gathers (linear) per dimension, or
    of the several that an antialiased filter covers."""
    def both(**kwargs):
        return (lambda x: fg.nn.functional.interpolate(x, **kwargs),
                lambda x: __import__("torch").nn.functional.interpolate(x, **kwargs))
    cases = [({"size": (5, 7)}, (1, 2, 3, 4)), ({"scale_factor": 1.5}, (1, 2, 3, 4)),
             ({"scale_factor": (2, 0.5), "mode": "bilinear"}, (2, 1, 3, 4)),
             ({"size": (4, 5), "mode": "bilinear", "align_corners": True}, (1, 2, 3, 3)),
             ({"size": 6, "mode": "linear"}, (2, 2, 4)),
             ({"scale_factor": 2, "mode": "trilinear"}, (1, 1, 2, 3, 2)),
             ({"scale_factor": 1.7, "mode": "nearest-exact"}, (1, 1, 3, 5)),
             ({"size": (3, 2), "mode": "bilinear", "antialias": True}, (1, 2, 7, 5)),
             ({"scale_factor": 0.4, "mode": "bicubic", "antialias": True}, (2, 1, 9, 8)),
             ({"size": (2, 5), "mode": "bicubic", "antialias": True, "align_corners": True},
              (1, 1, 6, 4))]
    samples = []
    for kwargs, shape in cases:
        ours, theirs = both(**kwargs)
        samples.append(Sample("index", ours, [normal(*shape, seed=30)], theirs))
    return samples


SAMPLES += _interpolate_samples()


def _ceil_and_unpool_samples():
    """Pooling with ceil_mode (windows hanging over the end), max_unpool2d."""
    torch = lambda: __import__("torch")  # noqa: E731
    F = fg.nn.functional
    x = _distinct(2, 2, 7, 8, seed=31)
    samples = []
    for k, s, p in [(3, 2, 0), (3, 2, 1), ((3, 2), (2, 3), (1, 0))]:
        for include in (True, False):
            samples.append(Sample(
                "avg_pool2d", lambda x, k=k, s=s, p=p, i=include: F.avg_pool2d(
                    x, k, s, p, ceil_mode=True, count_include_pad=i), [x],
                lambda x, k=k, s=s, p=p, i=include: torch().nn.functional.avg_pool2d(
                    x, k, s, p, ceil_mode=True, count_include_pad=i)))
        samples.append(Sample("max_pool2d", lambda x, k=k, s=s, p=p: F.max_pool2d(
            x, k, s, p, ceil_mode=True), [x], lambda x, k=k, s=s, p=p:
            torch().nn.functional.max_pool2d(x, k, s, p, ceil_mode=True)))
    _, indices = F.max_pool2d(fg.tensor(x), 2, return_indices=True)
    samples.append(Sample("index_put", lambda y: F.max_unpool2d(y, indices, 2), [normal(
        2, 2, 3, 4, seed=32)], lambda y: torch().nn.functional.max_unpool2d(
            y, torch().tensor(indices.numpy()), 2)))
    return samples


SAMPLES += _ceil_and_unpool_samples()


def _three_d_samples():
    """conv3d, conv_transpose3d and avg_pool3d: 2-d ops over depth slices."""
    torch = lambda: __import__("torch")  # noqa: E731
    F = fg.nn.functional
    x, w = normal(2, 4, 4, 5, 4, seed=40), normal(4, 2, 2, 3, 2, seed=41)
    y, wt = normal(1, 3, 3, 2, 3, seed=42), normal(3, 2, 2, 2, 3, seed=43)
    samples = [
        Sample("conv2d", lambda x, w: F.conv3d(x, w, stride=(2, 1, 2), padding=1, groups=2),
               [x, w], lambda x, w: torch().nn.functional.conv3d(x, w, stride=(2, 1, 2),
                                                                 padding=1, groups=2)),
        Sample("conv2d", lambda x, w: F.conv3d(x, w, dilation=(2, 1, 1), groups=2), [x, w],
               lambda x, w: torch().nn.functional.conv3d(x, w, dilation=(2, 1, 1), groups=2)),
        Sample("conv2d_input", lambda y, w: F.conv_transpose3d(
            y, w, stride=2, padding=(1, 0, 1), output_padding=1), [y, wt],
            lambda y, w: torch().nn.functional.conv_transpose3d(
                y, w, stride=2, padding=(1, 0, 1), output_padding=1)),
        Sample("conv2d_input", lambda y, w: F.conv_transpose3d(y, w, dilation=(2, 1, 1)),
               [y, wt], lambda y, w: torch().nn.functional.conv_transpose3d(
                   y, w, dilation=(2, 1, 1))),
    ]
    for kwargs in [{"kernel_size": 2}, {"kernel_size": 3, "stride": 2, "padding": 1},
                   {"kernel_size": (3, 2, 2), "padding": (1, 1, 0), "count_include_pad": False}]:
        samples.append(Sample("avg_pool2d", lambda x, kw=kwargs: F.avg_pool3d(x, **kw), [x],
                              lambda x, kw=kwargs: torch().nn.functional.avg_pool3d(x, **kw)))
    return samples


SAMPLES += _three_d_samples()
