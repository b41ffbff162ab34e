"""The 'Transfer learning for computer vision' tutorial's skeleton with a tiny custom backbone in
place of resnet18: a 'pretrained' model (weights from NumPy), finetuning everything vs. using it as
a fixed feature extractor (requires_grad = False, a new fc, an optimizer over fc only),
train_model with train/val phases under set_grad_enabled, running_corrects with torch.sum(preds
== labels.data), StepLR, and best_model_wts kept with copy.deepcopy(state_dict())."""
import copy
import numpy as np
import fluxgrad as torch
import fluxgrad.nn as nn
import fluxgrad.optim as optim
from fluxgrad.optim import lr_scheduler
from fluxgrad.utils.data import DataLoader, TensorDataset

rng = np.random.default_rng(15)


class TinyResNet(nn.Module):
    def __init__(self, num_classes=10):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 8, 3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(8)
        self.relu = nn.ReLU(inplace=True)
        self.layer1 = nn.Sequential(nn.Conv2d(8, 8, 3, padding=1, bias=False), nn.BatchNorm2d(8))
        self.avgpool = nn.AdaptiveAvgPool2d((1, 1))
        self.fc = nn.Linear(8, num_classes)

    def forward(self, x):
        x = self.relu(self.bn1(self.conv1(x)))
        x = self.relu(x + self.layer1(x))
        x = torch.flatten(self.avgpool(x), 1)
        return self.fc(x)


def pretrained():
    model = TinyResNet()
    g = np.random.default_rng(99)
    with torch.no_grad():
        for p in model.parameters():
            p.copy_(torch.from_numpy(g.normal(0, 0.3, tuple(p.shape)).astype(np.float32)))
    return model


proto = rng.normal(0, 1, (2, 3, 6, 6)).astype(np.float32)
labels = rng.integers(0, 2, 48)
images = proto[labels] + rng.normal(0, 1.0, (48, 3, 6, 6)).astype(np.float32)
image_datasets = {"train": TensorDataset(torch.from_numpy(images[:32]), torch.from_numpy(labels[:32])),
                  "val": TensorDataset(torch.from_numpy(images[32:]), torch.from_numpy(labels[32:]))}
dataloaders = {x: DataLoader(image_datasets[x], batch_size=8, shuffle=False) for x in ["train", "val"]}
dataset_sizes = {x: len(image_datasets[x]) for x in ["train", "val"]}
class_names = ["ants", "bees"]
print(dataset_sizes, class_names)
device = torch.device("cpu")


def train_model(model, criterion, optimizer, scheduler, num_epochs=3):
    best_model_wts = copy.deepcopy(model.state_dict())
    best_acc = 0.0
    for epoch in range(num_epochs):
        print(f"Epoch {epoch}/{num_epochs - 1}")
        print("-" * 10)
        for phase in ["train", "val"]:
            if phase == "train":
                model.train()
            else:
                model.eval()
            running_loss = 0.0
            running_corrects = 0
            for inputs, labels in dataloaders[phase]:
                inputs = inputs.to(device)
                labels = labels.to(device)
                optimizer.zero_grad()
                with torch.set_grad_enabled(phase == "train"):
                    outputs = model(inputs)
                    _, preds = torch.max(outputs, 1)
                    loss = criterion(outputs, labels)
                    if phase == "train":
                        loss.backward()
                        optimizer.step()
                running_loss += loss.item() * inputs.size(0)
                running_corrects += torch.sum(preds == labels.data)
            if phase == "train":
                scheduler.step()
            epoch_loss = running_loss / dataset_sizes[phase]
            epoch_acc = running_corrects.double() / dataset_sizes[phase]
            print(f"{phase} Loss: {epoch_loss:.4f} Acc: {epoch_acc:.4f}")
            if phase == "val" and epoch_acc > best_acc:
                best_acc = epoch_acc
                best_model_wts = copy.deepcopy(model.state_dict())
    print(f"Best val Acc: {best_acc:4f}")
    model.load_state_dict(best_model_wts)
    return model


model_ft = pretrained()
num_ftrs = model_ft.fc.in_features
model_ft.fc = nn.Linear(num_ftrs, len(class_names))
with torch.no_grad():
    model_ft.fc.weight.copy_(torch.linspace(-0.5, 0.5, 2 * num_ftrs).view(2, num_ftrs))
    model_ft.fc.bias.zero_()
model_ft = model_ft.to(device)
criterion = nn.CrossEntropyLoss()
optimizer_ft = optim.SGD(model_ft.parameters(), lr=0.01, momentum=0.9)
exp_lr_scheduler = lr_scheduler.StepLR(optimizer_ft, step_size=2, gamma=0.1)
model_ft = train_model(model_ft, criterion, optimizer_ft, exp_lr_scheduler, num_epochs=3)
print(optimizer_ft.param_groups[0]["lr"], model_ft.bn1.running_mean[:3])
model_conv = pretrained()
for param in model_conv.parameters():
    param.requires_grad = False
num_ftrs = model_conv.fc.in_features
model_conv.fc = nn.Linear(num_ftrs, 2)
with torch.no_grad():
    model_conv.fc.weight.copy_(torch.linspace(0.5, -0.5, 2 * num_ftrs).view(2, num_ftrs))
    model_conv.fc.bias.zero_()
optimizer_conv = optim.SGD(model_conv.fc.parameters(), lr=0.01, momentum=0.9)
exp_lr_scheduler = lr_scheduler.StepLR(optimizer_conv, step_size=2, gamma=0.1)
frozen = model_conv.conv1.weight.clone()
model_conv = train_model(model_conv, criterion, optimizer_conv, exp_lr_scheduler, num_epochs=2)
print(torch.equal(frozen, model_conv.conv1.weight), model_conv.conv1.weight.grad,
      sum(p.requires_grad for p in model_conv.parameters()))
model_conv.eval()
with torch.no_grad():
    inputs, labels = next(iter(dataloaders["val"]))
    outputs = model_conv(inputs)
    _, preds = torch.max(outputs, 1)
    print([f"predicted: {class_names[preds[j]]}" for j in range(4)])
