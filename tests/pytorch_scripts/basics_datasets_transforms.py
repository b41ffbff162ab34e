"""'Learn the Basics: Datasets & DataLoaders' and 'Transforms': a FashionMNIST-shaped custom Dataset
built from arrays in memory (as the CSV + image directory version), a labels_map, iterating a
DataLoader, a ToTensor-like transform and the one-hot Lambda target transform written with scatter_."""
import numpy as np
import fluxgrad as torch
from fluxgrad.utils.data import DataLoader, Dataset

rng = np.random.default_rng(3)
labels_map = {0: "T-Shirt", 1: "Trouser", 2: "Pullover", 3: "Dress", 4: "Coat", 5: "Sandal",
              6: "Shirt", 7: "Sneaker", 8: "Bag", 9: "Ankle Boot"}


def to_tensor(pic):
    """ToTensor(): a HxW uint8 image to a 1xHxW float tensor in [0, 1]."""
    return torch.from_numpy(pic).unsqueeze(0).float().div(255)


class Lambda:
    def __init__(self, lambd):
        self.lambd = lambd

    def __call__(self, x):
        return self.lambd(x)


class CustomImageDataset(Dataset):
    def __init__(self, images, labels, transform=None, target_transform=None):
        self.img_labels = labels
        self.images = images
        self.transform = transform
        self.target_transform = target_transform

    def __len__(self):
        return len(self.img_labels)

    def __getitem__(self, idx):
        image = self.images[idx]
        label = int(self.img_labels[idx])
        if self.transform:
            image = self.transform(image)
        if self.target_transform:
            label = self.target_transform(label)
        return image, label


images = rng.integers(0, 256, (20, 8, 8)).astype(np.uint8)
labels = rng.integers(0, 10, 20)
training_data = CustomImageDataset(images[:14], labels[:14], transform=to_tensor)
test_data = CustomImageDataset(images[14:], labels[14:], transform=to_tensor,
                               target_transform=Lambda(lambda y: torch.zeros(
                                   10, dtype=torch.float).scatter_(0, torch.tensor(y), value=1)))
print(len(training_data), len(test_data))
for i in range(3):
    img, label = training_data[i]
    print(labels_map[label], img.shape, img.dtype, round(img.mean().item(), 4), img.squeeze().shape)
img, onehot = test_data[0]
print(onehot, onehot.argmax().item() == labels[14])
train_dataloader = DataLoader(training_data, batch_size=4, shuffle=False)
test_dataloader = DataLoader(test_data, batch_size=4, shuffle=False)
train_features, train_labels = next(iter(train_dataloader))
print(f"Feature batch shape: {train_features.size()}")
print(f"Labels batch shape: {train_labels.size()}")
img = train_features[0].squeeze()
label = train_labels[0]
print(img.shape, f"Label: {label}", labels_map[label.item()])
for X, y in test_dataloader:
    print(X.shape, y.shape, y.dtype, y.sum(1))
sizes = [len(b[1]) for b in DataLoader(training_data, batch_size=4, drop_last=False)]
print(sizes, len(DataLoader(training_data, batch_size=4, drop_last=True)))
torch.manual_seed(0)
seen = sorted(int(l) for _, y in DataLoader(training_data, batch_size=5, shuffle=True) for l in y)
print(seen == sorted(int(l) for l in labels[:14]))
target = torch.zeros(3, 10).scatter_(1, torch.tensor([[1], [4], [9]]), 1.0)
print(target)
print(torch.zeros(2, 5).scatter_(1, torch.tensor([[0, 1], [2, 3]]), torch.tensor([[5., 6.], [7., 8.]])))
print(torch.nn.functional.one_hot(torch.tensor([3, 0, 2]), num_classes=5))
