"""'Learn the Basics: Save and Load the Model' and the recipe 'Saving and loading models for
inference': state_dict with weights_only=True, the entire model, a checkpoint dict, several models
in one file, warm-starting with strict=False (the missing and unexpected keys), and map_location
in its forms (a string, a device, a function, a dict)."""
import io
import os
import tempfile

import numpy as np
import fluxgrad as torch
import fluxgrad.nn as nn

rng = np.random.default_rng(8)


class TheModelClass(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 2, 3)
        self.pool = nn.MaxPool2d(2, 2)
        self.fc1 = nn.Linear(2 * 2 * 2, 4)
        self.fc2 = nn.Linear(4, 3)

    def forward(self, x):
        x = self.pool(torch.relu(self.conv1(x)))
        x = torch.flatten(x, 1)
        return self.fc2(torch.relu(self.fc1(x)))


def filled(model, seed):
    g = np.random.default_rng(seed)
    with torch.no_grad():
        for p in model.parameters():
            p.copy_(torch.from_numpy(g.normal(0, 0.5, tuple(p.shape)).astype(np.float32)))
    return model


model = filled(TheModelClass(), 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
x = torch.from_numpy(rng.random((2, 1, 6, 6)).astype(np.float32))
loss = model(x).pow(2).sum()
loss.backward()
optimizer.step()
print("Model's state_dict:")
for param_tensor in model.state_dict():
    print(param_tensor, "\t", model.state_dict()[param_tensor].size())
print("Optimizer's state_dict:")
for var_name in optimizer.state_dict():
    print(var_name, "\t", optimizer.state_dict()[var_name])
with tempfile.TemporaryDirectory() as d:
    PATH = os.path.join(d, "model_weights.pth")
    torch.save(model.state_dict(), PATH)
    model2 = TheModelClass()
    print(model2.load_state_dict(torch.load(PATH, weights_only=True)))
    model2.eval()
    print(torch.allclose(model(x), model2(x)))
    torch.save(model, os.path.join(d, "model.pth"))
    whole = torch.load(os.path.join(d, "model.pth"), weights_only=False)
    print(type(whole).__name__, torch.equal(whole.fc2.bias, model.fc2.bias))
    torch.save({"epoch": 3, "model_state_dict": model.state_dict(),
                "optimizer_state_dict": optimizer.state_dict(), "loss": loss}, PATH)
    model3 = TheModelClass()
    optimizer3 = torch.optim.SGD(model3.parameters(), lr=0.5)
    checkpoint = torch.load(PATH, weights_only=True)
    model3.load_state_dict(checkpoint["model_state_dict"])
    optimizer3.load_state_dict(checkpoint["optimizer_state_dict"])
    print(checkpoint["epoch"], round(checkpoint["loss"].item(), 4), optimizer3.param_groups[0]["lr"],
          optimizer3.param_groups[0]["momentum"])
    model3.train()
    torch.save({"modelA_state_dict": filled(nn.Linear(2, 2), 3).state_dict(),
                "modelB_state_dict": filled(nn.Linear(2, 1), 4).state_dict()}, PATH)
    both = torch.load(PATH)
    modelA, modelB = nn.Linear(2, 2), nn.Linear(2, 1)
    modelA.load_state_dict(both["modelA_state_dict"])
    modelB.load_state_dict(both["modelB_state_dict"])
    print(modelA.weight, modelB.bias)

netA = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2))
netB = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2), nn.Linear(2, 1))
filled(netA, 9)
result = netB.load_state_dict(netA.state_dict(), strict=False)
print(result.missing_keys, result.unexpected_keys)
print(torch.equal(netB[0].weight, netA[0].weight))
try:
    netB.load_state_dict(netA.state_dict())
except RuntimeError as e:
    print("strict load: RuntimeError", "Missing key(s)" in str(e), "size mismatch" in str(e))
try:
    nn.Linear(3, 5).load_state_dict(nn.Linear(3, 4).state_dict(), strict=False)
except RuntimeError as e:
    print("shape mismatch even with strict=False:", "size mismatch" in str(e))
buffer = io.BytesIO()
torch.save(model.state_dict(), buffer)
device = torch.device("cpu")
for where in ["cpu", device, lambda storage, loc: storage, {"cpu": "cpu"}]:
    buffer.seek(0)
    state = torch.load(buffer, map_location=where, weights_only=True)
    fresh = TheModelClass()
    fresh.load_state_dict(state)
    fresh.to(device)
    print(state["fc2.bias"].device, torch.allclose(fresh(x), model(x)))
