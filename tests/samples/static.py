"""Samples for the two ops static mode adds: `full_like`, which static mode stages for seeds
and zeros, and `stop_gradient` (a Variable's detach())."""
from fluxgrad.static._ops import full_like, stop_gradient

from . import Sample, normal

SAMPLES = [
    Sample("full_like", lambda x: full_like(x, 2.0), [normal(3, 2)],
           torch_fn=lambda x: x.detach().new_full(x.shape, 2.0)),
    Sample("full_like", lambda x: full_like(x, 0, "int64"), [normal(4)]),
    Sample("stop_gradient", lambda x: stop_gradient(x), [normal(3, 2)],
           torch_fn=lambda x: x.detach()),
]
