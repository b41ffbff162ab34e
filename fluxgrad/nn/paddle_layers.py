"""PaddlePaddle's layer names whose signatures clash with PyTorch's namesakes.

`BatchNorm1D(64, 0.9)`: Paddle's second argument is `momentum`, the weight of the
old running average (PyTorch's `momentum` is the weight of the new batch, so
Paddle's 0.9 is PyTorch's 0.1), then `epsilon`. `AvgPool2D` leaves padding out
of the average by default (`exclusive=True`), where PyTorch's `AvgPool2d` counts
it. The PyTorch spellings (`BatchNorm2d`, `AvgPool2d`) keep PyTorch's signatures.
"""
from .. import param_attr
from .layers import AvgPool2d, BatchNorm1d, BatchNorm2d

__all__ = ["BatchNorm1D", "BatchNorm2D", "AvgPool2D"]


def _paddle_batch_norm(torch_class):
    class PaddleBatchNorm(torch_class):
        def __init__(self, num_features, momentum=0.9, epsilon=1e-5, weight_attr=None,
                     bias_attr=None, data_format=None, use_global_stats=None, name=None):
            if data_format not in (None, "NC", "NCL", "NCHW"):
                raise ValueError(f"{type(self).__name__}: data_format {data_format!r} is not "
                                 "supported; fluxgrad keeps channels on axis 1 (NCHW)")
            super().__init__(num_features, eps=epsilon, momentum=round(1 - momentum, 12),
                             affine=weight_attr is not False and bias_attr is not False,
                             track_running_stats=use_global_stats is not False)
            if self.weight is not None:
                owner = type(self).__name__
                param_attr.apply(self.weight, param_attr.to_attr(weight_attr, owner,
                                                                 "weight_attr"))
                param_attr.apply(self.bias, param_attr.to_attr(bias_attr, owner, "bias_attr"))
    PaddleBatchNorm.__name__ = PaddleBatchNorm.__qualname__ = \
        torch_class.__name__[:-1] + "D"
    PaddleBatchNorm.__doc__ = (f"PaddlePaddle's `{PaddleBatchNorm.__name__}(num_features, "
                               "momentum=0.9, epsilon=1e-5)`; momentum weighs the running "
                               "average.")
    return PaddleBatchNorm


BatchNorm1D = _paddle_batch_norm(BatchNorm1d)
BatchNorm2D = _paddle_batch_norm(BatchNorm2d)


class AvgPool2D(AvgPool2d):
    """PaddlePaddle's `AvgPool2D(kernel_size, stride, padding, ceil_mode, exclusive=True,
    divisor_override)`: padding is left out of the average unless exclusive=False."""

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False, exclusive=True,
                 divisor_override=None, data_format="NCHW", name=None):
        super().__init__(kernel_size, stride, padding, ceil_mode,
                         count_include_pad=not exclusive, divisor_override=divisor_override)
