"""`fluxgrad.profiler`, PyTorch's `torch.profiler`: time fluxgrad's ops where they are
dispatched, with no other dependency.

    with profile(activities=[ProfilerActivity.CPU], record_shapes=True) as prof:
        with record_function("model_inference"):
            model(inputs)
    print(prof.key_averages().table(sort_by="cpu_time_total", row_limit=10))

Ops appear as `aten::<fluxgrad op name>` (the names PyTorch gives its ATen ops), backward
rules as `<Op>Backward`, and `record_function` blocks under their own names. A `schedule`
(with `prof.step()` each iteration) records only its active steps, and calls
`on_trace_ready(prof)` at the end of each active span; `key_averages()` then reads the
latest span. Times are CPU wall times; ProfilerActivity.CUDA is accepted and records
nothing more (fluxgrad computes on the CPU); memory columns are 0.
"""
import enum
import functools
import os
import socket
import time

from . import recording
from .events import EventList, FunctionEvent, FunctionEventAvg

__all__ = ["profile", "record_function", "ProfilerActivity", "ProfilerAction", "schedule",
           "tensorboard_trace_handler", "supported_activities", "EventList", "FunctionEvent",
           "FunctionEventAvg"]


class ProfilerActivity(enum.Enum):
    CPU = 0
    XPU = 1
    MTIA = 2
    CUDA = 3
    HPU = 4
    PrivateUse1 = 5


def supported_activities():
    """The activities fluxgrad records: the CPU only."""
    return {ProfilerActivity.CPU}


class ProfilerAction(enum.Enum):
    NONE = 0
    WARMUP = 1
    RECORD = 2
    RECORD_AND_SAVE = 3


def schedule(*, wait, warmup, active, repeat=0, skip_first=0, skip_first_wait=0):
    """The action for each step: `skip_first` steps of nothing, then cycles of `wait` idle,
    `warmup` and `active` recording steps (the last one saves), `repeat` times (0: forever).
    With `skip_first_wait`, the first cycle has no wait."""
    if wait < 0 or warmup < 0 or active <= 0 or repeat < 0 or skip_first < 0:
        raise ValueError(f"schedule(wait={wait}, warmup={warmup}, active={active}, "
                         f"repeat={repeat}, skip_first={skip_first}): active must be positive "
                         "and the others non-negative")

    def action(step):
        if step < skip_first:
            return ProfilerAction.NONE
        step -= skip_first
        if skip_first_wait:
            step += wait
        cycle = wait + warmup + active
        if repeat > 0 and step // cycle >= repeat:
            return ProfilerAction.NONE
        in_cycle = step % cycle
        if in_cycle < wait:
            return ProfilerAction.NONE
        if in_cycle < wait + warmup:
            return ProfilerAction.WARMUP
        return ProfilerAction.RECORD if in_cycle < cycle - 1 else ProfilerAction.RECORD_AND_SAVE
    return action


def _always_record(step):
    return ProfilerAction.RECORD


class profile:
    """Context manager (or `start()` / `stop()`) recording fluxgrad's ops; see the module
    docstring. The arguments PyTorch takes are accepted; `record_shapes` keeps each op's
    input shapes (for `key_averages(group_by_input_shape=True)`)."""

    def __init__(self, *, activities=None, schedule=None, on_trace_ready=None,
                 record_shapes=False, profile_memory=False, with_stack=False, with_flops=False,
                 with_modules=False, experimental_config=None, execution_trace_observer=None,
                 acc_events=False, use_cuda=None, custom_trace_id_callback=None):
        self.activities = set(activities) if activities is not None else supported_activities()
        self.schedule = schedule if schedule is not None else _always_record
        self.on_trace_ready = on_trace_ready
        self.record_shapes = record_shapes
        self.step_num = 0
        self._recorder = None
        self._finished = []  # the raw events of the latest saved span (or of the whole run)
        self._origin_ns = time.perf_counter_ns()

    def __enter__(self):
        self.start()
        return self

    def __exit__(self, *exc):
        self.stop()

    def start(self):
        self._act(self.schedule(self.step_num))

    def stop(self):
        if self._recorder is not None:
            self._save()
            if self.on_trace_ready is not None and self.schedule is _always_record:
                self.on_trace_ready(self)

    def step(self):
        """Mark the end of an iteration: move to the schedule's next action."""
        previous = self.schedule(self.step_num)
        self.step_num += 1
        if previous is ProfilerAction.RECORD_AND_SAVE and self._recorder is not None:
            self._save()
            if self.on_trace_ready is not None:
                self.on_trace_ready(self)
        self._act(self.schedule(self.step_num))

    def _act(self, action):
        recording_now = action in (ProfilerAction.RECORD, ProfilerAction.RECORD_AND_SAVE)
        if recording_now and self._recorder is None:
            self._recorder = recording.Recorder(self.record_shapes)
            recording.start(self._recorder)
        elif not recording_now and self._recorder is not None:
            recording.stop(self._recorder)
            self._recorder = None

    def _save(self):
        recording.stop(self._recorder)
        self._finished = self._recorder.events
        self._recorder = None

    def events(self):
        """Every range of the latest saved span, in the order they started."""
        raw = sorted(self._finished, key=lambda e: e.start_ns)
        return EventList(FunctionEvent(i, e, self._origin_ns) for i, e in enumerate(raw))

    def key_averages(self, group_by_input_shape=False, group_by_stack_n=0,
                     group_by_overload_name=False):
        if group_by_input_shape and not self.record_shapes:
            raise RuntimeError("key_averages(group_by_input_shape=True) needs the shapes: "
                               "profile with record_shapes=True")
        return self.events().key_averages(group_by_input_shape, group_by_stack_n)

    def export_chrome_trace(self, path):
        self.events().export_chrome_trace(path)

    def export_stacks(self, path, metric="self_cpu_time_total"):
        raise NotImplementedError("export_stacks: fluxgrad's profiler records no stacks")


class record_function:
    """Label a block (`with record_function("name"):`) or a function (as a decorator) so that
    the profiler shows its time under that name; nothing happens when no profiler records."""

    def __init__(self, name, args=None):
        self.name, self.args = name, args
        self._event = None

    def __enter__(self):
        self._event = recording.open_range(self.name)
        return self

    def __exit__(self, *exc):
        recording.close_range(self._event)
        self._event = None

    def __call__(self, fn):
        @functools.wraps(fn)
        def labelled(*args, **kwargs):
            with record_function(self.name, self.args):
                return fn(*args, **kwargs)
        return labelled


def tensorboard_trace_handler(dir_name, worker_name=None, use_gzip=False):
    """An `on_trace_ready` that writes each saved span as a Chrome trace into `dir_name`
    (`<worker>.<time>.pt.trace.json`, as PyTorch names them)."""
    def handler(prof):
        os.makedirs(dir_name, exist_ok=True)
        worker = worker_name or f"{socket.gethostname()}_{os.getpid()}"
        stamp = time.time_ns() // 1000000
        while os.path.exists(path := os.path.join(dir_name, f"{worker}.{stamp}.pt.trace.json")):
            stamp += 1  # two spans within a millisecond
        prof.export_chrome_trace(path)
    if use_gzip:
        raise NotImplementedError("tensorboard_trace_handler(use_gzip=True) is not supported; "
                                  "leave use_gzip False")
    return handler
