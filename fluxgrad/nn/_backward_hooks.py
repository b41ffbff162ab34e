"""Module backward hooks, as PyTorch's: `register_full_backward_pre_hook(hook(module,
grad_output))` and `register_full_backward_hook(hook(module, grad_input, grad_output))`.

A call of a hooked module passes its tensor inputs and its outputs through identity Functions.
The backward of the outputs' identity sees every grad_output at once (the pre-hooks run there
and may replace them); that of the inputs' identity sees every grad_input at once (the full
hooks run there and may replace them). A module none of whose inputs requires grad has its
full hooks called with grad_input all None, once its grad_output is known.
"""
from .._core.grad_mode import state as _grad_state
from ..autograd.function import Function
from ..func._tree import flatten


class _Identity(Function):
    @staticmethod
    def forward(ctx, on_backward, *xs):
        ctx.on_backward = on_backward
        return tuple(x.view_as(x) for x in xs)

    @staticmethod
    def backward(ctx, *grads):
        return (None,) + tuple(ctx.on_backward(grads))


def _through_identity(tree, on_backward):
    """`tree` with its tensors that require grad replaced by identity outputs; and which did."""
    leaves, rebuild = flatten(tree)
    needs = [t.requires_grad for t in leaves]
    if not any(needs):
        return tree, needs
    passed = iter(_Identity.apply(on_backward, *[t for t, n in zip(leaves, needs) if n]))
    return rebuild([next(passed) if n else t for t, n in zip(leaves, needs)]), needs


class BackwardHookCall:
    """The backward hooks of one call of `module`: wrap its inputs, then its outputs."""

    def __init__(self, module):
        self.module = module
        self.input_needs = []
        self.grad_output = None

    @staticmethod
    def wanted(module):
        return _grad_state.enabled and bool(module._backward_hooks or
                                            module._backward_pre_hooks)

    def wrap_inputs(self, args):
        args, self.input_needs = _through_identity(args, self._on_grad_input)
        return args

    def wrap_outputs(self, out):
        return _through_identity(out, self._on_grad_output)[0]

    def _on_grad_output(self, grads):
        grads = tuple(grads)
        for hook in list(self.module._backward_pre_hooks.values()):
            new = hook(self.module, grads)
            if new is not None:
                grads = tuple(new) if isinstance(new, (tuple, list)) else (new,)
        self.grad_output = grads
        if not any(self.input_needs):
            self._call_hooks((None,) * len(self.input_needs))
        return grads

    def _on_grad_input(self, grads):
        given = iter(grads)
        grad_input = tuple(next(given) if n else None for n in self.input_needs)
        grad_input = self._call_hooks(grad_input)
        return [g for g, n in zip(grad_input, self.input_needs) if n]

    def _call_hooks(self, grad_input):
        for hook in list(self.module._backward_hooks.values()):
            new = hook(self.module, grad_input, self.grad_output)
            if new is not None:
                new = tuple(new) if isinstance(new, (tuple, list)) else (new,)
                if len(new) != len(grad_input):
                    raise RuntimeError(
                        f"backward hook of {type(self.module).__name__} returned "
                        f"{len(new)} gradients for {len(grad_input)} inputs; return one per "
                        "input (None where an input needs none), or None")
                grad_input = new
        return grad_input
