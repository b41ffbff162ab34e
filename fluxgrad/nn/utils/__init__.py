"""`nn.utils`: gradient clipping and parameter flattening (clip_grad), variable-length
sequences for the recurrent layers (rnn), and reparametrizations: `parametrize`,
`parametrizations` (weight_norm, spectral_norm) and the hook-based `weight_norm` and
`spectral_norm`; mask-based pruning (prune); folding BatchNorm into the layer before it
(fusion); skip_init."""
from . import clip_grad, fusion, parametrizations, parametrize, prune, rnn
from .clip_grad import *  # noqa: F401,F403
from .fusion import *  # noqa: F401,F403
from .init import skip_init
from .rnn import PackedSequence
from .spectral_norm import remove_spectral_norm, spectral_norm
from .weight_norm import remove_weight_norm, weight_norm

__all__ = clip_grad.__all__ + fusion.__all__ + ["rnn", "PackedSequence", "parametrize", "parametrizations", "prune",
                               "fusion", "weight_norm", "remove_weight_norm", "spectral_norm",
                               "remove_spectral_norm", "skip_init"]
