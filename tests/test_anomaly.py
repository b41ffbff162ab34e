"""Anomaly mode, readable nodes and graph_summary."""
import warnings

import pytest

import fluxgrad as fg
from fluxgrad.autograd import AnomalyError, detect_anomaly, graph_summary


def _nan_backward():
    x = fg.tensor([0.0, 1.0], requires_grad=True)
    y = fg.sqrt(x) * 0  # the sqrt call site
    return x, y


def test_nan_in_backward_raises_naming_node_op_and_forward_line():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with detect_anomaly():
            x, y = _nan_backward()
            with pytest.raises(AnomalyError) as info:
                y.sum().backward()
    message = str(info.value)
    line = _nan_backward.__code__.co_firstlineno + 2
    assert "SqrtBackward returned NaN" in message
    assert "sqrt(float32[2])" in message
    assert f"{__file__}:{line}, in _nan_backward" in message
    assert "y = fg.sqrt(x) * 0" in message
    assert info.value.trace == (__file__, line, "_nan_backward")


def test_with_the_mode_off_no_stack_is_recorded_and_nan_passes():
    assert not fg.autograd.is_anomaly_enabled()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        x, y = _nan_backward()
        assert y.grad_fn.trace is None
        assert y.grad_fn.next_functions[0][0].trace is None
        y.sum().backward()
    assert fg.isnan(x.grad).any()


def test_global_switch_records_call_sites_until_turned_off():
    fg.autograd.set_detect_anomaly(True)
    try:
        x = fg.tensor(1.0, requires_grad=True)
        y = x * 2
    finally:
        fg.autograd.set_detect_anomaly(False)
    z = x * 2
    assert y.grad_fn.trace[0] == __file__ and y.grad_fn.trace[2] == \
        "test_global_switch_records_call_sites_until_turned_off"
    assert z.grad_fn.trace is None


def test_inf_gradient_is_reported_as_inf():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with detect_anomaly():
            x = fg.tensor([0.0], requires_grad=True)
            with pytest.raises(AnomalyError, match="SqrtBackward returned Inf"):
                fg.sqrt(x).sum().backward()


def test_finite_backward_is_unchanged_in_anomaly_mode():
    with detect_anomaly():
        x = fg.tensor([1.0, 4.0], requires_grad=True)
        fg.sqrt(x).sum().backward()
    assert x.grad.tolist() == [0.5, 0.25]


def test_node_repr_names_the_op_and_its_inputs():
    x = fg.tensor([1.0, 2.0], requires_grad=True)
    y = x * fg.tensor([3.0, 3.0], requires_grad=True)
    assert repr(y.grad_fn) == "<MulBackward of mul(float32[2], float32[2])>"
    y.sum().backward()
    assert repr(y.grad_fn) == "<MulBackward of mul (buffers freed)>"


def test_graph_summary_lists_nodes_inputs_and_saved_memory():
    a = fg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    a.name = "a"
    w = fg.exp(a * a).sum()
    s = graph_summary(w)
    assert [r["node"] for r in s.rows] == ["SumBackward", "ExpBackward", "MulBackward"]
    assert s.rows[2]["inputs"] == "leaf a, leaf a"
    assert s.rows[1]["inputs"] == "#2"
    assert s.rows[1]["saved"] == "float32[3]"  # exp's rule reads its output, not a * a
    assert s.total_bytes == 2 * 12  # a (counted once) and exp's output
    text = str(s)
    assert "MulBackward" in text and "saved buffers hold 24 B" in text
    w.backward()
    assert graph_summary(w).total_bytes == 0


def test_set_detect_anomaly_as_a_context_restores_the_mode_before_it():
    with fg.autograd.set_detect_anomaly(True):
        assert fg.autograd.is_anomaly_enabled()
        y = fg.tensor(1.0, requires_grad=True) * 2
    assert not fg.autograd.is_anomaly_enabled()
    assert y.grad_fn.trace is not None
