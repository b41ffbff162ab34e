"""`fluxgrad.static.nn`: control flow as sub-programs (`cond`, `while_loop`, `scan`)."""
from .control_flow import cond, scan, while_loop  # noqa: F401

__all__ = ["cond", "while_loop", "scan"]
