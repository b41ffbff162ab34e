"""More of torch.distributions: LogNormal, StudentT, Binomial, Multinomial, OneHotCategorical,
Geometric, NegativeBinomial, Chi2, HalfNormal, Weibull, Gumbel, Cauchy, LowRankMultivariateNormal,
MixtureSameFamily (a Gaussian mixture's log_prob), TransformedDistribution with Affine/Exp/Sigmoid
transforms, sample shapes with batch and event shapes, support checks and expand."""
import fluxgrad as torch
import fluxgrad.distributions as D

ln = D.LogNormal(torch.tensor([0.0, 0.5]), torch.tensor([1.0, 0.25]))
print(ln.log_prob(torch.tensor([1.0, 2.0])), ln.mean, ln.variance, ln.entropy(), ln.sample((4,)).shape)
st = D.StudentT(df=torch.tensor(3.0), loc=0.0, scale=2.0)
print(st.log_prob(torch.tensor([0.0, 1.5])), st.mean, st.variance, st.entropy())
bi = D.Binomial(total_count=10, probs=torch.tensor([0.2, 0.7]))
print(bi.log_prob(torch.tensor([2.0, 7.0])), bi.mean, bi.variance, bi.sample().shape)
mn = D.Multinomial(total_count=5, probs=torch.tensor([0.2, 0.3, 0.5]))
print(mn.log_prob(torch.tensor([1.0, 1.0, 3.0])), mn.mean, mn.variance, mn.sample((2,)).sum(-1), mn.event_shape)
oh = D.OneHotCategorical(probs=torch.tensor([0.1, 0.6, 0.3]))
print(oh.log_prob(torch.tensor([0.0, 1.0, 0.0])), oh.entropy(), oh.sample((3,)).sum(-1), oh.mean, oh.enumerate_support().shape)
ge = D.Geometric(probs=torch.tensor([0.3]))
nb = D.NegativeBinomial(total_count=torch.tensor(3.0), probs=torch.tensor(0.4))
print(ge.log_prob(torch.tensor([2.0])), ge.mean, ge.entropy(), nb.log_prob(torch.tensor([0.0, 4.0])), nb.mean, nb.variance)
print(D.Chi2(torch.tensor([3.0])).log_prob(torch.tensor([2.0])), D.HalfNormal(torch.tensor([2.0])).log_prob(torch.tensor([1.0])), D.HalfNormal(2.0).mean)
print(D.Weibull(torch.tensor(2.0), torch.tensor(1.5)).log_prob(torch.tensor(1.0)), D.Gumbel(0.0, 1.0).log_prob(torch.tensor(0.5)), D.Cauchy(0.0, 1.0).log_prob(torch.tensor(1.0)), D.Cauchy(0.0, 1.0).cdf(torch.tensor(1.0)))
lr = D.LowRankMultivariateNormal(torch.zeros(3), cov_factor=torch.tensor([[1.0], [0.5], [0.0]]), cov_diag=torch.ones(3))
print(lr.log_prob(torch.tensor([0.5, -0.5, 1.0])), lr.covariance_matrix, lr.entropy())
mix = D.Categorical(torch.tensor([0.3, 0.7]))
comp = D.Normal(torch.tensor([-1.0, 2.0]), torch.tensor([0.5, 1.0]))
gmm = D.MixtureSameFamily(mix, comp)
xs = torch.tensor([-1.0, 0.0, 2.5])
manual = torch.logsumexp(comp.log_prob(xs.unsqueeze(-1)) + mix.logits, dim=-1)
print(gmm.log_prob(xs), manual, gmm.mean, gmm.variance, gmm.sample((5,)).shape)
mvn_mix = D.MixtureSameFamily(D.Categorical(torch.ones(2)), D.Independent(D.Normal(torch.zeros(2, 3), torch.ones(2, 3)), 1))
print(mvn_mix.log_prob(torch.zeros(3)), mvn_mix.batch_shape, mvn_mix.event_shape)
base = D.Normal(torch.tensor(0.0), torch.tensor(1.0))
affine = D.TransformedDistribution(base, [D.transforms.AffineTransform(loc=1.0, scale=2.0)])
lognormal = D.TransformedDistribution(base, [D.transforms.ExpTransform()])
logistic = D.TransformedDistribution(D.Uniform(0.0, 1.0), [D.transforms.SigmoidTransform().inv, D.transforms.AffineTransform(0.0, 1.0)])
print(affine.log_prob(torch.tensor(1.0)), lognormal.log_prob(torch.tensor(2.0)), D.LogNormal(0.0, 1.0).log_prob(torch.tensor(2.0)), logistic.log_prob(torch.tensor(0.3)))
t = D.transforms.ExpTransform()
print(t(torch.tensor(1.0)), t.inv(torch.tensor(1.0)), t.log_abs_det_jacobian(torch.tensor(1.0), t(torch.tensor(1.0))))
n = D.Normal(torch.zeros(3), torch.ones(3))
print(n.expand(torch.Size([2, 3])).batch_shape, n.sample((4, 5)).shape, D.Independent(n, 1).sample((2,)).shape, n.support, D.Categorical(torch.ones(4)).support)
print(D.Beta(2.0, 2.0).support.check(torch.tensor([0.5, 1.5])), D.Normal(0.0, 1.0).log_prob(torch.tensor([0.0])).shape)
try:
    D.Normal(torch.tensor([0.0]), torch.tensor([-1.0]), validate_args=True)
except ValueError:
    print("ValueError for a negative scale")
print(D.kl_divergence(D.LogNormal(0.0, 1.0), D.LogNormal(1.0, 2.0)), D.kl_divergence(D.Poisson(torch.tensor(2.0)), D.Poisson(torch.tensor(3.0))), D.kl_divergence(D.Laplace(0.0, 1.0), D.Laplace(1.0, 2.0)))
print(D.kl_divergence(D.Dirichlet(torch.tensor([1.0, 2.0])), D.Dirichlet(torch.tensor([2.0, 2.0]))), D.kl_divergence(D.OneHotCategorical(torch.tensor([0.5, 0.5])), D.OneHotCategorical(torch.tensor([0.9, 0.1]))))
