"""'Learn the Basics: Build the Neural Network': the NeuralNetwork class, logits -> Softmax ->
argmax, the layer-by-layer walk (Flatten, Linear, ReLU, Sequential, Softmax), printing the model
and its named parameters the tutorial's way."""
import numpy as np
import fluxgrad as torch
from fluxgrad import nn

device = torch.accelerator.current_accelerator().type if torch.accelerator.is_available() else "cpu"
print(f"Using {device} device")
rng = np.random.default_rng(5)


class NeuralNetwork(nn.Module):
    def __init__(self):
        super().__init__()
        self.flatten = nn.Flatten()
        self.linear_relu_stack = nn.Sequential(
            nn.Linear(6 * 6, 12),
            nn.ReLU(),
            nn.Linear(12, 12),
            nn.ReLU(),
            nn.Linear(12, 10),
        )

    def forward(self, x):
        x = self.flatten(x)
        logits = self.linear_relu_stack(x)
        return logits


model = NeuralNetwork().to(device)
with torch.no_grad():
    for p in model.parameters():
        p.copy_(torch.from_numpy(rng.normal(0, 0.3, tuple(p.shape)).astype(np.float32)))
print(model)
X = torch.from_numpy(rng.random((1, 6, 6)).astype(np.float32))
logits = model(X)
pred_probab = nn.Softmax(dim=1)(logits)
y_pred = pred_probab.argmax(1)
print(f"Predicted class: {y_pred}")
print(pred_probab.sum().item(), logits.shape)
input_image = torch.from_numpy(rng.random((3, 6, 6)).astype(np.float32))
print(input_image.size())
flatten = nn.Flatten()
flat_image = flatten(input_image)
print(flat_image.size())
layer1 = nn.Linear(in_features=6 * 6, out_features=5)
with torch.no_grad():
    layer1.weight.copy_(torch.from_numpy(rng.normal(0, 0.2, (5, 36)).astype(np.float32)))
    layer1.bias.fill_(-0.1)
hidden1 = layer1(flat_image)
print(hidden1.size())
print(f"Before ReLU: {hidden1}\n\n")
hidden1 = nn.ReLU()(hidden1)
print(f"After ReLU: {hidden1}")
seq_modules = nn.Sequential(flatten, layer1, nn.ReLU(), nn.Linear(5, 4))
with torch.no_grad():
    seq_modules[3].weight.copy_(torch.linspace(-1, 1, 20).view(4, 5))
    seq_modules[3].bias.zero_()
logits = seq_modules(input_image)
softmax = nn.Softmax(dim=1)
pred_probab = softmax(logits)
print(pred_probab)
print(f"Model structure: {model}\n\n")
for name, param in model.named_parameters():
    print(f"Layer: {name} | Size: {param.size()} | Values : {param[:2]} \n")
print(sum(p.numel() for p in model.parameters()), sum(p.numel() for p in model.parameters()
                                                      if p.requires_grad))
print([name for name, _ in model.named_modules()])
print(model.linear_relu_stack[0], model.linear_relu_stack[-1].out_features)
