"""`nn.utils.rnn`: variable-length sequences, as PyTorch's.

A `PackedSequence` stores a batch of sequences time step by time step: `data` holds, for each
step t, the entries of the `batch_sizes[t]` sequences still running, longest sequence first
(`sorted_indices` orders the batch that way, `unsorted_indices` restores it). Packing and
unpacking gather rows with `index_select`, so gradients flow through them to any order.
"""
from typing import NamedTuple, Optional

import numpy as np

from ... import ops as _ops
from ..._core.tensor import Tensor
from ...creation import full, tensor

__all__ = ["PackedSequence", "pad_sequence", "pack_padded_sequence", "pad_packed_sequence",
           "pack_sequence", "unpad_sequence", "unpack_sequence"]


class PackedSequence(NamedTuple):
    data: Tensor
    batch_sizes: Tensor
    sorted_indices: Optional[Tensor] = None
    unsorted_indices: Optional[Tensor] = None

    def _layout(self):
        """(lengths in sorted order, the flat (time * batch) row of each entry of `data`)."""
        sizes = self.batch_sizes._data
        batch = int(sizes[0]) if len(sizes) else 0
        lengths = (sizes[None, :] > np.arange(batch)[:, None]).sum(axis=1)
        rows = np.concatenate([t * batch + np.arange(n) for t, n in enumerate(sizes)]
                              ) if len(sizes) else np.zeros(0, np.int64)
        return lengths, rows.astype(np.int64), batch

    def to(self, *args, **kwargs):
        return self._replace(data=self.data.to(*args, **kwargs))


def _lengths(lengths, op):
    data = np.asarray(lengths._data if isinstance(lengths, Tensor) else lengths)
    if data.ndim != 1 or data.dtype.kind not in "iu":
        raise ValueError(f"{op}: lengths must be a 1-d list or tensor of integers, got "
                         f"{data.dtype} of shape {list(data.shape)}")
    if data.size and data.min() <= 0:
        raise RuntimeError(f"{op}: every sequence length must be greater than 0, got "
                           f"{data.tolist()}")
    return data.astype(np.int64)


def _rows(x, rows):
    return _ops.index_select(x, 0, Tensor._make(np.asarray(rows, np.int64)))


def pad_sequence(sequences, batch_first=False, padding_value=0.0, padding_side="right"):
    """Stack sequences of shapes [L_i, *] into [max L, batch, *] ([batch, max L, *] with
    batch_first), filling with `padding_value` on the `padding_side` ('right' or 'left')."""
    if padding_side not in ("right", "left"):
        raise ValueError(f"pad_sequence: padding_side must be 'right' or 'left', got "
                         f"{padding_side!r}")
    sequences = list(sequences)
    if not sequences:
        raise RuntimeError("pad_sequence: received an empty list of sequences")
    longest = max(s.shape[0] for s in sequences)
    padded = []
    for s in sequences:
        fill = full((longest - s.shape[0],) + tuple(s.shape[1:]), padding_value, dtype=s.dtype)
        padded.append(_ops.concat([s, fill] if padding_side == "right" else [fill, s], 0))
    return _ops.stack(padded, 0 if batch_first else 1)


def pack_padded_sequence(input, lengths, batch_first=False, enforce_sorted=True):
    """Pack a padded batch [T, B, *] ([B, T, *] with batch_first) of sequences of `lengths`.
    With enforce_sorted=True the lengths must be decreasing; otherwise the batch is sorted
    here and the permutation kept in the result."""
    lengths = _lengths(lengths, "pack_padded_sequence")
    if batch_first:
        input = _ops.transpose(input, 0, 1)
    steps, batch = input.shape[0], input.shape[1]
    if len(lengths) != batch:
        raise ValueError(f"pack_padded_sequence: got {len(lengths)} lengths for a batch of "
                         f"{batch} sequences (input shape {list(input.shape)})")
    if lengths.size and lengths.max() > steps:
        raise RuntimeError(f"pack_padded_sequence: a length of {lengths.max()} exceeds the "
                           f"{steps} time steps of the input")
    sorted_indices = unsorted_indices = None
    if enforce_sorted:
        if np.any(np.diff(lengths) > 0):
            raise RuntimeError(f"pack_padded_sequence: lengths {lengths.tolist()} must be sorted "
                               "in decreasing order when enforce_sorted=True; pass "
                               "enforce_sorted=False to have them sorted here")
        order = np.arange(batch)
    else:
        order = np.argsort(-lengths, kind="stable")
        sorted_indices = tensor(order.astype(np.int64))
        unsorted_indices = tensor(np.argsort(order).astype(np.int64))
    sorted_lengths = lengths[order]
    batch_sizes = (sorted_lengths[None, :] > np.arange(sorted_lengths[0])[:, None]).sum(axis=1)
    rows = np.concatenate([t * batch + order[:n] for t, n in enumerate(batch_sizes)])
    data = _rows(_ops.reshape(input, (steps * batch,) + tuple(input.shape[2:])), rows)
    return PackedSequence(data, tensor(batch_sizes.astype(np.int64)), sorted_indices,
                          unsorted_indices)


def pad_packed_sequence(sequence, batch_first=False, padding_value=0.0, total_length=None):
    """The inverse of `pack_padded_sequence`: (padded [T, B, *] or [B, T, *], lengths), in the
    batch's original order."""
    lengths, rows, batch = sequence._layout()
    steps = len(sequence.batch_sizes._data)
    if total_length is not None:
        if total_length < steps:
            raise ValueError(f"pad_packed_sequence: total_length={total_length} is shorter than "
                             f"the longest sequence ({steps} steps)")
        steps = total_length
    data = sequence.data
    feature = tuple(data.shape[1:])
    # every padded slot reads one row of `data` plus a padding row appended at its end
    source = np.full(steps * batch, len(rows), np.int64)
    source[rows] = np.arange(len(rows))
    extended = _ops.concat([data, full((1,) + feature, padding_value, dtype=data.dtype)], 0)
    padded = _ops.reshape(_rows(extended, source), (steps, batch) + feature)
    if sequence.unsorted_indices is not None:
        padded = _ops.index_select(padded, 1, sequence.unsorted_indices)
        lengths = lengths[sequence.unsorted_indices._data]
    if batch_first:
        padded = _ops.transpose(padded, 0, 1)
    return padded, tensor(lengths.astype(np.int64))


def repack_like(padded, like):
    """Pack a padded [T, B, *] batch (in original order) with the layout of the PackedSequence
    `like` (its batch sizes and permutation)."""
    _, rows, batch = like._layout()
    if like.sorted_indices is not None:
        padded = _ops.index_select(padded, 1, like.sorted_indices)
    steps = len(like.batch_sizes._data)
    padded = _ops.reshape(padded[:steps], (steps * batch,) + tuple(padded.shape[2:]))
    return like._replace(data=_rows(padded, rows))


def pack_sequence(sequences, enforce_sorted=True):
    """Pack a list of sequences [L_i, *] (decreasing lengths unless enforce_sorted=False)."""
    sequences = list(sequences)
    return pack_padded_sequence(pad_sequence(sequences), [s.shape[0] for s in sequences],
                                enforce_sorted=enforce_sorted)


def unpad_sequence(padded_sequences, lengths, batch_first=False):
    """The list of sequences a padded batch holds, each cut to its length."""
    if not batch_first:
        padded_sequences = _ops.transpose(padded_sequences, 0, 1)
    lengths = _lengths(lengths, "unpad_sequence")
    return [padded_sequences[i, :n] for i, n in enumerate(lengths.tolist())]


def unpack_sequence(packed_sequences):
    """The list of sequences a PackedSequence holds, in the batch's original order."""
    padded, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return unpad_sequence(padded, lengths, batch_first=True)
