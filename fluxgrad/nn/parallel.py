"""`DistributedDataParallel` (alias `fluxgrad.DataParallel`): one model replica per process,
gradients averaged over the processes during `backward`. (`nn.DataParallel`, PyTorch's
single-process wrapper, runs the module itself: there are no devices to split a batch over.)

    dist.init_process_group()
    model = DistributedDataParallel(Net())          # rank 0's weights everywhere
    loss = loss_fn(model(x_local), y_local)         # each rank: its share of the batch
    loss.backward()                                 # .grad = average over the ranks
    optimizer.step()                                # the replicas stay identical

At construction every rank checks that the others built the same parameters (names, shapes,
dtypes) and takes rank 0's parameters and buffers. The gradient all-reduces run in buckets
that start while the backward pass goes on (see `fluxgrad.distributed.reducer`). Inside
`no_sync()` the gradients only accumulate locally; the next synchronised backward averages
everything accumulated.
"""
from contextlib import contextmanager

import numpy as np

from .._core.grad_mode import is_grad_enabled
from .._core.tensor import Tensor
from ..distributed.process_group import default_group
from ..distributed.reducer import Reducer
from .module import Module

__all__ = ["DistributedDataParallel", "DataParallel"]


class DataParallel(Module):
    """PyTorch's `nn.DataParallel` as it behaves without GPUs: `forward` calls the wrapped
    `module` (reachable as `.module`, so state_dict names gain a 'module.' prefix)."""

    def __init__(self, module, device_ids=None, output_device=None, dim=0):
        super().__init__()
        if not isinstance(module, Module):
            raise TypeError(f"DataParallel wraps a Module, got {type(module).__name__}")
        self.module = module
        self.device_ids, self.output_device, self.dim = [], None, dim

    def forward(self, *inputs, **kwargs):
        return self.module(*inputs, **kwargs)


class DistributedDataParallel(Module):
    """Wrap `module` for data-parallel training over the ranks of the process group.

    `bucket_cap_mb` (PaddlePaddle: `comm_buffer_size`): size of the gradient buckets (the
    first one holds at most 1 MB); `find_unused_parameters`: allow parameters that get no
    gradient in some steps; `broadcast_buffers`: copy rank 0's buffers (BatchNorm
    statistics) at every forward. `device_ids`, `output_device` and `dim` are accepted for
    torch's signature (there is one CPU device per process).
    """

    def __init__(self, module, device_ids=None, output_device=None, dim=0,
                 broadcast_buffers=True, process_group=None, bucket_cap_mb=25,
                 find_unused_parameters=False, comm_buffer_size=None):
        super().__init__()
        if comm_buffer_size is not None:
            bucket_cap_mb = comm_buffer_size
        if not isinstance(module, Module):
            raise TypeError(f"DistributedDataParallel wraps a Module, got {type(module).__name__}")
        group = process_group or default_group("DistributedDataParallel")
        if bucket_cap_mb <= 0:
            raise ValueError(f"DistributedDataParallel: bucket_cap_mb must be positive, got "
                             f"{bucket_cap_mb}")
        comm = group.comm
        _check_same_model(comm, module)
        _broadcast_from_rank0(comm, list(module.parameters()) + list(module.buffers()))
        self.module = module
        self.process_group = group
        self.broadcast_buffers = broadcast_buffers
        self.find_unused_parameters = find_unused_parameters
        self.require_backward_grad_sync = True
        trained = [(name, p) for name, p in module.named_parameters() if p.requires_grad]
        self.reducer = Reducer(comm, trained, int(bucket_cap_mb * (1 << 20)),
                               find_unused_parameters)

    def forward(self, *inputs, **kwargs):
        if self.broadcast_buffers:
            _broadcast_from_rank0(self.process_group.comm, list(self.module.buffers()))
        out = self.module(*inputs, **kwargs)
        if is_grad_enabled() and self.require_backward_grad_sync:
            self.reducer.prepare(_tensors(out))
        else:
            self.reducer.armed = False
        return out

    @contextmanager
    def no_sync(self):
        """Backward passes of forwards run inside this block only accumulate `.grad` locally."""
        previous = self.require_backward_grad_sync
        self.require_backward_grad_sync = False
        try:
            yield
        finally:
            self.require_backward_grad_sync = previous


def _check_same_model(comm, module):
    """Every rank must hold the same parameters and buffers; the error names the first
    difference and is raised on every rank, so none is left waiting."""
    mine = [(kind, name, list(t.shape), str(t._data.dtype))
            for kind, table in (("parameter", module.named_parameters()),
                                ("buffer", module.named_buffers()))
            for name, t in table]
    everyone = comm.allgather(mine)
    reference = everyone[0]
    for rank, theirs in enumerate(everyone[1:], 1):
        if theirs == reference:
            continue
        for ours, other in zip(reference, theirs):
            if ours != other:
                raise RuntimeError(
                    f"DistributedDataParallel: the model differs between ranks: rank 0 has "
                    f"{ours[0]} {ours[1]!r} of shape {ours[2]} ({ours[3]}) where rank {rank} has "
                    f"{other[0]} {other[1]!r} of shape {other[2]} ({other[3]}); every rank must "
                    "build the same model")
        raise RuntimeError(
            f"DistributedDataParallel: the model differs between ranks: rank 0 has "
            f"{len(reference)} parameters and buffers, rank {rank} has {len(theirs)}; every "
            "rank must build the same model")


def _broadcast_from_rank0(comm, tensors):
    if comm.Get_size() == 1 or not tensors:
        return
    dtypes = sorted({t._data.dtype.str for t in tensors})
    for dtype in dtypes:
        group = [t for t in tensors if t._data.dtype.str == dtype]
        flat = np.concatenate([t._data.ravel() for t in group])
        comm.Bcast(flat, root=0)
        start = 0
        for t in group:
            t._data[...] = flat[start:start + t._data.size].reshape(t._data.shape)
            start += t._data.size
            t._bump_version()


def _tensors(out):
    """The tensors in a forward output (nested tuples, lists, dicts)."""
    if isinstance(out, Tensor):
        return [out]
    if isinstance(out, dict):
        out = list(out.values())
    if isinstance(out, (tuple, list)):
        return [t for item in out for t in _tensors(item)]
    return []
