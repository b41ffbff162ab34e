"""Variational inference with torch.distributions when the noise is fixed: a mean-field Normal
posterior over regression weights trained on the ELBO (reparameterised with NumPy draws, the
expected log-likelihood by Monte Carlo, the KL to a Normal prior by kl_divergence against the
closed form), a LogNormal posterior as TransformedDistribution(Normal, ExpTransform) with
inverse-CDF sampling via icdf, Beta-Bernoulli conjugate updates with kl_divergence(Beta, Beta),
entropies of Dirichlet/Gamma/Beta, Independent reinterpreting batch dims, and cdf/icdf round
trips."""
import numpy as np
import fluxgrad as torch
import fluxgrad.distributions as D

rng = np.random.default_rng(11)
X = torch.from_numpy(rng.normal(size=(40, 2)).astype(np.float32))
w_true = torch.tensor([1.5, -0.7])
y = X @ w_true + 0.3 * torch.from_numpy(rng.normal(size=40).astype(np.float32))

q_loc = torch.zeros(2, requires_grad=True)
q_log_scale = torch.full((2,), -1.0, requires_grad=True)
prior = D.Normal(torch.zeros(2), torch.ones(2))
optimizer = torch.optim.Adam([q_loc, q_log_scale], lr=0.05)
eps = torch.from_numpy(rng.normal(size=(200, 8, 2)).astype(np.float32))
for step in range(200):
    optimizer.zero_grad()
    q = D.Normal(q_loc, q_log_scale.exp())
    w = q.loc + q.scale * eps[step]
    log_lik = D.Normal(w @ X.T, 0.3).log_prob(y).sum(-1).mean()
    kl = D.kl_divergence(q, prior).sum()
    loss = -(log_lik - kl)
    loss.backward()
    optimizer.step()
    if step % 50 == 0:
        print(step, round(loss.item(), 3), round(kl.item(), 4))
closed_kl = (torch.log(1 / q.scale) + (q.scale ** 2 + q.loc ** 2) / 2 - 0.5).sum()
print(q_loc.detach(), q_log_scale.exp().detach(), torch.allclose(kl, closed_kl))
post = D.Independent(D.Normal(q_loc.detach(), q_log_scale.exp().detach()), 1)
print(post.batch_shape, post.event_shape, post.log_prob(w_true), post.entropy())

base = D.Normal(torch.tensor(0.2), torch.tensor(0.5))
lognormal = D.TransformedDistribution(base, [D.transforms.ExpTransform()])
u = torch.from_numpy(rng.uniform(size=5).astype(np.float32))
samples = torch.exp(base.icdf(u))
print(samples, lognormal.log_prob(samples), D.LogNormal(0.2, 0.5).log_prob(samples), D.LogNormal(0.2, 0.5).mean)

mu = torch.tensor(0.0, requires_grad=True)
sigma = torch.tensor(1.0, requires_grad=True)
z = D.Normal(mu, sigma).icdf(u)
(z ** 2).mean().backward()
print(z, mu.grad, sigma.grad)

flips = torch.from_numpy((rng.uniform(size=30) < 0.7).astype(np.float32))
prior_beta = D.Beta(torch.tensor(2.0), torch.tensor(2.0))
heads = flips.sum()
posterior = D.Beta(prior_beta.concentration1 + heads, prior_beta.concentration0 + 30 - heads)
print(heads, posterior.mean, posterior.variance, posterior.entropy(), D.kl_divergence(posterior, prior_beta))
print(posterior.log_prob(torch.tensor([0.5, 0.7, 0.9])), D.Bernoulli(probs=posterior.mean).log_prob(flips).sum())

dirichlet = D.Dirichlet(torch.tensor([1.0, 2.0, 3.0]))
gamma = D.Gamma(torch.tensor([2.0, 0.5]), torch.tensor([1.0, 2.0]))
print(dirichlet.entropy(), dirichlet.mean, dirichlet.log_prob(torch.tensor([0.2, 0.3, 0.5])), gamma.entropy(), gamma.log_prob(torch.tensor([1.0, 0.1])))
print(D.kl_divergence(gamma, D.Gamma(torch.tensor([1.0, 1.0]), torch.tensor([1.0, 1.0]))), D.kl_divergence(D.Exponential(torch.tensor(2.0)), D.Exponential(torch.tensor(0.5))))

normal = D.Normal(torch.tensor([0.0, 1.0]), torch.tensor([1.0, 2.0]))
pts = torch.tensor([-0.5, 2.0])
print(normal.cdf(pts), normal.icdf(normal.cdf(pts)), D.Laplace(0.0, 1.0).icdf(torch.tensor([0.1, 0.5, 0.9])), D.Cauchy(0.0, 2.0).icdf(torch.tensor(0.75)))
print(D.Uniform(-1.0, 3.0).icdf(torch.tensor([0.0, 0.25, 1.0])), D.Exponential(torch.tensor(2.0)).icdf(torch.tensor(0.5)), D.Exponential(torch.tensor(2.0)).cdf(torch.tensor(0.3466)))
