"""The added nn layers, losses and functions against PyTorch: values and gradients of inputs
and parameters in float64, random ones by their masks and statistics, errors by type."""
import warnings

import numpy as np
import pytest

import fluxgrad as fg
from fluxgrad import nn
import fluxgrad.nn.functional as F

torch = pytest.importorskip("torch")
tnn = torch.nn
TF = torch.nn.functional


def _x(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape)


class Fixed:
    """An input no gradient is taken of (a target, a class weight)."""

    def __init__(self, array):
        self.array = np.asarray(array)


def _compare_fn(fn, tfn, inputs, atol=1e-10):
    """Same value as PyTorch, and the same gradient of every floating input not `Fixed`."""
    diff = [not isinstance(a, Fixed) and a.dtype.kind == "f" for a in inputs]
    arrays = [a.array if isinstance(a, Fixed) else a for a in inputs]
    xs = [fg.tensor(a, requires_grad=d) for a, d in zip(arrays, diff)]
    ts = [torch.tensor(a, requires_grad=d) for a, d in zip(arrays, diff)]
    out, t_out = fn(*xs), tfn(*ts)
    if isinstance(out, tuple):
        for o, t in zip(out[1:], t_out[1:]):
            np.testing.assert_array_equal(o.numpy(), t.numpy())
        out, t_out = out[0], t_out[0]
    np.testing.assert_allclose(out.detach().numpy(), t_out.detach().numpy(), atol=atol,
                               rtol=1e-8)
    u = np.random.default_rng(5).standard_normal(out.shape)
    (out * fg.tensor(u)).sum().backward()
    (t_out * torch.tensor(u)).sum().backward()
    for x, t in zip(xs, ts):
        if x.requires_grad:
            np.testing.assert_allclose(x.grad.numpy(), t.grad.numpy(), atol=atol, rtol=1e-8)


_pos = np.abs(_x(2, 3, 5, seed=3)) + 0.5
_labels = np.array([0, 3, 1, 4])
_signs = Fixed([1.0, -1.0, -1.0, 1.0])
_multilabel = np.array([[3, 0, -1, 1, 2], [1, 2, 4, -1, 0], [4, 3, 2, 1, 0], [-1, 1, 2, 3, 4]])

FUNCTIONS = [
    ("glu", lambda x: F.glu(x, 1), lambda x: TF.glu(x, 1), [_x(3, 4, 2)]),
    ("glu_last", F.glu, TF.glu, [_x(3, 6)]),
    ("threshold", lambda x: F.threshold(x, 0.1, -2.0), lambda x: TF.threshold(x, 0.1, -2.0),
     [_x(4, 5)]),
    ("rrelu_eval", F.rrelu, TF.rrelu, [_x(4, 5)]),
    ("pixel_shuffle", lambda x: F.pixel_shuffle(x, 2), lambda x: TF.pixel_shuffle(x, 2),
     [_x(2, 8, 3, 4)]),
    ("pixel_shuffle_5d", lambda x: F.pixel_shuffle(x, 3), lambda x: TF.pixel_shuffle(x, 3),
     [_x(2, 1, 9, 2, 2)]),
    ("pixel_unshuffle", lambda x: F.pixel_unshuffle(x, 2), lambda x: TF.pixel_unshuffle(x, 2),
     [_x(2, 3, 4, 6)]),
    ("channel_shuffle", lambda x: F.channel_shuffle(x, 3),
     lambda x: TF.channel_shuffle(x, 3), [_x(2, 6, 2, 2)]),
    ("instance_norm", F.instance_norm, TF.instance_norm, [_x(2, 3, 5)]),
    ("instance_norm_affine", lambda x, w, b: F.instance_norm(x, weight=w, bias=b),
     lambda x, w, b: TF.instance_norm(x, weight=w, bias=b), [_x(2, 3, 4, 5), _x(3), _x(3)]),
    ("rms_norm", lambda x, w: F.rms_norm(x, (4,), w), lambda x, w: TF.rms_norm(x, (4,), w),
     [_x(3, 4), _x(4, seed=1)]),
    ("rms_norm_eps", lambda x: F.rms_norm(x, (2, 4), eps=1e-3),
     lambda x: TF.rms_norm(x, (2, 4), eps=1e-3), [_x(3, 2, 4)]),
    ("local_response_norm", lambda x: F.local_response_norm(x, 3, 0.1, 0.7, 2.0),
     lambda x: TF.local_response_norm(x, 3, 0.1, 0.7, 2.0), [_x(2, 5, 4)]),
    ("local_response_norm_4d", lambda x: F.local_response_norm(x, 2),
     lambda x: TF.local_response_norm(x, 2), [_x(2, 5, 3, 3)]),
    ("unfold", lambda x: F.unfold(x, (2, 3), dilation=(1, 2), padding=1, stride=(2, 1)),
     lambda x: TF.unfold(x, (2, 3), dilation=(1, 2), padding=1, stride=(2, 1)),
     [_x(2, 3, 5, 6)]),
    ("unfold_unbatched", lambda x: F.unfold(x, 2), lambda x: TF.unfold(x, 2), [_x(2, 3, 3)]),
    ("fold", lambda x: F.fold(x, (4, 5), 2, padding=1, stride=2),
     lambda x: TF.fold(x, (4, 5), 2, padding=1, stride=2), [_x(2, 12, 9)]),
    ("fold_overlapping", lambda x: F.fold(x, (4, 4), (2, 3)),
     lambda x: TF.fold(x, (4, 4), (2, 3)), [_x(2, 6, 6)]),
    ("pairwise_distance", F.pairwise_distance, TF.pairwise_distance, [_x(4, 5), _x(4, 5, seed=1)]),
    ("pairwise_distance_p1", lambda a, b: F.pairwise_distance(a, b, 1.0, keepdim=True),
     lambda a, b: TF.pairwise_distance(a, b, 1.0, keepdim=True), [_x(4, 5), _x(5, seed=1)]),
    ("pdist", F.pdist, TF.pdist, [_x(5, 3)]),
    ("pdist_p3", lambda x: F.pdist(x, 3), lambda x: TF.pdist(x, 3), [_x(4, 3)]),
    ("adaptive_max_pool1d", lambda x: F.adaptive_max_pool1d(x, 3, True),
     lambda x: TF.adaptive_max_pool1d(x, 3, True), [_x(2, 3, 7)]),
    ("adaptive_max_pool2d", lambda x: F.adaptive_max_pool2d(x, (2, 3), True),
     lambda x: TF.adaptive_max_pool2d(x, (2, 3), True), [_x(2, 3, 5, 7)]),
    ("adaptive_max_pool2d_unbatched", lambda x: F.adaptive_max_pool2d(x, (None, 2)),
     lambda x: TF.adaptive_max_pool2d(x, (None, 2)), [_x(3, 4, 5)]),
    ("adaptive_avg_pool3d", lambda x: F.adaptive_avg_pool3d(x, (2, 3, 2)),
     lambda x: TF.adaptive_avg_pool3d(x, (2, 3, 2)), [_x(2, 2, 5, 4, 3)]),
    ("max_pool3d", lambda x: F.max_pool3d(x, 2, return_indices=True),
     lambda x: TF.max_pool3d(x, 2, return_indices=True), [_x(2, 2, 4, 5, 4)]),
    ("max_pool3d_padded", lambda x: F.max_pool3d(x, 3, (2, 1, 2), 1, ceil_mode=True),
     lambda x: TF.max_pool3d(x, 3, (2, 1, 2), 1, ceil_mode=True), [_x(1, 2, 5, 4, 6)]),
    ("max_pool3d_dilated", lambda x: F.max_pool3d(x, 2, 1, 0, 2, return_indices=True),
     lambda x: TF.max_pool3d(x, 2, 1, 0, 2, return_indices=True), [_x(2, 5, 4, 5)]),
    ("lp_pool1d", lambda x: F.lp_pool1d(x, 2, 3, 2), lambda x: TF.lp_pool1d(x, 2, 3, 2),
     [_pos[:, :, :]]),
    ("lp_pool2d", lambda x: F.lp_pool2d(x, 3, (2, 2)), lambda x: TF.lp_pool2d(x, 3, (2, 2)),
     [np.abs(_x(2, 2, 4, 4)) + 0.5]),
    ("affine_grid", lambda t: F.affine_grid(t, (2, 3, 4, 5), align_corners=False),
     lambda t: TF.affine_grid(t, (2, 3, 4, 5), align_corners=False), [_x(2, 2, 3)]),
    ("affine_grid_3d", lambda t: F.affine_grid(t, (2, 1, 2, 3, 4), align_corners=True),
     lambda t: TF.affine_grid(t, (2, 1, 2, 3, 4), align_corners=True), [_x(2, 3, 4)]),
    ("grid_sample", lambda x, g: F.grid_sample(x, g, align_corners=False),
     lambda x, g: TF.grid_sample(x, g, align_corners=False),
     [_x(2, 3, 4, 5), np.random.default_rng(1).uniform(-1.2, 1.2, (2, 3, 2, 2))]),
    ("grid_sample_border_aligned",
     lambda x, g: F.grid_sample(x, g, padding_mode="border", align_corners=True),
     lambda x, g: TF.grid_sample(x, g, padding_mode="border", align_corners=True),
     [_x(2, 3, 4, 5), np.random.default_rng(1).uniform(-1.2, 1.2, (2, 3, 2, 2))]),
    ("grid_sample_reflection",
     lambda x, g: F.grid_sample(x, g, padding_mode="reflection", align_corners=False),
     lambda x, g: TF.grid_sample(x, g, padding_mode="reflection", align_corners=False),
     [_x(2, 3, 4, 5), np.random.default_rng(1).uniform(-2.7, 2.7, (2, 3, 2, 2))]),
    ("grid_sample_reflection_aligned",
     lambda x, g: F.grid_sample(x, g, padding_mode="reflection", align_corners=True),
     lambda x, g: TF.grid_sample(x, g, padding_mode="reflection", align_corners=True),
     [_x(2, 3, 4, 5), np.random.default_rng(2).uniform(-2.7, 2.7, (2, 3, 2, 2))]),
    ("triplet_margin_with_distance_loss",
     lambda a, p, n: F.triplet_margin_with_distance_loss(a, p, n, margin=0.5, swap=True),
     lambda a, p, n: TF.triplet_margin_with_distance_loss(a, p, n, margin=0.5, swap=True),
     [_x(4, 5), _x(4, 5, seed=1), _x(4, 5, seed=2)]),
    ("grid_sample_nearest", lambda x, g: F.grid_sample(x, g, "nearest", align_corners=False),
     lambda x, g: TF.grid_sample(x, g, "nearest", align_corners=False),
     [_x(2, 3, 4, 5), Fixed(np.random.default_rng(1).uniform(-1.2, 1.2, (2, 3, 2, 2)))]),
    ("triplet_margin_loss", F.triplet_margin_loss, TF.triplet_margin_loss,
     [_x(4, 5), _x(4, 5, seed=1), _x(4, 5, seed=2)]),
    ("triplet_margin_loss_swap",
     lambda a, p, n: F.triplet_margin_loss(a, p, n, 2.0, 1, swap=True, reduction="none"),
     lambda a, p, n: TF.triplet_margin_loss(a, p, n, 2.0, 1, swap=True, reduction="none"),
     [_x(4, 5), _x(4, 5, seed=1), _x(4, 5, seed=2)]),
    ("margin_ranking_loss", lambda a, b, y: F.margin_ranking_loss(a, b, y, 0.3),
     lambda a, b, y: TF.margin_ranking_loss(a, b, y, 0.3), [_x(4), _x(4, seed=1), _signs]),
    ("hinge_embedding_loss", lambda x, y: F.hinge_embedding_loss(x, y, 0.5, reduction="sum"),
     lambda x, y: TF.hinge_embedding_loss(x, y, 0.5, reduction="sum"), [_x(4), _signs]),
    ("soft_margin_loss", F.soft_margin_loss, TF.soft_margin_loss, [_x(4), _signs]),
    ("multilabel_soft_margin_loss", F.multilabel_soft_margin_loss,
     TF.multilabel_soft_margin_loss, [_x(4, 3), (_x(4, 3, seed=1) > 0).astype(float)]),
    ("multilabel_soft_margin_loss_weight",
     lambda x, y, w: F.multilabel_soft_margin_loss(x, y, w, reduction="none"),
     lambda x, y, w: TF.multilabel_soft_margin_loss(x, y, w, reduction="none"),
     [_x(4, 3), (_x(4, 3, seed=1) > 0).astype(float), np.array([0.5, 1.0, 2.0])]),
    ("poisson_nll_loss", F.poisson_nll_loss, TF.poisson_nll_loss,
     [_x(4, 3), np.abs(_x(4, 3, seed=1)) * 3]),
    ("poisson_nll_loss_full", lambda x, y: F.poisson_nll_loss(x, y, False, True),
     lambda x, y: TF.poisson_nll_loss(x, y, False, True), [_pos, np.abs(_x(2, 3, 5)) * 3]),
    ("gaussian_nll_loss", F.gaussian_nll_loss, TF.gaussian_nll_loss,
     [_x(4, 3), _x(4, 3, seed=1), np.abs(_x(4, 3, seed=2))]),
    ("gaussian_nll_loss_clamped_var",
     lambda x, y, v: F.gaussian_nll_loss(x, y, v, True, 0.1, "sum"),
     lambda x, y, v: TF.gaussian_nll_loss(x, y, v, True, 0.1, "sum"),
     [_x(4, 3), _x(4, 3, seed=1), np.abs(_x(4, seed=2))]),
    ("cosine_embedding_loss", lambda a, b, y: F.cosine_embedding_loss(a, b, y, 0.2),
     lambda a, b, y: TF.cosine_embedding_loss(a, b, y, 0.2), [_x(4, 5), _x(4, 5, seed=1),
                                                              _signs]),
    ("multi_margin_loss", F.multi_margin_loss, TF.multi_margin_loss, [_x(4, 5), _labels]),
    ("multi_margin_loss_p2_weight",
     lambda x, t, w: F.multi_margin_loss(x, t, 2, 0.7, w, reduction="none"),
     lambda x, t, w: TF.multi_margin_loss(x, t, 2, 0.7, w, reduction="none"),
     [_x(4, 5), _labels, Fixed(np.linspace(0.5, 2, 5))]),
    ("multilabel_margin_loss", F.multilabel_margin_loss, TF.multilabel_margin_loss,
     [_x(4, 5), _multilabel]),
    ("embedding_bag_2d", lambda i, w: F.embedding_bag(i, w),
     lambda i, w: TF.embedding_bag(i, w), [np.array([[1, 2, 4], [4, 3, 0]]), _x(6, 3)]),
    ("embedding_bag_offsets_sum",
     lambda i, w, o, s: F.embedding_bag(i, w, o, mode="sum", per_sample_weights=s),
     lambda i, w, o, s: TF.embedding_bag(i, w, o, mode="sum", per_sample_weights=s),
     [np.array([1, 2, 4, 5, 4, 3, 2]), _x(6, 3), np.array([0, 2, 2, 5]), _x(7, seed=1)]),
    ("embedding_bag_max",
     lambda i, w, o: F.embedding_bag(i, w, o, mode="max", include_last_offset=True),
     lambda i, w, o: TF.embedding_bag(i, w, o, mode="max", include_last_offset=True),
     [np.array([1, 2, 4, 5, 4, 3, 2]), _x(6, 3), np.array([0, 3, 7])]),
    ("embedding_bag_padding",
     lambda i, w: F.embedding_bag(i, w, padding_idx=2),
     lambda i, w: TF.embedding_bag(i, w, padding_idx=2), [np.array([[1, 2, 4], [2, 2, 0]]),
                                                          _x(6, 3)]),
]


@pytest.mark.parametrize("name,fn,tfn,inputs", FUNCTIONS, ids=[c[0] for c in FUNCTIONS])
def test_function_matches_torch(name, fn, tfn, inputs):
    _compare_fn(fn, tfn, inputs)


def _compare_module(module, torch_module, inputs, atol=1e-10):
    """Same values and gradients (inputs and parameters) as PyTorch with the same state."""
    module.double()
    torch_module.double()
    torch_module.load_state_dict({k: torch.tensor(np.array(v.numpy()))
                                  for k, v in module.state_dict().items()})
    diff = [not isinstance(a, Fixed) and a.dtype.kind == "f" for a in inputs]
    arrays = [a.array if isinstance(a, Fixed) else a for a in inputs]
    xs = [fg.tensor(a, requires_grad=d) for a, d in zip(arrays, diff)]
    ts = [torch.tensor(a, requires_grad=d) for a, d in zip(arrays, diff)]
    out, t_out = module(*xs), torch_module(*ts)
    if isinstance(out, tuple):
        for o, t in zip(out[1:], t_out[1:]):
            np.testing.assert_array_equal(o.numpy(), t.numpy())
        out, t_out = out[0], t_out[0]
    np.testing.assert_allclose(out.detach().numpy(), t_out.detach().numpy(), atol=atol,
                               rtol=1e-8)
    u = np.random.default_rng(5).standard_normal(out.shape)
    (out * fg.tensor(u)).sum().backward()
    (t_out * torch.tensor(u)).sum().backward()
    for x, t in zip(xs, ts):
        if x.requires_grad:
            np.testing.assert_allclose(x.grad.numpy(), t.grad.numpy(), atol=atol, rtol=1e-8)
    t_params = dict(torch_module.named_parameters())
    assert sorted(t_params) == sorted(name for name, _ in module.named_parameters())
    for name, p in module.named_parameters():
        np.testing.assert_allclose(p.grad.numpy(), t_params[name].grad.numpy(), atol=atol,
                                   rtol=1e-8, err_msg=name)


def _pair(name, *args, **kwargs):
    """A fluxgrad layer and the PyTorch layer of the same name and arguments."""
    return lambda: getattr(nn, name)(*args, **kwargs), \
        lambda: getattr(tnn, name)(*args, **kwargs)


LAYERS = [
    ("InstanceNorm1d", _pair("InstanceNorm1d", 3), [_x(2, 3, 5)]),
    ("InstanceNorm1d_unbatched", _pair("InstanceNorm1d", 3, affine=True), [_x(3, 5)]),
    ("InstanceNorm2d_affine", _pair("InstanceNorm2d", 3, affine=True), [_x(2, 3, 4, 4)]),
    ("InstanceNorm3d", _pair("InstanceNorm3d", 2), [_x(2, 2, 3, 2, 3)]),
    ("BatchNorm3d", _pair("BatchNorm3d", 2), [_x(2, 2, 3, 2, 3)]),
    ("RMSNorm", _pair("RMSNorm", 4), [_x(3, 4)]),
    ("RMSNorm_no_affine", _pair("RMSNorm", [2, 3], 1e-3, False), [_x(2, 2, 3)]),
    ("LocalResponseNorm", _pair("LocalResponseNorm", 3), [_x(2, 5, 3, 2)]),
    ("PixelShuffle", _pair("PixelShuffle", 2), [_x(1, 8, 2, 3)]),
    ("PixelUnshuffle", _pair("PixelUnshuffle", 2), [_x(1, 2, 4, 6)]),
    ("ChannelShuffle", _pair("ChannelShuffle", 2), [_x(2, 4, 3)]),
    ("ZeroPad1d", _pair("ZeroPad1d", (1, 2)), [_x(2, 3, 4)]),
    ("ZeroPad2d", _pair("ZeroPad2d", (1, 0, 2, 1)), [_x(2, 3, 4)]),
    ("ZeroPad3d", _pair("ZeroPad3d", 1), [_x(1, 2, 2, 3, 2)]),
    ("ConstantPad1d", _pair("ConstantPad1d", 2, 3.5), [_x(2, 3)]),
    ("ConstantPad2d", _pair("ConstantPad2d", (1, 2, 0, 1), -1.0), [_x(2, 3, 3)]),
    ("ConstantPad3d", _pair("ConstantPad3d", 1, 2.0), [_x(1, 2, 2, 2)]),
    ("ReflectionPad1d", _pair("ReflectionPad1d", (2, 1)), [_x(2, 3, 4)]),
    ("ReflectionPad2d", _pair("ReflectionPad2d", 2), [_x(1, 2, 4, 3)]),
    ("ReplicationPad1d", _pair("ReplicationPad1d", 2), [_x(2, 3, 4)]),
    ("ReplicationPad2d", _pair("ReplicationPad2d", (1, 2, 3, 0)), [_x(1, 2, 3, 3)]),
    ("CircularPad2d", _pair("CircularPad2d", 1), [_x(1, 2, 3, 3)]),
    ("CosineSimilarity", _pair("CosineSimilarity", 1), [_x(3, 4), _x(3, 4, seed=1)]),
    ("PairwiseDistance", _pair("PairwiseDistance", 3.0), [_x(3, 4), _x(3, 4, seed=1)]),
    ("GLU", _pair("GLU", 1), [_x(2, 4)]),
    ("Threshold", _pair("Threshold", 0.2, -1.0), [_x(3, 4)]),
    ("Softmax2d", _pair("Softmax2d"), [_x(2, 3, 2, 2)]),
    ("RReLU_eval", (lambda: nn.RReLU(0.1, 0.3).eval(), lambda: tnn.RReLU(0.1, 0.3).eval()),
     [_x(3, 4)]),
    ("AdaptiveMaxPool1d", _pair("AdaptiveMaxPool1d", 4, True), [_x(2, 3, 9)]),
    ("AdaptiveMaxPool2d", _pair("AdaptiveMaxPool2d", (3, None)), [_x(2, 3, 7, 4)]),
    ("AdaptiveAvgPool3d", _pair("AdaptiveAvgPool3d", 2), [_x(1, 2, 3, 5, 4)]),
    ("MaxPool3d", _pair("MaxPool3d", 2, 1, 1), [_x(1, 2, 3, 4, 3)]),
    ("LPPool1d", _pair("LPPool1d", 2, 2), [np.abs(_x(2, 3, 6)) + 0.1]),
    ("LPPool2d", _pair("LPPool2d", 1.5, 2, 1), [np.abs(_x(2, 3, 4, 4)) + 0.1]),
    ("Unfold", _pair("Unfold", 2, padding=1), [_x(2, 3, 3, 4)]),
    ("Fold", _pair("Fold", (3, 4), 2), [_x(2, 8, 6)]),
    ("EmbeddingBag", _pair("EmbeddingBag", 6, 3), [np.array([[1, 2, 0], [5, 5, 3]])]),
    ("EmbeddingBag_sum_padding", _pair("EmbeddingBag", 6, 3, mode="sum", padding_idx=5),
     [np.array([1, 2, 0, 5, 5, 3]), np.array([0, 4])]),
    ("TripletMarginLoss", _pair("TripletMarginLoss", 0.5, swap=True),
     [_x(4, 3), _x(4, 3, seed=1), _x(4, 3, seed=2)]),
    ("MarginRankingLoss", _pair("MarginRankingLoss", 0.1), [_x(4), _x(4, seed=1), _signs]),
    ("HingeEmbeddingLoss", _pair("HingeEmbeddingLoss", 2.0), [_x(4), _signs]),
    ("PoissonNLLLoss", _pair("PoissonNLLLoss", reduction="sum"),
     [_x(4), Fixed(np.abs(_x(4, seed=1)))]),
    ("GaussianNLLLoss", _pair("GaussianNLLLoss", full=True),
     [_x(4, 2), Fixed(_x(4, 2, seed=1)), np.abs(_x(4, 2, seed=2))]),
    ("MultiLabelSoftMarginLoss", _pair("MultiLabelSoftMarginLoss"),
     [_x(4, 3), Fixed((_x(4, 3, seed=1) > 0).astype(float))]),
    ("SoftMarginLoss", _pair("SoftMarginLoss", reduction="none"), [_x(4), _signs]),
    ("CosineEmbeddingLoss", _pair("CosineEmbeddingLoss", 0.1),
     [_x(4, 3), _x(4, 3, seed=1), _signs]),
    ("MultiMarginLoss", _pair("MultiMarginLoss", 2, 0.5), [_x(4, 5), _labels]),
    ("MultiLabelMarginLoss", _pair("MultiLabelMarginLoss"), [_x(4, 5), _multilabel]),
]


@pytest.mark.parametrize("name,makers,inputs", LAYERS, ids=[c[0] for c in LAYERS])
def test_layer_matches_torch(name, makers, inputs):
    fg.manual_seed(0)
    make, make_torch = makers
    module, torch_module = make(), make_torch()
    assert repr(module) == repr(torch_module)
    _compare_module(module, torch_module, inputs)


ERRORS = [
    ("glu_odd", lambda m, x: m.glu(x(3, 5))),
    ("pixel_shuffle_channels", lambda m, x: m.pixel_shuffle(x(1, 6, 2, 2), 2)),
    ("pixel_unshuffle_size", lambda m, x: m.pixel_unshuffle(x(1, 1, 3, 4), 2)),
    ("channel_shuffle_groups", lambda m, x: m.channel_shuffle(x(1, 5, 2), 2)),
    ("dropout1d_ndim", lambda m, x: m.dropout1d(x(1, 2, 3, 4))),
    ("dropout2d_p", lambda m, x: m.dropout2d(x(1, 2, 3, 4), 1.5)),
    ("alpha_dropout_p", lambda m, x: m.alpha_dropout(x(3), -0.1, True)),
    ("pdist_ndim", lambda m, x: m.pdist(x(2, 3, 4))),
    ("unfold_ndim", lambda m, x: m.unfold(x(3, 4), 2)),
    ("fold_blocks", lambda m, x: m.fold(x(1, 4, 5), (3, 3), 2)),
    ("fold_kernel_channels", lambda m, x: m.fold(x(1, 5, 4), (3, 3), 2)),
    ("multi_margin_p", lambda m, x: m.multi_margin_loss(x(2, 3), m_index(m, [0, 1]), p=3)),
    ("gaussian_nll_var_size", lambda m, x: m.gaussian_nll_loss(x(4, 3), x(4, 3), x(2))),
    ("gaussian_nll_negative_var",
     lambda m, x: m.gaussian_nll_loss(x(4, 3), x(4, 3), -abs(x(4, 3)))),
    ("gaussian_nll_reduction",
     lambda m, x: m.gaussian_nll_loss(x(4, 3), x(4, 3), abs(x(4, 3)), reduction="avg")),
    ("poisson_nll_reduction", lambda m, x: m.poisson_nll_loss(x(3), x(3), reduction="x")),
    ("max_pool3d_padding", lambda m, x: m.max_pool3d(x(1, 1, 4, 4, 4), 2, padding=2)),
    ("adaptive_max_pool2d_ndim", lambda m, x: m.adaptive_max_pool2d(x(4, 4), 2)),
    ("affine_grid_theta", lambda m, x: m.affine_grid(x(2, 3, 3), (2, 1, 4, 4),
                                                     align_corners=False)),
    ("embedding_bag_mode", lambda m, x: m.embedding_bag(m_index(m, [[0, 1]]), x(3, 2),
                                                        mode="median")),
    ("local_response_norm_ndim", lambda m, x: m.local_response_norm(x(3, 4), 2)),
]


def m_index(module, values):
    lib = fg if module is F else torch
    return lib.tensor(np.array(values))


@pytest.mark.parametrize("name,call", ERRORS, ids=[c[0] for c in ERRORS])
def test_errors_have_torchs_types(name, call):
    with pytest.raises(Exception) as expected:
        call(TF, lambda *s: torch.tensor(_x(*s)))
    with pytest.raises(expected.type):
        call(F, lambda *s: fg.tensor(_x(*s)))


LAYER_ERRORS = [
    ("instance_norm_ndim", lambda n, x: n.InstanceNorm2d(3)(x(2, 3, 4, 4, 4))),
    ("softmax2d_ndim", lambda n, x: n.Softmax2d()(x(2, 3))),
    ("dropout_p", lambda n, x: n.Dropout2d(2.0)),
    ("triplet_margin", lambda n, x: n.TripletMarginLoss(margin=-1.0)),
    ("multi_margin_p", lambda n, x: n.MultiMarginLoss(p=3)),
]


@pytest.mark.parametrize("name,call", LAYER_ERRORS, ids=[c[0] for c in LAYER_ERRORS])
def test_layer_errors_have_torchs_types(name, call):
    with pytest.raises(Exception) as expected:
        call(tnn, lambda *s: torch.tensor(_x(*s)))
    with pytest.raises(expected.type):
        call(nn, lambda *s: fg.tensor(_x(*s)))


@pytest.mark.parametrize("fn,shape,channels", [(F.dropout1d, (40, 50, 3), 2000),
                                               (F.dropout2d, (40, 50, 2, 2), 2000),
                                               (F.dropout3d, (40, 50, 2, 1, 2), 2000),
                                               (F.dropout1d, (500, 3), 500)])
def test_channel_dropout_drops_whole_channels_at_rate_p(fn, shape, channels):
    fg.manual_seed(0)
    x = np.abs(_x(*shape)) + 1.0
    y = fn(fg.tensor(x), 0.3).numpy().reshape(channels, -1)
    dropped = (y == 0).all(1)
    kept = np.isclose(y, x.reshape(channels, -1) / 0.7).all(1)
    assert (dropped | kept).all()
    assert 0.2 < dropped.mean() < 0.4


@pytest.mark.parametrize("fn", [F.dropout1d, F.dropout2d, F.dropout3d, F.alpha_dropout,
                                F.feature_alpha_dropout])
def test_dropout_p0_and_eval_are_identity_and_p1_zeroes(fn):
    shapes = {F.dropout1d: (2, 3, 4), F.dropout2d: (2, 3, 2, 2)}
    x = fg.tensor(_x(*shapes.get(fn, (2, 3, 2, 2, 2))))
    assert fn(x, 0.0, True) is x
    assert fn(x, 0.5, False) is x
    np.testing.assert_array_equal(fn(x, 1.0, True).numpy(), np.zeros(x.shape))


def test_alpha_dropout_keeps_mean_and_variance_of_standard_normal_input():
    fg.manual_seed(1)
    x = fg.tensor(_x(200000))
    y = F.alpha_dropout(x, 0.2, True).numpy()
    assert abs(y.mean()) < 0.02 and abs(y.var() - 1) < 0.02
    alpha, p = 1.7580993408473766, 0.2
    a = 1 / np.sqrt((alpha ** 2 * p + 1) * (1 - p))
    dropped = np.isclose(y, a * alpha * (p - 1))
    kept = np.isclose(y, x.numpy() * a + alpha * a * p)
    assert (dropped | kept).all() and 0.18 < dropped.mean() < 0.22


def test_feature_alpha_dropout_shares_the_mask_across_a_channel():
    fg.manual_seed(2)
    alpha, p = 1.7580993408473766, 0.5
    a = 1 / np.sqrt((alpha ** 2 * p + 1) * (1 - p))
    y = F.feature_alpha_dropout(fg.tensor(_x(30, 20, 3, 3)), p, True).numpy()
    dropped = np.isclose(y, a * alpha * (p - 1)).reshape(600, 9)
    assert (dropped.all(1) | ~dropped.any(1)).all()
    assert 0.4 < dropped.all(1).mean() < 0.6


def test_dropout_layers_follow_training_mode():
    for layer in (nn.Dropout1d(0.5), nn.Dropout2d(0.5), nn.Dropout3d(0.5), nn.AlphaDropout(0.5),
                  nn.FeatureAlphaDropout(0.5)):
        shape = {nn.Dropout1d: (4, 3, 5), nn.Dropout3d: (4, 3, 2, 2, 2)}.get(type(layer),
                                                                           (4, 3, 2, 2))
        x = fg.tensor(_x(*shape))
        assert not np.allclose(layer(x).numpy(), x.numpy())
        layer.eval()
        assert layer(x) is x


def test_rrelu_training_slopes_lie_in_range_and_are_the_gradient():
    fg.manual_seed(3)
    x = fg.tensor(_x(1000), requires_grad=True)
    y = F.rrelu(x, 0.1, 0.3, training=True)
    y.sum().backward()
    xs, ys, g = x.detach().numpy(), y.detach().numpy(), x.grad.numpy()
    neg = xs < 0
    np.testing.assert_array_equal(ys[~neg], xs[~neg])
    slopes = ys[neg] / xs[neg]
    assert slopes.min() >= 0.1 and slopes.max() <= 0.3 and slopes.std() > 0.03
    np.testing.assert_allclose(g[neg], slopes)
    np.testing.assert_array_equal(g[~neg], 1.0)


def test_gumbel_softmax_samples_the_softmax_distribution():
    fg.manual_seed(4)
    logits = np.log(np.array([0.2, 0.5, 0.3]))
    y = F.gumbel_softmax(fg.tensor(np.tile(logits, (20000, 1))), tau=0.5)
    np.testing.assert_allclose(y.numpy().sum(1), 1.0)
    counts = np.bincount(y.numpy().argmax(1), minlength=3) / 20000
    np.testing.assert_allclose(counts, [0.2, 0.5, 0.3], atol=0.02)


def test_gumbel_softmax_hard_is_one_hot_with_the_soft_gradient():
    fg.manual_seed(5)
    x = fg.tensor(_x(5, 4), requires_grad=True)
    y = F.gumbel_softmax(x, hard=True)
    np.testing.assert_array_equal(np.sort(y.detach().numpy(), 1), [[0, 0, 0, 1]] * 5)
    (y * fg.tensor(_x(5, 4, seed=1))).sum().backward()
    assert np.abs(x.grad.numpy()).sum() > 0


def test_instance_norm_running_stats_and_eval_match_torch():
    layer = nn.InstanceNorm1d(3, momentum=0.3, affine=True, track_running_stats=True)
    t_layer = tnn.InstanceNorm1d(3, momentum=0.3, affine=True, track_running_stats=True)
    for seed in range(3):
        layer(fg.tensor(_x(4, 3, 5, seed=seed)))
        t_layer(torch.tensor(_x(4, 3, 5, seed=seed)).float())
    np.testing.assert_allclose(layer.running_mean.numpy(), t_layer.running_mean.numpy(),
                               rtol=1e-5)
    np.testing.assert_allclose(layer.running_var.numpy(), t_layer.running_var.numpy(),
                               rtol=1e-5)
    layer.eval()
    t_layer.eval()
    _compare_module(layer, t_layer, [_x(2, 3, 5, seed=7)])


def test_lazy_linear_takes_in_features_from_its_first_input_and_becomes_linear():
    fg.manual_seed(0)
    layer = nn.LazyLinear(4)
    assert repr(list(layer.parameters())) == "[<UninitializedParameter>, <UninitializedParameter>]"
    y = layer(fg.ones(2, 7))
    assert type(layer) is nn.Linear and layer.in_features == 7
    assert layer.weight.shape == (4, 7) and layer.bias.shape == (4,) and y.shape == (2, 4)
    assert repr(layer) == repr(tnn.Linear(7, 4))
    bound = 1 / np.sqrt(7)
    assert np.abs(layer.bias.detach().numpy()).max() <= bound


def test_parameter_dict_registers_its_parameters_like_torch():
    d = nn.ParameterDict({"a": nn.Parameter(fg.zeros(2)), "b": nn.Parameter(fg.ones(3))})
    d["c"] = nn.Parameter(fg.ones(1))
    td = tnn.ParameterDict({"a": tnn.Parameter(torch.zeros(2)),
                            "b": tnn.Parameter(torch.ones(3))})
    td["c"] = tnn.Parameter(torch.ones(1))
    assert list(d.state_dict()) == list(td.state_dict())
    assert [n for n, _ in d.named_parameters()] == [n for n, _ in td.named_parameters()]
    assert "b" in d and len(d) == 3 and list(d.keys()) == ["a", "b", "c"]
    model = nn.Module()
    model.params = d
    assert [n for n, _ in model.named_parameters()] == ["params.a", "params.b", "params.c"]


@pytest.mark.parametrize("name,kwargs", [("upsample", {"scale_factor": 2, "mode": "bilinear",
                                                       "align_corners": False}),
                                         ("upsample_nearest", {"scale_factor": 2}),
                                         ("upsample_bilinear", {"size": (5, 3)})])
def test_upsample_aliases_warn_and_match_torch(name, kwargs):
    x = _x(1, 2, 3, 2)
    with pytest.warns(UserWarning):
        y = getattr(F, name)(fg.tensor(x), **kwargs)
    with pytest.warns(UserWarning):
        t = getattr(TF, name)(torch.tensor(x), **kwargs)
    np.testing.assert_allclose(y.numpy(), t.numpy(), atol=1e-12)


def test_unfold_and_fold_are_adjoint():
    x, y = _x(2, 3, 5, 4), _x(2, 3 * 6, 6, seed=1)
    lhs = (F.unfold(fg.tensor(x), (2, 3), padding=1, stride=2).numpy() * y).sum()
    rhs = (x * F.fold(fg.tensor(y), (5, 4), (2, 3), padding=1, stride=2).numpy()).sum()
    np.testing.assert_allclose(lhs, rhs)


def test_functions_work_under_vmap():
    x = _x(3, 2, 8, 2, 2)
    y = fg.vmap(lambda t: F.pixel_shuffle(t, 2))(fg.tensor(x))
    np.testing.assert_allclose(y.numpy(), TF.pixel_shuffle(torch.tensor(x), 2).numpy())
    z = fg.vmap(lambda t: F.glu(t, -1))(fg.tensor(_x(3, 4, 6)))
    np.testing.assert_allclose(z.numpy(), TF.glu(torch.tensor(_x(3, 4, 6)), -1).numpy())


_ctc_logits = _x(6, 3, 5)


# PyTorch's ctc_loss backward returns the gradient with respect to the logits of the
# log_softmax it assumes it was given, so the comparison differentiates through log_softmax.
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("concatenated", [False, True])
def test_ctc_loss_matches_torch(reduction, concatenated):
    padded = np.array([[1, 2, 2], [3, 0, 0], [4, 1, 0]])
    lengths = np.array([3, 1, 2])
    targets = np.concatenate([row[:n] for row, n in zip(padded, lengths)]) if concatenated \
        else padded
    _compare_fn(lambda x: F.ctc_loss(F.log_softmax(x, -1), fg.tensor(targets), [6, 5, 4],
                                     lengths, blank=0, reduction=reduction),
                lambda x: TF.ctc_loss(TF.log_softmax(x, -1), torch.tensor(targets),
                                      torch.tensor([6, 5, 4]), torch.tensor(lengths), blank=0,
                                      reduction=reduction),
                [_ctc_logits])


def test_ctc_loss_unbatched_matches_torch():
    _compare_fn(lambda x: F.ctc_loss(F.log_softmax(x, -1), fg.tensor(np.array([1, 3])), [5],
                                     [2]),
                lambda x: TF.ctc_loss(TF.log_softmax(x, -1), torch.tensor([1, 3]),
                                      torch.tensor([5]), torch.tensor([2])),
                [_x(5, 4)])


def test_ctc_loss_impossible_alignment_is_inf_or_zero_with_zero_infinity():
    lp = fg.tensor(_ctc_logits[:2], requires_grad=True)
    targets = fg.tensor(np.array([[1, 1, 1]] * 3))
    loss = F.ctc_loss(lp, targets, [2, 2, 2], [3, 3, 3], reduction="none")
    t_loss = TF.ctc_loss(torch.tensor(_ctc_logits[:2]), torch.tensor(targets.numpy()),
                         torch.tensor([2, 2, 2]), torch.tensor([3, 3, 3]), reduction="none")
    np.testing.assert_array_equal(loss.detach().numpy(), t_loss.numpy())
    loss = F.ctc_loss(lp, targets, [2, 2, 2], [3, 3, 3], zero_infinity=True)
    loss.backward()
    assert loss.item() == 0 and np.abs(lp.grad.numpy()).max() == 0


def test_ctc_loss_layer_matches_torch():
    layer, t_layer = nn.CTCLoss(blank=4, reduction="sum"), tnn.CTCLoss(blank=4, reduction="sum")
    assert repr(layer) == repr(t_layer)
    targets, in_len, tgt_len = np.array([[1, 2, 2], [3, 0, 0], [0, 1, 0]]), [6, 5, 4], [3, 1, 2]
    _compare_fn(lambda x: layer(F.log_softmax(x, -1), fg.tensor(targets), in_len, tgt_len),
                lambda x: t_layer(TF.log_softmax(x, -1), torch.tensor(targets),
                                  torch.tensor(in_len), torch.tensor(tgt_len)),
                [_ctc_logits])


def test_new_layers_compile_without_falling_back():
    fg.manual_seed(0)
    model = nn.Sequential(nn.Conv2d(2, 8, 3), nn.InstanceNorm2d(8, affine=True), nn.GLU(1),
                          nn.AdaptiveMaxPool2d(2), nn.PixelShuffle(2), nn.ReflectionPad2d(1),
                          nn.MaxPool2d(2), nn.Flatten(), nn.Linear(9, 3))
    compiled = fg.compile(model)
    x = fg.tensor(_x(2, 2, 6, 6).astype(np.float32))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        y = compiled(x)
    np.testing.assert_allclose(y.detach().numpy(), model(x).detach().numpy(), rtol=1e-6)
    assert compiled.trace_count == 1


TARGET_FUNCTIONS = [
    ("multilabel_margin_loss", F.multilabel_margin_loss, _x(4, 5),
     [_multilabel, np.array([[2, -1, 0, 0, 0]] * 4)]),
    ("multi_margin_loss", F.multi_margin_loss, _x(4, 5), [_labels, np.array([4, 4, 0, 1])]),
    ("ctc_loss", lambda lp, t: F.ctc_loss(lp, t, [6, 6, 5], [3, 1, 2]),
     TF.log_softmax(torch.tensor(_x(6, 3, 5)), -1).numpy(),
     [np.array([[1, 2, 2], [3, 0, 0], [4, 1, 0]]), np.array([[2, 2, 1], [1, 0, 0], [3, 3, 0]])]),
    ("ctc_loss_concatenated", lambda lp, t: F.ctc_loss(lp, t, [6, 6, 5], [3, 1, 2]),
     TF.log_softmax(torch.tensor(_x(6, 3, 5)), -1).numpy(),
     [np.array([1, 2, 2, 3, 4, 1]), np.array([2, 2, 1, 1, 3, 3])]),
    ("embedding_bag", lambda w, i: F.embedding_bag(i, w, fg.tensor(np.array([0, 2])),
                                                   mode="max"),
     _x(6, 3), [np.array([1, 2, 4, 5]), np.array([0, 3, 3, 1])]),
]


@pytest.mark.parametrize("name,fn,x,targets", TARGET_FUNCTIONS,
                         ids=[c[0] for c in TARGET_FUNCTIONS])
def test_compiled_losses_read_their_integer_arguments_on_every_call(name, fn, x, targets):
    compiled = fg.compile(fn)
    for t in targets:
        expected = fn(fg.tensor(x), fg.tensor(t)).numpy()
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # a fallback to eager mode warns
            got = compiled(fg.tensor(x), fg.tensor(t)).numpy()
        np.testing.assert_allclose(got, expected, rtol=1e-12)


EMPTY_BATCH = {
    "unfold": lambda lib, x: lib.nn.functional.unfold(x(0, 3, 5, 6), kernel_size=2, padding=1),
    "fold": lambda lib, x: lib.nn.functional.fold(x(0, 12, 20), (5, 6), kernel_size=2),
    "group_norm": lambda lib, x: lib.nn.functional.group_norm(x(0, 6, 3), 3),
    "batch_norm training": lambda lib, x: lib.nn.functional.batch_norm(
        x(0, 3, 4), lib.zeros(3, dtype=lib.float64), lib.ones(3, dtype=lib.float64),
        training=True),
    "layer_norm": lambda lib, x: lib.nn.functional.layer_norm(x(0, 4), (4,)),
    "conv1d": lambda lib, x: lib.nn.functional.conv1d(x(0, 3, 5), x(4, 3, 3)),
    "conv2d": lambda lib, x: lib.nn.functional.conv2d(x(0, 3, 5, 5), x(4, 3, 3, 3), padding=1),
    "conv2d groups": lambda lib, x: lib.nn.functional.conv2d(x(0, 4, 5, 5), x(6, 2, 3, 3),
                                                             groups=2),
    "conv_transpose2d": lambda lib, x: lib.nn.functional.conv_transpose2d(x(0, 3, 5, 5),
                                                                          x(3, 4, 3, 3)),
}


@pytest.mark.parametrize("case", list(EMPTY_BATCH))
def test_an_empty_batch_gives_an_empty_result_as_torch(case):
    shapes = []
    for lib in (fg, torch):
        def make(*shape, lib=lib):
            return lib.zeros(*shape, dtype=lib.float64, requires_grad=True)
        y = EMPTY_BATCH[case](lib, make)
        shapes.append(tuple(y.shape))
    assert shapes[0] == shapes[1]


@pytest.mark.parametrize("make", [lambda lib: lib.nn.Conv2d(3, 4, 3),
                                  lambda lib: lib.nn.BatchNorm2d(3),
                                  lambda lib: lib.nn.GroupNorm(3, 3),
                                  lambda lib: lib.nn.LayerNorm([3, 4, 4])],
                         ids=["Conv2d", "BatchNorm2d", "GroupNorm", "LayerNorm"])
def test_a_module_on_an_empty_batch_gets_zero_gradients_as_torch(make):
    grads = []
    for lib in (fg, torch):
        module = make(lib)
        module(lib.zeros(0, 3, 4, 4)).sum().backward()
        grads.append({name: p.grad.numpy().copy() for name, p in module.named_parameters()})
        if isinstance(module, lib.nn.BatchNorm2d):  # no statistics from no values
            assert module.running_mean.tolist() == [0.0] * 3
            assert module.running_var.tolist() == [1.0] * 3
    assert grads[0].keys() == grads[1].keys()
    for name in grads[0]:
        np.testing.assert_array_equal(grads[0][name], grads[1][name])


def test_batch_norm_training_on_one_value_per_channel_raises_as_torch():
    for lib in (fg, torch):
        with pytest.raises(ValueError, match="Expected more than 1 value per channel when "
                                             "training"):
            lib.nn.BatchNorm1d(3)(lib.zeros(1, 3))


@pytest.mark.parametrize("align_corners", [False, True])
@pytest.mark.parametrize("size, scale", [((7, 9), None), ((3, 4), None), ((1, 1), None),
                                         (None, 2.0), (None, 1.5), (None, (0.5, 1.75))])
def test_bicubic_interpolate_and_its_gradient_match_torch(align_corners, size, scale):
    start = np.random.default_rng(3).standard_normal((2, 3, 4, 5))
    results = []
    for lib in (fg, torch):
        x = lib.tensor(start, requires_grad=True)
        y = lib.nn.functional.interpolate(x, size=size, scale_factor=scale, mode="bicubic",
                                          align_corners=align_corners)
        (y * y).sum().backward()
        results.append((y.detach().numpy(), x.grad.numpy()))
    np.testing.assert_allclose(results[0][0], results[1][0], rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(results[0][1], results[1][1], rtol=1e-10, atol=1e-12)


def test_upsample_module_takes_bicubic_and_a_linear_mode_needs_its_rank():
    x = np.random.default_rng(4).standard_normal((1, 2, 3, 3)).astype(np.float32)
    ours = nn.Upsample(scale_factor=2, mode="bicubic")(fg.tensor(x))
    theirs = tnn.Upsample(scale_factor=2, mode="bicubic")(torch.tensor(x))
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-5, atol=1e-6)
    for lib in (fg, torch):
        with pytest.raises(NotImplementedError, match="Got 3D input, but bilinear mode needs "
                                                      "4D input"):
            lib.nn.functional.interpolate(lib.zeros(1, 2, 4), size=5, mode="bilinear")
