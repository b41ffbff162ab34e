"""Position information as Transformer codebases compute it: the sinusoidal PositionalEncoding
module of the PyTorch tutorial (exp/log div_term, a registered buffer, dropout off), learned
absolute positions, ALiBi's head slopes (the power-of-two recipe) and its linear bias matrix, T5's
relative_position_bucket (bidirectional and causal, integer log-spaced buckets with torch.where,
full_like, .to(torch.long)), and a relative-bias attention score."""
import math

import fluxgrad as torch
import fluxgrad.nn as nn


class PositionalEncoding(nn.Module):
    def __init__(self, d_model, dropout=0.1, max_len=5000):
        super().__init__()
        self.dropout = nn.Dropout(p=dropout)
        position = torch.arange(max_len).unsqueeze(1)
        div_term = torch.exp(torch.arange(0, d_model, 2) * (-math.log(10000.0) / d_model))
        pe = torch.zeros(max_len, 1, d_model)
        pe[:, 0, 0::2] = torch.sin(position * div_term)
        pe[:, 0, 1::2] = torch.cos(position * div_term)
        self.register_buffer("pe", pe)

    def forward(self, x):
        x = x + self.pe[:x.size(0)]
        return self.dropout(x)


pos_encoder = PositionalEncoding(8, dropout=0.0, max_len=50).eval()
x = torch.zeros(6, 2, 8)
enc = pos_encoder(x)
print(enc.shape, enc[:3, 0], pos_encoder.pe.shape, [n for n, _ in pos_encoder.named_buffers()])
print((enc[:, 0] @ enc[:, 0].T)[0], enc[:, 0].norm(dim=-1))


def get_slopes(n):
    def get_slopes_power_of_2(n):
        start = 2 ** (-2 ** -(math.log2(n) - 3))
        ratio = start
        return [start * ratio ** i for i in range(n)]
    if math.log2(n).is_integer():
        return get_slopes_power_of_2(n)
    closest_power_of_2 = 2 ** math.floor(math.log2(n))
    return get_slopes_power_of_2(closest_power_of_2) + get_slopes(2 * closest_power_of_2)[0::2][:n - closest_power_of_2]


print([round(s, 6) for s in get_slopes(8)], [round(s, 6) for s in get_slopes(6)])
slopes = torch.tensor(get_slopes(4))
T = 5
context = torch.arange(T)[:, None]
memory = torch.arange(T)[None, :]
relative = memory - context
alibi = slopes[:, None, None] * relative.abs().neg().unsqueeze(0)
causal = torch.triu(torch.full((T, T), float("-inf")), diagonal=1)
print(alibi.shape, alibi[1], (alibi + causal)[0, -1])


def relative_position_bucket(relative_position, bidirectional=True, num_buckets=32, max_distance=128):
    relative_buckets = 0
    if bidirectional:
        num_buckets //= 2
        relative_buckets += (relative_position > 0).to(torch.long) * num_buckets
        relative_position = torch.abs(relative_position)
    else:
        relative_position = -torch.min(relative_position, torch.zeros_like(relative_position))
    max_exact = num_buckets // 2
    is_small = relative_position < max_exact
    relative_position_if_large = max_exact + (
        torch.log(relative_position.float() / max_exact) / math.log(max_distance / max_exact) * (num_buckets - max_exact)
    ).to(torch.long)
    relative_position_if_large = torch.min(relative_position_if_large, torch.full_like(relative_position_if_large, num_buckets - 1))
    relative_buckets += torch.where(is_small, relative_position, relative_position_if_large)
    return relative_buckets


rel = torch.arange(-40, 41, 8)
print(rel)
print(relative_position_bucket(rel), relative_position_bucket(rel, bidirectional=False, num_buckets=16, max_distance=32))
q_len = k_len = 6
rp = torch.arange(k_len)[None, :] - torch.arange(q_len)[:, None]
buckets = relative_position_bucket(rp, num_buckets=8, max_distance=16)
bias_table = nn.Embedding(8, 2)
with torch.no_grad():
    bias_table.weight.copy_(torch.linspace(-1, 1, 16).view(8, 2))
values = bias_table(buckets).permute(2, 0, 1).unsqueeze(0)
print(buckets, values.shape, values[0, 1, 0])
scores = torch.zeros(1, 2, q_len, k_len) + values
print(scores.softmax(-1)[0, 0, 2])

learned = nn.Embedding(16, 4)
with torch.no_grad():
    learned.weight.copy_(torch.arange(64.0).view(16, 4) / 64)
positions = torch.arange(3, 7).expand(2, -1)
print(learned(positions).shape, learned(positions)[1, 0])
