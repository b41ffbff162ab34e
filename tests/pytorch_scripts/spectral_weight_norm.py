"""Weight normalisation and spectral normalisation as GAN / RNN code uses them: the classic hooks
nn.utils.weight_norm / spectral_norm (weight_g, weight_v, weight_orig, u and v buffers, remove_*),
and the parametrization versions (parametrizations.weight.original0/1), gradients flowing to the
decomposed parameters, and the spectral norm's largest singular value driven to 1 by power
iteration."""
import numpy as np
import fluxgrad as torch
import fluxgrad.nn as nn
from fluxgrad.nn.utils import parametrizations, parametrize

rng = np.random.default_rng(21)


def fixed_linear(i, o):
    layer = nn.Linear(i, o)
    with torch.no_grad():
        layer.weight.copy_(torch.from_numpy(rng.standard_normal((o, i)).astype(np.float32)))
        layer.bias.copy_(torch.from_numpy(rng.standard_normal(o).astype(np.float32)))
    return layer


lin = nn.utils.weight_norm(fixed_linear(4, 3))
print(sorted(n for n, _ in lin.named_parameters()))
print(lin.weight_g.shape, lin.weight_v.shape, lin.weight_g.flatten())
x = torch.from_numpy(rng.standard_normal((5, 4)).astype(np.float32))
out = lin(x)
out.pow(2).sum().backward()
print(out[0], lin.weight_g.grad.flatten(), lin.weight_v.grad[0])
nn.utils.remove_weight_norm(lin)
print(sorted(n for n, _ in lin.named_parameters()), lin(x)[0])

wn_dim1 = nn.utils.weight_norm(fixed_linear(3, 2), dim=1)
print(wn_dim1.weight_g.shape, wn_dim1.weight_g)
conv = nn.utils.weight_norm(nn.Conv1d(2, 3, 2))
print(conv.weight_g.shape, list(conv.state_dict().keys()))

plin = parametrizations.weight_norm(fixed_linear(4, 3))
print(plin)
print(sorted(n for n, _ in plin.named_parameters()))
print(plin.parametrizations.weight.original0.flatten(), parametrize.is_parametrized(plin))
y = plin(x)
y.sum().backward()
print(y[1], plin.parametrizations.weight.original0.grad.flatten())
parametrize.remove_parametrizations(plin, "weight")
print(sorted(n for n, _ in plin.named_parameters()), plin(x)[1])

sn = nn.utils.spectral_norm(fixed_linear(4, 4), n_power_iterations=3)
print(sorted(n for n, _ in sn.named_parameters()), sorted(n for n, _ in sn.named_buffers()))
print(sn.weight_u.shape, sn.weight_v.shape, list(sn.state_dict().keys()))
for _ in range(30):
    sn(x)
print(f"{torch.linalg.matrix_norm(sn.weight, ord=2).item():.4f}")
sn.eval()
print(torch.allclose(sn(x), x @ sn.weight.t() + sn.bias))
nn.utils.remove_spectral_norm(sn)
print(f"{torch.linalg.svdvals(sn.weight)[0].item():.4f}", sorted(n for n, _ in sn.named_parameters()))

psn = parametrizations.spectral_norm(fixed_linear(5, 3))
for _ in range(30):
    psn(x[:, :1].repeat(1, 5))
print(f"{torch.linalg.svdvals(psn.weight)[0].item():.4f}", psn.weight.shape)
print(sorted(n for n, _ in psn.named_parameters()), sorted(n for n, _ in psn.named_buffers()))
w_orig = psn.parametrizations.weight.original
print(f"{torch.linalg.svdvals(w_orig)[0].item():.4f}")
psn.eval()
a = psn.weight
print(torch.equal(a, psn.weight))

disc = nn.Sequential(nn.utils.spectral_norm(nn.Conv2d(1, 4, 3, stride=2)), nn.LeakyReLU(0.2), nn.Flatten(), nn.utils.spectral_norm(nn.Linear(4 * 3 * 3, 1)))
print(disc)
print(disc(torch.zeros(2, 1, 7, 7)).shape, disc[0].weight_orig.shape)
