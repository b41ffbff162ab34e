"""PyTorch's path `nn.modules.loss` to fluxgrad.nn's classes."""
from ..loss import _Loss, _WeightedLoss  # noqa: F401
from .. import (L1Loss, NLLLoss, PoissonNLLLoss, GaussianNLLLoss, KLDivLoss, MSELoss, BCELoss,
                BCEWithLogitsLoss, HingeEmbeddingLoss, MultiLabelMarginLoss, SmoothL1Loss,
                HuberLoss, SoftMarginLoss, CrossEntropyLoss, MultiLabelSoftMarginLoss,
                CosineEmbeddingLoss, MarginRankingLoss, MultiMarginLoss, TripletMarginLoss,
                TripletMarginWithDistanceLoss, CTCLoss)

__all__ = ["L1Loss", "NLLLoss", "PoissonNLLLoss", "GaussianNLLLoss", "KLDivLoss", "MSELoss",
           "BCELoss", "BCEWithLogitsLoss", "HingeEmbeddingLoss", "MultiLabelMarginLoss",
           "SmoothL1Loss", "HuberLoss", "SoftMarginLoss", "CrossEntropyLoss",
           "MultiLabelSoftMarginLoss", "CosineEmbeddingLoss", "MarginRankingLoss",
           "MultiMarginLoss", "TripletMarginLoss", "TripletMarginWithDistanceLoss", "CTCLoss"]
