"""Every op fluxgrad has: one module per family, each op one record with its rules beside it."""
from .._core import engine
from .._core.primitive import REGISTRY
from . import alias, elementwise, reduce, shape
from .elementwise import *  # noqa: F401,F403
from .reduce import *  # noqa: F401,F403
from .shape import *  # noqa: F401,F403
from . import linalg
from .linalg import *  # noqa: F401,F403
from . import conv
from .conv import *  # noqa: F401,F403
from . import softmax as softmax_module  # the name `softmax` is the function
from .softmax import *  # noqa: F401,F403
from . import indexing
from .indexing import *  # noqa: F401,F403
from . import activation, inplace
from .activation import *  # noqa: F401,F403
from .inplace import *  # noqa: F401,F403
from .. import creation

__all__ = elementwise.__all__ + reduce.__all__ + shape.__all__
__all__ += linalg.__all__
__all__ += conv.__all__
__all__ += softmax_module.__all__
__all__ += indexing.__all__
__all__ += activation.__all__ + inplace.__all__

engine.OPS.update(sum_to=shape.sum_to, cast=elementwise.cast, add=elementwise.add,
                  ones_like=creation.ones_like, zeros_like=creation.zeros_like)
