"""`out=` on the public functions: which ones take it, and the wrapper that adds it; the
wrapper, and one for the functions that take no `out=`, also take PyTorch's keyword names for
the leading arguments (`torch.sum(input=x, dim=1)`, `torch.pow(x, exponent=2)`)."""
import functools
import inspect

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


INPUT_FUNCTIONS = (
    "reshape transpose narrow flatten squeeze unsqueeze permute flip roll argsort masked_fill "
    "chunk repeat_interleave tile diagonal clone full_like zeros_like ones_like empty_like "
    "rand_like randn_like movedim moveaxis swapaxes swapdims t unbind select index_add "
    "index_copy index_fill scatter scatter_add scatter_reduce count_nonzero var_mean std_mean "
    "softmax log_softmax isclose allclose equal numel flatten unflatten tensor_split "
    "trace rot90 fliplr flipud triu_indices").split()


# PyTorch's keyword names for the leading arguments, where fluxgrad's functions name them
# otherwise (x, y, ...): each found in a call is passed by position instead
TORCH_NAMES = {"where": ("condition", "input", "other")}
LEADING = ("input", ("other", "exponent", "mat2", "vec", "shape", "dims"))


def _leading_names(fn, name, names=None):
    """For each leading position, the torch keywords that mean it: those fn doesn't take by
    keyword at another position."""
    try:
        params = list(inspect.signature(fn).parameters.values())
    except (TypeError, ValueError):
        params = []
    keyword = (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)
    own = {p.name: i for i, p in enumerate(params) if p.kind in keyword}
    names = names or TORCH_NAMES.get(name, LEADING)
    return [tuple(k for k in ((n,) if isinstance(n, str) else n)
                  if own.get(k, position) == position) for position, n in enumerate(names)]


def _positional(args, kwargs, leading):
    for position, keys in enumerate(leading):
        for key in keys:
            if key in kwargs and len(args) == position:
                args = args + (kwargs.pop(key),)
    return args


def accepting_out(fn, name):
    """`fn` with PyTorch's keyword `out=` (the result is written into `out`, which is returned)
    and its keyword names of the leading arguments (`input=`, `other=`, ...)."""
    leading = _leading_names(fn, name)

    @functools.wraps(fn)
    def with_out(*args, out=None, **kwargs):
        if kwargs:
            args = _positional(args, kwargs, leading)
        return written(fn(*args, **kwargs), out, name)
    return with_out


def accepting_torch_keywords(fn, name=None, names=None):
    """`fn` with PyTorch's keyword names of its leading arguments (`input=`, `other=`, ...,
    or `names`, one entry per position)."""
    leading = _leading_names(fn, name or fn.__name__, names)

    @functools.wraps(fn)
    def with_keywords(*args, **kwargs):
        if kwargs:
            args = _positional(args, kwargs, leading)
        return fn(*args, **kwargs)
    return with_keywords


def public_with_out(namespace):
    """The functions of OUT_FUNCTIONS found in `namespace`, each accepting `out=` and
    `input=`, and those of INPUT_FUNCTIONS, accepting `input=`."""
    wrapped = {name: accepting_torch_keywords(namespace[name], name)
               for name in INPUT_FUNCTIONS if name in namespace}
    wrapped.update({name: accepting_out(namespace[name], name) for name in OUT_FUNCTIONS
                    if name in namespace})
    return wrapped
