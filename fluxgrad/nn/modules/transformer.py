"""PyTorch's path `nn.modules.transformer` to fluxgrad.nn's classes."""
from .. import (Transformer, TransformerEncoder, TransformerDecoder, TransformerEncoderLayer,
                TransformerDecoderLayer)

__all__ = ["Transformer", "TransformerEncoder", "TransformerDecoder",
           "TransformerEncoderLayer", "TransformerDecoderLayer"]
