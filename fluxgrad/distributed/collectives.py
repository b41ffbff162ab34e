"""Collectives on tensors, as `torch.distributed`'s: every rank calls the same ones, in the same
order, and the results are written into the tensors given (in place, outside autograd).

`async_op=True` starts a non-blocking MPI collective and returns a `Work` whose `wait()`
finishes it and writes the result. For collectives that autograd differentiates, see
`fluxgrad.distributed.functional`.
"""
import numpy as np

from .._core.tensor import Tensor
from .process_group import default_group, mpi

__all__ = ["ReduceOp", "all_reduce", "broadcast", "all_gather", "all_gather_into_tensor",
           "reduce_scatter", "reduce_scatter_tensor", "barrier", "Work"]


class ReduceOp:
    """How `all_reduce` / `reduce_scatter` combine the ranks' values (`ReduceOp.SUM`, ...)."""
    SUM = "sum"
    AVG = "avg"
    MAX = "max"
    MIN = "min"
    PRODUCT = "product"


_MPI_OPS = {"sum": "SUM", "avg": "SUM", "max": "MAX", "min": "MIN", "product": "PROD"}


class Work:
    """A collective started with `async_op=True`: `wait()` completes it and writes the result."""

    def __init__(self, request, finish):
        self._request, self._finish = request, finish

    def is_completed(self):
        if self._finish is None:
            return True
        return self._request.Test()

    def wait(self, timeout=None):
        if self._finish is not None:
            self._request.Wait()
            finish, self._finish = self._finish, None
            finish()
        return True


def all_reduce(tensor, op=ReduceOp.SUM, group=None, async_op=False):
    """Combine `tensor` over the ranks with `op`; every rank's `tensor` gets the result."""
    comm = _comm("all_reduce", group)
    mpi_op = _mpi_op("all_reduce", op, tensor)
    data = _array("all_reduce", tensor, "tensor")
    send = np.ascontiguousarray(data)
    recv = np.empty_like(send)

    def finish():
        _write(tensor, _average(recv, op, comm))
    return _run(comm.Iallreduce if async_op else comm.Allreduce, (send, recv, mpi_op), finish,
                async_op)


def broadcast(tensor, src, group=None, async_op=False):
    """Every rank's `tensor` gets rank `src`'s values."""
    comm = _comm("broadcast", group)
    _check_rank("broadcast", "src", src, comm)
    data = _array("broadcast", tensor, "tensor")
    buf = np.ascontiguousarray(data).copy()

    def finish():
        if comm.Get_rank() != src:
            _write(tensor, buf)
    return _run(comm.Ibcast if async_op else comm.Bcast, (buf, src), finish, async_op)


def all_gather(tensor_list, tensor, group=None, async_op=False):
    """`tensor_list[r]` gets rank r's `tensor`. An empty list is filled with new tensors
    (PaddlePaddle's convention); otherwise it must hold world_size tensors of `tensor`'s shape."""
    comm = _comm("all_gather", group)
    n = comm.Get_size()
    data = np.ascontiguousarray(_array("all_gather", tensor, "tensor"))
    if tensor_list:
        _check_list("all_gather", "tensor_list", tensor_list, n, data)
    recv = np.empty((n,) + data.shape, data.dtype)

    def finish():
        if tensor_list:
            for t, part in zip(tensor_list, recv):
                _write(t, part)
        else:
            tensor_list.extend(Tensor._make(part) for part in recv)
    return _run(comm.Iallgather if async_op else comm.Allgather, (data, recv), finish, async_op)


def all_gather_into_tensor(output_tensor, input_tensor, group=None, async_op=False):
    """`output_tensor` (world_size * input's first dimension) gets the ranks' inputs, stacked."""
    comm = _comm("all_gather_into_tensor", group)
    n = comm.Get_size()
    data = np.ascontiguousarray(_array("all_gather_into_tensor", input_tensor, "input_tensor"))
    _check_stacked("all_gather_into_tensor", output_tensor, data, n)
    recv = np.empty((n,) + data.shape, data.dtype)

    def finish():
        _write(output_tensor, recv.reshape(output_tensor.shape))
    return _run(comm.Iallgather if async_op else comm.Allgather, (data, recv), finish, async_op)


def reduce_scatter(output, input_list, op=ReduceOp.SUM, group=None, async_op=False):
    """`output` on rank r gets `input_list[r]` combined over the ranks with `op`."""
    comm = _comm("reduce_scatter", group)
    n = comm.Get_size()
    out = _array("reduce_scatter", output, "output")
    _check_list("reduce_scatter", "input_list", input_list, n, out)
    mpi_op = _mpi_op("reduce_scatter", op, output)
    send = np.ascontiguousarray(np.stack([t._data for t in input_list]))
    return _reduce_scatter(comm, send, output, op, mpi_op, async_op)


def reduce_scatter_tensor(output, input, op=ReduceOp.SUM, group=None, async_op=False):
    """`input` is world_size blocks along its first dimension; rank r's `output` gets block r
    combined over the ranks with `op`."""
    comm = _comm("reduce_scatter_tensor", group)
    n = comm.Get_size()
    out = np.ascontiguousarray(_array("reduce_scatter_tensor", output, "output"))
    _check_stacked("reduce_scatter_tensor", input, out, n)
    mpi_op = _mpi_op("reduce_scatter_tensor", op, output)
    send = np.ascontiguousarray(input._data).reshape((n,) + out.shape)
    return _reduce_scatter(comm, send, output, op, mpi_op, async_op)


def barrier(group=None, async_op=False):
    """Return once every rank has called `barrier`."""
    comm = _comm("barrier", group)
    if async_op:
        return Work(comm.Ibarrier(), lambda: None)
    comm.Barrier()
    return None


def _reduce_scatter(comm, send, output, op, mpi_op, async_op):
    recv = np.empty(send.shape[1:], send.dtype)

    def finish():
        _write(output, _average(recv, op, comm))
    call = comm.Ireduce_scatter_block if async_op else comm.Reduce_scatter_block
    return _run(call, (send, recv, mpi_op), finish, async_op)


def _run(call, args, finish, async_op):
    if async_op:
        return Work(call(*args), finish)
    call(*args)
    finish()
    return None


def _comm(name, group):
    return (group or default_group(name)).comm


def _mpi_op(name, op, tensor):
    if op not in _MPI_OPS:
        raise ValueError(f"{name}: unknown op {op!r}; use ReduceOp.SUM, AVG, MAX, MIN or PRODUCT")
    if op == ReduceOp.AVG and isinstance(tensor, Tensor) and not tensor.is_floating_point():
        raise TypeError(f"{name}: ReduceOp.AVG needs a floating-point tensor, got "
                        f"{tensor.dtype}; use ReduceOp.SUM and divide")
    return getattr(mpi(), _MPI_OPS[op])


def _average(array, op, comm):
    if op == ReduceOp.AVG:
        array /= comm.Get_size()
    return array


def _array(name, tensor, what):
    if not isinstance(tensor, Tensor):
        raise TypeError(f"{name}: {what} must be a Tensor, got {type(tensor).__name__}")
    return tensor._data


def _write(tensor, values):
    tensor._data[...] = values
    tensor._bump_version()


def _check_rank(name, what, rank, comm):
    if not isinstance(rank, (int, np.integer)) or not 0 <= rank < comm.Get_size():
        raise ValueError(f"{name}: {what}={rank!r} is not a rank of this group (0 .. "
                         f"{comm.Get_size() - 1})")


def _check_list(name, what, tensors, n, like):
    if len(tensors) != n:
        raise ValueError(f"{name}: {what} has {len(tensors)} tensors but the group has {n} "
                         f"ranks; pass one tensor per rank")
    for i, t in enumerate(tensors):
        arr = _array(name, t, f"{what}[{i}]")
        if arr.shape != like.shape or arr.dtype != like.dtype:
            raise ValueError(f"{name}: {what}[{i}] has shape {list(arr.shape)} and dtype "
                             f"{arr.dtype}, expected shape {list(like.shape)} and dtype "
                             f"{like.dtype}")


def _check_stacked(name, stacked, block, n):
    arr = _array(name, stacked, "the stacked tensor")
    expected = (n * block.shape[0],) + block.shape[1:] if block.ndim else (n,)
    if arr.shape != expected or arr.dtype != block.dtype:
        raise ValueError(f"{name}: the stacked tensor has shape {list(arr.shape)} and dtype "
                         f"{arr.dtype}, expected shape {list(expected)} (world size {n} times "
                         f"{list(block.shape)}) and dtype {block.dtype}")
