"""Samples for `alias`, the identity op that forward mode uses to put a dual on a leaf."""
from fluxgrad.ops.alias import alias

from . import Sample, normal

SAMPLES = [
    Sample("alias", lambda x: alias(x), [normal(3, 2)], torch_fn=lambda x: x.view_as(x)),
    Sample("alias", lambda x: alias(x) * x, [normal(4)], torch_fn=lambda x: x * x),
    Sample("alias", lambda x: alias(x), [normal()], torch_fn=lambda x: x.view_as(x)),
]
