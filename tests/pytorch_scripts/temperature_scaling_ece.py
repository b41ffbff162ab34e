"""Calibrating a classifier after training, as in "On Calibration of Modern Neural Networks"
(gpleiss/temperature_scaling): the expected calibration error from confidence bins (linspace
boundaries, gt/le masks, float().mean()), a single temperature parameter fit with LBFGS on the
NLL through a closure, and the reliability numbers before and after."""
import numpy as np
import fluxgrad as torch
import fluxgrad.nn as nn
import fluxgrad.nn.functional as F

rng = np.random.default_rng(41)
N, C = 200, 4
labels = torch.from_numpy(rng.integers(0, C, N))
logits = torch.from_numpy(rng.normal(0, 1, (N, C)).astype(np.float32))
logits[torch.arange(N), labels] += 1.5
logits = logits * 2.5


class ECELoss(nn.Module):
    def __init__(self, n_bins=10):
        super().__init__()
        bin_boundaries = torch.linspace(0, 1, n_bins + 1)
        self.bin_lowers = bin_boundaries[:-1]
        self.bin_uppers = bin_boundaries[1:]

    def forward(self, logits, labels):
        softmaxes = F.softmax(logits, dim=1)
        confidences, predictions = torch.max(softmaxes, 1)
        accuracies = predictions.eq(labels)
        ece = torch.zeros(1)
        rows = []
        for bin_lower, bin_upper in zip(self.bin_lowers, self.bin_uppers):
            in_bin = confidences.gt(bin_lower.item()) * confidences.le(bin_upper.item())
            prop_in_bin = in_bin.float().mean()
            if prop_in_bin.item() > 0:
                accuracy_in_bin = accuracies[in_bin].float().mean()
                avg_confidence_in_bin = confidences[in_bin].mean()
                ece += torch.abs(avg_confidence_in_bin - accuracy_in_bin) * prop_in_bin
                rows.append((round(bin_lower.item(), 1), in_bin.sum().item(), round(accuracy_in_bin.item(), 4)))
        return ece, rows


ece_criterion = ECELoss()
nll_criterion = nn.CrossEntropyLoss()
before_nll = nll_criterion(logits, labels).item()
before_ece, rows = ece_criterion(logits, labels)
print("Before temperature - NLL: %.3f, ECE: %.3f" % (before_nll, before_ece.item()))
print(rows)

temperature = nn.Parameter(torch.ones(1) * 1.5)
optimizer = torch.optim.LBFGS([temperature], lr=0.01, max_iter=50)


def temperature_scale(logits):
    return logits / temperature.unsqueeze(1).expand(logits.size(0), logits.size(1))


def eval_closure():
    optimizer.zero_grad()
    loss = nll_criterion(temperature_scale(logits), labels)
    loss.backward()
    return loss


optimizer.step(eval_closure)
print("Optimal temperature: %.3f" % temperature.item())
after_nll = nll_criterion(temperature_scale(logits), labels).item()
after_ece, rows = ece_criterion(temperature_scale(logits), labels)
print("After temperature - NLL: %.3f, ECE: %.3f" % (after_nll, after_ece.item()))
print(rows)
print(optimizer.state_dict()["state"][0]["n_iter"], optimizer.state_dict()["state"][0]["func_evals"])
