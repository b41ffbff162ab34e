"""Type promotion, and the exceptions users catch (types and the parts of messages they test)."""
import fluxgrad as torch
import fluxgrad.nn as nn
import fluxgrad.nn.functional as F

i = torch.tensor([1, 2, 3])
f = torch.tensor([0.5, 1.5, 2.5])
d = torch.tensor([1.0], dtype=torch.float64)
b = torch.tensor([True, False, True])
print((i + f).dtype, (i * 2).dtype, (i * 2.0).dtype, (i / 2).dtype, (i // 2).dtype, (f + d).dtype)
print((b + b).dtype, (b + 1).dtype, (b * 1.5).dtype, (i + torch.tensor(1.5)).dtype, (f + torch.tensor(1, dtype=torch.float64)).dtype)
print((torch.tensor([1], dtype=torch.int32) + 5).dtype, (torch.tensor([1], dtype=torch.int8) + torch.tensor([1], dtype=torch.uint8)).dtype)
print(torch.result_type(i, 1.0), torch.promote_types(torch.int32, torch.float32), torch.can_cast(torch.float64, torch.int32))
print(i.sum().dtype, b.sum().dtype, i.mean(dtype=torch.float32), f.int().dtype, i.float().mean(), torch.tensor([1, 2]).prod().dtype)
print((i > 1).dtype, (i == i).all().dtype, i.argmax().dtype, torch.sqrt(i.float()).dtype, torch.exp(torch.tensor([0])).dtype)
print(torch.tensor([3, 4]).float().norm(), torch.arange(5).dtype, torch.arange(5.0).dtype, torch.arange(0, 1, 0.25).dtype)
print(torch.zeros(2, dtype=torch.int64).to(torch.float32).dtype, torch.ones(2).long().dtype, torch.tensor(2.7).long())
print(torch.tensor([-1.7, 1.7]).int(), torch.tensor([300]).to(torch.uint8), torch.tensor([1.5]).bool())


def check(label, expected, fn):
    """Whether `fn` raises an `expected` (PyTorch's type; fluxgrad's errors may subclass it)."""
    try:
        fn()
        print(label, "no error")
    except Exception as e:
        print(label, expected.__name__, isinstance(e, expected))


check("matmul shapes", RuntimeError, lambda: torch.ones(2, 3) @ torch.ones(2, 3))
check("add shapes", RuntimeError, lambda: torch.ones(2, 3) + torch.ones(4))
check("index out of range", IndexError, lambda: torch.ones(3)[5])
check("dim out of range", IndexError, lambda: torch.ones(3).sum(dim=2))
check("view bad", RuntimeError, lambda: torch.ones(2, 3).view(4, 2))
check("cat mismatch", RuntimeError, lambda: torch.cat([torch.ones(2, 3), torch.ones(2, 4)]))
check("linear dtype", RuntimeError, lambda: nn.Linear(2, 2)(torch.ones(1, 2, dtype=torch.float64)))
check("linear shape", RuntimeError, lambda: nn.Linear(3, 2)(torch.ones(4, 2)))
check("ce target dtype", RuntimeError, lambda: F.cross_entropy(torch.ones(2, 3), torch.tensor([0.0, 1.0])))
check("ce target range", IndexError, lambda: F.cross_entropy(torch.ones(2, 3), torch.tensor([0, 5])))
check("backward no grad", RuntimeError, lambda: torch.ones(2).sum().backward())
check("inplace leaf", RuntimeError, lambda: torch.ones(2, requires_grad=True).add_(1))
check("numpy requires grad", RuntimeError, lambda: torch.ones(2, requires_grad=True).numpy())
check("item multi", RuntimeError, lambda: torch.ones(2).item())
check("reshape bad", RuntimeError, lambda: torch.arange(6).reshape(4, -1))
check("embedding oob", IndexError, lambda: nn.Embedding(3, 2)(torch.tensor([3])))
check("conv channels", RuntimeError, lambda: nn.Conv2d(3, 4, 3)(torch.ones(1, 2, 5, 5)))
check("stack shapes", RuntimeError, lambda: torch.stack([torch.ones(2), torch.ones(3)]))
check("gather dims", RuntimeError, lambda: torch.gather(torch.ones(2, 2), 1, torch.tensor([0, 1])))
check("int grad", RuntimeError, lambda: torch.tensor([1, 2], requires_grad=True))
check("squeeze ok", Exception, lambda: torch.ones(2).squeeze(0))
check("bool bad", RuntimeError, lambda: bool(torch.ones(2)))
check("optimizer empty", ValueError, lambda: torch.optim.SGD([], lr=0.1))
check("optimizer lr", ValueError, lambda: torch.optim.Adam([nn.Parameter(torch.ones(1))], lr=-1))
check("grad twice", RuntimeError, lambda: [y.backward() for y in [(torch.ones(1, requires_grad=True) ** 2).sum()] * 2])
check("expand bad", RuntimeError, lambda: torch.ones(2, 3).expand(3, 3))
check("mse shape", RuntimeError, lambda: F.mse_loss(torch.ones(2, 3), torch.ones(3, 2)))
check("split size", RuntimeError, lambda: torch.ones(5).split([2, 2]))
check("permute dims", RuntimeError, lambda: torch.ones(2, 3).permute(0))
check("topk k", RuntimeError, lambda: torch.ones(3).topk(5))
check("arange step", RuntimeError, lambda: torch.arange(0, 5, 0))
check("randint range", RuntimeError, lambda: torch.randint(5, 2, (3,)))
check("max empty", RuntimeError, lambda: torch.tensor([]).max())
check("load missing", FileNotFoundError, lambda: torch.load("/nonexistent/file.pt"))
