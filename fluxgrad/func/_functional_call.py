"""`functional_call`: run a module with some of its parameters and buffers replaced;
`stack_module_state`: the parameters and buffers of like modules, stacked (for vmap)."""
import contextlib

from ..ops import stack

__all__ = ["functional_call", "stack_module_state"]


def functional_call(module, parameter_and_buffer_dicts, args=(), kwargs=None, *, strict=False):
    """`module(*args, **kwargs)` with the tensors named in the dict(s) (dotted names, as in
    `named_parameters()`) standing in for the module's own; the module is unchanged after.

    This makes a model a function of its parameters, for `grad`, `jacrev` or `vmap` over
    them (e.g. per-example gradients)."""
    dicts = (parameter_and_buffer_dicts if isinstance(parameter_and_buffer_dicts, (tuple, list))
             else (parameter_and_buffer_dicts,))
    replacements = {}
    for d in dicts:
        for name, value in d.items():
            if name in replacements:
                raise ValueError(f"functional_call: {name!r} is given more than once")
            replacements[name] = value
    known = {name for name, _ in module.named_parameters(remove_duplicate=False)}
    known |= {name for name, _ in module.named_buffers()}
    unknown = sorted(set(replacements) - known)
    if unknown:
        raise ValueError(f"functional_call: the module has no parameter or buffer named "
                         f"{unknown}; its names are {sorted(known)}")
    if strict and set(replacements) != known:
        raise ValueError(f"functional_call(strict=True): missing {sorted(known - set(replacements))}")
    args = args if isinstance(args, tuple) else (args,)
    with _swapped(module, replacements):
        return module(*args, **(kwargs or {}))


@contextlib.contextmanager
def _swapped(module, replacements):
    saved = []
    try:
        for name, value in replacements.items():
            *path, leaf = name.split(".")
            owner = module
            for part in path:
                owner = getattr(owner, part)
            table = owner._parameters if leaf in owner._parameters else owner._buffers
            saved.append((table, leaf, table[leaf]))
            table[leaf] = value
        yield
    finally:
        for table, leaf, old in reversed(saved):
            table[leaf] = old


def stack_module_state(models):
    """({name: parameters stacked}, {name: buffers stacked}) of modules of one architecture,
    each stacked along a new leading dimension: the stacked parameters are new leaves that
    require grad where the modules' do (as torch.func's)."""
    models = list(models)
    if not models:
        raise RuntimeError("stack_module_state: Expected at least one model, got 0.")
    if len({m.training for m in models}) > 1:
        raise RuntimeError("stack_module_state: Expected all models to have the same training/eval "
                           "mode.")
    names = [name for name, _ in models[0].named_parameters()]
    for m in models[1:]:
        if [name for name, _ in m.named_parameters()] != names:
            raise RuntimeError(f"stack_module_state: the models differ: {type(m).__name__} has "
                               "other parameters than the first; stack models of one architecture")

    def stacked(tensors):
        out = stack([t.detach() for t in tensors])
        return out.requires_grad_() if all(t.requires_grad for t in tensors) else out

    params = {name: stacked([dict(m.named_parameters())[name] for m in models]) for name in names}
    buffers = {name: stack([dict(m.named_buffers())[name] for m in models])
               for name, _ in models[0].named_buffers()}
    return params, buffers
