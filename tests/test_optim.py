"""optim: optimizers and schedulers step for step against torch.optim; spellings; state dicts."""
import numpy as np
import pytest

import fluxgrad as fg
from fluxgrad import nn, optim

torch = pytest.importorskip("torch")


def _run(make, make_torch, steps=4, groups=False):
    """Same parameters and same gradients each step: the parameters must stay equal."""
    rng = np.random.default_rng(0)
    shapes = [(3, 4), (4,)]
    init = [rng.standard_normal(s) for s in shapes]
    ps = [nn.Parameter(fg.tensor(a)) for a in init]
    ts = [torch.tensor(a, requires_grad=True) for a in init]
    if groups:
        opt = make([{"params": [ps[0]]}, {"params": [ps[1]], "lr": 0.05}])
        t_opt = make_torch([{"params": [ts[0]]}, {"params": [ts[1]], "lr": 0.05}])
    else:
        opt, t_opt = make(ps), make_torch(ts)
    for _ in range(steps):
        grads = [rng.standard_normal(s) for s in shapes]
        for p, t, g in zip(ps, ts, grads):
            p.grad = fg.tensor(g)
            t.grad = torch.tensor(g)
        opt.step()
        t_opt.step()
    for p, t in zip(ps, ts):
        np.testing.assert_allclose(p.detach().numpy(), t.detach().numpy(), rtol=1e-10,
                                   atol=1e-12)
    return opt, ps


CASES = [
    ("sgd", lambda p: optim.SGD(p, lr=0.1), lambda p: torch.optim.SGD(p, lr=0.1)),
    ("sgd_momentum", lambda p: optim.SGD(p, lr=0.1, momentum=0.9, dampening=0.1,
                                         weight_decay=0.01),
     lambda p: torch.optim.SGD(p, lr=0.1, momentum=0.9, dampening=0.1, weight_decay=0.01)),
    ("sgd_nesterov", lambda p: optim.SGD(p, lr=0.1, momentum=0.9, nesterov=True),
     lambda p: torch.optim.SGD(p, lr=0.1, momentum=0.9, nesterov=True)),
    ("adam", lambda p: optim.Adam(p, lr=0.01, weight_decay=0.1),
     lambda p: torch.optim.Adam(p, lr=0.01, weight_decay=0.1)),
    ("adam_amsgrad", lambda p: optim.Adam(p, lr=0.01, betas=(0.8, 0.9), amsgrad=True),
     lambda p: torch.optim.Adam(p, lr=0.01, betas=(0.8, 0.9), amsgrad=True)),
    ("adamw", lambda p: optim.AdamW(p, lr=0.01), lambda p: torch.optim.AdamW(p, lr=0.01)),
    ("rmsprop", lambda p: optim.RMSprop(p, lr=0.01), lambda p: torch.optim.RMSprop(p, lr=0.01)),
    ("rmsprop_centered", lambda p: optim.RMSprop(p, lr=0.01, momentum=0.5, centered=True,
                                                 weight_decay=0.1),
     lambda p: torch.optim.RMSprop(p, lr=0.01, momentum=0.5, centered=True, weight_decay=0.1)),
    ("adagrad", lambda p: optim.Adagrad(p, lr=0.1, lr_decay=0.01, weight_decay=0.1,
                                        initial_accumulator_value=0.1),
     lambda p: torch.optim.Adagrad(p, lr=0.1, lr_decay=0.01, weight_decay=0.1,
                                   initial_accumulator_value=0.1)),
]


@pytest.mark.parametrize("name,make,make_torch", CASES, ids=[c[0] for c in CASES])
def test_optimizer_matches_torch(name, make, make_torch):
    _run(make, make_torch)


def test_parameter_groups_have_their_own_options():
    opt, _ = _run(lambda g: optim.SGD(g, lr=0.1, momentum=0.9),
                  lambda g: torch.optim.SGD(g, lr=0.1, momentum=0.9), groups=True)
    assert [g["lr"] for g in opt.param_groups] == [0.1, 0.05]


def test_paddle_spelling_and_minimize():
    w = nn.Parameter(fg.tensor([1.0, -2.0]))
    opt = optim.Adam(learning_rate=0.1, parameters=[w])
    assert fg.optimizer.Adam is optim.Adam and opt.get_lr() == 0.1
    loss = (w * w).sum()
    opt.minimize(loss)
    np.testing.assert_allclose(w.detach().numpy(), [0.9, -1.9], rtol=1e-6)
    opt.clear_grad()
    assert np.all(w.grad.numpy() == 0)


def test_state_dict_round_trip_continues_identically():
    def setup():
        fg.manual_seed(0)
        model = nn.Linear(3, 2).double()
        return model, optim.Adam(model.parameters(), lr=0.05)

    def train(model, opt, steps):
        x = fg.tensor(np.arange(12.0).reshape(4, 3) / 10)
        for _ in range(steps):
            opt.zero_grad()
            (model(x) ** 2).mean().backward()
            opt.step()

    a, opt_a = setup()
    train(a, opt_a, 3)
    b, opt_b = setup()
    b.load_state_dict(a.state_dict())
    opt_b.load_state_dict(opt_a.state_dict())
    train(a, opt_a, 2)
    train(b, opt_b, 2)
    np.testing.assert_array_equal(a.weight.detach().numpy(), b.weight.detach().numpy())


def test_load_state_dict_rejects_a_different_parameter_layout():
    opt = optim.SGD([nn.Parameter(fg.zeros(2))], lr=0.1)
    other = optim.SGD([nn.Parameter(fg.zeros(2)), nn.Parameter(fg.zeros(1))], lr=0.1)
    with pytest.raises(ValueError, match="group 0 has 2 parameters in the saved state but 1"):
        opt.load_state_dict(other.state_dict())


def test_step_refuses_to_leave_a_stale_graph_usable():
    w = nn.Parameter(fg.tensor([1.0, 2.0]))
    opt = optim.SGD([w], lr=0.1)
    y = (w * w).sum()
    y.backward(retain_graph=True)
    opt.step()
    with pytest.raises(RuntimeError, match="modified by an in-place operation"):
        y.backward()


def test_bad_arguments_raise_clear_errors():
    with pytest.raises(TypeError, match="not a single Tensor"):
        optim.SGD(nn.Parameter(fg.zeros(2)), lr=0.1)
    with pytest.raises(ValueError, match="empty parameter list"):
        optim.Adam([], lr=0.1)
    with pytest.raises(TypeError, match="pass the parameters"):
        optim.Adam(learning_rate=0.1)


def test_seed_003_linear_regression_with_sgd_and_mse_sum():
    class MyLrModule(nn.Module):
        def __init__(self, lr, iter_count):
            super().__init__()
            self.w = nn.Parameter(fg.tensor([[1], [1]], dtype=fg.float32))
            self.lr = lr
            self.iter_count = iter_count

        def forward(self, x):
            return fg.matmul(x, self.w)

    x = fg.tensor([[1, 2], [2, 3], [4, 6], [3, 1]], dtype=fg.float32)
    y = fg.tensor([[8], [13], [26], [9]], dtype=fg.float32)
    model = MyLrModule(0.01, 500)
    loss = nn.MSELoss(reduction="sum")
    optimizer = optim.SGD(model.parameters(), model.lr)
    for _ in range(model.iter_count):
        l = loss(model(x), y)
        l.backward()
        optimizer.step()
        optimizer.zero_grad()
    np.testing.assert_allclose(model.w.detach().numpy(), [[2.0], [3.0]], atol=1e-4)


# --- schedulers --------------------------------------------------------------------------------
SCHEDULERS = [
    ("step", lambda o: optim.lr_scheduler.StepLR(o, step_size=2, gamma=0.5),
     lambda o: torch.optim.lr_scheduler.StepLR(o, step_size=2, gamma=0.5)),
    ("multistep", lambda o: optim.lr_scheduler.MultiStepLR(o, [2, 5], 0.1),
     lambda o: torch.optim.lr_scheduler.MultiStepLR(o, [2, 5], 0.1)),
    ("exponential", lambda o: optim.lr_scheduler.ExponentialLR(o, 0.9),
     lambda o: torch.optim.lr_scheduler.ExponentialLR(o, 0.9)),
    ("cosine", lambda o: optim.lr_scheduler.CosineAnnealingLR(o, T_max=6, eta_min=0.01),
     lambda o: torch.optim.lr_scheduler.CosineAnnealingLR(o, T_max=6, eta_min=0.01)),
    ("lambda", lambda o: optim.lr_scheduler.LambdaLR(o, lambda e: 1 / (e + 1)),
     lambda o: torch.optim.lr_scheduler.LambdaLR(o, lambda e: 1 / (e + 1))),
    ("linear", lambda o: optim.lr_scheduler.LinearLR(o, 0.25, 1.0, 4),
     lambda o: torch.optim.lr_scheduler.LinearLR(o, 0.25, 1.0, 4)),
    ("onecycle", lambda o: optim.lr_scheduler.OneCycleLR(o, max_lr=1.0, total_steps=9),
     lambda o: torch.optim.lr_scheduler.OneCycleLR(o, max_lr=1.0, total_steps=9)),
]


@pytest.mark.parametrize("name,make,make_torch", SCHEDULERS, ids=[s[0] for s in SCHEDULERS])
def test_scheduler_matches_torch(name, make, make_torch):
    p = nn.Parameter(fg.zeros(1))
    t = torch.zeros(1, requires_grad=True)
    opt = optim.SGD([p], lr=0.5, momentum=0.9)
    t_opt = torch.optim.SGD([t], lr=0.5, momentum=0.9)
    sched, t_sched = make(opt), make_torch(t_opt)
    for _ in range(8):
        assert opt.param_groups[0]["lr"] == pytest.approx(t_opt.param_groups[0]["lr"])
        assert opt.param_groups[0]["momentum"] == pytest.approx(
            t_opt.param_groups[0]["momentum"])
        opt.step()
        t_opt.step()
        sched.step()
        t_sched.step()


def test_reduce_lr_on_plateau_matches_torch():
    opt = optim.SGD([nn.Parameter(fg.zeros(1))], lr=1.0)
    t_opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=1.0)
    sched = optim.lr_scheduler.ReduceLROnPlateau(opt, patience=1, factor=0.5, cooldown=1)
    t_sched = torch.optim.lr_scheduler.ReduceLROnPlateau(t_opt, patience=1, factor=0.5,
                                                         cooldown=1)
    for metric in [5, 4, 4, 4, 4, 3, 3, 3, 3, 3]:
        sched.step(metric)
        t_sched.step(metric)
        assert opt.param_groups[0]["lr"] == t_opt.param_groups[0]["lr"]


def test_paddle_style_scheduler_passed_as_learning_rate():
    sched = optim.lr_scheduler.StepDecay(learning_rate=0.5, step_size=1, gamma=0.1)
    opt = optim.SGD(learning_rate=sched, parameters=[nn.Parameter(fg.zeros(1))])
    assert opt.get_lr() == 0.5
    sched.step()
    assert opt.get_lr() == pytest.approx(0.05)
    warm = optim.lr_scheduler.LinearWarmup(0.1, warmup_steps=2, start_lr=0.0, end_lr=0.1)
    lrs = []
    for _ in range(4):
        lrs.append(warm())
        warm.step()
    np.testing.assert_allclose(lrs, [0.0, 0.05, 0.1, 0.1])


def test_paddle_grad_clip_by_global_norm_matches_clipping_by_hand():
    fg.manual_seed(0)
    w = fg.nn.Parameter(fg.randn(4, 3))
    b = fg.nn.Parameter(fg.randn(3))
    grads = [np.full((4, 3), 3.0, np.float32), np.full(3, -4.0, np.float32)]
    total = np.sqrt(sum((g ** 2).sum() for g in grads))
    before = [w.detach().numpy().copy(), b.detach().numpy().copy()]
    opt = fg.optim.SGD(learning_rate=0.1, parameters=[w, b],
                       grad_clip=fg.nn.ClipGradByGlobalNorm(1.0))
    w.grad, b.grad = fg.tensor(grads[0]), fg.tensor(grads[1])
    opt.step()
    for p, old, g in zip((w, b), before, grads):
        np.testing.assert_allclose(p.detach().numpy(), old - 0.1 * g / total, rtol=1e-5)


def test_grad_clip_by_value_clamps_each_element():
    w = fg.nn.Parameter(fg.zeros(3))
    opt = fg.optim.SGD([w], lr=1.0, grad_clip=fg.nn.ClipGradByValue(0.5))
    w.grad = fg.tensor([2.0, -0.25, -3.0])
    opt.step()
    np.testing.assert_allclose(w.detach().numpy(), [-0.5, 0.25, 0.5])


def test_grad_clip_that_is_not_a_clipping_object_raises():
    with pytest.raises(TypeError, match="grad_clip"):
        fg.optim.Adam(parameters=[fg.nn.Parameter(fg.zeros(2))], grad_clip=1.0)


def _custom_momentum_sgd(lib):
    class MomentumSGD(lib.optim.Optimizer):
        def __init__(self, params, lr=0.1, momentum=0.9):
            super().__init__(params, dict(lr=lr, momentum=momentum))

        @lib.no_grad()
        def step(self, closure=None):
            with lib.enable_grad():
                loss = closure()
            for group in self.param_groups:
                for p in group["params"]:
                    state = self.state[p]  # a defaultdict(dict), as PyTorch's
                    if not state:
                        state["step"] = 0
                        state["buf"] = lib.zeros_like(p, memory_format=lib.preserve_format)
                    state["step"] += 1
                    state["buf"].mul_(group["momentum"]).add_(p.grad)
                    p.add_(state["buf"], alpha=-group["lr"])
            return loss
    return MomentumSGD


def test_an_optimizer_subclass_written_for_pytorch_runs_as_in_pytorch():
    import torch
    results = []
    for lib in (fg, torch):
        w = lib.tensor([1.0, -2.0], requires_grad=True)
        opt = _custom_momentum_sgd(lib)([w])

        def closure():
            opt.zero_grad()
            loss = (w ** 3).sum()
            loss.backward()
            return loss
        losses = [opt.step(closure).item() for _ in range(4)]
        results.append((losses, w.detach().numpy().copy(), opt.state[w]["step"]))
    (ours, w_ours, n_ours), (theirs, w_theirs, n_theirs) = results
    np.testing.assert_allclose(ours, theirs, rtol=1e-6)
    np.testing.assert_allclose(w_ours, w_theirs, rtol=1e-6)
    assert n_ours == n_theirs == 4


# --- opt.state[p] holds tensors, as PyTorch's ------------------------------------------------

STATE_CASES = [("SGD", dict(lr=0.1)), ("SGD", dict(lr=0.1, momentum=0.9)), ("Adam", {}),
               ("Adam", dict(amsgrad=True)), ("AdamW", {}),
               ("RMSprop", dict(momentum=0.9, centered=True)), ("Adagrad", {}), ("Adamax", {}),
               ("NAdam", {}), ("RAdam", {}), ("Adadelta", {}), ("ASGD", {}), ("Rprop", {})]


def _stepped(lib, name, options, dtype):
    p = lib.nn.Parameter(lib.tensor([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]], dtype=dtype))
    opt = getattr(lib.optim, name)([p], **options)
    for _ in range(3):
        opt.zero_grad()
        (p ** 3).sum().backward()
        opt.step()
    return p, opt


@pytest.mark.parametrize("name, options", STATE_CASES, ids=[f"{n}-{i}" for i, (n, _) in
                                                            enumerate(STATE_CASES)])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_state_entries_are_tensors_as_pytorchs(name, options, dtype):
    p, opt = _stepped(fg, name, options, getattr(fg, dtype))
    q, t_opt = _stepped(torch, name, options, getattr(torch, dtype))
    ours, theirs = opt.state[p], t_opt.state[q]
    assert set(ours) == set(theirs)
    assert len(opt.state) == len(t_opt.state)
    for key, value in theirs.items():
        assert isinstance(ours[key], fg.Tensor), key
        assert str(ours[key].dtype).split(".")[-1] == str(value.dtype).split(".")[-1], key
        assert list(ours[key].shape) == list(value.shape), key
        assert not ours[key].requires_grad
        np.testing.assert_allclose(ours[key].numpy(), value.numpy(), rtol=1e-5, atol=1e-7,
                                   err_msg=key)


def test_state_tensors_take_tensor_methods_and_stay_the_same_objects():
    p, opt = _stepped(fg, "Adam", {}, fg.float32)
    state = opt.state[p]
    exp_avg, step = state["exp_avg"], state["step"]
    snapshot = exp_avg.clone()
    assert step.item() == 3.0 and step.dim() == 0 and float(step) == 3.0
    assert exp_avg.norm().item() == pytest.approx(np.linalg.norm(exp_avg.numpy()), rel=1e-6)
    p.grad = fg.ones_like(p)
    opt.step()
    assert opt.state[p]["exp_avg"] is exp_avg and opt.state[p]["step"] is step
    assert step.item() == 4.0  # updated in place, as torch's
    assert not np.array_equal(snapshot.numpy(), exp_avg.numpy())  # the clone did not move


def test_state_dict_holds_the_state_tensors_and_saves_and_loads(tmp_path):
    p, opt = _stepped(fg, "Adam", dict(amsgrad=True), fg.float32)
    saved = opt.state_dict()
    assert saved["state"][0]["exp_avg"] is opt.state[p]["exp_avg"]  # as PyTorch, no copy
    fg.save(saved, tmp_path / "opt.pt")
    p2 = fg.nn.Parameter(p.detach().clone())
    opt2 = fg.optim.Adam([p2], amsgrad=True)
    opt2.load_state_dict(fg.load(tmp_path / "opt.pt"))
    assert opt2.state[p2]["step"].dtype == fg.float32 and opt2.state[p2]["step"].item() == 3
    for key in ("exp_avg", "exp_avg_sq", "max_exp_avg_sq"):
        assert opt2.state[p2][key] is not opt.state[p][key]
        np.testing.assert_array_equal(opt2.state[p2][key].numpy(), opt.state[p][key].numpy())
    for o, q in ((opt, p), (opt2, p2)):
        q.grad = fg.ones_like(q)
        o.step()
    np.testing.assert_array_equal(p2.detach().numpy(), p.detach().numpy())


def test_sgd_without_momentum_keeps_no_state():
    p, opt = _stepped(fg, "SGD", dict(lr=0.1), fg.float32)
    assert len(opt.state) == 0 and opt.state_dict()["state"] == {}


@pytest.mark.parametrize("shape", [(50, 7), (3, 300), (1000,), (2, 3, 500)])
def test_sgd_update_of_a_parameter_larger_than_the_scratch_buffer_is_done_in_blocks(
        monkeypatch, shape):
    from fluxgrad.optim import _scratch
    monkeypatch.setattr(_scratch, "CHUNK", 64)
    rng = np.random.default_rng(0)
    start, g = (rng.standard_normal(shape).astype(np.float32) for _ in range(2))
    p = nn.Parameter(fg.tensor(start))
    p.grad = fg.tensor(g)
    opt = optim.SGD([p], lr=0.1)
    opt.step()
    np.testing.assert_array_equal(p.detach().numpy(), start - np.float32(0.1) * g)
    assert all(buf.size <= 64 for buf in opt._scratch.values())


def test_lbfgs_state_holds_tensors_as_pytorchs():
    def run(lib):
        w = lib.tensor([1.0, -2.0, 0.5], requires_grad=True)
        opt = lib.optim.LBFGS([w], lr=0.1, max_iter=4)

        def closure():
            opt.zero_grad()
            loss = ((w - 1) ** 4).sum() + (w ** 2).sum()
            loss.backward()
            return loss
        opt.step(closure)
        return opt.state[w]
    ours, theirs = run(fg), run(torch)
    for key in ("d", "H_diag", "prev_flat_grad"):
        assert isinstance(ours[key], fg.Tensor), key
        np.testing.assert_allclose(ours[key].numpy(), theirs[key].numpy(), rtol=1e-5)
    for key in ("old_dirs", "old_stps", "ro"):
        assert len(ours[key]) == len(theirs[key])
        assert all(isinstance(x, fg.Tensor) for x in ours[key])
    assert ours["n_iter"] == theirs["n_iter"] and ours["func_evals"] == theirs["func_evals"]
