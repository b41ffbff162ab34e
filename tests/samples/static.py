"""Samples for `full_like`, the shape-only op static mode stages for seeds and zeros."""
from fluxgrad.static._ops import full_like

from . import Sample, normal

SAMPLES = [
    Sample("full_like", lambda x: full_like(x, 2.0), [normal(3, 2)],
           torch_fn=lambda x: x.detach().new_full(x.shape, 2.0)),
    Sample("full_like", lambda x: full_like(x, 0, "int64"), [normal(4)]),
]
