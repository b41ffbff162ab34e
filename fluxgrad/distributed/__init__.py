"""`fluxgrad.distributed`: data-parallel training across processes and machines, on MPI.

    python -m fluxgrad.distributed.run -n 4 train.py       # or: mpiexec -n 4 python train.py

    import fluxgrad.distributed as dist
    dist.init_process_group()                  # PaddlePaddle: dist.init_parallel_env()
    rank, world = dist.get_rank(), dist.get_world_size()
    dist.all_reduce(t, op=dist.ReduceOp.SUM)   # in place, like torch.distributed
    model = fluxgrad.nn.parallel.DistributedDataParallel(model)

Needs the `distributed` extra (`pip install -e '.[distributed]'`: mpi4py and an MPI runtime
from PyPI). Importing this package does not import MPI; `init_process_group` does.
Differentiable collectives live in `fluxgrad.distributed.functional`.
"""
from .collectives import (ReduceOp, Work, all_gather, all_gather_into_tensor, all_reduce,
                          barrier, broadcast, reduce_scatter, reduce_scatter_tensor)
from .process_group import (ProcessGroup, destroy_process_group, get_backend, get_rank,
                            get_world_size, init_parallel_env, init_process_group, is_available,
                            is_initialized)
from . import functional

__all__ = ["ReduceOp", "Work", "all_gather", "all_gather_into_tensor", "all_reduce", "barrier",
           "broadcast", "reduce_scatter", "reduce_scatter_tensor", "ProcessGroup",
           "destroy_process_group", "get_backend", "get_rank", "get_world_size",
           "init_parallel_env", "init_process_group", "is_available", "is_initialized",
           "functional"]
