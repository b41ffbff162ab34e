"""`engine.queue_callback`: what DistributedDataParallel uses to finish its all-reduces once a
backward pass is over. No MPI needed."""
import numpy as np
import pytest

import fluxgrad as fg
from fluxgrad._core import engine


def test_callback_queued_by_a_hook_runs_after_every_leaf_has_its_grad():
    x = fg.tensor([1.0, 2.0], requires_grad=True)
    w = fg.tensor([3.0, 4.0], requires_grad=True)
    seen = []

    def hook(g):
        engine.queue_callback(lambda: seen.append((x.grad.numpy().copy(),
                                                   w.grad.numpy().copy())))
    x.register_hook(hook)
    (x * w).sum().backward()
    assert len(seen) == 1
    np.testing.assert_array_equal(seen[0][0], [3.0, 4.0])
    np.testing.assert_array_equal(seen[0][1], [1.0, 2.0])
    (x * w).sum().backward()
    assert len(seen) == 2, "a callback runs once, in the pass that queued it"


def test_callback_of_a_nested_backward_runs_when_that_pass_ends():
    x = fg.tensor(2.0, requires_grad=True)
    inner_x = fg.tensor(3.0, requires_grad=True)
    order = []

    def outer_hook(g):
        engine.queue_callback(lambda: order.append("outer done"))
        inner_x.register_hook(lambda g: engine.queue_callback(lambda: order.append("inner done")))
        with fg.enable_grad():
            (inner_x * 2).backward()
        order.append("inner returned")
    x.register_hook(outer_hook)
    (x * x).backward()
    assert order == ["inner done", "inner returned", "outer done"]


def test_a_pass_that_raises_drops_its_callbacks():
    x = fg.tensor(1.0, requires_grad=True)
    ran = []

    def hook(g):
        engine.queue_callback(lambda: ran.append(True))
        raise ValueError("hook failed")
    x.register_hook(hook)
    with pytest.raises(ValueError, match="hook failed"):
        (x * 3).backward()
    assert not ran
    with pytest.raises(RuntimeError, match="backward pass running"):
        engine.queue_callback(lambda: None)


def test_queue_callback_outside_backward_raises():
    with pytest.raises(RuntimeError, match="queue_callback.*backward pass running"):
        engine.queue_callback(lambda: None)
