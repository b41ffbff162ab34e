"""Ordinary PyTorch scripts run as written with `import fluxgrad as torch`.

Each file in tests/pytorch_scripts/ is a script the way PyTorch users write them (tutorial style),
spelled with fluxgrad's module names. It runs once as written and once with every `fluxgrad`
spelled `torch` (real PyTorch); the two printed outputs must agree: the same text and the same
numbers to float32 rounding at the printed precision. The text is compared without blanks
(PyTorch pads columns to the widest entry) and with the names that differ by design made one:
the module (fluxgrad.Size, torch.Size), autograd node names (grad_fn=<SumBackward0>) and the
named-tuple types of results (torch.return_types.max). Randomness the two libraries can't share
comes from NumPy in the scripts.
"""
import contextlib
import io
import pathlib
import re
import sys
import types

import pytest

torch = pytest.importorskip("torch")

SCRIPTS = sorted((pathlib.Path(__file__).parent / "pytorch_scripts").glob("*.py"))
NUMBER = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?|[-+]?\b(?:nan|inf)\b")
DESIGN_NAMES = [(re.compile(r"\bfluxgrad\."), "torch."),
                (re.compile(r"grad_fn=<\w+>"), "grad_fn=<>"),
                (re.compile(r"\b(?:ValuesIndices|[A-Z]\w*Result|aminmax|frexp|histogram)\("
                            r"|torch\.return_types\.\w+\(\n?"), "return_types(")]


def run_script(source, path):
    """The script's printed output, run as the `__main__` module (so that pickle finds the
    classes it defines, as when it runs as a program)."""
    printed = io.StringIO()
    module = types.ModuleType("__main__")
    module.__file__ = str(path)
    saved = sys.modules["__main__"]
    sys.modules["__main__"] = module
    try:
        with contextlib.redirect_stdout(printed):
            exec(compile(source, str(path), "exec"), module.__dict__)
    finally:
        sys.modules["__main__"] = saved
    return printed.getvalue()


def with_torch(source):
    return source.replace("fluxgrad", "torch")


@contextlib.contextmanager
def eager_torch_compile():
    """torch.compile with its eager backend: the same numbers without a C++ build per script."""
    compile_ = torch.compile

    def eager(model=None, **options):
        options["backend"] = "eager"
        return compile_(model, **options) if model is not None else compile_(**options)

    torch.compile = eager
    try:
        yield
    finally:
        torch.compile = compile_


def split(output):
    """The text with every number taken out (and no blanks), and the numbers."""
    text = output
    for name, same in DESIGN_NAMES:
        text = name.sub(same, text)
    numbers = [float(n) for n in NUMBER.findall(text)]
    return "".join(NUMBER.sub("#", text).split()), numbers


@pytest.mark.parametrize("path", SCRIPTS, ids=[p.stem for p in SCRIPTS])
def test_script_prints_what_pytorch_prints(path):
    source = path.read_text()
    ours = run_script(source, path)
    with eager_torch_compile():
        theirs = run_script(with_torch(source), path)
    ours_text, ours_numbers = split(ours)
    theirs_text, theirs_numbers = split(theirs)
    assert ours_text == theirs_text, f"fluxgrad printed:\n{ours}\nPyTorch printed:\n{theirs}"
    assert len(ours_numbers) == len(theirs_numbers)
    for at, (a, b) in enumerate(zip(ours_numbers, theirs_numbers)):
        assert a == pytest.approx(b, rel=2e-4, abs=2e-4, nan_ok=True), (
            f"number {at}: fluxgrad {a}, PyTorch {b}\n"
            f"fluxgrad printed:\n{ours}\nPyTorch printed:\n{theirs}")
