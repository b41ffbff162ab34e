"""Random indexing programs (tests/indexing_programs.py: basic and advanced reads, writes by
setitem, index_put_, index_add / copy / fill, scatter, masked_fill / scatter / select, gather,
take, narrow, select, unfold) against PyTorch, with the harness of
tests/test_mixed_random_programs.py: in eager mode every value and its dtype, the gradient of
every float64 input and a Hessian-vector product by double backward; staged into a static
program (known sizes, and the first input's first size unknown); compiled with fullgraph=True
against eager PyTorch (values, then gradients through the compiled call)."""
import pytest

from indexing_programs import Program
from test_mixed_random_programs import (check_compiled, check_eager_values, check_second_order,
                                        check_static)

pytest.importorskip("torch")

SEEDS = range(30)


@pytest.mark.parametrize("seed", SEEDS)
def test_eager_values_and_dtypes(seed):
    check_eager_values(Program, seed)


@pytest.mark.parametrize("seed", SEEDS)
def test_eager_gradients_to_second_order(seed):
    check_second_order(Program, seed)


@pytest.mark.parametrize("unknown", [False, True], ids=["known", "unknown_batch"])
@pytest.mark.parametrize("seed", SEEDS)
def test_static(seed, unknown):
    check_static(Program, seed, unknown)


@pytest.mark.parametrize("seed", SEEDS)
def test_compiled(seed):
    check_compiled(Program, seed)
