"""`fluxgrad.optim` (alias `fluxgrad.optimizer`): optimizers and learning-rate schedulers."""
from . import lr_scheduler
from .extra import ASGD, Adadelta, Adamax, NAdam, RAdam, Rprop
from .lbfgs import LBFGS
from .optimizer import SGD, Adagrad, Adam, AdamW, Optimizer, RMSprop
from .momentum import Momentum

lr = lr_scheduler

__all__ = ["Optimizer", "SGD", "Adam", "AdamW", "RMSprop", "Adagrad", "Momentum", "Adadelta",
           "Adamax", "NAdam", "RAdam", "Rprop", "ASGD", "LBFGS", "lr_scheduler", "lr"]
