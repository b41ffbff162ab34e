"""Train a small network on scikit-learn's 8x8 handwritten digits with fluxgrad.

    pip install -e ".[demo]"
    python examples/train_digits.py                 # small CNN, about 20 s on 2 cores
    python examples/train_digits.py --model mlp --epochs 30 --lr 0.003
    python -m fluxgrad.distributed.run -n 2 examples/train_digits.py --distributed

Prints a progress bar per epoch (loss, accuracy, elapsed time and ETA; one plain line per
epoch when the output is not a terminal), the held-out accuracy, saves a
checkpoint, reloads it into a fresh model to check it gives the same accuracy,
and writes the loss curve as a PNG next to the checkpoint. The data ship inside
scikit-learn: nothing is downloaded.

With `--distributed` (under the launcher, `pip install -e ".[distributed]"`) every process
trains a replica on its share of each epoch (`--batch-size` images per process and step),
the gradients are averaged over the processes, and only rank 0 prints, writes the
checkpoint and the PNG.
"""
import argparse
import os
import sys
import time

import numpy as np

import fluxgrad as fg
from fluxgrad import nn
import fluxgrad.nn.functional as F
from fluxgrad.data import DataLoader, DistributedSampler, TensorDataset, random_split


def make_model(kind):
    if kind == "mlp":
        return nn.Sequential(nn.Flatten(), nn.Linear(64, 128), nn.ReLU(), nn.Dropout(0.1),
                             nn.Linear(128, 10))
    if kind == "cnn":
        return nn.Sequential(
            nn.Conv2d(1, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),    # 32 x 4 x 4
            nn.Conv2d(32, 64, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),   # 64 x 2 x 2
            nn.Flatten(), nn.Dropout(0.1), nn.Linear(256, 10))
    raise ValueError(f"unknown model {kind!r}: choose 'cnn' or 'mlp'")


def load_digits_dataset():
    try:
        from sklearn.datasets import load_digits
    except ImportError:
        sys.exit("This demo needs scikit-learn (and matplotlib for the plot): "
                 "pip install -e \".[demo]\"")
    digits = load_digits()
    images = (digits.images / 16.0).astype(np.float32)[:, None]  # [N, 1, 8, 8] in [0, 1]
    return TensorDataset(fg.tensor(images), fg.tensor(digits.target.astype(np.int64)))


class Progress:
    """The training's progress bar, with elapsed time and ETA. On a terminal it is redrawn in
    place after every step; on a file or pipe it writes one line per epoch, when the epoch ends.
    Either way the line is left open for the epoch's held-out accuracy."""

    def __init__(self, epochs, steps, stream=None, clock=time.perf_counter, width=24):
        self.epochs, self.steps, self.width, self.clock = epochs, steps, width, clock
        self.stream = sys.stdout if stream is None else stream
        isatty = getattr(self.stream, "isatty", None)
        self.live = bool(isatty and isatty())
        self.start = clock()

    def update(self, epoch, done, loss, acc):
        if not self.live and done < self.steps:
            return
        elapsed = self.clock() - self.start
        finished = (epoch - 1) * self.steps + done
        eta = elapsed * (self.epochs * self.steps - finished) / finished
        filled = int(self.width * done / self.steps)
        bar = "#" * filled + "." * (self.width - filled)
        line = (f"epoch {epoch:>2}/{self.epochs} [{bar}] {done:>3}/{self.steps} "
                f"loss {loss:.4f} acc {acc:6.2%}  elapsed {_clock(elapsed)} eta {_clock(eta)}")
        self.stream.write(("\r" if self.live else "") + line)
        self.stream.flush()


def _clock(seconds):
    minutes, seconds = divmod(int(round(seconds)), 60)
    return f"{minutes}:{seconds:02d}"


def accuracy(model, loader):
    model.eval()
    correct = count = 0
    with fg.no_grad():
        for x, y in loader:
            pred = model(x).numpy().argmax(1)
            correct += int((pred == y.numpy()).sum())
            count += len(y)
    model.train()
    return correct / count


def plot(losses, steps_per_epoch, val_acc, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(7, 4))
    steps = np.arange(1, len(losses) + 1) / steps_per_epoch
    ax.plot(steps, losses, lw=0.8, alpha=0.5, label="training loss (per batch)")
    window = max(1, steps_per_epoch // 2)
    smooth = np.convolve(losses, np.ones(window) / window, mode="valid")
    ax.plot(steps[window - 1:], smooth, lw=2, label="training loss (smoothed)")
    ax.set_xlabel("epoch")
    ax.set_ylabel("cross-entropy")
    ax.set_yscale("log")
    ax2 = ax.twinx()
    ax2.plot(np.arange(1, len(val_acc) + 1), val_acc, "o-", color="tab:green",
             label="held-out accuracy")
    ax2.set_ylabel("accuracy")
    ax2.set_ylim(0, 1)
    handles = ax.get_legend_handles_labels()[0] + ax2.get_legend_handles_labels()[0]
    ax.legend(handles=handles, loc="lower left", fontsize=8)
    ax.set_title("fluxgrad on the 8x8 digits")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", choices=["cnn", "mlp"], default="cnn")
    parser.add_argument("--epochs", type=int, default=20)
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--lr", type=float, default=3e-3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", default="digits_output", help="folder for checkpoint and plot")
    parser.add_argument("--distributed", action="store_true",
                        help="data-parallel over the processes of the launcher: "
                             "python -m fluxgrad.distributed.run -n 2 %(prog)s --distributed")
    args = parser.parse_args(argv)
    rank = world = None
    if args.distributed:
        fg.distributed.init_process_group()
        rank, world = fg.distributed.get_rank(), fg.distributed.get_world_size()
    lead = rank in (None, 0)
    log = print if lead else (lambda *a, **k: None)

    fg.manual_seed(args.seed)
    dataset = load_digits_dataset()
    n_test = len(dataset) // 5
    train_set, test_set = random_split(dataset, [len(dataset) - n_test, n_test])
    train_set = TensorDataset(*(t[np.asarray(train_set.indices)] for t in dataset.tensors))
    test_set = TensorDataset(*(t[np.asarray(test_set.indices)] for t in dataset.tensors))
    sampler = DistributedSampler(train_set, seed=args.seed) if args.distributed else None
    train_loader = DataLoader(train_set, batch_size=args.batch_size, shuffle=sampler is None,
                              sampler=sampler)
    test_loader = DataLoader(test_set, batch_size=256)

    model = make_model(args.model)
    net = model
    if args.distributed:
        net = fg.DataParallel(model)         # rank 0's initial weights on every rank
        fg.manual_seed(args.seed + rank)     # each rank its own dropout masks
    optimizer = fg.optim.Adam(model.parameters(), lr=args.lr)
    scheduler = fg.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=args.epochs)
    n_params = sum(p.numel() for p in model.parameters())
    log(f"{args.model}: {n_params} parameters; {len(train_set)} training and {len(test_set)} "
        f"held-out images" + (f"; {world} processes" if args.distributed else ""))

    losses, val_acc = [], []
    start = time.perf_counter()
    progress = Progress(args.epochs, len(train_loader))
    for epoch in range(1, args.epochs + 1):
        if sampler is not None:
            sampler.set_epoch(epoch)
        seen = correct = 0
        running = 0.0
        for step, (x, y) in enumerate(train_loader, 1):
            logits = net(x)
            loss = F.cross_entropy(logits, y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            losses.append(loss.item())
            running += losses[-1] * len(y)
            seen += len(y)
            correct += int((logits.detach().numpy().argmax(1) == y.numpy()).sum())
            if lead:
                progress.update(epoch, step, running / seen, correct / seen)
        scheduler.step()
        if not lead:
            continue
        val_acc.append(accuracy(model, test_loader))
        print(f"  held-out acc {val_acc[-1]:6.2%}")
    elapsed = time.perf_counter() - start
    if not lead:
        return None

    test_acc = accuracy(model, test_loader)
    print(f"held-out accuracy: {test_acc:.2%} ({elapsed:.1f} s of training)")

    os.makedirs(args.out, exist_ok=True)
    ckpt = os.path.join(args.out, f"digits_{args.model}.fg")
    fg.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(),
             "args": vars(args), "test_accuracy": test_acc}, ckpt)
    restored = make_model(args.model)
    checkpoint = fg.load(ckpt)
    restored.load_state_dict(checkpoint["model"])
    reloaded_acc = accuracy(restored, test_loader)
    status = "same" if reloaded_acc == test_acc else "DIFFERENT"
    print(f"checkpoint {ckpt} reloaded: accuracy {reloaded_acc:.2%} ({status})")

    png = os.path.join(args.out, f"digits_{args.model}_loss.png")
    try:
        plot(losses, len(train_loader), val_acc, png)
        print(f"loss curve written to {png}")
    except ImportError:
        print("matplotlib is not installed: no loss curve (pip install -e \".[demo]\")")
    return test_acc, reloaded_acc


if __name__ == "__main__":
    main()
