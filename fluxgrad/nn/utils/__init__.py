"""`nn.utils`: gradient clipping and parameter flattening (clip_grad), variable-length
sequences for the recurrent layers (rnn), parametrizations (parametrize, parametrizations) and
the hook-based weight_norm."""
from . import clip_grad, parametrizations, parametrize, rnn
from .clip_grad import *  # noqa: F401,F403
from .rnn import PackedSequence
from .weight_norm import remove_weight_norm, weight_norm

__all__ = clip_grad.__all__ + ["rnn", "PackedSequence", "parametrize", "parametrizations",
                               "weight_norm", "remove_weight_norm"]
