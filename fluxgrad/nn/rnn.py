"""Recurrent layers: RNN, LSTM, GRU (multi-layer, bidirectional, batch_first) and their cells.

Composites of matmul and activations, with PyTorch's parameter names, gate
order (LSTM: i, f, g, o; GRU: r, z, n) and initialisation U(-1/sqrt(H), 1/sqrt(H)).
The input projection of a whole sequence is one matmul; the loop runs over time steps.
The multi-layer modules also take a `PackedSequence` (nn.utils.rnn): it is unpacked, each
sequence's state stops changing past its length, and the output is packed the same way.
"""
import math

import numpy as np

from .. import ops as _ops
from .._core import dtypes
from .._core.errors import InputDTypeMismatch, ShapeError, ShapeIndexError
from .._core.tensor import Tensor
from ..creation import zeros
from . import functional as F
from . import init
from .module import Module
from .parameter import Parameter
from .utils.rnn import PackedSequence, pad_packed_sequence, repack_like

__all__ = ["RNNCell", "LSTMCell", "GRUCell", "RNN", "LSTM", "GRU"]

_GATES = {"RNN_TANH": 1, "RNN_RELU": 1, "LSTM": 4, "GRU": 3}


def _step(mode, gi, h, c, w_hh, b_hh):
    """One time step given the input projection `gi` (bias included); returns (h, c)."""
    gh = F.linear(h, w_hh, b_hh)
    if mode == "RNN_TANH":
        return _ops.tanh(gi + gh), None
    if mode == "RNN_RELU":
        return _ops.relu(gi + gh), None
    if mode == "LSTM":
        i, f, g, o = _ops.chunk(gi + gh, 4, -1)
        c = _ops.sigmoid(f) * c + _ops.sigmoid(i) * _ops.tanh(g)
        return _ops.sigmoid(o) * _ops.tanh(c), c
    gi_r, gi_z, gi_n = _ops.chunk(gi, 3, -1)
    gh_r, gh_z, gh_n = _ops.chunk(gh, 3, -1)
    r = _ops.sigmoid(gi_r + gh_r)
    z = _ops.sigmoid(gi_z + gh_z)
    n = _ops.tanh(gi_n + r * gh_n)
    return (1 - z) * n + z * h, None


def _uniform_all(module, hidden_size):
    bound = 1 / math.sqrt(hidden_size) if hidden_size else 0
    for p in module.parameters():
        init.uniform_(p, -bound, bound)


def _param(*shape):
    return Parameter(np.empty(shape, dtypes.default_float.np))


class _Cell(Module):
    _mode = "RNN_TANH"

    def __init__(self, input_size, hidden_size, bias=True, nonlinearity="tanh"):
        super().__init__()
        if self._mode.startswith("RNN"):
            if nonlinearity not in ("tanh", "relu"):
                raise ValueError(f"RNNCell: nonlinearity must be 'tanh' or 'relu', got "
                                 f"{nonlinearity!r}")
            self._mode = "RNN_" + nonlinearity.upper()
        gates = _GATES[self._mode] * hidden_size
        self.input_size, self.hidden_size = input_size, hidden_size
        self.weight_ih = _param(gates, input_size)
        self.weight_hh = _param(gates, hidden_size)
        self.bias_ih = _param(gates) if bias else None
        self.bias_hh = _param(gates) if bias else None
        _uniform_all(self, hidden_size)

    def forward(self, input, hx=None):
        if input.shape[-1] != self.input_size or input.ndim not in (1, 2):
            raise ShapeError(f"{type(self).__name__}: expected input [batch, {self.input_size}] "
                             f"or [{self.input_size}], got shape {list(input.shape)}")
        batch = input.shape[:-1]
        initial = zeros(*batch, self.hidden_size, dtype=input.dtype)
        if self._mode == "LSTM":
            h, c = hx if hx is not None else (initial, initial)
        else:
            h, c = (hx if hx is not None else initial), None
        for name, state in (("hx", h), ("cx", c)):
            if state is not None and tuple(state.shape) != tuple(initial.shape):
                raise ShapeError(f"{type(self).__name__}: expected {name} of shape "
                                 f"{list(initial.shape)} for input of shape {list(input.shape)}, "
                                 f"got {list(state.shape)}")
        h, c = _step(self._mode, F.linear(input, self.weight_ih, self.bias_ih), h, c,
                     self.weight_hh, self.bias_hh)
        return (h, c) if self._mode == "LSTM" else h

    def extra_repr(self):
        s = f"{self.input_size}, {self.hidden_size}"
        if self.bias_ih is None:
            s += ", bias=False"
        if self._mode == "RNN_RELU":
            s += ", nonlinearity=relu"
        return s


class RNNCell(_Cell):
    """h' = tanh(x W_ih^T + b_ih + h W_hh^T + b_hh) (or relu)."""


class LSTMCell(_Cell):
    _mode = "LSTM"


class GRUCell(_Cell):
    _mode = "GRU"


class _RNNBase(Module):
    _mode = "RNN_TANH"

    def __init__(self, input_size, hidden_size, num_layers=1, bias=True, batch_first=False,
                 dropout=0.0, bidirectional=False, nonlinearity="tanh", proj_size=0):
        super().__init__()
        if self._mode.startswith("RNN"):
            if nonlinearity not in ("tanh", "relu"):
                raise ValueError(f"{type(self).__name__}: unknown nonlinearity "
                                 f"{nonlinearity!r}; select from 'tanh' or 'relu'")
            self._mode = "RNN_" + nonlinearity.upper()
        if proj_size and self._mode != "LSTM":
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        if proj_size < 0 or (proj_size and proj_size >= hidden_size):
            raise ValueError(f"{type(self).__name__}: proj_size ({proj_size}) has to be a "
                             f"positive integer smaller than hidden_size ({hidden_size})")
        self.input_size, self.hidden_size, self.num_layers = input_size, hidden_size, num_layers
        self.bias, self.batch_first, self.dropout = bias, batch_first, dropout
        self.bidirectional, self.proj_size = bidirectional, proj_size
        gates = _GATES[self._mode] * hidden_size
        out_size = proj_size or hidden_size  # the size of h (LSTM: projected from hidden_size)
        directions = 2 if bidirectional else 1
        for layer in range(num_layers):
            size = input_size if layer == 0 else out_size * directions
            for suffix in ("", "_reverse")[:directions]:
                setattr(self, f"weight_ih_l{layer}{suffix}", _param(gates, size))
                setattr(self, f"weight_hh_l{layer}{suffix}", _param(gates, out_size))
                if bias:
                    setattr(self, f"bias_ih_l{layer}{suffix}", _param(gates))
                    setattr(self, f"bias_hh_l{layer}{suffix}", _param(gates))
                if proj_size:
                    setattr(self, f"weight_hr_l{layer}{suffix}", _param(proj_size, hidden_size))
        _uniform_all(self, hidden_size)

    def _direction(self, x, layer, suffix, h, c, reverse, running):
        gi = F.linear(x, getattr(self, f"weight_ih_l{layer}{suffix}"),
                      getattr(self, f"bias_ih_l{layer}{suffix}", None))
        w_hh = getattr(self, f"weight_hh_l{layer}{suffix}")
        b_hh = getattr(self, f"bias_hh_l{layer}{suffix}", None)
        w_hr = getattr(self, f"weight_hr_l{layer}{suffix}", None)
        steps = _ops.unbind(gi, 0)
        outputs = []
        for t in (reversed(range(len(steps))) if reverse else range(len(steps))):
            h_next, c_next = _step(self._mode, steps[t], h, c, w_hh, b_hh)
            if w_hr is not None:
                h_next = F.linear(h_next, w_hr)
            if running is not None:  # a finished sequence keeps its last state
                h_next = _ops.where(running[t], h_next, h)
                c_next = None if c is None else _ops.where(running[t], c_next, c)
            h, c = h_next, c_next
            outputs.append(h)
        if reverse:
            outputs.reverse()
        return _ops.stack(outputs, 0), h, c

    def forward(self, input, hx=None):
        if isinstance(input, PackedSequence):
            padded, lengths = pad_packed_sequence(input)
            steps = np.arange(padded.shape[0])[:, None, None]
            running = list(_ops.unbind(Tensor._make(steps < lengths._data[None, :, None]), 0))
            out, state = self._run(padded, hx, running, batch_first=False)
            return repack_like(out, input), state
        return self._run(input, hx, None, batch_first=self.batch_first)

    def _run(self, x, hx, running, *, batch_first):
        unbatched = x.ndim == 2
        if x.ndim not in (2, 3) or x.shape[-1] != self.input_size:
            raise ShapeError(f"{type(self).__name__}: expected input [seq, batch, "
                             f"{self.input_size}] (batch first if batch_first=True), got shape "
                             f"{list(x.shape)}")
        weight = getattr(self, "weight_ih_l0", None)
        if isinstance(weight, Tensor) and x.dtype != weight.dtype:
            raise InputDTypeMismatch(f"{type(self).__name__}: input dtype ({x.dtype}) does not "
                                     f"match weight dtype ({weight.dtype}); convert the input: "
                                     f"input.to({weight.dtype})")
        if self._mode == "LSTM" and hx is not None and (
                not isinstance(hx, (tuple, list)) or len(hx) != 2):
            raise ShapeIndexError(f"LSTM: hx must be a pair (h_0, c_0) of tensors, got "
                                  f"{type(hx).__name__}" + (f" of shape {list(hx.shape)}"
                                                            if isinstance(hx, Tensor) else ""))
        if unbatched:
            x = _ops.unsqueeze(x, 1)
        elif batch_first:
            x = _ops.transpose(x, 0, 1)
        directions = 2 if self.bidirectional else 1
        batch = x.shape[1]
        initial = zeros(self.num_layers * directions, batch, self.hidden_size, dtype=x.dtype)
        if self._mode == "LSTM":
            h_initial = zeros(self.num_layers * directions, batch,
                              self.proj_size or self.hidden_size, dtype=x.dtype)
            h0, c0 = hx if hx is not None else (h_initial, initial)
            if unbatched and hx is not None:
                h0, c0 = _ops.unsqueeze(h0, 1), _ops.unsqueeze(c0, 1)
        else:
            h0 = hx if hx is not None else initial
            if unbatched and hx is not None:
                h0 = _ops.unsqueeze(h0, 1)
            c0 = None
        for i, (state, like) in enumerate(((h0, h_initial if self._mode == "LSTM" else initial),
                                           (c0, initial))):
            if state is not None and tuple(state.shape) != tuple(like.shape):
                raise ShapeError(f"{type(self).__name__}: Expected hidden[{i}] size "
                                 f"{tuple(like.shape)}, got {list(state.shape)}")
        h_n, c_n = [], []
        for layer in range(self.num_layers):
            outs = []
            for d, suffix in enumerate(("", "_reverse")[:directions]):
                k = layer * directions + d
                out, h, c = self._direction(x, layer, suffix, h0[k],
                                            None if c0 is None else c0[k], d == 1, running)
                outs.append(out)
                h_n.append(h)
                c_n.append(c)
            x = outs[0] if directions == 1 else _ops.concat(outs, -1)
            if self.dropout and self.training and layer < self.num_layers - 1:
                x = F.dropout(x, self.dropout)
        h_n = _ops.stack(h_n, 0)
        c_n = _ops.stack(c_n, 0) if self._mode == "LSTM" else None
        if unbatched:
            x = _ops.squeeze(x, 1)
            h_n = _ops.squeeze(h_n, 1)
            c_n = None if c_n is None else _ops.squeeze(c_n, 1)
        elif batch_first:
            x = _ops.transpose(x, 0, 1)
        return (x, (h_n, c_n)) if self._mode == "LSTM" else (x, h_n)

    def extra_repr(self):
        s = f"{self.input_size}, {self.hidden_size}"
        if self.proj_size:
            s += f", proj_size={self.proj_size}"
        if self.num_layers != 1:
            s += f", num_layers={self.num_layers}"
        if self.bias is not True:
            s += f", bias={self.bias}"
        if self.batch_first:
            s += ", batch_first=True"
        if self.dropout != 0:
            s += f", dropout={self.dropout}"
        if self.bidirectional:
            s += ", bidirectional=True"
        return s


class RNN(_RNNBase):
    """Elman RNN; input [seq, batch, features] ([batch, seq, features] with batch_first)."""


class LSTM(_RNNBase):
    """LSTM; returns (output, (h_n, c_n))."""
    _mode = "LSTM"


class GRU(_RNNBase):
    _mode = "GRU"
