"""`fluxgrad.incubate`: PaddlePaddle's incubating APIs (`incubate.autograd`)."""
from . import autograd

__all__ = ["autograd"]
