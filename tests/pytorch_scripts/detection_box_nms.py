"""Object-detection box utilities written by hand, as in torchvision's box_ops and YOLO repos:
cxcywh <-> xyxy, box areas, pairwise IoU with broadcasting and clamp, generalized IoU loss,
greedy NMS with a while loop over sorted scores, batched NMS with the coordinate-offset trick,
and anchor matching (max over IoU, argmax, thresholds)."""
import numpy as np
import fluxgrad as torch

rng = np.random.default_rng(7)


def box_cxcywh_to_xyxy(x):
    x_c, y_c, w, h = x.unbind(-1)
    b = [(x_c - 0.5 * w), (y_c - 0.5 * h), (x_c + 0.5 * w), (y_c + 0.5 * h)]
    return torch.stack(b, dim=-1)


def box_xyxy_to_cxcywh(x):
    x0, y0, x1, y1 = x.unbind(-1)
    return torch.stack([(x0 + x1) / 2, (y0 + y1) / 2, (x1 - x0), (y1 - y0)], dim=-1)


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


def nms(boxes, scores, iou_threshold):
    order = scores.argsort(descending=True)
    keep = []
    while order.numel() > 0:
        i = order[0]
        keep.append(i.item())
        if order.numel() == 1:
            break
        ious, _ = box_iou(boxes[i].unsqueeze(0), boxes[order[1:]])
        mask = ious[0] <= iou_threshold
        order = order[1:][mask]
    return torch.tensor(keep, dtype=torch.long)


def batched_nms(boxes, scores, idxs, iou_threshold):
    max_coordinate = boxes.max()
    offsets = idxs.to(boxes) * (max_coordinate + torch.tensor(1).to(boxes))
    boxes_for_nms = boxes + offsets[:, None]
    return nms(boxes_for_nms, scores, iou_threshold)


centers = torch.from_numpy(rng.uniform(10, 50, (12, 2)).astype(np.float32))
sizes = torch.from_numpy(rng.uniform(8, 20, (12, 2)).astype(np.float32))
cxcywh = torch.cat([centers, sizes], dim=1)
boxes = box_cxcywh_to_xyxy(cxcywh)
print(boxes[:3])
print(torch.allclose(box_xyxy_to_cxcywh(boxes), cxcywh, atol=1e-5))
print(box_area(boxes))
iou, _ = box_iou(boxes, boxes)
print(iou.diagonal(), iou[0])
print((iou > 0.1).sum().item(), iou.triu(diagonal=1).max())

scores = torch.from_numpy(rng.uniform(0, 1, 12).astype(np.float32))
keep = nms(boxes, scores, 0.3)
print(keep, scores[keep])
labels = torch.from_numpy(rng.integers(0, 3, 12))
keep_b = batched_nms(boxes, scores, labels, 0.3)
print(keep_b, labels[keep_b])
keep_sorted, _ = torch.sort(keep_b)
print(keep_sorted.tolist())

anchors = box_cxcywh_to_xyxy(torch.tensor([[20., 20., 16., 16.], [40., 40., 12., 12.],
                                           [30., 20., 20., 10.], [15., 45., 10., 14.]]))
gt = boxes[:3]
match_iou, _ = box_iou(anchors, gt)
best_iou, best_gt = match_iou.max(dim=1)
print(best_iou, best_gt)
labels_anchor = torch.full((4,), -1, dtype=torch.long)
labels_anchor[best_iou < 0.1] = 0
labels_anchor[best_iou >= 0.2] = 1
best_anchor_per_gt = match_iou.argmax(dim=0)
labels_anchor[best_anchor_per_gt] = 1
print(labels_anchor, best_anchor_per_gt)

pred = (boxes[:4] + torch.from_numpy(rng.normal(0, 2, (4, 4)).astype(np.float32))).requires_grad_()
giou = generalized_box_iou(pred, boxes[:4])
loss = (1 - torch.diag(giou)).mean()
loss.backward()
print(round(loss.item(), 5))
print(pred.grad)
l1 = torch.nn.functional.l1_loss(box_xyxy_to_cxcywh(pred), cxcywh[:4], reduction="none").sum(-1)
print(l1)
