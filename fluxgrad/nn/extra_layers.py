"""More layers of `torch.nn`: feature and alpha dropout, instance / RMS / local response
normalisation, 3-d batch norm, padding, shuffles, im2col, distances, adaptive max, 3-d max
and power pooling, 1-d and 3-d max unpooling and EmbeddingBag.

Each computes with `nn.functional` and has PyTorch's arguments, defaults, parameter and
buffer names (so a state_dict moves between the two) and repr.
"""
import numpy as np

from .._core.errors import ShapeError
from ..creation import ones, tensor, zeros
from . import functional as F
from . import init
from .layers import MaxUnpool2d, _BatchNorm, _empty
from .module import Module
from .parameter import Parameter

__all__ = ["Dropout1d", "Dropout2d", "Dropout3d", "AlphaDropout", "FeatureAlphaDropout",
           "InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d", "BatchNorm3d", "RMSNorm",
           "LocalResponseNorm", "PixelShuffle", "PixelUnshuffle", "ChannelShuffle",
           "ZeroPad1d", "ZeroPad2d", "ZeroPad3d", "ConstantPad1d", "ConstantPad2d",
           "ConstantPad3d", "ReflectionPad1d", "ReflectionPad2d", "ReflectionPad3d",
           "ReplicationPad1d", "ReplicationPad2d", "ReplicationPad3d", "CircularPad1d",
           "CircularPad2d", "CircularPad3d", "CosineSimilarity", "PairwiseDistance", "GLU",
           "Threshold", "Softmax2d", "RReLU", "AdaptiveMaxPool1d", "AdaptiveMaxPool2d",
           "AdaptiveAvgPool3d", "MaxPool3d", "LPPool1d", "LPPool2d", "Unfold", "Fold",
           "EmbeddingBag", "MaxUnpool1d", "MaxUnpool3d", "LPPool3d"]


# --- dropout --------------------------------------------------------------------------------
class _DropoutNd(Module):
    _function = None

    def __init__(self, p=0.5, inplace=False):
        super().__init__()
        if not 0 <= p <= 1:
            raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
        self.p, self.inplace = p, inplace

    def forward(self, input):
        return type(self)._function(input, self.p, self.training)

    def extra_repr(self):
        return f"p={self.p}, inplace={self.inplace}"


class Dropout1d(_DropoutNd):
    """Zeroes whole channels of [N, C, L] (or [C, L]) in training."""
    _function = staticmethod(F.dropout1d)


class Dropout2d(_DropoutNd):
    """Zeroes whole channels of [N, C, H, W] (or [C, H, W]) in training."""
    _function = staticmethod(F.dropout2d)


class Dropout3d(_DropoutNd):
    """Zeroes whole channels of [N, C, D, H, W] (or [C, D, H, W]) in training."""
    _function = staticmethod(F.dropout3d)


class AlphaDropout(_DropoutNd):
    """Dropout that keeps the self-normalising property of SELU networks."""
    _function = staticmethod(F.alpha_dropout)


class FeatureAlphaDropout(_DropoutNd):
    """Alpha dropout of whole channels."""
    _function = staticmethod(F.feature_alpha_dropout)


# --- normalisation --------------------------------------------------------------------------
class BatchNorm3d(_BatchNorm):
    """Batch normalisation of [N, C, D, H, W]."""
    _ndims = (5,)


class _InstanceNorm(Module):
    _spatial = 2
    _version = 2
    _added_buffers = ("num_batches_tracked",)

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=False,
                 track_running_stats=False, *, bias=True):
        super().__init__()
        self.num_features, self.eps, self.momentum = num_features, eps, momentum
        self.affine, self.track_running_stats = affine, track_running_stats
        self.weight = Parameter(ones(num_features)) if affine else None
        self.bias = Parameter(zeros(num_features)) if affine and bias else None
        if track_running_stats:
            self.register_buffer("running_mean", zeros(num_features))
            self.register_buffer("running_var", ones(num_features))
            self.register_buffer("num_batches_tracked", tensor(0))
        else:
            self.running_mean = self.running_var = None

    def forward(self, input):
        s = self._spatial
        if input.ndim not in (s + 1, s + 2):
            raise ValueError(f"{type(self).__name__}: expected {s + 1}D or {s + 2}D input (got "
                             f"{input.ndim}D input of shape {list(input.shape)})")
        unbatched = input.ndim == s + 1
        if unbatched:
            input = input.unsqueeze(0)
        if input.shape[1] != self.num_features and self.affine:
            raise ValueError(f"{type(self).__name__}: expected input's size at dim=1 to match "
                             f"num_features ({self.num_features}), but got: {input.shape[1]}.")
        use_input_stats = self.training or not self.track_running_stats
        y = F.instance_norm(input, self.running_mean, self.running_var, self.weight, self.bias,
                            use_input_stats, self.momentum, self.eps)
        return y.squeeze(0) if unbatched else y

    def extra_repr(self):
        return (f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, "
                f"affine={self.affine}, bias={self.bias is not None}, "
                f"track_running_stats={self.track_running_stats}")


class InstanceNorm1d(_InstanceNorm):
    """Instance normalisation of [N, C, L] (or [C, L])."""
    _spatial = 1


class InstanceNorm2d(_InstanceNorm):
    """Instance normalisation of [N, C, H, W] (or [C, H, W])."""
    _spatial = 2


class InstanceNorm3d(_InstanceNorm):
    """Instance normalisation of [N, C, D, H, W] (or [C, D, H, W])."""
    _spatial = 3


class RMSNorm(Module):
    """`x / sqrt(mean(x^2) + eps) * weight` over the trailing `normalized_shape` axes."""

    def __init__(self, normalized_shape, eps=None, elementwise_affine=True):
        super().__init__()
        if isinstance(normalized_shape, (int, np.integer)):
            normalized_shape = (int(normalized_shape),)
        self.normalized_shape, self.eps = tuple(normalized_shape), eps
        self.elementwise_affine = elementwise_affine
        self.weight = Parameter(ones(self.normalized_shape)) if elementwise_affine else None

    def forward(self, x):
        return F.rms_norm(x, self.normalized_shape, self.weight, self.eps)

    def extra_repr(self):
        return (f"{self.normalized_shape}, eps={self.eps}, "
                f"elementwise_affine={self.elementwise_affine}")


class LocalResponseNorm(Module):
    """Normalises each entry by the energy of `size` neighbouring channels."""

    def __init__(self, size, alpha=1e-4, beta=0.75, k=1.0):
        super().__init__()
        self.size, self.alpha, self.beta, self.k = size, alpha, beta, k

    def forward(self, input):
        return F.local_response_norm(input, self.size, self.alpha, self.beta, self.k)

    def extra_repr(self):
        return f"{self.size}, alpha={self.alpha}, beta={self.beta}, k={self.k}"


# --- shuffles -------------------------------------------------------------------------------
class PixelShuffle(Module):
    """[*, C r^2, H, W] -> [*, C, H r, W r]."""

    def __init__(self, upscale_factor):
        super().__init__()
        self.upscale_factor = upscale_factor

    def forward(self, input):
        return F.pixel_shuffle(input, self.upscale_factor)

    def extra_repr(self):
        return f"upscale_factor={self.upscale_factor}"


class PixelUnshuffle(Module):
    """[*, C, H r, W r] -> [*, C r^2, H, W]."""

    def __init__(self, downscale_factor):
        super().__init__()
        self.downscale_factor = downscale_factor

    def forward(self, input):
        return F.pixel_unshuffle(input, self.downscale_factor)

    def extra_repr(self):
        return f"downscale_factor={self.downscale_factor}"


class ChannelShuffle(Module):
    """Interleaves the channels of `groups` groups ([N, C, *])."""

    def __init__(self, groups):
        super().__init__()
        self.groups = groups

    def forward(self, input):
        return F.channel_shuffle(input, self.groups)

    def extra_repr(self):
        return f"groups={self.groups}"


# --- padding --------------------------------------------------------------------------------
def _padding(padding, dims):
    if isinstance(padding, (int, np.integer)):
        return (int(padding),) * (2 * dims)
    padding = tuple(int(p) for p in padding)
    if len(padding) != 2 * dims:
        raise ValueError(f"padding must be an int or a tuple of {2 * dims} ints, got "
                         f"{padding!r}")
    return padding


def _pad_layer(name, mode, dims, with_value=False):
    if with_value:
        def __init__(self, padding, value):
            Module.__init__(self)
            self.padding, self.value = _padding(padding, dims), value

        def extra_repr(self):
            return f"padding={self.padding}, value={self.value}"
    else:
        def __init__(self, padding):
            Module.__init__(self)
            self.padding, self.value = _padding(padding, dims), 0.0

        def extra_repr(self):
            return f"{self.padding}"

    def forward(self, input):
        return F.pad(input, self.padding, mode, self.value)
    return type(name, (Module,), {"__init__": __init__, "forward": forward,
                                  "extra_repr": extra_repr,
                                  "__doc__": f"Pads the last {dims} dimension(s) ({mode})."})


ZeroPad1d = _pad_layer("ZeroPad1d", "constant", 1)
ZeroPad2d = _pad_layer("ZeroPad2d", "constant", 2)
ZeroPad3d = _pad_layer("ZeroPad3d", "constant", 3)
ConstantPad1d = _pad_layer("ConstantPad1d", "constant", 1, with_value=True)
ConstantPad2d = _pad_layer("ConstantPad2d", "constant", 2, with_value=True)
ConstantPad3d = _pad_layer("ConstantPad3d", "constant", 3, with_value=True)
ReflectionPad1d = _pad_layer("ReflectionPad1d", "reflect", 1)
ReflectionPad2d = _pad_layer("ReflectionPad2d", "reflect", 2)
ReflectionPad3d = _pad_layer("ReflectionPad3d", "reflect", 3)
ReplicationPad1d = _pad_layer("ReplicationPad1d", "replicate", 1)
ReplicationPad2d = _pad_layer("ReplicationPad2d", "replicate", 2)
ReplicationPad3d = _pad_layer("ReplicationPad3d", "replicate", 3)
CircularPad1d = _pad_layer("CircularPad1d", "circular", 1)
CircularPad2d = _pad_layer("CircularPad2d", "circular", 2)
CircularPad3d = _pad_layer("CircularPad3d", "circular", 3)


# --- distances and activations --------------------------------------------------------------
class CosineSimilarity(Module):
    def __init__(self, dim=1, eps=1e-8):
        super().__init__()
        self.dim, self.eps = dim, eps

    def forward(self, x1, x2):
        return F.cosine_similarity(x1, x2, self.dim, self.eps)


class PairwiseDistance(Module):
    def __init__(self, p=2.0, eps=1e-6, keepdim=False):
        super().__init__()
        self.norm, self.eps, self.keepdim = p, eps, keepdim

    def forward(self, x1, x2):
        return F.pairwise_distance(x1, x2, self.norm, self.eps, self.keepdim)


class GLU(Module):
    def __init__(self, dim=-1):
        super().__init__()
        self.dim = dim

    def forward(self, input):
        return F.glu(input, self.dim)

    def extra_repr(self):
        return f"dim={self.dim}"


class Threshold(Module):
    def __init__(self, threshold, value, inplace=False):
        super().__init__()
        self.threshold, self.value, self.inplace = threshold, value, inplace

    def forward(self, input):
        return F.threshold(input, self.threshold, self.value)

    def extra_repr(self):
        return f"threshold={self.threshold}, value={self.value}" + (
            ", inplace=True" if self.inplace else "")


class Softmax2d(Module):
    """Softmax over the channels of [N, C, H, W] (or [C, H, W])."""

    def forward(self, input):
        if input.ndim not in (3, 4):
            raise ValueError(f"Softmax2d: expected input to be 3D or 4D, got {input.ndim}D instead")
        return F.softmax(input, -3)


class RReLU(Module):
    def __init__(self, lower=1.0 / 8, upper=1.0 / 3, inplace=False):
        super().__init__()
        self.lower, self.upper, self.inplace = lower, upper, inplace

    def forward(self, input):
        return F.rrelu(input, self.lower, self.upper, self.training)

    def extra_repr(self):
        return f"lower={self.lower}, upper={self.upper}" + (", inplace=True" if self.inplace
                                                            else "")


# --- pooling --------------------------------------------------------------------------------
class _AdaptivePool(Module):
    def __init__(self, output_size, return_indices=False):
        super().__init__()
        self.output_size, self.return_indices = output_size, return_indices

    def extra_repr(self):
        return f"output_size={self.output_size}"


class AdaptiveMaxPool1d(_AdaptivePool):
    def forward(self, input):
        return F.adaptive_max_pool1d(input, self.output_size, self.return_indices)


class AdaptiveMaxPool2d(_AdaptivePool):
    def forward(self, input):
        return F.adaptive_max_pool2d(input, self.output_size, self.return_indices)


class AdaptiveAvgPool3d(_AdaptivePool):
    def __init__(self, output_size):
        super().__init__(output_size)

    def forward(self, input):
        return F.adaptive_avg_pool3d(input, self.output_size)


class MaxPool3d(Module):
    def __init__(self, kernel_size, stride=None, padding=0, dilation=1, return_indices=False,
                 ceil_mode=False):
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding, self.dilation = padding, dilation
        self.return_indices, self.ceil_mode = return_indices, ceil_mode

    def forward(self, input):
        return F.max_pool3d(input, self.kernel_size, self.stride, self.padding, self.dilation,
                            self.ceil_mode, self.return_indices)

    def extra_repr(self):
        return (f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}, "
                f"dilation={self.dilation}, ceil_mode={self.ceil_mode}")


class LPPool1d(Module):
    _function = staticmethod(F.lp_pool1d)

    def __init__(self, norm_type, kernel_size, stride=None, ceil_mode=False):
        super().__init__()
        self.norm_type, self.kernel_size = norm_type, kernel_size
        self.stride, self.ceil_mode = stride, ceil_mode

    def forward(self, input):
        return type(self)._function(input, self.norm_type, self.kernel_size, self.stride,
                                    self.ceil_mode)

    def extra_repr(self):
        return (f"norm_type={self.norm_type}, kernel_size={self.kernel_size}, "
                f"stride={self.stride}, ceil_mode={self.ceil_mode}")


class LPPool2d(LPPool1d):
    _function = staticmethod(F.lp_pool2d)


class LPPool3d(LPPool1d):
    _function = staticmethod(F.lp_pool3d)


class Unfold(Module):
    """im2col: [N, C, H, W] -> [N, C kh kw, L]."""

    def __init__(self, kernel_size, dilation=1, padding=0, stride=1):
        super().__init__()
        self.kernel_size, self.dilation = kernel_size, dilation
        self.padding, self.stride = padding, stride

    def forward(self, input):
        return F.unfold(input, self.kernel_size, self.dilation, self.padding, self.stride)

    def extra_repr(self):
        return (f"kernel_size={self.kernel_size}, dilation={self.dilation}, "
                f"padding={self.padding}, stride={self.stride}")


class Fold(Module):
    """col2im: [N, C kh kw, L] -> [N, C, H, W], overlapping blocks summed."""

    def __init__(self, output_size, kernel_size, dilation=1, padding=0, stride=1):
        super().__init__()
        self.output_size, self.kernel_size = output_size, kernel_size
        self.dilation, self.padding, self.stride = dilation, padding, stride

    def forward(self, input):
        return F.fold(input, self.output_size, self.kernel_size, self.dilation, self.padding,
                      self.stride)

    def extra_repr(self):
        return (f"output_size={self.output_size}, kernel_size={self.kernel_size}, "
                f"dilation={self.dilation}, padding={self.padding}, stride={self.stride}")


# --- bag layers ---------------------------------------------------------------------------
class EmbeddingBag(Module):
    """Sums, averages or takes the max of the embeddings in each bag (see F.embedding_bag)."""

    def __init__(self, num_embeddings, embedding_dim, max_norm=None, norm_type=2.0,
                 scale_grad_by_freq=False, mode="mean", sparse=False, _weight=None,
                 include_last_offset=False, padding_idx=None):
        super().__init__()
        self.num_embeddings, self.embedding_dim = num_embeddings, embedding_dim
        self.max_norm, self.norm_type, self.mode = max_norm, norm_type, mode
        self.scale_grad_by_freq, self.sparse = scale_grad_by_freq, sparse
        self.include_last_offset = include_last_offset
        if padding_idx is not None and not -num_embeddings <= padding_idx < num_embeddings:
            raise AssertionError("padding_idx must be within num_embeddings")
        self.padding_idx = None if padding_idx is None else padding_idx % num_embeddings
        if _weight is not None:
            self.weight = Parameter(_weight)
        else:
            self.weight = _empty(num_embeddings, embedding_dim)
            init.normal_(self.weight)
            if self.padding_idx is not None:
                self.weight._data[self.padding_idx] = 0

    @classmethod
    def from_pretrained(cls, embeddings, freeze=True, max_norm=None, norm_type=2.0,
                        scale_grad_by_freq=False, mode="mean", sparse=False,
                        include_last_offset=False, padding_idx=None):
        """An EmbeddingBag whose weight holds the 2-d `embeddings`; frozen unless freeze=False."""
        if embeddings.dim() != 2:
            raise ShapeError(f"EmbeddingBag.from_pretrained: embeddings must be 2-d, got shape "
                             f"{list(embeddings.shape)}")
        rows, cols = embeddings.shape
        bag = cls(rows, cols, max_norm, norm_type, scale_grad_by_freq, mode, sparse, embeddings,
                  include_last_offset, padding_idx)
        bag.weight.requires_grad = not freeze
        return bag

    def forward(self, input, offsets=None, per_sample_weights=None):
        return F.embedding_bag(input, self.weight, offsets, self.max_norm, self.norm_type,
                               self.scale_grad_by_freq, self.mode, self.sparse,
                               per_sample_weights, self.include_last_offset, self.padding_idx)

    def extra_repr(self):
        s = f"{self.num_embeddings}, {self.embedding_dim}"
        if self.max_norm is not None:
            s += f", max_norm={self.max_norm}"
        s += f", mode={self.mode!r}"
        if self.padding_idx is not None:
            s += f", padding_idx={self.padding_idx}"
        return s



class MaxUnpool1d(MaxUnpool2d):
    """The inverse of MaxPool1d(return_indices=True) (see F.max_unpool1d)."""
    _dims = 1

    def forward(self, input, indices, output_size=None):
        return F.max_unpool1d(input, indices, self.kernel_size, self.stride, self.padding,
                              output_size)


class MaxUnpool3d(MaxUnpool2d):
    """The inverse of MaxPool3d(return_indices=True) (see F.max_unpool3d)."""
    _dims = 3

    def forward(self, input, indices, output_size=None):
        return F.max_unpool3d(input, indices, self.kernel_size, self.stride, self.padding,
                              output_size)
