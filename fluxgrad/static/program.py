"""The static IR: a Program is typed Variables plus a flat list of Equations.

- `Variable`: a Tensor whose `_data` is a zero-memory stand-in of its shape and dtype
  (unknown dims stand in as their `Dim`'s sentinel, see `dims`), so every public
  function and Tensor method reads its shape and dtype as usual; its value exists
  only inside an `Executor` run. `dims` holds ints and `Dim`s; `persistable`
  Variables (parameters, optimizer state) live in a `Scope` between runs; data
  Variables are fed. len() of one whose first size is unknown is refused in user code (it
  must be a plain int): x.shape[0] follows the size fed.
- `Equation(prim, inputs, outputs, params)`: one application of a registered
  primitive. Inputs are Variables or constants (Tensors, Python scalars); params are
  the primitive's static keywords; `source` is the user's line that staged it.
- `Program`: `equations` in order of definition (each Variable defined once, before
  its use), `vars` by name, `data` (the feeds), and `updates`, a dict
  `name -> (persistable Variable, new value)` applied after a run (a Variable of the
  program, or a constant for a startup program). `version` changes on every
  mutation (executors cache plans by it). `str(program)` prints it like a jaxpr;
  `check()` verifies it is well formed (every transform and pass ends with it).
  `aliases` maps (the id of) a Variable a pass removed to its replacement (a Variable or a
  constant Tensor), so that it stays fetchable. `abstract_types` is staging's memo of the
  output types of the ops staged into the program (see `staging.infer`). `refused_sizes`
  (ops' `dims.assume_not`) and `size_conditions` (user code's decisions, `dims.Condition`)
  are the sizes the program holds for, which the Executor checks.
"""
import contextlib
import sys

import numpy as np

from .._core import dtypes
from .._core.tensor import Tensor
from . import dims as _dims

_SHORT = {"float32": "f32", "float64": "f64", "int32": "i32", "int64": "i64", "bool": "bool",
          "float16": "f16", "uint8": "u8", "int8": "i8", "int16": "i16", "complex64": "c64",
          "complex128": "c128"}


class Variable(Tensor):
    """A value of a static Program (see the module docstring)."""
    __slots__ = ("program", "persistable", "dims", "is_data")

    @classmethod
    def _new(cls, program, name, dims, dtype, persistable=False, is_data=False):
        npdt = dtype if isinstance(dtype, np.dtype) else np.dtype(dtype)
        shape = _dims.stand_in_shape(dims)
        # zero strides over one element's bytes: read-only, no memory (as broadcast_to, 10x
        # cheaper)
        v = cls._make(np.broadcast_to(np.zeros((), npdt), shape) if npdt.hasobject else
                      np.ndarray(shape, npdt, bytes(npdt.itemsize), 0, (0,) * len(shape)))
        v.program = program
        v.name = name
        v.dims = tuple(dims)
        v.persistable = persistable
        v.is_data = is_data
        return v

    @property
    def requires_grad(self):
        """True for floating Variables: any of them can be differentiated by the program
        transforms (rules that skip inputs which don't require grad must not skip them)."""
        return self._data.dtype.kind in "fc"

    @requires_grad.setter
    def requires_grad(self, flag):
        Tensor.requires_grad.fset(self, flag)

    @property
    def stop_gradient(self):
        """PaddlePaddle's flag: True for data (until set False) and for integer values,
        False for the floating results of ops; a parameter's is `not trainable`."""
        if self.is_data or self.persistable:
            return not self._requires_grad
        return not self.requires_grad

    @stop_gradient.setter
    def stop_gradient(self, flag):
        if self.is_data or self.persistable:
            self.requires_grad = not flag
        elif bool(flag) != self.stop_gradient:
            raise NotImplementedError(
                f"setting stop_gradient={flag} on {self.name!r} ({self.type_str}), the result of "
                "an op in a static program: write `x = x.detach()` to stop the gradient there")

    @property
    def shape(self):
        """The shape; an unknown size is an int printed by its name (N0, ...)."""
        return _dims.pretty_shape(self._data.shape)

    def size(self, dim=None):
        shape = self.shape
        return shape if dim is None else shape[dim]

    @property
    def type_str(self):
        return f"{_SHORT.get(self._data.dtype.name, self._data.dtype.name)}[" \
               f"{_dims.format_dims(self.dims)}]"

    def _no_value(self, what):
        raise RuntimeError(f"{what} of the static Variable {self.name!r} ({self.type_str}): it "
                           "has no value until an Executor runs its program; fetch it with "
                           "exe.run(feed=..., fetch_list=[...])")

    def numpy(self):
        self._no_value("numpy()")

    def item(self):
        self._no_value("item()")

    def tolist(self):
        self._no_value("tolist()")

    def __array__(self, dtype=None, copy=None):
        self._no_value("Converting to a NumPy array")

    def __float__(self):
        self._no_value("float()")

    def __int__(self):
        self._no_value("int()")

    def __index__(self):
        self._no_value("Using as an index")

    def __bool__(self):
        raise TypeError(f"bool() of the static Variable {self.name!r} ({self.type_str}): its value "
                        "is only known when the program runs, so a Python `if`/`while` on it "
                        "can't be staged. Use fluxgrad.static.nn.cond(pred, true_fn, false_fn) "
                        "or fluxgrad.static.nn.while_loop(cond, body, loop_vars) instead.")

    def __len__(self):
        if self.dims and isinstance(self.dims[0], (_dims.Dim, _dims.Size)) and \
                _dims.user_frame() is not None:
            raise TypeError(f"len() of the static Variable {self.name!r} ({self.type_str}): its "
                            f"first size is unknown, and len() must give a plain int (the "
                            "stand-in), which can't follow the size fed; use x.shape[0]")
        return super().__len__()

    def __iter__(self):
        if isinstance(self.dims[0] if self.dims else None, _dims.Dim) or not self.dims:
            raise TypeError(f"can't iterate over the static Variable {self.name!r} "
                            f"({self.type_str}): its first dimension is not known")
        return super().__iter__()

    def __repr__(self):
        kind = "persistable " if self.persistable else ""
        return f"<{kind}Variable {self.name}: {self.type_str}>"

    __str__ = __repr__

    def __format__(self, spec):
        return repr(self)

    # --- in-place ops: the Python object moves on to the new value -----------------------
    def _before_inplace(self, *others):
        """A new object for the value about to be overwritten; it takes this Variable's place
        in the program, so that this object is free to become the op's result."""
        program = self.program
        for eq in reversed(program.equations):
            if any(o is self for o in eq.outputs):
                if eq.prim.view:
                    raise NotImplementedError(
                        f"an in-place op writes into {self.name!r} ({self.type_str}), a view "
                        f"({eq.prim.name}) of another static Variable; static programs don't "
                        "write through views: build the new value out of place")
                break
        if self.persistable or self.is_data:
            raise NotImplementedError(
                f"an in-place op on the {'parameter' if self.persistable else 'data'} variable "
                f"{self.name!r} of a static program: compute a new value out of place")
        old = Variable._new(program, self.name, self.dims, self._data.dtype)
        program.substitute(self, old)
        return old

    def _rebase_inplace(self, result):
        if not isinstance(result, Variable) or result._data.shape != self._data.shape:
            raise RuntimeError(f"an in-place op on the static Variable {self.name!r} "
                               f"({self.type_str}) must give a Variable of the same shape")
        program = result.program
        self._data, self.dims, self.name = result._data, result.dims, result.name
        program.substitute(result, self)
        return self

    def _shallow_copy(self):
        """A new handle on the same value, without a tangent (forward mode and vmap attach
        and strip tangents on handles): an alias equation, so that it stays a Variable of the
        program (a plain Tensor would hold the stand-in's zeros)."""
        from .._core.primitive import REGISTRY
        from .staging import stage
        return stage(REGISTRY["alias"], (self,), {})

    def detach(self):
        """The same value, through which the program transforms don't differentiate."""
        from ._ops import stop_gradient
        return stop_gradient(self)


class Equation:
    __slots__ = ("prim", "inputs", "outputs", "params", "source", "symbolic")

    def __init__(self, prim, inputs, outputs, params, source=None, symbolic=False):
        self.prim = prim
        self.inputs = tuple(inputs)
        self.outputs = tuple(outputs)
        self.params = params
        self.source = source
        self.symbolic = symbolic

    def __repr__(self):
        outs = " ".join(f"{o.name}:{o.type_str}" for o in self.outputs)
        args = " ".join(_format_input(x) for x in self.inputs)
        params = ""
        if self.params:
            params = "[" + ", ".join(f"{k}={_format_param(v)}" for k, v in self.params.items()) \
                     + "]"
        return f"{outs} = {self.prim.name}{params} {args}"


class Program:
    """A static program (see the module docstring). `Program()` is empty."""

    _ids = 0

    def __init__(self, parent=None):
        Program._ids += 1
        self.id = Program._ids
        self.parent = parent  # the enclosing program of a sub-program (a branch, a loop body)
        self.args = []  # a sub-program's arguments (loop-carried values)
        self.captures = []  # Variables of enclosing programs a sub-program reads
        self.vars = {}
        self.equations = []
        self.data = []
        self.updates = {}
        self.aliases = {}
        self.version = 0
        self._counter = 0
        self.abstract_types = {}  # staging's memo of the output types of the ops staged here
        self.test_values = {}  # a layer's training result -> its inference one (`for_test`)
        self.refused_sizes = {}  # Dim -> sizes an op staged here assumed it isn't (dims.assume_not)
        self.size_conditions = {}  # what user code decided from unknown sizes: dims.Condition
        self.produced_dims = {}  # staging's data-dependent sizes: op, inputs -> [(out, axis, Dim)]
        self.random_seed = 0  # not 0: every run draws the same numbers (`Executor.run`)

    # --- building -------------------------------------------------------------------
    def new_var(self, dims, dtype, name=None, persistable=False, is_data=False):
        if name is None:
            name = self._fresh_name()
        elif name in self.vars:
            raise ValueError(f"the program already has a variable named {name!r} "
                             f"({self.vars[name].type_str}); pick another name")
        v = Variable._new(self, name, dims, dtype, persistable, is_data)
        self.vars[name] = v
        self.version += 1
        return v

    def capture(self, var, op="op"):
        """Let this sub-program read `var`, a Variable of an enclosing program."""
        outer = self.parent
        while outer is not None and outer.vars.get(var.name) is not var:
            outer = outer.parent
        if outer is None and not var.persistable:
            raise ValueError(
                f"{op}: the Variable {var.name!r} ({var.type_str}) belongs to another program "
                "than the one being built; build it under the same program_guard, or feed it "
                "as data")
        if var.name in self.vars:
            raise ValueError(f"{op}: a sub-program can't read {var.name!r} from its enclosing "
                             "program: it has a variable of that name")
        self.vars[var.name] = var
        self.captures.append(var)
        self.version += 1

    def new_arg(self, dims, dtype):
        v = self.new_var(dims, dtype)
        self.args.append(v)
        return v

    def _fresh_name(self):
        while True:
            name = _letters(self._counter)
            if self.parent is not None:
                name = f"_{self.id}{name}"
            self._counter += 1
            if name not in self.vars:
                return name

    def adopt(self, var):
        """Make a persistable Variable of another program usable here (shared by name)."""
        own = self.vars.get(var.name)
        if own is var:
            return
        if own is not None:
            raise ValueError(f"the program has its own variable named {var.name!r}; the "
                             f"persistable variable of that name from another program can't "
                             "join it")
        self.vars[var.name] = var
        self.version += 1

    def append(self, eq):
        self.equations.append(eq)
        self.version += 1

    def substitute(self, old, new):
        """Every reference to the Variable object `old` now names `new` (same name)."""
        for eq in self.equations:
            if any(x is old for x in eq.inputs):
                eq.inputs = tuple(new if x is old else x for x in eq.inputs)
            if any(o is old for o in eq.outputs):
                eq.outputs = tuple(new if o is old else o for o in eq.outputs)
        if self.vars.get(old.name) is old:
            self.vars[old.name] = new
        self.data = [new if v is old else v for v in self.data]
        self.updates = {k: (var, new if value is old else value)
                        for k, (var, value) in self.updates.items()}
        self.version += 1

    def refuse_sizes(self, dim, sizes):
        """An op staged here assumed `dim` isn't one of `sizes`: the Executor refuses them."""
        self.refused_sizes.setdefault(dim, set()).update(sizes)

    def add_condition(self, condition):
        """User code decided `condition` (a `dims.Condition`) while building this program: the
        Executor refuses sizes where it doesn't hold (the first line that decided it is named)."""
        self.size_conditions.setdefault(condition.key(), condition)

    def set_update(self, var, value):
        """After each run, the persistable `var` takes `value` (a Variable or constant)."""
        self.updates[var.name] = (var, value)
        self.version += 1

    @contextlib.contextmanager
    def transaction(self):
        """Undo every change made inside if it raises (a transform that fails changes
        nothing)."""
        saved = (list(self.equations), dict(self.vars), list(self.data), dict(self.updates),
                 self._counter, list(self.captures), list(self.args))
        try:
            yield self
        except BaseException:
            (self.equations, self.vars, self.data, self.updates, self._counter, self.captures,
             self.args) = saved
            self.version += 1
            raise

    def replace_equations(self, equations, check=True):
        self.equations = list(equations)
        self.version += 1
        if check:
            self.check()

    def parameters(self):
        return [v for v in self.vars.values() if v.persistable and
                getattr(v, "trainable", False)]

    # --- PaddlePaddle's view: Blocks of Operators (see `blocks`) ---------------------------
    def global_block(self):
        return self.blocks[0]

    current_block = global_block

    @property
    def blocks(self):
        from .blocks import blocks
        return blocks(self)

    @property
    def num_blocks(self):
        return len(self.blocks)

    def block(self, index):
        found = self.blocks
        if not -len(found) <= index < len(found):
            raise IndexError(f"Program.block({index}): the program has {len(found)} blocks "
                             "(the global block and one per control-flow branch or body)")
        return found[index]

    def var(self, name):
        """The Variable called `name` (PaddlePaddle's `block.var`)."""
        v = self.vars.get(name)
        if v is None:
            raise ValueError(f"var {name!r} is not in this program (its variables: "
                             f"{sorted(self.vars)[:20]})")
        return v

    def has_var(self, name):
        return name in self.vars

    def list_vars(self):
        return iter(self.vars.values())

    def all_parameters(self):
        """The trainable persistable Variables (the Layers' and `create_parameter`'s)."""
        from .parameters import ParamVariable
        return [v for v in self.vars.values() if isinstance(v, ParamVariable)]

    def clone(self, for_test=False):
        """A copy; `for_test=True`: PaddlePaddle's test program, with dropout and batch norm
        layers in inference mode and no updates (see `for_test`)."""
        p = Program()
        p.vars, p.equations, p.data = dict(self.vars), list(self.equations), list(self.data)
        p.updates = dict(self.updates)
        p.aliases = dict(self.aliases)
        p.refused_sizes = {d: set(v) for d, v in self.refused_sizes.items()}
        p.size_conditions = dict(self.size_conditions)
        p.produced_dims = dict(self.produced_dims)
        p._counter = self._counter
        p.random_seed = self.random_seed
        if for_test:
            from .for_test import for_test as inference
            return inference(self, p)
        p.test_values = dict(self.test_values)
        return p

    # --- reading ----------------------------------------------------------------------
    def check(self):
        """Raise if the program is not well formed: every input defined before its use, each
        Variable defined once and known to the program, every update a Variable of it."""
        defined = {id(v) for v in self.vars.values() if v.is_data or v.persistable}
        defined.update(id(v) for v in self.args + self.captures)
        var_named = self.vars.get
        for n, eq in enumerate(self.equations):
            for x in eq.inputs:
                if id(x) not in defined and isinstance(x, Variable):
                    raise RuntimeError(f"malformed program: equation {n} ({eq!r}) reads "
                                       f"{x.name!r}, which is not defined before it")
            for o in eq.outputs:
                if id(o) in defined:
                    raise RuntimeError(f"malformed program: {o.name!r} is defined twice "
                                       f"(equation {n})")
                if var_named(o.name) is not o:
                    raise RuntimeError(f"malformed program: {o.name!r} (equation {n}) is not "
                                       "a variable of this program")
                defined.add(id(o))
        for name, (var, value) in self.updates.items():
            if isinstance(value, Variable) and id(value) not in defined:
                raise RuntimeError(f"malformed program: the update of {name!r} reads "
                                   f"{value.name!r}, which is not defined")
        return self

    def __str__(self):
        lines = ["{ program"]
        if self.data:
            lines.append("  data   " + " ".join(f"{v.name}:{v.type_str}" for v in self.data))
        persist = [v for v in self.vars.values() if v.persistable]
        if persist:
            lines.append("  state  " + " ".join(f"{v.name}:{v.type_str}" for v in persist))
        lines.append("  let")
        lines += ["    " + repr(eq) for eq in self.equations]
        for name, (var, value) in self.updates.items():
            lines.append(f"  {name} <- {_format_input(value)}")
        lines.append("}")
        return "\n".join(lines)

    def __repr__(self):
        return (f"<Program {self.id}: {len(self.equations)} equations, {len(self.vars)} "
                "variables>")


def _letters(n):
    """a, b, ..., z, ba, bb, ... (jaxpr-style short names)."""
    if n < len(_names):
        return _names[n]
    s, k = "", n
    while True:
        s = chr(ord("a") + k % 26) + s
        k //= 26
        if not k:
            name = "_" + s
            if n == len(_names):
                _names.append(name)
            return name


_names = []  # _letters(n) for the n asked so far (staging names every Variable)


def _format_input(x):
    if isinstance(x, Variable):
        return x.name
    if isinstance(x, Tensor):
        x = x._data
    if isinstance(x, np.ndarray):
        if x.size <= 4:
            return f"{np.array2string(x, separator=',')}:{_SHORT.get(x.dtype.name, x.dtype.name)}"
        return f"const:{_SHORT.get(x.dtype.name, x.dtype.name)}[{','.join(map(str, x.shape))}]"
    return repr(x)


def _format_param(v):
    if isinstance(v, Program):
        return f"<program of {len(v.equations)} eqs>"
    if isinstance(v, dtypes.DType):
        return v.name
    if isinstance(v, np.dtype):
        return v.name
    if isinstance(v, (tuple, list)):
        text = repr(type(v)(_dims.dims_of(v))) if all(type(i) is int for i in v) else repr(v)
        return text
    if type(v) is int:
        d = _dims.BY_SENTINEL.get(v)
        return repr(d) if d is not None else repr(v)
    return repr(v)


def user_line():
    """'file:line' of the innermost frame outside fluxgrad (the user's code that staged)."""
    frame = sys._getframe(1)
    while frame is not None:
        filename = frame.f_code.co_filename
        inside = _inside.get(filename)
        if inside is None:  # staging asks for every op: a dict, not the module name, per frame
            if len(_inside) > 4096:
                _inside.clear()
            inside = _inside[filename] = \
                frame.f_globals.get("__name__", "").startswith("fluxgrad")
        if not inside:
            return f"{filename}:{frame.f_lineno}"
        frame = frame.f_back
    return None


_inside = {}  # file name -> whether its code is fluxgrad's
