"""Transformer modules against PyTorch: with PyTorch's weights loaded (float64, dropout 0), each
class gives PyTorch's outputs and the gradients of every parameter and input, batch_first and
norm_first both ways, with attention and key-padding masks; plus the causal-mask helper and the
errors PyTorch raises."""
import numpy as np
import pytest

import fluxgrad as fg

torch = pytest.importorskip("torch")

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")

D_MODEL, NHEAD, FF = 8, 2, 12
SRC_LEN, TGT_LEN, BATCH = 5, 4, 3
RNG = np.random.default_rng(0)
SRC = RNG.standard_normal((SRC_LEN, BATCH, D_MODEL))
TGT = RNG.standard_normal((TGT_LEN, BATCH, D_MODEL))
SRC_PAD = np.zeros((BATCH, SRC_LEN), bool)
SRC_PAD[0, -2:] = SRC_PAD[2, -1] = True  # padded keys; every query keeps some key
TGT_PAD = np.zeros((BATCH, TGT_LEN), bool)
TGT_PAD[1, -1] = True
MEMORY_MASK = RNG.standard_normal((TGT_LEN, SRC_LEN))


def _causal(n):
    return np.triu(np.full((n, n), -np.inf), 1)


def _build(lib, cls, *args, **kwargs):
    """The module built by `lib`; `cls` names a class, or (for containers) a callable of nn."""
    nn = lib.nn
    return cls(nn, *args, **kwargs) if callable(cls) else getattr(nn, cls)(*args, **kwargs)


def _pair(cls, *args, **kwargs):
    """A torch module and ours with the torch module's weights, both float64."""
    torch.manual_seed(0)
    theirs = _build(torch, cls, *args, **kwargs).double()
    ours = _build(fg, cls, *args, **kwargs).double()
    state = {k: fg.tensor(v.detach().numpy()) for k, v in theirs.state_dict().items()}
    assert sorted(state) == sorted(ours.state_dict())
    ours.load_state_dict(state)
    return ours, theirs


def _seq_first_to_lib(lib, array, batch_first):
    return lib.tensor(array.transpose(1, 0, 2) if batch_first else array, requires_grad=True)


def _check(ours, theirs, inputs, kwargs, batch_first=False):
    """Forward both modules on `inputs` (sequence-first arrays), backward a fixed cotangent,
    compare the outputs and the gradients of every parameter and input."""
    results = []
    for lib, module in ((fg, ours), (torch, theirs)):
        xs = [_seq_first_to_lib(lib, a, batch_first) if a.ndim == 3 else
              lib.tensor(a, requires_grad=True) for a in inputs]
        lib_kwargs = {k: lib.tensor(v) if isinstance(v, np.ndarray) else v
                      for k, v in kwargs.items()}
        out = module(*xs, **lib_kwargs)
        out.backward(lib.tensor(np.cos(np.arange(out.numel())).reshape(tuple(out.shape))))
        grads = {name: p.grad.detach().numpy() for name, p in module.named_parameters()}
        results.append((out.detach().numpy(), [x.grad.detach().numpy() for x in xs], grads))
    (out, x_grads, grads), (t_out, t_x_grads, t_grads) = results
    np.testing.assert_allclose(out, t_out, rtol=1e-9, atol=1e-11)
    for g, t_g in zip(x_grads, t_x_grads):
        np.testing.assert_allclose(g, t_g, rtol=1e-9, atol=1e-11)
    assert sorted(grads) == sorted(t_grads)
    for name in grads:
        np.testing.assert_allclose(grads[name], t_grads[name], rtol=1e-9, atol=1e-11,
                                   err_msg=name)


LAYOUTS = pytest.mark.parametrize("batch_first,norm_first", [
    (False, False), (True, False), (False, True), (True, True)])


@LAYOUTS
@pytest.mark.parametrize("masks", ["none", "causal", "padding", "both"])
def test_encoder_layer_matches_torch(batch_first, norm_first, masks):
    ours, theirs = _pair("TransformerEncoderLayer", D_MODEL, NHEAD, FF, dropout=0.0,
                         batch_first=batch_first, norm_first=norm_first)
    kwargs = {}
    if masks in ("causal", "both"):
        kwargs.update(src_mask=_causal(SRC_LEN), is_causal=True)
    if masks in ("padding", "both"):
        kwargs["src_key_padding_mask"] = SRC_PAD
    _check(ours, theirs, [SRC], kwargs, batch_first)


@pytest.mark.parametrize("activation", ["gelu", "relu"])
def test_encoder_layer_activation_and_no_bias_match_torch(activation):
    ours, theirs = _pair("TransformerEncoderLayer", D_MODEL, NHEAD, FF, dropout=0.0,
                         activation=activation, bias=False, layer_norm_eps=1e-3)
    _check(ours, theirs, [SRC], {"src_key_padding_mask": SRC_PAD})


def test_encoder_layer_callable_activation_matches_torch():
    torch.manual_seed(0)
    theirs = torch.nn.TransformerEncoderLayer(D_MODEL, NHEAD, FF, dropout=0.0,
                                              activation=torch.tanh).double()
    ours = fg.nn.TransformerEncoderLayer(D_MODEL, NHEAD, FF, dropout=0.0,
                                         activation=fg.tanh).double()
    ours.load_state_dict({k: fg.tensor(v.detach().numpy())
                          for k, v in theirs.state_dict().items()})
    _check(ours, theirs, [SRC], {})


def test_encoder_layer_unbatched_input_matches_torch():
    ours, theirs = _pair("TransformerEncoderLayer", D_MODEL, NHEAD, FF, dropout=0.0)
    _check(ours, theirs, [SRC[:, 0]], {"src_mask": _causal(SRC_LEN) == -np.inf})


def _encoder(nn, batch_first, norm_first):
    layer = nn.TransformerEncoderLayer(D_MODEL, NHEAD, FF, dropout=0.0, batch_first=batch_first,
                                       norm_first=norm_first)
    return nn.TransformerEncoder(layer, 2, norm=nn.LayerNorm(D_MODEL),
                                 enable_nested_tensor=False)


@LAYOUTS
def test_encoder_stack_matches_torch(batch_first, norm_first):
    ours, theirs = _pair(_encoder, batch_first, norm_first)
    _check(ours, theirs, [SRC], {"mask": _causal(SRC_LEN), "src_key_padding_mask": SRC_PAD},
           batch_first)


def test_encoder_stack_layers_are_independent_copies():
    layer = fg.nn.TransformerEncoderLayer(D_MODEL, NHEAD, FF)
    encoder = fg.nn.TransformerEncoder(layer, 2)
    first, second = encoder.layers[0].linear1.weight, encoder.layers[1].linear1.weight
    assert first is not second and first is not layer.linear1.weight
    assert len(list(encoder.parameters())) == 2 * len(list(layer.parameters()))


DECODER_MASKS = {"none": {},
                 "tgt": {"tgt_mask": _causal(TGT_LEN), "tgt_is_causal": True},
                 "memory": {"memory_mask": MEMORY_MASK, "memory_key_padding_mask": SRC_PAD},
                 "all": {"tgt_mask": _causal(TGT_LEN), "memory_mask": MEMORY_MASK,
                         "tgt_key_padding_mask": TGT_PAD, "memory_key_padding_mask": SRC_PAD}}


@LAYOUTS
@pytest.mark.parametrize("masks", list(DECODER_MASKS))
def test_decoder_layer_matches_torch(batch_first, norm_first, masks):
    ours, theirs = _pair("TransformerDecoderLayer", D_MODEL, NHEAD, FF, dropout=0.0,
                         batch_first=batch_first, norm_first=norm_first)
    _check(ours, theirs, [TGT, SRC], DECODER_MASKS[masks], batch_first)


def test_decoder_layer_gelu_without_bias_matches_torch():
    ours, theirs = _pair("TransformerDecoderLayer", D_MODEL, NHEAD, FF, dropout=0.0,
                         activation="gelu", bias=False)
    _check(ours, theirs, [TGT, SRC], DECODER_MASKS["all"])


def _decoder(nn, batch_first, norm_first):
    layer = nn.TransformerDecoderLayer(D_MODEL, NHEAD, FF, dropout=0.0, batch_first=batch_first,
                                       norm_first=norm_first)
    return nn.TransformerDecoder(layer, 2, norm=nn.LayerNorm(D_MODEL))


@LAYOUTS
def test_decoder_stack_matches_torch(batch_first, norm_first):
    ours, theirs = _pair(_decoder, batch_first, norm_first)
    _check(ours, theirs, [TGT, SRC], DECODER_MASKS["all"], batch_first)


@LAYOUTS
@pytest.mark.parametrize("masks", ["none", "all"])
def test_transformer_matches_torch(batch_first, norm_first, masks):
    ours, theirs = _pair("Transformer", D_MODEL, NHEAD, 2, 2, FF, dropout=0.0,
                         batch_first=batch_first, norm_first=norm_first)
    kwargs = {} if masks == "none" else {
        "src_mask": _causal(SRC_LEN), "tgt_mask": _causal(TGT_LEN), "memory_mask": MEMORY_MASK,
        "src_key_padding_mask": SRC_PAD, "tgt_key_padding_mask": TGT_PAD,
        "memory_key_padding_mask": SRC_PAD}
    _check(ours, theirs, [SRC, TGT], kwargs, batch_first)


def test_transformer_gelu_without_bias_matches_torch():
    ours, theirs = _pair("Transformer", D_MODEL, NHEAD, 1, 1, FF, dropout=0.0,
                         activation="gelu", bias=False, layer_norm_eps=1e-4)
    _check(ours, theirs, [SRC, TGT], {"tgt_mask": _causal(TGT_LEN), "tgt_is_causal": True})


def test_transformer_initialises_matrices_xavier_uniform():
    model = fg.nn.Transformer(16, 2, 1, 1, 64, dropout=0.0)
    weight = model.encoder.layers[0].linear1.weight.detach().numpy()  # [64, 16]
    bound = np.sqrt(6 / (16 + 64))
    assert np.abs(weight).max() <= bound and np.abs(weight).max() > 0.9 * bound


@pytest.mark.parametrize("size", [1, 4])
def test_generate_square_subsequent_mask_matches_torch(size):
    ours = fg.nn.Transformer.generate_square_subsequent_mask(size)
    theirs = torch.nn.Transformer.generate_square_subsequent_mask(size)
    assert ours.dtype == fg.float32
    np.testing.assert_array_equal(ours.numpy(), theirs.numpy())
    ours64 = fg.nn.Transformer.generate_square_subsequent_mask(size, dtype=fg.float64)
    assert ours64.dtype == fg.float64


def test_unknown_activation_is_refused_as_torch():
    with pytest.raises(RuntimeError):
        torch.nn.TransformerEncoderLayer(D_MODEL, NHEAD, activation="tanh")
    with pytest.raises(RuntimeError, match="activation should be 'relu' or 'gelu'.*'tanh'"):
        fg.nn.TransformerEncoderLayer(D_MODEL, NHEAD, activation="tanh")


def test_transformer_refuses_batch_mismatch_as_torch():
    src, tgt = np.zeros((5, 2, D_MODEL)), np.zeros((4, 3, D_MODEL))
    with pytest.raises(RuntimeError):
        torch.nn.Transformer(D_MODEL, NHEAD, 1, 1, FF)(torch.tensor(src).float(),
                                                       torch.tensor(tgt).float())
    with pytest.raises(RuntimeError, match=r"batch size of src \(2\) and tgt \(3\)"):
        fg.nn.Transformer(D_MODEL, NHEAD, 1, 1, FF)(fg.tensor(src, dtype=fg.float32),
                                                    fg.tensor(tgt, dtype=fg.float32))


def test_transformer_refuses_wrong_feature_size_as_torch():
    src, tgt = np.zeros((5, 2, D_MODEL + 1)), np.zeros((4, 2, D_MODEL + 1))
    with pytest.raises(RuntimeError):
        torch.nn.Transformer(D_MODEL, NHEAD, 1, 1, FF)(torch.tensor(src).float(),
                                                       torch.tensor(tgt).float())
    with pytest.raises(RuntimeError, match="d_model=8"):
        fg.nn.Transformer(D_MODEL, NHEAD, 1, 1, FF)(fg.tensor(src, dtype=fg.float32),
                                                    fg.tensor(tgt, dtype=fg.float32))


@pytest.mark.parametrize("module,args,kwargs", [
    ("TransformerEncoderLayer", [SRC], {"is_causal": True}),
    ("TransformerDecoderLayer", [TGT, SRC], {"tgt_is_causal": True}),
    ("TransformerDecoderLayer", [TGT, SRC], {"memory_is_causal": True}),
], ids=["encoder", "decoder target", "decoder memory"])
def test_causal_hint_without_its_mask_is_refused_as_torch(module, args, kwargs):
    ours, theirs = _pair(module, D_MODEL, NHEAD, FF, dropout=0.0)
    with pytest.raises(RuntimeError):
        theirs(*(torch.tensor(a) for a in args), **kwargs)
    with pytest.raises(RuntimeError, match="causal hint needs its mask"):
        ours(*(fg.tensor(a) for a in args), **kwargs)


def test_device_and_dtype_arguments_as_torch():
    model = fg.nn.Transformer(D_MODEL, NHEAD, 1, 1, FF, device="cpu", dtype=fg.float64)
    assert {p.dtype for p in model.parameters()} == {fg.float64}
    with pytest.raises(RuntimeError, match="device 'cuda' is not available"):
        fg.nn.TransformerEncoderLayer(D_MODEL, NHEAD, device="cuda")
