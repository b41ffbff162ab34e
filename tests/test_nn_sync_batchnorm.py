"""SyncBatchNorm in one process: batch norm over any [N, C, ...], and the conversion."""
import numpy as np
import pytest

import fluxgrad as fg
import fluxgrad.nn as nn

torch = pytest.importorskip("torch")


@pytest.mark.parametrize("shape", [(4, 3), (4, 3, 5), (2, 3, 2, 2), (2, 3, 2, 1, 2)])
def test_sync_batchnorm_normalises_and_tracks_like_torch_in_one_process(shape):
    x = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
    ours, theirs = nn.SyncBatchNorm(3, momentum=0.2), torch.nn.SyncBatchNorm(3, momentum=0.2)
    np.testing.assert_allclose(ours(fg.tensor(x)).detach().numpy(),
                               theirs(torch.tensor(x)).detach().numpy(), atol=1e-5)
    np.testing.assert_allclose(ours.running_var.numpy(), theirs.running_var.numpy(), rtol=1e-5)


def test_sync_batchnorm_refuses_input_without_a_channel_axis():
    with pytest.raises(ValueError, match="at least 2D"):
        nn.SyncBatchNorm(3)(fg.ones(3))


def test_convert_sync_batchnorm_keeps_the_parameters_statistics_and_mode():
    model = nn.Sequential(nn.Linear(2, 3), nn.BatchNorm1d(3))
    model[1].running_mean.fill_(2.0)
    model.eval()
    weight = model[1].weight
    converted = nn.SyncBatchNorm.convert_sync_batchnorm(model)
    assert converted is model and type(model[1]) is nn.SyncBatchNorm
    assert model[1].weight is weight and model[1].running_mean.tolist() == [2.0] * 3
    assert not model[1].training
    alone = nn.SyncBatchNorm.convert_sync_batchnorm(nn.BatchNorm2d(4, affine=False))
    assert type(alone) is nn.SyncBatchNorm and alone.weight is None


SYNC_WORKER = '''
import sys
import numpy as np
import fluxgrad as fg
import fluxgrad.distributed as dist
import fluxgrad.nn as nn

dist.init_process_group()
rank, world = dist.get_rank(), dist.get_world_size()
x = np.random.default_rng(0).standard_normal((4 * world, 3, 2)).astype(np.float64)
bn = nn.SyncBatchNorm(3, momentum=0.3).double()
with fg.no_grad():
    bn.weight.copy_(fg.tensor([1.0, 2.0, -1.0]))
    bn.bias.copy_(fg.tensor([0.0, 0.5, 1.0]))
part = fg.tensor(x[4 * rank:4 * rank + 4], requires_grad=True)
out = bn(part)
(out * out * fg.arange(1.0, 4.0).reshape(1, 3, 1)).sum().backward()
np.savez(sys.argv[1] + f"/rank{rank}.npz", out=out.detach().numpy(), x_grad=part.grad.numpy(),
         w_grad=bn.weight.grad.numpy(), mean=bn.running_mean.numpy(),
         var=bn.running_var.numpy())
'''


def test_sync_batchnorm_in_two_processes_is_batch_norm_over_the_global_batch(tmp_path):
    pytest.importorskip("mpi4py.MPI")
    import os
    import subprocess
    import sys
    from fluxgrad.distributed.run import find_mpiexec
    root = os.path.dirname(os.path.dirname(os.path.abspath(fg.__file__)))
    env = dict(os.environ, PYTHONPATH=root + os.pathsep + os.environ.get("PYTHONPATH", ""),
               OMP_NUM_THREADS="1")
    proc = subprocess.run([find_mpiexec(), "-n", "2", sys.executable, "-c", SYNC_WORKER,
                           str(tmp_path)], env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    ranks = [np.load(tmp_path / f"rank{r}.npz") for r in range(2)]

    x = torch.tensor(np.random.default_rng(0).standard_normal((8, 3, 2)), requires_grad=True)
    bn = torch.nn.BatchNorm1d(3, momentum=0.3).double()
    with torch.no_grad():
        bn.weight.copy_(torch.tensor([1.0, 2.0, -1.0]))
        bn.bias.copy_(torch.tensor([0.0, 0.5, 1.0]))
    out = bn(x)
    (out * out * torch.arange(1.0, 4.0).reshape(1, 3, 1)).sum().backward()
    np.testing.assert_allclose(np.concatenate([r["out"] for r in ranks]), out.detach().numpy(),
                               atol=1e-10)
    np.testing.assert_allclose(np.concatenate([r["x_grad"] for r in ranks]), x.grad.numpy(),
                               atol=1e-10)
    np.testing.assert_allclose(ranks[0]["w_grad"] + ranks[1]["w_grad"], bn.weight.grad.numpy(),
                               atol=1e-10)
    for r in ranks:
        np.testing.assert_allclose(r["mean"], bn.running_mean.numpy(), atol=1e-12)
        np.testing.assert_allclose(r["var"], bn.running_var.numpy(), atol=1e-12)
