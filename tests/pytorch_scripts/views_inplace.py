"""Views share storage, in-place ops, contiguity, the view/reshape family."""
import fluxgrad as torch

a = torch.arange(6.)
b = a.view(2, 3)
b[0, 1] = 10
print(a, b, b.is_contiguous(), b.t().is_contiguous())
c = b.t().contiguous().view(-1)
print(c, b.t().reshape(6), b.flatten(), b.unsqueeze(0).shape, b.unsqueeze(-1).squeeze().shape)
print(b.permute(1, 0), b.transpose(0, 1).shape, b.T, b.mT.shape)
d = torch.ones(2, 1, 3)
print(d.squeeze(1).shape, d.expand(2, 4, 3).shape, d.repeat(1, 2, 1).shape, d.expand_as(torch.ones(2, 2, 3)).sum())
print(torch.arange(4).view(2, 2).repeat_interleave(2, dim=0), torch.tensor([1, 2]).repeat_interleave(torch.tensor([1, 3])))
e = torch.ones(3)
e.add_(2).mul_(3).sub_(1).div_(2)
print(e)
e.zero_()
print(e, e.fill_(4.5), e.clamp_(max=2.0), e.neg_().abs_(), e.pow_(2), e.sqrt_())
f = torch.tensor([-1.5, 0.5, 2.5])
f.relu_()
print(f, f.exp_().log_(), f.copy_(torch.tensor([1, 2, 3])))
g = torch.arange(12.).view(3, 4)
row = g[1]
row.mul_(-1)
print(g, g.narrow(1, 1, 2), g.unflatten(1, (2, 2)).shape, g.view_as(torch.zeros(4, 3)).shape)
print(g.unbind(0)[2], g.movedim(0, 1).shape, torch.swapaxes(g, 0, 1).shape, g.stride(), g.t().stride())
h = g.clone()
h[0] = 0
print(g[0], h[0], g.data_ptr() == g.view(12).data_ptr())
print(torch.flatten(torch.ones(2, 3, 4), start_dim=1).shape, torch.ones(2, 3, 4).flatten(0, 1).shape)
print(torch.atleast_2d(torch.tensor(1.)).shape, torch.ones(2, 3).view(3, -1).shape, g.diagonal())
