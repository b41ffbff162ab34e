"""PyTorch's path `nn.modules.distance` to fluxgrad.nn's classes."""
from .. import PairwiseDistance, CosineSimilarity

__all__ = ["PairwiseDistance", "CosineSimilarity"]
