"""Shared test set-up: no grad-mode or dual-level state leaks from one test into the next;
`program`: a fresh static Program (and scope) that ops are staged into during the test."""
import pytest

import fluxgrad
from fluxgrad import static

from fluxgrad._core.forward_mode import state as _forward_state
from fluxgrad._core.grad_mode import state as _grad_state


@pytest.fixture(autouse=True)
def _restore_modes():
    enabled, level = _grad_state.enabled, _forward_state.level
    yield
    _grad_state.enabled, _forward_state.level = enabled, level


@pytest.fixture
def program():
    main = static.Program()
    fluxgrad.enable_static()
    try:
        with static.program_guard(main, static.Program()), static.scope_guard(static.Scope()):
            yield main
    finally:
        fluxgrad.disable_static()
        fluxgrad.incubate.autograd.disable_prim()
