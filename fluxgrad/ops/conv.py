"""Convolution and pooling on NCHW tensors, on BLAS: im2col by stride tricks, then matmuls.

Convolution is bilinear, and its two transposes are ops of the same kind, so
three primitives close under differentiation (to any order):
  conv2d(x, w) = y,   conv2d_input(y, w) = x-shaped,   conv2d_weight(x, y) = w-shaped,
with <conv2d(x, w), y> = <x, conv2d_input(y, w)> = <w, conv2d_weight(x, y)>.
`conv2d_input` is the transposed convolution (`conv_transpose2d`). Max pooling
backward scatters the cotangent to each window's argmax, and that scatter's
transpose gathers from it; average pooling is linear with its transpose beside it.
Python loops here run over kernel offsets (kh * kw) and blocks of images, never over pixels.
Under vmap, the batch joins an existing axis: an input's N axis, or the channels
(and groups) of a convolution whose weight is batched.
`pads` are explicit (top, bottom, left, right), so 'same' padding may be uneven.
1-d convolution is the 2-d one with a height of 1.
"""
import numpy as np
from numpy.lib.stride_tricks import as_strided

from .._core.batching import move_dim
from .._core.dispatch import apply
from .._core.errors import ArgumentError, IndexOutOfRange, ShapeError
from .._core.primitive import REGISTRY, Primitive
from .._core.tensor import Tensor, tensor_method
from ._family import linear, promote
from .linalg import require_same_float_dtype
from .shape import broadcast_to, reshape
from .winograd import conv3x3, conv3x3_weight, image_blocks, winograd_applies

__all__ = ["conv1d", "conv2d", "conv_transpose1d", "conv_transpose2d", "max_pool1d",
           "max_pool2d", "avg_pool1d", "avg_pool2d", "adaptive_avg_pool1d",
           "adaptive_avg_pool2d", "max_unpool2d", "conv3d", "conv_transpose3d", "avg_pool3d"]


# --- array helpers (impl only) ----------------------------------------------------------
def _pad(x, pads, value=0.0):
    pt, pb, pl, pr = pads
    if not any(pads):
        return x
    out = np.full(x.shape[:2] + (x.shape[2] + pt + pb, x.shape[3] + pl + pr), value, x.dtype)
    out[:, :, pt:pt + x.shape[2], pl:pl + x.shape[3]] = x
    return out


def _out_size(size, pad, kernel, stride, dilation):
    return (size + pad - dilation * (kernel - 1) - 1) // stride + 1


def _padded_nhwc(x, pads, size=None):
    """`x` [N, C, H, W] (any layout) zero-padded, in a C-contiguous [N, H', W', C] array."""
    pt, pb, pl, pr = pads
    n, c, h, w = x.shape
    out = np.zeros((n, h + pt + pb, w + pl + pr, c), x.dtype)
    out[:, pt:pt + h, pl:pl + w] = x.transpose(0, 2, 3, 1)
    return out


def _cols(xp, kernel, stride, dilation, out_hw, groups):
    """im2col of a padded [N, H', W', C] array: an (N * ho * wo, groups, kh * kw * C/groups) copy."""
    sn, sh, sw, sc = xp.strides
    cg = xp.shape[3] // groups
    view = as_strided(xp, (xp.shape[0], *out_hw, groups, *kernel, cg),
                      (sn, sh * stride[0], sw * stride[1], sc * cg, sh * dilation[0],
                       sw * dilation[1], sc), writeable=False)
    return view.reshape(xp.shape[0] * out_hw[0] * out_hw[1], groups, kernel[0] * kernel[1] * cg)


def _weight_rows(w, groups):
    """[C_out, C/groups, kh, kw] as (groups, C_out/groups, kh * kw * C/groups), the columns' order."""
    co, cg, kh, kw = w.shape
    return w.transpose(0, 2, 3, 1).reshape(groups, co // groups, kh * kw * cg)


def _rows(y, groups):
    """[N, C, H, W] (any layout) as (N * H * W, groups, C/groups) rows, free when channels-last."""
    n, c, h, w = y.shape
    return y.transpose(0, 2, 3, 1).reshape(n * h * w, groups, c // groups)


def _nchw(rows, n, hw):
    """(N * H * W, C) rows as an [N, C, H, W] view, channels-last in memory."""
    return rows.reshape(n, *hw, rows.shape[1]).transpose(0, 3, 1, 2)


def _offsets(kernel, stride, dilation, out_hw):
    """For each kernel offset, the slices of the padded input that offset touches."""
    for i in range(kernel[0]):
        for j in range(kernel[1]):
            r0, c0 = i * dilation[0], j * dilation[1]
            yield i, j, (slice(None), slice(None),
                         slice(r0, r0 + stride[0] * (out_hw[0] - 1) + 1, stride[0]),
                         slice(c0, c0 + stride[1] * (out_hw[1] - 1) + 1, stride[1]))


def _crop(xp, pads, size):
    pt, _, pl, _ = pads
    return xp[:, :, pt:pt + size[0], pl:pl + size[1]]


# Activations are [N, C, H, W] arrays whose memory is channels-last ([N, H, W, C]): then the
# columns are (N*H*W, C*kh*kw) rows and every convolution is one 2-d matmul per group. The
# columns are built for a block of images at a time, small enough to stay in cache: a block's
# copy is read by its matmul while it is still there, and no call holds an im2col of the
# whole batch.
_BLOCK_BYTES = 1 << 20


def _image_blocks(n, image_bytes):
    """Slices of the N images whose columns take about `_BLOCK_BYTES` each (at least one image)."""
    return image_blocks(n, image_bytes, _BLOCK_BYTES)[1]


def _conv_impl(x, w, *, stride, pads, dilation, groups):
    if winograd_applies(x, w.shape, stride, dilation, groups):
        return conv3x3(x, w, pads)
    n, (co, cg) = x.shape[0], w.shape[:2]
    kernel = w.shape[2:]
    xp = _padded_nhwc(x, pads)
    out_hw = (_out_size(xp.shape[1], 0, kernel[0], stride[0], dilation[0]),
              _out_size(xp.shape[2], 0, kernel[1], stride[1], dilation[1]))
    w2 = _weight_rows(w, groups)
    out = np.empty((n, *out_hw, groups, co // groups), np.result_type(x, w))
    image_bytes = out_hw[0] * out_hw[1] * kernel[0] * kernel[1] * cg * groups * xp.itemsize
    for images in _image_blocks(n, image_bytes):
        cols = _cols(xp[images], kernel, stride, dilation, out_hw, groups)
        rows = out[images].reshape(cols.shape[0], groups, co // groups)
        if groups == 1:
            np.matmul(cols[:, 0], w2[0].T, out=rows[:, 0])
        else:
            np.matmul(cols.transpose(1, 0, 2), w2.transpose(0, 2, 1), out=rows.transpose(1, 0, 2))
    return out.reshape(n, *out_hw, co).transpose(0, 3, 1, 2)


def _tap_span(size, out, pad, k, stride, dilation):
    """Along one axis, the outputs whose kernel tap `k` lands inside the unpadded input (a
    slice of them) and the input positions they land on (a slice of those)."""
    start = k * dilation - pad
    first = max(0, -(start // stride))
    last = min(out - 1, (size - 1 - start) // stride)
    count = last - first + 1
    at = start + first * stride
    return slice(first, first + count), slice(at, at + stride * (count - 1) + 1, stride)


def _conv_input_impl(y, w, *, stride, pads, dilation, groups, size):
    n, co, ho, wo = y.shape
    _, cg, kh, kw = w.shape
    # stride 1: the transposed convolution is the convolution of y padded by 2 - pad with
    # the flipped kernel, its in and out channels swapped
    flipped = (2 - pads[0], size[0] - ho + pads[0], 2 - pads[2], size[1] - wo + pads[2])
    w_flipped = w.transpose(1, 0, 2, 3)[:, :, ::-1, ::-1]
    if min(flipped) >= 0 and winograd_applies(y, w_flipped.shape, stride, dilation, groups):
        return conv3x3(y, w_flipped, flipped)
    # one (rows, C_out/g) @ (C_out/g, C/g) product per group and kernel offset, added into x
    # where that offset lands inside it (what lands on the padding is never computed)
    w9 = w.reshape(groups, co // groups, cg, kh * kw).transpose(0, 3, 1, 2)
    rows = _rows(y, groups).transpose(1, 0, 2).reshape(groups, n, ho * wo, co // groups)
    x = np.zeros((n, *size, groups, cg), np.result_type(y, w))
    taps = []
    for i in range(kh):
        out_rows, x_rows = _tap_span(size[0], ho, pads[0], i, stride[0], dilation[0])
        for j in range(kw):
            out_cols, x_cols = _tap_span(size[1], wo, pads[2], j, stride[1], dilation[1])
            if out_rows.stop > out_rows.start and out_cols.stop > out_cols.start:
                taps.append((i, j, out_rows, out_cols, x_rows, x_cols))
    for images in _image_blocks(n, ho * wo * kh * kw * cg * groups * x.itemsize):
        m = images.stop - images.start
        cols = np.matmul(rows[:, images].reshape(groups, 1, m * ho * wo, co // groups), w9)
        cols = cols.reshape(groups, kh, kw, m, ho, wo, cg)
        block = x[images]
        for i, j, out_rows, out_cols, x_rows, x_cols in taps:
            tap = cols[:, i, j, :, out_rows, out_cols]
            block[:, x_rows, x_cols] += tap.transpose(1, 2, 3, 0, 4)
    return x.reshape(n, *size, groups * cg).transpose(0, 3, 1, 2)


def _conv_weight_impl(x, y, *, stride, pads, dilation, groups, kernel):
    n, co, ho, wo = y.shape
    cg = x.shape[1] // groups
    if winograd_applies(x, (co, cg) + tuple(kernel), stride, dilation, groups):
        return conv3x3_weight(x, y, pads)
    xp = _padded_nhwc(x, pads)
    rows = _rows(y, groups)
    w2 = np.zeros((groups, co // groups, kernel[0] * kernel[1] * cg), np.result_type(x, y))
    image_bytes = ho * wo * kernel[0] * kernel[1] * cg * groups * xp.itemsize
    for images in _image_blocks(n, image_bytes):
        cols = _cols(xp[images], kernel, stride, dilation, (ho, wo), groups)
        block = rows[images.start * ho * wo:images.stop * ho * wo]
        if groups == 1 and cols.shape[2] < co:
            w2[0] += (cols[:, 0].T @ block[:, 0]).T  # measured faster for narrow columns
        elif groups == 1:
            w2[0] += block[:, 0].T @ cols[:, 0]
        else:
            w2 += np.matmul(block.transpose(1, 2, 0), cols.transpose(1, 0, 2))
    return w2.reshape(co, *kernel, cg).transpose(0, 3, 1, 2)


def _bilinear_jvp(fn, a, b, a_dot, b_dot, **params):
    terms = []
    if a_dot is not None:
        terms.append(fn(a_dot, b, **params))
    if b_dot is not None:
        terms.append(fn(a, b_dot, **params))
    return terms[0] if len(terms) == 1 else terms[0] + terms[1]


def _conv(x, w, **p):
    return apply(conv2d_p, x, w, **p)


def _conv_to(x, w, shape, **p):
    """conv2d cropped to the spatial `shape` of the tensor it is the cotangent of: the input
    of a transposed convolution with output padding beyond the stride has rows and columns
    that reach no output."""
    out = _conv(x, w, **p)
    if out.shape[2:] == tuple(shape):
        return out
    return out[:, :, :shape[0], :shape[1]]


def _conv_input(y, w, *, size, **p):
    return apply(conv2d_input_p, y, w, size=tuple(size), **p)


def _conv_weight(x, y, *, kernel, **p):
    return apply(conv2d_weight_p, x, y, kernel=tuple(kernel), **p)


# --- batching rules ---------------------------------------------------------------------
def _merge_batch(t, b, axis, groups=1):
    """`t` with its batch dimension `b` merged into its logical dimension `axis`; that axis
    is cut into `groups` blocks and each block holds the whole batch: index (block, example,
    index in block). With one group that is (example, index)."""
    t = move_dim(t, b, axis)
    s = t.shape
    if groups > 1:
        t = reshape(t, s[:axis] + (s[axis], groups, s[axis + 1] // groups) + s[axis + 2:])
        t = move_dim(t, axis, axis + 1)
    return reshape(t, s[:axis] + (s[axis] * s[axis + 1],) + s[axis + 2:])


def _split_batch(t, axis, size, groups=1):
    """Undo `_merge_batch` on a result: (`t`, `axis`), the batch of `size` back at `axis`."""
    s = t.shape
    if groups > 1:
        t = reshape(t, s[:axis] + (groups, size, s[axis] // (groups * size)) + s[axis + 1:])
        t = move_dim(t, axis + 1, axis)
    return reshape(t, s[:axis] + (size, s[axis] // size) + s[axis + 1:]), axis


# A convolution sums over the channels of a group. With one argument batched, the batch
# joins an axis that the sum leaves alone: the N axis of an activation (conv2d's x,
# conv2d_input's y), else the channels of each group; with both batched, each example
# becomes groups of its own. Either way one call serves the whole batch.
def _conv_batch(bdims, x, w, *, groups, **p):
    bx, bw = bdims
    if bw is None:
        return _split_batch(_conv(_merge_batch(x, bx, 0), w, groups=groups, **p), 0,
                            x.shape[bx])
    size = w.shape[bw]
    if bx is None:
        out = _conv(x, _merge_batch(w, bw, 0, groups), groups=groups, **p)
        return _split_batch(out, 1, size, groups)
    out = _conv(_merge_batch(x, bx, 1), _merge_batch(w, bw, 0), groups=groups * size, **p)
    return _split_batch(out, 1, size)


def _conv_input_batch(bdims, y, w, *, groups, **p):
    by, bw = bdims
    if bw is None:
        return _split_batch(_conv_input(_merge_batch(y, by, 0), w, groups=groups, **p), 0,
                            y.shape[by])
    size = w.shape[bw]
    if by is None:
        out = _conv_input(y, _merge_batch(w, bw, 1), groups=groups, **p)
        return _split_batch(out, 1, size, groups)
    out = _conv_input(_merge_batch(y, by, 1), _merge_batch(w, bw, 0), groups=groups * size,
                      **p)
    return _split_batch(out, 1, size)


def _conv_weight_batch(bdims, x, y, *, groups, **p):
    bx, by = bdims
    if by is None:
        out = _conv_weight(_merge_batch(x, bx, 1, groups), y, groups=groups, **p)
        return _split_batch(out, 1, x.shape[bx])
    size = y.shape[by]
    if bx is None:
        out = _conv_weight(x, _merge_batch(y, by, 1, groups), groups=groups, **p)
        return _split_batch(out, 0, size, groups)
    out = _conv_weight(_merge_batch(x, bx, 1), _merge_batch(y, by, 1), groups=groups * size,
                       **p)
    return _split_batch(out, 0, size)


def _pool_batch(prim_name):
    """The rule of a pooling op (its tensors [N, C, H, W]): the batch joins the N axis of
    every input, those not batched broadcast first."""
    def rule(bdims, *xs, **p):
        size = next(x.shape[b] for x, b in zip(xs, bdims) if b is not None)
        xs = [_merge_batch(x, b, 0) if b is not None else
              _merge_batch(broadcast_to(x, (size,) + x.shape), 0, 0) for x, b in zip(xs, bdims)]
        out = apply(REGISTRY[prim_name], *xs, **p)
        if isinstance(out, Tensor):
            return _split_batch(out, 0, size)
        return tuple(_split_batch(o, 0, size)[0] for o in out), (0,) * len(out)
    return rule


conv2d_p = Primitive(
    "conv2d", _conv_impl,
    vjp=(lambda out_bar, out, x, w, **p: _conv_input(out_bar, w, size=x.shape[2:], **p),
         lambda out_bar, out, x, w, **p: _conv_weight(x, out_bar, kernel=w.shape[2:], **p)),
    jvp=lambda tangents, out, x, w, **p: _bilinear_jvp(_conv, x, w, *tangents, **p),
    linear="each", batch=_conv_batch)

conv2d_input_p = Primitive(
    "conv2d_input", _conv_input_impl,
    vjp=(lambda out_bar, out, y, w, *, size, **p: _conv_to(out_bar, w, y.shape[2:], **p),
         lambda out_bar, out, y, w, *, size, **p: _conv_weight(out_bar, y, kernel=w.shape[2:],
                                                                **p)),
    jvp=lambda tangents, out, y, w, *, size, **p: _bilinear_jvp(
        _conv_input, y, w, *tangents, size=size, **p),
    linear="each", batch=_conv_input_batch)

conv2d_weight_p = Primitive(
    "conv2d_weight", _conv_weight_impl,
    vjp=(lambda out_bar, out, x, y, *, kernel, **p: _conv_input(y, out_bar, size=x.shape[2:],
                                                                  **p),
         lambda out_bar, out, x, y, *, kernel, **p: _conv_to(x, out_bar, y.shape[2:], **p)),
    jvp=lambda tangents, out, x, y, *, kernel, **p: _bilinear_jvp(
        _conv_weight, x, y, *tangents, kernel=kernel, **p),
    linear="each", batch=_conv_weight_batch)


# --- argument normalisation ------------------------------------------------------------
def _pair(value, name, op, n=2):
    if isinstance(value, Tensor):
        value = value.tolist()
    if isinstance(value, (int, np.integer)):
        return (int(value),) * n
    value = tuple(int(v) for v in value)
    if len(value) == 1:
        return value * n
    if len(value) != n:
        raise ArgumentError(f"{op}: {name} must be an int or {n} ints, got {value}")
    return value


def _conv_pads(padding, kernel, dilation, stride, op):
    """(top, bottom, left, right) from an int, a pair, a 4-tuple, 'valid' or 'same'."""
    if isinstance(padding, str):
        mode = padding.lower()
        if mode == "valid":
            return (0, 0, 0, 0)
        if mode != "same":
            raise ArgumentError(f"{op}: padding must be 'same', 'valid' or ints, got {padding!r}")
        if any(s != 1 for s in stride):
            raise ArgumentError(f"{op}: padding='same' needs stride 1, got stride {stride}")
        pads = []
        for k, d in zip(kernel, dilation):
            total = d * (k - 1)
            pads += [total // 2, total - total // 2]
        return tuple(pads)
    if isinstance(padding, (int, np.integer)):
        p = int(padding)
        pads = (p, p, p, p)
    else:
        padding = tuple(int(v) for v in padding)
        if len(padding) == 2:
            pads = (padding[0], padding[0], padding[1], padding[1])
        elif len(padding) == 4:
            pads = padding
        else:
            raise ArgumentError(f"{op}: padding must be an int, 2 or 4 ints, 'same' or 'valid', "
                                f"got {padding}")
    if any(p < 0 for p in pads):
        raise ArgumentError(f"{op}: padding can't be negative, got {padding}")
    return pads


def _check_input(x, ndim, op, what="input"):
    if not isinstance(x, Tensor):
        x = Tensor(x)
    if x.ndim != ndim:
        layout = {3: "[N, C, L]", 4: "[N, C, H, W]", 5: "[N, C, D, H, W]"}[ndim]
        raise ShapeError(f"{op}: expected a {ndim}-d {what} {layout}, got shape {list(x.shape)}")
    return x


def _batched(input, ndim, op):
    """`input` with its batch dimension, and whether it came without one (PyTorch's unbatched
    [C, L] / [C, H, W] input, whose result drops the batch dimension again)."""
    x = input if isinstance(input, Tensor) else Tensor(input)
    if x.ndim == ndim - 1:
        return reshape(x, (1,) + x.shape), True
    if x.ndim != ndim:
        layouts = {3: ("[C, L]", "[N, C, L]"), 4: ("[C, H, W]", "[N, C, H, W]"),
                   5: ("[C, D, H, W]", "[N, C, D, H, W]")}[ndim]
        raise ShapeError(f"{op}: expected a {ndim - 1}-d (unbatched) {layouts[0]} or {ndim}-d "
                         f"(batched) {layouts[1]} input, got shape {list(x.shape)}")
    return x, False


def _pooled_input(input, ndim, op):
    """A pooling's input, as `_batched`; only its batch dimension may be empty (as torch)."""
    x, unbatched = _batched(input, ndim, op)
    if 0 in x.shape[1:]:
        raise ShapeError(f"{op}: only the batch dimension of the input may be empty, got shape "
                         f"{list(x.shape[int(unbatched):])}")
    return x, unbatched


def _unbatched(y, was_unbatched):
    return reshape(y, y.shape[1:]) if was_unbatched else y


@tensor_method("conv2d")
def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """2-d cross-correlation of `input` [N, C, H, W] (or [C, H, W]) with `weight`
    [C_out, C/groups, kH, kW].

    `padding` is an int, a pair, (top, bottom, left, right), 'valid' or 'same'.
    """
    x, unbatched = _batched(input, 4, "conv2d")
    w = _check_input(weight, 4, "conv2d", "weight")
    return _unbatched(_conv2d(x, w, bias, stride, padding, dilation, groups, "conv2d"), unbatched)


def _conv2d(x, w, bias, stride, padding, dilation, groups, op):
    stride = _pair(stride, "stride", op)
    dilation = _pair(dilation, "dilation", op)
    groups = int(groups)
    co, cg, kh, kw = w.shape
    if groups < 1 or x.shape[1] % groups or co % groups:
        raise ShapeError(f"{op}: groups={groups} must divide both the input channels "
                         f"({x.shape[1]}) and the output channels ({co})")
    if x.shape[1] != cg * groups:
        raise ShapeError(f"{op}: the input has {x.shape[1]} channels but the weight "
                         f"{list(w.shape)} expects {cg * groups} (= weight.shape[1] * groups "
                         f"{groups})")
    if min(stride) < 1 or min(dilation) < 1:
        raise ArgumentError(f"{op}: stride and dilation must be positive, got {stride}, {dilation}")
    pads = _conv_pads(padding, (kh, kw), dilation, stride, op)
    for size, pad, k, d, axis in ((x.shape[2], pads[0] + pads[1], kh, dilation[0], "height"),
                                  (x.shape[3], pads[2] + pads[3], kw, dilation[1], "width")):
        if size + pad < d * (k - 1) + 1:
            raise ShapeError(f"{op}: the padded input {axis} ({size} + {pad}) is smaller than "
                             f"the dilated kernel ({d * (k - 1) + 1}); input shape "
                             f"{list(x.shape)}, weight shape {list(w.shape)}")
    require_same_float_dtype(op, x, w, ("input", "weight"))
    require_same_float_dtype(op, x, bias, ("input", "bias"))
    x, w = promote(x, w)
    y = apply(conv2d_p, x, w, stride=stride, pads=pads, dilation=dilation, groups=groups)
    if bias is not None:
        y = y + reshape(bias, (1, -1, 1, 1))
    return y


def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """1-d cross-correlation of `input` [N, C, L] (or [C, L]) with `weight` [C_out, C/groups, k]."""
    x, unbatched = _batched(input, 3, "conv1d")
    w = _check_input(weight, 3, "conv1d", "weight")
    require_same_float_dtype("conv1d", x, bias, ("input", "bias"))
    if not isinstance(padding, str):
        p = _pair(padding, "padding", "conv1d", 1)[0] if not isinstance(
            padding, (tuple, list)) or len(padding) == 1 else None
        if p is None:
            left, right = (int(v) for v in padding)
            padding = (0, 0, left, right)
        else:
            padding = (0, p)
    y = _conv2d(reshape(x, (x.shape[0], x.shape[1], 1, x.shape[2])),
                reshape(w, (w.shape[0], w.shape[1], 1, w.shape[2])), None,
                (1, _pair(stride, "stride", "conv1d", 1)[0]), padding,
                (1, _pair(dilation, "dilation", "conv1d", 1)[0]), groups, "conv1d")
    y = reshape(y, (y.shape[0], y.shape[1], y.shape[3]))
    if bias is not None:
        y = y + reshape(bias, (1, -1, 1))
    return _unbatched(y, unbatched)


def conv_transpose2d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,
                     dilation=1, output_size=None):
    """Transposed 2-d convolution (the input-gradient of conv2d) of `input` [N, C_in, H, W] (or
    [C_in, H, W]); weight [C_in, C_out/groups, kH, kW]."""
    op = "conv_transpose2d"
    y, unbatched = _batched(input, 4, op)
    w = _check_input(weight, 4, op, "weight")
    stride = _pair(stride, "stride", op)
    dilation = _pair(dilation, "dilation", op)
    padding = _pair(padding, "padding", op)
    groups = int(groups)
    if y.shape[1] != w.shape[0]:
        raise ShapeError(f"{op}: the input has {y.shape[1]} channels but the weight "
                         f"{list(w.shape)} expects {w.shape[0]} (weight.shape[0])")
    if groups < 1 or w.shape[0] % groups:
        raise ShapeError(f"{op}: groups={groups} must divide the input channels ({w.shape[0]})")
    kernel = w.shape[2:]
    base = [(y.shape[2 + a] - 1) * stride[a] - 2 * padding[a] + dilation[a] * (kernel[a] - 1) + 1
            for a in range(2)]
    if output_size is not None:
        size = tuple(int(s) for s in tuple(output_size)[-2:])
        extra = [size[a] - base[a] for a in range(2)]
    else:
        extra = list(_pair(output_padding, "output_padding", op))
    for a in range(2):
        if not 0 <= extra[a] < max(stride[a], dilation[a]):
            raise ShapeError(f"{op}: output padding {extra[a]} must be smaller than the stride "
                             f"or dilation ({stride[a]}, {dilation[a]})")
    size = (base[0] + extra[0], base[1] + extra[1])
    pads = (padding[0], padding[0], padding[1], padding[1])
    # no bias check: PyTorch accepts a bias of another floating dtype here
    require_same_float_dtype(op, y, w, ("input", "weight"))
    y, w = promote(y, w)
    x = apply(conv2d_input_p, y, w, stride=stride, pads=pads, dilation=dilation, groups=groups,
              size=size)
    if bias is not None:
        x = x + reshape(bias, (1, -1, 1, 1))
    return _unbatched(x, unbatched)


def conv_transpose1d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,
                     dilation=1):
    """Transposed 1-d convolution of `input` [N, C_in, L] (or [C_in, L]); weight
    [C_in, C_out/groups, k]."""
    y, unbatched = _batched(input, 3, "conv_transpose1d")
    w = _check_input(weight, 3, "conv_transpose1d", "weight")
    one = lambda v, name: (1, _pair(v, name, "conv_transpose1d", 1)[0])  # noqa: E731
    x = conv_transpose2d(reshape(y, (y.shape[0], y.shape[1], 1, y.shape[2])),
                         reshape(w, (w.shape[0], w.shape[1], 1, w.shape[2])), None,
                         one(stride, "stride"), (0, _pair(padding, "padding", "conv_transpose1d",
                                                          1)[0]),
                         (0, _pair(output_padding, "output_padding", "conv_transpose1d", 1)[0]),
                         groups, one(dilation, "dilation"))
    x = reshape(x, (x.shape[0], x.shape[1], x.shape[3]))
    if bias is not None:
        x = x + reshape(bias, (1, -1, 1))
    return _unbatched(x, unbatched)


# --- max pooling -----------------------------------------------------------------------
def _pool_geometry(shape, kernel, stride, pads, dilation):
    return (_out_size(shape[2], pads[0] + pads[1], kernel[0], stride[0], dilation[0]),
            _out_size(shape[3], pads[2] + pads[3], kernel[1], stride[1], dilation[1]))


def _slices(xp, kernel, stride, dilation, out_hw):
    for i, j, where in _offsets(kernel, stride, dilation, out_hw):
        yield i * kernel[1] + j, xp[where]


def _tiles(x, kernel, stride, pads, dilation, out_hw):
    """Non-overlapping windows that tile `x` (kernel == stride, no padding): for each kernel
    offset k, the view of every window's element k; None for other geometries."""
    if stride != kernel or dilation != (1, 1) or any(pads) or kernel[0] * kernel[1] > 8:
        return None
    kh, kw = kernel
    oh, ow = out_hw
    t = x[:, :, :oh * kh, :ow * kw].reshape(x.shape[0], x.shape[1], oh, kh, ow, kw)
    return [t[:, :, :, i, :, j] for i in range(kh) for j in range(kw)]


# the lowest set bit of a window's "equals the max" bits: its first argmax
_FIRST_BIT = np.array([(v & -v).bit_length() - 1 for v in range(256)], np.int32)


def _max_pool_impl(x, *, kernel, stride, pads, dilation):
    """The window maxima and, as a second output, each window's first argmax (0..kh*kw-1)."""
    out_hw = _pool_geometry(x.shape, kernel, stride, pads, dilation)
    tiles = _tiles(x, kernel, stride, pads, dilation, out_hw)
    if tiles is not None:
        best = tiles[0]
        for tile in tiles[1:]:
            best = np.maximum(best, tile)
        bits = np.equal(tiles[0], best).view(np.uint8)
        for k, tile in enumerate(tiles[1:], 1):
            bits |= np.equal(tile, best).view(np.uint8) << k
        idx = _FIRST_BIT[bits]
        if not bits.all():  # a window holding NaN (equal to nothing): its last NaN, as torch's
            for k, tile in enumerate(tiles):
                np.copyto(idx, k, where=np.isnan(tile))
        return best, idx
    best = idx = None
    for k, window in _slices(_pad(x, pads, -np.inf), kernel, stride, dilation, out_hw):
        if best is None:
            best, idx = window.copy(), np.zeros(window.shape, np.int32)
            continue
        greater = window > best
        if window.dtype.kind == "f":
            greater |= np.isnan(window)  # torch's kernel: a NaN is the max, the last one wins
        np.copyto(best, window, where=greater)
        np.copyto(idx, k, where=greater)
    return best, idx


def _overlapping(kernel, stride, dilation):
    return any(d * (k - 1) + 1 > s for k, s, d in zip(kernel, stride, dilation))


def _scatter_impl(g, idx, *, kernel, stride, pads, dilation, size):
    shape = g.shape[:2] + tuple(size)
    if _tiles(g[:, :, :0, :0], kernel, stride, pads, dilation, (0, 0)) is not None:
        # x's windows tile it: each element is g where it was its window's argmax, else 0
        xs = (np.zeros if shape[2] % kernel[0] or shape[3] % kernel[1] else np.empty)(
            (shape[0], shape[2], shape[3], shape[1]), g.dtype).transpose(0, 3, 1, 2)
        for k, tile in enumerate(_tiles(xs, kernel, stride, pads, dilation, g.shape[2:])):
            np.multiply(g, idx == k, out=tile)
        return xs
    xp = np.zeros(g.shape[:2] + (size[0] + pads[0] + pads[1], size[1] + pads[2] + pads[3]),
                  g.dtype)
    overlap = _overlapping(kernel, stride, dilation)
    for i, j, where in _offsets(kernel, stride, dilation, g.shape[2:]):
        hit = idx == i * kernel[1] + j
        if overlap:
            xp[where] += np.where(hit, g, 0)
        else:
            np.copyto(xp[where], g, where=hit)
    return _crop(xp, pads, size)


def _gather_impl(h, idx, *, kernel, stride, pads, dilation):
    out = np.zeros(idx.shape, h.dtype)
    for k, window in _slices(_pad(h, pads), kernel, stride, dilation, idx.shape[2:]):
        np.copyto(out, window, where=idx == k)
    return out


def _no_cotangent(out_bar, out, *inputs, **p):
    return None  # the argmax indices are integers: no gradient


def _scatter(g, idx, size, p):
    return apply(max_pool2d_scatter_p, g, idx, size=tuple(size), **p)


max_pool2d_p = Primitive(
    "max_pool2d", _max_pool_impl, n_outputs=2,
    vjp=lambda out_bar, out, x, **p: (_scatter(out_bar[0], out[1], x.shape[2:], p),),
    jvp=lambda tangents, out, x, **p: (apply(max_pool2d_gather_p, tangents[0], out[1], **p),
                                       None),
    batch=_pool_batch("max_pool2d"))

# scatter(g, idx): g placed at each window's argmax; gather(h, idx) reads h there. Both are
# linear in their first argument and each other's transpose.
max_pool2d_scatter_p = Primitive(
    "max_pool2d_scatter", _scatter_impl,
    vjp=(lambda out_bar, out, g, idx, *, size, **p: apply(max_pool2d_gather_p, out_bar, idx, **p),
         _no_cotangent),
    jvp=lambda tangents, out, g, idx, *, size, **p: _scatter(tangents[0], idx, size, p),
    linear=(0,), batch=_pool_batch("max_pool2d_scatter"))

max_pool2d_gather_p = Primitive(
    "max_pool2d_gather", _gather_impl,
    vjp=(lambda out_bar, out, h, idx, **p: _scatter(out_bar, idx, h.shape[2:], p),
         _no_cotangent),
    jvp=lambda tangents, out, h, idx, **p: apply(max_pool2d_gather_p, tangents[0], idx, **p),
    linear=(0,), batch=_pool_batch("max_pool2d_gather"))


def _check_window(op, kernel, stride, dilation, padding):
    for name, value, least in (("kernel_size", kernel, 1), ("stride", stride, 1),
                               ("dilation", dilation, 1), ("padding", padding, 0)):
        if value is not None and min(value) < least:
            raise ArgumentError(f"{op}: {name} must be {'positive' if least else 'non-negative'}, "
                                f"got {value[0] if len(value) == 1 else value}")


def _pool1d_args(kernel_size, stride, padding, dilation, op):
    """A 1-d pooling's arguments, checked, as the 2-d arguments of its [N, C, 1, L] input."""
    kernel, padding, dilation = (_pair(v, name, op, 1) for v, name in (
        (kernel_size, "kernel_size"), (padding, "padding"), (dilation, "dilation")))
    stride = None if stride is None or stride == [] or stride == () else _pair(stride, "stride",
                                                                                op, 1)
    _check_window(op, kernel, stride, dilation, padding)
    return ((1,) + kernel, None if stride is None else (1,) + stride, (0,) + padding,
            (1,) + dilation)


def _pooled_size(n, kernel, stride, pad, dilation, ceil_mode):
    """How many windows PyTorch's pooling takes along one dimension of size n; with
    ceil_mode the last one may reach past the padding, but must start inside the input or
    its left padding."""
    span = n + 2 * pad - dilation * (kernel - 1) - 1
    out = (-(-span // stride) if ceil_mode else span // stride) + 1
    if ceil_mode and (out - 1) * stride >= n + pad:
        out -= 1
    return out


def _pool_args(x, kernel_size, stride, padding, op, dilation=1, ceil_mode=False):
    kernel = _pair(kernel_size, "kernel_size", op)
    stride = kernel if stride is None or stride == [] or stride == () else _pair(stride, "stride",
                                                                                  op)
    dilation = _pair(dilation, "dilation", op)
    padding = _pair(padding, "padding", op)
    _check_window(op, kernel, stride, dilation, padding)
    for a in range(2):
        if padding[a] * 2 > kernel[a]:
            raise ArgumentError(f"{op}: padding {padding} must be at most half the kernel size "
                                f"{kernel}")
    pads = [padding[0], padding[0], padding[1], padding[1]]
    if ceil_mode:
        for a in range(2):
            size, eff = x.shape[2 + a] + 2 * padding[a], dilation[a] * (kernel[a] - 1) + 1
            out = _pooled_size(x.shape[2 + a], kernel[a], stride[a], padding[a], dilation[a],
                               True)
            pads[2 * a + 1] += max(0, (out - 1) * stride[a] + eff - size)
    pads = tuple(pads)
    for a in range(2):
        reach = dilation[a] * (kernel[a] - 1) + 1 - pads[2 * a] - pads[2 * a + 1]
        if type(x.shape[2 + a]) is not int and reach > 0:  # an unknown static size
            from ..static.dims import assume_not
            assume_not(x.shape[2 + a], range(reach))  # (the program refuses smaller ones)
        if x.shape[2 + a] < reach:
            raise ArgumentError(f"{op}: the kernel {kernel} is larger than the padded input "
                                f"{list(x.shape[2:])}")
    return kernel, stride, pads, dilation


@tensor_method("max_pool2d")
def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    """Maximum over kH x kW windows of `input` [N, C, H, W] or [C, H, W] (padding counts as
    -inf); with `return_indices`, also where each maximum is (its flat index into H x W, as
    PyTorch)."""
    x, unbatched = _pooled_input(input, 4, "max_pool2d")
    kernel, stride, pads, dilation = _pool_args(x, kernel_size, stride, padding, "max_pool2d",
                                                dilation, ceil_mode)
    out, argmax = apply(max_pool2d_p, x, kernel=kernel, stride=stride, pads=pads,
                        dilation=dilation)
    if not return_indices:
        return _unbatched(out, unbatched)
    oh, ow = out.shape[2:]
    k = argmax._data.astype(np.int64)
    h = np.arange(oh)[:, None] * stride[0] - pads[0] + (k // kernel[1]) * dilation[0]
    w = np.arange(ow)[None, :] * stride[1] - pads[2] + (k % kernel[1]) * dilation[1]
    return _unbatched(out, unbatched), _unbatched(Tensor._make(h * x.shape[3] + w), unbatched)


@tensor_method("max_unpool2d")
def max_unpool2d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """The inverse of max_pool2d(..., return_indices=True): `input` [N, C, h, w] placed at
    `indices` (flat into each output plane), zeros elsewhere. The output size is
    (h - 1) * stride - 2 * padding + kernel_size, or `output_size`."""
    from .indexing import scatter
    x = _check_input(input, 4, "max_unpool2d")
    kernel = _pair(kernel_size, "kernel_size", "max_unpool2d")
    stride = kernel if stride is None else _pair(stride, "stride", "max_unpool2d")
    padding = _pair(padding, "padding", "max_unpool2d")
    if output_size is None:
        size = tuple((x.shape[2 + a] - 1) * stride[a] - 2 * padding[a] + kernel[a]
                     for a in range(2))
    else:
        size = tuple(int(s) for s in tuple(output_size)[-2:])
    if tuple(indices.shape) != tuple(x.shape):
        raise ShapeError(f"max_unpool2d: indices of shape {list(indices.shape)} for an input of "
                         f"shape {list(x.shape)}; they must match")
    n, c = x.shape[:2]
    flat = reshape(indices, (n, c, -1))
    plane = size[0] * size[1]
    if flat.numel() and (int(flat._data.min()) < 0 or int(flat._data.max()) >= plane):
        raise IndexOutOfRange(f"max_unpool2d: indices must lie in [0, {plane}) for "
                              f"an output of size {list(size)}")
    out = Tensor._make(np.zeros((n, c, plane), x._data.dtype))
    return reshape(scatter(out, 2, flat, reshape(x, (n, c, -1))), (n, c) + size)


def max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    """Maximum over windows of `input` [N, C, L] or [C, L]; with `return_indices`, also where
    each maximum is (its index into L)."""
    x, unbatched = _pooled_input(input, 3, "max_pool1d")
    kernel, stride, padding, dilation = _pool1d_args(kernel_size, stride, padding, dilation,
                                                     "max_pool1d")
    pooled = max_pool2d(reshape(x, (x.shape[0], x.shape[1], 1, x.shape[2])), kernel, stride,
                        padding, dilation, ceil_mode, return_indices)
    # over a height of 1, the flat index into 1 x L is the index into L
    pooled = [_unbatched(reshape(y, (y.shape[0], y.shape[1], y.shape[3])), unbatched)
              for y in (pooled if return_indices else (pooled,))]
    return tuple(pooled) if return_indices else pooled[0]


# --- average pooling ---------------------------------------------------------------------
def _window_sum(xp, kernel, stride, out_hw):
    total = None
    for _, window in _slices(xp, kernel, stride, (1, 1), out_hw):
        total = window.copy() if total is None else np.add(total, window, out=total)
    return total


def _divisor(shape, kernel, stride, pads, count_include_pad, divisor_override, dtype):
    if divisor_override:
        return np.asarray(divisor_override, dtype)
    if count_include_pad:
        return np.asarray(kernel[0] * kernel[1], dtype)
    ones = _pad(np.ones((1, 1) + tuple(shape[2:]), dtype), pads)
    return _window_sum(ones, kernel, stride, _pool_geometry(shape, kernel, stride, pads, (1, 1)))


def _avg_pool_impl(x, *, kernel, stride, pads, count_include_pad, divisor_override):
    out_hw = _pool_geometry(x.shape, kernel, stride, pads, (1, 1))
    total = _window_sum(_pad(x, pads), kernel, stride, out_hw)
    return total / _divisor(x.shape, kernel, stride, pads, count_include_pad, divisor_override,
                            x.dtype)


def _avg_pool_t_impl(g, *, kernel, stride, pads, count_include_pad, divisor_override, size):
    shape = g.shape[:2] + tuple(size)
    g = g / _divisor(shape, kernel, stride, pads, count_include_pad, divisor_override, g.dtype)
    xp = np.zeros(shape[:2] + (size[0] + pads[0] + pads[1], size[1] + pads[2] + pads[3]), g.dtype)
    for _, _, where in _offsets(kernel, stride, (1, 1), g.shape[2:]):
        xp[where] += g
    return _crop(xp, pads, size)


avg_pool2d_p = linear(
    "avg_pool2d", _avg_pool_impl,
    lambda out_bar, x, **p: apply(avg_pool2d_transpose_p, out_bar, size=tuple(x.shape[2:]), **p),
    batch=_pool_batch("avg_pool2d"))
avg_pool2d_transpose_p = linear(
    "avg_pool2d_transpose", _avg_pool_t_impl,
    lambda out_bar, g, *, size, **p: apply(avg_pool2d_p, out_bar, **p),
    batch=_pool_batch("avg_pool2d_transpose"))


@tensor_method("avg_pool2d")
def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True, divisor_override=None, exclusive=None):
    """Mean over kH x kW windows of `input` [N, C, H, W] or [C, H, W].

    `exclusive=True` (PaddlePaddle) is `count_include_pad=False`.
    """
    if exclusive is not None:
        count_include_pad = not exclusive
    x, unbatched = _pooled_input(input, 4, "avg_pool2d")
    if ceil_mode:
        return _unbatched(_in_float(x, lambda x: _avg_pool_ceil(
            x, kernel_size, stride, padding, count_include_pad, divisor_override)), unbatched)
    kernel, stride, pads, _ = _pool_args(x, kernel_size, stride, padding, "avg_pool2d")
    if divisor_override is not None and int(divisor_override) == 0:
        raise ArgumentError("avg_pool2d: divisor_override must not be zero")
    return _unbatched(_in_float(x, lambda x: apply(
        avg_pool2d_p, x, kernel=kernel, stride=stride, pads=pads,
        count_include_pad=bool(count_include_pad),
        divisor_override=None if divisor_override is None else int(divisor_override))),
        unbatched)


def _in_float(x, pool):
    """`pool(x)`; an integer x is averaged in float64, the means truncated toward zero back to
    x's dtype (as torch's integer kernels divide)."""
    if x._data.dtype.kind not in "iu":
        return pool(x)
    from .elementwise import cast, trunc
    return cast(trunc(pool(cast(x, "float64"))), x.dtype)


def _avg_pool_ceil(x, kernel_size, stride, padding, count_include_pad, divisor_override):
    """avg_pool2d with ceil_mode=True: the window sums over x padded far enough for the last
    windows, divided as PyTorch divides: a window that reaches past the padding counts only
    the part inside it (its real entries only, without count_include_pad)."""
    kernel, stride, pads, _ = _pool_args(x, kernel_size, stride, padding, "avg_pool2d",
                                         ceil_mode=True)
    total = apply(avg_pool2d_p, x, kernel=kernel, stride=stride, pads=pads,
                  count_include_pad=True, divisor_override=1)
    if divisor_override:
        return total / int(divisor_override)
    sizes = []
    for a in range(2):
        n, pad = x.shape[2 + a], pads[2 * a]
        start = np.arange(total.shape[2 + a]) * stride[a] - pad
        end = np.minimum(start + kernel[a], n + pad)
        if not count_include_pad:
            start, end = np.maximum(start, 0), np.minimum(end, n)
        sizes.append(end - start)
    return total / Tensor._make(np.outer(*sizes).astype(x._data.dtype))


def avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True):
    x, unbatched = _pooled_input(input, 3, "avg_pool1d")
    kernel, stride, padding, _ = _pool1d_args(kernel_size, stride, padding, 1, "avg_pool1d")
    y = avg_pool2d(reshape(x, (x.shape[0], x.shape[1], 1, x.shape[2])), kernel, stride, padding,
                   ceil_mode, count_include_pad)
    return _unbatched(reshape(y, (y.shape[0], y.shape[1], y.shape[3])), unbatched)


def _adaptive_matrix(size, out, dtype):
    """Rows average the bins PyTorch's adaptive pooling uses: [floor(i*n/o), ceil((i+1)*n/o))."""
    m = np.zeros((out, size), dtype)
    for i in range(out):
        start, stop = (i * size) // out, -(-((i + 1) * size) // out)
        m[i, start:stop] = 1.0 / (stop - start)
    return m


def adaptive_sizes(output_size, spatial, op):
    """An adaptive pool's `output_size` as `spatial` entries (an int repeats, None keeps that
    dimension), checked."""
    sizes = ((output_size,) * spatial if output_size is None
             or isinstance(output_size, (int, np.integer)) else tuple(output_size))
    if len(sizes) != spatial:
        raise ArgumentError(f"{op}: output_size must be an int or {spatial} ints, got "
                            f"{output_size!r}")
    if any(s is not None and s < 0 for s in sizes):
        raise ArgumentError(f"{op}: output_size must be non-negative, got {list(sizes)}")
    return sizes


@tensor_method("adaptive_avg_pool2d")
def adaptive_avg_pool2d(input, output_size):
    """Average pooling of `input` [N, C, H, W] or [C, H, W] to a fixed output size [oH, oW]
    (None keeps that dimension)."""
    x, unbatched = _batched(input, 4, "adaptive_avg_pool2d")
    sizes = adaptive_sizes(output_size, 2, "adaptive_avg_pool2d")
    oh, ow = (x.shape[2 + a] if s is None else int(s) for a, s in enumerate(sizes))
    return _unbatched(_adaptive_avg_pool2d(x, oh, ow), unbatched)


def _adaptive_avg_pool2d(x, oh, ow):
    h, w = x.shape[2:]
    if (oh, ow) == (h, w):
        return x
    if (oh, ow) == (1, 1):
        from .reduce import mean
        return mean(x, axis=(2, 3), keepdims=True)
    if oh and ow and h % oh == 0 and w % ow == 0:
        return avg_pool2d(x, (h // oh, w // ow))
    from .linalg import matmul
    rows = Tensor._make(_adaptive_matrix(h, oh, x._data.dtype))
    cols = Tensor._make(_adaptive_matrix(w, ow, x._data.dtype).T.copy())
    return matmul(matmul(rows, x), cols)


def adaptive_avg_pool1d(input, output_size):
    x, unbatched = _batched(input, 3, "adaptive_avg_pool1d")
    (size,) = adaptive_sizes(output_size, 1, "adaptive_avg_pool1d")
    y = adaptive_avg_pool2d(reshape(x, (x.shape[0], x.shape[1], 1, x.shape[2])),
                            (1, x.shape[2] if size is None else int(size)))
    return _unbatched(reshape(y, (y.shape[0], y.shape[1], y.shape[3])), unbatched)



# --- 3-d convolution and pooling: the 2-d ops over depth slices ------------------------------
# The depth of [N, C, D, H, W] is folded into the batch, the 2-d op runs once per kernel depth
# offset, and the results are summed over the offsets (placed, for the transposed
# convolution): Python loops run over the kernel depth only.
def _fold_depth(x):
    """[N, C, D, H, W] as [N * D, C, H, W]."""
    from .shape import permute
    n, c, d = x.shape[:3]
    return reshape(permute(x, (0, 2, 1, 3, 4)), (n * d, c) + x.shape[3:])


def _unfold_depth(x, n, d):
    """[N * D, C, H, W] back to [N, C, D, H, W]."""
    from .shape import permute
    return permute(reshape(x, (n, d) + x.shape[1:]), (0, 2, 1, 3, 4))


def _depth_slices(x, start, count, step):
    from .indexing import getitem
    return getitem(x, (slice(None), slice(None), slice(start, start + (count - 1) * step + 1,
                                                         step)))


def conv3d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """3-d convolution of `input` [N, C, D, H, W] (or [C, D, H, W]) with `weight`
    [C_out, C/groups, kD, kH, kW] (PyTorch's cross-correlation); `padding` an int, 3 ints,
    'same' or 'valid'."""
    x, unbatched = _batched(input, 5, "conv3d")
    return _unbatched(_conv3d(x, weight, bias, stride, padding, dilation, groups), unbatched)


def _conv3d(x, weight, bias, stride, padding, dilation, groups):
    from .shape import pad
    op = "conv3d"
    w = _check_input(weight, 5, op, "weight")
    require_same_float_dtype(op, x, w, ("input", "weight"))
    require_same_float_dtype(op, x, bias, ("input", "bias"))
    stride, dilation = _pair(stride, "stride", op, 3), _pair(dilation, "dilation", op, 3)
    if padding == "valid":
        padding = 0
    if padding == "same":
        if stride != (1, 1, 1):
            raise ArgumentError(f"{op}: padding='same' needs stride 1, got stride {stride}")
        total = [dilation[a] * (w.shape[2 + a] - 1) for a in range(3)]
        pads = [(t // 2, t - t // 2) for t in total]
    else:
        pads = [(p, p) for p in _pair(padding, "padding", op, 3)]
    if any(p < 0 for p, _ in pads):
        raise ArgumentError(f"{op}: padding can't be negative, got {padding}")
    if x.shape[1] != w.shape[1] * int(groups):
        raise ShapeError(f"{op}: the input has {x.shape[1]} channels but the weight "
                         f"{list(w.shape)} expects {w.shape[1] * int(groups)} (= weight.shape[1] "
                         f"* groups {groups})")
    x = pad(x, [v for pair in reversed(pads) for v in pair])
    kd = w.shape[2]
    depth = _out_size(x.shape[2], 0, kd, stride[0], dilation[0])
    if depth <= 0:
        raise ShapeError(f"{op}: the padded input depth ({x.shape[2]}) is smaller than the "
                         f"dilated kernel ({dilation[0] * (kd - 1) + 1})")
    total = None
    for k in range(kd):
        planes = _fold_depth(_depth_slices(x, k * dilation[0], depth, stride[0]))
        y = conv2d(planes, w[:, :, k], None, stride[1:], 0, dilation[1:], groups)
        total = y if total is None else total + y
    out = _unfold_depth(total, x.shape[0], depth)
    return out if bias is None else out + reshape(bias, (1, -1, 1, 1, 1))


def conv_transpose3d(input, weight, bias=None, stride=1, padding=0, output_padding=0,
                     groups=1, dilation=1, output_size=None):
    """Transposed 3-d convolution (the input-gradient of conv3d) of `input` [N, C_in, D, H, W]
    (or [C_in, D, H, W]); weight [C_in, C_out/groups, kD, kH, kW]."""
    y, unbatched = _batched(input, 5, "conv_transpose3d")
    return _unbatched(_conv_transpose3d(y, weight, bias, stride, padding, output_padding,
                                        groups, dilation, output_size), unbatched)


def _conv_transpose3d(y, weight, bias, stride, padding, output_padding, groups, dilation,
                      output_size):
    op = "conv_transpose3d"
    w = _check_input(weight, 5, op, "weight")
    require_same_float_dtype(op, y, w, ("input", "weight"))
    require_same_float_dtype(op, y, bias, ("input", "bias"))
    stride, dilation = _pair(stride, "stride", op, 3), _pair(dilation, "dilation", op, 3)
    padding = _pair(padding, "padding", op, 3)
    if y.shape[1] != w.shape[0]:
        raise ShapeError(f"{op}: the input has {y.shape[1]} channels but the weight "
                         f"{list(w.shape)} expects {w.shape[0]} (weight.shape[0])")
    base = [(y.shape[2 + a] - 1) * stride[a] - 2 * padding[a] + dilation[a] * (w.shape[2 + a] - 1)
            + 1 for a in range(3)]
    extra = ([int(s) - b for s, b in zip(tuple(output_size)[-3:], base)]
             if output_size is not None else list(_pair(output_padding, "output_padding", op, 3)))
    for a in range(3):
        if not 0 <= extra[a] < max(stride[a], dilation[a]):
            raise ShapeError(f"{op}: output padding {extra[a]} must be smaller than the stride "
                             f"or dilation ({stride[a]}, {dilation[a]})")
    n, depth = y.shape[0], y.shape[2]
    full = (depth - 1) * stride[0] + dilation[0] * (w.shape[2] - 1) + 1 + extra[0]
    planes = _fold_depth(y)
    out = None
    for k in range(w.shape[2]):
        x = conv_transpose2d(planes, w[:, :, k], None, stride[1:], padding[1:], extra[1:],
                             groups, dilation[1:])
        x = _unfold_depth(x, n, depth)
        at = np.arange(depth) * stride[0] + k * dilation[0]
        if out is None:
            out = Tensor._make(np.zeros(x.shape[:2] + (full,) + x.shape[3:], x._data.dtype))
        out = out.index_add(2, at, x)
    out = _depth_slices(out, padding[0], full - 2 * padding[0], 1)
    return out if bias is None else out + reshape(bias, (1, -1, 1, 1, 1))


def avg_pool3d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True, divisor_override=None):
    """Mean over kD x kH x kW windows of `input` [N, C, D, H, W] (or [C, D, H, W])."""
    x, unbatched = _pooled_input(input, 5, "avg_pool3d")
    return _unbatched(_in_float(x, lambda x: _avg_pool3d(
        x, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override)),
        unbatched)


def _avg_pool3d(x, kernel_size, stride, padding, ceil_mode, count_include_pad,
                divisor_override):
    from .shape import pad
    op = "avg_pool3d"
    if divisor_override is not None and int(divisor_override) == 0:
        raise ArgumentError(f"{op}: divisor_override must not be zero")
    kernel = _pair(kernel_size, "kernel_size", op, 3)
    stride = kernel if stride is None else _pair(stride, "stride", op, 3)
    padding = _pair(padding, "padding", op, 3)
    if any(2 * p > k for p, k in zip(padding, kernel)):
        raise ArgumentError(f"{op}: padding {padding} must be at most half the kernel size "
                            f"{kernel}")
    shape = x.shape[2:]
    out = [_pooled_size(n, k, s, p, 1, ceil_mode)
           for n, k, s, p in zip(shape, kernel, stride, padding)]
    if min(out) <= 0:
        raise ShapeError(f"{op}: the kernel {kernel} is larger than the padded input "
                         f"{list(shape)}")
    # the right padding that ceil_mode's last windows reach into (they sum zeros there)
    right = [p + max(0, (o - 1) * s + k - n - 2 * p)
             for n, k, s, p, o in zip(shape, kernel, stride, padding, out)]
    t = pad(x, (0, 0, 0, 0, padding[0], right[0]))
    planes = apply(avg_pool2d_p, _fold_depth(t), kernel=kernel[1:], stride=stride[1:],
                   pads=(padding[1], right[1], padding[2], right[2]),
                   count_include_pad=True, divisor_override=1)
    planes = _unfold_depth(planes, t.shape[0], t.shape[2])
    total = None
    for k in range(kernel[0]):
        part = _depth_slices(planes, k, out[0], stride[0])
        total = part if total is None else total + part
    if divisor_override:
        return total / int(divisor_override)
    # PyTorch's divisor: the window's part inside the padded input (inside the input
    # itself, without count_include_pad)
    sizes = []
    for n, k, s, p, o in zip(shape, kernel, stride, padding, out):
        start = np.arange(o) * s - p
        end = np.minimum(start + k, n + p)
        if not count_include_pad:
            start, end = np.maximum(start, 0), np.minimum(end, n)
        sizes.append(end - start)
    divisor = sizes[0][:, None, None] * sizes[1][None, :, None] * sizes[2][None, None, :]
    return total / Tensor._make(divisor.astype(x._data.dtype))
