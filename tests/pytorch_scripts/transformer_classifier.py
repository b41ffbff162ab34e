"""A Transformer text classifier as tutorials build it: sinusoidal positional encoding in a
registered buffer, a learned [CLS] token, nn.TransformerEncoder with src_key_padding_mask from
lengths, masked mean pooling, norm_first layers with GELU, and a warmup learning-rate lambda."""
import math
import numpy as np
import fluxgrad as torch
import fluxgrad.nn as nn
import fluxgrad.nn.functional as F

rng = np.random.default_rng(101)


class PositionalEncoding(nn.Module):
    def __init__(self, d_model, dropout=0.0, max_len=50):
        super().__init__()
        self.dropout = nn.Dropout(p=dropout)
        position = torch.arange(max_len).unsqueeze(1)
        div_term = torch.exp(torch.arange(0, d_model, 2) * (-math.log(10000.0) / d_model))
        pe = torch.zeros(max_len, 1, d_model)
        pe[:, 0, 0::2] = torch.sin(position * div_term)
        pe[:, 0, 1::2] = torch.cos(position * div_term)
        self.register_buffer("pe", pe)

    def forward(self, x):
        x = x + self.pe[: x.size(0)]
        return self.dropout(x)


pos = PositionalEncoding(8)
print(pos.pe.shape, pos.pe[1, 0], pos.pe[3, 0, :4], list(pos.state_dict()))


class Classifier(nn.Module):
    def __init__(self, vocab=12, d_model=8, nhead=2, num_layers=2, num_classes=3):
        super().__init__()
        self.embed = nn.Embedding(vocab, d_model, padding_idx=0)
        self.cls = nn.Parameter(torch.zeros(1, 1, d_model))
        self.pos = PositionalEncoding(d_model)
        layer = nn.TransformerEncoderLayer(d_model, nhead, dim_feedforward=16, dropout=0.0,
                                           activation="gelu", batch_first=False, norm_first=True)
        self.encoder = nn.TransformerEncoder(layer, num_layers, norm=nn.LayerNorm(d_model), enable_nested_tensor=False)
        self.head = nn.Linear(d_model, num_classes)
        self.d_model = d_model

    def forward(self, tokens, lengths):
        x = self.embed(tokens) * math.sqrt(self.d_model)
        x = torch.cat([self.cls.expand(1, tokens.size(1), -1), x], dim=0)
        x = self.pos(x)
        seq = torch.arange(tokens.size(0) + 1).unsqueeze(0)
        padding = seq > lengths.unsqueeze(1)
        h = self.encoder(x, src_key_padding_mask=padding)
        keep = (~padding).T.unsqueeze(-1).float()
        pooled = (h * keep).sum(0) / keep.sum(0)
        return self.head(h[0]), pooled


model = Classifier()
with torch.no_grad():
    for name, p in model.named_parameters():
        p.copy_(torch.from_numpy(rng.uniform(-0.3, 0.3, tuple(p.shape)).astype(np.float32)))
    model.embed.weight[0].zero_()
tokens = torch.tensor([[3, 5, 7], [4, 6, 0], [2, 0, 0], [9, 0, 0]]).T.contiguous().T
lengths = torch.tensor([4, 2, 1])
print(tokens.shape, tokens[:, 1])
logits, pooled = model(tokens, lengths)
print(logits, pooled[2])
labels = torch.tensor([0, 2, 1])
optimizer = torch.optim.AdamW(model.parameters(), lr=0.01, weight_decay=0.01)
warmup = 3
scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda step: min((step + 1) / warmup, 1.0))
for step in range(5):
    optimizer.zero_grad()
    logits, _ = model(tokens, lengths)
    loss = F.cross_entropy(logits, labels)
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    optimizer.step()
    scheduler.step()
    print(step, round(loss.item(), 5), scheduler.get_last_lr())
print(model.cls.grad.flatten()[:3], model.embed.weight.grad[0])
model.eval()
with torch.no_grad():
    a, _ = model(tokens, lengths)
    b, _ = model(tokens[:2], torch.tensor([2, 2, 1]))
print(a.argmax(1), b[2], a[2])
