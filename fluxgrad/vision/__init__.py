"""`fluxgrad.vision`: model definitions (`fluxgrad.vision.models`)."""
from . import models

__all__ = ["models"]
