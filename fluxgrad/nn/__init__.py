"""`fluxgrad.nn`: Module (Layer), Parameter, layers, losses, `functional`, `init`, `utils`;
`modules` gives them PyTorch's submodule paths."""
from . import functional, init, utils
from .layers import *  # noqa: F401,F403
from .extra_layers import *  # noqa: F401,F403
from .lazy import *  # noqa: F401,F403
from .sync_batchnorm import SyncBatchNorm
from .loss import *  # noqa: F401,F403
from .losses_extra import *  # noqa: F401,F403
from .module import Layer, Module
from .paddle_layers import *  # noqa: F401,F403
from .parameter import Parameter
from .rnn import *  # noqa: F401,F403
from .transformer import *  # noqa: F401,F403
from .utils import ClipGradByGlobalNorm, ClipGradByNorm, ClipGradByValue
from . import extra_layers, layers, lazy, loss, losses_extra, paddle_layers, rnn, transformer
from . import modules, parallel
from .parallel import DataParallel, DistributedDataParallel

from . import initializer

__all__ = (["Module", "Layer", "Parameter", "functional", "init", "utils", "ClipGradByGlobalNorm",
            "ClipGradByNorm", "ClipGradByValue", "DataParallel", "DistributedDataParallel", "SyncBatchNorm"] + layers.__all__ + extra_layers.__all__
           + lazy.__all__ + loss.__all__ + losses_extra.__all__ + rnn.__all__ + paddle_layers.__all__ + transformer.__all__)
