"""Shared test set-up: no grad-mode or dual-level state leaks from one test into the next."""
import pytest

from fluxgrad._core.forward_mode import state as _forward_state
from fluxgrad._core.grad_mode import state as _grad_state


@pytest.fixture(autouse=True)
def _restore_modes():
    enabled, level = _grad_state.enabled, _forward_state.level
    yield
    _grad_state.enabled, _forward_state.level = enabled, level
