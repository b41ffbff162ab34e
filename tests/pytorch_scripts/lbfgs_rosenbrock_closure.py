"""torch.optim.LBFGS the way its docs and forum answers use it: a closure that zeroes the gradient,
computes the loss and calls backward, on the Rosenbrock function with and without
line_search_fn='strong_wolfe', max_iter and history_size, the number of closure evaluations, the
optimizer state (func_evals, n_iter), a comparison with Adam on the same budget, and LBFGS fitting
a small least-squares model's parameters."""
import numpy as np
import fluxgrad as torch


def rosenbrock(xy):
    x, y = xy[0], xy[1]
    return (1 - x) ** 2 + 100 * (y - x ** 2) ** 2


for line_search in (None, "strong_wolfe"):
    xy = torch.tensor([-1.5, 2.0], requires_grad=True, dtype=torch.float64)
    optimizer = torch.optim.LBFGS([xy], lr=1 if line_search else 0.1, max_iter=20, history_size=10,
                                  line_search_fn=line_search)
    calls = []

    def closure():
        optimizer.zero_grad()
        loss = rosenbrock(xy)
        loss.backward()
        calls.append(loss.item())
        return loss

    for step in range(3):
        loss = optimizer.step(closure)
        print(line_search, step, "%.6f" % loss.item(), xy.detach().numpy().round(4), len(calls))
    state = optimizer.state[optimizer.param_groups[0]["params"][0]]
    print(state["func_evals"], state["n_iter"], sorted(k for k in state))

xy = torch.tensor([-1.5, 2.0], requires_grad=True, dtype=torch.float64)
adam = torch.optim.Adam([xy], lr=0.05)
for step in range(60):
    adam.zero_grad()
    loss = rosenbrock(xy)
    loss.backward()
    adam.step()
print("adam", round(rosenbrock(xy).item(), 4))

rng = np.random.default_rng(2)
X = torch.from_numpy(rng.normal(size=(50, 3)))
w_true = torch.tensor([1.5, -2.0, 0.5], dtype=torch.float64)
y = X @ w_true + 0.3 + torch.from_numpy(rng.normal(0, 0.01, 50))
model = torch.nn.Linear(3, 1).double()
with torch.no_grad():
    model.weight.zero_()
    model.bias.zero_()
opt = torch.optim.LBFGS(model.parameters(), line_search_fn="strong_wolfe", tolerance_grad=1e-9)


def closure():
    opt.zero_grad()
    loss = torch.nn.functional.mse_loss(model(X).squeeze(1), y)
    loss.backward()
    return loss


print(opt.step(closure).item() > 1, model.weight.detach().numpy().round(3), model.bias.detach().numpy().round(3))
print(round(closure().item(), 6))
