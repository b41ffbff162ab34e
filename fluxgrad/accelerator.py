"""`fluxgrad.accelerator`: PyTorch's device-agnostic accelerator queries; there is none."""

__all__ = ["is_available", "current_accelerator", "device_count"]


def is_available():
    return False


def current_accelerator(check_available=False):
    """None: fluxgrad runs on the CPU, which PyTorch does not count as an accelerator."""
    return None


def device_count():
    return 0
