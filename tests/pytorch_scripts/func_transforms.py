"""torch.func: grad, grad_and_value, vmap, jacrev, jacfwd, hessian, vjp, jvp, linearize,
functional_call."""
import numpy as np
import fluxgrad as torch
from fluxgrad.func import (functional_call, grad, grad_and_value, hessian, jacfwd, jacrev, jvp,
                           linearize, vjp, vmap)

x = torch.tensor([0.5, -1.0, 2.0])
print(grad(lambda t: (t ** 3).sum())(x))
print(grad(lambda t: torch.sin(t).sum())(x), torch.cos(x))
print(grad(grad(lambda t: t ** 4))(torch.tensor(1.5)))
g, v = grad_and_value(lambda a, b: (a * b).sum())(x, torch.ones(3) * 2)
print(g, v)
print(grad(lambda a, b: (a * b ** 2).sum(), argnums=(0, 1))(x, x))
batched = torch.arange(12.).view(4, 3)
print(vmap(torch.dot)(batched, batched))
print(vmap(lambda row: row.sum() * 2)(batched), vmap(torch.outer, in_dims=(0, None))(batched, x).shape)
print(vmap(lambda a, b: a * b, in_dims=(1, None), out_dims=1)(batched, 3.0))
print(vmap(grad(lambda t: (t ** 2).sum()))(batched))
print(jacrev(torch.sin)(x), jacfwd(lambda t: t ** 2)(x))
print(jacrev(lambda a, b: a * b, argnums=1)(x, x))
print(hessian(lambda t: (t ** 3).sum())(x))


def f(t):
    return torch.stack([t[0] * t[1], t[1] ** 2, t.sum()])


print(jacrev(f)(x), jacfwd(f)(x))
model = torch.nn.Linear(3, 2)
params = {k: v.detach() for k, v in model.named_parameters()}
params["weight"] = torch.tensor([[1., 0., 0.], [0., 1., 1.]])
params["bias"] = torch.tensor([0.5, -0.5])
print(functional_call(model, params, (x,)))


def loss_fn(p, inp, target):
    out = functional_call(model, p, (inp,))
    return ((out - target) ** 2).mean()


grads = grad(loss_fn)(params, x, torch.tensor([1.0, 0.0]))
print({k: v for k, v in grads.items()})
inputs = torch.from_numpy(np.arange(6, dtype=np.float32).reshape(2, 3))
targets = torch.tensor([[1., 0.], [0., 1.]])
per_sample = vmap(grad(loss_fn), in_dims=(None, 0, 0))(params, inputs, targets)
print(per_sample["weight"].shape, per_sample["bias"])
x = torch.tensor([1.0, 2.0, 3.0])
print(jacrev(lambda t: (t.sin(), t.sum()), has_aux=True)(x) if False else jacrev(lambda t: (t.sin(), t.cos()), has_aux=True)(x))
print(grad(lambda t: ((t ** 2).sum(), t.mean()), has_aux=True)(x))
print(vmap(lambda t: t * 2, chunk_size=2)(torch.arange(6.).view(3, 2)))
print(vmap(vmap(torch.dot))(torch.ones(2, 3, 4), torch.ones(2, 3, 4)))
print(vmap(lambda a: a.sum(0), in_dims=1)(torch.arange(6.).view(2, 3)))
print(vmap(lambda d: d["a"] + d["b"])({"a": torch.ones(2, 2), "b": torch.arange(4.).view(2, 2)}))
out, fn = vjp(torch.sin, x)
print(out, fn(torch.ones(3)))
print(jvp(torch.sin, (x,), (torch.ones(3),)))
y, jfn = linearize(torch.exp, x)
print(y, jfn(torch.ones(3)))
print(hessian(lambda t: (t ** 2).prod())(torch.tensor([1.0, 2.0])))
print(jacfwd(jacrev(lambda t: (t ** 3).sum()))(torch.tensor([1.0, 2.0])))
print(vmap(jacrev(torch.sin))(torch.tensor([[0.0, 1.0], [2.0, 3.0]])))
