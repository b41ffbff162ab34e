"""PyTorch's path `nn.modules.rnn` to fluxgrad.nn's classes."""
from .. import RNN, LSTM, GRU, RNNCell, LSTMCell, GRUCell

__all__ = ["RNN", "LSTM", "GRU", "RNNCell", "LSTMCell", "GRUCell"]
