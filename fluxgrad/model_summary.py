"""PaddlePaddle's `summary(net, input_size)` and `flops(net, input_size)`.

Both run the network once on zeros of `input_size` (a shape, a list of shapes for several
inputs, or `static.InputSpec`s; None / -1 sizes run as 1; or `input=` tensors), without
gradients and in eval mode (the layers' modes are restored after), with a forward hook on
every leaf layer.

`summary` prints Paddle's table (each leaf layer as `ClassName-k`, its input and output
shapes and its own parameter count; then the totals and the memory estimate, 4 bytes an
element) and returns `{'total_params': n, 'trainable_params': m}` (each parameter counted
once, trainable: not stop_gradient).

`flops` counts multiply-accumulates as Paddle's `flops` does: a convolution
`out.numel() * (in_channels / groups * kernel size + bias)`, a Linear `out.numel() *
in_features`, batch norm (eval) `2 * x.numel()`, leaky ReLU `x.numel()`, pooling
`out.numel() * kernel size` (adaptive: the window), other layers 0; `custom_ops` maps a layer
class to `count(layer, inputs, output)` giving its count; `print_detail` prints the table.
"""
import math

import numpy as np

from ._core.grad_mode import no_grad
from ._core.tensor import Tensor

__all__ = ["summary", "flops"]


def _inputs(net, input_size, dtypes, input, op):
    from .creation import zeros
    from .static import InputSpec
    if input is not None:
        return tuple(input) if isinstance(input, (list, tuple)) else (input,)
    if input_size is None:
        raise ValueError(f"{op}: pass input_size (a shape, or a list of shapes) or input=")
    if isinstance(input_size, InputSpec) or (
            isinstance(input_size, (tuple, list)) and input_size and
            all(isinstance(s, (int, type(None))) for s in input_size)):
        input_size = [input_size]
    dtypes = [dtypes] * len(input_size) if dtypes is None or isinstance(dtypes, str) \
        else list(dtypes)
    tensors = []
    for size, dtype in zip(input_size, dtypes):
        if isinstance(size, InputSpec):
            size, dtype = size.shape, size.dtype
        shape = [1 if s is None or s == -1 else int(s) for s in size]
        tensors.append(zeros(*shape, dtype=dtype or "float32"))
    return tuple(tensors)


def _run(net, inputs, on_leaf):
    """Run `net` on `inputs` in eval mode without gradients, calling `on_leaf(layer,
    inputs, output)` after each leaf layer; the layers' modes restored after."""
    modes = [(m, m.training) for m in net.modules()]
    leaves = [m for m in net.modules() if not any(True for _ in m.children())]
    handles = [m.register_forward_hook(lambda m, args, out: on_leaf(m, args, out))
               for m in leaves]
    try:
        net.eval()
        with no_grad():
            net(*inputs)
    finally:
        for h in handles:
            h.remove()
        for m, mode in modes:
            m.__dict__["training"] = mode


def _shape(value):
    if isinstance(value, Tensor):
        return list(value.shape)
    if isinstance(value, (tuple, list)):
        return [_shape(v) for v in value]
    return []


def _numel(value):
    if isinstance(value, Tensor):
        return value.numel()
    if isinstance(value, (tuple, list)):
        return sum(_numel(v) for v in value)
    return 0


def _name(counts, layer):
    kind = type(layer).__name__
    counts[kind] = counts.get(kind, 0) + 1
    return f"{kind}-{counts[kind]}"


def _table(header, rows, footer):
    widths = [max(len(str(r[c])) for r in [header] + rows) + 4 for c in range(len(header))]
    width = max(sum(widths), 75)
    line = lambda cells: "".join(str(c).center(w) for c, w in zip(cells, widths))  # noqa: E731
    out = ["-" * width, line(header), "=" * width] + [line(r) for r in rows]
    return "\n".join(out + ["=" * width] + footer + ["-" * width])


def summary(net, input_size=None, dtypes=None, input=None):
    """See the module docstring."""
    inputs = _inputs(net, input_size, dtypes, input, "summary")
    counts, rows, outputs = {}, [], []

    def on_leaf(layer, args, out):
        own = sum(p.numel() for p in layer.parameters(recurse=False))
        rows.append((_name(counts, layer), str(_shape(list(args))), str(_shape(out)),
                     f"{own:,}"))
        outputs.append(_numel(out))

    _run(net, inputs, on_leaf)
    params = list(net.parameters())
    total = sum(p.numel() for p in params)
    trainable = sum(p.numel() for p in params if not p.stop_gradient)
    mb = 4 / 1024 ** 2
    input_mb = sum(t.numel() for t in inputs) * mb
    forward_mb = 2 * sum(outputs) * mb
    footer = [f"Total params: {total:,}", f"Trainable params: {trainable:,}",
              f"Non-trainable params: {total - trainable:,}", "-" * 75,
              f"Input size (MB): {input_mb:.2f}",
              f"Forward/backward pass size (MB): {forward_mb:.2f}",
              f"Params size (MB): {total * mb:.2f}",
              f"Estimated Total Size (MB): {input_mb + forward_mb + total * mb:.2f}"]
    print(_table(("Layer (type)", "Input Shape", "Output Shape", "Param #"), rows, footer))
    return {"total_params": total, "trainable_params": trainable}


def _count(layer, args, out):
    from .nn import layers
    x = args[0] if args else None
    kind = type(layer)
    if isinstance(layer, layers._ConvNd):
        kernel = math.prod(layer.kernel_size)
        channels = layer.in_channels // layer.groups
        return out.numel() * (channels * kernel + (layer.bias is not None))
    if isinstance(layer, layers.Linear):
        return out.numel() * layer.in_features
    if kind.__name__.startswith(("BatchNorm", "SyncBatchNorm")):
        return 2 * x.numel()
    if kind.__name__ == "LeakyReLU":
        return x.numel()
    if kind.__name__.startswith("AvgPool"):
        return out.numel()
    if kind.__name__.startswith("AdaptiveAvgPool"):  # the window's additions and one division
        window = np.array(x.shape[2:]) // np.array(out.shape[2:])
        return out.numel() * (int(np.prod(window)) + 1)
    return 0


def flops(net, input_size=None, custom_ops=None, print_detail=False, dtypes=None,
          input=None):
    """See the module docstring; returns the total."""
    inputs = _inputs(net, input_size, dtypes, input, "flops")
    custom_ops = custom_ops or {}
    counts, rows = {}, []

    def on_leaf(layer, args, out):
        count = custom_ops[type(layer)](layer, args, out) if type(layer) in custom_ops \
            else _count(layer, args, out)
        params = sum(p.numel() for p in layer.parameters(recurse=False))
        rows.append((_name(counts, layer), str(_shape(list(args))), str(_shape(out)),
                     f"{params:,}", f"{int(count):,}", int(count)))

    _run(net, inputs, on_leaf)
    total = sum(r[-1] for r in rows)
    if print_detail:
        print(_table(("Layer Name", "Input Shape", "Output Shape", "Params", "Flops"),
                     [r[:-1] for r in rows], [f"Total Flops: {total:,}"]))
    print(f"Total Flops: {total}     Total Params: "
          f"{sum(p.numel() for p in net.parameters())}")
    return total
