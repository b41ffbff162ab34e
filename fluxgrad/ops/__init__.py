"""Every op fluxgrad has: one module per family, each op one record with its rules beside it."""
from .._core import engine
from .._core.primitive import REGISTRY
from .. import creation
from . import (activation, alias, conv, decompositions, elementwise, indexing, inplace, linalg,
               matrix_functions, reduce, shape, sorting, stacks)
from . import softmax as _softmax_module  # the name `softmax` is the function, below
from . import index_extras, linalg_extras, math_extras, special_functions, tensor_extras
from . import strided
from . import complex as _complex_module  # the name `complex` is the function, below
from . import losses  # noqa: F401  (registers the fused cross-entropy)
from . import linear  # noqa: F401  (registers the linear layer's primitive)
from .activation import *  # noqa: F401,F403
from .conv import *  # noqa: F401,F403
from .decompositions import *  # noqa: F401,F403
from .elementwise import *  # noqa: F401,F403
from .indexing import *  # noqa: F401,F403
from .inplace import *  # noqa: F401,F403
from .linalg import *  # noqa: F401,F403
from .matrix_functions import *  # noqa: F401,F403
from .reduce import *  # noqa: F401,F403
from .shape import *  # noqa: F401,F403
from .softmax import *  # noqa: F401,F403
from .sorting import *  # noqa: F401,F403
from .stacks import *  # noqa: F401,F403
from .special_functions import *  # noqa: F401,F403
from .math_extras import *  # noqa: F401,F403
from .linalg_extras import *  # noqa: F401,F403
from .index_extras import *  # noqa: F401,F403
from .strided import *  # noqa: F401,F403
from .complex import *  # noqa: F401,F403

__all__ = [name for family in (activation, conv, decompositions, elementwise, indexing, inplace,
                               linalg, matrix_functions, reduce, shape, _softmax_module, sorting,
                               stacks, special_functions, math_extras, linalg_extras, index_extras,
                               strided, _complex_module)
           for name in family.__all__]

engine.OPS.update(sum_to=shape.sum_to, cast=elementwise.cast, add=elementwise.add,
                  ones_like=creation.ones_like, zeros_like=creation.zeros_like,
                  clone=shape.clone, add_p=elementwise.add_p, sum_to_p=shape.sum_to_p)
