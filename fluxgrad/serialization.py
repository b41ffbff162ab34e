"""`save` / `load`: tensors, state dicts and optimizer state in a safe file format.

The file is a NumPy .npz archive: one entry per array, plus a JSON description
of the containing structure (dicts, lists, tuples, numbers, strings). Loading
uses `allow_pickle=False`, so a file can't run code.
"""
import io
import json
from collections import OrderedDict

import numpy as np

from ._core.tensor import Tensor

__all__ = ["save", "load"]

_STRUCTURE = "__structure__"
_FORMAT = "fluxgrad-1"


def save(obj, path, protocol=None, **kwargs):
    """Write `obj` (tensors, arrays, numbers, strings, None in nested dicts/lists/tuples) to `path`."""
    arrays = {}
    structure = {"format": _FORMAT, "root": _encode(obj, arrays, "obj")}
    arrays[_STRUCTURE] = np.frombuffer(json.dumps(structure).encode("utf-8"), np.uint8)
    if isinstance(path, (str, bytes)) or hasattr(path, "__fspath__"):
        with open(path, "wb") as f:
            np.savez(f, **arrays)
    else:
        np.savez(path, **arrays)


def load(path, **kwargs):
    """Read back what `save` wrote: tensors come back as tensors, containers as containers."""
    source = path if isinstance(path, (str, bytes)) or hasattr(path, "__fspath__") else \
        io.BytesIO(path.read())
    with np.load(source, allow_pickle=False) as archive:
        if _STRUCTURE not in archive.files:
            raise ValueError(f"{path!r} is not a fluxgrad checkpoint (no structure entry); "
                             "it was not written by fluxgrad.save")
        structure = json.loads(archive[_STRUCTURE].tobytes().decode("utf-8"))
        if structure.get("format") != _FORMAT:
            raise ValueError(f"{path!r}: unknown checkpoint format {structure.get('format')!r}")
        return _decode(structure["root"], archive)


def _encode(obj, arrays, where):
    if isinstance(obj, Tensor):
        key = f"a{len(arrays)}"
        arrays[key] = np.asarray(obj._data, order="C")
        from .nn.parameter import Parameter
        return {"tensor": key, "requires_grad": obj.requires_grad,
                "parameter": isinstance(obj, Parameter)}
    if isinstance(obj, np.ndarray):
        key = f"a{len(arrays)}"
        arrays[key] = obj
        return {"ndarray": key}
    if isinstance(obj, np.generic):
        return obj.item()
    if obj is None or isinstance(obj, (bool, int, float, str)):
        return obj
    if isinstance(obj, dict):
        items = []
        for k, v in obj.items():
            if not isinstance(k, (str, int, float, bool)) and k is not None:
                raise TypeError(f"save: dict keys must be strings or numbers, got "
                                f"{type(k).__name__} at {where}")
            items.append([k, _encode(v, arrays, f"{where}[{k!r}]")])
        return {"dict": items}
    if isinstance(obj, (list, tuple)):
        kind = "list" if isinstance(obj, list) else "tuple"
        return {kind: [_encode(v, arrays, f"{where}[{i}]") for i, v in enumerate(obj)]}
    raise TypeError(f"save: can't store a {type(obj).__name__} (at {where}); save tensors, "
                    "arrays, numbers, strings and dicts/lists/tuples of them, e.g. "
                    "model.state_dict()")


def _decode(node, archive):
    if not isinstance(node, dict):
        return node
    if "tensor" in node:
        data = archive[node["tensor"]]
        if node.get("parameter"):
            from .nn.parameter import Parameter
            return Parameter(data, requires_grad=node["requires_grad"])
        return Tensor(data, requires_grad=node["requires_grad"])
    if "ndarray" in node:
        return archive[node["ndarray"]]
    if "dict" in node:
        return OrderedDict((k, _decode(v, archive)) for k, v in node["dict"])
    if "list" in node:
        return [_decode(v, archive) for v in node["list"]]
    return tuple(_decode(v, archive) for v in node["tuple"])
