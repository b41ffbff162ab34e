"""Staging remembers output types: an op staged again on the same input types does not run its
impl again, and a scalar of another type (`1`, `1.0`, `True`) is probed apart."""
import numpy as np

from fluxgrad import static
from fluxgrad._core.primitive import REGISTRY
from fluxgrad.static import staging


def _counting_impl(monkeypatch, name):
    prim = REGISTRY[name]
    calls, impl = [], prim.impl

    def counted(*args, **params):
        calls.append(1)
        return impl(*args, **params)
    monkeypatch.setattr(prim, "impl", counted)
    return prim, calls


def test_an_op_staged_again_on_the_same_types_runs_its_impl_once(program, monkeypatch):
    x = static.data('x', shape=[3, 4], dtype='float32')
    y = static.data('y', shape=[3, 4], dtype='float32')
    add, calls = _counting_impl(monkeypatch, "add")
    a = staging.stage(add, (x, y), {})
    b = staging.stage(add, (a, x), {})
    assert len(calls) == 1
    assert (a.shape, b.shape, a.dtype, b.dtype) == ((3, 4), (3, 4), x.dtype, x.dtype)
    staging.stage(add, (x, static.data('z', shape=[4], dtype='float32')), {})
    assert len(calls) == 2  # another shape: probed


def test_scalars_of_another_type_or_value_are_probed_apart(program):
    add = REGISTRY["add"]
    i = static.data('i', shape=[2], dtype='int64')
    assert staging.stage(add, (i, 1), {})._data.dtype == np.int64
    assert staging.stage(add, (i, 1.0), {})._data.dtype == np.float64
    assert staging.stage(add, (i, True), {})._data.dtype == np.int64
