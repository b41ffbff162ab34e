"""PaddlePaddle's view of a Program: Blocks of Operators, read from the equations.

`program.global_block()` is Block 0: its `vars` are the program's Variables by name and its
`ops` one `Operator` per equation, in order. The sub-programs of control flow (the branches
of `nn.cond`, the bodies of `nn.while_loop` / `nn.scan`) are the further blocks, numbered
depth first in the order their equations appear (`program.blocks`, `program.block(i)`).

An Operator's `type` is the name of fluxgrad's primitive (`matmul`, `add`, `tanh`), not the
name of Paddle's operator (`matmul_v2`, `elementwise_add`). Its inputs are the Variables
the equation reads: one slot `X` (a binary op: slots `X` and `Y`); its outputs one slot
`Out`. Constants an equation reads are no arguments: `attr('constants')` lists them. The
other attributes are the primitive's static parameters. These views are read only: they
are rebuilt from the equations whenever they are asked for.
"""
from .program import Program, Variable


class Operator:
    """One equation as PaddlePaddle's Operator (see the module docstring)."""

    def __init__(self, block, idx, equation):
        self.block, self.idx, self._eq = block, idx, equation
        variables = [x for x in equation.inputs if isinstance(x, Variable)]
        self._inputs = {"X": variables[:1], "Y": variables[1:]} if len(variables) == 2 \
            else {"X": variables}
        self._outputs = {"Out": list(equation.outputs)}
        self._attrs = dict(equation.params)
        constants = [x for x in equation.inputs if not isinstance(x, Variable)]
        if constants:
            self._attrs["constants"] = constants

    @property
    def type(self):
        return self._eq.prim.name

    @property
    def input_names(self):
        return list(self._inputs)

    @property
    def output_names(self):
        return list(self._outputs)

    @property
    def input_arg_names(self):
        return [v.name for vs in self._inputs.values() for v in vs]

    @property
    def output_arg_names(self):
        return [v.name for v in self._outputs["Out"]]

    def input(self, name):
        """The names of the Variables in input slot `name`."""
        return [v.name for v in self._slot(self._inputs, name, "input")]

    def output(self, name):
        return [v.name for v in self._slot(self._outputs, name, "output")]

    def _slot(self, table, name, kind):
        if name not in table:
            raise ValueError(f"Operator {self.type!r} has no {kind} slot {name!r}; its {kind} "
                             f"slots are {list(table)}")
        return table[name]

    @property
    def attr_names(self):
        return list(self._attrs)

    def has_attr(self, name):
        return name in self._attrs

    def attr(self, name):
        if name not in self._attrs:
            raise ValueError(f"Operator {self.type!r} has no attribute {name!r}; its attributes "
                             f"are {list(self._attrs)}")
        return self._attrs[name]

    def all_attrs(self):
        return dict(self._attrs)

    def __repr__(self):
        return f"<Operator {self.idx}: {self._eq!r}>"

    __str__ = __repr__


class Block:
    """A program (or a control-flow sub-program) as PaddlePaddle's Block."""

    def __init__(self, program, idx, parent_idx, root):
        self._program, self.idx, self.parent_idx, self.program = program, idx, parent_idx, root

    @property
    def vars(self):
        return self._program.vars

    @property
    def ops(self):
        return [Operator(self, n, eq) for n, eq in enumerate(self._program.equations)]

    def var(self, name):
        return self._program.var(name)

    def create_var(self, name=None, shape=(), dtype="float32", **_):
        """A Variable of `shape` (None / -1: unknown) and `dtype` for an op to write into
        (static.py_func's out), as PaddlePaddle's; it joins the program when written."""
        from .. import _core
        from . import dims as _dims
        from .program import Variable
        shape = [_dims.symbol_for_axis(axis) if s is None or (type(s) is int and s == -1)
                 else s for axis, s in enumerate(shape)]
        return Variable._new(self._program, name or self._program._fresh_name(),
                             _dims.dims_of(tuple(shape)), _core.dtypes.as_dtype(dtype).np)

    def has_var(self, name):
        return self._program.has_var(name)

    def all_parameters(self):
        return self._program.all_parameters()

    def iter_parameters(self):
        return iter(self.all_parameters())

    def __repr__(self):
        return (f"<Block {self.idx} (parent {self.parent_idx}): {len(self._program.equations)} "
                f"ops, {len(self._program.vars)} vars>")

    def __str__(self):
        return str(self._program)


def blocks(program):
    """Block 0 (`program`) and the blocks of its sub-programs, depth first."""
    found = []

    def visit(p, parent_idx):
        idx = len(found)
        found.append(Block(p, idx, parent_idx, program))
        for eq in p.equations:
            for value in eq.params.values():
                for sub in value if isinstance(value, (tuple, list)) else (value,):
                    if isinstance(sub, Program):
                        visit(sub, idx)

    visit(program, -1)
    return found
