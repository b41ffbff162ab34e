"""Time-series forecasting the blog-post way: a sine wave plus noise, min-max scaling by hand, sliding
windows with unfold, an LSTM + Linear regressor trained with Adam and a StepLR, multi-step
autoregressive prediction under no_grad, inverse scaling, and MAE/RMSE metrics."""
import math
import numpy as np
import fluxgrad as torch
import fluxgrad.nn as nn

rng = np.random.default_rng(71)
t = torch.linspace(0, 4 * math.pi, 60)
series = torch.sin(t) + torch.from_numpy(rng.normal(0, 0.05, 60).astype(np.float32))
s_min, s_max = series.min(), series.max()
scaled = (series - s_min) / (s_max - s_min) * 2 - 1
print(s_min, s_max, scaled[:4], scaled.min(), scaled.max())
window = 8
windows = scaled.unfold(0, window + 1, 1)
X = windows[:, :-1].unsqueeze(-1)
y = windows[:, -1:]
print(windows.shape, X.shape, y.shape, torch.equal(X[1, :, 0], scaled[1:9]))
train_size = int(len(X) * 0.8)
X_train, y_train, X_test, y_test = X[:train_size], y[:train_size], X[train_size:], y[train_size:]
print(len(X_train), len(X_test))


class LSTMRegressor(nn.Module):
    def __init__(self, input_size=1, hidden_size=6, num_layers=2):
        super().__init__()
        self.lstm = nn.LSTM(input_size, hidden_size, num_layers, batch_first=True, dropout=0.0)
        self.linear = nn.Linear(hidden_size, 1)

    def forward(self, x):
        h0 = torch.zeros(self.lstm.num_layers, x.size(0), self.lstm.hidden_size)
        c0 = torch.zeros(self.lstm.num_layers, x.size(0), self.lstm.hidden_size)
        out, _ = self.lstm(x, (h0, c0))
        return self.linear(out[:, -1, :])


model = LSTMRegressor()
with torch.no_grad():
    for p in model.parameters():
        p.copy_(torch.from_numpy(rng.uniform(-0.4, 0.4, tuple(p.shape)).astype(np.float32)))
print(model)
criterion = nn.MSELoss()
optimizer = torch.optim.Adam(model.parameters(), lr=0.02)
scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=3, gamma=0.5)
for epoch in range(6):
    model.train()
    perm = torch.arange(len(X_train)).flip(0) if epoch % 2 else torch.arange(len(X_train))
    epoch_loss = 0.0
    for idx in perm.split(10):
        optimizer.zero_grad()
        loss = criterion(model(X_train[idx]), y_train[idx])
        loss.backward()
        optimizer.step()
        epoch_loss += loss.item() * len(idx)
    scheduler.step()
    model.eval()
    with torch.no_grad():
        test_loss = criterion(model(X_test), y_test).item()
    print(f"epoch {epoch} train {epoch_loss / len(X_train):.5f} test {test_loss:.5f} lr {scheduler.get_last_lr()[0]:.4f}")
with torch.no_grad():
    context = X_test[0].clone()
    preds = []
    for _ in range(5):
        nxt = model(context.unsqueeze(0))
        preds.append(nxt.item())
        context = torch.cat([context[1:], nxt.view(1, 1)], dim=0)
preds = torch.tensor(preds)
unscaled = (preds + 1) / 2 * (s_max - s_min) + s_min
truth = series[train_size + window: train_size + window + 5]
mae = (unscaled - truth).abs().mean()
rmse = torch.sqrt(((unscaled - truth) ** 2).mean())
print(unscaled, truth, f"MAE {mae:.4f} RMSE {rmse:.4f}")
