"""How tensors and friends print under torch.set_printoptions, as notebooks change it: precision,
sci_mode True/False, threshold and edgeitems summarising long and 2-D tensors, linewidth wrapping,
profile='short' / 'full' / 'default', then repr/str of Parameters, tensors with requires_grad,
empty and 0-d tensors, int/bool/float16/float64 tensors, torch.Size, dtypes, devices, named-tuple
results (max, sort, topk), and f-string formatting of 0-d tensors."""
import fluxgrad as torch
import fluxgrad.nn as nn

x = torch.arange(12, dtype=torch.float32).reshape(3, 4) / 7
big = torch.arange(1000, dtype=torch.float32)
print(x)
torch.set_printoptions(precision=2)
print(x, torch.tensor([1e-5, 1.0]))
torch.set_printoptions(precision=6)
print(x[0])
torch.set_printoptions(sci_mode=True)
print(x[1], torch.tensor([0.5, 100.0]))
torch.set_printoptions(sci_mode=False)
print(torch.tensor([1e-8, 1e8, 1.0]))
torch.set_printoptions(profile="default")
print(big)
torch.set_printoptions(threshold=10, edgeitems=2)
print(big, torch.arange(30).reshape(5, 6))
torch.set_printoptions(profile="default")
torch.set_printoptions(linewidth=40)
print(torch.linspace(0, 1, 12))
torch.set_printoptions(profile="short")
print(x, big)
torch.set_printoptions(profile="default")
print(x)

p = nn.Parameter(torch.tensor([1.0, -2.0]))
print(p, repr(p), str(p.data))
print(torch.tensor([0.5, 1.5], requires_grad=True), torch.tensor(3.25), torch.tensor(7))
print(torch.empty(0), torch.zeros(2, 0), torch.tensor([[]]), torch.ones(0, 3).shape)
print(torch.tensor([True, False]), torch.tensor([1, -20, 300]), torch.tensor([1.5, 2.0], dtype=torch.float16))
print(torch.tensor([1.0, 2.5], dtype=torch.float64), torch.tensor([1, 2], dtype=torch.int32), torch.tensor([0.1, 1234.5678]))
print(torch.Size([2, 3]), torch.float32, torch.int64, torch.bool, torch.device("cpu"), x.device, x.dtype)
print(repr(torch.Size([])), torch.Size([4]).numel(), list(torch.Size([2, 3])), str(torch.zeros(2).shape))
print(x.max(dim=1))
print(torch.sort(torch.tensor([3, 1, 2])))
print(torch.topk(torch.tensor([0.3, 0.9, 0.1]), 2))
t = torch.tensor(3.14159)
print(f"{t:.2f}", f"{t.item():.3f}", "{:.1f}".format(torch.tensor(2.55)), str(t), float(t), int(torch.tensor(9)))
print(torch.tensor([float("nan"), float("inf"), -float("inf"), 1.0]), torch.tensor([1e20, 1.0]), torch.tensor([123456789.0]))
print(torch.tensor([[1.0, -1.0], [0.001, 1000.0]]))
print(torch.zeros(2, 2, 2, dtype=torch.int8), torch.tensor(float("nan")))
