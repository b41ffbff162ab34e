"""`fluxgrad.ParamAttr`: PaddlePaddle's description of how a layer creates a parameter.

`ParamAttr(name=None, initializer=None, learning_rate=1.0, regularizer=None, trainable=True,
need_clip=True)`, given to a layer as `weight_attr=` / `bias_attr=` (nn.Linear, nn.Conv*,
nn.Embedding, static.nn.fc): `initializer` fills the new parameter (see
`nn.initializer`; None: the layer's own default), `name` names it, `trainable=False` freezes
it. `learning_rate` (a factor on the optimizer's) and `regularizer` (in place of the
optimizer's `weight_decay`) are kept per parameter here (`attr_of`) and read by the
optimizers' steps (`adjusted`). A layer also takes, as Paddle's do: a str (the name), an
initializer alone, and `bias_attr=False` (no bias). `need_clip=False` keeps the
parameter's gradient out of an optimizer's `grad_clip=` (nn.ClipGradByNorm /
ClipGradByGlobalNorm / ClipGradByValue: neither clipped nor counted in the global norm),
as in PaddlePaddle (`needs_clip`).
"""
import weakref

from ._core.tensor import Tensor

__all__ = ["ParamAttr"]

# id(parameter) -> (weak reference, its ParamAttr), for the ones with a learning rate,
# regularizer or need_clip=False of their own (by identity: == on tensors is elementwise)
_attrs = {}


class ParamAttr:
    def __init__(self, name=None, initializer=None, learning_rate=1.0, regularizer=None,
                 trainable=True, do_model_average=False, need_clip=True):
        from .regularizer import WeightDecayRegularizer
        if name is not None and not isinstance(name, str):
            raise TypeError(f"ParamAttr: name must be a str, got {type(name).__name__}")
        if initializer is not None and not callable(initializer):
            raise TypeError(f"ParamAttr: initializer must be an initializer such as "
                            f"fluxgrad.nn.initializer.XavierUniform(), got "
                            f"{type(initializer).__name__}")
        if isinstance(learning_rate, bool) or not isinstance(learning_rate, (int, float)) or \
                not learning_rate >= 0:
            raise ValueError(f"ParamAttr: learning_rate must be a non-negative number (a factor "
                             f"on the optimizer's), got {learning_rate!r}")
        if regularizer is not None and not isinstance(regularizer, WeightDecayRegularizer):
            raise TypeError(f"ParamAttr: regularizer must be fluxgrad.regularizer.L1Decay or "
                            f"L2Decay, got {type(regularizer).__name__}")
        self.name, self.initializer = name, initializer
        self.learning_rate, self.regularizer = float(learning_rate), regularizer
        self.trainable, self.do_model_average, self.need_clip = \
            bool(trainable), do_model_average, need_clip

    def __repr__(self):
        return (f"ParamAttr(name={self.name!r}, initializer={self.initializer!r}, "
                f"learning_rate={self.learning_rate}, regularizer={self.regularizer!r}, "
                f"trainable={self.trainable})")


def to_attr(value, owner, argument):
    """A layer's `weight_attr` / `bias_attr` as a ParamAttr; False stays False (no
    parameter), None stays None (the layer's defaults)."""
    if value is None or value is False or isinstance(value, ParamAttr):
        return value
    if isinstance(value, str):
        return ParamAttr(name=value)
    if callable(value) and not isinstance(value, Tensor):
        return ParamAttr(initializer=value)
    raise TypeError(f"{owner}: {argument} must be a fluxgrad.ParamAttr, an initializer, a name "
                    f"or False, got {type(value).__name__}")


def apply(param, attr, paddle_view=None):
    """Give the new parameter `param` what `attr` asks; `paddle_view` is `param` laid out as
    PaddlePaddle lays it out (Linear's weight transposed), for the initializer."""
    if attr is None:
        return param
    if attr.initializer is not None:
        attr.initializer(param if paddle_view is None else paddle_view)
        param._bump_version()
    if attr.name is not None:
        param.name = attr.name
    if not attr.trainable:
        param.requires_grad = False
    if attr.learning_rate != 1.0 or attr.regularizer is not None or not attr.need_clip:
        key = id(param)
        _attrs[key] = (weakref.ref(param, lambda _: _attrs.pop(key, None)), attr)
    return param


def transposed_view(param):
    """`param` [out, in] as a tensor [in, out] sharing its memory."""
    return Tensor._make(param._data.T)


def attr_of(param):
    """The ParamAttr a layer gave `param` (or the eager parameter a static one came from)."""
    entry = _attrs.get(id(param))
    if entry is not None and entry[0]() is param:
        return entry[1]
    if _attrs and getattr(param, "persistable", False):
        from .static.parameters import _converted
        for eager, var in _converted.values():
            if var is param:
                return attr_of(eager)
    return None


def needs_clip(param):
    """Whether gradient clipping (an optimizer's grad_clip=) applies to `param`: not where
    its ParamAttr says need_clip=False."""
    attr = attr_of(param)
    return attr is None or bool(attr.need_clip)


def active():
    """Whether any parameter has a learning rate, regularizer or need_clip of its own."""
    return bool(_attrs)


def adjusted(param, value, g, group):
    """The gradient and options an optimizer step uses for the parameter `param` whose value
    is `value` and gradient `g` (arrays in an eager step, Variables in a static `minimize`,
    traced tensors in a compiled step): its own regularizer's term instead of the group's
    weight decay, the group's regularizer's term (L1Decay as `weight_decay=`), and its
    learning rate factor."""
    attr = attr_of(param)
    data = value
    if attr is not None and attr.regularizer is not None:
        g = g + attr.regularizer.term(data)
        group = dict(group, weight_decay=0.0)
    elif group.get("regularizer") is not None:
        g = g + group["regularizer"].term(data)
    if attr is not None and attr.learning_rate != 1.0:
        group = dict(group, lr=group["lr"] * attr.learning_rate)
    return g, group
