"""Neural collaborative filtering (He et al. 2017) the way recommender tutorials write it: GMF and
MLP towers with separate user/item nn.Embedding tables, NeuMF concatenating both into a predict
layer, implicit feedback with negative sampling done in NumPy, BCEWithLogitsLoss, Adam with
sparse-looking gradients (only looked-up rows change), and HR@k / NDCG@k evaluation with topk on
one positive among sampled negatives."""
import math

import numpy as np
import fluxgrad as torch
import fluxgrad.nn as nn

rng = np.random.default_rng(2017)
n_users, n_items, factor = 12, 30, 4


class NeuMF(nn.Module):
    def __init__(self, n_users, n_items, factor_num, layers=(16, 8)):
        super().__init__()
        self.embed_user_GMF = nn.Embedding(n_users, factor_num)
        self.embed_item_GMF = nn.Embedding(n_items, factor_num)
        self.embed_user_MLP = nn.Embedding(n_users, layers[0] // 2)
        self.embed_item_MLP = nn.Embedding(n_items, layers[0] // 2)
        mlp = []
        for i in range(len(layers) - 1):
            mlp += [nn.Dropout(p=0.0), nn.Linear(layers[i], layers[i + 1]), nn.ReLU()]
        self.MLP_layers = nn.Sequential(*mlp)
        self.predict_layer = nn.Linear(factor_num + layers[-1], 1)

    def forward(self, user, item):
        output_GMF = self.embed_user_GMF(user) * self.embed_item_GMF(item)
        interaction = torch.cat((self.embed_user_MLP(user), self.embed_item_MLP(item)), -1)
        output_MLP = self.MLP_layers(interaction)
        concat = torch.cat((output_GMF, output_MLP), -1)
        return self.predict_layer(concat).view(-1)


model = NeuMF(n_users, n_items, factor)
with torch.no_grad():
    for name, p in model.named_parameters():
        p.copy_(torch.from_numpy(rng.normal(0, 0.1, tuple(p.shape)).astype(np.float32)))
print(model)

positives = {u: set(rng.choice(n_items, 4, replace=False).tolist()) for u in range(n_users)}
pairs = [(u, i) for u, items in positives.items() for i in sorted(items)]
users, items, labels = [], [], []
for u, i in pairs:
    users.append(u); items.append(i); labels.append(1.0)
    for _ in range(2):
        j = int(rng.integers(n_items))
        while j in positives[u]:
            j = int(rng.integers(n_items))
        users.append(u); items.append(j); labels.append(0.0)
users, items, labels = torch.tensor(users), torch.tensor(items), torch.tensor(labels)
print(users.shape, labels.mean())

loss_function = nn.BCEWithLogitsLoss()
optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
before = model.embed_user_GMF.weight.detach().clone()
for epoch in range(5):
    model.train()
    perm = torch.from_numpy(rng.permutation(len(labels)))
    total = 0.0
    for batch in perm.split(32):
        optimizer.zero_grad()
        prediction = model(users[batch], items[batch])
        loss = loss_function(prediction, labels[batch])
        loss.backward()
        optimizer.step()
        total += loss.item() * len(batch)
    print(epoch, round(total / len(labels), 5))
print((model.embed_user_GMF.weight - before).abs().sum(1) > 0)


def hit(gt_item, pred_items):
    return 1 if gt_item in pred_items else 0


def ndcg(gt_item, pred_items):
    if gt_item in pred_items:
        index = pred_items.index(gt_item)
        return 1 / math.log2(index + 2)
    return 0


model.eval()
HR, NDCG = [], []
with torch.no_grad():
    for u in range(n_users):
        gt = sorted(positives[u])[0]
        negatives = [j for j in range(n_items) if j not in positives[u]][:9]
        candidates = torch.tensor([gt] + negatives)
        scores = model(torch.full((10,), u, dtype=torch.long), candidates)
        _, indices = torch.topk(scores, 3)
        recommends = torch.take(candidates, indices).tolist()
        HR.append(hit(gt, recommends))
        NDCG.append(ndcg(gt, recommends))
print("HR@3 %.4f NDCG@3 %.4f" % (np.mean(HR), np.mean(NDCG)))
