"""The channels-last memory format tutorial in small: strides of an NCHW tensor before and after
x.to(memory_format=torch.channels_last) and x.contiguous(memory_format=...), is_contiguous for
each format, size-1 dimensions that make both layouts true, clone keeping or changing the layout,
a model converted with model.to(memory_format=torch.channels_last) whose conv outputs stay
channels last, identical numbers and gradients in both layouts, channels_last_3d for 5-d tensors,
and the error for a rank-3 tensor."""
import numpy as np
import fluxgrad as torch
import fluxgrad.nn as nn

rng = np.random.default_rng(4)
N, C, H, W = 2, 3, 4, 5
x = torch.from_numpy(rng.normal(size=(N, C, H, W)).astype(np.float32))
print(x.stride(), x.is_contiguous(), x.is_contiguous(memory_format=torch.channels_last))
x_cl = x.to(memory_format=torch.channels_last)
print(x_cl.shape, x_cl.stride(), x_cl.is_contiguous(), x_cl.is_contiguous(memory_format=torch.channels_last))
print(torch.equal(x, x_cl), x_cl.contiguous().stride(), x.contiguous(memory_format=torch.channels_last).stride())
print(x_cl.clone().stride(), x_cl.clone(memory_format=torch.contiguous_format).stride(), x.clone(memory_format=torch.channels_last).stride())
print(x_cl.to(memory_format=torch.channels_last) is x_cl, x.contiguous() is x, x_cl.permute(0, 2, 3, 1).is_contiguous())

ones = torch.ones(2, 1, 3, 3)
print(ones.is_contiguous(), ones.is_contiguous(memory_format=torch.channels_last), ones.to(memory_format=torch.channels_last).stride())
pixel = torch.ones(4, 3, 1, 1)
print(pixel.is_contiguous(memory_format=torch.channels_last), pixel.contiguous(memory_format=torch.channels_last).stride(), pixel.clone(memory_format=torch.channels_last).stride())

model = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(), nn.Conv2d(8, 4, 3), nn.AdaptiveAvgPool2d(1), nn.Flatten())
with torch.no_grad():
    for p in model.parameters():
        p.copy_(torch.from_numpy(rng.normal(0, 0.3, tuple(p.shape)).astype(np.float32)))
ref = model(x)
model = model.to(memory_format=torch.channels_last)
print(model[0].weight.stride(), model[0].weight.is_contiguous(memory_format=torch.channels_last), model[1].weight.stride())
features = model[0](x_cl)
print(features.is_contiguous(memory_format=torch.channels_last), features.stride())
out = model(x_cl)
print(out.shape, torch.allclose(out, ref, atol=1e-6), out)

xa = x.clone().requires_grad_()
xb = x_cl.clone().requires_grad_()
model(xa).pow(2).sum().backward()
grad_a = model[0].weight.grad.clone()
model.zero_grad()
model(xb).pow(2).sum().backward()
print(torch.allclose(xa.grad, xb.grad, atol=1e-6), torch.allclose(grad_a, model[0].weight.grad, atol=1e-6), xb.grad.shape)

vol = torch.zeros(1, 2, 3, 4, 5)
vol_cl = vol.to(memory_format=torch.channels_last_3d)
print(vol_cl.stride(), vol_cl.is_contiguous(memory_format=torch.channels_last_3d), vol_cl.is_contiguous(memory_format=torch.channels_last))
try:
    torch.zeros(3, 4, 5).to(memory_format=torch.channels_last)
except RuntimeError as err:
    print("rank 3 refused:", "rank 4" in str(err))
print(torch.zeros(3, 4, 5).is_contiguous(memory_format=torch.channels_last), torch.channels_last, torch.contiguous_format)
