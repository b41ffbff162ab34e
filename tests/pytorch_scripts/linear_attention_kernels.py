"""Linear attention as "Transformers are RNNs" (Katharopoulos et al.) and its reference code write
it: the elu(x) + 1 feature map, non-causal attention as phi(Q) (phi(K)^T V) with the normaliser
phi(Q) sum phi(K), equal to softmax-free quadratic attention with the same kernel; causal linear
attention by torch.cumsum of the outer products K^T V (einsum 'nhsd,nhsm->nhsdm') against a
tril-masked quadratic version and against an explicit RNN loop over steps; and Performer-style
positive random features (the projection drawn in NumPy) approximating softmax attention."""
import math

import numpy as np
import fluxgrad as torch
import fluxgrad.nn.functional as F

rng = np.random.default_rng(2020)
N, H, S, D, M = 2, 2, 7, 4, 3
Q = torch.from_numpy(rng.normal(size=(N, H, S, D)).astype(np.float64))
K = torch.from_numpy(rng.normal(size=(N, H, S, D)).astype(np.float64))
V = torch.from_numpy(rng.normal(size=(N, H, S, M)).astype(np.float64)).requires_grad_()


def elu_feature_map(x):
    return F.elu(x) + 1


phi_q, phi_k = elu_feature_map(Q), elu_feature_map(K)
kv = torch.einsum("nhsd,nhsm->nhdm", phi_k, V)
z = 1 / (torch.einsum("nhsd,nhd->nhs", phi_q, phi_k.sum(dim=2)) + 1e-6)
linear_out = torch.einsum("nhsd,nhdm,nhs->nhsm", phi_q, kv, z)
scores = phi_q @ phi_k.transpose(-2, -1)
quadratic = (scores / scores.sum(-1, keepdim=True)) @ V
print(linear_out.shape, torch.allclose(linear_out, quadratic, atol=1e-6), linear_out[0, 0, 0])

kv_cum = torch.cumsum(torch.einsum("nhsd,nhsm->nhsdm", phi_k, V), dim=2)
k_cum = torch.cumsum(phi_k, dim=2)
causal = torch.einsum("nhsd,nhsdm->nhsm", phi_q, kv_cum) / torch.einsum("nhsd,nhsd->nhs", phi_q, k_cum).unsqueeze(-1)
masked = scores.masked_fill(torch.triu(torch.ones(S, S, dtype=torch.bool), 1), 0.0)
causal_quadratic = (masked / masked.sum(-1, keepdim=True)) @ V
print(torch.allclose(causal, causal_quadratic, atol=1e-8), causal[1, 1, -1])

state = torch.zeros(N, H, D, M, dtype=torch.float64)
norm = torch.zeros(N, H, D, dtype=torch.float64)
outs = []
for i in range(S):
    state = state + phi_k[:, :, i, :, None] * V[:, :, i, None, :]
    norm = norm + phi_k[:, :, i]
    outs.append(torch.einsum("nhd,nhdm->nhm", phi_q[:, :, i], state) / (phi_q[:, :, i] * norm).sum(-1, keepdim=True))
rnn = torch.stack(outs, dim=2)
print(torch.allclose(rnn, causal, atol=1e-10))
causal.sum().backward()
grad_v = V.grad.clone()
V.grad = None
rnn.sum().backward()
print(torch.allclose(grad_v, V.grad), grad_v[0, 0, :3])

n_features = 256
omega = torch.from_numpy(rng.normal(size=(D, n_features)))


def positive_random_features(x):
    x = x / D ** 0.25
    proj = x @ omega
    return torch.exp(proj - (x ** 2).sum(-1, keepdim=True) / 2) / math.sqrt(n_features)


qf, kf = positive_random_features(Q * 0.5), positive_random_features(K * 0.5)
approx = (qf @ kf.transpose(-2, -1))
approx = approx / approx.sum(-1, keepdim=True)
exact = torch.softmax((Q * 0.5) @ (K * 0.5).transpose(-2, -1) / math.sqrt(D), dim=-1)
print((approx - exact).abs().max() < 0.1, approx[0, 0, 0], exact[0, 0, 0])
