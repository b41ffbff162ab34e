"""The profiler's results, as torch.autograd.profiler_util's: `FunctionEvent` (one range),
`FunctionEventAvg` (the ranges of one name, or name and input shapes, summed) and `EventList`
(a list of either, with `key_averages()`, `table()` and `export_chrome_trace()`).
Times are in microseconds (floats), as PyTorch's; device times and memory are 0 (fluxgrad
computes on the CPU and does not track memory here).
"""
import json
import os

__all__ = ["FunctionEvent", "FunctionEventAvg", "EventList", "format_time"]


def format_time(us):
    """Microseconds as PyTorch's tables show them: 910.538us, 38.565ms, 1.234s."""
    if us >= 1e6:
        return f"{us / 1e6:.3f}s"
    if us >= 1e3:
        return f"{us / 1e3:.3f}ms"
    return f"{us:.3f}us"


class _Times:
    """The attributes both kinds of event share, from `cpu_time_total`, `self_cpu_time_total`
    and `count`."""
    device_time_total = self_device_time_total = cuda_time_total = self_cuda_time_total = 0.0
    cpu_memory_usage = self_cpu_memory_usage = device_memory_usage = 0
    self_device_memory_usage = self_cuda_memory_usage = 0
    flops = 0
    is_async = is_remote = is_legacy = False

    @property
    def cpu_time(self):
        return self.cpu_time_total / max(self.count, 1)

    @property
    def device_time(self):
        return 0.0

    cuda_time = device_time

    @property
    def cpu_time_str(self):
        return format_time(self.cpu_time)

    @property
    def cpu_time_total_str(self):
        return format_time(self.cpu_time_total)

    @property
    def self_cpu_time_total_str(self):
        return format_time(self.self_cpu_time_total)


class FunctionEvent(_Times):
    """One recorded range: an op, a backward rule or a `record_function` block."""
    count = 1

    def __init__(self, id, event, origin_ns):
        self.id, self.name, self.key = id, event.name, event.name
        self.thread = event.thread
        self.input_shapes = event.input_shapes
        self.start_us = (event.start_ns - origin_ns) / 1e3
        self.end_us = (event.end_ns - origin_ns) / 1e3
        self.cpu_time_total = self.end_us - self.start_us
        self.self_cpu_time_total = self.cpu_time_total - event.child_ns / 1e3
        self.depth = event.depth
        self.is_user_annotation = not (event.name.startswith("aten::")
                                       or event.name.endswith("Backward"))

    def __repr__(self):
        return (f"<FunctionEvent id={self.id} name={self.name} cpu_time="
                f"{self.cpu_time_str} thread={self.thread} input_shapes={self.input_shapes}>")


class FunctionEventAvg(_Times):
    """The events of one key summed: `count`, `cpu_time_total`, `self_cpu_time_total`;
    `cpu_time` is the mean."""

    def __init__(self, key, input_shapes=None, by_shapes=False):
        self.key = key
        self.input_shapes = input_shapes
        self.by_shapes = by_shapes  # whether the events were grouped by their input shapes
        self.count = 0
        self.cpu_time_total = self.self_cpu_time_total = 0.0
        self.is_user_annotation = False

    def add(self, event):
        self.count += event.count
        self.cpu_time_total += event.cpu_time_total
        self.self_cpu_time_total += event.self_cpu_time_total
        self.is_user_annotation = event.is_user_annotation
        return self

    def __repr__(self):
        return (f"<FunctionEventAvg key={self.key} self_cpu_time={self.self_cpu_time_total_str}"
                f" cpu_time={self.cpu_time_str} input_shapes={self.input_shapes}>")


_SORT_KEYS = {"cpu_time_total", "self_cpu_time_total", "cpu_time", "count",
              "cuda_time_total", "self_cuda_time_total", "device_time_total",
              "self_device_time_total", "cpu_memory_usage", "self_cpu_memory_usage",
              "cuda_memory_usage", "self_cuda_memory_usage", "device_memory_usage",
              "self_device_memory_usage", "flops"}


class EventList(list):
    """Events (or their averages) with PyTorch's EventList methods."""

    @property
    def self_cpu_time_total(self):
        return sum(e.self_cpu_time_total for e in self)

    def key_averages(self, group_by_input_shape=False, group_by_stack_n=0):
        """One FunctionEventAvg per name (and per input shapes, when asked), in the order
        the names first appear."""
        averages = {}
        for e in self:
            key = (e.key, str(e.input_shapes)) if group_by_input_shape else e.key
            if key not in averages:
                averages[key] = FunctionEventAvg(e.key, e.input_shapes, group_by_input_shape)
            averages[key].add(e)
        return EventList(averages.values())

    def total_average(self):
        total = FunctionEventAvg("Total")
        for e in self:
            total.add(e)
        return total

    def table(self, sort_by=None, row_limit=100, max_src_column_width=75,
              max_name_column_width=55, max_shapes_column_width=80, header=None,
              top_level_events_only=False):
        """The events as PyTorch prints them: name, self and total CPU time (and their share
        of the whole), mean time and count, and input shapes when they were grouped by."""
        if sort_by is not None and sort_by not in _SORT_KEYS:
            raise ValueError(f"table(sort_by={sort_by!r}): sort by one of "
                             f"{sorted(_SORT_KEYS)}")
        events = list(self)
        if top_level_events_only:
            events = [e for e in events if getattr(e, "depth", 0) == 0]
        if sort_by is not None:
            events.sort(key=lambda e: getattr(e, sort_by.replace("cuda", "device"), 0),
                        reverse=True)
        if row_limit is not None and row_limit > 0:
            events = events[:row_limit]
        whole = self.self_cpu_time_total or 1.0
        show_shapes = bool(events) and all(getattr(e, "by_shapes", False) for e in events)
        name_width = max([len(e.key) for e in events] + [4])
        name_width = min(name_width, max_name_column_width)
        columns = [("Name", name_width), ("Self CPU %", 12), ("Self CPU", 12),
                   ("CPU total %", 12), ("CPU total", 12), ("CPU time avg", 12),
                   ("# of Calls", 12)]
        if show_shapes:
            columns.append(("Input Shapes", min(max_shapes_column_width, max(
                [len(str(e.input_shapes)) for e in events] + [12]))))
        rule = "  ".join("-" * width for _, width in columns) + "  "
        lines = [rule] if header is None else [header, rule]
        lines.append("  ".join(title.rjust(width) for title, width in columns) + "  ")
        lines.append(rule)
        for e in events:
            name = e.key if len(e.key) <= name_width else e.key[:name_width - 3] + "..."
            cells = [name, f"{100 * e.self_cpu_time_total / whole:.2f}%",
                     format_time(e.self_cpu_time_total),
                     f"{100 * e.cpu_time_total / whole:.2f}%", format_time(e.cpu_time_total),
                     format_time(e.cpu_time), str(e.count)]
            if show_shapes:
                cells.append(str(e.input_shapes)[:columns[-1][1]])
            lines.append("  ".join(cell.rjust(width) for cell, (_, width)
                                   in zip(cells, columns)) + "  ")
        lines.append(rule)
        lines.append(f"Self CPU time total: {format_time(self.self_cpu_time_total)}")
        return "\n".join(lines) + "\n"

    def __str__(self):
        return self.table()

    def export_chrome_trace(self, path):
        """Write the events as a Chrome trace (chrome://tracing, Perfetto): JSON, one
        complete event ("ph": "X") per range, times in microseconds."""
        trace = {"traceEvents": [
            {"name": e.name, "ph": "X", "cat": "cpu_op" if not e.is_user_annotation
             else "user_annotation", "ts": e.start_us, "dur": e.cpu_time_total,
             "pid": os.getpid(), "tid": e.thread, "args": {"Input Dims": e.input_shapes}}
            for e in self if isinstance(e, FunctionEvent)]}
        with open(path, "w") as f:
            json.dump(trace, f)
