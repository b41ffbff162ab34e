"""The graph's public view as PyTorch code touches it: `grad_fn.register_hook` /
`register_prehook`, `_saved_self` / `_saved_result`, `metadata`, `autograd.graph.Node`,
`get_gradient_edge`, `increment_version`, `register_multi_grad_hook`, and
`forward_ad.enter_dual_level` / `exit_dual_level`. Each runs in fluxgrad and in PyTorch."""
import numpy as np
import pytest
import torch

import fluxgrad as fg

LIBS = [fg, torch]
IDS = ["fluxgrad", "torch"]


def _listed(grads):
    return [None if g is None else g.tolist() for g in grads]


def _node_hooks_program(lib):
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    y = x * x * 3
    log = []
    y.grad_fn.register_prehook(lambda go: log.append(("pre", _listed(go))))
    y.grad_fn.register_hook(lambda gi, go: log.append(("post", _listed(gi), _listed(go))))
    y.sum().backward(retain_graph=True)
    log.append(x.grad.tolist())
    doubling = y.grad_fn.register_prehook(lambda go: (go[0] * 2,))
    y.grad_fn.register_hook(lambda gi, go: (gi[0] + 1, None))
    x.grad = None
    y.sum().backward(retain_graph=True)
    log.append(x.grad.tolist())
    doubling.remove()
    x.grad = None
    y.sum().backward()
    log.append(x.grad.tolist())
    return log


def test_node_pre_and_post_hooks_see_and_replace_gradients_as_in_torch():
    assert _node_hooks_program(fg) == _node_hooks_program(torch)


@pytest.mark.parametrize("lib", LIBS, ids=IDS)
def test_node_hook_returning_the_wrong_number_of_gradients_raises(lib):
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    y = x * 3
    y.grad_fn.register_hook(lambda gi, go: (gi[0], gi[0], gi[0]))
    with pytest.raises(RuntimeError):
        y.sum().backward()


@pytest.mark.parametrize("lib", LIBS, ids=IDS)
def test_saved_self_other_and_result(lib):
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    w = lib.tensor([3.0, 4.0], requires_grad=True)
    p = x * w
    assert p.grad_fn._saved_self is x and p.grad_fn._saved_other is w
    y = x.exp()
    assert y.grad_fn._saved_result.tolist() == y.tolist()


@pytest.mark.parametrize("lib", LIBS, ids=IDS)
def test_saved_tensors_are_gone_after_backward(lib):
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    y = x.exp()
    y.sum().backward()
    with pytest.raises(RuntimeError, match="freed"):
        y.grad_fn._saved_result


@pytest.mark.parametrize("lib", LIBS, ids=IDS)
def test_node_metadata_is_a_dict_that_keeps_what_is_put_in(lib):
    y = lib.tensor([1.0], requires_grad=True) * 2
    y.grad_fn.metadata["layer"] = "fc1"
    assert y.grad_fn.metadata == {"layer": "fc1"}


@pytest.mark.parametrize("lib", LIBS, ids=IDS)
def test_grad_fn_and_accumulate_grad_are_graph_nodes(lib):
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    y = (x * 2).sum()
    Node = lib.autograd.graph.Node
    assert isinstance(y.grad_fn, Node)
    leaf_edge = y.grad_fn.next_functions[0][0].next_functions[0][0]
    assert isinstance(leaf_edge, Node) and leaf_edge.name() == "torch::autograd::AccumulateGrad" \
        or lib is fg and leaf_edge.name() == "AccumulateGrad"
    assert not isinstance(x, Node)


@pytest.mark.parametrize("lib", LIBS, ids=IDS)
def test_get_gradient_edge(lib):
    graph = lib.autograd.graph
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    y = x.exp()
    edge = graph.get_gradient_edge(y)
    assert edge.node is y.grad_fn and edge.output_nr == 0
    leaf = graph.get_gradient_edge(x)
    assert leaf.output_nr == 0 and leaf.node.variable is x
    with pytest.raises(RuntimeError):
        graph.get_gradient_edge(lib.ones(2))


@pytest.mark.parametrize("lib", LIBS, ids=IDS)
def test_increment_version_makes_a_saved_tensor_stale(lib):
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    y = x.exp()
    before = y._version
    lib.autograd.graph.increment_version(y)
    assert y._version == before + 1
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()


def _multi_hook_program(lib, mode):
    a, b, c = (lib.ones(2, requires_grad=True) for _ in range(3))
    log = []
    lib.autograd.graph.register_multi_grad_hook(
        [a, b, c], lambda g: log.append(_listed(g) if mode == "all" else "called"), mode=mode)
    (a * 2 + b).sum().backward()
    (c * 5).sum().backward()
    return log


@pytest.mark.parametrize("mode", ["all", "any"])
def test_multi_grad_hook_is_called_once_per_pass(mode):
    assert _multi_hook_program(fg, mode) == _multi_hook_program(torch, mode)


@pytest.mark.parametrize("lib", LIBS, ids=IDS)
def test_multi_grad_hook_handle_removes_it(lib):
    a = lib.ones(2, requires_grad=True)
    calls = []
    handle = lib.autograd.graph.register_multi_grad_hook([a], calls.append)
    handle.remove()
    (a * 2).sum().backward()
    assert calls == []


@pytest.mark.parametrize("lib", LIBS, ids=IDS)
def test_enter_and_exit_dual_level(lib):
    fwAD = lib.autograd.forward_ad
    fwAD.enter_dual_level()
    x = fwAD.make_dual(lib.tensor([1.0, 2.0]), lib.tensor([1.0, 0.0]))
    tangent = fwAD.unpack_dual((x * x).sum()).tangent
    fwAD.exit_dual_level()
    assert tangent.item() == 2.0
    with pytest.raises(RuntimeError):
        fwAD.exit_dual_level()


def test_is_grads_batched_matches_torch():
    results = []
    for lib in LIBS:
        x = lib.tensor(np.array([1.0, 2.0, 3.0]), requires_grad=True)
        y = x ** 2
        seeds = lib.eye(3, dtype=lib.float64)
        jac, = lib.autograd.grad(y, x, seeds, is_grads_batched=True)
        results.append(jac.tolist())
    assert results[0] == results[1]


def _accumulate_grad_program(lib):
    p = lib.ones(2, requires_grad=True)
    acc = (p * 1).grad_fn.next_functions[0][0]
    same = acc is (p + 1).grad_fn.next_functions[0][0] and acc.variable is p
    log = []
    acc.register_prehook(lambda go: log.append(("pre", _listed(go), _listed([p.grad]))))
    handle = acc.register_hook(lambda gi, go: log.append(
        ("post", gi, _listed(go), p.grad.tolist())))
    (p * 3).sum().backward()
    (p * 2).sum().backward()
    lib.autograd.grad((p * 3).sum(), p)  # no AccumulateGrad runs
    handle.remove()
    (p * 1).sum().backward()
    return same, log


def test_accumulate_grad_node_hooks_as_in_torch():
    """The DistributedDataParallel pattern: hooks on a parameter's AccumulateGrad node."""
    assert _accumulate_grad_program(fg) == _accumulate_grad_program(torch)
