"""The comparisons with torch.distributions that the distribution test files share. A case is
`name -> (params, make, value, quantities)`: `make(module, *params)` builds the distribution
with fluxgrad's or torch's module, `value` is where log_prob / cdf are evaluated."""
import numpy as np
import torch
import torch.distributions as TD

import fluxgrad as fg
import fluxgrad.distributions as D


def evaluate(case, what, lib):
    """The quantity `what` of the case's distribution built with `lib`, and the gradients of a
    weighted sum of it with respect to every parameter."""
    params, make, value, _ = case
    module = D if lib is fg else TD
    leaves = [lib.tensor(p, requires_grad=True) for p in params]
    dist = make(module, *leaves)
    if what in ("log_prob", "cdf"):
        out = getattr(dist, what)(lib.tensor(value))
    elif what == "icdf":
        out = dist.icdf(lib.tensor(np.array([0.1, 0.5, 0.85])))
    elif what == "entropy":
        out = dist.entropy()
    else:
        out = getattr(dist, what)
    weights = lib.tensor(np.arange(1.0, out.numel() + 1).reshape(tuple(out.shape)))
    (out * weights).sum().backward()
    return out.detach().numpy(), [None if p.grad is None else p.grad.numpy() for p in leaves]


def assert_values_and_gradients_match_torch(case, what, lower_part_only=()):
    """Values at 1e-7 and gradients at 1e-6 relative; `lower_part_only` lists the parameter
    indices whose gradients are compared on their lower triangle (a Cholesky factor's)."""
    ours, our_grads = evaluate(case, what, fg)
    theirs, their_grads = evaluate(case, what, torch)
    assert ours.shape == theirs.shape
    np.testing.assert_allclose(ours, theirs, rtol=1e-7, atol=1e-10)
    for i, (g, t) in enumerate(zip(our_grads, their_grads)):
        if i in lower_part_only:
            g, t = np.tril(g), np.tril(t)
        if t is None or not np.any(t):
            assert g is None or np.allclose(g, 0, atol=1e-10)
        else:
            np.testing.assert_allclose(g, t, rtol=1e-6, atol=1e-9)


def assert_shapes_match_torch(case):
    """Batch and event shapes, has_rsample and the shapes of samples."""
    params, make, _, _ = case
    ours = make(D, *(fg.tensor(p) for p in params))
    theirs = make(TD, *(torch.tensor(p) for p in params))
    assert tuple(ours.batch_shape) == tuple(theirs.batch_shape)
    assert tuple(ours.event_shape) == tuple(theirs.event_shape)
    assert ours.has_rsample == theirs.has_rsample
    fg.manual_seed(0)
    assert tuple(ours.sample((4, 2)).shape) == tuple(theirs.sample((4, 2)).shape)
    assert tuple(ours.sample().shape) == tuple(theirs.sample().shape)


def assert_rsample_gradient_matches_differences(case, scale=1.0, fixed=(), triangular=(),
                                                atol=1e-7):
    """d/d theta of sum(tanh(rsample((5,)) / scale)) matches central differences of the same
    draws (the seed fixed), i.e. the draw is a differentiable function of the parameters.
    `fixed`: parameter indices that carry no gradient; `triangular`: indices moved only
    within their lower triangle (a Cholesky factor)."""
    params, make, _, _ = case

    def total(values, requires_grad=False):
        leaves = [fg.tensor(v, requires_grad=requires_grad and i not in fixed)
                  for i, v in enumerate(values)]
        fg.manual_seed(3)
        return fg.tanh(make(D, *leaves).rsample((5,)) / scale).sum(), leaves

    value, leaves = total(params, requires_grad=True)
    value.backward()
    for i, p in enumerate(params):
        if i in fixed:
            continue
        direction = np.random.default_rng(i).standard_normal(p.shape)
        if i in triangular:
            direction = np.tril(direction)
        h = 1e-6
        up = [q + h * direction if j == i else q for j, q in enumerate(params)]
        down = [q - h * direction if j == i else q for j, q in enumerate(params)]
        numeric = (total(up)[0].item() - total(down)[0].item()) / (2 * h)
        np.testing.assert_allclose((leaves[i].grad.numpy() * direction).sum(), numeric,
                                   rtol=1e-5, atol=atol)
