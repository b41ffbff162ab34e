"""Forward-mode AD the way the 'Forward-mode Automatic Differentiation' tutorial uses it:
fwAD.dual_level, make_dual / unpack_dual (primal and tangent), Jacobian-vector products of
elementwise, reduction and matrix functions against the closed forms, a module's jvp through
torch.func.functional_call with dual parameters, jvp columns assembling a full Jacobian,
torch.func.jvp and jacfwd agreeing with reverse mode (jacrev), and a forward-over-reverse
Hessian-vector product."""
import numpy as np
import fluxgrad as torch
import fluxgrad.autograd.forward_ad as fwAD
import fluxgrad.nn as nn
from fluxgrad.func import functional_call, jacfwd, jacrev, jvp, grad

rng = np.random.default_rng(71)
primal = torch.from_numpy(rng.standard_normal((3,))).double()
tangent = torch.from_numpy(rng.standard_normal((3,))).double()


def fn(x, y):
    return x ** 2 + torch.sin(y)


with fwAD.dual_level():
    dual = fwAD.make_dual(primal, tangent)
    print(fwAD.unpack_dual(dual).tangent is not None)
    out = fn(dual, primal)
    p, t = fwAD.unpack_dual(out)
    print(p, t, 2 * primal * tangent)
    out2 = torch.exp(dual).sum() * dual.norm()
    print(fwAD.unpack_dual(out2).tangent)
    print(fwAD.unpack_dual(torch.tanh(dual)).tangent, (1 - torch.tanh(primal) ** 2) * tangent)
    A = torch.from_numpy(rng.standard_normal((3, 3))).double()
    print(fwAD.unpack_dual(A @ dual).tangent, A @ tangent)
    unpacked = fwAD.unpack_dual(dual)
    print(torch.equal(unpacked.primal, primal), torch.equal(unpacked.tangent, tangent))
print(fwAD.unpack_dual(dual).tangent)

model = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 2)).double()
with torch.no_grad():
    for prm in model.parameters():
        prm.copy_(torch.from_numpy(rng.uniform(-0.5, 0.5, tuple(prm.shape))))
model.requires_grad_(False)
params = {name: p.detach() for name, p in model.named_parameters()}
tangents = {name: torch.ones_like(p) * 0.1 for name, p in params.items()}
with fwAD.dual_level():
    dual_params = {name: fwAD.make_dual(p, tangents[name]) for name, p in params.items()}
    out = functional_call(model, dual_params, (primal,))
    jvp_out = fwAD.unpack_dual(out).tangent
print(out.detach() if hasattr(out, "detach") else out, jvp_out)

with fwAD.dual_level():
    cols = []
    for i in range(3):
        e = torch.zeros(3, dtype=torch.float64)
        e[i] = 1.0
        cols.append(fwAD.unpack_dual(model(fwAD.make_dual(primal, e))).tangent)
J_fwd = torch.stack(cols, dim=1)
J_rev = jacrev(model)(primal)
print(J_fwd, torch.allclose(J_fwd, J_rev), torch.allclose(jacfwd(model)(primal), J_rev))
value, jv = jvp(model, (primal,), (tangent,))
print(value, jv, J_rev @ tangent)


def loss(x):
    return (model(x) ** 2).sum()


_, hvp = jvp(grad(loss), (primal,), (tangent,))
H = torch.autograd.functional.hessian(loss, primal)
print(hvp, H @ tangent)
