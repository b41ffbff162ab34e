"""What print(tensor) shows for values that change its format: mixed magnitudes (scientific
notation), nan/inf among finite values, negative zero, very small and large integers in
floats, int8/uint8/int16/bool/float16/float64 dtypes, 0-d and empty tensors, requires_grad
and grad_fn suffixes, and set_printoptions(precision, sci_mode, threshold, edgeitems)."""
import fluxgrad as torch

print(torch.tensor([1e-5, 1.0, 1000.0]))
print(torch.tensor([1.0, 2.0, 3.0e8]))
print(torch.tensor([0.1, float("nan"), float("inf"), -float("inf")]))
print(torch.tensor([-0.0, 0.0, 1.5]))
print(torch.tensor([123456.0, 7.0]), torch.tensor([1.0, 2.0, 3.0]))
print(torch.tensor([1, -2, 3], dtype=torch.int8), torch.tensor([200, 3], dtype=torch.uint8))
print(torch.tensor([[True, False], [False, False]]), torch.tensor([300, -4], dtype=torch.int16))
print(torch.tensor([0.1, 2.5], dtype=torch.float16), torch.tensor([1 / 3, 2 / 3], dtype=torch.float64))
print(torch.tensor(3.25), torch.tensor(7), torch.tensor(True), torch.tensor(2.0, dtype=torch.float64))
print(torch.zeros(0), torch.zeros(2, 0), torch.zeros(0, dtype=torch.int64), torch.ones(0, 3, dtype=torch.float64))
w = torch.tensor([0.5, -1.25], requires_grad=True)
print(w, w * 2, (w * 2).sum(), w.detach())
print(torch.arange(12).reshape(2, 2, 3))
print(torch.linspace(0, 1, 7) * 1e-3)
print(torch.tensor([[1e10, 1.0], [2.0, 3.0]]))
print(repr(torch.tensor([1.5, 2.5]).dtype), torch.tensor([1, 2]).shape, torch.ones(2).device, torch.float32, torch.long, torch.half)
print(torch.tensor([1.0, 2.0]).shape == (2,), str(torch.Size([3, 4])), torch.Size([3, 4]).numel())
torch.set_printoptions(precision=2)
print(torch.tensor([3.14159, 2.71828, 1.41421]))
torch.set_printoptions(sci_mode=True)
print(torch.tensor([3.14159, 200.0]))
torch.set_printoptions(sci_mode=False, precision=3)
print(torch.tensor([1e-6, 1.0]))
torch.set_printoptions(threshold=5, edgeitems=2)
print(torch.arange(10.0), torch.arange(20).reshape(4, 5))
torch.set_printoptions(profile="default")
print(torch.arange(10.0) / 3)
print(f"{torch.tensor(2.5):.3f}", f"{torch.tensor(1.0)}", "{}".format(torch.tensor([1, 2])))
