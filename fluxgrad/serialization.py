"""`save` / `load`: tensors, state dicts and optimizer state in a safe file format.

The file is a NumPy .npz archive: one entry per array, plus a JSON description
of the containing structure (dicts, lists, tuples, Sizes, numbers, strings). Nothing in
it is pickled, so a file can't run code. Tensors that share memory (views of one tensor, a
weight tied to two layers) are stored once, as PyTorch stores their storage once, and come
back sharing it, with their strides.

What that format can't hold (a whole `nn.Module`, a set, an arbitrary object) is pickled
instead, as PyTorch's `torch.save` does, into one entry of the same archive. As with PyTorch's
`weights_only=True` default, `load` refuses to unpickle it unless called with
`weights_only=False`, since unpickling can run code from the file.

`save` checks that everything can be stored before it writes a byte, then writes
beside the target, flushes, fsyncs and renames over it: a save that fails midway
(a full disk, an interrupted process) leaves the previous file as it was.

`load` trusts nothing in the file: every array's declared size is checked against
its archive entry and the total against `max_bytes` before anything is allocated,
and every malformed file (truncated, empty, foreign, deeply nested, ...) raises
`CheckpointError`, saying why.
"""
import contextlib
import io
import json
import os
import pickle
import secrets
import stat
import zipfile
import zlib
from collections import OrderedDict

import numpy as np

from ._core.errors import MissingDirectory
from ._core.size import Size
from ._core.tensor import Tensor, _STORED

__all__ = ["save", "load", "CheckpointError", "UnsafeCheckpointError"]

_STRUCTURE = "__structure__"
_FORMAT = "fluxgrad-1"
_PICKLED = "fluxgrad-pickle-1"
_MAX_DEPTH = 100
_DEFAULT_MAX_BYTES = 1 << 30


class CheckpointError(ValueError, RuntimeError):
    """A file `load` can't read: not a valid fluxgrad checkpoint (the message says why)."""


class EmptyCheckpoint(CheckpointError, EOFError):
    """An empty file given to `load` (PyTorch: EOFError)."""


class UnsafeCheckpointError(CheckpointError, pickle.UnpicklingError):
    """A file holding pickled objects, loaded without `weights_only=False`."""


def save(obj, f, pickle_module=pickle, pickle_protocol=pickle.DEFAULT_PROTOCOL, **kwargs):
    """Write `obj` to `f`, a path or a binary file object. A path is replaced atomically.
    Tensors, arrays, numbers, strings and None in nested dicts/lists/tuples go into the safe
    format; anything else is pickled (see the module docstring)."""
    arrays = {}
    try:
        root = _encode(obj, arrays, "obj", 0, {})
        structure = {"format": _FORMAT, "root": root}
    except (TypeError, ValueError):  # not representable: an object, or a container in a cycle
        try:
            pickled = pickle_module.dumps(obj, protocol=pickle_protocol)
        except (pickle.PicklingError, TypeError, AttributeError) as e:
            raise TypeError(f"save: can't store {type(obj).__name__} objects: it holds something "
                            f"that can't be pickled ({e}); save its state_dict() instead"
                            ) from None
        arrays = {"pickle": np.frombuffer(pickled, np.uint8)}
        structure = {"format": _PICKLED, "root": {"ndarray": "pickle"}}
    structure = json.dumps(structure)
    arrays[_STRUCTURE] = np.frombuffer(structure.encode("utf-8"), np.uint8)
    if not _is_path(f):
        buffer = io.BytesIO()
        np.savez(buffer, allow_pickle=False, **arrays)
        f.write(buffer.getvalue())
        return
    _write_beside(os.fsdecode(f), lambda out: np.savez(out, allow_pickle=False, **arrays))


def load(f, map_location=None, pickle_module=pickle, *, weights_only=None, max_bytes=None,
         **kwargs):
    """Read back what `save` wrote: tensors come back as tensors, containers as containers;
    pickled objects only with `weights_only=False` (otherwise `UnsafeCheckpointError`).

    The arrays may take at most `max_bytes` bytes in memory (default: the file's size or
    1 GiB, whichever is larger); raise it to load a larger, trusted, compressed archive.
    """
    name = repr(os.fsdecode(f)) if _is_path(f) else f"the file object {f!r}"
    data = None if _is_path(f) else f.read()
    with (open(f, "rb") if data is None else io.BytesIO(data)) as source:
        size = os.fstat(source.fileno()).st_size if data is None else len(data)
        limit = max(size, _DEFAULT_MAX_BYTES) if max_bytes is None else max_bytes
        if size == 0:
            raise EmptyCheckpoint(f"{name} is not a valid fluxgrad checkpoint: it is empty, not "
                                  "a readable .npz archive (was the file only created, or its "
                                  "save interrupted?)")
        try:
            with zipfile.ZipFile(source) as archive:
                arrays = _Archive(archive, limit)
                root, pickled = _read_structure(arrays)
                if pickled and weights_only is not False:
                    raise UnsafeCheckpointError(
                        f"{name} holds pickled Python objects (saved with fluxgrad.save of an "
                        "object such as a whole model); unpickling can run code from the file, "
                        "so load refuses it by default, as torch.load(weights_only=True) does. "
                        "If you trust where the file came from, pass weights_only=False; "
                        "better, save and load model.state_dict()")
                value = _decode(root, arrays, "root", 0)
        except UnsafeCheckpointError:
            raise
        except CheckpointError as e:
            raise CheckpointError(f"{name} is not a valid fluxgrad checkpoint: {e}") from None
        except (zipfile.BadZipFile, zipfile.LargeZipFile, zlib.error, EOFError, OSError,
                ValueError, TypeError, KeyError, NotImplementedError, OverflowError) as e:
            raise CheckpointError(f"{name} is not a valid fluxgrad checkpoint: it is not a "
                                  "readable .npz archive (truncated, or not written by "
                                  f"fluxgrad.save): {type(e).__name__}: {e}") from e
    return pickle_module.loads(value.tobytes()) if pickled else value


def _is_path(f):
    return isinstance(f, (str, bytes)) or hasattr(f, "__fspath__")


def _write_beside(path, write):
    """Write to a new file next to `path`, flush and fsync it, then rename it over `path`."""
    target = os.path.realpath(path)
    directory, base = os.path.split(target)
    if not os.path.isdir(directory):
        raise MissingDirectory(f"save: the directory {directory!r} does not exist; create it "
                               "first (os.makedirs) or save elsewhere")
    temp = os.path.join(directory, f".{base}.{secrets.token_hex(4)}.tmp")
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), 0o666)
    try:
        with os.fdopen(fd, "wb") as out:
            write(out)
            out.flush()
            os.fsync(out.fileno())
        with contextlib.suppress(FileNotFoundError):
            os.chmod(temp, stat.S_IMODE(os.stat(target).st_mode))
        os.replace(temp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise
    _fsync_directory(directory)


def _fsync_directory(directory):
    """Make the rename itself durable (POSIX; elsewhere a no-op)."""
    if not hasattr(os, "O_DIRECTORY"):
        return
    with contextlib.suppress(OSError):
        fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def _memory(data):
    """The array whose memory `data` views (`data` itself if it owns its memory), when `data`
    can be stored as a window into it: the same dtype, and C-contiguous (as it loads back)."""
    root = data
    while isinstance(root.base, np.ndarray):
        root = root.base
    if root.dtype != data.dtype or not root.flags.c_contiguous:
        return None
    return root


def _encode_tensor(obj, arrays, roots):
    """A tensor: the key of its memory's array (stored once per save) and, for a view, where
    in that array it lies (offset, shape and strides, in elements)."""
    from .nn.parameter import Parameter
    node = {"requires_grad": obj.requires_grad, "parameter": isinstance(obj, Parameter)}
    data = obj._data
    root = _memory(data)
    if root is None:
        node["tensor"] = f"a{len(arrays)}"
        arrays[node["tensor"]] = np.ascontiguousarray(data)
        return node
    if id(root) not in roots:
        roots[id(root)] = (f"a{len(arrays)}", root)  # (root kept alive: its id stays unique)
        arrays[roots[id(root)][0]] = root
    node["tensor"] = roots[id(root)][0]
    if data is not root:
        start = data.__array_interface__["data"][0] - root.__array_interface__["data"][0]
        size = data.itemsize
        node["view"] = {"offset": start // size, "shape": list(data.shape),
                        "strides": [stride // size for stride in data.strides]}
    return node


def _encode(obj, arrays, where, depth, roots):
    if depth > _MAX_DEPTH:
        raise ValueError(f"save: the object is nested more than {_MAX_DEPTH} levels deep (at "
                         f"{where[:200]}...); is it a container that holds itself?")
    if isinstance(obj, Tensor):
        return _encode_tensor(obj, arrays, roots)
    if isinstance(obj, Size):
        return {"size": [int(n) for n in obj]}
    if isinstance(obj, np.ndarray):
        if obj.dtype.hasobject:
            raise TypeError(f"save: can't store an array of Python objects (dtype {obj.dtype}, "
                            f"at {where}); convert it to a numeric dtype")
        key = f"a{len(arrays)}"
        arrays[key] = obj
        return {"ndarray": key}
    if isinstance(obj, np.generic) and not isinstance(obj.item(), np.generic):
        obj = obj.item()
    if obj is None or isinstance(obj, (bool, int, float, str)):
        return obj
    if isinstance(obj, dict):
        items = []
        for k, v in obj.items():
            if not isinstance(k, (str, int, float, bool)) and k is not None:
                raise TypeError(f"save: dict keys must be strings or numbers, got "
                                f"{type(k).__name__} at {where}")
            items.append([k, _encode(v, arrays, f"{where}[{k!r}]", depth + 1, roots)])
        return {"dict": items, "ordered": True} if isinstance(obj, OrderedDict) else {"dict": items}
    if isinstance(obj, (list, tuple)):
        kind = "list" if isinstance(obj, list) else "tuple"
        return {kind: [_encode(v, arrays, f"{where}[{i}]", depth + 1, roots)
                       for i, v in enumerate(obj)]}
    raise TypeError(f"save: can't store a {type(obj).__name__} (at {where}); save tensors, "
                    "arrays, numbers, strings and dicts/lists/tuples of them, e.g. "
                    "model.state_dict()")


class _Archive:
    """The arrays of an .npz archive, each size checked before anything is allocated."""

    def __init__(self, archive, limit):
        self._zip = archive
        self._entries = {}
        for info in archive.infolist():
            if not info.filename.endswith(".npy"):
                raise CheckpointError(f"it holds {info.filename!r}, which is not an array")
            self._entries[info.filename[:-4]] = info
        total = sum(info.file_size for info in self._entries.values())
        if total > limit:
            raise CheckpointError(
                f"its arrays would take {total} bytes in memory, more than max_bytes={limit}; "
                "if you trust the file, pass fluxgrad.load(..., max_bytes=<a larger number>)")
        self._read = {}  # the arrays read so far: tensors sharing one share it
        self._shared = set()

    def __contains__(self, key):
        return key in self._entries

    def array(self, key, where, shared=False):
        """The array `key`; one that tensors share (`shared`) may be named again by tensors."""
        info = self._entries.get(key) if isinstance(key, str) else None
        if info is None:
            raise CheckpointError(f"{where} names the array {key!r}, which the archive lacks")
        if key in self._read:
            if not (shared and key in self._shared):
                raise CheckpointError(f"{where} names the array {key!r} a second time")
            return self._read[key]
        if shared:
            self._shared.add(key)
        with self._zip.open(info) as entry:
            version = np.lib.format.read_magic(entry)
            if version == (1, 0):
                shape, fortran_order, dtype = np.lib.format.read_array_header_1_0(entry)
            elif version == (2, 0):
                shape, fortran_order, dtype = np.lib.format.read_array_header_2_0(entry)
            else:
                raise CheckpointError(f"the array {key!r} has .npy version {version}, which "
                                      "fluxgrad.save never writes")
            if dtype.hasobject:
                raise CheckpointError(f"the array {key!r} holds pickled Python objects, which "
                                      "fluxgrad.save never writes and load never unpickles")
            declared = int(np.prod(shape, dtype=object)) * dtype.itemsize
            if entry.tell() + declared != info.file_size:
                raise CheckpointError(
                    f"the array {key!r} declares shape {list(shape)} of {dtype} ({declared} "
                    f"bytes) but its archive entry holds {info.file_size - entry.tell()} bytes")
        with self._zip.open(info) as entry:
            self._read[key] = np.lib.format.read_array(entry, allow_pickle=False)
        return self._read[key]


def _read_structure(arrays):
    if _STRUCTURE not in arrays:
        raise CheckpointError("it has no structure entry, so it was not written by "
                              "fluxgrad.save")
    raw = arrays.array(_STRUCTURE, "the archive")
    if raw.dtype != np.uint8 or raw.ndim != 1:
        raise CheckpointError(f"its structure entry is a {raw.dtype} array of shape "
                              f"{list(raw.shape)}, not the bytes of a JSON text")
    try:
        structure = json.loads(raw.tobytes().decode("utf-8"))
    except UnicodeDecodeError as e:
        raise CheckpointError(f"its structure entry is not UTF-8 text ({e})") from None
    except RecursionError:
        raise CheckpointError("its structure entry is nested too deeply") from None
    except ValueError as e:
        raise CheckpointError(f"its structure entry is not valid JSON ({e})") from None
    if not isinstance(structure, dict) or "root" not in structure:
        raise CheckpointError("its structure entry is not a fluxgrad structure")
    if structure.get("format") not in (_FORMAT, _PICKLED):
        raise CheckpointError(f"unknown checkpoint format {structure.get('format')!r} "
                              f"(this fluxgrad reads {_FORMAT!r} and {_PICKLED!r})")
    return structure["root"], structure["format"] == _PICKLED


_KINDS = ("tensor", "ndarray", "dict", "list", "tuple", "size")


def _decode(node, arrays, where, depth):
    if depth > _MAX_DEPTH:
        raise CheckpointError(f"its structure is nested more than {_MAX_DEPTH} levels deep")
    if node is None or isinstance(node, (bool, int, float, str)):
        return node
    kinds = [k for k in _KINDS if isinstance(node, dict) and k in node]
    if len(kinds) != 1:
        raise CheckpointError(f"{where} is {_describe(node)}, not a value fluxgrad.save writes")
    kind, body = kinds[0], node[kinds[0]]
    if kind == "tensor":
        return _decode_tensor(node, arrays, where)
    if kind == "ndarray":
        return arrays.array(body, where)
    if kind == "size":
        if not (isinstance(body, list) and all(type(n) is int and n >= 0 for n in body)):
            raise CheckpointError(f"{where} is a Size of {_describe(body)}, not of sizes")
        return Size(body)
    if not isinstance(body, list):
        raise CheckpointError(f"{where} is a {kind} whose items are {_describe(body)}, not a list")
    if kind == "dict":
        out = OrderedDict() if node.get("ordered") is True else {}  # as saved
        for item in body:
            if not (isinstance(item, list) and len(item) == 2 and
                    (item[0] is None or isinstance(item[0], (bool, int, float, str)))):
                raise CheckpointError(f"{where} holds {_describe(item)} where a [key, value] "
                                      "pair belongs")
            out[item[0]] = _decode(item[1], arrays, f"{where}[{item[0]!r}]", depth + 1)
        return out
    items = [_decode(v, arrays, f"{where}[{i}]", depth + 1) for i, v in enumerate(body)]
    return items if kind == "list" else tuple(items)


def _decode_tensor(node, arrays, where):
    requires_grad, parameter = node.get("requires_grad", False), node.get("parameter", False)
    if not isinstance(requires_grad, bool) or not isinstance(parameter, bool):
        raise CheckpointError(f"{where} is a tensor whose requires_grad/parameter flags are not "
                              "true or false")
    data = arrays.array(node["tensor"], where, shared=True)
    if "view" in node:
        data = _window(data, node["view"], where)
    if data.dtype not in _STORED:
        raise CheckpointError(f"{where} is a tensor of dtype {data.dtype}, which fluxgrad tensors "
                              "don't hold")
    if requires_grad and data.dtype.kind != "f":
        raise CheckpointError(f"{where} is a {data.dtype} tensor marked requires_grad; only "
                              "floating point tensors can require gradients")
    if parameter:
        from .nn.parameter import Parameter
        return Parameter(data, requires_grad=requires_grad)
    return Tensor(data, requires_grad=requires_grad)


def _window(memory, view, where):
    """The view `view` describes into `memory`, checked to lie inside it."""
    fields = (view.get("offset"), view.get("shape"), view.get("strides")) if isinstance(
        view, dict) else (None, None, None)
    offset, shape, strides = fields
    if not (type(offset) is int and isinstance(shape, list) and isinstance(strides, list)
            and len(shape) == len(strides)
            and all(type(n) is int and n >= 0 for n in shape)
            and all(type(n) is int for n in strides)):
        raise CheckpointError(f"{where} is a view described by {_describe(view)}, not by an "
                              "offset, a shape and as many strides")
    if 0 not in shape:
        low = offset + sum((n - 1) * st for n, st in zip(shape, strides) if st < 0)
        high = offset + sum((n - 1) * st for n, st in zip(shape, strides) if st > 0)
        if low < 0 or high >= memory.size:
            raise CheckpointError(f"{where} is a view reaching elements {low} to {high} of an "
                                  f"array of {memory.size}")
    flat = memory.reshape(-1)
    return np.lib.stride_tricks.as_strided(flat[offset:] if 0 not in shape else flat[:0],
                                           shape, [st * memory.itemsize for st in strides])


def _describe(value):
    text = repr(value)
    return f"the {type(value).__name__} {text if len(text) < 60 else text[:57] + '...'}"
