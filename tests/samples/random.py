"""Samples for the random draws (`fluxgrad.random_ops`), built so that their values are certain:
the draws' ranges (a uniform sample is in [low, high), an exponential one non-negative), draws
with zero spread (std 0, probabilities 0 or 1, a one-hot row of weights, rate 0, integers on
[2, 3)) or sums that any permutation keeps. So compiled, staged and vmapped runs can be
compared with eager mode and PyTorch while every sample still runs its draw."""
import numpy as np

from fluxgrad import random_ops as draws
from fluxgrad.ops import cast, logical_and, sum

from . import Sample, normal

F64 = np.float64


def _in_range(u, low, high):
    return cast(logical_and(u >= low, u < high), "float64")


def _one_hot_rows(x, hot):
    """Weights with one positive entry per row (at `hot`), batched like `x`."""
    rows = np.zeros(x.shape, F64)
    rows[..., hot] = 1.0
    return x * 0.0 + rows


SAMPLES = [
    Sample("random_uniform", lambda x: x * _in_range(draws.uniform(x.shape, F64), 0.0, 1.0),
           [normal(3, 2)], torch_fn=lambda x: x * 1.0),
    Sample("random_uniform",
           lambda x: x * _in_range(draws.uniform(x.shape, "float32", -2.0, 5.0), -2.0, 5.0),
           [normal(4)], torch_fn=lambda x: x * 1.0),
    Sample("random_normal", lambda x: draws.normal(x, 0.0, x.shape, F64), [normal(3, 2)],
           torch_fn=lambda x: __import__("torch").normal(x.detach(), 0.0)),
    Sample("random_normal", lambda x, y: draws.normal(x, y * 0.0, (2, 3), F64),
           [normal(3), normal(2, 3, seed=1)],
           torch_fn=lambda x, y: x.detach().expand(2, 3) * 1.0),
    Sample("random_integers", lambda x: x + draws.integers(2, 3, x.shape, "int64"), [normal(4)],
           torch_fn=lambda x: x + 2),
    Sample("random_exponential",
           lambda x: x * cast(draws.exponential(x.shape, F64, 2.0) >= 0, "float64"),
           [normal(2, 2)], torch_fn=lambda x: x * 1.0),
    Sample("random_permutation", lambda x: x + sum(draws.permutation(5, "int64")), [normal(3)],
           torch_fn=lambda x: x + 10),
    Sample("random_bernoulli", lambda x: x * draws.bernoulli(x * 0.0 + 1.0), [normal(3, 2)],
           torch_fn=lambda x: x * __import__("torch").bernoulli(x.detach() * 0.0 + 1.0)),
    Sample("random_bernoulli", lambda x: x + draws.bernoulli(x, p=0.0), [normal(4)],
           torch_fn=lambda x: x * 1.0),
    Sample("random_poisson", lambda x: x + draws.poisson(x * 0.0), [normal(3)],
           torch_fn=lambda x: x + __import__("torch").poisson(x.detach() * 0.0)),
    Sample("random_gamma",
           lambda x: x * cast(draws.gamma(x * 0.0 + 1.5) > 0, "float64"), [normal(2, 3)],
           torch_fn=lambda x: x * 1.0),
    Sample("random_multinomial", lambda x: x + draws.multinomial(_one_hot_rows(x, 2), 4, True),
           [normal(4)],
           torch_fn=lambda x: x + __import__("torch").multinomial(
               x.detach() * 0.0 + __import__("torch").tensor([0.0, 0.0, 1.0, 0.0],
                                                              dtype=x.dtype), 4, True)),
    Sample("random_multinomial",  # every category once per row, in some order: sum 0+1+2
           lambda x: x + sum(draws.multinomial(x * 0.0 + 1.0, 3, False), -1, keepdims=True),
           [normal(2, 3)], torch_fn=lambda x: x + 3),
]
