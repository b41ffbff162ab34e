"""A Siamese network trained with the contrastive loss of Hadsell, Chopra & LeCun (2006), as the
PyTorch Siamese tutorials write it: one shared embedding net applied to both inputs (the same
parameters, gradients summed), F.pairwise_distance with keepdim, the margin loss
(1 - y) d^2 + y max(0, m - d)^2, the cosine-similarity variant with nn.CosineEmbeddingLoss
(targets +1/-1), nn.MarginRankingLoss on the distances, and a decision threshold chosen on the
training pairs."""
import numpy as np
import fluxgrad as torch
import fluxgrad.nn as nn
import fluxgrad.nn.functional as F

rng = np.random.default_rng(2006)


class SiameseNetwork(nn.Module):
    def __init__(self):
        super().__init__()
        self.cnn1 = nn.Sequential(nn.Conv2d(1, 4, kernel_size=3), nn.ReLU(inplace=True),
                                  nn.BatchNorm2d(4), nn.MaxPool2d(2))
        self.fc1 = nn.Sequential(nn.Linear(4 * 3 * 3, 16), nn.ReLU(inplace=True), nn.Linear(16, 5))

    def forward_once(self, x):
        output = self.cnn1(x)
        output = output.view(output.size()[0], -1)
        return self.fc1(output)

    def forward(self, input1, input2):
        return self.forward_once(input1), self.forward_once(input2)


class ContrastiveLoss(nn.Module):
    def __init__(self, margin=2.0):
        super().__init__()
        self.margin = margin

    def forward(self, output1, output2, label):
        euclidean_distance = F.pairwise_distance(output1, output2, keepdim=True)
        return torch.mean((1 - label) * torch.pow(euclidean_distance, 2) +
                          label * torch.pow(torch.clamp(self.margin - euclidean_distance, min=0.0), 2))


net = SiameseNetwork()
with torch.no_grad():
    for p in net.parameters():
        p.copy_(torch.from_numpy(rng.normal(0, 0.3, tuple(p.shape)).astype(np.float32)))
protos = rng.normal(size=(3, 1, 8, 8)).astype(np.float32)
a_cls = rng.integers(0, 3, 16)
b_cls = np.where(rng.uniform(size=16) < 0.5, a_cls, (a_cls + 1) % 3)
x1 = torch.from_numpy(protos[a_cls] + 0.3 * rng.normal(size=(16, 1, 8, 8)).astype(np.float32))
x2 = torch.from_numpy(protos[b_cls] + 0.3 * rng.normal(size=(16, 1, 8, 8)).astype(np.float32))
label = torch.from_numpy((a_cls != b_cls).astype(np.float32)).unsqueeze(1)
print(label.squeeze().tolist())

criterion = ContrastiveLoss()
optimizer = torch.optim.Adam(net.parameters(), lr=0.005)
for epoch in range(5):
    optimizer.zero_grad()
    output1, output2 = net(x1, x2)
    loss_contrastive = criterion(output1, output2, label)
    loss_contrastive.backward()
    optimizer.step()
    print(epoch, round(loss_contrastive.item(), 5), net.fc1[2].weight.grad.abs().sum().item())

net.eval()
with torch.no_grad():
    o1, o2 = net(x1, x2)
    d = F.pairwise_distance(o1, o2)
print(d.shape, d[label.squeeze() == 0].mean(), d[label.squeeze() == 1].mean())
threshold = (d[label.squeeze() == 0].max() + d[label.squeeze() == 1].min()) / 2
pred = (d > threshold).float()
print("accuracy", (pred == label.squeeze()).float().mean().item())
print(F.pairwise_distance(torch.tensor([[0.0, 0.0]]), torch.tensor([[3.0, 4.0]])), F.pairwise_distance(torch.tensor([[1.0, 1.0]]), torch.tensor([[1.0, 1.0]]), eps=0.0))

cos_target = 1 - 2 * label.squeeze()
cos_loss = nn.CosineEmbeddingLoss(margin=0.2)
print(cos_target[:6], cos_loss(o1, o2, cos_target), F.cosine_similarity(o1, o2)[:4])
rank_loss = nn.MarginRankingLoss(margin=0.5)
far, near = d[label.squeeze() == 1][:3], d[label.squeeze() == 0][:3]
print(rank_loss(far, near, torch.ones(3)), rank_loss(near, far, torch.ones(3)))
