"""`Program.clone(for_test=True)` as PaddlePaddle's: dropout and batch norm in inference mode.

A layer whose inference differs from its training (dropout, batch norm, instance norm with
running statistics, RReLU) called in training mode while a program is built is staged in
both modes: the training result is what the call returns (and what the program computes),
the inference one is recorded as its stand-in for tests (`Program.test_values`, training
Variable -> inference Variable). `clone(for_test=True)` makes a program that reads the
inference values wherever the training ones were read, without the updates (running
statistics) of training; the Executor runs only what a fetch needs, so the extra
equations cost nothing in training runs. Functional dropout (`F.dropout(x, p,
training=True)`) records its input as its inference value (`infers_as`), so the clone runs it
as the identity too, as PaddlePaddle's clone sets `is_test` on every dropout op. A training
value fetched from the clone is its inference value (`Program.aliases`), and an inference
value that is itself another layer's training value (dropout after batch norm) is that
layer's inference value.
"""
from .._core.static_mode import state


def _differs_in_inference():
    from ..nn.extra_layers import RReLU, _DropoutNd, _InstanceNorm
    from ..nn.layers import Dropout, _BatchNorm
    return Dropout, _DropoutNd, _BatchNorm, _InstanceNorm, RReLU


class BothModes:
    """A layer's `forward` that stages its inference mode too (see the module docstring)."""
    __slots__ = ("module", "forward")

    def __init__(self, module):
        self.module = module
        self.forward = type(module).forward

    def __call__(self, *args, **kwargs):
        from .program import Variable
        m = self.module
        out = self.forward(m, *args, **kwargs)
        if not (state.enabled and m.training and isinstance(out, Variable)):
            return out
        m.training = False
        try:
            test = self.forward(m, *args, **kwargs)
        finally:
            m.training = True
        out.program.test_values[id(out)] = (out, test)
        return out


def infers_as(out, test):
    """While a program is built, the training result `out` of a layer or function has the
    inference value `test` (a Variable of the same program, or the same Variable)."""
    from .program import Variable
    if state.enabled and isinstance(out, Variable) and out is not test:
        out.program.test_values[id(out)] = (out, test)


def stage_both_modes(module):
    """Give each sub-layer of `module` that differs in inference a BothModes forward."""
    kinds = _differs_in_inference()
    for m in module.modules():
        if isinstance(m, kinds) and "forward" not in m.__dict__:
            m.__dict__["forward"] = BothModes(m)


def for_test(program, clone):
    """`clone` (a copy of `program`) reading the inference values, without updates."""
    test_values = program.test_values
    clone.updates = {}
    if not test_values:
        return clone
    from .program import Equation

    def inference(x):
        while id(x) in test_values:
            x = test_values[id(x)][1]
        return x
    equations = []
    for eq in program.equations:
        if any(id(x) in test_values for x in eq.inputs):
            eq = Equation(eq.prim, tuple(map(inference, eq.inputs)), eq.outputs, eq.params,
                          eq.source, eq.symbolic)
        equations.append(eq)
    clone.equations = equations
    for train, _ in test_values.values():
        clone.aliases[id(train)] = inference(train)
    return clone
