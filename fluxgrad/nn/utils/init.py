"""`skip_init`: build a module without initialising its parameters (PyTorch's
torch.nn.utils.skip_init): their values are whatever the constructor left, to be overwritten by
the caller, and the random stream is left as it was before the call."""
from ...random import get_rng_state, set_rng_state

__all__ = ["skip_init"]


def skip_init(module_cls, *args, **kwargs):
    """`module_cls(*args, **kwargs)` built without drawing from the random generator; initialise
    its parameters yourself."""
    state = get_rng_state()
    try:
        return module_cls(*args, **kwargs)
    finally:
        set_rng_state(state)
