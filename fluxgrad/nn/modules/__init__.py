"""`nn.modules`: PyTorch's layout of the layers in submodules (`nn.modules.batchnorm._BatchNorm`,
`nn.modules.loss._Loss`, `nn.modules.module.Module`, ...), for code that imports from those
paths or checks isinstance against them. The classes are fluxgrad.nn's own."""
from . import (activation, batchnorm, container, conv, distance, dropout, flatten, instancenorm,
               lazy, linear, loss, module, normalization, padding, pixelshuffle, pooling, rnn,
               sparse, transformer, upsampling, utils)
