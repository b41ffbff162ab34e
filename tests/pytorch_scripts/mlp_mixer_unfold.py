"""A tiny MLP-Mixer on 8x8 images: patches by nn.Unfold (and the same by Tensor.unfold + permute
+ reshape, the einops-free rearrange), token-mixing and channel-mixing MLPs with LayerNorm and
residuals, global average pooling, and a few SGD steps; the patches are put back by nn.Fold."""
import numpy as np
import fluxgrad as torch
import fluxgrad.nn as nn
import fluxgrad.nn.functional as F

rng = np.random.default_rng(23)
images = torch.from_numpy(rng.standard_normal((4, 3, 8, 8)).astype(np.float32))
labels = torch.tensor([0, 1, 2, 1])
P = 4
unfold = nn.Unfold(kernel_size=P, stride=P)
patches = unfold(images).transpose(1, 2)
manual = images.unfold(2, P, P).unfold(3, P, P).permute(0, 2, 3, 1, 4, 5).reshape(4, -1, 3 * P * P)
print(patches.shape, torch.equal(patches, manual))
back = nn.Fold(output_size=(8, 8), kernel_size=P, stride=P)(patches.transpose(1, 2))
print(torch.equal(back, images))


class MixerBlock(nn.Module):
    def __init__(self, tokens, channels, hidden):
        super().__init__()
        self.norm1 = nn.LayerNorm(channels)
        self.token_mlp = nn.Sequential(nn.Linear(tokens, hidden), nn.GELU(), nn.Linear(hidden, tokens))
        self.norm2 = nn.LayerNorm(channels)
        self.channel_mlp = nn.Sequential(nn.Linear(channels, hidden), nn.GELU(approximate="tanh"), nn.Linear(hidden, channels))

    def forward(self, x):
        x = x + self.token_mlp(self.norm1(x).transpose(1, 2)).transpose(1, 2)
        return x + self.channel_mlp(self.norm2(x))


class Mixer(nn.Module):
    def __init__(self, depth=2, dim=6, classes=3):
        super().__init__()
        self.patchify = nn.Unfold(P, stride=P)
        self.embed = nn.Linear(3 * P * P, dim)
        self.blocks = nn.Sequential(*[MixerBlock(4, dim, 8) for _ in range(depth)])
        self.norm = nn.LayerNorm(dim)
        self.head = nn.Linear(dim, classes)

    def forward(self, x):
        x = self.embed(self.patchify(x).transpose(1, 2))
        x = self.norm(self.blocks(x))
        return self.head(x.mean(dim=1))


model = Mixer()
with torch.no_grad():
    for name, p in model.named_parameters():
        if name.endswith("weight") and p.dim() == 2:
            p.copy_(torch.from_numpy(rng.uniform(-0.3, 0.3, tuple(p.shape)).astype(np.float32)))
        elif name.endswith("bias"):
            p.fill_(0.01)
print(model.blocks[0])
print(sum(p.numel() for p in model.parameters()), [n for n, _ in model.named_children()])
opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9, weight_decay=1e-4)
for step in range(5):
    logits = model(images)
    loss = F.cross_entropy(logits, labels, label_smoothing=0.1)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(step, f"{loss.item():.5f}", logits.argmax(1).tolist())
print(model.blocks[1].token_mlp[0].weight.grad.abs().sum() > 0, model(images[:1]).softmax(-1))
