"""PaddlePaddle's `Momentum`: SGD with heavy-ball momentum (velocity = mu * velocity + g)."""
from .optimizer import SGD


class Momentum(SGD):
    def __init__(self, learning_rate=0.001, momentum=0.9, parameters=None, use_nesterov=False,
                 weight_decay=None, grad_clip=None, name=None, **kwargs):
        super().__init__(parameters, lr=learning_rate, momentum=momentum,
                         nesterov=use_nesterov, weight_decay=weight_decay, grad_clip=grad_clip,
                         **kwargs)
