"""Train a small character-level transformer on a public-domain text with fluxgrad.

    python examples/train_charlm.py                 # about a minute on 2 cores
    python examples/train_charlm.py --steps 1500 --d-model 96 --layers 3

The model is a decoder-only transformer built from the PyTorch-style modules: an embedding of
each character plus a learned position embedding, `nn.TransformerEncoder` layers (pre-norm,
GELU) under the causal mask from `nn.Transformer.generate_square_subsequent_mask`, and a
linear head over the characters. It learns to predict the next character of random windows of
examples/data/public_domain.txt (shipped with the repository, nothing is downloaded).

Prints a progress bar (step, training loss), the held-out loss at the end, a sample of text
generated from a prompt, and writes the loss curve as a PNG when matplotlib is installed.
"""
import argparse
import os
import sys
import time

import numpy as np

import fluxgrad as fg
from fluxgrad import nn
import fluxgrad.nn.functional as F

DEFAULT_TEXT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data",
                            "public_domain.txt")


class CharTransformer(nn.Module):
    """Next-character logits [N, T, vocab] for character ids [N, T] (T <= context)."""

    def __init__(self, vocab, context, d_model, heads, layers, dropout):
        super().__init__()
        self.context = context
        self.token = nn.Embedding(vocab, d_model)
        self.position = nn.Embedding(context, d_model)
        layer = nn.TransformerEncoderLayer(d_model, heads, dim_feedforward=4 * d_model,
                                           dropout=dropout, activation="gelu",
                                           batch_first=True, norm_first=True)
        self.blocks = nn.TransformerEncoder(layer, layers, norm=nn.LayerNorm(d_model))
        self.head = nn.Linear(d_model, vocab)

    def forward(self, ids):
        length = ids.shape[1]
        x = self.token(ids) + self.position(fg.arange(length))
        mask = nn.Transformer.generate_square_subsequent_mask(length)
        return self.head(self.blocks(x, mask=mask, is_causal=True))


def load_text(path):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    chars = sorted(set(text))
    ids = np.array([chars.index(c) for c in text], dtype=np.int64)
    return chars, ids


def batch(ids, batch_size, context, rng):
    """Random windows: inputs ids[s:s+T] and targets ids[s+1:s+T+1]."""
    starts = rng.integers(0, len(ids) - context - 1, batch_size)
    windows = np.stack([ids[s:s + context + 1] for s in starts])
    return fg.tensor(windows[:, :-1]), fg.tensor(windows[:, 1:])


def loss_of(model, x, y):
    logits = model(x)
    return F.cross_entropy(logits.reshape(-1, logits.shape[-1]), y.reshape(-1))


def held_out_loss(model, ids, context, batches=4, seed=1):
    rng = np.random.default_rng(seed)
    model.eval()
    with fg.no_grad():
        loss = np.mean([loss_of(model, *batch(ids, 32, context, rng)).item()
                        for _ in range(batches)])
    model.train()
    return loss


def generate(model, chars, prompt, length, temperature=0.8):
    ids = [chars.index(c) for c in prompt if c in chars]
    model.eval()
    with fg.no_grad():
        for _ in range(length):
            window = fg.tensor(np.array([ids[-model.context:]]))
            logits = model(window)[0, -1] / temperature
            ids.append(int(fg.multinomial(F.softmax(logits, -1), 1).item()))
    model.train()
    return "".join(chars[i] for i in ids)


def progress(step, steps, loss, elapsed, width=24):
    filled = int(width * step / steps)
    bar = "#" * filled + "." * (width - filled)
    sys.stdout.write(f"\rstep {step:>4}/{steps} [{bar}] loss {loss:.3f}  {elapsed:5.1f} s")
    sys.stdout.flush()


def plot(losses, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(7, 4))
    steps = np.arange(1, len(losses) + 1)
    ax.plot(steps, losses, lw=0.8, alpha=0.5, label="training loss (per step)")
    window = max(1, len(losses) // 20)
    smooth = np.convolve(losses, np.ones(window) / window, mode="valid")
    ax.plot(steps[window - 1:], smooth, lw=2, label="training loss (smoothed)")
    ax.set_xlabel("step")
    ax.set_ylabel("cross-entropy (nats per character)")
    ax.legend(fontsize=8)
    ax.set_title("fluxgrad: a character-level transformer")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=600, help="optimisation steps")
    parser.add_argument("--batch-size", type=int, default=16)
    parser.add_argument("--context", type=int, default=48, help="characters per window")
    parser.add_argument("--d-model", type=int, default=64)
    parser.add_argument("--heads", type=int, default=4)
    parser.add_argument("--layers", type=int, default=2)
    parser.add_argument("--dropout", type=float, default=0.0)
    parser.add_argument("--lr", type=float, default=3e-3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--text", default=DEFAULT_TEXT, help="training text (UTF-8)")
    parser.add_argument("--prompt", default="To be")
    parser.add_argument("--sample-length", type=int, default=200)
    parser.add_argument("--out", default="charlm_output", help="folder for the loss curve")
    args = parser.parse_args(argv)

    fg.manual_seed(args.seed)
    rng = np.random.default_rng(args.seed)
    chars, ids = load_text(args.text)
    split = int(0.9 * len(ids))
    train_ids, test_ids = ids[:split], ids[split:]
    if len(test_ids) <= args.context + 1:
        sys.exit(f"--context {args.context} is too long for a text of {len(ids)} characters")
    model = CharTransformer(len(chars), args.context, args.d_model, args.heads, args.layers,
                            args.dropout)
    optimizer = fg.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=0.01)
    scheduler = fg.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=args.steps)
    n_params = sum(p.numel() for p in model.parameters())
    print(f"{n_params} parameters; {len(chars)} distinct characters; {len(train_ids)} "
          f"training and {len(test_ids)} held-out characters")

    losses = []
    start = time.perf_counter()
    for step in range(1, args.steps + 1):
        loss = loss_of(model, *batch(train_ids, args.batch_size, args.context, rng))
        optimizer.zero_grad()
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        scheduler.step()
        losses.append(loss.item())
        if step % 10 == 0 or step == args.steps:
            progress(step, args.steps, np.mean(losses[-10:]), time.perf_counter() - start)
    print()
    print(f"held-out loss {held_out_loss(model, test_ids, args.context):.3f} nats per "
          f"character (uniform guessing: {np.log(len(chars)):.3f})")

    sample = generate(model, chars, args.prompt, args.sample_length)
    print("sample:\n" + sample)

    os.makedirs(args.out, exist_ok=True)
    png = os.path.join(args.out, "charlm_loss.png")
    try:
        plot(losses, png)
        print(f"loss curve written to {png}")
    except ImportError:
        print("matplotlib is not installed: no loss curve (pip install -e \".[demo]\")")
    return losses, sample


if __name__ == "__main__":
    main()
