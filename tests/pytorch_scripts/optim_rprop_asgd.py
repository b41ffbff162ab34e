"""The optimizers tutorials reach for less often: Rprop (with etas and step_sizes), ASGD (with
its averaged parameters in the state), Adagrad with lr_decay and initial_accumulator_value,
SGD with nesterov and dampening=0, Adamax, and NAdam with decoupled_weight_decay, each on the
Rosenbrock function; then the state dict's keys and a few of its entries."""
import fluxgrad as torch


def rosenbrock(xy):
    x, y = xy
    return (1 - x) ** 2 + 100 * (y - x ** 2) ** 2


def run(make, steps=25):
    xy = torch.tensor([-1.5, 2.0], requires_grad=True)
    opt = make([xy])
    for _ in range(steps):
        opt.zero_grad()
        loss = rosenbrock(xy)
        loss.backward()
        opt.step()
    return xy, opt, loss


makers = {
    "rprop": lambda p: torch.optim.Rprop(p, lr=0.01),
    "rprop_etas": lambda p: torch.optim.Rprop(p, lr=0.05, etas=(0.3, 1.5), step_sizes=(1e-4, 0.5)),
    "asgd": lambda p: torch.optim.ASGD(p, lr=1e-4, t0=5),
    "adagrad": lambda p: torch.optim.Adagrad(p, lr=0.5, lr_decay=0.01, initial_accumulator_value=0.1),
    "nesterov": lambda p: torch.optim.SGD(p, lr=2e-4, momentum=0.9, nesterov=True),
    "adamax": lambda p: torch.optim.Adamax(p, lr=0.1, betas=(0.8, 0.99)),
    "nadam": lambda p: torch.optim.NAdam(p, lr=0.05, weight_decay=0.1, decoupled_weight_decay=True),
    "radam": lambda p: torch.optim.RAdam(p, lr=1e-3, weight_decay=0.01),
}
for name, make in makers.items():
    xy, opt, loss = run(make)
    print(name, xy.detach(), round(loss.item(), 4))
    state = opt.state_dict()["state"][0]
    print(sorted(state.keys()))

xy, opt, _ = run(makers["asgd"], steps=10)
st = opt.state[xy]
print(st["ax"], st["eta"], st["mu"], st["step"])
xy, opt, _ = run(makers["rprop"], steps=6)
print(opt.state[xy]["prev"], opt.state[xy]["step_size"])
xy, opt, _ = run(makers["adagrad"], steps=6)
print(opt.state[xy]["sum"].sqrt())
