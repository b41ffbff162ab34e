"""Generic test of every op's batching rule: vmap over a batch equals a loop over its examples.

For each sample of the registry (tests/samples/) the examples of a batch are the
sample's arguments scaled by a different factor each; vmap of the sample's
function must give, to rounding, the stack of the function applied to each
example, with the batch dimension in front, at the back, absent from all but
the first argument, and in two nested vmaps over different arguments.
"""
import numpy as np
import pytest

from fluxgrad import Tensor
from fluxgrad._core.primitive import REGISTRY
from fluxgrad.func import vmap
from samples import all_samples

SAMPLES = [s for s in all_samples() if s.vmap]
FACTORS = (1.0, 0.9, 1.1)
each_sample = pytest.mark.parametrize("sample", SAMPLES, ids=repr)
with_two_args = pytest.mark.parametrize(
    "sample", [s for s in SAMPLES if len(s.args) >= 2 and not s.in_place], ids=repr)
in_place_with_two_args = pytest.mark.parametrize(
    "sample", [s for s in SAMPLES if len(s.args) >= 2 and s.in_place], ids=repr)


def test_every_registered_op_has_a_batching_rule_tested_here():
    without_rule = sorted(name for name, prim in REGISTRY.items() if prim.batch is None)
    assert not without_rule, f"registered ops with no batching rule: {without_rule}"
    untested = sorted(set(REGISTRY) - {s.op for s in SAMPLES})
    assert not untested, f"registered ops with no vmappable Sample in tests/samples/: {untested}"


def randomness(sample):
    """A sample of a random draw (deterministic: zero std, p of 0 or 1, ...) is vmapped with
    randomness='different', as torch.func wants for any draw."""
    return "different" if getattr(REGISTRY[sample.op], "draws", False) else "error"


def mapped(sample, **kwargs):
    return vmap(sample.fn, randomness=randomness(sample), **kwargs)


def outputs(out):
    return [o._data for o in (out if isinstance(out, (tuple, list)) else (out,))]


def examples(sample):
    return [[np.asarray(a, np.float64) * f for a in sample.args] for f in FACTORS]


def looped(sample, per_example):
    results = [outputs(sample.fn(*(Tensor(a) for a in args))) for args in per_example]
    return [np.stack(r) for r in zip(*results)]


def assert_outputs_match(got, expected):
    got = outputs(got)
    assert len(got) == len(expected)
    for g, e in zip(got, expected):
        assert g.shape == e.shape and g.dtype == e.dtype, (g.shape, e.shape, g.dtype, e.dtype)
        np.testing.assert_allclose(g, e, rtol=1e-10, atol=1e-12)


@each_sample
def test_vmap_over_the_first_dimension_matches_a_loop(sample):
    per_example = examples(sample)
    batch = [Tensor(np.stack(a)) for a in zip(*per_example)]
    assert_outputs_match(mapped(sample)(*batch), looped(sample, per_example))


@each_sample
def test_vmap_over_the_last_dimension_matches_a_loop(sample):
    per_example = examples(sample)
    batch = [Tensor(np.stack(a, axis=-1)) for a in zip(*per_example)]
    in_dims = tuple(np.ndim(a) for a in sample.args)
    assert_outputs_match(mapped(sample, in_dims=in_dims)(*batch), looped(sample, per_example))


@each_sample
def test_vmap_with_only_the_first_argument_batched_matches_a_loop(sample):
    per_example = [[args[0]] + [np.asarray(a, np.float64) for a in sample.args[1:]]
                   for args in examples(sample)]
    first = Tensor(np.stack([args[0] for args in per_example]))
    rest = [Tensor(a) for a in per_example[0][1:]]
    in_dims = (0,) + (None,) * len(rest)
    assert_outputs_match(mapped(sample, in_dims=in_dims)(first, *rest),
                         looped(sample, per_example))


@with_two_args
def test_nested_vmaps_over_different_arguments_match_a_double_loop(sample):
    outer = [np.asarray(sample.args[0], np.float64) * f for f in FACTORS]
    inner = [[np.asarray(a, np.float64) * f for a in sample.args[1:]] for f in FACTORS[:2]]
    expected = [looped(sample, [[o] + rest for rest in inner]) for o in outer]
    expected = [np.stack(r) for r in zip(*expected)]
    inner_dims = (None,) + (0,) * len(inner[0])
    outer_dims = (0,) + (None,) * len(inner[0])
    f = vmap(mapped(sample, in_dims=inner_dims), in_dims=outer_dims,
             randomness=randomness(sample))
    got = f(Tensor(np.stack(outer)), *(Tensor(np.stack(a)) for a in zip(*inner)))
    assert_outputs_match(got, expected)


@in_place_with_two_args
def test_in_place_writes_of_examples_into_a_shared_tensor_are_refused(sample):
    inner = mapped(sample, in_dims=(None,) + (0,) * (len(sample.args) - 1))
    batch = [Tensor(np.stack([np.asarray(a, np.float64) * f for f in FACTORS]))
             for a in sample.args[1:]]
    with pytest.raises(RuntimeError, match="in-place op would write values that differ"):
        vmap(inner, in_dims=(0,) + (None,) * len(batch))(
            Tensor(np.stack([np.asarray(sample.args[0], np.float64)] * 2)), *batch)
