"""Special functions in statistics code: the Riemann and Hurwitz zeta (Basel sum, polygamma
through zeta), the regularized incomplete gamma functions as the chi-square and Poisson CDFs,
their gradients in x (and the gamma density they give), torch.igamma spellings, and gammaln /
digamma / polygamma alongside."""
import math
import fluxgrad as torch

s = torch.tensor([2.0, 3.0, 4.0, 6.0], dtype=torch.float64)
z = torch.special.zeta(s, 1.0)
print(z)
print(z[0].item(), math.pi ** 2 / 6, z[2].item(), math.pi ** 4 / 90)
q = torch.tensor([0.5, 1.0, 2.5, 10.0], dtype=torch.float64)
print(torch.special.zeta(2.0, q))
print(torch.allclose(torch.special.polygamma(1, q), torch.special.zeta(2.0, q)))
print(torch.allclose(torch.special.polygamma(2, q), -2 * torch.special.zeta(3.0, q)))
print(torch.special.zeta(torch.tensor([1.0, 0.5]), torch.tensor([1.0, 1.0])))
print(torch.special.zeta(torch.tensor([2.0, 3.0]), torch.tensor([0.0, -2.0])))
k = torch.tensor([1.0, 2.0, 5.0, 10.0])
x = torch.tensor([0.5, 2.0, 4.0, 12.0])
chi2_cdf = torch.special.gammainc(k / 2, x / 2)
print(chi2_cdf)
print(torch.special.gammaincc(k / 2, x / 2) + chi2_cdf)
rate = torch.tensor(3.5, dtype=torch.float64)
counts = torch.arange(0, 8, dtype=torch.float64)
pmf = torch.exp(counts * torch.log(rate) - rate - torch.lgamma(counts + 1))
cdf_direct = torch.cumsum(pmf, 0)
cdf_gamma = torch.special.gammaincc(counts + 1, rate.expand(8))
print(torch.allclose(cdf_direct, cdf_gamma), cdf_gamma[:4])
a = torch.tensor([0.5, 1.0, 2.0, 5.0], dtype=torch.float64)
xs = torch.tensor([0.3, 1.0, 2.5, 4.0], dtype=torch.float64, requires_grad=True)
p = torch.special.gammainc(a, xs)
p.sum().backward()
density = torch.exp((a - 1) * torch.log(xs.detach()) - xs.detach() - torch.special.gammaln(a))
print(xs.grad, torch.allclose(xs.grad, density))
qq = torch.tensor([1.5, 3.0], requires_grad=True)
torch.special.zeta(torch.tensor([2.0, 4.0]), qq).sum().backward()
print(qq.grad)
try:
    aa = torch.tensor([1.0, 2.0], requires_grad=True)
    torch.special.gammaincc(aa, torch.tensor([1.0, 1.0])).sum().backward()
except NotImplementedError:
    print("no gradient in a: NotImplementedError")
print(torch.igamma(torch.tensor([2.0]), torch.tensor([3.0])), torch.tensor([2.0]).igammac(torch.tensor([3.0])))
print(torch.special.gammainc(torch.tensor([0.0, 1.0, 2.0]), torch.tensor([1.0, 0.0, float("inf")])))
try:
    torch.special.gammaincc(torch.tensor([1, 2]), torch.tensor([1, 2]))
except NotImplementedError:
    print("integer tensors: NotImplementedError")
print(torch.special.gammaincc(torch.tensor([1, 2]), torch.tensor([1.0, 2.0])).dtype)
print(torch.special.zeta(torch.tensor([2, 3]), torch.tensor([1, 2])).dtype)
print(torch.special.digamma(torch.tensor([1.0, 0.5])), torch.special.multigammaln(torch.tensor(2.5), 2))
