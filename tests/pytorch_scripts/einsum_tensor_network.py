"""einsum the way physics and ML reference code uses it: bilinear forms, batched outer
products, traces and diagonals ('ii->', 'ii->i'), a matrix-product-state contraction,
ellipsis broadcasting, the sublist call form, equivalence with matmul/bmm/tensordot, and
gradients through a chained contraction."""
import numpy as np
import fluxgrad as torch

rng = np.random.default_rng(53)


def t(*shape, grad=False):
    return torch.tensor(rng.standard_normal(shape), dtype=torch.float64, requires_grad=grad)


A, x, y = t(3, 3), t(3), t(3)
print(torch.einsum("i,ij,j->", x, A, y), x @ A @ y)
print(torch.einsum("ii->", A), torch.trace(A), torch.einsum("ii->i", A), torch.diagonal(A))
print(torch.einsum("ij->ji", A).equal(A.T))
B = t(2, 3, 4)
C = t(2, 4, 5)
print(torch.allclose(torch.einsum("bij,bjk->bik", B, C), torch.bmm(B, C)))
print(torch.einsum("bi,bj->bij", t(2, 2), t(2, 3)).shape)
D = t(3, 4, 5)
E = t(5, 4, 2)
print(torch.allclose(torch.einsum("abc,cbd->ad", D, E), torch.tensordot(D, E, dims=([1, 2], [1, 0]))))
print(torch.einsum("...ij,...jk->...ik", t(2, 1, 2, 3), t(4, 3, 2)).shape)
print(torch.einsum(x, [0], A, [0, 1], [1]), x @ A)
print(torch.einsum("i,i", x, y), torch.dot(x, y), torch.einsum("i,j", x, y).shape)

sites = [t(1, 2, 3, grad=True), t(3, 2, 3, grad=True), t(3, 2, 1, grad=True)]
config = [0, 1, 1]
amp = torch.ones(1, 1, dtype=torch.float64)
for site, s in zip(sites, config):
    amp = torch.einsum("ab,bc->ac", amp, site[:, s, :])
print(amp)
psi = torch.einsum("aib,bjc,ckd->ijk", *sites)
norm = torch.einsum("ijk,ijk->", psi, psi)
print(psi[0, 1, 1], norm)
(amp.squeeze() / norm.sqrt()).backward()
print(sites[0].grad, sites[2].grad.squeeze())
W = t(4, 3, grad=True)
h = torch.einsum("bnd,hd->bnh", t(2, 5, 3), W).relu()
h.sum().backward()
print(W.grad)
