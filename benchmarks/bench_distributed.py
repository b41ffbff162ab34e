"""Data-parallel training throughput with 1 and 2 MPI processes, one BLAS thread each.

    pip install -e '.[distributed]'
    python benchmarks/bench_distributed.py            # MLP 784-1024-1024-10 and the digits CNN
    python benchmarks/bench_distributed.py mlp        # one of them

Every process runs the same global batch split in equal shares (one process: all of it).
For each model it prints images per second with 1 and 2 processes (target: 2 >= 1.6x one)
and, from the 2-process runs of the same steps:
  - local:       no communication at all (each rank steps on its own share): compute only;
  - ddp:         DistributedDataParallel, all-reduces started during backward (1 MB buckets);
  - no overlap:  the same, but every bucket's all-reduce starts once backward is over.
The share of the step spent in communication is 1 - local / ddp (it includes waiting for
the slower rank); "all-reduce alone" times the gradients' all-reduce with nothing else
running. Overlap saves no-overlap - ddp. Times are the best of several rounds, each round
timed between barriers, over PASSES launches of every configuration taken in turn (on a
shared machine, every configuration then sees the same conditions).
"""
import os
import subprocess
import sys

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_var] = "1"

import time  # noqa: E402

import numpy as np  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

import fluxgrad as fg  # noqa: E402
import fluxgrad.distributed as dist  # noqa: E402
import fluxgrad.nn.functional as F  # noqa: E402
from fluxgrad import nn  # noqa: E402

CASES = {"mlp": 256, "cnn": 256}   # model: global batch
ROUNDS, STEPS, PASSES = 20, 3, 3


def make_model(kind):
    fg.manual_seed(0)
    if kind == "mlp":
        return nn.Sequential(nn.Linear(784, 1024), nn.ReLU(), nn.Linear(1024, 1024), nn.ReLU(),
                             nn.Linear(1024, 10))
    return nn.Sequential(                     # examples/train_digits.py's CNN
        nn.Conv2d(1, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(32, 64, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Flatten(), nn.Linear(256, 10))


def batch(kind, size):
    rng = np.random.default_rng(0)
    shape = (size, 784) if kind == "mlp" else (size, 1, 8, 8)
    return fg.tensor(rng.random(shape, dtype=np.float32)), fg.tensor(rng.integers(0, 10, size))


def worker(kind, mode):
    """Time training steps in this process of the job; rank 0 prints seconds per step."""
    dist.init_process_group()
    comm = dist.process_group.default_group().comm
    world = comm.Get_size()
    x, y = batch(kind, CASES[kind] // world)
    model = make_model(kind)
    net = model
    if mode != "local":
        net = fg.DataParallel(model, bucket_cap_mb=1)
        net.reducer.overlap = mode == "ddp"
    optimizer = fg.optim.SGD(model.parameters(), lr=0.01)

    def step():
        loss = F.cross_entropy(net(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()

    step()
    step()
    print_rank0(comm, best_time(comm, step, STEPS))
    if mode == "ddp":
        flat = np.concatenate([p.grad._data.ravel() for p in model.parameters()])
        in_place = dist.process_group.mpi().IN_PLACE
        print_rank0(comm, best_time(comm, lambda: comm.Allreduce(in_place, flat), 1))


def best_time(comm, fn, number):
    best = float("inf")
    for _ in range(ROUNDS):
        comm.Barrier()
        start = time.perf_counter()
        for _ in range(number):
            fn()
        comm.Barrier()
        best = min(best, (time.perf_counter() - start) / number)
    return best


def print_rank0(comm, value):
    if comm.Get_rank() == 0:
        print(value, flush=True)


def measure(kind, n, mode):
    from fluxgrad.distributed.run import find_mpiexec
    env = dict(os.environ, PYTHONPATH=ROOT)
    out = subprocess.run([find_mpiexec(), "-n", str(n), sys.executable, __file__, "--worker",
                          kind, mode], env=env, capture_output=True, text=True, timeout=600)
    if out.returncode:
        raise SystemExit(out.stdout + out.stderr)
    return [float(v) for v in out.stdout.split()]


def main(kinds):
    configs = [(1, "local"), (2, "local"), (2, "ddp"), (2, "no_overlap")]
    for kind in kinds:
        size = CASES[kind]
        n_params = sum(p.numel() for p in make_model(kind).parameters())
        best = {}
        for _ in range(PASSES):
            for config in configs:
                times = measure(kind, *config)
                best[config] = [min(a, b) for a, b in zip(best.get(config, times), times)]
        (one,), (local,), (ddp, alone), (after,) = (best[c] for c in configs)
        print(f"{kind}: {n_params} parameters, global batch {size}, one BLAS thread per process")
        print(f"  1 process:             {one * 1e3:7.1f} ms/step  {size / one:8.0f} images/s")
        print(f"  2 processes, ddp:      {ddp * 1e3:7.1f} ms/step  {size / ddp:8.0f} images/s  "
              f"speed-up {one / ddp:4.2f}x (target >= 1.6x: "
              f"{'met' if one / ddp >= 1.6 else 'NOT met'})")
        print(f"  2 processes, local:    {local * 1e3:7.1f} ms/step  {size / local:8.0f} images/s  "
              f"speed-up {one / local:4.2f}x with no communication: the most this machine "
              "gives now")
        print(f"  2 processes, no overlap: {after * 1e3:5.1f} ms/step")
        print(f"  all-reduce alone of the {n_params * 4 / 2**20:.1f} MB of gradients: "
              f"{alone * 1e3:.2f} ms ({alone / ddp:.0%} of the ddp step)")
        comm, comm_after = max(ddp - local, 0), max(after - local, 0)
        print(f"  communication: {comm * 1e3:.1f} ms of the ddp step ({comm / ddp:.0%}); "
              f"without overlap {comm_after * 1e3:.1f} ms ({comm_after / after:.0%}); "
              f"overlap saves {(after - ddp) * 1e3:.1f} ms per step ({(after - ddp) / after:.0%})",
              flush=True)


if __name__ == "__main__":
    if sys.argv[1:2] == ["--worker"]:
        worker(*sys.argv[2:4])
    else:
        main(sys.argv[1:] or list(CASES))
