"""examples/train_charlm.py: a few steps of the character-level transformer demo lower the
loss, print a sample that continues the prompt, and write the loss curve."""
import importlib.util
import os

import numpy as np

import fluxgrad as fg

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(fg.__file__)))


def _demo():
    spec = importlib.util.spec_from_file_location(
        "train_charlm", os.path.join(ROOT, "examples", "train_charlm.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_a_few_steps_lower_the_loss_and_generate_a_sample(tmp_path, capsys):
    losses, sample = _demo().main(["--steps", "30", "--d-model", "32", "--layers", "1",
                                   "--context", "24", "--sample-length", "20",
                                   "--out", str(tmp_path)])
    assert len(losses) == 30
    # from about log(55 characters) = 4.0 towards the unigram entropy of English text
    assert np.mean(losses[-5:]) < np.mean(losses[:5]) - 0.5
    assert sample.startswith("To be") and len(sample) == len("To be") + 20
    output = capsys.readouterr().out
    assert "step   30/30" in output and "sample:" in output
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        return
    assert (tmp_path / "charlm_loss.png").stat().st_size > 0
