"""The errors fixed by the bad-input survey say what was wrong and what to do: each message
names the op or module, the argument and its value (or shapes, dtypes), and a way out."""
import pytest

import fluxgrad as fg
from fluxgrad import nn, optim


def _lstm_with_a_tensor_as_hx():
    nn.LSTM(3, 4)(fg.ones(5, 2, 3), fg.ones(1, 2, 4))


def _step_with_lr_set_to_str():
    p = fg.ones(2, requires_grad=True)
    opt = optim.SGD([{"params": [fg.ones(1, requires_grad=True)]}, {"params": [p]}], lr=0.1)
    opt.param_groups[1]["lr"] = "0.1"
    p.grad = fg.ones(2)
    opt.step()


CASES = [
    (lambda: fg.ones(2, 3).squeeze("a"), TypeError, ["squeeze", "dim", "'a'"]),
    (lambda: fg.ones(3).fill_(fg.ones(2)), RuntimeError, ["fill_", "shape [2]", "0-d tensor"]),
    (lambda: fg.ones(3).to("banana"), RuntimeError, ["'banana'", "dtype", "device"]),
    (lambda: fg.ones(3).type("banana"), ValueError, ["'banana'", "dtype"]),
    (lambda: fg.ones(1, 3).expand(-2, 3), RuntimeError, ["expand", "[-2, 3]", "-1"]),
    (lambda: fg.full((2,), "a"), TypeError, ["fill_value", "str", "fluxgrad.tensor"]),
    (lambda: fg.isclose(fg.ones(2, dtype=fg.int64), fg.ones(2)), RuntimeError,
     ["isclose", "int64", "float32", "convert"]),
    (lambda: fg.tensordot(fg.ones(2, dtype=fg.int64), fg.ones(2), 1), RuntimeError,
     ["tensordot", "int64", "float32"]),
    (lambda: fg.nn.functional.nll_loss(fg.ones(3, 4), fg.ones(3)), RuntimeError,
     ["nll_loss", "float32", ".long()"]),
    (lambda: nn.Linear(-1, 3), RuntimeError, ["[3, -1]", "non-negative"]),
    (lambda: nn.Conv2d(1, 4, 3, padding="banana"), ValueError, ["'banana'", "'same'", "'valid'"]),
    (lambda: nn.Conv2d(1, 4, 3, padding="same", stride=2), ValueError, ["same", "stride"]),
    (lambda: nn.Embedding(3, 2, padding_idx=5), AssertionError, ["padding_idx 5", "[-3, 2]"]),
    (lambda: nn.BatchNorm1d(3)(fg.ones(2, 4)), RuntimeError, ["BatchNorm1d(3)", "[2, 4]"]),
    (lambda: nn.BatchNorm1d(3)(fg.ones(2, 3, dtype=fg.int64)), NotImplementedError,
     ["int64", ".float()"]),
    (_lstm_with_a_tensor_as_hx, IndexError, ["LSTM", "(h_0, c_0)", "[1, 2, 4]"]),
    (lambda: nn.LSTM(3, 4)(fg.ones(5, 2, 3, dtype=fg.int64)), ValueError,
     ["int64", "float32", "input.to"]),
    (lambda: nn.RNN(3, 4, nonlinearity="banana"), ValueError, ["'banana'", "'tanh'", "'relu'"]),
    (lambda: nn.MultiheadAttention(8, 2)(fg.ones(5, 2, 8), fg.ones(5, 2, 8), fg.ones(5, 2, 8),
                                         attn_mask=fg.ones(5, 5, dtype=fg.int64)),
     AssertionError, ["attn_mask", "int64"]),
    (lambda: nn.MultiheadAttention(8, 2)(fg.ones(5, 2, 8), fg.ones(5, 2, 8), fg.ones(5, 2, 8),
                                         key_padding_mask=fg.zeros(2, 4, dtype=fg.bool)),
     AssertionError, ["key_padding_mask", "[2, 5]", "[2, 4]"]),
    (lambda: fg.utils.data.DataLoader([1, 2], num_workers=-1), ValueError,
     ["num_workers", "-1", "num_workers=0"]),
    (lambda: fg.utils.data.DataLoader([1, 2], prefetch_factor=2), ValueError,
     ["prefetch_factor", "num_workers > 0"]),
    (lambda: fg.save(fg.ones(2), "/nonexistent/dir/x.pt"), RuntimeError,
     ["/nonexistent/dir", "os.makedirs"]),
    (lambda: fg.func.grad(lambda t: t * 2)(fg.ones(3)), RuntimeError, ["[3]", "vjp"]),
    (_step_with_lr_set_to_str, TypeError, ["SGD.step", "group 1", "lr", "str"]),
    (lambda: nn.Linear(2, 2).load_state_dict({"weight": [[1.0, 2.0], [3.0, 4.0]],
                                              "bias": fg.ones(2)}),
     RuntimeError, ['"weight"', "list"]),
    (lambda: fg.ones(2, 3).view(2.0, 3), TypeError, ["ints", "2.0", "int()"]),
]


@pytest.mark.parametrize("call,error,words", CASES, ids=[", ".join(c[2][:2]) for c in CASES])
def test_the_message_names_what_was_wrong_and_what_to_do(call, error, words):
    with pytest.raises(error) as info:
        call()
    for word in words:
        assert word in str(info.value), (word, str(info.value))
