"""Calling layers the way some code does, with PyTorch's keyword names (input=, hx=, input1=,
output_size=), forward pre-hooks and hooks with kwargs, functools.partial forwards, and a model
whose forward takes keyword arguments through nn.Sequential-free plumbing."""
import numpy as np
import fluxgrad as torch
import fluxgrad.nn as nn

rng = np.random.default_rng(19)


def filled(module, scale=0.4):
    with torch.no_grad():
        for p in module.parameters():
            p.copy_(torch.from_numpy(rng.normal(0, scale, tuple(p.shape)).astype(np.float32)))
    return module


t = torch.from_numpy(rng.standard_normal((2, 3, 6)).astype(np.float32))
conv = filled(nn.Conv1d(3, 4, 3))
norm = nn.BatchNorm1d(4)
act = nn.GELU()
y = act(input=norm(input=conv(input=t)))
print(y.shape, y.mean().item() > -1)
lin = filled(nn.Linear(4, 2))
print(lin(input=y.transpose(1, 2)).shape)
print(nn.Softmax(dim=-1)(input=y)[0, 0].sum())
print(nn.Flatten()(input=y).shape, nn.Identity()(input=y).shape)
lstm = filled(nn.LSTM(4, 5, batch_first=True))
h0 = (torch.zeros(1, 2, 5), torch.zeros(1, 2, 5))
out, (h, c) = lstm(input=y.transpose(1, 2), hx=h0)
print(out.shape, h.shape, c.shape)
gru_cell = filled(nn.GRUCell(4, 3))
print(gru_cell(input=y[:, :, 0], hx=torch.zeros(2, 3)).shape)
bil = filled(nn.Bilinear(4, 4, 2))
print(bil(input1=y[:, :, 0], input2=y[:, :, 1]))
cos = nn.CosineSimilarity(dim=1)
print(cos(x1=y[:, :, 0], x2=y[:, :, 1]))
convt = filled(nn.ConvTranspose1d(4, 2, 3, stride=2))
print(convt(y).shape, convt(input=y, output_size=[10]).shape)
convt2 = filled(nn.ConvTranspose2d(1, 1, 3, stride=2))
print(convt2(torch.ones(1, 1, 3, 3), output_size=[8, 8]).shape)
emb = filled(nn.Embedding(10, 3))
print(emb(input=torch.tensor([[1, 2], [3, 9]])).shape)
pool = nn.MaxPool1d(2, return_indices=True)
pooled, idx = pool(input=y)
print(pooled.shape, nn.MaxUnpool1d(2)(pooled, idx).shape if hasattr(nn, "MaxUnpool1d") else None)
calls = []


def pre_hook(module, args, kwargs):
    calls.append(("pre", sorted(kwargs)))
    return args, kwargs


def hook(module, args, kwargs, output):
    calls.append(("post", len(args), sorted(kwargs), tuple(output.shape)))


handle = lin.register_forward_pre_hook(pre_hook, with_kwargs=True)
handle2 = lin.register_forward_hook(hook, with_kwargs=True)
lin(input=torch.ones(1, 4))
lin(torch.ones(3, 4))
print(calls)
handle.remove()
handle2.remove()


class Scaled(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = filled(nn.Linear(3, 3))

    def forward(self, input, scale=1.0, *, shift=0.0):
        return self.lin(input) * scale + shift


m = Scaled()
v = torch.ones(2, 3)
print(m(v, 2.0, shift=1.0), m(input=v, scale=0.5))
print(torch.allclose(m(v, scale=2.0), m.lin(v) * 2))
