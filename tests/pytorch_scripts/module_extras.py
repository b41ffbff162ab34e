"""Module reprs, hooks, named_modules, devices, dtype moves, parameter registration, buffers."""
import fluxgrad as torch
import fluxgrad.nn as nn

print(nn.Conv2d(3, 16, kernel_size=3, stride=2, padding=1))
print(nn.Conv1d(4, 8, 5, bias=False), nn.ConvTranspose2d(8, 4, 2, stride=2))
print(nn.BatchNorm2d(16), nn.LayerNorm(32), nn.Dropout(0.1), nn.Embedding(100, 16, padding_idx=0))
print(nn.LSTM(10, 20, num_layers=2, batch_first=True), nn.GRU(5, 6), nn.MaxPool2d(2), nn.AdaptiveAvgPool2d(1))
print(nn.Linear(4, 2), nn.ReLU(inplace=True), nn.LeakyReLU(0.2), nn.GELU(), nn.Softmax(dim=-1), nn.Flatten())
print(nn.MultiheadAttention(8, 2))
print(nn.CrossEntropyLoss(), nn.MSELoss(), nn.Identity(), nn.Tanh(), nn.Sigmoid(), nn.SiLU())
net = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Sequential(nn.Linear(3, 3), nn.Tanh()), nn.Linear(3, 1))
print(net)
print([name for name, _ in net.named_modules()])
print([type(m).__name__ for m in net.children()])
with torch.no_grad():
    for i, p in enumerate(net.parameters()):
        p.copy_(torch.linspace(-1, 1, p.numel()).view(p.shape) * (i + 1) / 4)
activations = {}


def save_output(name):
    def hook(module, inputs, output):
        activations[name] = output.detach()
    return hook


handle = net[0].register_forward_hook(save_output("first"))
pre = net[2].register_forward_pre_hook(lambda m, inputs: (inputs[0] * 2,))
out = net(torch.tensor([[1.0, -1.0]]))
print(out, activations["first"])
handle.remove()
pre.remove()
print(net(torch.tensor([[1.0, -1.0]])))
grads = []
h = net[3].weight.register_hook(lambda g: grads.append(g.clone()))
net(torch.tensor([[1.0, 2.0]])).sum().backward()
print(grads[0], net[3].weight.grad)
h.remove()
bh = net[0].register_full_backward_hook(lambda m, gi, go: print("grad_output", go[0]))
net(torch.tensor([[0.5, 0.5]])).sum().backward()
bh.remove()
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
net.to(device)
print(device, device.type, next(net.parameters()).device, torch.device("cpu") == torch.device("cpu"))
x = torch.ones(2, 2).to("cpu").cpu()
print(x.device.type, x.to(torch.float64).dtype, x.to("cpu", torch.int32).dtype, x.half().dtype)
net.float()
print(net[0].weight.dtype, net.to(torch.float64)[0].bias.dtype)


class WithBuffers(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("running", torch.zeros(2))
        self.register_buffer("temp", torch.ones(1), persistent=False)
        self.register_parameter("scale", nn.Parameter(torch.tensor(2.0)))
        self.plain = torch.ones(3)

    def forward(self, x):
        self.running += x.mean(0)
        return x * self.scale


wb = WithBuffers()
wb(torch.tensor([[1., 2.], [3., 4.]]))
print(wb.running, list(wb.state_dict().keys()), [n for n, _ in wb.named_buffers()], len(list(wb.parameters())))
print(wb.scale.requires_grad, isinstance(wb.scale, nn.Parameter), isinstance(wb.scale, torch.Tensor))
print(hasattr(wb, "plain"), "plain" in dict(wb.named_parameters()))
frozen = nn.Linear(2, 2)
for p in frozen.parameters():
    p.requires_grad = False
print([p.requires_grad for p in frozen.parameters()], frozen.weight.grad)
print(nn.Parameter(torch.ones(2), requires_grad=False).requires_grad)
print(sum(p.numel() for p in nn.LSTM(10, 20).parameters()), sum(p.numel() for p in nn.TransformerEncoderLayer(16, 4, 32).parameters()))
print(net.get_submodule("2.0"), net.get_parameter("3.bias").shape)
x_in = torch.tensor([[1.0, 2.0]], dtype=torch.float64, requires_grad=True)
seen = []
hh = net[0].register_full_backward_hook(lambda m, gi, go: seen.append((gi[0].clone(), go[0].clone())))
net(x_in).sum().backward()
print(x_in.grad, seen[0])
hh.remove()
x_in.grad = None
hh = net[0].register_full_backward_hook(lambda m, gi, go: (gi[0] * 10,))
pre_h = net[2].register_full_backward_pre_hook(lambda m, go: (go[0] * 0.5,))
net(x_in).sum().backward()
print(x_in.grad, net[0].weight.grad)
