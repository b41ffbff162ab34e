"""Probabilistic-programming style code with torch.distributions: MAP regression with a Normal
prior on the weights and a HalfCauchy prior on the noise scale (log-space parameter, Adam), Pareto
tail fitting by maximum likelihood (the closed form against gradient ascent on log_prob), and a
discrete latent relaxed with RelaxedOneHotCategorical / RelaxedBernoulli (log_prob of given points
of the simplex, temperature annealing, rsample shapes and gradients), plus F.gumbel_softmax with
hard=True giving one-hot rows."""
import numpy as np
import fluxgrad as torch
import fluxgrad.nn.functional as F
from fluxgrad.distributions import (HalfCauchy, Normal, Pareto, RelaxedBernoulli,
                                    RelaxedOneHotCategorical)

rng = np.random.default_rng(101)
X = torch.from_numpy(rng.standard_normal((30, 3)))
true_w = torch.tensor([1.5, -2.0, 0.5], dtype=torch.float64)
y = X @ true_w + 0.3 * torch.from_numpy(rng.standard_normal(30))

w = torch.zeros(3, dtype=torch.float64, requires_grad=True)
log_sigma = torch.zeros((), dtype=torch.float64, requires_grad=True)
prior_w = Normal(torch.zeros(3, dtype=torch.float64), torch.ones(3, dtype=torch.float64))
prior_sigma = HalfCauchy(torch.tensor(1.0, dtype=torch.float64))
opt = torch.optim.Adam([w, log_sigma], lr=0.1)
for step in range(60):
    sigma = log_sigma.exp()
    log_lik = Normal(X @ w, sigma).log_prob(y).sum()
    log_post = log_lik + prior_w.log_prob(w).sum() + prior_sigma.log_prob(sigma) + log_sigma
    opt.zero_grad()
    (-log_post).backward()
    opt.step()
    if step % 20 == 19:
        print(step, f"{log_post.item():.4f}", w.detach(), f"{sigma.item():.4f}")
print(prior_sigma.log_prob(torch.tensor([0.1, 1.0, 10.0], dtype=torch.float64)), prior_sigma.cdf(torch.tensor(1.0)), prior_sigma.icdf(torch.tensor(0.5)))

xm, alpha_true = 2.0, 3.0
samples = torch.from_numpy(xm * (1 - rng.random(200)) ** (-1 / alpha_true))
alpha_mle = len(samples) / torch.log(samples / samples.min()).sum()
print(f"{alpha_mle.item():.4f}", samples.min())
log_alpha = torch.zeros((), dtype=torch.float64, requires_grad=True)
opt = torch.optim.Adam([log_alpha], lr=0.1)
for step in range(100):
    nll = -Pareto(samples.min(), log_alpha.exp()).log_prob(samples).mean()
    opt.zero_grad()
    nll.backward()
    opt.step()
print(f"{log_alpha.exp().item():.3f}", f"{nll.item():.5f}")
p = Pareto(torch.tensor([1.0, 2.0]), torch.tensor([3.0, 0.8]))
print(p.mean, p.variance, p.mode, p.entropy(), p.support, p.log_prob(torch.tensor([1.5, 2.5])))

logits = torch.tensor([[1.0, 0.2, -0.5], [0.0, 0.0, 2.0]], requires_grad=True)
points = torch.tensor([[0.7, 0.2, 0.1], [0.1, 0.1, 0.8]])
for temp in (2.0, 1.0, 0.5, 0.1):
    d = RelaxedOneHotCategorical(torch.tensor(temp), logits=logits)
    print(temp, d.log_prob(points), d.batch_shape, d.event_shape)
d = RelaxedOneHotCategorical(torch.tensor(0.5), logits=logits)
z = d.rsample((5,))
print(z.shape, torch.allclose(z.sum(-1), torch.ones(5, 2)), bool((z >= 0).all()))
(z * torch.tensor([1.0, 2.0, 3.0])).sum().backward()
print(logits.grad.shape, bool(torch.isfinite(logits.grad).all()))
rb = RelaxedBernoulli(torch.tensor([0.3, 1.0]), probs=torch.tensor([0.2, 0.9]))
print(rb.log_prob(torch.tensor([0.1, 0.8])), rb.probs, rb.logits, rb.temperature, rb.rsample((4,)).shape)

hard = F.gumbel_softmax(torch.tensor([[1.0, 2.0, 3.0], [3.0, 2.0, 1.0]]), tau=0.5, hard=True)
print(hard.sum(-1), set(hard.flatten().tolist()) <= {0.0, 1.0}, hard.shape)
