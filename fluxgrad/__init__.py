"""fluxgrad: automatic differentiation of NumPy-style tensor programs."""
from ._core.dtypes import bool_, float32, float64, int32, int64, DType
from ._core.grad_mode import enable_grad, is_grad_enabled, no_grad, set_grad_enabled
from ._core.tensor import Tensor
from .creation import *  # noqa: F401,F403
from .ops import *  # noqa: F401,F403
from . import autograd, func, linalg
from .autograd import grad
from . import data, nn, optim, vision
from . import distributed
from .nn.parallel import DistributedDataParallel as DataParallel
from .serialization import load, save
from . import viz
from .dlpack import from_dlpack

optimizer = optim
io = data

bool = bool_
float = float32
double = float64
long = int64
int = int32

__version__ = "0.1.0"
