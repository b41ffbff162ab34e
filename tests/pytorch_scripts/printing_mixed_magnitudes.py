"""What print shows for the tensors people actually print while debugging: mixed magnitudes
that switch to scientific notation, integers with negatives and large values, bools, float64,
0-d tensors and their .item(), empty tensors of several shapes, nan/inf mixed in, tensors with
requires_grad and grad_fn, set_printoptions(precision=2 / sci_mode=False / threshold+edgeitems /
linewidth) and back to the default profile, and str.format of .item()."""
import fluxgrad as torch

print(torch.tensor([1e-5, 1.0, 1e5]))
print(torch.tensor([0.001, 0.01, 0.1]), torch.tensor([123456.0, 1.5]))
print(torch.tensor([1e10, 1e-10]), torch.tensor([1.0, 2.0, 3.0]) * 1e8)
print(torch.tensor([[-1, 20, 300], [4000, -50000, 6]]))
print(torch.tensor([2 ** 40, -3]), torch.tensor([True, False, True]))
print(torch.tensor([0.1, 0.25], dtype=torch.float64), torch.tensor(3.14159, dtype=torch.float64))
print(torch.tensor(2.5), torch.tensor(7), torch.tensor(False), torch.tensor(-0.0))
print(torch.tensor(2.5).item(), torch.tensor(7).item(), "{:.3f}".format(torch.tensor(1 / 3).item()))
print(torch.empty(0), torch.zeros(0, 3), torch.ones(2, 0, dtype=torch.int64), torch.tensor([], dtype=torch.bool))
print(torch.tensor([float("nan"), 1.5, float("inf"), -float("inf")]))
print(torch.tensor([float("nan"), 100000.0, 0.0001]))
print(torch.tensor([[1.0, float("nan")], [float("-inf"), 2.0]], dtype=torch.float64))
w = torch.tensor([0.5, -1.5], requires_grad=True)
print(w, w * 2, (w ** 2).sum())
print(torch.nn.Parameter(torch.tensor([1.0, 2.0])))
print(torch.arange(12).reshape(3, 4).float() / 7)
print(torch.linspace(-1, 1, 5, dtype=torch.float64))

torch.set_printoptions(precision=2)
print(torch.tensor([1.23456, 2.34567, 1e-4]), torch.tensor(3.14159))
torch.set_printoptions(sci_mode=False)
print(torch.tensor([1e-5, 1.0, 1e5]), torch.tensor([1e-8, 1.0]))
torch.set_printoptions(threshold=5, edgeitems=2)
print(torch.arange(10), torch.arange(30.0).reshape(6, 5))
torch.set_printoptions(linewidth=40)
print(torch.arange(20) * 1000)
torch.set_printoptions(profile="default")
print(torch.tensor([1e-5, 1.0, 1e5]), torch.arange(1001)[-3:], torch.arange(1001).sum())
print(torch.arange(1200).reshape(2, 600).float())
print(repr(torch.tensor([1, 2], dtype=torch.uint8)), repr(torch.tensor([1.0], dtype=torch.float16)))
print(torch.tensor([[0.5]]).shape, torch.tensor([[0.5]]).dtype, torch.tensor([1, 2]).dtype, torch.zeros(2, 3).size(1))
