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
