"""Samples for the ops static mode adds: `full_like`, which static mode stages for seeds
and zeros, `stop_gradient` (a Variable's detach()), `full` / `iota`, which it stages for
arrays made in a size known only at run time (`zeros(x.shape[0], 3)`, `arange`, `eye`), and
`print` (`static.Print`, the identity that prints)."""
import numpy as np
import torch

from fluxgrad.static._ops import full, full_like, iota, shape, stop_gradient
from fluxgrad.static.printing import Print

from . import Sample, normal

SAMPLES = [
    Sample("full_like", lambda x: full_like(x, 2.0), [normal(3, 2)],
           torch_fn=lambda x: x.detach().new_full(x.shape, 2.0)),
    Sample("full_like", lambda x: full_like(x, 0, "int64"), [normal(4)]),
    Sample("stop_gradient", lambda x: stop_gradient(x), [normal(3, 2)],
           torch_fn=lambda x: x.detach()),
    Sample("full", lambda x: x * full(x.shape, 2.0, np.float64), [normal(3, 2)],
           torch_fn=lambda x: x * 2.0),
    Sample("full", lambda x: x + full((), 3, np.int64), [normal(4)],
           torch_fn=lambda x: x + 3),
    Sample("iota", lambda x: x * iota(x.shape, 0, np.float64), [normal(3, 2)],
           torch_fn=lambda x: x * torch.arange(3, dtype=torch.float64)[:, None]),
    Sample("iota", lambda x: x * iota(x.shape, 1, np.int64), [normal(3, 2)],
           torch_fn=lambda x: x * torch.arange(2)),
    Sample("shape", lambda x: x * shape(x)[0], [normal(3, 2)], torch_fn=lambda x: x * 3),
    Sample("print", lambda x: Print(x, message="a registry sample", summarize=2),
           [normal(3, 2)], torch_fn=lambda x: x),
]
