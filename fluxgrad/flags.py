"""PaddlePaddle's `get_flags` / `set_flags` over the flags fluxgrad honours (`FLAGS`).

- `FLAGS_cudnn_deterministic` (bool): the determinism switch (`use_deterministic_algorithms`);
  every fluxgrad kernel is deterministic whatever it says, so it is recorded.

Any other name, one of PaddlePaddle's many GPU, allocator and executor flags included, is
refused with a ValueError naming it: a flag accepted and ignored would hide that the program
asked for something fluxgrad does not do.
"""
from . import settings

__all__ = ["get_flags", "set_flags", "FLAGS"]

# name -> (getter, setter)
FLAGS = {
    "FLAGS_cudnn_deterministic": (settings.are_deterministic_algorithms_enabled,
                                  settings.use_deterministic_algorithms),
}


def _check(name, op):
    if not isinstance(name, str):
        raise TypeError(f"{op}: flag names are str, got {type(name).__name__}")
    if name not in FLAGS:
        raise ValueError(f"{op}: fluxgrad does not honour the flag {name!r}; the flags it "
                         f"honours: {sorted(FLAGS)}")


def get_flags(flags):
    """{name: value} for `flags` (a name or a list of names)."""
    names = [flags] if isinstance(flags, str) else list(flags)
    for name in names:
        _check(name, "get_flags")
    return {name: FLAGS[name][0]() for name in names}


def set_flags(flags):
    """Set each flag of the dict `flags` (all checked before any is set)."""
    if not isinstance(flags, dict):
        raise TypeError(f"set_flags: expected a dict of flag names to values, got "
                        f"{type(flags).__name__}")
    for name, value in flags.items():
        _check(name, "set_flags")
        if not isinstance(value, (bool, int)):
            raise TypeError(f"set_flags: {name} takes a bool, got {value!r}")
    for name, value in flags.items():
        FLAGS[name][1](bool(value))
