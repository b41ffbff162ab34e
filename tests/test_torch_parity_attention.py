"""Attention against PyTorch: F.scaled_dot_product_attention (masks, causal, scale, grouped
heads, dropout) and nn.MultiheadAttention with PyTorch's weights loaded (batch_first, masks,
need_weights, kdim/vdim, bias_kv, zero attention, unbatched): outputs, weights, gradients."""
import numpy as np
import pytest

import fluxgrad as fg

torch = pytest.importorskip("torch")
TF = torch.nn.functional

RNG = np.random.default_rng(0)
Q, K, V = (RNG.standard_normal(s) for s in ((2, 4, 5, 8), (2, 4, 6, 8), (2, 4, 6, 3)))
BOOL_MASK = RNG.random((5, 6)) > 0.3
BOOL_MASK[:, 0] = True  # every query keeps a key (a fully masked row is nan in both)


def _lib_args(lib, kwargs):
    return {k: lib.tensor(v) if isinstance(v, np.ndarray) else v for k, v in kwargs.items()}


@pytest.mark.parametrize("kwargs", [
    {}, {"is_causal": True}, {"attn_mask": BOOL_MASK},
    {"attn_mask": RNG.standard_normal((2, 1, 5, 6))},
    {"scale": 0.3}, {"attn_mask": BOOL_MASK, "scale": 2.0},
], ids=["plain", "causal", "bool mask", "float mask", "scale", "mask and scale"])
def test_sdpa_values_and_gradients_match_torch(kwargs):
    results = []
    for lib in (fg, torch):
        q, k, v = (lib.tensor(a, requires_grad=True) for a in (Q, K, V))
        out = (fg.nn.functional if lib is fg else TF).scaled_dot_product_attention(
            q, k, v, **_lib_args(lib, kwargs))
        out.backward(lib.tensor(np.cos(np.arange(out.numel())).reshape(out.shape)))
        results.append([out.detach().numpy()] + [t.grad.detach().numpy() for t in (q, k, v)])
    for ours, theirs in zip(*results):
        np.testing.assert_allclose(ours, theirs, rtol=1e-10, atol=1e-12)


def test_sdpa_with_grouped_query_heads_matches_torch():
    k, v = RNG.standard_normal((2, 2, 6, 8)), RNG.standard_normal((2, 2, 6, 3))
    ours = fg.nn.functional.scaled_dot_product_attention(fg.tensor(Q), fg.tensor(k),
                                                         fg.tensor(v), enable_gqa=True)
    theirs = TF.scaled_dot_product_attention(torch.tensor(Q), torch.tensor(k), torch.tensor(v),
                                             enable_gqa=True)
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=1e-10)


def test_sdpa_dropout_zeroes_weights_and_rescales_the_rest():
    # with value = identity, the output rows are the (dropped, rescaled) attention weights
    q, k = fg.tensor(Q[0, 0]), fg.tensor(K[0, 0])
    weights = fg.softmax(q @ k.T / np.sqrt(8), -1).detach().numpy()
    fg.manual_seed(0)
    out = fg.nn.functional.scaled_dot_product_attention(q, k, fg.eye(6, dtype=fg.float64),
                                                        dropout_p=0.5).detach().numpy()
    kept = out != 0
    assert 0 < kept.sum() < kept.size
    np.testing.assert_allclose(out[kept], weights[kept] * 2, rtol=1e-12)


def test_sdpa_refuses_mismatched_shapes_as_torch():
    for lib, functional in ((torch, TF), (fg, fg.nn.functional)):
        with pytest.raises(RuntimeError):
            functional.scaled_dot_product_attention(lib.ones(2, 5, 8), lib.ones(2, 6, 7),
                                                    lib.ones(2, 6, 3))


# --- nn.MultiheadAttention --------------------------------------------------------------------
def _pair(**kwargs):
    torch.manual_seed(0)
    theirs = torch.nn.MultiheadAttention(**kwargs).double()
    ours = fg.nn.MultiheadAttention(**kwargs).double()
    ours.load_state_dict({k: fg.tensor(v.detach().numpy()) for k, v in
                          theirs.state_dict().items()})
    return ours, theirs


def _inputs(batch_first, batched=True, kdim=8, vdim=8):
    rng = np.random.default_rng(1)
    lead = ((3,) if batched else ())
    shapes = [(5, 8), (6, kdim), (6, vdim)]
    arrays = [rng.standard_normal(lead + s if batch_first else s[:1] + lead + s[1:])
              for s in shapes]
    return arrays


KEY_PADDING = np.array([[False] * 6, [False] * 4 + [True] * 2, [False, True] + [False] * 4])
CAUSAL = ~np.tril(np.ones((5, 6), dtype=bool))


@pytest.mark.parametrize("module_kwargs,call_kwargs", [
    ({}, {}),
    ({"batch_first": True}, {}),
    ({}, {"key_padding_mask": KEY_PADDING}),
    ({"batch_first": True}, {"attn_mask": CAUSAL, "key_padding_mask": KEY_PADDING}),
    ({}, {"attn_mask": np.where(CAUSAL, -1e9, 0.0), "average_attn_weights": False}),
    ({}, {"attn_mask": CAUSAL, "is_causal": True}),
    ({}, {"need_weights": False}),
    ({"kdim": 4, "vdim": 3}, {"key_padding_mask": KEY_PADDING}),
    ({"add_bias_kv": True}, {"key_padding_mask": KEY_PADDING, "attn_mask": CAUSAL}),
    ({"add_zero_attn": True, "bias": False}, {"attn_mask": CAUSAL}),
], ids=["plain", "batch_first", "key padding", "both masks", "float mask per head",
        "is_causal", "no weights", "kdim vdim", "bias_kv", "zero attn"])
def test_multihead_attention_with_torchs_weights_matches_torch(module_kwargs, call_kwargs):
    ours, theirs = _pair(embed_dim=8, num_heads=2, **module_kwargs)
    arrays = _inputs(module_kwargs.get("batch_first", False), kdim=module_kwargs.get("kdim", 8),
                     vdim=module_kwargs.get("vdim", 8))
    results = []
    for lib, module in ((fg, ours), (torch, theirs)):
        inputs = [lib.tensor(a, requires_grad=True) for a in arrays]
        out, weights = module(*inputs, **_lib_args(lib, call_kwargs))
        loss = (out * lib.tensor(np.sin(np.arange(out.numel())).reshape(out.shape))).sum()
        loss.backward()
        grads = [t.grad.detach().numpy() for t in inputs] + [
            p.grad.detach().numpy() for _, p in sorted(module.named_parameters())]
        results.append([out.detach().numpy()] + ([] if weights is None else
                                                 [weights.detach().numpy()]) + grads)
    assert len(results[0]) == len(results[1])
    for ours_value, theirs_value in zip(*results):
        np.testing.assert_allclose(ours_value, theirs_value, rtol=1e-9, atol=1e-12)


def test_multihead_attention_on_unbatched_input_matches_torch():
    ours, theirs = _pair(embed_dim=8, num_heads=4)
    arrays = _inputs(False, batched=False)
    out, weights = ours(*(fg.tensor(a) for a in arrays))
    t_out, t_weights = theirs(*(torch.tensor(a) for a in arrays))
    np.testing.assert_allclose(out.detach().numpy(), t_out.detach().numpy(), rtol=1e-10)
    np.testing.assert_allclose(weights.detach().numpy(), t_weights.detach().numpy(), rtol=1e-10)


def test_multihead_attention_has_torchs_parameters_and_refuses_odd_heads():
    ours, theirs = _pair(embed_dim=8, num_heads=2, add_bias_kv=True, kdim=4)
    assert sorted(ours.state_dict()) == sorted(theirs.state_dict())
    with pytest.raises(ValueError, match="divisible"):
        fg.nn.MultiheadAttention(8, 3)
