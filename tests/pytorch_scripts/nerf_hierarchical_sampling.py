"""NeRF's reference code (nerf-pytorch): positional encoding with sin/cos of 2^k x, stratified
depths, volume rendering with alpha = 1 - exp(-sigma * delta), the exclusive cumprod of
transmittance, and sample_pdf, the inverse-CDF sampler (cumsum, searchsorted right=True, gather,
clamping, torch.where for a zero denominator), with det=True so it is deterministic."""
import numpy as np
import fluxgrad as torch
import fluxgrad.nn.functional as F

rng = np.random.default_rng(5)


def embed(x, multires=3):
    out = [x]
    for freq in 2. ** torch.linspace(0., multires - 1, steps=multires):
        for fn in (torch.sin, torch.cos):
            out.append(fn(x * freq))
    return torch.cat(out, -1)


def raw2outputs(raw, z_vals, rays_d):
    dists = z_vals[..., 1:] - z_vals[..., :-1]
    dists = torch.cat([dists, torch.tensor([1e10]).expand(dists[..., :1].shape)], -1)
    dists = dists * torch.norm(rays_d[..., None, :], dim=-1)
    rgb = torch.sigmoid(raw[..., :3])
    alpha = 1. - torch.exp(-F.relu(raw[..., 3]) * dists)
    trans = torch.cumprod(torch.cat([torch.ones((alpha.shape[0], 1)), 1. - alpha + 1e-10], -1), -1)
    weights = alpha * trans[:, :-1]
    rgb_map = torch.sum(weights[..., None] * rgb, -2)
    depth_map = torch.sum(weights * z_vals, -1)
    disp_map = 1. / torch.max(1e-10 * torch.ones_like(depth_map), depth_map / torch.sum(weights, -1))
    acc_map = torch.sum(weights, -1)
    return rgb_map, disp_map, acc_map, weights, depth_map


def sample_pdf(bins, weights, N_samples):
    weights = weights + 1e-5
    pdf = weights / torch.sum(weights, -1, keepdim=True)
    cdf = torch.cumsum(pdf, -1)
    cdf = torch.cat([torch.zeros_like(cdf[..., :1]), cdf], -1)
    u = torch.linspace(0., 1., steps=N_samples)
    u = u.expand(list(cdf.shape[:-1]) + [N_samples]).contiguous()
    inds = torch.searchsorted(cdf, u, right=True)
    below = torch.max(torch.zeros_like(inds - 1), inds - 1)
    above = torch.min((cdf.shape[-1] - 1) * torch.ones_like(inds), inds)
    inds_g = torch.stack([below, above], -1)
    matched_shape = [inds_g.shape[0], inds_g.shape[1], cdf.shape[-1]]
    cdf_g = torch.gather(cdf.unsqueeze(1).expand(matched_shape), 2, inds_g)
    bins_g = torch.gather(bins.unsqueeze(1).expand(matched_shape), 2, inds_g)
    denom = (cdf_g[..., 1] - cdf_g[..., 0])
    denom = torch.where(denom < 1e-5, torch.ones_like(denom), denom)
    t = (u - cdf_g[..., 0]) / denom
    return bins_g[..., 0] + t * (bins_g[..., 1] - bins_g[..., 0])


N_rays, N_samples = 3, 6
rays_o = torch.from_numpy(rng.normal(0, 1, (N_rays, 3)).astype(np.float32))
rays_d = torch.from_numpy(rng.normal(0, 1, (N_rays, 3)).astype(np.float32))
near, far = 2., 6.
t_vals = torch.linspace(0., 1., steps=N_samples)
z_vals = (near * (1. - t_vals) + far * t_vals).expand([N_rays, N_samples])
mids = .5 * (z_vals[..., 1:] + z_vals[..., :-1])
print(z_vals[0], mids[0])
pts = rays_o[..., None, :] + rays_d[..., None, :] * z_vals[..., :, None]
enc = embed(pts)
print(pts.shape, enc.shape, enc[0, 0])

W = torch.from_numpy(rng.normal(0, 0.4, (enc.shape[-1], 4)).astype(np.float32)).requires_grad_()
raw = enc @ W
rgb_map, disp_map, acc_map, weights, depth_map = raw2outputs(raw, z_vals, rays_d)
print(rgb_map, disp_map, acc_map)
print(weights[0], depth_map)

z_samples = sample_pdf(mids, weights[..., 1:-1].detach(), 5)
print(z_samples)
z_all, _ = torch.sort(torch.cat([z_vals, z_samples], -1), -1)
print(z_all[1])
target = torch.full((N_rays, 3), 0.5)
loss = F.mse_loss(rgb_map, target)
loss.backward()
print(round(loss.item(), 6), W.grad.abs().sum(0))
psnr = -10. * torch.log(loss.detach()) / torch.log(torch.tensor([10.]))
print(psnr)
