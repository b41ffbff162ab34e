"""`nn.utils`: gradient clipping and parameter flattening (clip_grad), and variable-length
sequences for the recurrent layers (rnn)."""
from . import clip_grad, rnn
from .clip_grad import *  # noqa: F401,F403
from .rnn import PackedSequence

__all__ = clip_grad.__all__ + ["rnn", "PackedSequence"]
