"""Focused tests of the small fixes the scripts of round 8 (tests/pytorch_scripts) brought in."""
import math

import numpy as np
import pytest

import fluxgrad as fg


@pytest.mark.parametrize("dtype,part", [(fg.complex64, fg.float32), (fg.complex128, fg.float64)])
def test_randn_of_a_complex_dtype_has_parts_of_variance_one_half(dtype, part):
    fg.manual_seed(0)
    z = fg.randn(40000, dtype=dtype)
    assert z.dtype == dtype and z.real.dtype == part
    assert abs(z.real.var().item() - 0.5) < 0.02 and abs(z.imag.var().item() - 0.5) < 0.02
    assert abs(z.abs().pow(2).mean().item() - 1.0) < 0.03


def test_rand_of_a_complex_dtype_draws_both_parts_on_the_unit_interval():
    z = fg.rand(2, 500, dtype=fg.cfloat)
    assert z.shape == (2, 500) and z.dtype == fg.complex64
    for part in (z.real, z.imag):
        assert 0 <= part.min().item() and part.max().item() < 1 and part.std().item() > 0.2
