"""Text classification the way the AG_NEWS tutorial writes it: token ids with offsets into
nn.EmbeddingBag (mean, sum, max, per_sample_weights), a collate_batch building offsets with cumsum,
and an LSTM classifier over padded batches with pad_sequence / pack_padded_sequence."""
import numpy as np
import fluxgrad as torch
import fluxgrad.nn as nn
from fluxgrad.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence, pad_sequence, pack_sequence
from fluxgrad.utils.data import DataLoader

rng = np.random.default_rng(23)
vocab = {"<pad>": 0, "the": 1, "cat": 2, "sat": 3, "on": 4, "mat": 5, "dog": 6, "ran": 7, "far": 8}
train_iter = [(1, "the cat sat"), (2, "the dog ran far"), (1, "cat on the mat"), (2, "dog ran"),
              (1, "the cat"), (2, "the dog ran on the mat")]
text_pipeline = lambda x: [vocab[t] for t in x.split()]
label_pipeline = lambda x: int(x) - 1


def collate_batch(batch):
    label_list, text_list, offsets = [], [], [0]
    for _label, _text in batch:
        label_list.append(label_pipeline(_label))
        processed_text = torch.tensor(text_pipeline(_text), dtype=torch.int64)
        text_list.append(processed_text)
        offsets.append(processed_text.size(0))
    label_list = torch.tensor(label_list, dtype=torch.int64)
    offsets = torch.tensor(offsets[:-1]).cumsum(dim=0)
    text_list = torch.cat(text_list)
    return label_list, text_list, offsets


class TextClassificationModel(nn.Module):
    def __init__(self, vocab_size, embed_dim, num_class):
        super().__init__()
        self.embedding = nn.EmbeddingBag(vocab_size, embed_dim, sparse=False)
        self.fc = nn.Linear(embed_dim, num_class)
        self.init_weights()

    def init_weights(self):
        initrange = 0.5
        with torch.no_grad():
            self.embedding.weight.copy_(torch.from_numpy(rng.uniform(-initrange, initrange, (len(vocab), 4)).astype(np.float32)))
            self.fc.weight.copy_(torch.from_numpy(rng.uniform(-initrange, initrange, (2, 4)).astype(np.float32)))
        self.fc.bias.data.zero_()

    def forward(self, text, offsets):
        embedded = self.embedding(text, offsets)
        return self.fc(embedded)


model = TextClassificationModel(len(vocab), 4, 2)
dataloader = DataLoader(train_iter, batch_size=3, shuffle=False, collate_fn=collate_batch)
label, text, offsets = next(iter(dataloader))
print(label, text, offsets)
criterion = torch.nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=5)
for epoch in range(3):
    model.train()
    total_acc, total_count = 0, 0
    for idx, (label, text, offsets) in enumerate(dataloader):
        optimizer.zero_grad()
        predicted_label = model(text, offsets)
        loss = criterion(predicted_label, label)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 0.1)
        optimizer.step()
        total_acc += (predicted_label.argmax(1) == label).sum().item()
        total_count += label.size(0)
    print(f"| epoch {epoch} | accuracy {total_acc / total_count:8.3f} | loss {loss.item():.4f}")
weight = torch.arange(12.0).view(6, 2)
ids = torch.tensor([1, 2, 4, 5, 4, 3])
offs = torch.tensor([0, 2, 2])
print(nn.EmbeddingBag.from_pretrained(weight, mode="sum")(ids, offs))
print(nn.EmbeddingBag.from_pretrained(weight, mode="max")(ids, torch.tensor([0, 3])))
print(nn.EmbeddingBag.from_pretrained(weight, mode="mean")(torch.tensor([[1, 2], [3, 4]])))
psw = torch.tensor([1.0, 0.5, 2.0, 1.0, 0.0, 1.0])
print(nn.EmbeddingBag.from_pretrained(weight, mode="sum")(ids, offs, per_sample_weights=psw))
print(nn.EmbeddingBag.from_pretrained(weight, mode="mean", include_last_offset=True)(ids, torch.tensor([0, 2, 6])))
bag = nn.EmbeddingBag(6, 2, mode="mean", padding_idx=0)
print(bag.weight[0], bag(torch.tensor([[0, 0], [0, 1]]))[0])
seqs = [torch.tensor(text_pipeline(t)) for _, t in train_iter[:3]]
lengths = torch.tensor([len(s) for s in seqs])
padded = pad_sequence(seqs, batch_first=True, padding_value=0)
print(padded, lengths)
print(pad_sequence(seqs).shape, pad_sequence(seqs, padding_side="left", batch_first=True))
emb = nn.Embedding(len(vocab), 3, padding_idx=0)
lstm = nn.LSTM(3, 4, batch_first=True)
fc = nn.Linear(4, 2)
with torch.no_grad():
    for module in (emb, lstm, fc):
        for p in module.parameters():
            p.copy_(torch.from_numpy(rng.uniform(-0.5, 0.5, tuple(p.shape)).astype(np.float32)))
    emb.weight[0].zero_()
packed = pack_padded_sequence(emb(padded), lengths, batch_first=True, enforce_sorted=False)
print(packed.batch_sizes, packed.sorted_indices, packed.unsorted_indices, packed.data.shape)
packed_out, (h, c) = lstm(packed)
out, out_lengths = pad_packed_sequence(packed_out, batch_first=True)
print(out.shape, out_lengths, out[1, -1], h[-1])
logits = fc(h[-1])
loss = nn.functional.cross_entropy(logits, torch.tensor([0, 1, 0]))
loss.backward()
print(loss, emb.weight.grad[0], lstm.weight_ih_l0.grad.abs().sum())
ps = pack_sequence([torch.tensor([1.0, 2.0, 3.0]), torch.tensor([4.0, 5.0])])
print(ps.data, ps.batch_sizes)
print(pad_packed_sequence(ps, batch_first=True, total_length=4))
