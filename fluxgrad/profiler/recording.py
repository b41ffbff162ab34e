"""What a profiler records, at fluxgrad's dispatch level: every primitive's `impl` (named
`aten::<op>`, as PyTorch names its ATen ops), every VJP rule run by backward (named after the
node, `MulBackward`), and every `record_function` range, each with its start, end, thread and
(with `record_shapes`) its inputs' shapes.

Nothing is checked on the eager hot path: while a profiler records, each registered
primitive's `impl` and VJP rules are replaced by timed wrappers, and put back when the last
profiler stops. Ranges nest per thread, so each event knows its self time (its duration less
its children's).
"""
import threading
import time

import numpy as np

from .._core.primitive import REGISTRY

__all__ = ["Event", "Recorder", "open_range", "close_range", "active"]


class Event:
    """One timed range: `name`, `start_ns`, `end_ns`, `child_ns` (time in ranges opened
    inside it), `thread`, `input_shapes`, `depth` (how many ranges enclose it)."""
    __slots__ = ("name", "start_ns", "end_ns", "child_ns", "thread", "input_shapes", "depth")

    def __init__(self, name, thread, input_shapes, depth):
        self.name, self.thread, self.input_shapes, self.depth = name, thread, input_shapes, depth
        self.start_ns, self.end_ns, self.child_ns = time.perf_counter_ns(), None, 0


class Recorder:
    """The events of one profiler while it records."""

    def __init__(self, record_shapes):
        self.record_shapes = record_shapes
        self.events = []


# the recorders now recording, and the ranges open in each thread (innermost last)
_recorders = []


class _Stacks(threading.local):
    def __init__(self):
        self.open = []


_stacks = _Stacks()
_saved = {}  # name -> (impl, vjp_rules, vjp_all) of each wrapped primitive


def active():
    return bool(_recorders)


def open_range(name, arrays=()):
    """Start a range in this thread (None when no profiler records)."""
    if not _recorders:
        return None
    shapes = [list(np.shape(a)) if hasattr(a, "shape") else [] for a in arrays] \
        if any(r.record_shapes for r in _recorders) else []
    stack = _stacks.open
    event = Event(name, threading.get_ident(), shapes, len(stack))
    stack.append(event)
    return event


def close_range(event):
    if event is None:
        return
    event.end_ns = time.perf_counter_ns()
    stack = _stacks.open
    if stack and stack[-1] is event:
        stack.pop()
        if stack:
            stack[-1].child_ns += event.end_ns - event.start_ns
    for recorder in _recorders:
        recorder.events.append(event)


def start(recorder):
    if not _recorders:
        _wrap_all()
    _recorders.append(recorder)


def stop(recorder):
    if recorder in _recorders:
        _recorders.remove(recorder)
        if not _recorders:
            _unwrap_all()


def _timed(name, fn, shapes_from):
    def timed(*args, **params):
        event = open_range(name, args[shapes_from:])
        try:
            return fn(*args, **params)
        finally:
            close_range(event)
    timed.__wrapped__ = fn
    return timed


def _wrap_all():
    for prim in list(REGISTRY.values()):
        _saved[prim.name] = (prim.impl, prim.vjp_rules, prim.vjp_all)
        prim.impl = _timed("aten::" + prim.name, prim.impl, 0)
        backward = prim.node_class.__name__
        # (a rule's arguments are out_bar, out, then the inputs)
        if prim.vjp_rules is not None:
            prim.vjp_rules = tuple(_timed(backward, rule, 2) for rule in prim.vjp_rules)
        if prim.vjp_all is not None:
            prim.vjp_all = _timed(backward, prim.vjp_all, 2)


def _unwrap_all():
    for name, (impl, rules, rule_all) in _saved.items():
        prim = REGISTRY.get(name)
        if prim is not None:
            prim.impl, prim.vjp_rules, prim.vjp_all = impl, rules, rule_all
    _saved.clear()
