"""Every tutorial in docs/tutorials runs, block after block, so the docs never rot;
the API reference builds (when pdoc is installed)."""
import importlib.util
import pathlib
import re
import subprocess
import sys

import pytest

DOCS = pathlib.Path(__file__).resolve().parent.parent / "docs"
TUTORIALS = sorted((DOCS / "tutorials").glob("*.md"))


def code_blocks(path):
    return re.findall(r"^```python\n(.*?)^```", path.read_text(), re.S | re.M)


def test_there_are_tutorials_and_each_has_code():
    assert len(TUTORIALS) >= 7
    for path in TUTORIALS:
        assert code_blocks(path), f"{path.name} has no ```python blocks"


@pytest.mark.parametrize("path", TUTORIALS, ids=lambda p: p.stem)
def test_tutorial_runs(path, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # tutorials may write pictures
    namespace = {"__name__": "__tutorial__"}
    text = path.read_text()
    for block in code_blocks(path):
        line = text[:text.index(block)].count("\n") + 1
        exec(compile("\n" * (line - 1) + block, str(path), "exec"), namespace)


@pytest.mark.skipif(importlib.util.find_spec("pdoc") is None, reason="pdoc not installed")
def test_api_reference_builds(tmp_path):
    result = subprocess.run([sys.executable, "-m", "pdoc", "fluxgrad", "-o", str(tmp_path)],
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "fluxgrad.html").exists()
    assert (tmp_path / "fluxgrad" / "viz.html").exists()
