"""Elementwise math beyond the basics, as scientific code uses it: torch.special (erf, erfc, erfinv,
expit, logit, xlogy, xlog1py, gammaln, digamma, polygamma, multigammaln, i0, i0e, i1, ndtr, ndtri,
log_ndtr, sinc, entr, log_softmax, logsumexp, round; not zeta/gammainc), log1p/expm1/logaddexp/hypot/atan2, lerp, frac,
trunc, clamp with tensors, and gradients of a few of them."""
import math
import fluxgrad as torch

x = torch.tensor([0.1, 0.5, 0.9])
print(torch.special.erf(x), torch.special.erfc(x), torch.special.erfinv(x), torch.erfinv(torch.tensor([0.0, -0.5])))
print(torch.special.expit(torch.tensor([-2.0, 0.0, 3.0])), torch.special.logit(x), torch.special.logit(torch.tensor([0.0, 1.0]), eps=1e-6))
print(torch.special.xlogy(torch.tensor([0.0, 2.0]), torch.tensor([0.0, 3.0])), torch.xlogy(2, torch.tensor([1.0, 4.0])), torch.special.xlog1py(torch.tensor([0.0, 1.5]), torch.tensor([-1.0, 2.0])))
g = torch.tensor([0.5, 1.0, 4.5, 10.0])
print(torch.special.gammaln(g), torch.lgamma(g), torch.special.digamma(g), torch.special.polygamma(1, g), torch.mvlgamma(torch.tensor([2.5, 3.0]), p=2))
print(torch.special.multigammaln(torch.tensor([3.0]), 3), torch.special.psi(torch.tensor([2.0])), torch.polygamma(2, torch.tensor([1.5])))
print(torch.special.i0(x), torch.special.i0e(x), torch.special.i1(x), torch.special.i1e(x), torch.i0(torch.tensor([2.0])))
print(torch.special.ndtr(torch.tensor([-1.0, 0.0, 1.96])), torch.special.ndtri(torch.tensor([0.025, 0.5])), torch.special.log_ndtr(torch.tensor([-10.0, 0.0])))
print(torch.special.sinc(torch.tensor([0.0, 0.5, 1.0])), torch.sinc(torch.tensor([0.25])), torch.special.entr(torch.tensor([0.0, 0.5, 1.0, -1.0])))
print(torch.special.log_softmax(torch.tensor([1.0, 2.0, 3.0]), dim=0), torch.special.softmax(torch.tensor([1.0, 2.0]), 0), torch.special.logsumexp(torch.tensor([[1.0, 2.0], [3.0, 4.0]]), dim=1))
print(torch.special.exp2(torch.tensor([3.0])), torch.special.expm1(torch.tensor([1e-10])), torch.special.log1p(torch.tensor([1e-10])), torch.special.round(torch.tensor([2.5, -0.5])))
print(torch.log1p(torch.tensor([-0.5, 1e-8])), torch.expm1(torch.tensor([1e-8, 1.0])), torch.logaddexp(torch.tensor([-100.0, 1.0]), torch.tensor([-101.0, 2.0])), torch.logaddexp2(torch.tensor([1.0]), torch.tensor([1.0])))
print(torch.hypot(torch.tensor([3.0, 5.0]), torch.tensor([4.0, 12.0])), torch.atan2(torch.tensor([1.0, -1.0, 0.0]), torch.tensor([-1.0, -1.0, -1.0])), torch.arctan2(torch.tensor([1.0]), torch.tensor([1.0])))
print(torch.lerp(torch.tensor([0.0, 10.0]), torch.tensor([10.0, 20.0]), 0.25), torch.lerp(torch.zeros(2), torch.ones(2), torch.tensor([0.1, 0.9])), torch.frac(torch.tensor([1.5, -1.5])), torch.trunc(torch.tensor([-2.7, 2.7])))
print(torch.clamp(torch.tensor([1.0, 5.0, 9.0]), min=torch.tensor([2.0, 2.0, 2.0]), max=torch.tensor([8.0, 4.0, 8.0])), torch.float_power(torch.tensor([2]), 3), torch.float_power(torch.tensor([4.0]), 0.5).dtype)
print(torch.deg2rad(torch.tensor([180.0])), torch.rad2deg(torch.tensor([math.pi / 2])), torch.exp2(torch.tensor([10.0])), torch.log2(torch.tensor([8.0])), torch.log10(torch.tensor([1000.0])))
print(torch.sigmoid(torch.tensor([100.0, -100.0])), torch.logit(torch.tensor([0.25])), torch.nn.functional.logsigmoid(torch.tensor([-100.0, 0.0])), torch.nn.functional.softplus(torch.tensor([30.0, -30.0])))
print(torch.cosh(torch.tensor([1.0])), torch.asinh(torch.tensor([1.0])), torch.acosh(torch.tensor([2.0])), torch.atanh(torch.tensor([0.5])), torch.rsqrt(torch.tensor([4.0])), torch.reciprocal(torch.tensor([4.0])))
print(torch.heaviside(torch.tensor([-1.0, 0.0, 2.0]), torch.tensor([0.5])), torch.fmax(torch.tensor([1.0, float("nan")]), torch.tensor([float("nan"), 2.0])), torch.fmin(torch.tensor([1.0]), torch.tensor([0.5])))
print(torch.nextafter(torch.tensor([1.0]), torch.tensor([2.0])) - 1, torch.ldexp(torch.tensor([1.0]), torch.tensor([3])), torch.frexp(torch.tensor([8.0, 0.75])))
t = torch.tensor([0.3, 0.7, 1.5], requires_grad=True)
y = torch.special.erf(t).sum() + torch.lgamma(t).sum() + torch.special.xlogy(t, t).sum() + torch.special.i0(t).sum() + torch.atan2(t, t + 1).sum()
y.backward()
print(y, t.grad)
t.grad = None
torch.special.erfinv(t[:2]).sum().backward()
print(t.grad, 0.5 * math.sqrt(math.pi) * torch.exp(torch.special.erfinv(t[:2].detach()) ** 2))
t.grad = None
torch.digamma(t).sum().backward()
print(t.grad, torch.polygamma(1, t.detach()))
