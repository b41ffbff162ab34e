"""Layer options off the beaten path: BatchNorm momentum=None / no running stats / 3-d input,
LSTM proj_size, multi-layer bidirectional GRU in eval, MultiheadAttention kdim/vdim and masks,
TransformerDecoder and nn.Transformer, Embedding max_norm."""
import numpy as np
import fluxgrad as torch
import fluxgrad.nn as nn

rng = np.random.default_rng(13)


def fill(module, scale=0.3):
    with torch.no_grad():
        for p in module.parameters():
            p.copy_(torch.from_numpy(rng.uniform(-scale, scale, tuple(p.shape)).astype(np.float32)))
    return module


def data(*shape):
    return torch.from_numpy(rng.standard_normal(shape).astype(np.float32))


bn = nn.BatchNorm1d(3, momentum=None)
for _ in range(3):
    bn(data(4, 3, 5))
print(bn.running_mean, bn.running_var, bn.num_batches_tracked)
bn2 = nn.BatchNorm2d(2, track_running_stats=False)
x = data(3, 2, 2, 2)
print(bn2(x)[0, 0], bn2.running_mean, bn2.eval()(x)[0, 1])
bn3 = nn.BatchNorm1d(3, affine=False, eps=1e-3)
bn3.eval()
print(bn3(data(2, 3)))
lstm = fill(nn.LSTM(4, 6, proj_size=3, batch_first=True))
out, (h, c) = lstm(data(2, 5, 4))
print(out.shape, h.shape, c.shape, out[0, -1], [n for n, _ in lstm.named_parameters()])
gru = fill(nn.GRU(3, 4, num_layers=2, bidirectional=True, dropout=0.5))
gru.eval()
out, h = gru(data(6, 2, 3), torch.zeros(4, 2, 4))
print(out.shape, h.shape, out[-1, 0], h[-1])
rnn = fill(nn.RNN(3, 2, batch_first=True))
print(rnn(data(3, 3))[0], rnn(data(1, 4, 3), torch.ones(1, 1, 2))[1])
mha = fill(nn.MultiheadAttention(8, 2, kdim=5, vdim=3))
q, k, v = data(4, 2, 8), data(6, 2, 5), data(6, 2, 3)
out, w = mha(q, k, v)
print(out.shape, w.shape, out[0, 0], w[0, 0])
bool_mask = torch.zeros(4, 6, dtype=torch.bool)
bool_mask[:, -2:] = True
out, w = mha(q, k, v, attn_mask=bool_mask, need_weights=True)
print(w[1, 2], out[3, 1])
float_mask = torch.zeros(2 * 2, 4, 6)
float_mask[:, :, 0] = -1e9
out, _ = mha(q, k, v, attn_mask=float_mask, need_weights=False)
print(out[0, 1], _)
dec_layer = nn.TransformerDecoderLayer(d_model=8, nhead=2, dim_feedforward=16, dropout=0.0)
decoder = fill(nn.TransformerDecoder(dec_layer, num_layers=2))
memory, tgt = data(5, 2, 8), data(3, 2, 8)
tgt_mask = nn.Transformer.generate_square_subsequent_mask(3)
print(decoder(tgt, memory, tgt_mask=tgt_mask)[2, 1])
model = fill(nn.Transformer(d_model=8, nhead=2, num_encoder_layers=1, num_decoder_layers=1, dim_feedforward=16, dropout=0.0, batch_first=True))
src, tgt = data(2, 5, 8), data(2, 3, 8)
out = model(src, tgt, tgt_mask=model.generate_square_subsequent_mask(3), src_key_padding_mask=torch.tensor([[False] * 5, [False] * 3 + [True] * 2]))
print(out.shape, out[1, 2])
emb = nn.Embedding(4, 3, max_norm=1.0)
with torch.no_grad():
    emb.weight.copy_(torch.tensor([[3., 4., 0.], [0.1, 0.2, 0.2], [1., 1., 1.], [0., 0., 2.]]))
print(emb(torch.tensor([0, 1, 2])), emb.weight)
bi_proj = fill(nn.LSTM(3, 5, num_layers=2, bidirectional=True, proj_size=2))
out, (h, c) = bi_proj(data(4, 1, 3))
print(bi_proj, out.shape, h.shape, c.shape, out[0, 0], h[3])
try:
    nn.GRU(3, 4, proj_size=2)
except ValueError as e:
    print("ValueError", e)
