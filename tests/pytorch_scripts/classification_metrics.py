"""Evaluation metrics written with tensor ops, as in course notebooks and torchmetrics' simple
paths: the confusion matrix by bincount of target * C + pred, per-class precision/recall/F1 with
nan_to_num, macro and micro averages, balanced accuracy, top-k accuracy from topk and eq/expand_as,
binary ROC AUC (sort descending, cumsum of positives, trapezoid rule) and average precision,
and Cohen's kappa."""
import numpy as np
import fluxgrad as torch

rng = np.random.default_rng(43)
N, C = 60, 4
target = torch.from_numpy(rng.integers(0, C, N))
logits = torch.from_numpy(rng.normal(0, 1, (N, C)).astype(np.float32))
logits[torch.arange(N), target] += torch.from_numpy(rng.uniform(0, 2, N).astype(np.float32))
pred = logits.argmax(dim=1)

cm = torch.bincount(target * C + pred, minlength=C * C).reshape(C, C)
print(cm)
tp = cm.diag().float()
precision = torch.nan_to_num(tp / cm.sum(0).float())
recall = tp / cm.sum(1).float()
f1 = torch.nan_to_num(2 * precision * recall / (precision + recall))
print(precision, recall, f1)
print(f1.mean().item(), (tp.sum() / cm.sum()).item(), recall.mean().item())


def accuracy(output, target, topk=(1,)):
    with torch.no_grad():
        maxk = max(topk)
        batch_size = target.size(0)
        _, pred = output.topk(maxk, 1, True, True)
        pred = pred.t()
        correct = pred.eq(target.view(1, -1).expand_as(pred))
        res = []
        for k in topk:
            correct_k = correct[:k].reshape(-1).float().sum(0, keepdim=True)
            res.append(correct_k.mul_(100.0 / batch_size))
        return res


print(accuracy(logits, target, topk=(1, 2, 3)))

scores = torch.softmax(logits, 1)[:, 1]
is_pos = (target == 1).float()
order = torch.argsort(scores, descending=True)
tps = torch.cumsum(is_pos[order], 0)
fps = torch.cumsum(1 - is_pos[order], 0)
tpr = torch.cat([torch.zeros(1), tps / tps[-1]])
fpr = torch.cat([torch.zeros(1), fps / fps[-1]])
auc = torch.trapezoid(tpr, fpr)
print(round(auc.item(), 5), tpr[:6], fpr[:6])
precision_at = tps / torch.arange(1, N + 1)
ap = (precision_at * is_pos[order]).sum() / is_pos.sum()
print(round(ap.item(), 5))

po = tp.sum() / N
pe = (cm.sum(0).float() * cm.sum(1).float()).sum() / N ** 2
kappa = (po - pe) / (1 - pe)
print(round(kappa.item(), 5))
per_class = torch.stack([precision, recall, f1], dim=1)
torch.set_printoptions(precision=3)
print(per_class)
torch.set_printoptions(profile="default")
support = torch.unique(target, return_counts=True)
print(support)
