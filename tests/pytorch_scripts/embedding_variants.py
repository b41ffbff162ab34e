"""Embedding options as models use them: padding_idx (zero row, no gradient), max_norm renormalizing
looked-up rows in place, scale_grad_by_freq, from_pretrained with freeze and padding_idx,
F.embedding on a given weight, EmbeddingBag with mode sum/mean/max, offsets and include_last_offset,
per_sample_weights, 2-D input, padding_idx inside bags, and one_hot as the dense equivalent."""
import numpy as np
import fluxgrad as torch
import fluxgrad.nn as nn
import fluxgrad.nn.functional as F

rng = np.random.default_rng(29)
W = rng.standard_normal((6, 3)).astype(np.float32)


def table(**kw):
    emb = nn.Embedding(6, 3, **kw)
    with torch.no_grad():
        emb.weight.copy_(torch.from_numpy(W))
        if emb.padding_idx is not None:
            emb.weight[emb.padding_idx].fill_(0)
    return emb


idx = torch.tensor([[1, 0, 3], [3, 3, 5]])
emb = table(padding_idx=0)
out = emb(idx)
out.sum().backward()
print(emb, out[0], emb.weight.grad)

emb = table(max_norm=1.0)
print(emb.weight.norm(dim=1))
out = emb(torch.tensor([1, 2, 2]))
print(out.norm(dim=1), emb.weight.norm(dim=1))
emb = table(max_norm=0.5, norm_type=1.0)
emb(torch.tensor([4]))
print(emb.weight[4].abs().sum(), emb.weight[0])

emb = table(scale_grad_by_freq=True)
emb(idx).sum().backward()
print(emb.weight.grad)

pre = torch.from_numpy(W)
frozen = nn.Embedding.from_pretrained(pre)
print(frozen.weight.requires_grad, frozen(torch.tensor([2])))
trainable = nn.Embedding.from_pretrained(pre, freeze=False, padding_idx=1)
trainable(torch.tensor([1, 2])).sum().backward()
print(trainable.weight.grad[1:3], trainable.padding_idx)
w = torch.from_numpy(W).requires_grad_()
e = F.embedding(torch.tensor([[5, 0]]), w, padding_idx=5)
e.pow(2).sum().backward()
print(e, w.grad[[0, 5]])

bag_w = torch.from_numpy(W)
tokens = torch.tensor([1, 2, 4, 5, 4, 3, 2, 0])
offsets = torch.tensor([0, 2, 5])
for mode in ("sum", "mean", "max"):
    bag = nn.EmbeddingBag.from_pretrained(bag_w, mode=mode, freeze=False)
    out = bag(tokens, offsets)
    out.sum().backward()
    print(mode, out, bag.weight.grad.sum(1))
bag = nn.EmbeddingBag.from_pretrained(bag_w, mode="sum")
print(bag(tokens, torch.tensor([0, 2, 5, 8])))
print(nn.EmbeddingBag.from_pretrained(bag_w, mode="sum", include_last_offset=True)(tokens, torch.tensor([0, 2, 5, 8])))
psw = torch.tensor([1.0, 0.5, 2.0, -1.0, 0.0, 1.0, 1.0, 3.0])
print(bag(tokens, offsets, per_sample_weights=psw))
print(F.embedding_bag(tokens, bag_w, offsets, mode="mean"))
print(nn.EmbeddingBag.from_pretrained(bag_w, mode="mean")(torch.tensor([[1, 2], [3, 3], [0, 5]])))
padded_bag = nn.EmbeddingBag.from_pretrained(bag_w, mode="mean", padding_idx=0)
print(padded_bag(torch.tensor([[1, 0, 0], [2, 3, 0]])))
eb = nn.EmbeddingBag(10, 4, mode="sum")
print(eb, eb.weight.shape)

one_hot = F.one_hot(idx, num_classes=6).float()
print(one_hot.shape, torch.allclose(one_hot @ torch.from_numpy(W), F.embedding(idx, torch.from_numpy(W))))
print(F.one_hot(torch.tensor([3, 0, 1])), F.one_hot(torch.tensor([3, 0, 1])).dtype)
