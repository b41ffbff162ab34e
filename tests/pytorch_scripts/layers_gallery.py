"""A gallery of layers with their less common options, forward and backward: Conv1d (groups,
dilation, padding='same', circular), depthwise-separable Conv2d, Conv3d, ConvTranspose1d with groups,
GroupNorm/InstanceNorm/LayerNorm/RMSNorm variants, MultiheadAttention with kdim/vdim, add_bias_kv and
add_zero_attn, LSTM with proj_size, GRUCell and RNNCell loops, Bilinear, PReLU, GLU, and reprs."""
import numpy as np
import fluxgrad as torch
import fluxgrad.nn as nn

rng = np.random.default_rng(107)


def fill(module, scale=0.4):
    with torch.no_grad():
        for p in module.parameters():
            p.copy_(torch.from_numpy(rng.uniform(-scale, scale, tuple(p.shape)).astype(np.float32)))
    return module


def data(*shape):
    return torch.from_numpy(rng.standard_normal(shape).astype(np.float32)).requires_grad_()


x1 = data(2, 4, 9)
for conv in [nn.Conv1d(4, 6, 3, groups=2, dilation=2), nn.Conv1d(4, 4, 4, padding="same"),
             nn.Conv1d(4, 2, 3, padding=2, padding_mode="circular"), nn.Conv1d(4, 2, 5, stride=2, padding="valid")]:
    fill(conv)
    y = conv(x1)
    print(conv, y.shape, y[0, 0, :3])
x1.grad = None
fill(nn.Conv1d(4, 4, 4, padding="same", padding_mode="reflect"))(x1).sum().backward()
print(x1.grad[0, 0])
depthwise = fill(nn.Sequential(nn.Conv2d(3, 3, 3, padding=1, groups=3, bias=False), nn.Conv2d(3, 5, 1)))
x2 = data(1, 3, 5, 5)
print(depthwise(x2).shape, depthwise(x2)[0, :, 2, 2], depthwise[0].weight.shape)
conv3 = fill(nn.Conv3d(2, 3, (2, 3, 3), stride=(1, 2, 2), padding=(0, 1, 1)))
print(conv3(data(1, 2, 3, 6, 6)).shape, conv3)
ct = fill(nn.ConvTranspose1d(4, 6, 3, stride=2, groups=2, output_padding=1))
print(ct(x1).shape, ct(x1)[1, 5, :3], ct.weight.shape)
x4 = data(2, 6, 3, 3)
for norm in [nn.GroupNorm(3, 6), nn.GroupNorm(1, 6, affine=False), nn.InstanceNorm2d(6), nn.InstanceNorm2d(6, affine=True, track_running_stats=True),
             nn.LayerNorm([3, 3]), nn.LayerNorm(3, elementwise_affine=False, bias=False), nn.RMSNorm([3]), nn.RMSNorm(3, eps=1e-3, elementwise_affine=False)]:
    fill(norm, 1.0)
    out = norm(x4)
    print(norm, out[0, 1, 0], out.mean().abs().item() < 10)
inorm = nn.InstanceNorm2d(6, track_running_stats=True)
inorm(x4)
print(inorm.running_mean[:3], inorm.running_var[:3])
mha = fill(nn.MultiheadAttention(8, 2, kdim=5, vdim=3, batch_first=True, add_bias_kv=True, add_zero_attn=True), 0.3)
q, k, v = data(2, 4, 8), data(2, 6, 5), data(2, 6, 3)
out, w = mha(q, k, v)
print(out.shape, w.shape, w[0, 0], sorted(n for n, _ in mha.named_parameters()))
out.sum().backward()
print(mha.bias_k.grad.flatten()[:3], k.grad[0, 0])
lstm = fill(nn.LSTM(3, 6, proj_size=2, num_layers=2, batch_first=True))
o, (h, c) = lstm(data(2, 4, 3))
print(o.shape, h.shape, c.shape, [n for n, _ in lstm.named_parameters()][:5], o[0, -1])
gru_cell = fill(nn.GRUCell(3, 4))
rnn_cell = fill(nn.RNNCell(3, 4, nonlinearity="relu"))
seq = data(5, 2, 3)
hg, hr = torch.zeros(2, 4), torch.zeros(2, 4)
outs = []
for t in range(seq.size(0)):
    hg = gru_cell(seq[t], hg)
    hr = rnn_cell(seq[t], hr)
    outs.append(hg)
print(torch.stack(outs).shape, hg[0], hr[1], gru_cell)
(hg.sum() + hr.sum()).backward()
print(seq.grad[0, 0], gru_cell.weight_hh.grad.abs().sum())
bil = fill(nn.Bilinear(3, 2, 4))
print(bil(data(5, 3), data(5, 2)).shape, bil, bil.weight.shape)
prelu = nn.PReLU(num_parameters=3, init=0.1)
z = data(2, 3, 2)
print(prelu(z)[0], prelu, nn.GLU(dim=1)(data(2, 4)).shape, nn.Softmax2d()(data(1, 3, 2, 2)).sum(1), nn.Mish()(torch.tensor([1.0])), nn.Hardswish()(torch.tensor([1.0])))
print(nn.Threshold(0.1, 20.0)(torch.tensor([0.05, 0.5])), nn.Softsign()(torch.tensor([1.0])), nn.Tanhshrink()(torch.tensor([1.0])), nn.LogSigmoid()(torch.tensor([0.0])), nn.CELU(0.5)(torch.tensor([-1.0])))
