"""fluxgrad.distributed and DistributedDataParallel with real MPI processes on this machine.

Each scenario of tests/test_distributed_workers.py runs once per world size (a module-scoped
fixture), and the tests compare what the ranks wrote with NumPy and with one process
training on the global batch, rebuilt here from the same seeds.
"""
import importlib.util
import os
import subprocess
import sys

import numpy as np
import pytest

pytest.importorskip("mpi4py.MPI", reason="the `distributed` extra (mpi4py and an MPI runtime) "
                                          "is not installed: pip install -e '.[distributed]'")

import fluxgrad as fg  # noqa: E402
import fluxgrad.nn.functional as F  # noqa: E402
from fluxgrad.data import DataLoader, DistributedSampler, TensorDataset  # noqa: E402
from fluxgrad.distributed.run import find_mpiexec  # noqa: E402

sys.path.insert(0, os.path.dirname(__file__))
import test_distributed_workers as workers  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(fg.__file__)))
WORKER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "test_distributed_workers.py")
TIMEOUT = 60


def launch(n, scenario, out_dir=None, via_launcher=False):
    """Run a scenario on n MPI processes; the completed process (output captured)."""
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""),
               OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1")
    args = [WORKER, scenario] + ([str(out_dir)] if out_dir is not None else [])
    if via_launcher:
        cmd = [sys.executable, "-m", "fluxgrad.distributed.run", "-n", str(n)] + args
    else:
        cmd = [find_mpiexec(), "-n", str(n), sys.executable] + args
    return subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=TIMEOUT,
                          cwd=ROOT)


def results(tmp_path_factory, n, scenario):
    out_dir = tmp_path_factory.mktemp(f"{scenario}{n}")
    proc = launch(n, scenario, out_dir, via_launcher=n == 2)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return [dict(np.load(out_dir / f"{scenario}_{n}_{r}.npz")) for r in range(n)]


@pytest.fixture(scope="module", params=[2, 4])
def train_results(request, tmp_path_factory):
    return request.param, results(tmp_path_factory, request.param, "train")


@pytest.fixture(scope="module", params=[2, 3])
def collective_results(request, tmp_path_factory):
    return request.param, results(tmp_path_factory, request.param, "collectives")


def single_process(kind, steps):
    """One process, the global batch, rank 0's initial weights."""
    model = workers.make_model(kind, seed=0)
    optimizer = fg.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    workers.train(kind, steps, model, optimizer, rank=0, world=1)
    return workers.params(model, kind)


@pytest.mark.parametrize("kind, tol", [("mlp", 1e-10), ("cnn", 2e-5)])
def test_ranks_train_like_one_process_on_the_global_batch(train_results, kind, tol):
    n, ranks = train_results
    expected = single_process(kind, workers.STEPS)
    for name, want in expected.items():
        for rank, got in enumerate(ranks):
            np.testing.assert_allclose(got[name], want, rtol=tol, atol=tol,
                                       err_msg=f"{name} on rank {rank} of {n}")
    assert int(ranks[0]["mlp/buckets"]) > 1, "the MLP should be split into several buckets"


def test_padded_uneven_last_batch_trains_like_one_process(train_results):
    n, ranks = train_results
    x, y = workers.global_batch("mlp", 0)
    data = TensorDataset(fg.tensor(np.concatenate([x, x[:3]])),
                         fg.tensor(np.concatenate([y, y[:3]])))
    model = workers.make_model("mlp", seed=0)
    optimizer = fg.optim.SGD(model.parameters(), lr=0.1)
    samplers = [DistributedSampler(data, num_replicas=n, rank=r, shuffle=True, seed=5)
                for r in range(n)]
    assert len(data) % n and all(len(s) == -(-len(data) // n) for s in samplers)
    for epoch in range(2):
        for s in samplers:
            s.set_epoch(epoch)
        loaders = [DataLoader(data, batch_size=2, sampler=s) for s in samplers]
        for batches in zip(*loaders):
            xb = fg.cat([b[0] for b in batches])
            yb = fg.cat([b[1] for b in batches])
            loss = F.cross_entropy(model(xb), yb)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
    for name, want in workers.params(model, "uneven").items():
        for rank, got in enumerate(ranks):
            np.testing.assert_allclose(got[name], want, rtol=1e-10, atol=1e-12,
                                       err_msg=f"{name} on rank {rank} of {n}")


def test_no_sync_accumulates_locally_then_averages_everything(train_results):
    n, ranks = train_results
    share = workers.GLOBAL_BATCH // n
    model = workers.make_model("mlp", seed=0)
    local = [[None, None] for _ in range(n)]
    for step in range(2):
        x, y = workers.global_batch("mlp", step)
        for r in range(n):
            model.zero_grad()
            part = slice(r * share, (r + 1) * share)
            F.cross_entropy(model(fg.tensor(x[part])), fg.tensor(y[part])).backward()
            local[r][step] = model[0].weight.grad.numpy().copy()
    for r, got in enumerate(ranks):
        np.testing.assert_allclose(got["no_sync/local_0"], local[r][0], rtol=1e-12)
        np.testing.assert_allclose(got["no_sync/local_1"], local[r][0] + local[r][1], rtol=1e-12)
    model.zero_grad()
    for step in range(3):
        x, y = workers.global_batch("mlp", step)
        F.cross_entropy(model(fg.tensor(x)), fg.tensor(y)).backward()
    for name, p in model.named_parameters():
        for rank, got in enumerate(ranks):
            np.testing.assert_allclose(got[f"no_sync/{name}"], p.grad.numpy(), rtol=1e-10,
                                       atol=1e-12, err_msg=f"{name} on rank {rank} of {n}")


def test_unused_parameters_are_averaged_as_zero_or_left_alone(train_results):
    n, ranks = train_results
    xs = [workers.inputs(r)[:, :3] for r in range(n)]
    always_w = np.broadcast_to(np.mean([x.sum(0) for x in xs], axis=0), (2, 3))
    rank0_w = np.broadcast_to(xs[0].sum(0) / n, (2, 3))
    for rank, got in enumerate(ranks):
        np.testing.assert_allclose(got["unused/always.weight"], always_w, rtol=1e-12)
        np.testing.assert_allclose(got["unused/always.bias"], [4.0, 4.0], rtol=1e-12)
        np.testing.assert_allclose(got["unused/rank0.weight"], rank0_w, rtol=1e-12)
        np.testing.assert_allclose(got["unused/rank0.bias"], [4.0 / n, 4.0 / n], rtol=1e-12)
        assert np.isnan(got["unused/never.weight"]) and np.isnan(got["unused/never.bias"])


def test_unused_parameter_without_find_unused_parameters_raises(train_results):
    _, ranks = train_results
    for got in ranks:
        message = str(got["unused/error"])
        assert "never.weight" in message and "find_unused_parameters=True" in message


def test_collectives_match_numpy(collective_results):
    n, ranks = collective_results
    xs = np.stack([workers.inputs(r) for r in range(n)])
    expected = {"all_reduce/sum": xs.sum(0), "all_reduce/avg": xs.mean(0),
                "all_reduce/max": xs.max(0), "all_reduce/min": xs.min(0),
                "all_reduce/async": xs.sum(0), "broadcast": xs[n - 1], "all_gather": xs,
                "all_gather_into_tensor": xs.reshape(-1, 3)}
    for rank, got in enumerate(ranks):
        for name, want in expected.items():
            np.testing.assert_allclose(got[name], want, rtol=1e-12, err_msg=f"{name}, rank {rank}")
        np.testing.assert_allclose(got["reduce_scatter"], xs.sum(0) * (rank + 1), rtol=1e-12)
        np.testing.assert_allclose(got["reduce_scatter_tensor"], xs.sum(0) * (rank + 1),
                                   rtol=1e-12)


def test_differentiable_collectives_carry_gradients_across_ranks(collective_results):
    # loss = sum over ranks q of (q + 1) * sum(f_q(x)); the gradient on rank r, in closed form
    n, ranks = collective_results
    ones = np.ones((4, 3))
    weights = np.arange(1, n + 1)
    for rank, got in enumerate(ranks):
        expected = {"all_reduce": weights.sum() * ones,
                    "all_gather": weights.sum() * (rank + 1) * ones,
                    "broadcast": (weights.sum() if rank == 0 else 0) * ones,
                    "reduce_scatter": sum(w * (q + 1) for q, w in enumerate(weights)) * ones}
        for name, want in expected.items():
            np.testing.assert_allclose(got[f"grad/{name}"], want, rtol=1e-12,
                                       err_msg=f"{name}, rank {rank}")


def test_a_failing_rank_stops_the_job_with_its_rank_named():
    proc = launch(2, "raise")
    assert proc.returncode != 0
    output = proc.stdout + proc.stderr
    assert "worker 1 failed on purpose" in output
    assert "rank 1 of 2 failed with ValueError" in output
    assert "passed the all-reduce" not in output


def test_parameter_shape_mismatch_is_detected_at_construction():
    proc = launch(2, "mismatch")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    for rank in range(2):
        assert (f"rank {rank}: DistributedDataParallel: the model differs between ranks: rank 0 "
                "has parameter '0.weight' of shape [3, 4]") in proc.stdout
    assert "rank 1 has parameter '0.weight' of shape [5, 4]" in proc.stdout


def test_calls_before_init_process_group_say_what_to_do():
    dist = fg.distributed
    assert not dist.is_initialized()
    with pytest.raises(RuntimeError, match=r"get_rank: .*call fluxgrad.distributed.init_process"):
        dist.get_rank()
    with pytest.raises(RuntimeError, match="all_reduce: .*init_process_group"):
        dist.all_reduce(fg.ones(2))
    with pytest.raises(RuntimeError, match="DistributedDataParallel: .*init_process_group"):
        fg.DataParallel(fg.nn.Linear(2, 2))


def test_unknown_backend_is_refused():
    with pytest.raises(ValueError, match="backend 'nccl' is not available.*backend='mpi'"):
        fg.distributed.init_process_group("nccl")
    assert not fg.distributed.is_initialized()


@pytest.fixture
def world_of_one():
    group = fg.distributed.init_process_group()
    yield group
    fg.distributed.destroy_process_group()


def test_a_script_without_launcher_is_a_world_of_one(world_of_one):
    dist = fg.distributed
    assert (dist.get_rank(), dist.get_world_size(), dist.is_initialized()) == (0, 1, True)
    with pytest.raises(RuntimeError, match="already initialized"):
        dist.init_process_group()
    assert dist.init_parallel_env() is world_of_one
    t = fg.tensor([1.0, -2.0])
    dist.all_reduce(t, op=dist.ReduceOp.AVG)
    np.testing.assert_array_equal(t.numpy(), [1.0, -2.0])
    parts = []  # PaddlePaddle's convention: an empty list is filled
    dist.all_gather(parts, t)
    assert len(parts) == 1 and parts[0] is not t
    np.testing.assert_array_equal(parts[0].numpy(), [1.0, -2.0])


def test_collective_argument_errors_name_the_argument(world_of_one):
    dist = fg.distributed
    with pytest.raises(ValueError, match="broadcast: src=1 is not a rank of this group"):
        dist.broadcast(fg.ones(2), src=1)
    with pytest.raises(ValueError, match="all_reduce: unknown op 'mean'"):
        dist.all_reduce(fg.ones(2), op="mean")
    with pytest.raises(TypeError, match="ReduceOp.AVG needs a floating-point tensor"):
        dist.all_reduce(fg.tensor([1, 2]), op=dist.ReduceOp.AVG)
    with pytest.raises(ValueError, match=r"all_gather: tensor_list has 2 tensors but the group "
                                         r"has 1 ranks"):
        dist.all_gather([fg.ones(2), fg.ones(2)], fg.ones(2))
    with pytest.raises(ValueError, match="op 'max' has no gradient here"):
        dist.functional.all_reduce(fg.ones(2, requires_grad=True), op=dist.ReduceOp.MAX)
    with pytest.raises(ValueError, match="bucket_cap_mb must be positive, got 0"):
        fg.DataParallel(fg.nn.Linear(2, 2), bucket_cap_mb=0)


def test_launcher_builds_the_mpiexec_command():
    from fluxgrad.distributed.run import command
    cmd = command(["-n", "4", "--hostfile", "hosts.txt", "train.py", "--lr", "0.1"])
    assert cmd[1:] == ["-n", "4", "-hostfile", "hosts.txt", sys.executable, "train.py",
                       "--lr", "0.1"]
    assert os.path.basename(cmd[0]) == "mpiexec"


def test_digits_demo_trains_distributed_and_only_rank_0_reports(tmp_path):
    out = tmp_path / "demo"
    proc = launch(2, "demo", out_dir=out)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.count("mlp: ") == 1 and "2 processes" in proc.stdout
    assert proc.stdout.count("held-out accuracy") == 1
    assert proc.stdout.count("reloaded: accuracy") == 1 and "(same)" in proc.stdout
    written = {"digits_mlp.fg"}
    if importlib.util.find_spec("matplotlib") is not None:
        written.add("digits_mlp_loss.png")
    assert set(os.listdir(out)) == written  # rank 0's files only, once


def test_buckets_start_while_the_backward_pass_still_runs(world_of_one):
    model = fg.nn.Sequential(fg.nn.Linear(4, 64), fg.nn.Tanh(), fg.nn.Linear(64, 64),
                             fg.nn.Tanh(), fg.nn.Linear(64, 2))
    ddp = fg.DataParallel(model, bucket_cap_mb=0.01)
    assert len(ddp.reducer.buckets) >= 3
    started = []
    # runs after DDP's own hook on the first layer's weight, among the last gradients made
    model[0].weight.register_hook(lambda g: started.append(ddp.reducer.next_bucket))
    x = fg.tensor(np.random.default_rng(0).normal(size=(5, 4)).astype(np.float32))
    ddp(x).sum().backward()
    assert started and started[0] >= 2, "the later layers' buckets should already be running"
    ddp.reducer.overlap = False  # what bench_distributed.py compares with
    started.clear()
    ddp(x).sum().backward()
    assert started == [0] and ddp.reducer.next_bucket == len(ddp.reducer.buckets)
    model.zero_grad()
    ddp(x).sum().backward()
    grads = [p.grad.numpy().copy() for p in model.parameters()]
    model.zero_grad()
    model(x).sum().backward()
    for got, p in zip(grads, model.parameters()):
        np.testing.assert_allclose(got, p.grad.numpy(), rtol=1e-6)


def test_gradients_taken_with_grad_inside_a_step_leave_the_reduction_alone(world_of_one):
    model = fg.nn.Sequential(fg.nn.Linear(3, 4), fg.nn.Tanh(), fg.nn.Linear(4, 1))
    ddp = fg.DataParallel(model)
    x = fg.tensor(np.random.default_rng(1).normal(size=(5, 3)).astype(np.float32))
    out = ddp(x).sum()
    penalty = sum((g ** 2).sum() for g in fg.grad(out, list(model.parameters()),
                                                  create_graph=True))
    assert all(p.grad is None for p in model.parameters())
    (out + penalty).backward()
    grads = [p.grad.numpy().copy() for p in model.parameters()]
    model.zero_grad()
    out = model(x).sum()
    penalty = sum((g ** 2).sum() for g in fg.grad(out, list(model.parameters()),
                                                  create_graph=True))
    (out + penalty).backward()
    for got, p in zip(grads, model.parameters()):
        np.testing.assert_allclose(got, p.grad.numpy(), rtol=1e-6)
