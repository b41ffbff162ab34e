"""`fluxgrad.utils.data.distributed`: PyTorch's import path for `DistributedSampler`."""
from ...data.distributed import DistributedSampler  # noqa: F401

__all__ = ["DistributedSampler"]
