"""Object-detection losses as reference code writes them: the sigmoid focal loss
(torchvision's formula with alpha and gamma), smooth L1 with beta, box IoU and GIoU by hand
on (x1, y1, x2, y2) boxes with clamp/min/max, and the matching of predictions to targets by
the best IoU; gradients of the combined loss with respect to the box regressions."""
import numpy as np
import fluxgrad as torch
import fluxgrad.nn.functional as F

rng = np.random.default_rng(27)


def sigmoid_focal_loss(inputs, targets, alpha=0.25, gamma=2.0, reduction="none"):
    p = torch.sigmoid(inputs)
    ce_loss = F.binary_cross_entropy_with_logits(inputs, targets, reduction="none")
    p_t = p * targets + (1 - p) * (1 - targets)
    loss = ce_loss * ((1 - p_t) ** gamma)
    if alpha >= 0:
        alpha_t = alpha * targets + (1 - alpha) * (1 - targets)
        loss = alpha_t * loss
    if reduction == "mean":
        loss = loss.mean()
    elif reduction == "sum":
        loss = loss.sum()
    return loss


def box_area(boxes):
    return (boxes[:, 2] - boxes[:, 0]) * (boxes[:, 3] - boxes[:, 1])


def box_iou(boxes1, boxes2):
    area1, area2 = box_area(boxes1), box_area(boxes2)
    lt = torch.max(boxes1[:, None, :2], boxes2[:, :2])
    rb = torch.min(boxes1[:, None, 2:], boxes2[:, 2:])
    wh = (rb - lt).clamp(min=0)
    inter = wh[:, :, 0] * wh[:, :, 1]
    union = area1[:, None] + area2 - inter
    return inter / union, union


def generalized_box_iou(boxes1, boxes2):
    iou, union = box_iou(boxes1, boxes2)
    lt = torch.min(boxes1[:, None, :2], boxes2[:, :2])
    rb = torch.max(boxes1[:, None, 2:], boxes2[:, 2:])
    wh = (rb - lt).clamp(min=0)
    area = wh[:, :, 0] * wh[:, :, 1]
    return iou - (area - union) / area


def random_boxes(n):
    xy = rng.uniform(0, 5, (n, 2))
    wh = rng.uniform(1, 3, (n, 2))
    return torch.tensor(np.concatenate([xy, xy + wh], 1), dtype=torch.float32)


logits = torch.tensor(rng.standard_normal((4, 3)), dtype=torch.float32, requires_grad=True)
labels = torch.tensor(rng.integers(0, 2, (4, 3)), dtype=torch.float32)
for red in ("none", "mean", "sum"):
    print(red, sigmoid_focal_loss(logits, labels, reduction=red))
print(sigmoid_focal_loss(logits, labels, alpha=-1, gamma=0, reduction="mean"),
      F.binary_cross_entropy_with_logits(logits, labels))

anchors = random_boxes(4)
targets = random_boxes(3)
deltas = torch.tensor(rng.normal(0, 0.2, (4, 4)), dtype=torch.float32, requires_grad=True)
pred = anchors + deltas
iou, _ = box_iou(pred, targets)
giou = generalized_box_iou(pred, targets)
print(iou, giou)
best_iou, match = iou.max(dim=1)
print(best_iou, match, giou.gather(1, match[:, None]).squeeze(1))
matched = targets[match]
reg = F.smooth_l1_loss(pred, matched, beta=1.0 / 9, reduction="sum") / 4
giou_loss = (1 - torch.diag(generalized_box_iou(pred, matched))).mean()
cls = sigmoid_focal_loss(logits, labels, reduction="sum") / max(1.0, labels.sum().item())
total = reg + 2 * giou_loss + cls
total.backward()
print(reg.item(), giou_loss.item(), cls.item(), total.item())
print(deltas.grad, logits.grad)
print(F.huber_loss(pred, matched, delta=0.5), F.l1_loss(pred, matched, reduction="none").sum(1))
