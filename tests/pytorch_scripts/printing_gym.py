"""How tensors print, in the cases tutorials show: integer, bool and float64 tensors, negative zero,
mixed magnitudes switching to scientific notation, nan/inf among numbers, empty and 0-d tensors,
large tensors summarised with '...', requires_grad and grad_fn suffixes, dtype suffixes, Size and
dtype reprs, str vs repr, f-strings of .item(), and tolist/numpy round trips."""
import numpy as np
import fluxgrad as torch

print(torch.tensor([1, -2, 300]), torch.tensor([True, False]), torch.tensor([1.5, 2.0], dtype=torch.float64))
print(torch.tensor([0.0, -0.0, 1.0]), torch.tensor([1.0, 2.0, 3.0]), torch.tensor([1.0, 2.5]), torch.tensor([100.0, 0.001]))
print(torch.tensor([1e-5, 1.0, 1e5]), torch.tensor([1e10, 1.0]), torch.tensor([123456.0, 1.5]), torch.tensor([0.1, 0.25, 1e-3]))
print(torch.tensor([float("nan"), 1.0, float("inf"), -float("inf")]), torch.tensor([float("nan")]), torch.tensor([1e-10, float("nan")]))
print(torch.tensor([]), torch.zeros(0, 3), torch.tensor(3.5), torch.tensor(7), torch.tensor(True), torch.tensor(-0.0), torch.empty(2, 0))
print(torch.arange(2000.0), torch.arange(1500).view(30, 50))
print(torch.arange(24.0).view(2, 3, 4), torch.ones(1, 1, 1))
print(torch.tensor([1.0, 2.0], requires_grad=True), torch.tensor([1.0], requires_grad=True) * 2, torch.tensor(2.0, requires_grad=True).exp())
print(torch.ones(2, dtype=torch.int32), torch.ones(2, dtype=torch.float16), torch.ones(2, dtype=torch.uint8), torch.zeros(2, dtype=torch.int8), torch.ones(1, dtype=torch.int16))
print(torch.tensor([[1.123456, 22.5], [333.0, 0.5]]), torch.tensor([[1e-3, 1e3]]), torch.tensor([1.0e-4, 9.9e-5]))
print(torch.Size([2, 3]), torch.zeros(2, 3).shape, torch.float32, torch.int64, torch.bool, torch.zeros(1).dtype, torch.zeros(1).device, torch.device("cpu"))
t = torch.tensor([[0.5, 1.5], [2.5, 3.5]])
print(str(t) == repr(t), repr(t.shape), t.shape == (2, 2), tuple(t.shape), list(t.size()), t.size(-1), t.shape[0] * 2)
print(f"{t.sum().item():.3f}", f"{t.mean():.2f}", format(t[0, 0].item(), ".1e"), t.tolist(), t.numpy().dtype, type(t.tolist()[0][0]).__name__)
print(torch.from_numpy(np.array([[1, 2]], dtype=np.int32)), torch.as_tensor([1.0, 2.0], dtype=torch.float64), torch.tensor(np.float64(2.5)), torch.tensor([np.int64(3)]))
print(torch.tensor([[1, 2], [3, 4]]).T, torch.linspace(0, 1, 5), torch.logspace(0, 2, 3), torch.full((2, 2), 7.0), torch.eye(2, dtype=torch.int64))
print(torch.tensor([-1.5, 2.25]) * 1000000, torch.tensor([2.0]) ** 40, torch.tensor([1 / 3]), torch.tensor([2 / 3], dtype=torch.float64))
print(torch.randn(3).shape, torch.zeros(3, 1).squeeze(-1), torch.tensor([[5]]).item(), torch.tensor([1, 2]).numpy(), torch.tensor([0.5]).numpy())
