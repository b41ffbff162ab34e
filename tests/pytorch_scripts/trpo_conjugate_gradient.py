"""The natural-gradient step of TRPO: flat parameters and gradients with
parameters_to_vector / vector_to_parameters, Fisher-vector products of the mean KL by double
backward (autograd.grad with create_graph then a dot product), conjugate gradient, the step
scaled to the KL radius, and a backtracking line search that restores the flat weights."""
import numpy as np
import fluxgrad as torch
import fluxgrad.nn as nn
from fluxgrad.distributions import Categorical, kl_divergence
from fluxgrad.nn.utils import parameters_to_vector, vector_to_parameters

rng = np.random.default_rng(107)
policy = nn.Sequential(nn.Linear(3, 8), nn.Tanh(), nn.Linear(8, 2))
with torch.no_grad():
    for p in policy.parameters():
        p.copy_(torch.tensor(rng.uniform(-0.5, 0.5, tuple(p.shape)), dtype=torch.float32))
obs = torch.tensor(rng.standard_normal((10, 3)), dtype=torch.float32)
actions = torch.tensor(rng.integers(0, 2, 10))
advantages = torch.tensor(rng.standard_normal(10), dtype=torch.float32)
with torch.no_grad():
    old_logits = policy(obs)
old_dist = Categorical(logits=old_logits)


def surrogate():
    dist = Categorical(logits=policy(obs))
    return (torch.exp(dist.log_prob(actions) - old_dist.log_prob(actions)) * advantages).mean()


def mean_kl():
    return kl_divergence(old_dist, Categorical(logits=policy(obs))).mean()


params = list(policy.parameters())
loss = surrogate()
g = parameters_to_vector(torch.autograd.grad(loss, params))
print(loss.item(), g.shape, g.norm().item())


def fisher_vector_product(v, damping=0.1):
    kl = mean_kl()
    grads = torch.autograd.grad(kl, params, create_graph=True)
    flat = torch.cat([gr.reshape(-1) for gr in grads])
    kl_v = (flat * v).sum()
    hv = torch.autograd.grad(kl_v, params)
    return torch.cat([h.contiguous().view(-1) for h in hv]) + damping * v


def conjugate_gradient(Avp, b, iters=10, tol=1e-10):
    x = torch.zeros_like(b)
    r, p = b.clone(), b.clone()
    rdotr = torch.dot(r, r)
    for i in range(iters):
        Ap = Avp(p)
        alpha = rdotr / torch.dot(p, Ap)
        x += alpha * p
        r -= alpha * Ap
        new_rdotr = torch.dot(r, r)
        if new_rdotr < tol:
            break
        p = r + (new_rdotr / rdotr) * p
        rdotr = new_rdotr
    return x, i


step_dir, iters = conjugate_gradient(fisher_vector_product, g)
residual = (fisher_vector_product(step_dir) - g).norm().item()
print(iters, residual < 1e-3, step_dir.norm().item())
max_kl = 0.01
shs = 0.5 * torch.dot(step_dir, fisher_vector_product(step_dir))
full_step = step_dir * torch.sqrt(max_kl / shs)
expected = torch.dot(g, full_step)
old_params = parameters_to_vector(policy.parameters()).detach().clone()
for frac in [0.5 ** k for k in range(6)]:
    vector_to_parameters(old_params + frac * full_step, policy.parameters())
    with torch.no_grad():
        new_loss, kl = surrogate(), mean_kl()
    improve = new_loss - loss
    print(f"frac {frac:.4f}: improve {improve.item():.6f} expected {(expected * frac).item():.6f} kl {kl.item():.6f}")
    if kl <= max_kl and improve > 0:
        break
else:
    vector_to_parameters(old_params, policy.parameters())
print(parameters_to_vector(policy.parameters())[:5], policy[2].bias)
