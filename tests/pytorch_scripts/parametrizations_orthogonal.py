"""nn.utils.parametrizations.orthogonal as in the 'Parametrizations' tutorial and orthogonal
RNN code: square weights under the matrix exponential, Cayley and Householder maps, the
ParametrizedLinear repr, assigning an orthogonal matrix to the weight, the original and base
tensors, training that keeps W^T W = I, and removing the parametrization."""
import numpy as np
import fluxgrad as torch
import fluxgrad.nn as nn
from fluxgrad.nn.utils import parametrize
from fluxgrad.nn.utils.parametrizations import orthogonal

rng = np.random.default_rng(20)


def layer(n):
    lin = nn.Linear(n, n)
    with torch.no_grad():
        lin.weight.copy_(torch.from_numpy(rng.normal(0, 1, (n, n)).astype(np.float32)))
        lin.bias.copy_(torch.from_numpy(rng.normal(0, 0.1, n).astype(np.float32)))
    return lin


x = torch.from_numpy(rng.standard_normal((8, 4)).astype(np.float32))
target = torch.from_numpy(rng.standard_normal((8, 4)).astype(np.float32))
for orthogonal_map in ["matrix_exp", "cayley", "householder"]:
    lin = orthogonal(layer(4), orthogonal_map=orthogonal_map)
    W = lin.weight
    print(orthogonal_map, torch.dist(W.T @ W, torch.eye(4)).item() < 1e-5, W[0])
    opt = torch.optim.Adam(lin.parameters(), lr=0.05)
    for step in range(20):
        loss = nn.functional.mse_loss(lin(x), target)
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % 10 == 9:
            print(step, round(loss.item(), 5))
    W = lin.weight
    print(torch.dist(W.T @ W, torch.eye(4)).item() < 1e-4, round(torch.det(W).item(), 4))
print(lin)
print(parametrize.is_parametrized(lin), parametrize.is_parametrized(lin, "bias"))
print(lin.parametrizations.weight.original.shape, lin.parametrizations.weight[0].base.shape)
print(sorted(name for name, _ in lin.named_parameters()))
print(sorted(lin.state_dict().keys()))
Q = torch.linalg.qr(torch.from_numpy(rng.standard_normal((4, 4)).astype(np.float32)))[0]
lin.weight = Q
print(torch.allclose(lin.weight, Q, atol=1e-5))
rnn_weight = orthogonal(nn.Linear(3, 3, bias=False), use_trivialization=False,
                        orthogonal_map="householder")
print(torch.dist(rnn_weight.weight @ rnn_weight.weight.T, torch.eye(3)).item() < 1e-5)
parametrize.remove_parametrizations(lin, "weight")
print(type(lin).__name__, torch.allclose(lin.weight, Q, atol=1e-5), isinstance(lin.weight, nn.Parameter))
try:
    orthogonal(nn.Linear(3, 3), "bias")
except ValueError as e:
    print("1-d tensor: ValueError")
