"""A convolutional autoencoder and the upsampling layers people reach for: ConvTranspose2d with
output_padding, Upsample (nearest, bilinear), PixelShuffle/PixelUnshuffle, MaxPool2d with indices and
MaxUnpool2d, F.interpolate by scale_factor and size."""
import numpy as np
import fluxgrad as torch
import fluxgrad.nn as nn
import fluxgrad.nn.functional as F

rng = np.random.default_rng(8)


def fill(module):
    with torch.no_grad():
        for p in module.parameters():
            p.copy_(torch.from_numpy(rng.uniform(-0.3, 0.3, tuple(p.shape)).astype(np.float32)))
    return module


class ConvAutoencoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = nn.Sequential(
            nn.Conv2d(1, 4, 3, stride=2, padding=1), nn.ReLU(),
            nn.Conv2d(4, 8, 3, stride=2, padding=1), nn.ReLU(),
        )
        self.decoder = nn.Sequential(
            nn.ConvTranspose2d(8, 4, 3, stride=2, padding=1, output_padding=1), nn.ReLU(),
            nn.ConvTranspose2d(4, 1, 3, stride=2, padding=1, output_padding=1), nn.Sigmoid(),
        )

    def forward(self, x):
        return self.decoder(self.encoder(x))


model = fill(ConvAutoencoder())
x = torch.from_numpy(rng.uniform(size=(4, 1, 8, 8)).astype(np.float32))
print(model.encoder(x).shape, model(x).shape)
opt = torch.optim.Adam(model.parameters(), lr=1e-2)
crit = nn.MSELoss()
for epoch in range(3):
    opt.zero_grad()
    loss = crit(model(x), x)
    loss.backward()
    opt.step()
    print(f"epoch {epoch} loss {loss.item():.5f}")
img = torch.arange(16.0).view(1, 1, 4, 4)
print(nn.Upsample(scale_factor=2, mode="nearest")(img)[0, 0, :2])
print(nn.Upsample(scale_factor=2, mode="bilinear", align_corners=False)(img)[0, 0, 0])
print(nn.Upsample(size=(3, 5), mode="bilinear", align_corners=True)(img)[0, 0])
print(F.interpolate(img, scale_factor=0.5, mode="nearest"), F.interpolate(img, size=6, mode="bicubic", align_corners=False)[0, 0, 1])
print(F.interpolate(torch.arange(5.).view(1, 1, 5), size=3, mode="linear"), F.interpolate(img, scale_factor=1.5, mode="area").shape)
ps = nn.PixelShuffle(2)
feat = torch.arange(32.).view(1, 8, 2, 2)
shuffled = ps(feat)
print(shuffled.shape, shuffled[0, 0], nn.PixelUnshuffle(2)(shuffled).equal(feat))
sub_pixel = fill(nn.Sequential(nn.Conv2d(1, 4, 3, padding=1), nn.PixelShuffle(2)))
print(sub_pixel(img).shape, sub_pixel(img)[0, 0, 0, :4])
pool = nn.MaxPool2d(2, stride=2, return_indices=True)
unpool = nn.MaxUnpool2d(2, stride=2)
inp = torch.tensor([[[[1., 2, 3, 4], [5, 6, 7, 8], [9, 10, 11, 12], [13, 14, 15, 16]]]])
out, indices = pool(inp)
print(out, indices)
print(unpool(out, indices))
print(unpool(out, indices, output_size=inp.size()).shape)
up = fill(nn.ConvTranspose2d(2, 3, kernel_size=2, stride=2))
y = up(torch.ones(1, 2, 3, 3))
print(y.shape, y[0, :, 0, 0], up.weight.shape)
print(nn.ConvTranspose2d(2, 2, 3, stride=2, padding=1)(torch.ones(1, 2, 4, 4), output_size=[8, 8]).shape)
grad_in = torch.arange(16.).view(1, 1, 4, 4).requires_grad_()
F.interpolate(grad_in, scale_factor=2, mode="bilinear").pow(2).sum().backward()
print(grad_in.grad)
grad_in.grad = None
F.interpolate(grad_in, size=(5, 3), mode="bicubic").pow(2).sum().backward()
print(grad_in.grad)
