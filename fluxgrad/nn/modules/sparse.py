"""PyTorch's path `nn.modules.sparse` to fluxgrad.nn's classes."""
from .. import Embedding, EmbeddingBag

__all__ = ["Embedding", "EmbeddingBag"]
