"""Second-order autograd the way influence-function and Hessian-free code uses it: a logistic
regression's Hessian-vector product by double backward (grad of grad . v with create_graph),
checked against torch.autograd.functional.hvp/vhp and the full hessian; conjugate gradient solving
H x = g with only HVPs (a Newton-CG step), LiSSA's recursive inverse-HVP estimate, the influence of
up-weighting each training point on a test loss, and leave-one-out retraining agreeing in
sign."""
import numpy as np
import fluxgrad as torch
import fluxgrad.nn.functional as F
from fluxgrad.autograd.functional import hessian, hvp, vhp

rng = np.random.default_rng(7)
n, d = 40, 3
X = torch.from_numpy(rng.normal(size=(n, d)))
y = torch.from_numpy((rng.uniform(size=n) < 1 / (1 + np.exp(-(X.numpy() @ np.array([1.0, -2.0, 0.5]))))).astype(np.float64))
lam = 0.01


def loss_fn(w, X=X, y=y):
    return F.binary_cross_entropy_with_logits(X @ w, y) + lam / 2 * w.dot(w)


w = torch.zeros(d, dtype=torch.float64, requires_grad=True)
opt = torch.optim.LBFGS([w], line_search_fn="strong_wolfe")


def closure():
    opt.zero_grad()
    loss = loss_fn(w)
    loss.backward()
    return loss


opt.step(closure)
w_hat = w.detach()
print(w_hat, round(loss_fn(w_hat).item(), 6))


def hvp_double_backward(w, v):
    w = w.detach().requires_grad_()
    (g,) = torch.autograd.grad(loss_fn(w), w, create_graph=True)
    (hv,) = torch.autograd.grad(g.dot(v), w)
    return hv


v = torch.tensor([1.0, 0.5, -1.0], dtype=torch.float64)
H = hessian(loss_fn, w_hat)
_, hv_api = hvp(loss_fn, w_hat, v)
_, vh_api = vhp(loss_fn, w_hat, v)
print(hvp_double_backward(w_hat, v), hv_api, vh_api, H @ v)


def conjugate_gradient(Avp, b, iters=10, tol=1e-12):
    x = torch.zeros_like(b)
    r = b.clone()
    p = r.clone()
    rs = r.dot(r)
    for i in range(iters):
        Ap = Avp(p)
        alpha = rs / p.dot(Ap)
        x = x + alpha * p
        r = r - alpha * Ap
        rs_new = r.dot(r)
        if rs_new < tol:
            break
        p = r + rs_new / rs * p
        rs = rs_new
    return x, i


x_test, y_test = X[:1] * 1.5, 1 - y[:1]
test_w = w_hat.clone().requires_grad_()
(g_test,) = torch.autograd.grad(loss_fn(test_w, x_test, y_test), test_w)
ihvp, iters = conjugate_gradient(lambda p: hvp_double_backward(w_hat, p), g_test)
print(iters, ihvp, torch.allclose(ihvp, torch.linalg.solve(H, g_test), atol=1e-8))

estimate = g_test.clone()
scale, damping = 0.2, 0.0
for _ in range(60):
    estimate = g_test + (1 - damping) * estimate - hvp_double_backward(w_hat, estimate) / scale
lissa = estimate / scale
print(lissa, (lissa - ihvp).abs().max() < 1e-3)

influences = []
for i in range(n):
    wi = w_hat.clone().requires_grad_()
    (gi,) = torch.autograd.grad(F.binary_cross_entropy_with_logits(X[i] @ wi, y[i]), wi)
    influences.append(-(gi.dot(ihvp)))
influences = torch.stack(influences)
order = influences.argsort()
print(influences[:5], order[:3], order[-3:])


def retrain_without(i):
    keep = torch.ones(n, dtype=torch.bool)
    keep[i] = False
    wl = w_hat.clone().requires_grad_()
    o = torch.optim.LBFGS([wl], line_search_fn="strong_wolfe")

    def c():
        o.zero_grad()
        l = F.binary_cross_entropy_with_logits(X[keep] @ wl, y[keep]) * (n - 1) / n + lam / 2 * wl.dot(wl)
        l.backward()
        return l

    o.step(c)
    return loss_fn(wl.detach(), x_test, y_test) - loss_fn(w_hat, x_test, y_test)


for i in (order[0].item(), order[-1].item()):
    actual = retrain_without(i)
    print(i, "predicted %.5f actual %.5f" % ((-influences[i] / n).item(), actual.item()), torch.sign(-influences[i]) == torch.sign(actual))
