"""The Tensor: an ndarray plus its place in the autograd graph.

Ops and their operator methods are attached by `fluxgrad.ops` (see
`tensor_method`); this module knows no op.
"""
import numbers
import threading
import weakref
from array import array

import numpy as np

from . import dtypes
from .constructor import legacy_args
from .devices import CPU
from .errors import ArgumentError, DTypeError
from .grad_mode import state as _grad_state
from .inference_mode import active as _inference_active, is_inference_now
from .hooks import HookHandle
from .size import Size


class Tensor:
    __slots__ = ("_data", "_requires_grad", "_grad_fn", "_out_index", "_version_counter", "_grad",
                 "_hooks", "name", "_tangent", "_seed", "_view", "_view_version", "_inference",
                 "_post_accumulate_hooks", "_creation", "__weakref__")
    __array_ufunc__ = None  # ndarray (op) Tensor defers to Tensor's reflected operator
    __array_priority__ = 1000

    def __init__(self, *args, **kwargs):
        # Tensor itself (not a subclass), given anything but an array (the common, fast case)
        if type(self) is Tensor and (not args or type(args[0]) is not np.ndarray):
            args = legacy_args(args, kwargs)
        self._init(*args, **kwargs)

    def _init(self, data, dtype=None, requires_grad=False):
        self._data = as_array(data, dtype)
        self._grad_fn = None
        self._out_index = 0
        self._version_counter = None
        self._grad = None
        self._hooks = None
        self.name = None
        self._tangent = None
        self._requires_grad = False
        if _inference_active.count and is_inference_now():
            self._inference = True
        if requires_grad:
            self.requires_grad = True

    @classmethod
    def _make(cls, data, requires_grad=False, grad_fn=None, out_index=0, version=None):
        t = object.__new__(cls)
        t._data = data
        t._requires_grad = requires_grad
        t._grad_fn = grad_fn
        t._out_index = out_index
        t._version_counter = version
        t._grad = None
        t._hooks = None
        t.name = None
        t._tangent = None
        if _inference_active.count and is_inference_now():
            t._inference = True
        return t

    # --- inspection -------------------------------------------------------
    @property
    def data(self):
        return Tensor._make(self.detach().numpy(), version=self._counter())

    @data.setter
    def data(self, value):
        self._data = as_array(value, self.dtype)

    @property
    def shape(self):
        return _size(Size, self._data.shape)

    @property
    def ndim(self):
        return self._data.ndim

    @property
    def dtype(self):
        return dtypes.from_numpy_dtype(self._data.dtype)

    def is_floating_point(self):
        return self._data.dtype.kind == "f"

    def is_complex(self):
        return self._data.dtype.kind == "c"

    device = place = CPU  # the only device; here so that PyTorch code reading it runs
    is_cuda = False

    def size(self, dim=None):
        """The shape (PyTorch's `size()`), or the length of dimension `dim`."""
        return _size(Size, self._data.shape) if dim is None else self._data.shape[dim]

    def numel(self):
        return self._data.size

    def dim(self):
        return self._data.ndim

    def __len__(self):
        if not self._data.ndim:
            raise TypeError("len() of a 0-d tensor")
        return self._data.shape[0]

    def numpy(self, *, force=False):
        """The data as an ndarray (shared, not copied; never part of the graph). Refused, as
        PyTorch refuses it, for a tensor that requires grad (a write through the array would
        go unseen by autograd) unless `force` (then as tensor.detach().numpy())."""
        if self._requires_grad and not force:
            raise RuntimeError("Can't call numpy() on Tensor that requires grad. "
                               "Use tensor.detach().numpy() instead.")
        return self._data

    def item(self):
        if self._data.size != 1:
            raise ArgumentError(f"item() needs a tensor with one element, this one has shape "
                                f"{list(self.shape)} ({self._data.size} elements)")
        return self._data.item()

    def tolist(self):
        return self._data.tolist()

    def __array__(self, dtype=None, copy=None):
        if copy:  # np.array(t) copies, as for PyTorch's tensors
            return np.array(self._data, dtype=dtype, copy=True)
        return self._data if dtype is None else self._data.astype(dtype)

    def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
        """Export the data through DLPack (shared, never part of the graph)."""
        kwargs = {k: v for k, v in (("max_version", max_version), ("dl_device", dl_device),
                                    ("copy", copy)) if v is not None}
        return self._data.__dlpack__(stream=stream, **kwargs)

    def __dlpack_device__(self):
        return self._data.__dlpack_device__()

    def __bool__(self):
        if self._data.size != 1:
            raise RuntimeError(f"The truth value of a tensor with {self._data.size} elements "
                               "is ambiguous: use .any() or .all()")
        return bool(self._data)

    def __float__(self):
        return float(self.item())

    def __int__(self):
        return int(self.item())

    def __index__(self):
        if self._data.dtype.kind not in "iub" or self._data.size != 1:
            raise TypeError("only integer tensors of a single element can be used as an index")
        return int(self._data.reshape(()))

    __hash__ = object.__hash__  # by identity (== is elementwise)

    def __iter__(self):
        if not self._data.ndim:
            raise TypeError("iteration over a 0-d tensor")
        return (self[i] for i in range(self._data.shape[0]))

    def __repr__(self):
        return format_tensor(self)

    def __format__(self, spec):
        if self._data.ndim == 0 and (spec or type(self) is Tensor):  # f"{t}" of a 0-d tensor
            return format(self._data.item(), spec)                  # is its number, as PyTorch
        if spec:
            raise TypeError(f"unsupported format string {spec!r} passed to Tensor.__format__: "
                            f"a tensor of shape {list(self.shape)} has no number format; format "
                            "its elements (e.g. t.item() of a one-element tensor), or use str(t)")
        return str(self)

    # --- autograd state ---------------------------------------------------
    @property
    def _version(self):
        """How many in-place writes this tensor (and the views sharing its memory) has seen."""
        counter = self._version_counter
        return 0 if counter is None else counter[0]

    def _counter(self):
        """The version counter, made when first needed (most tensors never need one)."""
        counter = self._version_counter
        if counter is None:  # (so not a view: `_view` is read wherever a counter is)
            counter = self._version_counter = new_version_counter()
            self._view = None
        return counter

    @property
    def grad(self):
        return self._grad

    @grad.setter
    def grad(self, value):
        if value is not None:
            if not isinstance(value, Tensor):
                raise TypeError(f"assigned grad expected to be a Tensor or None but got grad of "
                                f"type {type(value).__name__}; wrap it: fluxgrad.tensor(...)")
            if value._data.shape != self._data.shape:
                raise RuntimeError(f"assigned grad has data of a different size: shape "
                                   f"{list(value.shape)}, but the tensor has shape "
                                   f"{list(self.shape)}")
            if value._data.dtype != self._data.dtype:
                raise RuntimeError(f"assigned grad has data of a different type: {value.dtype}, "
                                   f"but the tensor is {self.dtype}; convert it with "
                                   f".to({self.dtype})")
        self._grad = value

    @property
    def requires_grad(self):
        return self._requires_grad

    @requires_grad.setter
    def requires_grad(self, flag):
        flag = bool(flag)
        if flag and self._data.dtype.kind not in "fc":
            raise RuntimeError(f"Only Tensors of floating point and complex dtype can require "
                               f"gradients; this one is "
                               f"{self.dtype}. Convert it first, e.g. x.astype(fluxgrad.float32).")
        if not flag and self._grad_fn is not None:
            raise RuntimeError("requires_grad can only be turned off on a leaf tensor; use "
                               "detach() to get a tensor that stops the gradient")
        if flag and _inference_active.entered and not is_inference_now() and \
                self.is_inference():
            raise RuntimeError("Setting requires_grad=True on an inference tensor (made under "
                               "inference_mode) outside inference mode is not allowed; make a "
                               "normal tensor of it first: x = x.clone()")
        self._requires_grad = flag

    @property
    def stop_gradient(self):
        return not self._requires_grad

    @stop_gradient.setter
    def stop_gradient(self, flag):
        self.requires_grad = not flag

    def requires_grad_(self, requires_grad=True):
        self.requires_grad = requires_grad
        return self

    @property
    def is_leaf(self):
        return self._grad_fn is None

    def is_inference(self):
        """Whether this tensor was made in inference mode, or is a view of one that was."""
        t = self
        while not getattr(t, "_inference", False):
            t = getattr(t, "_view", None)
            if t is None:
                return False
            t = t[0]
        return True

    @property
    def grad_fn(self):
        node = self._grad_fn
        return None if node is None else node.exposed()

    @property
    def retains_grad(self):
        node = self._grad_fn
        return bool(node is not None and node.retained and self._out_index in node.retained)

    def detach(self):
        """A tensor sharing this one's data, cut from the graph."""
        return Tensor._make(self._data, version=self._counter())

    def detach_(self):
        if getattr(self, "_view", None) is not None:
            raise RuntimeError("Can't detach a view in place (it shares its base's history): "
                               "use detach(), which returns a new tensor cut from the graph")
        self._grad_fn = None
        self._requires_grad = False
        return self

    def retain_grad(self):
        """Keep `.grad` on this non-leaf tensor after backward."""
        if self._grad_fn is None:
            if not self._requires_grad:
                raise RuntimeError("retain_grad() on a tensor that does not require grad")
            return
        self._grad_fn.retain(self._out_index, self)

    def register_hook(self, hook):
        """Call `hook(grad)` when this tensor's gradient is computed; a returned tensor replaces it."""
        if not self._requires_grad:
            raise RuntimeError("register_hook on a tensor that does not require grad: "
                               "set requires_grad=True first")
        if self._grad_fn is not None:
            return self._grad_fn.register_tensor_hook(self._out_index, hook)
        if self._hooks is None:
            self._hooks = {}
        return HookHandle(self._hooks, hook)

    def register_post_accumulate_grad_hook(self, hook):
        """Call `hook(self)` each time a backward pass has accumulated into this leaf's `.grad`
        (a handle's `.remove()` takes it off); the hook must return None."""
        if not self._requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require "
                               "gradient: set requires_grad=True first")
        if self._grad_fn is not None:
            raise RuntimeError("post accumulate grad hooks cannot be registered on non-leaf "
                               "tensors; register it on the leaf, or use register_hook to "
                               "see this tensor's gradient")
        if getattr(self, "_post_accumulate_hooks", None) is None:
            self._post_accumulate_hooks = {}
        return HookHandle(self._post_accumulate_hooks, hook)

    def backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
        """Accumulate d(self)/d(leaf), weighted by `gradient` (ones by default), into leaves' `.grad`."""
        from .engine import backward
        backward((self,), None if gradient is None else (gradient,), retain_graph,
                 create_graph, inputs)
        if self._grad_fn is not None:
            self._seed = Tensor._make(np.ones_like(self._data) if gradient is None else
                                      np.array(as_array(gradient), dtype=self._data.dtype))

    def zero_grad(self, set_to_zero=True):
        """Zero this tensor's `.grad` in place (or drop it with set_to_zero=False)."""
        for grad in (self.grad, getattr(self, "_seed", None)):
            if grad is not None and set_to_zero:
                grad._data[...] = 0
        if not set_to_zero:
            self.grad = self._seed = None

    clear_grad = zero_grad
    clear_gradient = zero_grad

    def gradient(self):
        """PaddlePaddle's: the gradient from the last backward() as a NumPy array, or None.

        That is `.grad`, or, for the tensor backward() was called on, the gradient it was
        seeded with (PaddlePaddle keeps it; `.grad` of a non-leaf stays None, as in PyTorch).
        """
        grad = self.grad if self.grad is not None else getattr(self, "_seed", None)
        return None if grad is None else grad._data

    def _bump_version(self):
        self._counter()[0] += 1
        with _writes_lock:
            writes.count += 1

    def _writable_data(self):
        """The array an in-place op writes into (refused for one whose elements share memory)."""
        data = self._data
        if not data.flags.writeable:
            raise RuntimeError(
                f"unsupported operation: an in-place write into a tensor of shape "
                f"{list(self.shape)} whose elements share memory (made by expand() or "
                "broadcast_to()): more than one element refers to a single memory location. "
                "Write into a copy instead: y = x.expand(...).clone()")
        return data

    def _rebase_inplace(self, result):
        """Make this tensor take `result`'s value and history (an in-place op)."""
        if type(result) is not Tensor and getattr(result, "program", None) is not None:
            raise RuntimeError(
                f"static mode: an in-place op would write a value of the program being built "
                f"into a tensor of shape {list(self.shape)} that holds a value now (not a "
                "Variable of the program, e.g. a global); write out of place (y = x + z "
                "instead of x += z)")
        if type(result) is not Tensor:
            raise RuntimeError(
                f"vmap: an in-place op would write values that differ between the examples of "
                f"the batch into a tensor of shape {list(self.shape)} that all of them share; "
                "use an out-of-place op (y = x + z instead of x += z)")
        if self._grad_fn is None and self._requires_grad and _grad_state.enabled:
            raise RuntimeError(
                f"a leaf tensor of shape {list(self.shape)} that requires grad is being modified "
                "in place; do it under fluxgrad.no_grad(), or on a copy (x = x + y)")
        data = result._data
        if data.dtype != self._data.dtype and not np.can_cast(data.dtype, self._data.dtype,
                                                              "same_kind"):
            raise RuntimeError(f"result type {dtypes.from_numpy_dtype(data.dtype)} can't be cast "
                               f"to the in-place output's type {self.dtype}")
        if data.shape != self._data.shape:
            raise RuntimeError(f"an in-place op would change the shape {list(self.shape)} to "
                               f"{list(data.shape)}; use an out-of-place op")
        np.copyto(self._writable_data(), data, casting="unsafe")
        self._bump_version()
        if result._grad_fn is not None:
            self._grad_fn = result._grad_fn
            self._out_index = result._out_index
            self._requires_grad = True
            node = result._grad_fn
            if node.out_ref is not None and node.prim.n_outputs == 1:
                # the saved output is this tensor now (with its tangent in forward mode);
                # overwriting it again before backward is an error, as for any saved tensor
                node.out_ref = weakref.ref(self)
                node.out_version = (self._counter(), self._version)
        return self

    def _before_inplace(self, *others):
        """The value an in-place op is about to overwrite, as a tensor of its own.

        It keeps this tensor's history but not its version counter, and holds a
        private copy of the data whenever the op may save it for backward, so the
        op's own node never sees the overwrite.
        """
        recording = _grad_state.enabled and (self._requires_grad or any(
            isinstance(o, Tensor) and o._requires_grad for o in others))
        return Tensor._make(self._data.copy() if recording else self._data,
                            self._requires_grad, self._grad_fn, self._out_index)

    def _shallow_copy(self):
        """Same data, history and version counter: the 'before' of an in-place op."""
        return Tensor._make(self._data, self._requires_grad, self._grad_fn, self._out_index,
                            self._counter())


_size = tuple.__new__


class _Writes:
    """How many in-place writes any tensor has seen: a node recorded when it read the same
    count has inputs (and output) exactly as they were, and backward skips its version check."""
    __slots__ = ("count",)

    def __init__(self):
        self.count = 0


writes = _Writes()
_writes_lock = threading.Lock()  # the count only grows, also when threads write at once


# `new_version_counter()`: a counter of in-place writes, shared by a tensor and its views (an
# untracked array: the garbage collector never has to visit it), copied from a zero one (half
# the cost of building it)
new_version_counter = array("q", (0,)).__copy__


def tensor_method(*names):
    """Attach a public op function to Tensor under each of `names`."""
    def attach(fn):
        for name in names:
            setattr(Tensor, name, fn)
        return fn
    return attach


def as_array(data, dtype=None):
    """The ndarray a Tensor stores for `data`, with PyTorch's default dtypes."""
    if isinstance(data, Tensor):
        arr = data.detach().numpy()  # refused for a tensor batched by vmap
    elif isinstance(data, np.ndarray):
        arr = data
    elif isinstance(data, np.generic):
        arr = np.asarray(data)
    else:
        inferred = None
        if isinstance(data, (list, tuple)):
            inferred, has_tensor = _inferred(data)
            if has_tensor:
                data = _nested_to_arrays(data)
        arr = np.asarray(data)
        if dtype is None:
            if arr.dtype.kind not in "fiubc":
                error = DTypeError if arr.dtype.kind == "O" else TypeError  # (as torch)
                raise error(f"can't make a tensor from {type(data).__name__} data "
                            f"(NumPy read it as {arr.dtype}): could not infer a dtype; give "
                            "numbers (nested lists of equal lengths)")
            if inferred is not None:
                arr = arr.astype(inferred.np, copy=False)
            elif arr.dtype == np.float64:
                arr = arr.astype(dtypes.default_float.np)
            elif arr.dtype == np.complex128:  # Python complex numbers: the default complex
                arr = arr.astype(dtypes.default_complex().np)
    if dtype is not None:
        target = dtypes.as_dtype(dtype).np
        if arr.dtype != target:
            arr = arr.astype(target)
    elif arr.dtype not in _STORED:
        arr = arr.astype(dtypes.from_numpy_dtype(arr.dtype).np)
    return arr


_STORED = {d.np for d in dtypes.ALL}


def _flat(data):
    for d in data:
        if isinstance(d, (list, tuple)):
            yield from _flat(d)
        else:
            yield d


_PYTHON_SCALARS = {bool: dtypes.bool_, int: dtypes.int64}


def _inferred(data):
    """PyTorch's dtype for nested-sequence data, and whether it holds a Tensor: the promotion
    of its elements' dtypes (a Python float: the default float; an int: int64; a NumPy scalar,
    an array or a tensor: its own dtype); the default float for no elements."""
    result, has_tensor = None, False
    for d in _flat(data):
        kind = type(d)
        if kind is float:
            dtype = dtypes.default_float
        elif kind is complex:
            dtype = dtypes.default_complex()
        elif kind in _PYTHON_SCALARS:
            dtype = _PYTHON_SCALARS[kind]
        elif isinstance(d, Tensor):
            dtype, has_tensor = d.dtype, True
        elif isinstance(d, (np.generic, np.ndarray)) and d.dtype.kind in "fiubc":
            dtype = dtypes.from_numpy_dtype(d.dtype)
        else:
            return None, has_tensor or any(isinstance(x, Tensor) for x in _flat(data))
        if dtype is not result:
            result = dtypes._wider(result, dtype)
    return (dtypes.default_float if result is None else result), has_tensor


def _nested_to_arrays(data):
    if isinstance(data, Tensor):
        return data._data
    if isinstance(data, (list, tuple)):
        return [_nested_to_arrays(d) for d in data]
    return data


def is_scalar(x):
    return isinstance(x, numbers.Number) and not isinstance(x, Tensor)


def format_tensor(t):
    data = t._data
    body = _format_array(data)
    extras = []
    default = dtypes.default_float.np  # PyTorch leaves out the default dtypes
    if data.dtype not in (default, dtypes.default_complex().np, dtypes.int64.np,
                          dtypes.bool_.np) or (
            data.size == 0 and data.dtype != default):
        extras.append(f"dtype={t.dtype}")
    if t._grad_fn is not None:
        extras.append(f"grad_fn=<{t._grad_fn.name()}>")
    elif t._requires_grad:
        extras.append("requires_grad=True")
    indent = " " * len("tensor(")
    text = "tensor(" + "\n".join((indent + line if line else line) if i else line
                                  for i, line in enumerate(body.split("\n")))
    # PyTorch's rule: a suffix that would pass the line width goes on a line of its own
    width = PRINT_OPTIONS["linewidth"] or 80
    last = len(text) - text.rfind("\n") + 1
    for extra in extras:
        if last + len(extra) + 2 > width:
            text += ",\n" + indent + extra
            last = len(indent) + len(extra)
        else:
            text += ", " + extra
            last += len(extra) + 2
    return text + ")"


# set by fluxgrad.set_printoptions; linewidth None: PyTorch's 80
PRINT_OPTIONS = {"precision": 4, "threshold": 1000, "edgeitems": 3, "linewidth": None,
                 "sci_mode": None}


def _format_array(data):
    if data.size == 0:
        return "[]" if data.ndim == 1 else f"[], size={tuple(data.shape)}"
    threshold = PRINT_OPTIONS["threshold"]
    options = dict(separator=", ", threshold=threshold if threshold < 2 ** 62 else 2 ** 62,
                   edgeitems=PRINT_OPTIONS["edgeitems"])
    # PyTorch's line width (80 by default) counts the "tensor(" that the lines are indented by
    options["max_line_width"] = (PRINT_OPTIONS["linewidth"] or 80) - len("tensor(") + max(
        data.ndim - 1, 0)
    shown = _shown(data, options["threshold"], options["edgeitems"])
    if data.dtype.kind == "f":
        fmt = _float_format(shown)
        finite = shown[np.isfinite(shown)]  # (nan and inf set no width, as in PyTorch)
        width = max((len(fmt(v)) for v in finite.flat), default=0)
        options["formatter"] = {"float_kind": lambda v: fmt(v).rjust(width)}
    elif data.dtype.kind == "c":
        options["formatter"] = {"complex_kind": _complex_format(shown)}
    elif data.dtype.kind == "b":  # True padded to False's width only where a False is printed
        width = 4 if shown.all() else 5
        options["formatter"] = {"bool": lambda v: str(v).rjust(width)}
    text = np.array2string(data, **options).replace(", ...,", ",  ...,")
    return text if data.ndim else text.strip()


def _shown(data, threshold, edgeitems):
    """The elements a summarised print shows (the first and last `edgeitems` along each axis
    of a tensor of more than `threshold` elements): PyTorch sizes its columns by them."""
    if data.size <= threshold:
        return data
    for axis, n in enumerate(data.shape):
        if n > 2 * edgeitems:
            data = np.take(data, list(range(edgeitems)) + list(range(n - edgeitems, n)), axis)
    return data


def _complex_format(data):
    """PyTorch's: the real parts formatted as a float tensor's (padded to one width), then the
    imaginary parts, formatted likewise by their own rule, with their sign and a `j`."""
    real_fmt, imag_fmt = _float_format(data.real), _float_format(data.imag)
    finite = data.real[np.isfinite(data.real)]
    width = max((len(real_fmt(v)) for v in finite.flat), default=0)

    def fmt(v):
        imag = imag_fmt(v.imag).strip() + "j"
        return real_fmt(v.real).rjust(width) + (imag if imag[0] in "+-" else "+" + imag)
    return fmt


def _float_format(data):
    """PyTorch's choice: integral values as `2.`, else 4 decimals, or scientific for wide ranges."""
    finite = data[np.isfinite(data)]
    if not finite.size:
        return str
    digits, sci_mode = PRINT_OPTIONS["precision"], PRINT_OPTIONS["sci_mode"]
    big = np.abs(finite).max()
    nonzero = np.abs(finite[finite != 0])
    small = nonzero.min() if nonzero.size else 0
    if sci_mode is None and np.all(finite == np.round(finite)) and big < 1e8 and not (
            small and big / small > 1e3):
        return _integral_float
    if sci_mode or sci_mode is None and (
            big >= 1e8 or (small and (small < 1e-4 or big / small > 1e3))):
        return lambda v: f"{v:.{digits}e}" if np.isfinite(v) else str(v)
    return lambda v: f"{v:.{digits}f}" if np.isfinite(v) else str(v)


def _integral_float(v):
    if not np.isfinite(v):
        return str(v)
    return f"{v:.0f}."
