"""`fluxgrad.profiler` against `torch.profiler`: the same programs profiled in both give the
same op counts, labels, schedules and callbacks; the table and trace have PyTorch's shape."""
import json

import numpy as np
import pytest
import torch
import torch.profiler

import fluxgrad as fg
from fluxgrad._core.primitive import REGISTRY

LIBS = [fg, torch]
IDS = ["fluxgrad", "torch"]


def _program(lib):
    x = lib.tensor(np.ones((8, 8), np.float32), requires_grad=True)
    with lib.profiler.profile(activities=[lib.profiler.ProfilerActivity.CPU],
                              record_shapes=True) as prof:
        with lib.profiler.record_function("model_inference"):
            y = lib.relu(x @ x @ x)
        y.sum().backward()
    return prof


@pytest.mark.parametrize("lib", LIBS, ids=IDS)
def test_ops_and_labels_are_counted(lib):
    x = lib.tensor(np.ones((8, 8), np.float32))
    with lib.profiler.profile() as prof:
        with lib.profiler.record_function("model_inference"):
            lib.relu(x @ x @ x)
    averages = {e.key: e for e in prof.key_averages()}
    assert averages["model_inference"].count == 1
    matmuls = averages["aten::matmul"]
    assert matmuls.count == 2 and matmuls.cpu_time_total > 0
    assert averages["aten::relu"].count == 1


@pytest.mark.parametrize("lib", LIBS, ids=IDS)
def test_a_label_encloses_the_ops_run_inside_it(lib):
    events = _program(lib).events()
    label = next(e for e in events if e.name == "model_inference")
    inside = [e for e in events if e.name == "aten::relu"]
    assert label.cpu_time_total >= max(e.cpu_time_total for e in inside)
    assert label.self_cpu_time_total <= label.cpu_time_total


def test_backward_rules_are_recorded_by_node_name():
    names = {e.key for e in _program(fg).key_averages()}
    assert {"MatmulBackward", "ReluBackward", "SumBackward"} <= names


@pytest.mark.parametrize("lib", LIBS, ids=IDS)
def test_grouping_by_input_shape(lib):
    averages = _program(lib).key_averages(group_by_input_shape=True)
    shapes = {str(e.input_shapes) for e in averages if e.key == "aten::relu"}
    assert shapes == {"[[8, 8]]"}


@pytest.mark.parametrize("lib", LIBS, ids=IDS)
def test_table_has_pytorchs_columns_and_the_names(lib):
    table = _program(lib).key_averages().table(sort_by="cpu_time_total", row_limit=50)
    for column in ("Name", "Self CPU %", "Self CPU", "CPU total %", "CPU total",
                   "CPU time avg", "# of Calls"):
        assert column in table
    assert "model_inference" in table and "aten::relu" in table
    assert "Self CPU time total:" in table


def test_table_row_limit_and_sort_order():
    averages = _program(fg).key_averages()
    table = averages.table(sort_by="self_cpu_time_total", row_limit=2)
    rows = [line for line in table.splitlines()[3:] if line and not line.startswith("-")
            and not line.startswith("Self CPU time total")]
    assert len(rows) == 2
    slowest = max(averages, key=lambda e: e.self_cpu_time_total).key
    assert rows[0].strip().startswith(slowest)


@pytest.mark.parametrize("kwargs", [dict(wait=1, warmup=1, active=2, repeat=1),
                                    dict(wait=0, warmup=0, active=1),
                                    dict(wait=2, warmup=1, active=3, repeat=2, skip_first=3)])
def test_schedule_gives_torchs_actions(kwargs):
    ours, theirs = fg.profiler.schedule(**kwargs), torch.profiler.schedule(**kwargs)
    assert [ours(i).name for i in range(20)] == [theirs(i).name for i in range(20)]


def _scheduled(lib):
    ready = []
    x = lib.tensor(np.ones(4, np.float32))
    with lib.profiler.profile(
            activities=[lib.profiler.ProfilerActivity.CPU],
            schedule=lib.profiler.schedule(wait=1, warmup=1, active=2, repeat=2),
            on_trace_ready=lambda prof: ready.append(
                (prof.step_num, sum(e.count for e in prof.key_averages()
                                    if e.key == "aten::mul")))) as prof:
        for step in range(10):
            for _ in range(step + 1):  # step s multiplies s + 1 times
                x = x * 1.0
            prof.step()
    return ready


def test_on_trace_ready_runs_after_each_active_span_with_its_events():
    assert _scheduled(fg) == _scheduled(torch)


@pytest.mark.parametrize("lib", LIBS, ids=IDS)
def test_record_function_as_decorator_and_without_a_profiler(lib):
    @lib.profiler.record_function("my_step")
    def step(x):
        return x * 2

    assert step(lib.ones(2)).tolist() == [2.0, 2.0]  # no profiler: just runs
    with lib.profiler.profile() as prof:
        step(lib.ones(2))
    assert [e.count for e in prof.key_averages() if e.key == "my_step"] == [1]


def test_chrome_trace_is_json_with_complete_events(tmp_path):
    path = tmp_path / "trace.json"
    _program(fg).export_chrome_trace(str(path))
    events = json.loads(path.read_text())["traceEvents"]
    names = {e["name"] for e in events}
    assert "model_inference" in names and "aten::matmul" in names
    assert all(e["ph"] == "X" and e["dur"] >= 0 for e in events)


def test_tensorboard_trace_handler_writes_a_trace_per_span(tmp_path):
    with fg.profiler.profile(schedule=fg.profiler.schedule(wait=0, warmup=0, active=1,
                                                           repeat=2),
                             on_trace_ready=fg.profiler.tensorboard_trace_handler(
                                 str(tmp_path), worker_name="w")) as prof:
        for _ in range(3):
            fg.ones(3) * 2
            prof.step()
    files = sorted(p.name for p in tmp_path.iterdir())
    assert len(files) == 2 and all(f.startswith("w.") and f.endswith(".pt.trace.json")
                                   for f in files)


def test_profiling_leaves_the_op_records_as_they_were():
    before = {name: (p.impl, p.vjp_rules, p.vjp_all) for name, p in REGISTRY.items()}
    _program(fg)
    after = {name: (p.impl, p.vjp_rules, p.vjp_all) for name, p in REGISTRY.items()}
    assert before == after


def test_nothing_is_recorded_outside_the_block():
    with fg.profiler.profile() as prof:
        pass
    fg.ones(2) * 3
    assert len(prof.events()) == 0


def test_grouping_by_shapes_needs_record_shapes():
    with fg.profiler.profile() as prof:
        fg.ones(2) * 3
    with pytest.raises(RuntimeError, match="record_shapes=True"):
        prof.key_averages(group_by_input_shape=True)


@pytest.mark.parametrize("lib", LIBS, ids=IDS)
def test_autograd_profiler_spelling(lib):
    x = lib.ones(4)
    with lib.autograd.profiler.profile(record_shapes=True) as prof:
        with lib.autograd.profiler.record_function("block"):
            x * 2
    assert "block" in prof.key_averages().table()
    assert prof.self_cpu_time_total > 0
    with lib.autograd.profiler.profile(enabled=False) as off:
        x * 2
    assert off is None
