"""nn.MultiheadAttention in the ways models call it: sequence-first (the default) and batch_first,
cross-attention with kdim/vdim, bool and float attn_mask (2-D and per head 3-D), key_padding_mask as
bool and as float, need_weights=False, average_attn_weights=False, add_bias_kv / add_zero_attn,
bias=False, the in_proj / out_proj parameters, and gradients through all of it."""
import numpy as np
import fluxgrad as torch
import fluxgrad.nn as nn

rng = np.random.default_rng(21)


def fill(module):
    with torch.no_grad():
        for p in module.parameters():
            p.copy_(torch.from_numpy(rng.uniform(-0.4, 0.4, tuple(p.shape)).astype(np.float32)))
    return module


def randn(*shape):
    return torch.from_numpy(rng.standard_normal(shape).astype(np.float32))


L, S, N, E = 3, 4, 2, 6
mha = fill(nn.MultiheadAttention(E, num_heads=2))
print(mha)
print([(n, tuple(p.shape)) for n, p in mha.named_parameters()])
q, k = randn(L, N, E), randn(S, N, E)
out, w = mha(q, k, k)
print(out.shape, w.shape)
print(out[:, 0], w[1])
out, w = mha(q, k, k, need_weights=False)
print(out[2, 1], w)

bool_mask = torch.tensor([[False, True, True, True], [False, False, True, True], [False, False, False, True]])
out_b, w_b = mha(q, k, k, attn_mask=bool_mask)
float_mask = torch.zeros(L, S).masked_fill(bool_mask, float("-inf"))
out_f, w_f = mha(q, k, k, attn_mask=float_mask)
print(torch.allclose(out_b, out_f, atol=1e-6), w_b[0])
additive = randn(L, S) * 0.5
print(mha(q, k, k, attn_mask=additive)[1][1])

per_head = torch.zeros(N * 2, L, S, dtype=torch.bool)
per_head[1, :, 0] = True
per_head[3, :, 3] = True
out, w = mha(q, k, k, attn_mask=per_head, average_attn_weights=False)
print(w.shape, w[0, 1], w[1, 0])

kpm = torch.tensor([[False, False, True, True], [False, False, False, False]])
out, w = mha(q, k, k, key_padding_mask=kpm)
print(w[0], out[0, 0])
kpm_float = torch.zeros(N, S).masked_fill(kpm, float("-inf"))
out2, _ = mha(q, k, k, key_padding_mask=kpm_float)
print(torch.allclose(out, out2, atol=1e-6))
out, w = mha(q, k, k, key_padding_mask=kpm, attn_mask=bool_mask)
print(w[1, 2], out[2, 1])

cross = fill(nn.MultiheadAttention(E, 3, kdim=5, vdim=7, batch_first=True))
print(cross.q_proj_weight.shape, cross.k_proj_weight.shape, cross.v_proj_weight.shape, cross.in_proj_weight)
qb, kb, vb = randn(N, L, E), randn(N, S, 5), randn(N, S, 7)
out, w = cross(qb, kb, vb)
print(out.shape, w.shape, out[1, 0])

extra = fill(nn.MultiheadAttention(E, 2, add_bias_kv=True, add_zero_attn=True, bias=False))
print(extra.bias_k.shape, extra.in_proj_bias, extra.out_proj.bias)
out, w = extra(q, k, k)
print(w.shape, w[0, 0], out[0, 1])
out, w = extra(q, k, k, key_padding_mask=kpm)
print(w[0, 1])

unbatched_q = randn(L, E)
out, w = mha(unbatched_q, unbatched_q, unbatched_q)
print(out.shape, w.shape, w[2])

q.requires_grad_()
out, w = mha(q, k, k, attn_mask=bool_mask, key_padding_mask=kpm)
(out.pow(2).sum() + w[:, 0].sum()).backward()
print(q.grad[1], mha.in_proj_weight.grad[:2, :3], mha.out_proj.bias.grad)
