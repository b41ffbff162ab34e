"""Winograd F(2x2, 3x3): the array work (impl only) of 3x3 stride-1 convolutions, fewer multiplies.

Each 2x2 block of outputs is computed from the 4x4 tile of padded input around it (tiles at
stride 2) as  Y = A^T [(G g G^T) . (B^T d B)] A  (Lavin & Gray, 2015), where the sum over
input channels of the elementwise products is 16 matmuls [tiles, C] @ [C, C_out]: 16
multiplies per 4 outputs where the direct convolution takes 36. The weight gradient is that
formula's chain rule: G^T [sum over tiles of (B^T d B) . (A g A^T)] G, 16 matmuls
[C, tiles] @ [tiles, C_out]. The transforms are adds and subtracts over whole arrays, the
tiles a block of images at a time with buffers allocated once per call.

Arrays follow fluxgrad/ops/conv.py: activations [N, C, H, W] with channels-last memory.
Plain functions of arrays only (no classes), so that `Compiled.save` can write them out as
standalone NumPy source (fluxgrad/jit/export.py).
"""
import numpy as np

__all__ = ["winograd_applies", "conv3x3", "conv3x3_weight"]

# G (4x3) maps a 3-tap filter to its 4 Winograd points; as a Kronecker product, 3x3 to 4x4.
# The 4 column points b are kept in the order (0, 3, 1, 2): then points 0 and 3 of a tile
# are one subtraction of two whole rows (see _input_tiles), and each half is one matmul.
_G = np.array([[1.0, 0.0, 0.0], [0.5, 0.5, 0.5], [0.5, -0.5, 0.5], [0.0, 0.0, 1.0]])
_G2 = np.kron(_G, _G).reshape(4, 4, 9)[:, [0, 3, 1, 2]].reshape(16, 9)

# Below this many channels in or out the matmuls are too thin to repay the transforms
# (measured: a 3-channel first layer is as fast with im2col, its 3-channel input gradient
# 3.4x slower with Winograd).
MIN_CHANNELS = 16

# A block of images whose 16 tile or product matrices (the wider of the two) take about this
# many bytes: it stays in a 1 MiB L2 cache between the transforms and the matmuls (measured
# on the small CNN's layers: 3 to 6 images a block, 1.3 to 2x faster than 16).
_BLOCK_BYTES = 3 << 18


def winograd_applies(x, w_shape, stride, dilation, groups):
    """Whether conv3x3 computes the convolution of `x` with a weight of `w_shape` and
    measures faster than im2col: 3x3, stride 1, dilation 1, one group, floating point, at
    least MIN_CHANNELS channels in and out."""
    co, c, kh, kw = w_shape
    return ((kh, kw) == (3, 3) and tuple(stride) == (1, 1) and tuple(dilation) == (1, 1)
            and groups == 1 and min(c, co) >= MIN_CHANNELS and x.shape[0] > 0
            and x.dtype.kind == "f" and x.dtype.itemsize >= 4)


def _tiles(size):
    return -(-size // 2)


def image_blocks(n, image_bytes, budget):
    """Slices of n images, each block taking about `budget` bytes (at least one image), and
    the images in a full block (im2col's blocks in conv.py too)."""
    step = max(1, min(n, budget // max(1, image_bytes)))
    return step, [slice(start, min(n, start + step)) for start in range(0, n, step)]


def _tile_buffers(x, ty, tx, step):
    """The work arrays of `_input_tiles` for blocks of `step` images of `x`, allocated once
    per call: the padded block, its row transform, the two halves of its tiles."""
    c = x.shape[1]
    return (np.zeros((step, 2 * ty + 2, 2 * tx + 2, c), x.dtype),
            np.empty((4, step, ty, 2 * tx + 2, c), x.dtype),
            np.empty((4, step, ty, 2 * tx, c), x.dtype),
            np.empty((4, 2, step, ty, tx, c), x.dtype))


def _input_tiles(x, pads, images, buffers):
    """B^T d B of every 4x4 tile (stride 2) of `x[images]` zero-padded by `pads` (top,
    bottom, left, right), as two [4, 2, tiles, C] arrays: rows a, columns (0, 3) and (1, 2)."""
    m = images.stop - images.start
    xp, t, v03, v12 = buffers[0][:m], buffers[1][:, :m], buffers[2][:, :m], buffers[3][:, :, :m]
    ty, tx, c = t.shape[2], v12.shape[4], xp.shape[3]
    pt, pl = pads[0], pads[2]
    hh, ww = min(x.shape[2], xp.shape[1] - pt), min(x.shape[3], xp.shape[2] - pl)
    xp[:, pt:pt + hh, pl:pl + ww] = x[images, :, :hh, :ww].transpose(0, 2, 3, 1)
    # B^T = [[1, 0, -1, 0], [0, 1, 1, 0], [0, -1, 1, 0], [0, 1, 0, -1]]: rows, then columns
    rows = xp.reshape(m, ty + 1, 2, 2 * tx + 2, c)
    d0, d1, d2, d3 = rows[:, :-1, 0], rows[:, :-1, 1], rows[:, 1:, 0], rows[:, 1:, 1]
    np.subtract(d0, d2, out=t[0])
    np.add(d1, d2, out=t[1])
    np.subtract(d2, d1, out=t[2])
    np.subtract(d1, d3, out=t[3])
    # column points 0 and 3 of tile k are columns 2k and 2k + 1 of t[:-2] - t[2:]
    np.subtract(t[:, :, :, :2 * tx], t[:, :, :, 2:], out=v03)
    cols = t.reshape(4, m, ty, tx + 1, 2, c)
    np.add(cols[:, :, :, :-1, 1], cols[:, :, :, 1:, 0], out=v12[:, 0])
    np.subtract(cols[:, :, :, 1:, 0], cols[:, :, :, :-1, 1], out=v12[:, 1])
    tiles = m * ty * tx
    return (v03.reshape(4, m, ty, tx, 2, c).transpose(0, 4, 1, 2, 3, 5).reshape(4, 2, tiles, c),
            v12.reshape(4, 2, tiles, c))


def conv3x3(x, w, pads):
    """The cross-correlation of `x` [N, C, H, W] zero-padded by `pads` (top, bottom, left,
    right) with `w` [C_out, C, 3, 3]: [N, C_out, H', W'], channels-last in memory."""
    n, c, h, wd = x.shape
    co = w.shape[0]
    ho, wo = h + pads[0] + pads[1] - 2, wd + pads[2] + pads[3] - 2
    ty, tx = _tiles(ho), _tiles(wo)
    dtype = np.result_type(x, w)
    x = x.astype(dtype, copy=False)
    w9 = w.astype(dtype, copy=False).transpose(2, 3, 1, 0).reshape(9, c * co)
    u = (_G2.astype(dtype) @ w9).reshape(4, 4, c, co)  # G g G^T
    step, blocks = image_blocks(n, 16 * ty * tx * max(c, co) * x.itemsize, _BLOCK_BYTES)
    buffers = _tile_buffers(x, ty, tx, step)
    products = np.empty((4, 4, step * ty * tx, co), dtype)
    s = np.empty((2, 4, step, ty, tx, co), dtype)
    out = np.empty((n, ty, 2, tx, 2, co), dtype)
    for images in blocks:
        m = images.stop - images.start
        v03, v12 = _input_tiles(x, pads, images, buffers)
        p = products[:, :, :v03.shape[2]]
        np.matmul(v03, u[:, :2], out=p[:, :2])
        np.matmul(v12, u[:, 2:], out=p[:, 2:])
        p = p.reshape(4, 4, m, ty, tx, co)
        # A^T = [[1, 1, 1, 0], [0, 1, -1, -1]]: rows into s, then columns (in the order
        # 0, 3, 1, 2) into the output
        sm = s[:, :, :m]
        np.add(p[0], p[1], out=sm[0])
        sm[0] += p[2]
        np.subtract(p[1], p[2], out=sm[1])
        sm[1] -= p[3]
        o = out[images].transpose(2, 4, 0, 1, 3, 5)
        np.add(sm[:, 0], sm[:, 2], out=o[:, 0])
        o[:, 0] += sm[:, 3]
        np.subtract(sm[:, 2], sm[:, 3], out=o[:, 1])
        o[:, 1] -= sm[:, 1]
    out = out.reshape(n, 2 * ty, 2 * tx, co)
    if (2 * ty, 2 * tx) != (ho, wo):
        out = np.ascontiguousarray(out[:, :ho, :wo])
    return out.transpose(0, 3, 1, 2)


def conv3x3_weight(x, g, pads):
    """The weight gradient of conv3x3: for the cotangent `g` [N, C_out, H', W'] of
    conv3x3(x, w, pads), the [C_out, C, 3, 3] cotangent of w."""
    n, c = x.shape[:2]
    co, ho, wo = g.shape[1:]
    ty, tx = _tiles(ho), _tiles(wo)
    dtype = np.result_type(x, g)
    x = x.astype(dtype, copy=False)
    step, blocks = image_blocks(n, 16 * ty * tx * max(c, co) * x.itemsize, _BLOCK_BYTES)
    buffers = _tile_buffers(x, ty, tx, step)
    gt = g.transpose(0, 2, 3, 1)
    if (2 * ty, 2 * tx) != (ho, wo):  # the outputs past the edge get a zero cotangent
        even = np.zeros((n, 2 * ty, 2 * tx, co), dtype)
        even[:, :ho, :wo] = gt
        gt = even
    r = np.empty((4, step, ty, tx, 2, co), dtype)
    z = np.empty((4, 4, step, ty, tx, co), dtype)
    u_bar = np.zeros((4, 4, c, co), dtype)
    part = np.empty((4, 4, c, co), dtype)
    for images in blocks:
        m = images.stop - images.start
        v03, v12 = _input_tiles(x, pads, images, buffers)
        # A g A^T, A = [[1, 0], [1, 1], [1, -1], [0, -1]]: rows, then columns (in the order
        # 0, 3, 1, 2)
        q = gt[images].reshape(m, ty, 2, tx, 2, co)
        rm, zm = r[:, :m], z[:, :, :m]
        rm[0] = q[:, :, 0]
        np.add(q[:, :, 0], q[:, :, 1], out=rm[1])
        np.subtract(q[:, :, 0], q[:, :, 1], out=rm[2])
        np.negative(q[:, :, 1], out=rm[3])
        zm[:, 0] = rm[..., 0, :]
        np.negative(rm[..., 1, :], out=zm[:, 1])
        np.add(rm[..., 0, :], rm[..., 1, :], out=zm[:, 2])
        np.subtract(rm[..., 0, :], rm[..., 1, :], out=zm[:, 3])
        zm = zm.reshape(4, 4, v03.shape[2], co)
        np.matmul(v03.transpose(0, 1, 3, 2), zm[:, :2], out=part[:, :2])
        np.matmul(v12.transpose(0, 1, 3, 2), zm[:, 2:], out=part[:, 2:])
        u_bar += part
    # G^T u_bar G, each (C, C_out) pair's 4x4 to 3x3
    w_bar = (u_bar.reshape(16, c * co).T @ _G2.astype(dtype)).reshape(c, co, 3, 3)
    return w_bar.transpose(1, 0, 2, 3)
