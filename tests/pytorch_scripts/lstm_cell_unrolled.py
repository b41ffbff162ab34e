"""An LSTM unrolled by hand with nn.LSTMCell, and the same with the gate equations written
out (i, f, g, o chunks of the stacked weights), checked against nn.LSTM with the same
weights; then truncated BPTT over a long sequence with hidden states detached between
chunks, and a 2-layer bidirectional GRU's h_n layout."""
import numpy as np
import fluxgrad as torch
import fluxgrad.nn as nn

rng = np.random.default_rng(41)
T, B, I, H = 5, 2, 3, 4
lstm = nn.LSTM(I, H)
with torch.no_grad():
    for p in lstm.parameters():
        p.copy_(torch.from_numpy(rng.uniform(-0.5, 0.5, tuple(p.shape)).astype(np.float32)))
cell = nn.LSTMCell(I, H)
cell.weight_ih.data.copy_(lstm.weight_ih_l0.data)
cell.weight_hh.data.copy_(lstm.weight_hh_l0.data)
cell.bias_ih.data.copy_(lstm.bias_ih_l0.data)
cell.bias_hh.data.copy_(lstm.bias_hh_l0.data)

x = torch.from_numpy(rng.standard_normal((T, B, I)).astype(np.float32))
out, (h_n, c_n) = lstm(x)
h, c = torch.zeros(B, H), torch.zeros(B, H)
steps = []
for t in range(T):
    h, c = cell(x[t], (h, c))
    steps.append(h)
print(torch.allclose(torch.stack(steps), out, atol=1e-6), torch.allclose(c, c_n[0], atol=1e-6))

h, c = torch.zeros(B, H), torch.zeros(B, H)
W_ih, W_hh = lstm.weight_ih_l0, lstm.weight_hh_l0
b = lstm.bias_ih_l0 + lstm.bias_hh_l0
for t in range(T):
    gates = x[t] @ W_ih.t() + h @ W_hh.t() + b
    i, f, g, o = gates.chunk(4, dim=1)
    i, f, g, o = torch.sigmoid(i), torch.sigmoid(f), torch.tanh(g), torch.sigmoid(o)
    c = f * c + i * g
    h = o * torch.tanh(c)
print((h - h_n[0]).abs().max().item() < 1e-6, h_n.shape, c_n.shape)
h.sum().backward()
print(W_ih.grad.norm().item(), lstm.bias_hh_l0.grad)

model = nn.LSTM(1, 3, batch_first=True)
head = nn.Linear(3, 1)
with torch.no_grad():
    for p in list(model.parameters()) + list(head.parameters()):
        p.copy_(torch.from_numpy(rng.uniform(-0.4, 0.4, tuple(p.shape)).astype(np.float32)))
opt = torch.optim.SGD(list(model.parameters()) + list(head.parameters()), lr=0.1)
seq = torch.from_numpy(np.sin(np.arange(25) / 3.0).astype(np.float32)).view(1, -1, 1)
state = None
for start in range(0, 24, 6):
    chunk, target = seq[:, start:start + 6], seq[:, start + 1:start + 7]
    if state is not None:
        state = tuple(s.detach() for s in state)
    out, state = model(chunk, state)
    loss = ((head(out) - target) ** 2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"chunk {start}: loss {loss.item():.6f}", state[0].requires_grad, state[0].grad_fn is not None)

gru = nn.GRU(2, 3, num_layers=2, bidirectional=True)
with torch.no_grad():
    for p in gru.parameters():
        p.copy_(torch.from_numpy(rng.uniform(-0.5, 0.5, tuple(p.shape)).astype(np.float32)))
out, h_n = gru(torch.from_numpy(rng.standard_normal((4, 1, 2)).astype(np.float32)))
h_n = h_n.view(2, 2, 1, 3)
print(out.shape, h_n.shape, torch.allclose(out[-1, :, :3], h_n[-1, 0]), torch.allclose(out[0, :, 3:], h_n[-1, 1]))
print([n for n, _ in gru.named_parameters()][:5])
