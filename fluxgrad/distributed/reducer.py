"""Gradient buckets for DistributedDataParallel: average the parameters' gradients over the
ranks, overlapping the all-reduces with the rest of the backward pass.

Parameters are grouped, in reverse order of registration (roughly the order their gradients
become final), into flat buckets of one dtype (the first up to 1 MB, the others up to
`bucket_cap_mb`). A hook on each parameter copies its gradient (plus what `.grad` already
holds from `no_sync` steps) into its bucket; when a bucket is full its non-blocking
all-reduce starts. Buckets start strictly in order, so every rank issues the same MPI
collectives in the same order. When the backward pass ends (an engine callback) the reducer
waits for them all and writes the averages into `.grad`.

With `find_unused_parameters`, the parameters that the forward output does not reach are
counted ready at the first hook (their bucket slot holds `.grad` or zeros), and a parameter
that no rank used keeps its `.grad` unchanged, as in torch. Gradients that `fluxgrad.grad`
returns (a gradient penalty inside the step) are not averaged and leave the reduction alone,
as in torch; `backward(inputs=...)` is not synchronised either.
"""
import numpy as np

from .._core import engine
from .._core.node import Node
from .._core.tensor import Tensor
from .process_group import mpi

FIRST_BUCKET_BYTES = 1 << 20


class _Bucket:
    __slots__ = ("indices", "flat", "pending", "request")

    def __init__(self, indices, size, dtype):
        self.indices = indices
        self.flat = np.zeros(size, dtype)
        self.pending = len(indices)
        self.request = None


class Reducer:
    def __init__(self, comm, named_params, bucket_cap_bytes, find_unused_parameters):
        self.comm, self.MPI = comm, mpi()
        self.names = [name for name, _ in named_params]
        self.params = [p for _, p in named_params]
        self.find_unused = find_unused_parameters
        self.buckets, self.slot = _assign_buckets(self.params, bucket_cap_bytes)
        for i, p in enumerate(self.params):
            p.register_hook(self._hook(i))
        self.armed = self.started = False
        self.overlap = True  # False: every all-reduce starts after backward (to measure overlap)
        self.reached = None

    def prepare(self, outputs):
        """Called by the forward pass whose backward must synchronise the gradients."""
        self.armed = True
        self.started = False
        self.ready = [False] * len(self.params)
        self.used = np.zeros(len(self.params), np.int32)
        self.next_bucket = 0
        for bucket in self.buckets:
            bucket.pending = len(bucket.indices)
            bucket.request = None
        if self.find_unused:
            self.reached = _reachable_leaves(outputs)

    def _hook(self, i):
        def hook(g):
            if self.armed and engine.in_accumulating_pass():
                if not self.started:
                    self._start()
                self.used[i] = 1
                self._ready(i, g._data)
        return hook

    def _start(self):
        self.started = True
        engine.queue_callback(self._finish)
        if self.find_unused:
            for i, p in enumerate(self.params):
                if id(p) not in self.reached:
                    self._ready(i, None)

    def _ready(self, i, g):
        if self.ready[i]:
            return
        self.ready[i] = True
        b, start = self.slot[i]
        bucket = self.buckets[b]
        p = self.params[i]
        view = bucket.flat[start:start + p._data.size].reshape(p._data.shape)
        held = None if p.grad is None else p.grad._data
        if g is None:
            view[...] = 0 if held is None else held
        elif held is None:
            view[...] = g
        else:
            np.add(held, g, out=view)
        bucket.pending -= 1
        if self.overlap:
            self._launch_ready()
            # MPI progresses a non-blocking collective only inside MPI calls: give it a turn.
            self.MPI.Request.Testall([b.request for b in self.buckets[:self.next_bucket]])

    def _launch_ready(self):
        """Start the all-reduce of every full bucket whose predecessors have started."""
        while self.next_bucket < len(self.buckets) and \
                self.buckets[self.next_bucket].pending == 0:
            launch = self.buckets[self.next_bucket]
            launch.request = self.comm.Iallreduce(self.MPI.IN_PLACE, launch.flat,
                                                  op=self.MPI.SUM)
            self.next_bucket += 1

    def _finish(self):
        self.armed = False
        missing = [i for i, done in enumerate(self.ready) if not done]
        if missing and not self.find_unused:
            self._wait()
            names = ", ".join(self.names[i] for i in missing[:8])
            raise RuntimeError(
                f"DistributedDataParallel: {len(missing)} parameter(s) got no gradient in this "
                f"backward pass ({names}), so their gradients cannot be averaged over the ranks. "
                "Pass find_unused_parameters=True to DistributedDataParallel if parts of the "
                "model are not used in every step, or make the loss depend on every parameter.")
        for i in missing:
            self._ready(i, None)
        self._launch_ready()
        self._wait()
        used = self.used
        if self.find_unused:
            used = np.empty_like(self.used)
            self.comm.Allreduce(self.used, used, op=self.MPI.SUM)
        n = self.comm.Get_size()
        for bucket in self.buckets:
            bucket.flat /= n
        for i, p in enumerate(self.params):
            if not used[i]:
                continue
            b, start = self.slot[i]
            avg = self.buckets[b].flat[start:start + p._data.size].reshape(p._data.shape)
            if p.grad is None or p.grad._requires_grad or not p.grad._data.flags.writeable:
                p.grad = Tensor._make(avg.copy())
            else:
                p.grad._data[...] = avg

    def _wait(self):
        requests = [b.request for b in self.buckets if b.request is not None]
        self.MPI.Request.Waitall(requests)


def _assign_buckets(params, cap_bytes):
    """Buckets over the parameters in reverse order, and each parameter's (bucket, offset)."""
    buckets, slot = [], [None] * len(params)
    indices, size, dtype = [], 0, None
    cap = min(cap_bytes, FIRST_BUCKET_BYTES)
    for i in reversed(range(len(params))):
        data = params[i]._data
        if indices and (data.dtype != dtype or (size + data.size) * dtype.itemsize > cap):
            buckets.append(_Bucket(indices, size, dtype))
            indices, size, cap = [], 0, cap_bytes
        dtype = data.dtype
        slot[i] = (len(buckets), size)
        indices.append(i)
        size += data.size
    if indices:
        buckets.append(_Bucket(indices, size, dtype))
    return buckets, slot


def _reachable_leaves(outputs):
    """Ids of the leaf tensors that the graph of `outputs` reaches."""
    leaves, seen = set(), set()
    stack = [t._grad_fn for t in outputs if t._grad_fn is not None]
    leaves.update(id(t) for t in outputs if t._grad_fn is None)
    while stack:
        node = stack.pop()
        for edge in node.edges:
            if edge is None:
                continue
            target = edge[0]
            if isinstance(target, Node):
                if id(target) not in seen:
                    seen.add(id(target))
                    stack.append(target)
            else:
                leaves.add(id(target))
    return leaves
