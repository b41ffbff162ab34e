"""Image-text contrastive losses as the CLIP and SigLIP papers give them in pseudo-code: two linear
projection heads, L2-normalised embeddings, a learnable temperature stored as logit_scale =
log(1/0.07) and clamped to 100 after exp, the symmetric cross-entropy over the similarity matrix
with labels = arange(n), retrieval accuracy both ways, SigLIP's pairwise sigmoid loss with a
learnable bias (labels 2*eye - 1, logsigmoid), and a few AdamW steps on both."""
import math

import numpy as np
import fluxgrad as torch
import fluxgrad.nn as nn
import fluxgrad.nn.functional as F

rng = np.random.default_rng(2021)
n, d_img, d_txt, d = 6, 10, 7, 5
latent = rng.normal(size=(n, 4))
images = torch.from_numpy((latent @ rng.normal(size=(4, d_img)) + 0.1 * rng.normal(size=(n, d_img))).astype(np.float32))
texts = torch.from_numpy((latent @ rng.normal(size=(4, d_txt)) + 0.1 * rng.normal(size=(n, d_txt))).astype(np.float32))


class CLIPHeads(nn.Module):
    def __init__(self):
        super().__init__()
        self.image_projection = nn.Linear(d_img, d, bias=False)
        self.text_projection = nn.Linear(d_txt, d, bias=False)
        self.logit_scale = nn.Parameter(torch.ones([]) * np.log(1 / 0.07))

    def forward(self, image, text):
        image_features = F.normalize(self.image_projection(image), dim=-1)
        text_features = F.normalize(self.text_projection(text), dim=-1)
        logit_scale = self.logit_scale.exp().clamp(max=100)
        logits_per_image = logit_scale * image_features @ text_features.t()
        return logits_per_image, logits_per_image.t()


def init(module):
    with torch.no_grad():
        for name, p in module.named_parameters():
            if p.dim() == 2:
                p.copy_(torch.from_numpy(rng.normal(0, 0.5, tuple(p.shape)).astype(np.float32)))


clip = CLIPHeads()
init(clip)
print(clip.logit_scale, clip.logit_scale.exp())
opt = torch.optim.AdamW(clip.parameters(), lr=0.05, weight_decay=0.2)
labels = torch.arange(n)
for step in range(5):
    logits_per_image, logits_per_text = clip(images, texts)
    loss = (F.cross_entropy(logits_per_image, labels) + F.cross_entropy(logits_per_text, labels)) / 2
    opt.zero_grad()
    loss.backward()
    opt.step()
    i2t = (logits_per_image.argmax(1) == labels).float().mean()
    t2i = (logits_per_text.argmax(1) == labels).float().mean()
    print(step, round(loss.item(), 5), i2t.item(), t2i.item(), round(clip.logit_scale.item(), 5))


class SigLIPHeads(CLIPHeads):
    def __init__(self):
        super().__init__()
        self.logit_scale = nn.Parameter(torch.tensor(math.log(10.0)))
        self.logit_bias = nn.Parameter(torch.tensor(-10.0))


siglip = SigLIPHeads()
init(siglip)
opt = torch.optim.AdamW(siglip.parameters(), lr=0.05)
pair_labels = 2 * torch.eye(n) - 1
for step in range(5):
    zimg = F.normalize(siglip.image_projection(images), dim=-1)
    ztxt = F.normalize(siglip.text_projection(texts), dim=-1)
    logits = zimg @ ztxt.T * siglip.logit_scale.exp() + siglip.logit_bias
    loss = -F.logsigmoid(pair_labels * logits).sum() / n
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(step, round(loss.item(), 5), round(siglip.logit_bias.item(), 5), siglip.logit_scale.grad)
with torch.no_grad():
    probs = torch.sigmoid(logits)
print(probs.diagonal(), probs.masked_fill(torch.eye(n, dtype=torch.bool), 0).max())
