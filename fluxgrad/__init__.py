"""fluxgrad: automatic differentiation of NumPy-style tensor programs."""
import warnings as _warnings

# log(0), x / 0, overflow: PyTorch answers with inf/nan silently, so NumPy's floating-point
# warnings are ignored where fluxgrad's own code calls NumPy (free on the hot path; the user's
# own NumPy calls still warn)
_warnings.filterwarnings("ignore", r"(divide by zero|invalid value|overflow|underflow) "
                         "encountered", RuntimeWarning, r"fluxgrad(\.|$)")
from ._core.dtypes import (bool_, uint8, int8, int16, int32, int64, float16, float32, float64,
                           complex64, complex128, DType, finfo, iinfo, set_default_dtype, get_default_dtype)
from ._core.devices import device
from ._core.grad_mode import enable_grad, is_grad_enabled, no_grad, set_grad_enabled
from ._core.inference_mode import inference_mode
from ._core.placement import (set_default_device, get_default_device, set_device, get_device,
                              is_compiled_with_cuda, is_compiled_with_rocm, is_compiled_with_xpu)
from ._core.size import Size
from ._core.strict import is_strict_pytorch, set_strict_pytorch
from ._core.tensor import Tensor
from .creation import *  # noqa: F401,F403
from .random import (Generator, default_generator, initial_seed, get_rng_state, set_rng_state,
                     randperm, multinomial, bernoulli, normal, poisson, uniform)
from .tensortypes import *  # noqa: F401,F403
from .ops import *  # noqa: F401,F403
from .ops._out import public_with_out as _public_with_out
from .ops.matrix_functions import torch_triangular_solve as triangular_solve
from .ops.lu import lu_unpack, torch_lu as lu, torch_lu_solve as lu_solve
from .nn.torch_spellings import *  # noqa: F401,F403  (torch.relu_, torch.permute_copy, ...)
from . import autograd, func, linalg, random
from .autograd import grad, is_anomaly_enabled
from . import data, nn, optim, vision
from . import accelerator, backends, cuda, distributions, metric, onnx, utils
from . import distributed
from .nn.parallel import DistributedDataParallel as DataParallel
from .serialization import load, save
from . import viz
from . import static, incubate
from .static import enable_static, disable_static, in_dynamic_mode
from .places import CPUPlace, CUDAPinnedPlace, CUDAPlace
from . import regularizer
from .param_attr import ParamAttr
from .flags import get_flags, set_flags
from .model_summary import flops, summary
from . import jit
from .jit import compile  # noqa: A001 (torch.compile's name)
from . import compiler, _dynamo
from .dlpack import from_dlpack
from .threads import get_num_threads, set_num_threads
from .memory_format import (memory_format, contiguous_format, preserve_format, channels_last,
                            channels_last_3d, legacy_contiguous_format)
from . import amp
from .amp import autocast
from .settings import *  # noqa: F401,F403
from . import special, testing
from . import fft, masked, signal
from . import profiler
from .func import vmap
from .windows import *  # noqa: F401,F403
from .ops.torch_misc import *  # noqa: F401,F403
from .ops.native_norms import *  # noqa: F401,F403
from .ops.householder import *  # noqa: F401,F403
from .ops.stft import istft, stft
from .nn.functional import cosine_similarity
from .nn.functional import channel_shuffle, pairwise_distance, pixel_shuffle, pixel_unshuffle

globals().update(_public_with_out(globals()))

optimizer = optim
io = data
dtype = DType

bool = bool_
float = float32
double = float64
half = float16
long = int64
int = int32
short = int16
cfloat = complex64
cdouble = complex128

# PyTorch's constants (torch.pi, torch.inf, x[:, torch.newaxis])
import math as _math
pi, e, inf, nan, newaxis = _math.pi, _math.e, _math.inf, _math.nan, None

__version__ = "0.1.0"
