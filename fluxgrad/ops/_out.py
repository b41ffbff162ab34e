"""`out=` on the public functions: which ones take it, and the wrapper that adds it."""
import functools

from .._core.outputs import written

OUT_FUNCTIONS = (
    "add sub subtract mul multiply div divide true_divide matmul mm bmm mv dot outer pow exp log "
    "log2 log10 log1p expm1 sqrt rsqrt abs neg negative sin cos tan tanh sigmoid asin acos atan "
    "atan2 sinh cosh floor ceil round trunc sign clamp clip sum mean prod cumsum cumprod cat "
    "concat stack where maximum minimum max min sort topk argmax argmin remainder fmod logsumexp "
    "norm std var square reciprocal erf lerp kron cross tril triu diag gather index_select "
    "masked_select nonzero amax amin all any logical_and logical_or logical_not eq ne lt le gt "
    "ge floor_divide hstack vstack dstack column_stack absolute exp2 asinh acosh atanh arcsin "
    "arccos arctan arcsinh arccosh arctanh sgn frac fix erfc erfinv lgamma digamma i0 sinc "
    "deg2rad rad2deg nan_to_num logit signbit arctan2 hypot copysign xlogy fmax fmin logaddexp "
    "logaddexp2 float_power nextafter ldexp logical_xor heaviside greater less greater_equal "
    "less_equal not_equal bitwise_and bitwise_or bitwise_xor bitwise_not gcd lcm nansum nanmean "
    "quantile nanquantile logcumsumexp cummax cummin msort inner addmm addmv addbmm baddbmm addr "
    "tensordot clamp_min clamp_max addcmul addcdiv take take_along_dim diff histc mvlgamma "
    "polygamma median mode kthvalue aminmax").split()


def accepting_out(fn, name):
    """`fn` with PyTorch's keyword `out=` (the result is written into `out`, which is returned)."""
    @functools.wraps(fn)
    def with_out(*args, out=None, **kwargs):
        return written(fn(*args, **kwargs), out, name)
    return with_out


def public_with_out(namespace):
    """The functions of OUT_FUNCTIONS found in `namespace`, each accepting `out=`."""
    return {name: accepting_out(namespace[name], name) for name in OUT_FUNCTIONS
            if name in namespace}
