"""`fluxgrad.cuda.amp`: PyTorch's older spelling of `fluxgrad.amp` (see there)."""
import functools

from .. import amp as _amp
from ..amp import GradScaler

__all__ = ["autocast", "GradScaler"]

autocast = functools.partial(_amp.autocast, "cuda")
