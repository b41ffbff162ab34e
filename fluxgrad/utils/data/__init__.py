"""`fluxgrad.utils.data`: PyTorch's import path for fluxgrad's data loading (`fluxgrad.data`)."""
from ...data import *  # noqa: F401,F403
from ...data import __all__  # noqa: F401
