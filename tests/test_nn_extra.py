"""The added nn layers, losses and functions against PyTorch: values and gradients of inputs
and parameters in float64, random ones by their masks and statistics, errors by type."""
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
