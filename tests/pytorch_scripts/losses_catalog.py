"""The loss functions people look up one by one, each as module and functional, with reductions and
gradients: KLDivLoss (batchmean, log_target), BCEWithLogitsLoss (pos_weight, weight), CrossEntropyLoss
(ignore_index, class weights, label_smoothing, probabilities, K-dim), NLLLoss, SmoothL1/Huber, margin
losses (MarginRanking, HingeEmbedding, CosineEmbedding, TripletMargin, MultiMargin, MultiLabelMargin,
MultiLabelSoftMargin, SoftMargin), PoissonNLL, GaussianNLL, CTCLoss."""
import numpy as np
import fluxgrad as torch
import fluxgrad.nn as nn
import fluxgrad.nn.functional as F

rng = np.random.default_rng(61)


def t(shape, scale=1.0, grad=True):
    return torch.from_numpy((rng.standard_normal(shape) * scale).astype(np.float32)).requires_grad_(grad)


logits = t((4, 3))
target = torch.tensor([0, 2, 1, 2])
log_q = F.log_softmax(logits, dim=1)
p = F.softmax(t((4, 3), grad=False), dim=1)
kl = nn.KLDivLoss(reduction="batchmean")(log_q, p)
kl.backward()
print(kl, logits.grad[0], F.kl_div(log_q, p.log(), reduction="sum", log_target=True), F.kl_div(log_q, p, reduction="none").shape)
x = t((3, 2))
y = torch.tensor([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
print(nn.BCEWithLogitsLoss(pos_weight=torch.tensor([2.0, 0.5]))(x, y), nn.BCEWithLogitsLoss(weight=torch.tensor([1.0, 3.0]), reduction="sum")(x, y))
print(F.binary_cross_entropy_with_logits(x, y, reduction="none"), nn.BCELoss()(torch.sigmoid(x), y))
ce_t = torch.tensor([0, -100, 1, 2])
print(nn.CrossEntropyLoss(ignore_index=-100)(logits, ce_t), nn.CrossEntropyLoss(weight=torch.tensor([1.0, 2.0, 0.5]))(logits, target))
print(nn.CrossEntropyLoss(label_smoothing=0.2, reduction="sum")(logits, target), nn.CrossEntropyLoss(weight=torch.tensor([1.0, 2.0, 0.5]), ignore_index=1)(logits, target))
print(F.cross_entropy(logits, p), F.cross_entropy(t((2, 3, 4), grad=False), torch.tensor([[0, 1, 2, 0], [2, 2, 1, 0]])), F.cross_entropy(logits[0], target[0]))
print(nn.NLLLoss(weight=torch.tensor([0.2, 0.3, 0.5]))(log_q, target), nn.NLLLoss(reduction="none")(log_q, target))
a, b = t((5,), 2), t((5,), 2, grad=False)
print(nn.SmoothL1Loss()(a, b), nn.SmoothL1Loss(beta=0.5, reduction="sum")(a, b), nn.HuberLoss(delta=2.0)(a, b), F.l1_loss(a, b), F.mse_loss(a, b, reduction="sum"))
x1, x2 = t((4,)), t((4,), grad=False)
sign = torch.tensor([1.0, -1.0, 1.0, -1.0])
print(nn.MarginRankingLoss(margin=0.1)(x1, x2, sign), nn.HingeEmbeddingLoss(margin=1.5)(x1, sign), nn.SoftMarginLoss()(x1, sign))
e1, e2 = t((3, 4)), t((3, 4), grad=False)
print(nn.CosineEmbeddingLoss(margin=0.2)(e1, e2, torch.tensor([1, -1, 1])), nn.TripletMarginLoss(margin=1.0, p=2)(e1, e2, t((3, 4), grad=False)))
print(nn.TripletMarginWithDistanceLoss(distance_function=nn.PairwiseDistance(), margin=0.5)(e1, e2, e2.flip(0)), F.triplet_margin_loss(e1, e2, e2 * 2, swap=True))
print(nn.MultiMarginLoss()(logits, target), nn.MultiMarginLoss(p=2, margin=0.5, weight=torch.tensor([1.0, 2.0, 3.0]))(logits, target))
ml_target = torch.tensor([[0, 2, -1], [1, -1, 0], [2, 1, 0], [-1, 0, 0]])
print(nn.MultiLabelMarginLoss()(logits, ml_target), nn.MultiLabelSoftMarginLoss()(logits, (ml_target >= 0).float()))
rate = t((4,), grad=False)
counts = torch.tensor([0.0, 2.0, 1.0, 5.0])
print(nn.PoissonNLLLoss()(rate, counts), nn.PoissonNLLLoss(log_input=False, full=True)(rate.exp(), counts), F.poisson_nll_loss(rate, counts, reduction="none"))
var = torch.tensor([0.5, 1.0, 2.0, 0.1])
print(nn.GaussianNLLLoss()(rate, counts, var), nn.GaussianNLLLoss(full=True, reduction="sum")(rate, counts, var), F.gaussian_nll_loss(rate.view(2, 2), counts.view(2, 2), torch.ones(2, 1)))
T_, N, C, S = 6, 2, 4, 3
log_probs = F.log_softmax(t((T_, N, C)), dim=2)
targets = torch.tensor([[1, 2, 1], [3, 3, 0]])
input_lengths = torch.tensor([6, 5])
target_lengths = torch.tensor([3, 2])
ctc = nn.CTCLoss(blank=0)(log_probs, targets, input_lengths, target_lengths)
print(ctc, F.ctc_loss(log_probs, targets, input_lengths, target_lengths, reduction="sum"), F.ctc_loss(log_probs, targets, input_lengths, target_lengths, reduction="none"))
total = nn.KLDivLoss(reduction="batchmean")(F.log_softmax(logits, dim=1), p) + ctc + nn.MultiMarginLoss()(logits, target) + nn.CosineEmbeddingLoss()(e1, e2, torch.tensor([1, -1, 1]))
logits.grad = None
total.backward()
print(logits.grad, e1.grad[0])
