"""torch.distributions the way RL and Bayesian notebooks use it: Normal, Categorical, Bernoulli,
MultivariateNormal (covariance, scale_tril, precision), Uniform, Beta, Gamma, Dirichlet, Poisson,
Exponential, Laplace, Independent; log_prob, entropy, mean/variance, cdf/icdf, kl_divergence, rsample
gradients with fixed noise via the reparameterised formula, and a REINFORCE-style loss."""
import math
import fluxgrad as torch
from fluxgrad.distributions import (Bernoulli, Beta, Categorical, Dirichlet, Exponential, Gamma, Independent,
                                    Laplace, MultivariateNormal, Normal, Poisson, Uniform, kl_divergence)
import fluxgrad.distributions as D

n = Normal(torch.tensor([0.0, 1.0]), torch.tensor([1.0, 2.0]))
x = torch.tensor([0.5, -1.0])
print(n.log_prob(x), n.entropy(), n.mean, n.variance, n.stddev, n.cdf(x), n.icdf(torch.tensor([0.5, 0.975])))
print(n.batch_shape, n.event_shape, n.sample((3,)).shape, n.rsample().requires_grad, n)
print(kl_divergence(n, Normal(torch.zeros(2), torch.ones(2))), D.kl.kl_divergence(Normal(0.0, 1.0), Normal(1.0, 1.0)))
c = Categorical(probs=torch.tensor([0.1, 0.2, 0.7]))
print(c.log_prob(torch.tensor(2)), c.entropy(), c.probs, c.logits, c.param_shape, c.event_shape, c.batch_shape)
c2 = Categorical(logits=torch.tensor([[1.0, 2.0, 3.0], [0.0, 0.0, 0.0]]))
print(c2.log_prob(torch.tensor([0, 1])), c2.entropy(), kl_divergence(c, Categorical(probs=torch.ones(3) / 3)), c2.enumerate_support().shape)
bern = Bernoulli(probs=torch.tensor([0.3, 0.9]))
print(bern.log_prob(torch.tensor([1.0, 0.0])), bern.entropy(), bern.mean, bern.variance, Bernoulli(logits=torch.tensor(0.0)).probs)
print(kl_divergence(bern, Bernoulli(torch.tensor([0.5, 0.5]))))
loc = torch.tensor([0.0, 1.0])
cov = torch.tensor([[2.0, 0.5], [0.5, 1.0]])
mvn = MultivariateNormal(loc, covariance_matrix=cov)
pt = torch.tensor([[0.5, 0.5], [1.0, -1.0]])
print(mvn.log_prob(pt), mvn.entropy(), mvn.mean, mvn.variance, mvn.scale_tril, mvn.batch_shape, mvn.event_shape)
mvn2 = MultivariateNormal(loc, scale_tril=torch.linalg.cholesky(cov))
mvn3 = MultivariateNormal(loc, precision_matrix=torch.linalg.inv(cov))
print(mvn2.log_prob(pt), mvn3.log_prob(pt), mvn3.covariance_matrix, kl_divergence(mvn, MultivariateNormal(torch.zeros(2), torch.eye(2))))
ind = Independent(Normal(torch.zeros(3), torch.ones(3)), 1)
print(ind.log_prob(torch.tensor([0.1, 0.2, 0.3])), ind.batch_shape, ind.event_shape, ind.entropy())
u = Uniform(torch.tensor([0.0]), torch.tensor([4.0]))
print(u.log_prob(torch.tensor([1.0])), u.entropy(), u.cdf(torch.tensor([1.0])), u.mean, u.variance)
be = Beta(torch.tensor([2.0]), torch.tensor([3.0]))
print(be.log_prob(torch.tensor([0.4])), be.mean, be.variance, be.entropy())
ga = Gamma(torch.tensor([2.0, 3.0]), torch.tensor([1.0, 0.5]))
print(ga.log_prob(torch.tensor([1.0, 4.0])), ga.mean, ga.variance, ga.entropy())
di = Dirichlet(torch.tensor([1.0, 2.0, 3.0]))
print(di.log_prob(torch.tensor([0.2, 0.3, 0.5])), di.mean, di.entropy(), di.concentration)
po = Poisson(torch.tensor([2.0, 4.0]))
print(po.log_prob(torch.tensor([1.0, 4.0])), po.mean, po.variance)
ex = Exponential(torch.tensor([0.5]))
la = Laplace(0.0, 2.0)
print(ex.log_prob(torch.tensor([1.0])), ex.mean, ex.entropy(), ex.cdf(torch.tensor([2.0])), la.log_prob(torch.tensor(1.0)), la.entropy(), la.variance)
print(kl_divergence(Gamma(torch.tensor(2.0), torch.tensor(1.0)), Gamma(torch.tensor(3.0), torch.tensor(2.0))),
      kl_divergence(Beta(torch.tensor(2.0), torch.tensor(3.0)), Beta(torch.tensor(1.0), torch.tensor(1.0))),
      kl_divergence(Uniform(0.0, 1.0), Uniform(-1.0, 2.0)), kl_divergence(Exponential(torch.tensor(1.0)), Exponential(torch.tensor(2.0))))
mu = torch.tensor([0.5], requires_grad=True)
log_sigma = torch.tensor([0.0], requires_grad=True)
eps = torch.tensor([0.3, -1.2, 0.8])
q = Normal(mu, log_sigma.exp())
z = mu + log_sigma.exp() * eps
loss = -(Normal(0.0, 1.0).log_prob(z) - q.log_prob(z)).mean()
loss.backward()
print(loss, mu.grad, log_sigma.grad)
logits = torch.tensor([[1.0, 0.5, -0.5], [0.2, 0.2, 0.6]], requires_grad=True)
policy = Categorical(logits=logits)
actions = torch.tensor([0, 2])
returns = torch.tensor([1.0, -0.5])
pg_loss = -(policy.log_prob(actions) * returns).sum() - 0.01 * policy.entropy().sum()
pg_loss.backward()
print(pg_loss, logits.grad)
print(Normal(0.0, 1.0).log_prob(torch.tensor(0.0)).item() == -0.5 * math.log(2 * math.pi), torch.distributions.Normal(0, 1).cdf(torch.tensor(1.96)))
