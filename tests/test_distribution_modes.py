"""`mode` of the discrete distributions and Uniform, against PyTorch's."""
import pytest

import fluxgrad
from fluxgrad import distributions as D

torch = pytest.importorskip("torch")
TD = torch.distributions

CASES = [
    ("Bernoulli", lambda m: dict(probs=m.tensor([0.2, 0.5, 0.7, 0.0, 1.0]))),
    ("Bernoulli", lambda m: dict(logits=m.tensor([-1.0, 0.0, 2.0]))),
    ("Uniform", lambda m: dict(low=m.tensor([0.0, 1.0]), high=m.tensor([2.0, 3.0]))),
    ("Categorical", lambda m: dict(logits=m.tensor([[1.0, 2.0, 0.0], [3.0, 0.0, 1.0]]))),
    ("Categorical", lambda m: dict(probs=m.tensor([0.1, 0.6, 0.3]))),
    ("OneHotCategorical", lambda m: dict(probs=m.tensor([[0.1, 0.2, 0.7], [0.5, 0.3, 0.2]]))),
]


@pytest.mark.parametrize("name, params", CASES, ids=[c[0] for c in CASES])
def test_mode_matches_pytorch(name, params):
    ours = getattr(D, name)(**params(fluxgrad)).mode
    theirs = getattr(TD, name)(**params(torch)).mode
    assert str(ours.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1]
    torch.testing.assert_close(torch.from_numpy(ours.numpy()), theirs, equal_nan=True)
