"""Descriptive statistics as data-analysis scripts compute them with tensors: quantile / nanquantile
with every interpolation, median and nanmedian (values and indices), mode, var / std with
correction and unbiased, var_mean / std_mean, nanmean / nansum, cov (with fweights/aweights) and
corrcoef, histc and histogram, bucketize into bins, cummax / cummin / logcumsumexp, z-scores and
min-max scaling with keepdim, a running mean with cumsum, and a masked mean ignoring padding."""
import numpy as np
import fluxgrad as torch

rng = np.random.default_rng(83)
x = torch.from_numpy(rng.standard_normal((4, 7)).astype(np.float32))
q = torch.tensor([0.1, 0.5, 0.9])
for interp in ("linear", "lower", "higher", "midpoint", "nearest"):
    print(interp, torch.quantile(x, q, dim=1, interpolation=interp)[:, 0])
print(torch.quantile(x, 0.25), x.quantile(0.75, dim=0, keepdim=True).shape)
xn = x.clone()
xn[0, 1] = float("nan")
xn[2, :] = float("nan")
print(torch.nanquantile(xn, 0.5, dim=1), torch.quantile(xn, 0.5, dim=1))
print(x.median(), x.median(dim=1), xn.nanmedian(dim=1).values)
ints = torch.tensor([[1, 2, 2, 3, 3, 3], [4, 4, 1, 1, 5, 5]])
print(ints.mode(dim=1), torch.mode(ints[0]))
print(x.var(dim=1), x.var(dim=1, unbiased=False), x.var(dim=1, correction=0), x.std(dim=0, correction=2))
print(torch.var_mean(x, dim=1), torch.std_mean(x, dim=0, keepdim=True)[0].shape)
print(xn.nanmean(dim=1), xn.nansum(dim=1), xn.nanmean())

obs = torch.from_numpy(rng.standard_normal((3, 10)).astype(np.float64))
print(torch.cov(obs), torch.cov(obs, correction=0)[0])
fw = torch.tensor([1, 2, 1, 1, 3, 1, 1, 2, 1, 1])
aw = torch.from_numpy(rng.uniform(0.5, 1.5, 10))
print(torch.cov(obs, fweights=fw, aweights=aw))
print(torch.corrcoef(obs))

v = torch.from_numpy(rng.uniform(0, 10, 50).astype(np.float32))
print(torch.histc(v, bins=5, min=0, max=10), torch.histc(v, bins=4))
hist, edges = torch.histogram(v, bins=4, range=(0.0, 10.0))
print(hist, edges)
hist, edges = torch.histogram(v, bins=torch.tensor([0.0, 1.0, 5.0, 10.0]), density=True)
print(hist, edges)
bins = torch.tensor([2.0, 4.0, 6.0, 8.0])
print(torch.bucketize(v[:8], bins), torch.bucketize(v[:8], bins, right=True), v[:8])

s = torch.tensor([3.0, 1.0, 4.0, 1.0, 5.0, 9.0, 2.0, 6.0])
print(torch.cummax(s, dim=0), torch.cummin(s, dim=0).values, torch.logcumsumexp(s, dim=0))
csum = torch.cumsum(torch.cat([torch.zeros(1), s]), 0)
print((csum[3:] - csum[:-3]) / 3)
z = (x - x.mean(dim=1, keepdim=True)) / x.std(dim=1, keepdim=True)
mn, mx = x.amin(dim=0, keepdim=True), x.amax(dim=0, keepdim=True)
print(z.mean(dim=1), z.std(dim=1), ((x - mn) / (mx - mn))[:, 0])
print(torch.aminmax(x), torch.aminmax(x, dim=1).min)
feats = torch.from_numpy(rng.standard_normal((2, 4, 3)).astype(np.float32))
pad = torch.tensor([[1, 1, 1, 0], [1, 1, 0, 0]], dtype=torch.bool)
masked_mean = (feats * pad.unsqueeze(-1)).sum(1) / pad.sum(1, keepdim=True)
print(masked_mean, feats.masked_fill(~pad.unsqueeze(-1), float("-inf")).max(dim=1).values)
print(torch.count_nonzero(x > 0, dim=1), (x > 0).float().mean(), x.argsort(dim=1)[0], x.kthvalue(3, dim=1).values)
