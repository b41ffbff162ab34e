"""An LSTM autoencoder for time-series anomaly detection, as in blog tutorials: an encoder LSTM
whose last hidden state (h_n) is the code, repeated over time with unsqueeze/repeat for the
decoder LSTM, a Linear head applied per step, L1 reconstruction loss with reduction='sum', a
threshold from the training errors' quantile, and predictions on a normal and an anomalous
window."""
import numpy as np
import fluxgrad as torch
import fluxgrad.nn as nn

rng = np.random.default_rng(61)
seq_len, n_features, embedding_dim = 12, 1, 6


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.rnn1 = nn.LSTM(n_features, 2 * embedding_dim, num_layers=1, batch_first=True)
        self.rnn2 = nn.LSTM(2 * embedding_dim, embedding_dim, num_layers=1, batch_first=True)

    def forward(self, x):
        x = x.reshape((1, seq_len, n_features))
        x, (_, _) = self.rnn1(x)
        x, (hidden_n, _) = self.rnn2(x)
        return hidden_n.reshape((n_features, embedding_dim))


class Decoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.rnn1 = nn.LSTM(embedding_dim, embedding_dim, num_layers=1, batch_first=True)
        self.rnn2 = nn.LSTM(embedding_dim, 2 * embedding_dim, num_layers=1, batch_first=True)
        self.output_layer = nn.Linear(2 * embedding_dim, n_features)

    def forward(self, x):
        x = x.repeat(seq_len, n_features)
        x = x.reshape((n_features, seq_len, embedding_dim))
        x, (hidden_n, cell_n) = self.rnn1(x)
        x, (hidden_n, cell_n) = self.rnn2(x)
        x = x.reshape((seq_len, 2 * embedding_dim))
        return self.output_layer(x)


class RecurrentAutoencoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = Encoder()
        self.decoder = Decoder()

    def forward(self, x):
        return self.decoder(self.encoder(x))


model = RecurrentAutoencoder()
with torch.no_grad():
    for p in model.parameters():
        p.copy_(torch.from_numpy(rng.uniform(-0.3, 0.3, tuple(p.shape)).astype(np.float32)))
t = np.linspace(0, 2 * np.pi, seq_len)
train = [torch.tensor(np.sin(t + phase).astype(np.float32)).unsqueeze(1) for phase in rng.uniform(0, 1, 6)]
optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
criterion = nn.L1Loss(reduction="sum")
for epoch in range(3):
    model = model.train()
    train_losses = []
    for seq_true in train:
        optimizer.zero_grad()
        seq_pred = model(seq_true)
        loss = criterion(seq_pred, seq_true)
        loss.backward()
        optimizer.step()
        train_losses.append(loss.item())
    print(f"Epoch {epoch}: train loss {np.mean(train_losses):.4f}")


def predict(model, dataset):
    predictions, losses = [], []
    with torch.no_grad():
        model = model.eval()
        for seq_true in dataset:
            seq_pred = model(seq_true)
            loss = criterion(seq_pred, seq_true)
            predictions.append(seq_pred.cpu().numpy().flatten())
            losses.append(loss.item())
    return predictions, losses


_, losses = predict(model, train)
THRESHOLD = torch.quantile(torch.tensor(losses), 0.9).item()
print(round(THRESHOLD, 4))
anomaly = train[0].clone()
anomaly[5:8] += 2.0
preds, test_losses = predict(model, [train[1], anomaly])
print([round(l, 4) for l in test_losses], [l > THRESHOLD for l in test_losses])
print(np.round(preds[1][:4], 4))
print(model.encoder.rnn1.weight_hh_l0.shape, model.decoder.rnn2.bias_ih_l0.shape)
