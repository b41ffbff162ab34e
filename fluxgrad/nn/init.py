"""Weight initialisers: fill a tensor in place (outside the graph) from fluxgrad's generator.

Names follow PyTorch (`kaiming_uniform_`, ...); the spellings without the
trailing underscore are aliases.
"""
import math

import numpy as np

from ..creation import get_rng

__all__ = ["calculate_gain", "uniform_", "normal_", "constant_", "zeros_", "ones_", "eye_",
           "dirac_", "xavier_uniform_", "xavier_normal_", "kaiming_uniform_", "kaiming_normal_",
           "trunc_normal_", "orthogonal_", "sparse_", "uniform", "normal", "constant", "zeros",
           "ones", "xavier_uniform", "xavier_normal", "kaiming_uniform", "kaiming_normal", "orthogonal"]


def calculate_gain(nonlinearity, param=None):
    """The recommended gain for an activation (PyTorch's table)."""
    linear = ("linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d",
              "conv_transpose3d", "sigmoid")
    if nonlinearity in linear:
        return 1  # an int, as PyTorch's (it prints as 1)
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        slope = 0.01 if param is None else float(param)
        return math.sqrt(2.0 / (1 + slope ** 2))
    if nonlinearity == "selu":
        return 3.0 / 4
    raise ValueError(f"Unsupported nonlinearity {nonlinearity}")


def _fill(tensor, values):
    arr = tensor._data
    np.copyto(arr, np.asarray(values).reshape(arr.shape), casting="unsafe")
    tensor._bump_version()
    return tensor


def fan_in_and_fan_out(tensor):
    shape = tensor.shape
    if len(shape) < 2:
        raise ValueError(f"fan in/out need a tensor of at least 2 dimensions, got shape "
                         f"{list(shape)}")
    receptive = int(np.prod(shape[2:])) if len(shape) > 2 else 1
    return shape[1] * receptive, shape[0] * receptive


def _fan(tensor, mode):
    fan_in, fan_out = fan_in_and_fan_out(tensor)
    if mode not in ("fan_in", "fan_out"):
        raise ValueError(f"mode must be 'fan_in' or 'fan_out', got {mode!r}")
    return fan_in if mode == "fan_in" else fan_out


def _affine_sample(tensor, sampler, scale, shift):
    """Fill with `sampler` draws * scale + shift. A contiguous float32/float64 buffer takes the
    draws directly (no temporary array and no copy); other tensors get draws in their own
    float32/float64 dtype (float64 for the rest), copied in."""
    arr = tensor._data
    native = arr.dtype in (np.float32, np.float64)
    if native and arr.flags.c_contiguous and arr.flags.writeable:
        sampler(dtype=arr.dtype, out=arr)
        arr *= scale
        arr += shift
        tensor._bump_version()
        return tensor
    values = sampler(tensor.shape, dtype=arr.dtype if native else np.float64)
    values *= scale
    values += shift
    return _fill(tensor, values)


def uniform_(tensor, a=0.0, b=1.0):
    return _affine_sample(tensor, get_rng().random, b - a, a)


def normal_(tensor, mean=0.0, std=1.0):
    return _affine_sample(tensor, get_rng().standard_normal, std, mean)


def trunc_normal_(tensor, mean=0.0, std=1.0, a=-2.0, b=2.0):
    rng = get_rng()
    values = rng.normal(mean, std, tensor.shape)
    bad = (values < a) | (values > b)
    while bad.any():
        values[bad] = rng.normal(mean, std, int(bad.sum()))
        bad = (values < a) | (values > b)
    return _fill(tensor, values)


def constant_(tensor, val):
    return _fill(tensor, np.full(tensor.shape, val))


def zeros_(tensor):
    return constant_(tensor, 0.0)


def ones_(tensor):
    return constant_(tensor, 1.0)


def eye_(tensor):
    if tensor.ndim != 2:
        raise ValueError(f"eye_ needs a 2-d tensor, got shape {list(tensor.shape)}")
    return _fill(tensor, np.eye(*tensor.shape))


def dirac_(tensor, groups=1):
    """A 3-, 4- or 5-d convolution weight that passes its input through (per group: output
    channel d reads input channel d at the kernel's centre), as torch.nn.init.dirac_."""
    if not 3 <= tensor.ndim <= 5:
        raise ValueError(f"dirac_ needs a 3-, 4- or 5-d tensor, got shape {list(tensor.shape)}")
    if tensor.shape[0] % groups:
        raise ValueError(f"dirac_: dim 0 ({tensor.shape[0]}) must be divisible by groups "
                         f"({groups})")
    per_group = tensor.shape[0] // groups
    values = np.zeros(tensor.shape)
    centre = tuple(k // 2 for k in tensor.shape[2:])
    for g in range(groups):
        for d in range(min(per_group, tensor.shape[1])):
            values[(g * per_group + d, d) + centre] = 1
    return _fill(tensor, values)


def xavier_uniform_(tensor, gain=1.0):
    fan_in, fan_out = fan_in_and_fan_out(tensor)
    bound = gain * math.sqrt(6.0 / (fan_in + fan_out))
    return uniform_(tensor, -bound, bound)


def xavier_normal_(tensor, gain=1.0):
    fan_in, fan_out = fan_in_and_fan_out(tensor)
    return normal_(tensor, 0.0, gain * math.sqrt(2.0 / (fan_in + fan_out)))


def kaiming_uniform_(tensor, a=0, mode="fan_in", nonlinearity="leaky_relu"):
    if tensor.numel() == 0:  # nothing to fill (a Linear(0, n) as lazy layers build)
        return tensor
    std = calculate_gain(nonlinearity, a) / math.sqrt(_fan(tensor, mode))
    bound = math.sqrt(3.0) * std
    return uniform_(tensor, -bound, bound)


def kaiming_normal_(tensor, a=0, mode="fan_in", nonlinearity="leaky_relu"):
    if tensor.numel() == 0:
        return tensor
    std = calculate_gain(nonlinearity, a) / math.sqrt(_fan(tensor, mode))
    return normal_(tensor, 0.0, std)


def orthogonal_(tensor, gain=1.0):
    """A (semi-)orthogonal matrix, from the QR decomposition of a Gaussian matrix."""
    if tensor.ndim < 2:
        raise ValueError(f"orthogonal_ needs at least 2 dimensions, got shape {list(tensor.shape)}")
    rows = tensor.shape[0]
    cols = tensor.numel() // rows
    flat = get_rng().standard_normal((rows, cols))
    if rows < cols:
        flat = flat.T
    q, r = np.linalg.qr(flat)
    q = q * np.sign(np.diag(r))
    if rows < cols:
        q = q.T
    return _fill(tensor, gain * q)


def sparse_(tensor, sparsity, std=0.01):
    """A 2-d tensor of N(0, std) draws with ceil(sparsity * rows) zeros in each column, at
    random rows (Martens, 2010)."""
    if tensor.ndim != 2:
        raise ValueError(f"sparse_ needs a 2-d tensor, got shape {list(tensor.shape)}")
    rows, cols = tensor.shape
    rng = get_rng()
    values = rng.normal(0.0, std, (rows, cols))
    zeros_per_column = int(math.ceil(sparsity * rows))
    for col in range(cols):
        values[rng.permutation(rows)[:zeros_per_column], col] = 0
    return _fill(tensor, values)


# PyTorch's private names, which Linear/Conv reset_parameters recipes copied into user code call
_calculate_fan_in_and_fan_out, _calculate_correct_fan = fan_in_and_fan_out, _fan
uniform, normal, constant, zeros, ones = uniform_, normal_, constant_, zeros_, ones_
xavier_uniform, xavier_normal = xavier_uniform_, xavier_normal_
kaiming_uniform, kaiming_normal, orthogonal = kaiming_uniform_, kaiming_normal_, orthogonal_
