"""`autograd.graph.saved_tensors_hooks`, `save_on_cpu`, `disable_saved_tensors_hooks`: each
program runs in fluxgrad and in PyTorch, and the hook calls and gradients must agree."""
import numpy as np
import pytest
import torch

import fluxgrad as fg

LIBS = [fg, torch]


def _logging_hooks(log, tag):
    def pack(t):
        log.append(("pack", tag, tuple(t.shape)))
        return t

    def unpack(t):
        log.append(("unpack", tag))
        return t
    return pack, unpack


def _nested_program(lib):
    log = []
    a = lib.ones(3, requires_grad=True)
    b = lib.ones(3, requires_grad=True) * 2
    with lib.autograd.graph.saved_tensors_hooks(*_logging_hooks(log, "outer")):
        with lib.autograd.graph.saved_tensors_hooks(*_logging_hooks(log, "inner")):
            y = a * b
        z = y.exp()
    log.append("backward")
    z.sum().backward()
    return log, a.grad.tolist()


def test_only_the_innermost_hooks_pack_and_each_saved_tensor_keeps_its_unpack_hook():
    ours, theirs = _nested_program(fg), _nested_program(torch)
    assert ours[0] == theirs[0]
    np.testing.assert_allclose(ours[1], theirs[1], rtol=1e-6)


def _x(lib):
    return lib.tensor(np.array([0.5, -1.25, 2.0, 0.75]), requires_grad=True)


@pytest.mark.parametrize("pack, unpack, factor", [
    (lambda t: t * 4, lambda t: t / 4, 2.0),      # PyTorch's docs: the round trip is exact
    (lambda t: t, lambda t: t * 3, 6.0),          # what unpack returns is what backward reads
])
def test_backward_reads_what_unpack_returns(pack, unpack, factor):
    for lib in LIBS:
        x = _x(lib)
        with lib.autograd.graph.saved_tensors_hooks(pack, unpack):
            y = x.pow(2)
        y.sum().backward()
        np.testing.assert_allclose(x.grad.tolist(), factor * np.array(x.tolist()))


def test_pack_runs_under_no_grad_and_unpack_in_the_backward_grad_mode():
    def run(lib):
        seen = []

        def pack(t):
            seen.append(("pack", lib.is_grad_enabled(), (t * 4).requires_grad))
            return t * 4

        def unpack(t):
            seen.append(("unpack", lib.is_grad_enabled()))
            return t / 4
        x = _x(lib)
        with lib.autograd.graph.saved_tensors_hooks(pack, unpack):
            y = x.pow(2)
        lib.autograd.grad(y.sum(), x, create_graph=True)
        y = x.pow(2)  # recorded outside the hooks: nothing packed
        lib.autograd.grad(y.sum(), x)
        return seen
    assert run(fg) == run(torch)


def test_unpack_runs_at_every_backward_through_the_graph():
    def run(lib):
        count = [0]

        def unpack(t):
            count[0] += 1
            return t
        x = _x(lib)
        with lib.autograd.graph.saved_tensors_hooks(lambda t: t, unpack):
            y = (x * x).sum()
        y.backward(retain_graph=True)
        y.backward()
        return count[0]
    assert run(fg) == run(torch) == 4


@pytest.mark.parametrize("lib", LIBS, ids=["fluxgrad", "torch"])
def test_double_backward_through_tensors_that_went_through_hooks(lib):
    x = _x(lib)
    # pack keeps a plain copy (a NumPy array): unpack must be placed back in the graph
    with lib.autograd.graph.saved_tensors_hooks(lambda t: t.detach().numpy().copy(),
                                                lambda a: lib.tensor(a)):
        y = (x.exp() * x * x).sum()
    g, = lib.autograd.grad(y, x, create_graph=True)
    gg, = lib.autograd.grad(g.sum(), x)
    v = np.array(x.tolist())
    np.testing.assert_allclose(g.tolist(), np.exp(v) * (v * v + 2 * v))
    np.testing.assert_allclose(gg.tolist(), np.exp(v) * (v * v + 4 * v + 2))


def _custom_function_program(lib):
    class Exp(lib.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            out = a.exp()
            ctx.save_for_backward(a, out)
            return out

        @staticmethod
        def backward(ctx, out_bar):
            a, out = ctx.saved_tensors
            return out_bar * out * 2 + a * 0

    log = []
    pack, unpack = _logging_hooks(log, "f")
    x = _x(lib)
    with lib.autograd.graph.saved_tensors_hooks(lambda t: pack(t).clone(), unpack):
        y = Exp.apply(x)
    log.append("backward")
    y.sum().backward()
    return log, x.grad.tolist()


def test_custom_function_save_for_backward_goes_through_the_hooks():
    ours, theirs = _custom_function_program(fg), _custom_function_program(torch)
    assert ours[0] == theirs[0]
    np.testing.assert_allclose(ours[1], theirs[1])


def test_save_on_cpu_gives_the_same_gradients():
    grads = []
    for lib in LIBS:
        x = _x(lib)
        with lib.autograd.graph.save_on_cpu():
            y = (x.sin() * x).tanh().sum()
        y.backward()
        grads.append(x.grad.tolist())
    np.testing.assert_allclose(grads[0], grads[1])


def test_save_on_cpu_with_pin_memory_is_accepted():
    x = _x(fg)
    with fg.autograd.graph.save_on_cpu(pin_memory=True):
        y = (x * x).sum()
    y.backward()
    np.testing.assert_allclose(x.grad.tolist(), 2 * np.array(x.tolist()))


@pytest.mark.parametrize("lib", LIBS, ids=["fluxgrad", "torch"])
def test_entering_hooks_inside_disable_raises_the_given_message(lib):
    graph = lib.autograd.graph
    with graph.disable_saved_tensors_hooks("no hooks in this region"):
        with pytest.raises(RuntimeError, match="no hooks in this region"):
            with graph.saved_tensors_hooks(lambda t: t, lambda t: t):
                pass
    with graph.saved_tensors_hooks(lambda t: t, lambda t: t):  # allowed again after it
        pass


@pytest.mark.parametrize("lib", LIBS, ids=["fluxgrad", "torch"])
def test_disable_inside_active_hooks_raises(lib):
    graph = lib.autograd.graph
    with graph.saved_tensors_hooks(lambda t: t, lambda t: t):
        with pytest.raises(RuntimeError, match="not here"):
            with graph.disable_saved_tensors_hooks("not here"):
                pass


@pytest.mark.parametrize("lib", LIBS, ids=["fluxgrad", "torch"])
def test_unpack_returning_a_non_tensor_raises_type_error(lib):
    x = _x(lib)
    with lib.autograd.graph.saved_tensors_hooks(lambda t: 1, lambda t: 1):
        y = (x * x).sum()
    with pytest.raises(TypeError, match="unpack_hook expected to be a Tensor"):
        y.backward()


@pytest.mark.parametrize("lib", LIBS, ids=["fluxgrad", "torch"])
def test_pack_modifying_its_input_in_place_raises(lib):
    def pack(t):
        t.mul_(2)
        return t
    x = _x(lib)
    with pytest.raises(RuntimeError, match="pack hook is modifying its input in place"):
        with lib.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
            (x.exp() * 1).sum()


def test_nothing_is_packed_under_no_grad_or_for_ops_that_save_nothing():
    def run(lib):
        log = []
        x = _x(lib)
        with lib.autograd.graph.saved_tensors_hooks(*_logging_hooks(log, "h")):
            with lib.no_grad():
                x * x
            (x + 1) * lib.ones(4)  # only the tensor that does not require grad is read
        return log
    assert run(fg) == run(torch)


def test_hooks_are_off_again_after_the_block():
    log = []
    x = _x(fg)
    with fg.autograd.graph.saved_tensors_hooks(*_logging_hooks(log, "h")):
        pass
    (x * x).sum().backward()
    assert log == []


def test_forward_grad_along_a_graph_recorded_under_hooks():
    x = _x(fg)
    with fg.autograd.graph.saved_tensors_hooks(lambda t: t.clone(), lambda t: t):
        y = (x * x).exp()
    v = fg.ones(4, dtype=x.dtype)
    y_dot, = fg.autograd.forward_grad([y], [x], [v])
    xs = np.array(x.tolist())
    np.testing.assert_allclose(y_dot.tolist(), 2 * xs * np.exp(xs * xs))


@pytest.mark.parametrize("lib", LIBS, ids=["fluxgrad", "torch"])
def test_allow_mutation_on_saved_tensors_backward_reads_the_saved_values(lib):
    a = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
    with lib.autograd.graph.allow_mutation_on_saved_tensors():
        b = a.clone()
        out = (b ** 2).sum()
        b.sin_()
        out.backward()
    assert a.grad.tolist() == [2.0, 4.0, 6.0]


@pytest.mark.parametrize("lib", LIBS, ids=["fluxgrad", "torch"])
def test_allow_mutation_on_saved_tensors_needs_backward_inside_it(lib):
    a = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
    with lib.autograd.graph.allow_mutation_on_saved_tensors():
        out = (a.clone() ** 2).sum()
    with pytest.raises(AssertionError, match="outside of the 'allow_mutation_on_saved_tensors'"):
        out.backward()


@pytest.mark.parametrize("lib", LIBS, ids=["fluxgrad", "torch"])
def test_allow_mutation_on_saved_tensors_cannot_nest(lib):
    with lib.autograd.graph.allow_mutation_on_saved_tensors():
        with pytest.raises(RuntimeError, match="cannot be nested"):
            with lib.autograd.graph.allow_mutation_on_saved_tensors():
                pass


def test_without_allow_mutation_the_same_program_raises():
    a = fg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    b = a.clone()
    out = (b ** 2).sum()
    b.sin_()
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        out.backward()
