"""PyTorch's path `nn.modules.batchnorm` to fluxgrad.nn's classes."""
from ..layers import _BatchNorm  # noqa: F401
from .. import BatchNorm1d, BatchNorm2d, BatchNorm3d, SyncBatchNorm
from ..lazy import LazyBatchNorm1d, LazyBatchNorm2d, LazyBatchNorm3d

__all__ = ["BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "SyncBatchNorm", "LazyBatchNorm1d",
           "LazyBatchNorm2d", "LazyBatchNorm3d"]
