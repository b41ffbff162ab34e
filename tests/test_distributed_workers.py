"""The programs that tests/test_distributed.py starts under MPI (no tests here).

    mpiexec -n N python tests/test_distributed_workers.py SCENARIO [OUT_DIR]

`train` and `collectives` write one `.npz` per rank into OUT_DIR; the faults print what
they saw. The inputs are functions of the rank and the step (`inputs`, `global_batch`), so
the test process rebuilds them to compute the expected values without MPI.
"""
import os
import sys

import numpy as np

import fluxgrad as fg
import fluxgrad.distributed as dist
import fluxgrad.nn.functional as F
from fluxgrad import nn
from fluxgrad.data import DataLoader, DistributedSampler, TensorDataset

GLOBAL_BATCH = 8
STEPS = 20


def inputs(rank):
    """Rank `rank`'s input array for the collective checks."""
    return np.random.default_rng(rank).normal(size=(4, 3))


def global_batch(kind, step):
    rng = np.random.default_rng(1000 + step)
    if kind == "mlp":
        x = rng.normal(size=(GLOBAL_BATCH, 6))
    else:
        x = rng.normal(size=(GLOBAL_BATCH, 1, 6, 6)).astype(np.float32)
    return x, rng.integers(0, 3, GLOBAL_BATCH)


def make_model(kind, seed):
    fg.manual_seed(seed)
    if kind == "mlp":
        return nn.Sequential(nn.Linear(6, 16), nn.Tanh(), nn.Linear(16, 16), nn.Tanh(),
                             nn.Linear(16, 3)).double()
    if kind == "cnn":
        return nn.Sequential(nn.Conv2d(1, 4, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                             nn.Flatten(), nn.Linear(36, 3))
    if kind == "branchy":
        return Branchy()
    raise ValueError(kind)


class Branchy(nn.Module):
    """`always` is used on every rank, `rank0` only on rank 0, `never` on none."""

    def __init__(self):
        super().__init__()
        self.always = nn.Linear(3, 2).double()
        self.rank0 = nn.Linear(3, 2).double()
        self.never = nn.Linear(3, 2).double()

    def forward(self, x, use_rank0):
        out = self.always(x)
        return out + self.rank0(x) if use_rank0 else out


def train(kind, steps, model, optimizer, rank, world):
    share = GLOBAL_BATCH // world
    for step in range(steps):
        x, y = global_batch(kind, step)
        part = slice(rank * share, (rank + 1) * share)
        loss = F.cross_entropy(model(fg.tensor(x[part])), fg.tensor(y[part]))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


def params(module, prefix):
    return {f"{prefix}/{name}": p.detach().numpy().copy()
            for name, p in module.named_parameters()}


def scenario_train(rank, world):
    """Data-parallel training; the uneven last batch; no_sync; unused parameters."""
    out = {}
    for kind, bucket_mb in (("mlp", 0.001), ("cnn", 25)):
        model = make_model(kind, seed=rank)  # different weights: DDP must take rank 0's
        ddp = fg.DataParallel(model, bucket_cap_mb=bucket_mb)
        optimizer = fg.optim.SGD(ddp.parameters(), lr=0.1, momentum=0.9)
        train(kind, STEPS, ddp, optimizer, rank, world)
        out.update(params(model, kind))
        out[f"{kind}/buckets"] = np.array(len(ddp.reducer.buckets))

    # a dataset that the ranks' batches do not divide: DistributedSampler pads it
    x, y = global_batch("mlp", 0)
    data = TensorDataset(fg.tensor(np.concatenate([x, x[:3]])),
                         fg.tensor(np.concatenate([y, y[:3]])))
    model = make_model("mlp", seed=rank)
    ddp = fg.DataParallel(model)
    optimizer = fg.optim.SGD(ddp.parameters(), lr=0.1)
    sampler = DistributedSampler(data, shuffle=True, seed=5)
    for epoch in range(2):
        sampler.set_epoch(epoch)
        for xb, yb in DataLoader(data, batch_size=2, sampler=sampler):
            loss = F.cross_entropy(ddp(xb), yb)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
    out.update(params(model, "uneven"))

    # two local accumulation steps in no_sync, then a synchronised one
    model = make_model("mlp", seed=rank)
    ddp = fg.DataParallel(model)
    share = GLOBAL_BATCH // world
    for step in range(3):
        x, y = global_batch("mlp", step)
        part = slice(rank * share, (rank + 1) * share)
        if step < 2:
            with ddp.no_sync():
                F.cross_entropy(ddp(fg.tensor(x[part])), fg.tensor(y[part])).backward()
            out[f"no_sync/local_{step}"] = model[0].weight.grad.numpy().copy()
        else:
            F.cross_entropy(ddp(fg.tensor(x[part])), fg.tensor(y[part])).backward()
    out.update({f"no_sync/{name}": p.grad.numpy().copy() for name, p in model.named_parameters()})

    # unused parameters: `never` on no rank, `rank0` on rank 0 only
    model = make_model("branchy", seed=0)
    ddp = fg.DataParallel(model, find_unused_parameters=True, bucket_cap_mb=0.0001)
    xb = fg.tensor(inputs(rank)[:, :3])
    for step in range(2):
        ddp.zero_grad()
        ddp(xb, use_rank0=rank == 0).sum().backward()
    for name, p in model.named_parameters():
        out[f"unused/{name}"] = np.array(np.nan) if p.grad is None else p.grad.numpy().copy()
    strict = fg.DataParallel(make_model("branchy", seed=0))
    try:
        strict(xb, use_rank0=True).sum().backward()
        out["unused/error"] = np.array("")
    except RuntimeError as e:
        out["unused/error"] = np.array(str(e))
    return out


def scenario_collectives(rank, world):
    """Every collective on the rank's `inputs(rank)`; the differentiable ones' gradients."""
    out = {}
    x = inputs(rank)
    for op in ("sum", "avg", "max", "min"):
        t = fg.tensor(x)
        dist.all_reduce(t, op=op)
        out[f"all_reduce/{op}"] = t.numpy()
    t = fg.tensor(x)
    work = dist.all_reduce(t, async_op=True)
    work.wait()
    out["all_reduce/async"] = t.numpy()
    t = fg.tensor(x)
    dist.broadcast(t, src=world - 1)
    out["broadcast"] = t.numpy()
    parts = [fg.zeros(4, 3, dtype=fg.float64) for _ in range(world)]
    dist.all_gather(parts, fg.tensor(x))
    out["all_gather"] = np.stack([p.numpy() for p in parts])
    stacked = fg.zeros(4 * world, 3, dtype=fg.float64)
    dist.all_gather_into_tensor(stacked, fg.tensor(x))
    out["all_gather_into_tensor"] = stacked.numpy()
    blocks = [fg.tensor(x * (r + 1)) for r in range(world)]
    got = fg.zeros(4, 3, dtype=fg.float64)
    dist.reduce_scatter(got, blocks)
    out["reduce_scatter"] = got.numpy()
    got = fg.zeros(4, 3, dtype=fg.float64)
    dist.reduce_scatter_tensor(got, fg.tensor(np.concatenate([x * (r + 1) for r in range(world)])))
    out["reduce_scatter_tensor"] = got.numpy()
    dist.barrier()

    # differentiable: loss = sum(w_rank * f(x)) with w_rank = rank + 1, summed over the ranks
    functional = dist.functional
    w = rank + 1.0
    for name, f in (("all_reduce", lambda v: functional.all_reduce(v)),
                    ("all_gather", lambda v: sum((i + 1) * p for i, p in
                                                 enumerate(functional.all_gather(v)))),
                    ("broadcast", lambda v: functional.broadcast(v, src=0)),
                    ("reduce_scatter", lambda v: functional.reduce_scatter(
                        v, [v * (i + 1) for i in range(world)]))):
        v = fg.tensor(x, requires_grad=True)
        (f(v) * w).sum().backward()
        out[f"grad/{name}"] = v.grad.numpy()
    return out


def scenario_raise(rank, world):
    """Rank 1 fails while the others wait for it in an all-reduce."""
    if rank == 1:
        raise ValueError("worker 1 failed on purpose")
    dist.all_reduce(fg.tensor([1.0]))
    print(f"rank {rank} passed the all-reduce", flush=True)


def scenario_mismatch(rank, world):
    """Rank 1 builds a wider first layer than the others."""
    model = nn.Sequential(nn.Linear(4, 5 if rank == 1 else 3), nn.ReLU())
    try:
        fg.DataParallel(model)
    except RuntimeError as e:
        print(f"rank {rank}: {e}", flush=True)


def demo(out_dir):
    """examples/train_digits.py --distributed on random 8x8 "digits" (no scikit-learn needed)."""
    import importlib.util
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    spec = importlib.util.spec_from_file_location(
        "train_digits", os.path.join(root, "examples", "train_digits.py"))
    demo = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(demo)
    rng = np.random.default_rng(0)
    images = rng.random((200, 1, 8, 8)).astype(np.float32)
    demo.load_digits_dataset = lambda: TensorDataset(fg.tensor(images),
                                                     fg.tensor(rng.integers(0, 10, 200)))
    demo.main(["--distributed", "--model", "mlp", "--epochs", "2", "--out", out_dir])


def main():
    scenario, out_dir = sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else None
    if scenario == "demo":
        return demo(out_dir)
    dist.init_process_group()
    rank, world = dist.get_rank(), dist.get_world_size()
    result = globals()[f"scenario_{scenario}"](rank, world)
    if out_dir is not None and result is not None:
        np.savez(os.path.join(out_dir, f"{scenario}_{world}_{rank}.npz"), **result)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
