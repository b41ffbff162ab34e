"""`functional_call`: run a module with some of its parameters and buffers replaced."""
import contextlib

__all__ = ["functional_call"]


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
