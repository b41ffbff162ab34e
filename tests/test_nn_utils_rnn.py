"""nn.utils.rnn against PyTorch: padding, packing and unpacking (values and gradients), and
the recurrent layers run on a PackedSequence (outputs, final states, parameter gradients)."""
import numpy as np
import pytest
import torch

import fluxgrad as fg
from fluxgrad.nn.utils import rnn
from fluxgrad.nn.utils.rnn import PackedSequence

LENGTHS = [2, 4, 1, 3]


def sequences(lib, requires_grad=False):
    gen = np.random.default_rng(0)
    return [lib.tensor(gen.standard_normal((n, 3)), requires_grad=requires_grad) for n in LENGTHS]


def same(a, b, **kw):
    np.testing.assert_allclose(np.asarray(a.detach().numpy()),
                               b.detach().numpy(), rtol=1e-6, atol=1e-9, **kw)


@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("padding_side", ["right", "left"])
def test_pad_sequence_matches_torch(batch_first, padding_side):
    ours = rnn.pad_sequence(sequences(fg), batch_first, -1.5, padding_side)
    theirs = torch.nn.utils.rnn.pad_sequence(sequences(torch), batch_first, -1.5, padding_side)
    same(ours, theirs)


@pytest.mark.parametrize("batch_first", [False, True])
def test_pack_and_pad_round_trip_matches_torch_with_gradients(batch_first):
    xs, ts = sequences(fg, True), sequences(torch, True)
    ours = rnn.pack_padded_sequence(rnn.pad_sequence(xs, batch_first), LENGTHS, batch_first,
                                    enforce_sorted=False)
    theirs = torch.nn.utils.rnn.pack_padded_sequence(
        torch.nn.utils.rnn.pad_sequence(ts, batch_first), LENGTHS, batch_first,
        enforce_sorted=False)
    for a, b in zip(ours, theirs):
        same(a, b)
    padded, lengths = rnn.pad_packed_sequence(ours, batch_first, 7.0, total_length=5)
    t_padded, t_lengths = torch.nn.utils.rnn.pad_packed_sequence(theirs, batch_first, 7.0,
                                                                  total_length=5)
    same(padded, t_padded)
    same(lengths, t_lengths)
    weights = np.random.default_rng(1).standard_normal(padded.shape)
    (padded * fg.tensor(weights)).sum().backward()
    (t_padded * torch.tensor(weights)).sum().backward()
    for x, t in zip(xs, ts):
        same(x.grad, t.grad)


def test_pack_sequence_sorted_has_no_permutation():
    ours = rnn.pack_sequence(sorted(sequences(fg), key=len, reverse=True))
    theirs = torch.nn.utils.rnn.pack_sequence(sorted(sequences(torch), key=len, reverse=True))
    assert isinstance(ours, PackedSequence) and ours.sorted_indices is None
    same(ours.data, theirs.data)
    same(ours.batch_sizes, theirs.batch_sizes)
    for a, b in zip(rnn.unpack_sequence(ours), torch.nn.utils.rnn.unpack_sequence(theirs)):
        same(a, b)


def test_unsorted_lengths_with_enforce_sorted_raise_runtime_error():
    with pytest.raises(RuntimeError, match="enforce_sorted=False"):
        rnn.pack_sequence(sequences(fg))


@pytest.mark.parametrize("kind", ["RNN", "LSTM", "GRU"])
@pytest.mark.parametrize("bidirectional", [False, True])
def test_recurrent_layers_on_packed_sequences_match_torch(kind, bidirectional):
    torch.manual_seed(0)
    t_layer = getattr(torch.nn, kind)(3, 4, num_layers=2, bidirectional=bidirectional).double()
    layer = getattr(fg.nn, kind)(3, 4, num_layers=2, bidirectional=bidirectional).double()
    layer.load_state_dict({k: v.detach().numpy() for k, v in t_layer.state_dict().items()})
    xs, ts = sequences(fg, True), sequences(torch, True)
    out, state = layer(rnn.pack_sequence(xs, enforce_sorted=False))
    t_out, t_state = t_layer(torch.nn.utils.rnn.pack_sequence(ts, enforce_sorted=False))
    assert isinstance(out, PackedSequence)
    same(out.data, t_out.data)
    states = state if kind == "LSTM" else (state,)
    t_states = t_state if kind == "LSTM" else (t_state,)
    for s, t in zip(states, t_states):
        same(s, t)
    weights = np.random.default_rng(2).standard_normal(out.data.shape)
    ((out.data * fg.tensor(weights)).sum() + states[0].sum()).backward()
    ((t_out.data * torch.tensor(weights)).sum() + t_states[0].sum()).backward()
    for x, t in zip(xs, ts):
        same(x.grad, t.grad)
    for name, p in t_layer.named_parameters():
        same(dict(layer.named_parameters())[name].grad, p.grad)


def test_lstm_on_a_packed_sequence_takes_and_returns_states_in_the_original_order():
    torch.manual_seed(1)
    t_layer = torch.nn.LSTM(3, 2, batch_first=True).double()
    layer = fg.nn.LSTM(3, 2, batch_first=True).double()
    layer.load_state_dict({k: v.detach().numpy() for k, v in t_layer.state_dict().items()})
    h0 = np.random.default_rng(3).standard_normal((2, 1, 4, 2))
    out, (h, c) = layer(rnn.pack_sequence(sequences(fg), enforce_sorted=False),
                        (fg.tensor(h0[0]), fg.tensor(h0[1])))
    t_out, (t_h, t_c) = t_layer(torch.nn.utils.rnn.pack_sequence(sequences(torch), False),
                                (torch.tensor(h0[0]), torch.tensor(h0[1])))
    same(out.data, t_out.data)
    same(h, t_h)
    same(c, t_c)
