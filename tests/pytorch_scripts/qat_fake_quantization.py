"""Quantization-aware training by hand, as QAT tutorials explain it before torch.ao: per-tensor
affine int8 quantization (scale and zero_point from the min/max observers, round, clamp to
[qmin, qmax], to(torch.int8) / to(torch.uint8)), dequantization and its error, per-channel
symmetric weight quantization with amax over dims, the straight-through estimator written as
x + (q - x).detach() and as a custom autograd.Function, integer matmul with int32 accumulation
and requantization, and a QAT fine-tuning step of a tiny MLP."""
import numpy as np
import fluxgrad as torch
import fluxgrad.nn as nn
import fluxgrad.nn.functional as F

rng = np.random.default_rng(8)


def calc_qparams(x_min, x_max, qmin=-128, qmax=127):
    x_min, x_max = min(x_min, 0.0), max(x_max, 0.0)
    scale = (x_max - x_min) / (qmax - qmin)
    zero_point = int(round(qmin - x_min / scale))
    return scale, max(qmin, min(qmax, zero_point))


def quantize(x, scale, zero_point, qmin=-128, qmax=127, dtype=torch.int8):
    return torch.clamp(torch.round(x / scale) + zero_point, qmin, qmax).to(dtype)


def dequantize(q, scale, zero_point):
    return (q.to(torch.float32) - zero_point) * scale


x = torch.from_numpy(rng.normal(0, 2, 12).astype(np.float32))
scale, zp = calc_qparams(x.min().item(), x.max().item())
q = quantize(x, scale, zp)
print(round(scale, 6), zp, q, q.dtype)
print((dequantize(q, scale, zp) - x).abs().max() <= scale / 2 + 1e-6)
s8, z8 = calc_qparams(x.min().item(), x.max().item(), 0, 255)
q8 = quantize(x, s8, z8, 0, 255, torch.uint8)
print(z8, q8, dequantize(q8, s8, z8)[:4])

w = torch.from_numpy(rng.normal(0, 0.5, (4, 6)).astype(np.float32))
w_scale = w.abs().amax(dim=1, keepdim=True) / 127
w_q = torch.clamp(torch.round(w / w_scale), -127, 127).to(torch.int8)
print(w_scale.squeeze(), w_q[0], (w_q.float() * w_scale - w).abs().max(dim=1).values)

a_q = quantize(x[:6].unsqueeze(0), scale, zp)
acc = (a_q.to(torch.int32) - zp) @ w_q.to(torch.int32).T
print(acc, acc.dtype)
y_int = acc.float() * scale * w_scale.T
print(y_int, F.linear(dequantize(a_q, scale, zp), w_q.float() * w_scale))


class RoundSTE(torch.autograd.Function):
    @staticmethod
    def forward(ctx, input):
        return torch.round(input)

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output


def fake_quant(x, num_bits=8):
    qmax = 2 ** (num_bits - 1) - 1
    s = x.detach().abs().max().clamp(min=1e-8) / qmax
    return torch.clamp(RoundSTE.apply(x / s), -qmax, qmax) * s


t = torch.tensor([0.26, -1.3, 0.74], requires_grad=True)
ste = t + (torch.round(t * 4) / 4 - t).detach()
ste.sum().backward()
print(ste, t.grad)
t.grad = None
fq = fake_quant(t, num_bits=4)
(fq * torch.tensor([1.0, 2.0, 3.0])).sum().backward()
print(fq, t.grad)


class QATLinear(nn.Linear):
    def forward(self, input):
        return F.linear(fake_quant(input), fake_quant(self.weight), self.bias)


model = nn.Sequential(QATLinear(6, 8), nn.ReLU(), QATLinear(8, 3))
with torch.no_grad():
    for p in model.parameters():
        p.copy_(torch.from_numpy(rng.normal(0, 0.4, tuple(p.shape)).astype(np.float32)))
inputs = torch.from_numpy(rng.normal(size=(16, 6)).astype(np.float32))
targets = torch.from_numpy(rng.integers(0, 3, 16))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(4):
    opt.zero_grad()
    loss = F.cross_entropy(model(inputs), targets)
    loss.backward()
    opt.step()
    print(step, round(loss.item(), 5), model[0].weight.grad.abs().sum().item())
