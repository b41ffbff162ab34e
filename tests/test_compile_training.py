"""Whole training steps under fluxgrad.compile: zero_grad, forward, backward() and opt.step()
in one compiled function, compared with the same steps in eager mode (which the optimizer
and layer tests check against PyTorch): losses, parameters, `.grad`, optimizer state and
buffers after every step."""
import numpy as np
import pytest

import fluxgrad
import fluxgrad.nn.functional as F
from fluxgrad import Tensor, nn, optim

STEPS = 20


def _mlp():
    return nn.Sequential(nn.Linear(6, 16), nn.Tanh(), nn.Linear(16, 3))


def _cnn():
    return nn.Sequential(nn.Conv2d(2, 4, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                         nn.Flatten(), nn.Linear(4 * 4 * 4, 3))


def _bn_net():
    return nn.Sequential(nn.Linear(6, 8), nn.BatchNorm1d(8), nn.ReLU(), nn.Linear(8, 3))


def _pair(make_model, make_opt, seed=0):
    """Two identical (model, optimizer) pairs."""
    pairs = []
    for _ in range(2):
        fluxgrad.manual_seed(seed)
        model = make_model()
        pairs.append((model, make_opt(model.parameters())))
    return pairs


def _batches(shape, n=STEPS, classes=3, seed=1):
    rng = np.random.default_rng(seed)
    return [(Tensor(rng.standard_normal(shape).astype(np.float32)),
             Tensor(rng.integers(0, classes, shape[0]))) for _ in range(n)]


def _step(model, opt):
    def step(x, y):
        opt.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        return loss
    return step


def _assert_same_state(eager, compiled, rtol=2e-5, atol=1e-6):
    (m1, o1), (m2, o2) = eager, compiled
    for (name, p), q in zip(m1.named_parameters(), m2.parameters()):
        np.testing.assert_allclose(q._data, p._data, rtol=rtol, atol=atol, err_msg=name)
        assert (p.grad is None) == (q.grad is None), name
        if p.grad is not None:
            np.testing.assert_allclose(q.grad._data, p.grad._data, rtol=rtol, atol=atol,
                                       err_msg=f"{name}.grad")
    for (name, b), c in zip(m1.named_buffers(), m2.buffers()):
        np.testing.assert_allclose(c._data, b._data, rtol=rtol, atol=atol, err_msg=name)
    for p, q in zip(m1.parameters(), m2.parameters()):
        s1, s2 = o1.state.get(p, {}), o2.state.get(q, {})
        assert set(s1) == set(s2)
        for key in s1:
            assert isinstance(s1[key], Tensor) and isinstance(s2[key], Tensor), key
            assert s2[key].dtype == s1[key].dtype and s2[key].shape == s1[key].shape, key
            np.testing.assert_allclose(s2[key]._data, s1[key]._data, rtol=rtol, atol=atol,
                                       err_msg=key)


def _train(pairs, batches, make_step=_step, rtol=2e-5):
    eager_step = make_step(*pairs[0])
    compiled = fluxgrad.compile(make_step(*pairs[1]))
    for x, y in batches:
        want = eager_step(x, y)
        got = compiled(x, y)
        np.testing.assert_allclose(got.item(), want.item(), rtol=rtol)
        _assert_same_state(*pairs, rtol=rtol)
    return compiled


def test_mlp_with_adam_matches_eager_for_20_steps():
    pairs = _pair(_mlp, lambda ps: optim.Adam(ps, lr=1e-2))
    compiled = _train(pairs, _batches((5, 6)))
    assert compiled.trace_count == 2  # .grad None and no Adam state, then both present
    assert "whether model.0.weight.grad is None changed" in compiled.traces[1].reason


def test_mlp_with_adamw_amsgrad_in_float64_matches_eager_closely():
    pairs = _pair(lambda: _mlp().to(fluxgrad.float64),
                  lambda ps: optim.AdamW(ps, lr=1e-2, weight_decay=0.1, amsgrad=True))
    batches = [(x.to(fluxgrad.float64), y) for x, y in _batches((5, 6))]
    _train(pairs, batches, rtol=1e-12)


def test_cnn_with_sgd_momentum_and_weight_decay_matches_eager():
    pairs = _pair(_cnn, lambda ps: optim.SGD(ps, lr=0.05, momentum=0.9, weight_decay=1e-3,
                                             dampening=0.1))
    _train(pairs, _batches((4, 2, 8, 8)))


def test_rmsprop_and_adagrad_steps_match_eager():
    for make_opt in (lambda ps: optim.RMSprop(ps, lr=1e-2, momentum=0.5, centered=True),
                     lambda ps: optim.Adagrad(ps, lr=0.1, lr_decay=0.01)):
        _train(_pair(_mlp, make_opt), _batches((5, 6), n=5))


def test_batch_norm_updates_running_stats_in_train_mode_and_reads_them_in_eval_mode():
    pairs = _pair(_bn_net, lambda ps: optim.SGD(ps, lr=0.1))
    eager_step, compiled = _step(*pairs[0]), fluxgrad.compile(_step(*pairs[1]))
    batches = _batches((8, 6))
    for i, (x, y) in enumerate(batches):
        if i == STEPS // 2:
            for model, _ in pairs:
                model.eval()
        want, got = eager_step(x, y), compiled(x, y)
        np.testing.assert_allclose(got.item(), want.item(), rtol=2e-5)
        _assert_same_state(*pairs)
    bn = pairs[1][0][1]
    assert int(bn.num_batches_tracked._data) == STEPS // 2
    assert not np.allclose(bn.running_mean._data, 0)
    assert any("training changed" in t.reason for t in compiled.traces)


def test_dropout_and_batch_norm_in_train_then_eval_mode_match_eager_with_the_same_seed():
    def make():
        return nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Dropout(0.3), nn.BatchNorm1d(16),
                             nn.Linear(16, 3)).to(fluxgrad.float64)
    pairs = _pair(make, lambda ps: optim.Adam(ps, lr=1e-2))
    steps = [_step(*pairs[0]), fluxgrad.compile(_step(*pairs[1]))]
    batches = [(x.to(fluxgrad.float64), y) for x, y in _batches((8, 6))]
    losses = []
    for (model, _), step in zip(pairs, steps):  # one seed per run: every draw must line up
        fluxgrad.manual_seed(100)
        losses.append([])
        for i, (x, y) in enumerate(batches):
            if i == STEPS // 2:
                model.eval()
            losses[-1].append(step(x, y).item())
    np.testing.assert_allclose(losses[1], losses[0], rtol=1e-12)
    _assert_same_state(*pairs, rtol=1e-10, atol=1e-12)
    assert steps[1].trace_count == 3  # first call, Adam state present, eval mode


def test_zero_grad_to_zeros_and_gradient_accumulation_over_two_backwards():
    def make_step(model, opt):
        def step(x, y):
            opt.zero_grad(set_to_none=False)
            half = x.shape[0] // 2
            loss = 0
            for part in (slice(0, half), slice(half, None)):
                part_loss = F.cross_entropy(model(x[part]), y[part]) / 2
                part_loss.backward()
                loss = loss + part_loss
            opt.step()
            return loss
        return step
    pairs = _pair(_mlp, lambda ps: optim.SGD(ps, lr=0.1, momentum=0.9))
    grads = [p.grad for p in pairs[1][0].parameters()]
    _train(pairs, _batches((6, 6), n=4), make_step)
    # after the first step .grad is zeroed in place, as eager mode does: the same tensors
    second = [p.grad for p in pairs[1][0].parameters()]
    assert grads == [None] * 4 and all(g is not None for g in second)
    fluxgrad.compile(make_step(*pairs[1]))(*_batches((6, 6), n=1)[0])
    assert all(p.grad is g for p, g in zip(pairs[1][0].parameters(), second))


def test_scheduler_changing_lr_between_steps_matches_eager_without_retracing():
    pairs = _pair(_mlp, lambda ps: optim.SGD(ps, lr=0.5))
    schedulers = [optim.lr_scheduler.StepLR(opt, step_size=3, gamma=0.5) for _, opt in pairs]
    eager_step, compiled = _step(*pairs[0]), fluxgrad.compile(_step(*pairs[1]))
    for x, y in _batches((5, 6), n=10):
        np.testing.assert_allclose(compiled(x, y).item(), eager_step(x, y).item(), rtol=2e-5)
        for s in schedulers:
            s.step()
        _assert_same_state(*pairs)
    assert pairs[1][1].param_groups[0]["lr"] == 0.5 * 0.5 ** 3
    assert compiled.trace_count == 2  # lr is an input of the program, not a guard


def test_parameters_and_grads_are_written_in_place():
    pairs = _pair(_mlp, lambda ps: optim.Adam(ps, lr=1e-2))
    model, opt = pairs[1]
    compiled = fluxgrad.compile(_step(model, opt))
    x, y = _batches((5, 6), n=1)[0]
    compiled(x, y)
    weight = model[0].weight
    before, entries = weight._data, dict(opt.state[weight])
    arrays = {key: t._data for key, t in entries.items()}
    for _ in range(3):
        compiled(x, y)
    assert weight._data is before  # a user's reference to the parameter stays valid
    assert opt.state[weight].keys() == entries.keys()
    assert all(opt.state[weight][key] is t and t._data is arrays[key]
               for key, t in entries.items())  # and so do references to the state
    assert opt.state[weight]["step"].item() == 4
    assert opt.state[weight]["step"].dtype == fluxgrad.float32  # as PyTorch's


def test_sgd_without_momentum_keeps_no_state_as_in_eager_mode():
    model, opt = _pair(_mlp, lambda ps: optim.SGD(ps, lr=0.1))[1]
    compiled = fluxgrad.compile(_step(model, opt))
    x, y = _batches((5, 6), n=1)[0]
    for _ in range(2):
        compiled(x, y)
    assert len(opt.state) == 0  # as PyTorch's


def test_a_changed_hyperparameter_traces_again():
    pairs = _pair(_mlp, lambda ps: optim.SGD(ps, lr=0.1, momentum=0.9))
    eager_step, compiled = _step(*pairs[0]), fluxgrad.compile(_step(*pairs[1]))
    for i, (x, y) in enumerate(_batches((5, 6), n=6)):
        if i == 3:
            for _, opt in pairs:
                opt.param_groups[0]["momentum"] = 0.5
        np.testing.assert_allclose(compiled(x, y).item(), eager_step(x, y).item(), rtol=2e-5)
    _assert_same_state(*pairs)
    assert "param_groups[0]['momentum'] changed: 0.9 -> 0.5" in compiled.traces[-1].reason


# --- refused, with a clear error, and nothing changed ---------------------------------------

def _one_model_step():
    fluxgrad.manual_seed(0)
    model = _mlp()
    opt = optim.SGD(model.parameters(), lr=0.1)
    x, y = _batches((5, 6), n=1)[0]
    before = [p._data.copy() for p in model.parameters()]
    return model, opt, x, y, before


def _unchanged(model, before):
    return all(np.array_equal(p._data, b) and p.grad is None
               for p, b in zip(model.parameters(), before))


def test_a_hook_on_a_parameter_is_refused():
    model, opt, x, y, before = _one_model_step()
    model[0].weight.register_hook(lambda g: g * 2)
    with pytest.raises(NotImplementedError, match=r"model\.0\.weight has a hook.*without compile"):
        fluxgrad.compile(_step(model, opt), fullgraph=True)(x, y)
    assert _unchanged(model, before)


def test_backward_with_retain_graph_is_refused():
    model, opt, x, y, before = _one_model_step()

    def step(x, y):
        loss = F.cross_entropy(model(x), y)
        loss.backward(retain_graph=True)
        loss.backward()
        return loss
    with pytest.raises(NotImplementedError, match="retain_graph.*without compile"):
        fluxgrad.compile(step, fullgraph=True)(x, y)
    assert _unchanged(model, before)


def test_a_second_backward_through_the_same_graph_is_refused():
    model, opt, x, y, before = _one_model_step()

    def step(x, y):
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        loss.backward()
        return loss
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        fluxgrad.compile(step, fullgraph=True)(x, y)
    assert _unchanged(model, before)


def test_an_optimizer_without_a_compiled_step_is_refused():
    model, _, x, y, before = _one_model_step()
    opt = optim.Adadelta(model.parameters())
    with pytest.raises(NotImplementedError, match=r"Adadelta\.step\(\) inside a compiled "
                                                  r"function is not supported"):
        fluxgrad.compile(_step(model, opt), fullgraph=True)(x, y)
    assert _unchanged(model, before) and not opt.state


def test_a_scheduler_stepped_inside_is_refused():
    model, opt, x, y, before = _one_model_step()
    scheduler = optim.lr_scheduler.StepLR(opt, step_size=1)

    def step(x, y):
        loss = _step(model, opt)(x, y)
        scheduler.step()
        return loss
    with pytest.raises(NotImplementedError, match=r"StepLR\.step\(\) .*outside it"):
        fluxgrad.compile(step, fullgraph=True)(x, y)
    assert scheduler.last_epoch == 0 and opt.param_groups[0]["lr"] == 0.1


def test_an_in_place_write_into_an_untracked_captured_tensor_is_refused():
    total = Tensor(np.zeros(()))

    def step(x):
        total.add_(x.sum())
        return total
    with pytest.raises(NotImplementedError, match=r"does not track.*total = total \+ loss"):
        fluxgrad.compile(step, fullgraph=True)(Tensor(np.ones(3)))
    assert total.item() == 0


def test_clip_grad_norm_inside_the_step_matches_eager():
    def make_step(model, opt):
        def step(x, y):
            opt.zero_grad()
            loss = F.cross_entropy(model(x), y)
            loss.backward()
            nn.utils.clip_grad_norm_(model.parameters(), 0.5)
            nn.utils.clip_grad_value_(model.parameters(), 0.05)
            opt.step()
            return loss
        return step
    _train(_pair(_mlp, lambda ps: optim.SGD(ps, lr=0.5)), _batches((5, 6), n=6), make_step)


def test_paddle_spellings_minimize_clear_grad_and_grad_clip_match_eager():
    def make_step(model, opt):
        def step(x, y):
            loss = F.cross_entropy(model(x), y)
            opt.minimize(loss)
            opt.clear_grad()
            return loss
        return step
    make_opt = lambda ps: optim.Adam(parameters=ps, learning_rate=1e-2,  # noqa: E731
                                     grad_clip=nn.ClipGradByGlobalNorm(0.1))
    _train(_pair(_mlp, make_opt), _batches((5, 6), n=6), make_step)


def test_a_compiled_forward_reads_the_parameters_at_each_call():
    fluxgrad.manual_seed(0)
    model = _mlp()
    x = _batches((5, 6), n=1)[0][0]
    with fluxgrad.no_grad():
        compiled = fluxgrad.compile(model)
        compiled(x)
        for p in model.parameters():
            p.mul_(0.5)  # an eager update outside the compiled function
        np.testing.assert_allclose(compiled(x).numpy(), model(x).numpy(), rtol=1e-6)
    assert compiled.trace_count == 1


def test_a_hand_written_sgd_update_under_no_grad_matches_eager():
    def make_step(model, opt):
        def step(x, y):
            model.zero_grad()
            loss = F.cross_entropy(model(x), y)
            loss.backward()
            with fluxgrad.no_grad():
                for p in model.parameters():
                    p -= 0.1 * p.grad
            return loss
        return step
    _train(_pair(_mlp, lambda ps: optim.SGD(ps, lr=0.1)), _batches((5, 6), n=5), make_step)


def test_tracing_changes_no_eager_state():
    fluxgrad.manual_seed(0)
    model = _bn_net()
    opt = optim.Adam(model.parameters(), lr=1e-2)
    compiled = fluxgrad.compile(_step(model, opt))
    compiled(*_batches((8, 6), n=1)[0])

    def snapshot():
        return ([t._data.copy() for t in list(model.parameters()) + list(model.buffers())],
                [p.grad._data.copy() for p in model.parameters()],
                {(i, k): v._data.copy()
                 for i, p in enumerate(model.parameters()) for k, v in opt.state[p].items()})
    before = snapshot()
    compiled.source(*_batches((4, 6), n=1)[0])  # traces a new signature, does not run it
    assert compiled.trace_count == 2
    after = snapshot()
    for a, b in zip(before[0] + before[1], after[0] + after[1]):
        np.testing.assert_array_equal(a, b)
    assert before[2].keys() == after[2].keys()
    for key in before[2]:
        np.testing.assert_array_equal(before[2][key], after[2][key])


def test_mlp_with_adam_compiled_matches_pytorch():
    torch = pytest.importorskip("torch")
    fluxgrad.manual_seed(0)
    model = _mlp()
    t_model = torch.nn.Sequential(torch.nn.Linear(6, 16), torch.nn.Tanh(), torch.nn.Linear(16, 3))
    with torch.no_grad():
        for p, q in zip(model.parameters(), t_model.parameters()):
            q.copy_(torch.tensor(p._data))
    opt = optim.Adam(model.parameters(), lr=1e-2)
    t_opt = torch.optim.Adam(t_model.parameters(), lr=1e-2)
    compiled = fluxgrad.compile(_step(model, opt))
    for x, y in _batches((5, 6)):
        t_opt.zero_grad()
        t_loss = torch.nn.functional.cross_entropy(t_model(torch.tensor(x._data)),
                                                   torch.tensor(y._data))
        t_loss.backward()
        t_opt.step()
        np.testing.assert_allclose(compiled(x, y).item(), t_loss.item(), rtol=1e-5)
    for p, q in zip(model.parameters(), t_model.parameters()):
        np.testing.assert_allclose(p._data, q.detach().numpy(), rtol=1e-4, atol=1e-6)
        np.testing.assert_allclose(p.grad._data, q.grad.numpy(), rtol=1e-4, atol=1e-6)


def test_a_part_run_under_no_grad_gets_no_gradient_as_in_eager_mode():
    def make_model():
        return nn.Sequential(nn.Linear(6, 8), nn.Tanh(), nn.Linear(8, 3))

    def make_step(model, opt):
        def step(x, y):
            opt.zero_grad()
            with fluxgrad.no_grad():
                h = model[1](model[0](x))  # a frozen encoder
            loss = F.cross_entropy(model[2](h), y)
            loss.backward()
            opt.step()
            return loss
        return step
    pairs = _pair(make_model, lambda ps: optim.SGD(ps, lr=0.1))
    _train(pairs, _batches((5, 6), n=3), make_step)
    assert pairs[1][0][0].weight.grad is None and pairs[1][0][2].weight.grad is not None


def test_backward_of_a_loss_computed_under_no_grad_raises_as_in_eager_mode():
    model, opt, x, y, before = _one_model_step()

    def step(x, y):
        with fluxgrad.no_grad():
            loss = F.cross_entropy(model(x), y)
        loss.backward()
        return loss
    with pytest.raises(RuntimeError, match="does not require grad"):
        step(x, y)
    with pytest.raises(RuntimeError, match="does not require grad"):
        fluxgrad.compile(step)(x, y)
    assert _unchanged(model, before)


def test_a_call_that_writes_state_and_returns_differentiable_results_is_not_silently_detached():
    fluxgrad.manual_seed(0)
    model = _bn_net()
    params = dict(model.named_parameters())
    x = fluxgrad.randn(5, 6)

    def forward(p, x):
        return fluxgrad.func.functional_call(model, p, (x,))
    with pytest.raises(NotImplementedError, match="writes eager state"):
        fluxgrad.compile(forward, fullgraph=True)(params, x)
    with pytest.warns(RuntimeWarning, match="writes eager state"):
        out = fluxgrad.compile(forward)(params, x)  # runs eagerly: gradients reach the weights
    out.sum().backward()
    assert model[0].weight.grad is not None and float(model[0].weight.grad.abs().sum()) > 0


def test_the_optimizer_state_is_read_and_written_in_place_without_a_copy():
    pairs = _pair(_cnn, lambda ps: optim.SGD(ps, lr=0.05, momentum=0.9))
    model, opt = pairs[1]
    compiled = fluxgrad.compile(_step(*pairs[1]))
    batches = _batches((4, 2, 8, 8), n=4)
    for x, y in batches[:2]:  # the first step creates the momentum buffers
        compiled(x, y)
    buffers = [opt.state[p]["momentum_buffer"]._data for p in model.parameters()]
    seen = []
    for entry in list(compiled._entries.values()):
        def spy(*arrays, forward=entry.forward):
            seen.append(arrays)
            return forward(*arrays)
        entry.forward = spy
    eager_step = _step(*pairs[0])
    for x, y in batches[:2]:
        eager_step(x, y)
    for x, y in batches[2:]:
        np.testing.assert_allclose(compiled(x, y).item(), eager_step(x, y).item(), rtol=2e-5)
        _assert_same_state(*pairs)
    assert len(seen) == 2
    for arrays in seen:
        assert all(any(a is buffer for a in arrays) for buffer in buffers)
    assert all(opt.state[p]["momentum_buffer"]._data is buffer
               for p, buffer in zip(model.parameters(), buffers))
