"""Shared test set-up: no grad-mode or dual-level state leaks from one test into the next;
`program`: a fresh static Program (and scope) that ops are staged into during the test;
`scoped`: a fresh static scope for the test's Executor runs;
`run_without_fluxgrad`: runs a script in a fresh interpreter where fluxgrad can't be imported."""
import os
import subprocess
import sys

import pytest

import fluxgrad
from fluxgrad import static

from fluxgrad._core import grad_mode
from fluxgrad._core.forward_mode import state as _forward_state


@pytest.fixture(autouse=True)
def _restore_modes():
    enabled, level = grad_mode.state.enabled, _forward_state.level
    yield
    grad_mode._set(enabled)  # (through the setter: it keeps the set of threads with grad off)
    _forward_state.level = level


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


@pytest.fixture
def scoped():
    with static.scope_guard(static.Scope()):
        yield


_NO_FLUXGRAD = (
    "import sys, numpy as np\n"
    "class NoFluxgrad:  # fluxgrad is installed (editable): refuse it\n"
    "    def find_spec(self, name, path=None, target=None):\n"
    "        if name.partition('.')[0] == 'fluxgrad':\n"
    "            raise ImportError('fluxgrad is not importable here')\n"
    "sys.meta_path.insert(0, NoFluxgrad())\n"
    "sys.path.insert(0, '.')\n")


@pytest.fixture
def run_without_fluxgrad(tmp_path):
    """`run(body)`: `body` (after `import sys, numpy as np`) run in `tmp_path` by a fresh
    `python -I` that can't import fluxgrad; it must print 'ok'."""
    def run(body):
        env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
        result = subprocess.run([sys.executable, "-I", "-c", _NO_FLUXGRAD + body], cwd=tmp_path,
                                env=env, capture_output=True, text=True)
        assert result.returncode == 0, result.stderr
        assert result.stdout.strip() == "ok"
    return run
