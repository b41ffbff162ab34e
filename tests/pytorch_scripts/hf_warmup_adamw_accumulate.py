"""The fine-tuning loop of Hugging Face-style scripts: AdamW with no weight decay on biases
and LayerNorm weights, get_linear_schedule_with_warmup written with LambdaLR, gradient
accumulation over micro-batches (loss / accumulation_steps), clip_grad_norm_ before each
optimizer step, and the equivalence of accumulated and full-batch gradients."""
import numpy as np
import fluxgrad as torch
import fluxgrad.nn as nn
from fluxgrad.optim.lr_scheduler import LambdaLR

rng = np.random.default_rng(61)


def get_linear_schedule_with_warmup(optimizer, num_warmup_steps, num_training_steps, last_epoch=-1):
    def lr_lambda(current_step):
        if current_step < num_warmup_steps:
            return float(current_step) / float(max(1, num_warmup_steps))
        return max(0.0, float(num_training_steps - current_step) /
                   float(max(1, num_training_steps - num_warmup_steps)))
    return LambdaLR(optimizer, lr_lambda, last_epoch)


class Classifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.dense = nn.Linear(6, 8)
        self.LayerNorm = nn.LayerNorm(8)
        self.classifier = nn.Linear(8, 3)

    def forward(self, x):
        return self.classifier(torch.tanh(self.LayerNorm(self.dense(x))))


def make():
    m = Classifier()
    r = np.random.default_rng(0)
    with torch.no_grad():
        for p in m.parameters():
            p.copy_(torch.tensor(r.uniform(-0.4, 0.4, tuple(p.shape)), dtype=torch.float32))
    return m


model = make()
no_decay = ["bias", "LayerNorm.weight"]
grouped = [
    {"params": [p for n, p in model.named_parameters() if not any(nd in n for nd in no_decay)],
     "weight_decay": 0.01},
    {"params": [p for n, p in model.named_parameters() if any(nd in n for nd in no_decay)],
     "weight_decay": 0.0},
]
print([len(g["params"]) for g in grouped])
optimizer = torch.optim.AdamW(grouped, lr=5e-3, eps=1e-8)
accumulation_steps, num_updates = 3, 6
scheduler = get_linear_schedule_with_warmup(optimizer, 2, num_updates)
loss_fct = nn.CrossEntropyLoss()
data = torch.tensor(rng.standard_normal((num_updates * accumulation_steps * 2, 6)), dtype=torch.float32)
labels = torch.tensor(rng.integers(0, 3, len(data)))
model.zero_grad()
for step, (xb, yb) in enumerate(zip(data.split(2), labels.split(2))):
    loss = loss_fct(model(xb), yb) / accumulation_steps
    loss.backward()
    if (step + 1) % accumulation_steps == 0:
        norm = torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        scheduler.step()
        model.zero_grad()
        print(f"update {(step + 1) // accumulation_steps}: lr {scheduler.get_last_lr()[0]:.6f} "
              f"{optimizer.param_groups[1]['lr']:.6f} norm {norm.item():.5f} loss {loss.item() * accumulation_steps:.5f}")
print(scheduler.state_dict()["last_epoch"], scheduler.state_dict()["base_lrs"], scheduler.last_epoch)

a, b = make(), make()
xb, yb = data[:6], labels[:6]
loss_fct(a(xb), yb).backward()
for micro_x, micro_y in zip(xb.chunk(3), yb.chunk(3)):
    (loss_fct(b(micro_x), micro_y) / 3).backward()
print(max((pa.grad - pb.grad).abs().max().item() for pa, pb in zip(a.parameters(), b.parameters())) < 1e-6)
print(a.classifier.bias.grad, b.classifier.bias.grad)
