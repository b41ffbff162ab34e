"""MCMC written with autograd, as probabilistic-ML course notebooks do: the potential of a
correlated 2-d Gaussian (a MultivariateNormal's -log_prob), its gradient by torch.autograd.grad,
leapfrog integration with energy conservation checked, Hamiltonian Monte Carlo with a
Metropolis accept step (momenta and uniforms from NumPy), the Metropolis-adjusted Langevin
algorithm (MALA) with its asymmetric proposal density, and the sample mean and covariance."""
import numpy as np
import fluxgrad as torch
from fluxgrad.distributions import MultivariateNormal, Normal

rng = np.random.default_rng(1987)
cov = torch.tensor([[1.0, 0.8], [0.8, 1.0]], dtype=torch.float64)
target = MultivariateNormal(torch.zeros(2, dtype=torch.float64), covariance_matrix=cov)


def potential(q):
    return -target.log_prob(q)


def grad_potential(q):
    q = q.detach().requires_grad_(True)
    (g,) = torch.autograd.grad(potential(q), q)
    return g


def leapfrog(q, p, step_size, n_steps):
    p = p - 0.5 * step_size * grad_potential(q)
    for i in range(n_steps):
        q = q + step_size * p
        if i != n_steps - 1:
            p = p - step_size * grad_potential(q)
    p = p - 0.5 * step_size * grad_potential(q)
    return q, -p


q0 = torch.tensor([1.0, -1.0], dtype=torch.float64)
p0 = torch.tensor([0.5, 0.3], dtype=torch.float64)
H0 = potential(q0) + 0.5 * p0.dot(p0)
for n_steps in (1, 10, 50):
    q1, p1 = leapfrog(q0, p0, 0.1, n_steps)
    H1 = potential(q1) + 0.5 * p1.dot(p1)
    print(n_steps, q1, "dH=%.2e" % abs(H1 - H0).item())
qb, pb = leapfrog(q1, p1, 0.1, 50)
print("reversible", torch.allclose(qb, q0), torch.allclose(-pb, -p0))


def hmc(q, n_samples, step_size=0.3, n_steps=5):
    samples, accepted = [], 0
    for _ in range(n_samples):
        p = torch.from_numpy(rng.normal(size=2))
        q_new, p_new = leapfrog(q, p, step_size, n_steps)
        current_H = potential(q) + 0.5 * p.dot(p)
        proposed_H = potential(q_new) + 0.5 * p_new.dot(p_new)
        if rng.uniform() < torch.exp(current_H - proposed_H).item():
            q, accepted = q_new, accepted + 1
        samples.append(q)
    return torch.stack(samples), accepted / n_samples


samples, rate = hmc(torch.zeros(2, dtype=torch.float64), 60)
print("hmc", samples.shape, rate, samples[10:].mean(0), torch.cov(samples[10:].T))


def mala(q, n_samples, tau=0.3):
    samples, accepted = [], 0
    for _ in range(n_samples):
        noise = torch.from_numpy(rng.normal(size=2))
        g = grad_potential(q)
        q_new = q - tau * g + (2 * tau) ** 0.5 * noise
        g_new = grad_potential(q_new)
        fwd = Normal(q - tau * g, (2 * tau) ** 0.5).log_prob(q_new).sum()
        bwd = Normal(q_new - tau * g_new, (2 * tau) ** 0.5).log_prob(q).sum()
        log_alpha = potential(q) - potential(q_new) + bwd - fwd
        if np.log(rng.uniform()) < log_alpha.item():
            q, accepted = q_new, accepted + 1
        samples.append(q)
    return torch.stack(samples), accepted / n_samples


samples, rate = mala(torch.zeros(2, dtype=torch.float64), 80)
print("mala", rate, samples[10:].mean(0), torch.cov(samples[10:].T))
