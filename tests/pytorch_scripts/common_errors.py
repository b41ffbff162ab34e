"""The errors beginners hit, caught by the exception type PyTorch raises (so code with try/except
written for PyTorch behaves the same): shape mismatches in matmul/Linear/cat/view, non-contiguous
view, item() on many elements, backward twice, in-place on a leaf, wrong
target dtype for cross_entropy, index out of range, numpy() of a tensor requiring grad, embedding
index out of range, and mismatched state_dict keys."""
import fluxgrad as torch
import fluxgrad.nn as nn
import fluxgrad.nn.functional as F


def expect(exc_type, fn, label):
    try:
        fn()
    except exc_type:
        print(label, "->", exc_type.__name__)
    else:
        print(label, "-> no error")


expect(RuntimeError, lambda: torch.ones(2, 3) @ torch.ones(2, 3), "matmul shapes")
expect(RuntimeError, lambda: nn.Linear(4, 2)(torch.ones(3, 5)), "Linear in_features")
expect(RuntimeError, lambda: torch.cat([torch.ones(2, 3), torch.ones(2, 4)]), "cat sizes")
expect(RuntimeError, lambda: torch.ones(2, 3).view(4, 2), "view numel")
expect(RuntimeError, lambda: torch.ones(2, 3).t().view(6), "view non-contiguous")
expect(RuntimeError, lambda: torch.ones(2, 3) + torch.ones(3, 2), "broadcast")
expect(RuntimeError, lambda: torch.ones(2).item(), "item of two")
expect(ValueError, lambda: float(torch.ones(2)) if False else torch.ones(2).tolist().index(5), "list index")
x = torch.ones(2, requires_grad=True)
y = (x * 2).sum()
y.backward()
expect(RuntimeError, lambda: y.backward(), "backward twice")
expect(RuntimeError, lambda: x.add_(1), "in-place on leaf")
expect(RuntimeError, lambda: torch.ones(2).backward(), "backward without grad")
expect(RuntimeError, lambda: F.cross_entropy(torch.ones(2, 3), torch.tensor([0.0, 1.0])), "cross_entropy float target shape")
expect(IndexError, lambda: F.cross_entropy(torch.ones(2, 3), torch.tensor([0, 3])), "cross_entropy class out of range")
expect(IndexError, lambda: torch.ones(3)[5], "index out of range")
expect(IndexError, lambda: torch.ones(2, 2)[:, 2], "column out of range")
expect(RuntimeError, lambda: x.numpy(), "numpy of requires_grad")
expect(IndexError, lambda: nn.Embedding(3, 2)(torch.tensor([3])), "embedding index")
expect(RuntimeError, lambda: nn.Linear(2, 2).load_state_dict({"weight": torch.ones(2, 2)}), "missing bias key")
expect(RuntimeError, lambda: torch.ones(2, 2).reshape(3, -1), "reshape")
expect(RuntimeError, lambda: torch.zeros(2, 3).expand(3, 3), "expand")
expect(RuntimeError, lambda: torch.stack([torch.ones(2), torch.ones(3)]), "stack sizes")
expect(RuntimeError, lambda: torch.ones(3).squeeze(1) if False else torch.ones(2, 2).permute(0, 0), "permute repeated dim")
expect(IndexError, lambda: torch.ones(2, 2).sum(dim=2), "dim out of range")
expect(RuntimeError, lambda: nn.Conv2d(3, 4, 3)(torch.ones(1, 2, 5, 5)), "conv channels")
expect(RuntimeError, lambda: nn.Conv2d(1, 1, 3)(torch.ones(1, 1, 2, 2)), "conv kernel too big")
expect(RuntimeError, lambda: nn.LSTM(3, 4)(torch.ones(5, 2, 4)), "lstm input size")
expect(ValueError, lambda: nn.BatchNorm1d(3)(torch.ones(1, 3)), "batchnorm single sample")
expect(RuntimeError, lambda: nn.LSTM(3, 4)(torch.ones(5, 2, 3), (torch.zeros(1, 3, 4), torch.zeros(1, 3, 4))), "lstm hidden size")
expect(RuntimeError, lambda: nn.GRUCell(3, 4)(torch.ones(2, 3), torch.zeros(3, 4)), "gru cell hidden")
expect(ValueError, lambda: F.mse_loss(torch.ones(2), torch.ones(2), reduction="avg"), "bad reduction")
expect(RuntimeError, lambda: torch.randint(5, 2, (3,)), "randint low >= high")
expect(RuntimeError, lambda: torch.multinomial(torch.tensor([0.0, 0.0]), 1), "multinomial zero probs")
expect(TypeError, lambda: torch.tensor([1, 2]) + "a", "add a string")
expect(RuntimeError, lambda: torch.zeros(2, dtype=torch.long).mean(), "mean of ints")
expect(RuntimeError, lambda: torch.ones(2, 3).masked_fill(torch.ones(3, 2, dtype=torch.bool), 0.0), "masked_fill shape")
expect(ValueError, lambda: torch.optim.SGD([], lr=0.1), "empty optimizer")
expect(ValueError, lambda: torch.optim.Adam(nn.Linear(1, 1).parameters(), lr=-1), "negative lr")
