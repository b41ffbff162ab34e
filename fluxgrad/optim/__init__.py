"""`fluxgrad.optim` (alias `fluxgrad.optimizer`): optimizers, learning-rate schedulers and
weight averaging (swa_utils)."""
from . import lr_scheduler, swa_utils
from .extra import ASGD, Adadelta, Adamax, NAdam, RAdam, Rprop
from .lbfgs import LBFGS
from .optimizer import SGD, Adagrad, Adam, AdamW, Optimizer, RMSprop
from .momentum import Momentum
from .lamb import Lamb

lr = lr_scheduler

__all__ = ["Optimizer", "SGD", "Adam", "AdamW", "RMSprop", "Adagrad", "Momentum", "Adadelta",
           "Adamax", "NAdam", "RAdam", "Rprop", "ASGD", "LBFGS", "Lamb", "lr_scheduler", "lr", "swa_utils"]
