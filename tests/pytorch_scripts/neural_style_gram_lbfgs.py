"""Neural style transfer in miniature (Gatys et al., the PyTorch tutorial's shape): a fixed
random conv feature extractor with requires_grad_(False), content and Gram-matrix style
losses as modules that record their loss in forward, and the input image optimised by
LBFGS with a closure that clamps the image in place under no_grad."""
import numpy as np
import fluxgrad as torch
import fluxgrad.nn as nn
import fluxgrad.nn.functional as F

rng = np.random.default_rng(23)


def gram_matrix(x):
    b, c, h, w = x.size()
    features = x.view(b * c, h * w)
    return torch.mm(features, features.t()).div(b * c * h * w)


class ContentLoss(nn.Module):
    def __init__(self, target):
        super().__init__()
        self.target = target.detach()

    def forward(self, x):
        self.loss = F.mse_loss(x, self.target)
        return x


class StyleLoss(nn.Module):
    def __init__(self, target_feature):
        super().__init__()
        self.target = gram_matrix(target_feature).detach()

    def forward(self, x):
        self.loss = F.mse_loss(gram_matrix(x), self.target)
        return x


features = nn.Sequential(nn.Conv2d(3, 4, 3, padding=1), nn.ReLU(inplace=False),
                         nn.Conv2d(4, 4, 3, padding=1), nn.ReLU(inplace=False))
with torch.no_grad():
    for p in features.parameters():
        p.copy_(torch.tensor(rng.uniform(-0.4, 0.4, tuple(p.shape)), dtype=torch.float32))
features.eval().requires_grad_(False)
content_img = torch.tensor(rng.uniform(0, 1, (1, 3, 6, 6)), dtype=torch.float32)
style_img = torch.tensor(rng.uniform(0, 1, (1, 3, 6, 6)), dtype=torch.float32)

model = nn.Sequential()
content_losses, style_losses = [], []
for i, layer in enumerate(features.children()):
    name = f"conv_{i}" if isinstance(layer, nn.Conv2d) else f"relu_{i}"
    model.add_module(name, layer)
    if name == "conv_2":
        cl = ContentLoss(model(content_img))
        model.add_module("content_loss", cl)
        content_losses.append(cl)
    if name.startswith("conv"):
        sl = StyleLoss(model(style_img))
        model.add_module(f"style_loss_{i}", sl)
        style_losses.append(sl)
print(model)

input_img = content_img.clone().requires_grad_(True)
optimizer = torch.optim.LBFGS([input_img], lr=0.5, max_iter=5)
print(all(not p.requires_grad for p in model.parameters()), input_img.requires_grad)
for run in range(3):
    def closure():
        with torch.no_grad():
            input_img.clamp_(0, 1)
        optimizer.zero_grad()
        model(input_img)
        style_score = 1e4 * sum(sl.loss for sl in style_losses)
        content_score = sum(cl.loss for cl in content_losses)
        loss = style_score + content_score
        loss.backward()
        return loss
    loss = optimizer.step(closure)
    print(f"run {run}: loss {loss.item():.6f}")
with torch.no_grad():
    input_img.clamp_(0, 1)
print(input_img[0, 0, :2], gram_matrix(features(input_img)).diagonal())
print(optimizer.state[input_img]["n_iter"], optimizer.state[input_img]["func_evals"])
