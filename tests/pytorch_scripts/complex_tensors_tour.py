"""Complex tensors as the PyTorch complex-numbers note uses them: torch.complex, 1j arithmetic,
dtype cfloat/cdouble, real/imag views, abs/angle, polar, conj and conj_physical, is_complex,
view_as_real / view_as_complex, complex matmul, exp of i*theta, printing, and autograd through
abs and a real loss of complex values (the conjugate Wirtinger gradient PyTorch returns)."""
import math

import fluxgrad as torch

real = torch.tensor([1.0, 0.0, -2.0])
imag = torch.tensor([1.0, 3.0, 0.5])
z = torch.complex(real, imag)
print(z, z.dtype, z.is_complex(), real.is_complex(), torch.is_complex(z))
print(z.real, z.imag, z.abs(), z.angle(), torch.abs(z).dtype)
print(z.conj(), z.conj().resolve_conj(), torch.conj_physical(z), z * z.conj())
w = torch.tensor([1 + 2j, 3 - 1j])
print(w, w.dtype, w + 1, w * 2j, w / (1 + 1j), w.pow(2), w.exp())
p = torch.polar(torch.tensor([2.0, 1.0]), torch.tensor([0.0, math.pi / 2]))
print(p, torch.view_as_real(p), torch.view_as_real(p).shape)
pairs = torch.tensor([[1.0, -1.0], [0.5, 2.0]])
print(torch.view_as_complex(pairs), torch.view_as_complex(pairs).shape)
zc = torch.zeros(2, dtype=torch.cfloat)
zc.real = torch.tensor([3.0, 4.0])
zc.imag.fill_(1.0)
print(zc, torch.ones(2, dtype=torch.complex128), torch.randn(2, dtype=torch.cfloat).dtype)

theta = torch.linspace(0, math.pi, 5)
unit = torch.exp(1j * theta)
print(unit.abs(), unit.angle(), (unit.real ** 2 + unit.imag ** 2))
a = torch.tensor([[1 + 1j, 2], [0, 1 - 1j]])
b = torch.tensor([[1j], [2 + 0j]])
print(a.dtype, a @ b, a.T.conj(), a.mH, torch.linalg.det(a))
print(torch.sum(z), torch.mean(z), z.sqrt(), torch.sgn(z), z.reciprocal())

x = torch.tensor([3.0, 4.0], requires_grad=True)
y = torch.tensor([1.0, -1.0], requires_grad=True)
c = torch.complex(x, y)
loss = (c * c.conj()).real.sum() + c.abs().sum()
loss.backward()
print(loss, x.grad, y.grad)

zc = torch.tensor([1 + 1j, -2 + 0.5j], requires_grad=True)
(zc.abs() ** 2).sum().backward()
print(zc.grad)
zc.grad = None
(zc * torch.tensor([2 - 1j, 1j])).real.sum().backward()
print(zc.grad)
