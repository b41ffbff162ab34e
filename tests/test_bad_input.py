"""Bad input never corrupts anything: one test per mistake a user can make.

Each test checks the error's type (PyTorch's where PyTorch has one), that the message names
the problem, and that nothing changed: checkpoint bytes, parameters, gradients, state.
"""
import io
import json
import os
import pickle
import re
import struct
import subprocess
import sys
import zipfile

import numpy as np
import pytest

import fluxgrad as fg
from fluxgrad import nn, optim
from fluxgrad.serialization import CheckpointError

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(fg.__file__)))


@pytest.fixture
def torch():
    """PyTorch, the reference, for the tests that compare with it (the others run without)."""
    return pytest.importorskip("torch")


# --- checkpoints: save ---------------------------------------------------------------------------

@pytest.fixture
def checkpoint(tmp_path):
    """A good checkpoint on disk and its bytes."""
    path = tmp_path / "model.fg"
    fg.save({"w": fg.arange(6.0).reshape(2, 3), "step": 7}, path)
    return path, path.read_bytes()


def _assert_untouched(path, original):
    assert path.read_bytes() == original
    back = fg.load(path)
    assert back["step"] == 7 and back["w"].tolist() == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]
    assert [p.name for p in path.parent.iterdir()] == [path.name], "a temporary file was left"


def _self_containing():
    loop = []
    loop.append(loop)
    return {"w": fg.ones(2), "loop": loop}


@pytest.mark.parametrize("bad,error,words", [
    ({"w": fg.ones(2), "f": lambda: 0}, TypeError, "can't be pickled"),
    ({"w": fg.ones(2), "gen": (i for i in range(2))}, TypeError, "can't be pickled"),
], ids=["lambda", "generator"])
def test_save_of_unstorable_value_leaves_the_checkpoint_untouched(checkpoint, bad, error, words):
    path, original = checkpoint
    with pytest.raises(error, match=words):
        fg.save(bad, path)
    _assert_untouched(path, original)


def test_save_of_unstorable_value_writes_nothing_to_a_file_object():
    out = io.BytesIO()
    with pytest.raises(TypeError, match="can't be pickled"):
        fg.save({"w": fg.ones(2), "f": lambda: 0}, out)
    assert out.getvalue() == b""


@pytest.mark.parametrize("value", [
    {"w": fg.ones(2), "x": np.array([None, 1], dtype=object)}, {"x": 1 + 2j},
    {("tuple", "key"): 1}, {"s": {1, 2}}, _self_containing()],
    ids=["object_array", "complex", "tuple_key", "set", "self_containing"])
def test_what_the_safe_format_cant_hold_is_pickled_and_loaded_only_on_request(tmp_path, value):
    path = tmp_path / "pickled.pt"
    fg.save(value, path)
    with pytest.raises(pickle.UnpicklingError, match="pass weights_only=False"):
        fg.load(path)
    with pytest.raises(pickle.UnpicklingError, match="pass weights_only=False"):
        fg.load(path, weights_only=True)
    back = fg.load(path, weights_only=False)
    assert type(back) is type(value) and back.keys() == value.keys()


def test_save_into_a_missing_directory_names_it(tmp_path):
    with pytest.raises(FileNotFoundError, match="nowhere"):
        fg.save(fg.ones(2), tmp_path / "nowhere" / "x.fg")
    assert list(tmp_path.iterdir()) == []


def test_save_keeps_the_permissions_of_the_file_it_replaces(checkpoint):
    path, _ = checkpoint
    os.chmod(path, 0o640)
    fg.save(fg.ones(2), path)
    assert os.stat(path).st_mode & 0o777 == 0o640


def test_save_through_a_symlink_replaces_the_target(tmp_path, checkpoint):
    path, _ = checkpoint
    link = tmp_path / "latest.fg"
    link.symlink_to(path.name)
    fg.save(fg.ones(2), link)
    assert link.is_symlink() and fg.load(path).tolist() == [1.0, 1.0]


class _FailingFile(io.FileIO):
    """A file whose writes fail once `budget` bytes have been written (a full disk)."""
    budget = 0

    def write(self, data):
        if self.tell() + len(data) > self.budget:
            raise OSError(28, "No space left on device (simulated)")
        return super().write(data)


@pytest.mark.parametrize("seed", range(3))
def test_save_interrupted_at_random_points_leaves_the_previous_checkpoint(checkpoint, seed,
                                                                          monkeypatch):
    path, original = checkpoint
    bigger = {"w": fg.randn(50, 40), "b": fg.randn(40), "step": 8}
    full = io.BytesIO()
    fg.save(bigger, full)

    def failing_fdopen(fd, mode="r", *args, **kwargs):
        assert mode == "wb"
        f = _FailingFile(fd, "wb")
        f.budget = budget
        return f

    monkeypatch.setattr(os, "fdopen", failing_fdopen)
    for budget in np.random.default_rng(seed).integers(0, len(full.getvalue()), 8):
        with pytest.raises(OSError, match="No space left"):
            fg.save(bigger, path)
        _assert_untouched(path, original)


@pytest.mark.parametrize("failing", ["fsync", "replace"])
def test_save_failing_at_fsync_or_rename_leaves_the_previous_checkpoint(checkpoint, failing,
                                                                        monkeypatch):
    path, original = checkpoint

    def fail(*args):
        raise OSError(5, f"{failing} failed (simulated)")

    monkeypatch.setattr(os, failing, fail)
    with pytest.raises(OSError, match=f"{failing} failed"):
        fg.save({"w": fg.zeros(3)}, path)
    monkeypatch.undo()
    _assert_untouched(path, original)


_SIZE_LIMITED_SAVES = """
import os, resource, signal, sys
import numpy as np
import fluxgrad as fg
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
path = sys.argv[1]
bigger = {"w": fg.randn(50, 40), "step": 8}
soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
for limit in np.random.default_rng(0).integers(0, 9000, 10):
    resource.setrlimit(resource.RLIMIT_FSIZE, (int(limit), hard))
    try:
        fg.save(bigger, path)
    except OSError as e:
        assert e.errno == 27, e  # EFBIG: the file size limit cut the write
    else:
        raise AssertionError(f"a save of ~9 kB fit under a {limit}-byte limit")
    finally:
        resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))
    assert fg.load(path)["step"] == 7
print("ok")
"""


@pytest.mark.skipif(sys.platform == "win32", reason="file size limits (RLIMIT_FSIZE) are POSIX")
def test_save_cut_by_a_file_size_limit_leaves_the_previous_checkpoint(checkpoint):
    path, original = checkpoint
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    run = subprocess.run([sys.executable, "-c", _SIZE_LIMITED_SAVES, str(path)], env=env,
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0 and run.stdout.strip() == "ok", run.stderr
    _assert_untouched(path, original)


# --- checkpoints: load ---------------------------------------------------------------------------

def _npz(**arrays):
    out = io.BytesIO()
    np.savez(out, **arrays)
    return out.getvalue()


def _with_structure(structure, **arrays):
    text = structure if isinstance(structure, (str, bytes)) else json.dumps(structure)
    raw = text.encode("utf-8") if isinstance(text, str) else text
    return _npz(__structure__=np.frombuffer(raw, np.uint8), **arrays)


def _good_bytes():
    out = io.BytesIO()
    fg.save({"w": fg.ones(3), "step": 1}, out)
    return out.getvalue()


def _lying_header():
    header = io.BytesIO()
    np.lib.format.write_array_header_1_0(
        header, {"descr": "<f8", "fortran_order": False, "shape": (10 ** 9,)})
    structure = io.BytesIO()
    np.save(structure, np.frombuffer(b'{"format": "fluxgrad-1", "root": {"ndarray": "x"}}',
                                     np.uint8))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as z:
        z.writestr("__structure__.npy", structure.getvalue())
        z.writestr("x.npy", header.getvalue() + bytes(64))
    return out.getvalue()


_ROOT = '{"format": "fluxgrad-1", "root": %s}'
MALFORMED = {
    "truncated": (lambda: _good_bytes()[:200], "truncated"),
    "last_bytes_missing": (lambda: _good_bytes()[:-3], "truncated"),
    "empty": (lambda: b"", "not a readable .npz archive"),
    "text": (lambda: b"step,loss\n1,0.5\n", "not a readable .npz archive"),
    "plain_npz": (lambda: _npz(x=np.zeros(2)), "no structure entry"),
    "other_format": (lambda: _with_structure({"format": "other-9", "root": 1}),
                     "unknown checkpoint format 'other-9'"),
    "structure_not_an_object": (lambda: _with_structure("[1, 2]"), "not a fluxgrad structure"),
    "structure_not_json": (lambda: _with_structure("{oops"), "not valid JSON"),
    "bad_unicode": (lambda: _with_structure(b'\xff\xfe{"format"'), "not UTF-8"),
    "deep_nesting": (lambda: _with_structure(_ROOT % ('{"list": [' * 5000 + ']}' * 5000)),
                     "nested too deeply"),
    "nesting_past_the_limit": (lambda: _with_structure(_ROOT % ('{"list": [' * 150 + ']}' * 150)),
                               "nested more than 100 levels"),
    "unknown_node": (lambda: _with_structure(_ROOT % '{"sparse": 1}'), "not a value"),
    "bare_list_node": (lambda: _with_structure(_ROOT % '[1, 2]'), "not a value"),
    "missing_array": (lambda: _with_structure(_ROOT % '{"tensor": "a7"}'),
                      "names the array 'a7', which the archive lacks"),
    "array_named_twice": (lambda: _with_structure(
        _ROOT % '{"list": [{"ndarray": "x"}, {"ndarray": "x"}]}', x=np.zeros(2)),
        "a second time"),
    "bad_dict_item": (lambda: _with_structure(_ROOT % '{"dict": [[1, 2, 3]]}'),
                      "where a \\[key, value\\] pair belongs"),
    "bad_flag": (lambda: _with_structure(_ROOT % '{"tensor": "x", "requires_grad": "yes"}',
                                         x=np.zeros(2)), "flags are not true or false"),
    "string_tensor": (lambda: _with_structure(_ROOT % '{"tensor": "x"}', x=np.array(["a"])),
                      "tensor of dtype <U1"),
    "pickled_objects": (lambda: _with_structure(_ROOT % '{"ndarray": "x"}',
                                                x=np.array([None, 1])), "pickled Python objects"),
    "entry_not_an_array": (lambda: _zip_with_entry("notes.txt", b"hi"), "not an array"),
    "header_larger_than_entry": (_lying_header, "declares shape \\[1000000000\\]"),
}


def _zip_with_entry(name, data):
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as z:
        z.writestr(name, data)
    return out.getvalue()


@pytest.mark.parametrize("case", MALFORMED)
def test_load_of_a_malformed_file_raises_checkpoint_error(tmp_path, case):
    make, reason = MALFORMED[case]
    path = tmp_path / "bad.fg"
    path.write_bytes(make())
    with pytest.raises(CheckpointError, match="not a valid fluxgrad checkpoint") as info:
        fg.load(path)
    assert "bad.fg" in str(info.value)
    assert re.search(reason, str(info.value)), str(info.value)
    assert isinstance(info.value, ValueError) and isinstance(info.value, RuntimeError)


def test_load_of_a_malformed_file_object_raises_checkpoint_error():
    with pytest.raises(CheckpointError, match="not a valid fluxgrad checkpoint"):
        fg.load(io.BytesIO(b"not a zip"))


def test_load_of_a_missing_file_raises_file_not_found(tmp_path):
    with pytest.raises(FileNotFoundError):
        fg.load(tmp_path / "missing.fg")


def _zeros_bomb(nbytes):
    """A small deflated archive whose one array is `nbytes` of zeros."""
    out = io.BytesIO()
    header = io.BytesIO()
    np.lib.format.write_array_header_1_0(
        header, {"descr": "|u1", "fortran_order": False, "shape": (nbytes,)})
    structure = io.BytesIO()
    np.save(structure, np.frombuffer(b'{"format": "fluxgrad-1", "root": {"ndarray": "x"}}',
                                     np.uint8))
    with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_DEFLATED) as z:
        z.writestr("__structure__.npy", structure.getvalue())
        with z.open("x.npy", "w", force_zip64=True) as f:
            f.write(header.getvalue())
            for start in range(0, nbytes, 1 << 20):
                f.write(bytes(min(1 << 20, nbytes - start)))
    return out.getvalue()


def test_load_refuses_arrays_larger_than_max_bytes(tmp_path):
    path = tmp_path / "bomb.fg"
    path.write_bytes(_zeros_bomb(20 << 20))
    assert path.stat().st_size < 100_000
    with pytest.raises(CheckpointError, match="more than max_bytes=1000000.*max_bytes="):
        fg.load(path, max_bytes=1_000_000)
    assert fg.load(path, max_bytes=30 << 20).shape == (20 << 20,)


def test_load_refuses_a_small_file_declaring_gigabytes_by_default(tmp_path):
    data = bytearray(_zeros_bomb(1 << 10))
    # declare 1.5 GiB as the array entry's uncompressed size in the central directory
    struct.pack_into("<I", data, data.rfind(b"PK\x01\x02") + 24, 3 << 29)
    path = tmp_path / "bomb.fg"
    path.write_bytes(bytes(data))
    with pytest.raises(CheckpointError, match="would take 16106.* bytes in memory"):
        fg.load(path)


# --- optimizers ----------------------------------------------------------------------------------


OPTIONS = [
    ("SGD", {"lr": -1}), ("SGD", {"lr": 0.1, "momentum": -0.5}),
    ("SGD", {"lr": 0.1, "weight_decay": -1.0}), ("Adam", {"lr": -1e-3}),
    ("Adam", {"betas": (1.0, 0.9)}), ("Adam", {"betas": (0.9, -0.1)}), ("Adam", {"eps": -1e-8}),
    ("AdamW", {"weight_decay": -0.1}), ("RMSprop", {"alpha": -0.9}),
    ("RMSprop", {"momentum": -1}), ("Adagrad", {"lr_decay": -1}),
    ("Adagrad", {"initial_accumulator_value": -1}),
]


@pytest.mark.parametrize("name,options", OPTIONS, ids=[f"{n}-{list(o)[-1]}" for n, o in OPTIONS])
def test_optimizer_refuses_a_negative_option_as_torch_does(name, options, torch):
    with pytest.raises(ValueError) as expected:
        getattr(torch.optim, name)([torch.zeros(2, requires_grad=True)], **options)
    with pytest.raises(ValueError) as got:
        getattr(optim, name)([nn.Parameter(fg.zeros(2))], **options)
    assert str(got.value) == str(expected.value)


def test_optimizer_refuses_a_nan_learning_rate():
    with pytest.raises(ValueError, match="Invalid learning rate: nan"):
        optim.SGD([nn.Parameter(fg.zeros(2))], lr=float("nan"))


def test_optimizer_refuses_a_bad_option_in_an_added_group_and_keeps_its_groups():
    opt = optim.SGD([nn.Parameter(fg.zeros(2))], lr=0.1)
    with pytest.raises(ValueError, match="Invalid momentum value: -1"):
        opt.add_param_group({"params": [nn.Parameter(fg.zeros(3))], "momentum": -1})
    assert len(opt.param_groups) == 1


def test_same_parameter_in_two_groups_raises_as_torch_does():
    p = nn.Parameter(fg.zeros(2))
    with pytest.raises(ValueError, match="some parameters appear in more than one parameter group"):
        optim.SGD([{"params": [p]}, {"params": [p]}], lr=0.1)


def test_same_parameter_twice_in_a_group_warns_as_torch_does_and_is_updated_once():
    p = nn.Parameter(fg.zeros(2))
    with pytest.warns(UserWarning, match="duplicate parameters"):
        opt = optim.SGD([p, p], lr=0.1)
    p.grad = fg.ones(2)
    opt.step()
    assert p.tolist() == pytest.approx([-0.1, -0.1])


def _two_parameters(make):
    w, b = nn.Parameter(fg.ones(3, 4)), nn.Parameter(fg.ones(4))
    opt = make([w, b])
    w.grad, before = fg.full((3, 4), 0.5), (w.detach().numpy().copy(), b.detach().numpy().copy())
    return opt, w, b, before


@pytest.mark.parametrize("bad_grad", [lambda: fg.ones(3, 4), lambda: fg.ones(1),
                                      lambda: fg.ones(4, dtype=fg.float64)],
                         ids=["wrong_shape", "broadcastable_shape", "wrong_dtype"])
@pytest.mark.parametrize("make", [lambda ps: optim.SGD(ps, lr=0.1, momentum=0.9),
                                  lambda ps: optim.Adam(ps, lr=0.1)], ids=["sgd", "adam"])
def test_step_with_one_bad_gradient_updates_no_parameter(make, bad_grad):
    opt, w, b, (w0, b0) = _two_parameters(make)
    with pytest.raises((ValueError, RuntimeError, TypeError), match="shape|size|dtype|type"):
        b.grad = bad_grad()  # refused here (as PyTorch does), or else by step()
        opt.step()
    np.testing.assert_array_equal(w.detach().numpy(), w0)
    np.testing.assert_array_equal(b.detach().numpy(), b0)
    assert w.grad.tolist() == np.full((3, 4), 0.5).tolist() and opt.state == {}


def test_step_with_a_bad_gradient_names_the_parameter_and_both_shapes():
    opt, w, b, _ = _two_parameters(lambda ps: optim.SGD(ps, lr=0.1))
    b.grad = fg.ones(4)
    b.grad.data = fg.ones(1)  # swaps the gradient's array, past any check on assignment
    with pytest.raises(ValueError, match=r"parameter 1 in group 0 has shape \[1\].*shape \[4\]"):
        opt.step()


def _adam_state():
    p = nn.Parameter(fg.ones(3))
    opt = optim.Adam([p], lr=0.1)
    p.grad = fg.ones(3)
    opt.step()
    return opt, p


@pytest.mark.parametrize("entry,value,error,words", [
    ("exp_avg", [0.1, 0.2, 0.3], TypeError, "'exp_avg' of parameter 0 is a list; it should be a "
                                            "tensor"),
    ("exp_avg", np.zeros(3), TypeError, "is a ndarray; it should be a tensor"),
    ("exp_avg", fg.zeros(4), ValueError, r"has shape \[4\], the parameter has \[3\]"),
    ("step", "one", TypeError, "'step' of parameter 0 is a str; it should be a number"),
    ("momentum_buffer", fg.zeros(3), ValueError, "saved from another optimizer"),
])
def test_load_state_dict_with_a_bad_entry_changes_nothing(entry, value, error, words):
    opt, p = _adam_state()
    saved = opt.state_dict()
    saved["state"][0][entry] = value
    saved["param_groups"][0]["lr"] = 0.5
    state = opt.state[p]
    before = {key: np.copy(value) for key, value in state.items()}
    with pytest.raises(error, match=words):
        opt.load_state_dict(saved)
    assert opt.param_groups[0]["lr"] == 0.1 and opt.state[p] is state
    assert state.keys() == before.keys()
    for key, value in before.items():
        np.testing.assert_array_equal(state[key], value)


def test_load_state_dict_with_a_negative_learning_rate_changes_nothing():
    opt, _ = _adam_state()
    saved = opt.state_dict()
    saved["param_groups"][0]["lr"] = -1.0
    with pytest.raises(ValueError, match="parameter group 0: Invalid learning rate: -1.0"):
        opt.load_state_dict(saved)
    assert opt.param_groups[0]["lr"] == 0.1


# --- tensors -------------------------------------------------------------------------------------

@pytest.mark.parametrize("make", [lambda m: m.ones(3, requires_grad=True),
                                  lambda m: m.ones(3, requires_grad=True) * 2],
                         ids=["leaf", "non_leaf"])
def test_numpy_of_a_tensor_that_requires_grad_raises_as_torch_does(make, torch):
    with pytest.raises(RuntimeError) as expected:
        make(torch).numpy()
    x = make(fg)
    with pytest.raises(RuntimeError) as got:
        x.numpy()
    assert str(got.value) == str(expected.value)
    assert x.detach().numpy().tolist() == x.data.numpy().tolist() == fg.tensor(x).tolist()


# --- ops -----------------------------------------------------------------------------------------

@pytest.mark.parametrize("args", [(0, 10, 0), (0, 10, -1), (5, 0), (0, float("inf"))],
                         ids=["zero_step", "wrong_sign", "reversed", "infinite"])
def test_arange_with_an_impossible_range_raises_as_torch_does(args, torch):
    with pytest.raises(RuntimeError) as expected:
        torch.arange(*args)
    with pytest.raises(RuntimeError) as got:
        fg.arange(*args)
    assert str(expected.value) in str(got.value)


@pytest.mark.parametrize("call,words", [
    (lambda F: F.max_pool2d(fg.ones(1, 1, 4, 4), 0), "max_pool2d: kernel_size must be positive"),
    (lambda F: F.max_pool2d(fg.ones(1, 1, 4, 4), (2, -1)), "kernel_size must be positive"),
    (lambda F: F.max_pool2d(fg.ones(1, 1, 4, 4), 2, stride=0), "stride must be positive"),
    (lambda F: F.max_pool2d(fg.ones(1, 1, 4, 4), 2, dilation=0), "dilation must be positive"),
    (lambda F: F.max_pool2d(fg.ones(1, 1, 4, 4), 2, padding=-1), "padding must be non-negative"),
    (lambda F: F.avg_pool2d(fg.ones(1, 1, 4, 4), 0), "avg_pool2d: kernel_size must be positive"),
    (lambda F: F.avg_pool2d(fg.ones(1, 1, 4, 4), 2, divisor_override=0),
     "divisor_override must not be zero"),
    (lambda F: F.max_pool1d(fg.ones(1, 1, 4), 0), "max_pool1d: kernel_size must be positive"),
    (lambda F: F.avg_pool1d(fg.ones(1, 1, 4), 2, stride=0), "avg_pool1d: stride must be positive"),
    (lambda F: F.adaptive_avg_pool2d(fg.ones(1, 1, 4, 4), -1), "output_size must be non-negative"),
], ids=["max0", "max_negative", "max_stride0", "max_dilation0", "max_padding", "avg0",
        "avg_divisor0", "max1d0", "avg1d_stride0", "adaptive_negative"])
def test_pooling_with_an_empty_window_raises_a_clear_error(call, words):
    with pytest.raises(ValueError, match=words):
        call(fg.nn.functional)


def test_adaptive_pooling_to_size_zero_is_empty_as_in_torch(torch):
    out = fg.nn.functional.adaptive_avg_pool2d(fg.ones(1, 2, 4, 4), 0)
    assert out.shape == tuple(torch.nn.functional.adaptive_avg_pool2d(torch.ones(1, 2, 4, 4),
                                                                      0).shape)


@pytest.mark.parametrize("call,op", [
    (lambda m: m.ones(3, 4) + m.ones(4, 3), "add"),
    (lambda m: m.ones(3, 4) * m.ones(3), "mul"),
    (lambda m: m.ones(2, 3, 4) - m.ones(5, 4), "sub"),
    (lambda m: m.maximum(m.ones(3), m.ones(2)), "maximum"),
    (lambda m: m.ones(3, requires_grad=True) / m.ones(4), "div"),
], ids=["add", "mul", "sub", "maximum", "div_recorded"])
def test_broadcast_mismatch_names_the_op_and_shapes_and_is_a_runtime_error(call, op, torch):
    with pytest.raises(RuntimeError) as expected:
        call(torch)
    with pytest.raises(RuntimeError) as got:
        call(fg)
    assert isinstance(got.value, ValueError)  # what fluxgrad raised before: both catch it
    message = str(got.value)
    assert message.startswith(f"{op}: shapes ") and "don't broadcast" in message
    assert str(expected.value).lower() in message.lower()  # the same dimension as torch's


def test_broadcast_mismatch_in_place_changes_nothing():
    x = fg.ones(2, 3, 4)
    with pytest.raises(RuntimeError, match=r"add: shapes \[2, 3, 4\] and \[4, 3\]"):
        x.add_(fg.ones(4, 3))
    assert x.tolist() == np.ones((2, 3, 4)).tolist() and x._version == 0


# --- input PyTorch accepts: unbatched [C, H, W] / [C, L] -----------------------------------------

UNBATCHED = {
    "conv2d": (lambda F, x, w: F.conv2d(x, w[0], w[1], padding=1), (3, 6, 5), [(2, 3, 3, 3), (2,)]),
    "conv1d": (lambda F, x, w: F.conv1d(x, w[0], w[1], stride=2), (3, 7), [(2, 3, 3), (2,)]),
    "conv_transpose2d": (lambda F, x, w: F.conv_transpose2d(x, w[0], stride=2), (3, 4, 4),
                         [(3, 2, 3, 3)]),
    "conv_transpose1d": (lambda F, x, w: F.conv_transpose1d(x, w[0]), (3, 4), [(3, 2, 3)]),
    "max_pool2d": (lambda F, x, w: F.max_pool2d(x, 2, padding=1), (3, 6, 5), []),
    "max_pool1d": (lambda F, x, w: F.max_pool1d(x, 3, 2), (3, 7), []),
    "avg_pool2d": (lambda F, x, w: F.avg_pool2d(x, 3, 2, 1, count_include_pad=False), (3, 6, 5),
                   []),
    "avg_pool1d": (lambda F, x, w: F.avg_pool1d(x, 2), (3, 7), []),
    "adaptive_avg_pool2d": (lambda F, x, w: F.adaptive_avg_pool2d(x, (4, 3)), (3, 6, 5), []),
    "adaptive_avg_pool1d": (lambda F, x, w: F.adaptive_avg_pool1d(x, 3), (3, 7), []),
}


@pytest.mark.parametrize("name", UNBATCHED)
def test_unbatched_input_matches_torch_with_gradients(name, torch):
    call, shape, weight_shapes = UNBATCHED[name]
    rng = np.random.default_rng(0)
    arrays = [rng.standard_normal(s) for s in [shape] + weight_shapes]
    xs = [fg.tensor(a, dtype=fg.float64, requires_grad=True) for a in arrays]
    ts = [torch.tensor(a, requires_grad=True) for a in arrays]
    out, t_out = call(fg.nn.functional, xs[0], xs[1:]), call(torch.nn.functional, ts[0], ts[1:])
    np.testing.assert_allclose(out.detach().numpy(), t_out.detach().numpy(), rtol=1e-10,
                               atol=1e-12)
    direction = rng.standard_normal(out.shape)
    (out * fg.tensor(direction)).sum().backward()
    (t_out * torch.tensor(direction)).sum().backward()
    for x, t in zip(xs, ts):
        np.testing.assert_allclose(x.grad.numpy(), t.grad.numpy(), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("make,shape", [
    (lambda m: m.Conv2d(3, 2, 3), (3, 5, 5)), (lambda m: m.Conv1d(3, 2, 2), (3, 5)),
    (lambda m: m.ConvTranspose2d(3, 2, 3), (3, 4, 4)), (lambda m: m.MaxPool2d(2), (3, 4, 4)),
    (lambda m: m.AvgPool1d(2), (3, 4)), (lambda m: m.AdaptiveAvgPool2d(2), (3, 5, 5)),
], ids=["Conv2d", "Conv1d", "ConvTranspose2d", "MaxPool2d", "AvgPool1d", "AdaptiveAvgPool2d"])
def test_modules_accept_unbatched_input_as_torch_does(make, shape, torch):
    assert make(nn)(fg.ones(*shape)).shape == tuple(make(torch.nn)(torch.ones(*shape)).shape)


def test_conv2d_of_a_2d_input_names_both_accepted_layouts():
    with pytest.raises(ValueError, match=r"3-d \(unbatched\) \[C, H, W\] or 4-d \(batched\) "
                                         r"\[N, C, H, W\] input, got shape \[2, 3\]"):
        fg.nn.functional.conv2d(fg.ones(2, 3), fg.ones(1, 1, 1, 1))


# --- losses --------------------------------------------------------------------------------------

@pytest.mark.parametrize("target", [[0.0, 1.5, 1.0], [0.0, -0.5, 1.0], [0.0, float("nan"), 1.0]],
                         ids=["above_one", "below_zero", "nan"])
def test_binary_cross_entropy_with_a_target_outside_0_1_raises_as_torch_does(target, torch):
    with pytest.raises(RuntimeError, match="target should be between 0 and 1"):
        torch.nn.functional.binary_cross_entropy(torch.full((3,), 0.5), torch.tensor(target))
    p = fg.full((3,), 0.5, requires_grad=True)
    with pytest.raises(RuntimeError, match=r"binary_cross_entropy: the target must be "
                                           r"probabilities in \[0, 1\]") as info:
        nn.BCELoss()(p, fg.tensor(target))
    assert isinstance(info.value, ValueError) and p.grad is None


@pytest.mark.parametrize("name", ["binary_cross_entropy", "binary_cross_entropy_with_logits"])
def test_binary_cross_entropy_of_different_shapes_raises_as_torch_does(name, torch):
    with pytest.raises(ValueError, match=r"(?i)target size.*4.*input size.*4, 1"):
        getattr(torch.nn.functional, name)(torch.full((4, 1), 0.5), torch.ones(4))
    with pytest.raises(ValueError, match=rf"{name}: Using a target size \(\[4\]\) that is "
                                         r"different to the input size \(\[4, 1\]\)"):
        getattr(fg.nn.functional, name)(fg.full((4, 1), 0.5), fg.ones(4))


@pytest.mark.parametrize("name", ["mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss"])
def test_regression_loss_of_shapes_that_broadcast_warns_as_torch_does(name, torch):
    with pytest.warns(UserWarning, match="Using a target size") as expected:
        t_loss = getattr(torch.nn.functional, name)(torch.ones(4, 1), torch.arange(4.0))
    with pytest.warns(UserWarning, match=rf"{name}: Using a target size \(\[4\]\) that is "
                                         r"different to the input size \(\[4, 1\]\)") as got:
        loss = getattr(fg.nn.functional, name)(fg.ones(4, 1), fg.arange(4.0))
    assert got[0].filename == __file__  # points at the caller, as torch's does
    assert "incorrect results due to broadcasting" in str(expected[0].message)
    assert loss.item() == pytest.approx(t_loss.item())  # still computed, broadcast to (4, 4)


def test_mse_loss_module_of_matching_shapes_does_not_warn(recwarn):
    nn.MSELoss()(fg.ones(4, 1), fg.ones(4, 1))
    assert not [w for w in recwarn if issubclass(w.category, UserWarning)]


# --- learning-rate schedulers --------------------------------------------------------------------

@pytest.mark.parametrize("make,words", [
    (lambda S, o: S.StepLR(o, 0), "StepLR: step_size must be a positive integer, got 0"),
    (lambda S, o: S.StepLR(o, -2), "step_size must be a positive integer, got -2"),
    (lambda S, o: S.CosineAnnealingLR(o, 0), "T_max must be a positive integer, got 0"),
    (lambda S, o: S.LinearLR(o, total_iters=0), "total_iters must be a positive integer"),
    (lambda S, o: S.LinearLR(o, start_factor=0), "Starting multiplicative factor expected"),
    (lambda S, o: S.LinearLR(o, end_factor=2), "Ending multiplicative factor expected"),
    (lambda S, o: S.OneCycleLR(o, 0.1, total_steps=0), "total_steps must be a positive integer"),
    (lambda S, o: S.OneCycleLR(o, 0.1, 10, pct_start=1.5), "between 0 and 1 pct_start"),
    (lambda S, o: S.OneCycleLR(o, 0.1, 10, anneal_strategy="cosine"), "'cos' or 'linear'"),
], ids=["step0", "step_negative", "cosine0", "linear0", "linear_start", "linear_end",
        "onecycle0", "onecycle_pct", "onecycle_strategy"])
def test_scheduler_with_an_impossible_schedule_raises_and_leaves_the_lr(make, words):
    opt = optim.SGD([nn.Parameter(fg.zeros(1))], lr=0.1)
    with pytest.raises(ValueError, match=words):
        make(optim.lr_scheduler, opt)
    assert opt.param_groups[0]["lr"] == 0.1
