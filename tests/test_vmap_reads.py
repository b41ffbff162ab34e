"""Inside vmap, code that would read one value where every example has its own refuses to,
instead of silently using the first example's."""
import numpy as np
import pytest

import fluxgrad as fg
from fluxgrad import func, nn

BATCH = fg.tensor([[1.0, 2.0], [3.0, 4.0]])


@pytest.mark.parametrize("f", [
    lambda x: x.data * 1,
    lambda x: fg.tensor(x) * 1,
    lambda x: x * fg.allclose(x, fg.tensor([1.0, 2.0])),
    lambda x: fg.ones(3).repeat_interleave((x > 2).long().sum(0, keepdim=True) + 1),
], ids=["data", "tensor", "allclose", "repeat_interleave"])
def test_reading_per_example_values_is_refused(f):
    with pytest.raises(RuntimeError, match="holds a different value for each of the 2 examples"):
        func.vmap(f)(BATCH)


def test_batch_norm_in_training_mode_does_not_update_running_stats_inside_vmap():
    bn = nn.BatchNorm1d(2)
    with pytest.raises(RuntimeError, match="batch_norm: inside vmap, training mode"):
        func.vmap(bn)(fg.tensor(np.random.default_rng(0).standard_normal((5, 4, 2))))
    np.testing.assert_array_equal(bn.running_mean.numpy(), np.zeros(2))
    bn.eval()
    assert func.vmap(bn)(fg.ones(5, 4, 2)).shape == (5, 4, 2)


def test_probability_checks_look_at_every_example():
    half = fg.full((2,), 0.5)
    with pytest.raises(ValueError, match="must be probabilities"):
        func.vmap(lambda p: nn.functional.binary_cross_entropy(p, half))(
            fg.tensor([[0.5, 0.5], [0.5, 1.5]]))
