"""PyTorch's path `nn.modules.batchnorm` to fluxgrad.nn's classes."""
from ..layers import _BatchNorm  # noqa: F401
from .. import BatchNorm1d, BatchNorm2d, BatchNorm3d, SyncBatchNorm

__all__ = ["BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "SyncBatchNorm"]
