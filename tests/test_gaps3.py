"""Known gaps against PyTorch 2.13, closed one by one: each test names a behaviour torch has
and checks fluxgrad's against torch's own result (values, gradients, errors)."""
import numpy as np
import pytest
import torch

import fluxgrad as fg

# torch warns where no stft window is given (fluxgrad's default is the same rectangular one)
pytestmark = pytest.mark.filterwarnings("ignore:A window was not provided")


def _close(ours, theirs, tol=1e-10):
    ours = ours.detach().numpy() if isinstance(ours, fg.Tensor) else ours
    theirs = theirs.detach().numpy() if isinstance(theirs, torch.Tensor) else theirs
    np.testing.assert_allclose(ours, theirs, rtol=tol, atol=tol)


def _pair(array):
    return fg.tensor(array, requires_grad=True), torch.tensor(array, requires_grad=True)


# --- linalg.eig / eigvals ----------------------------------------------------------------
def test_eig_of_a_real_matrix_is_complex_as_torch():
    a = np.random.default_rng(0).standard_normal((2, 4, 4)).astype(np.float32)
    values, vectors = fg.linalg.eig(fg.tensor(a))
    t_values, t_vectors = torch.linalg.eig(torch.tensor(a))
    assert values.dtype == fg.complex64 and vectors.dtype == fg.complex64
    _close(values, t_values, 1e-5)
    _close(vectors.abs(), t_vectors.abs(), 1e-5)  # (a phase apart, at most)
    v = vectors.numpy()
    _close(np.linalg.norm(v, axis=-2), np.ones((2, 4)), 1e-6)
    largest = np.take_along_axis(v, np.abs(v).argmax(-2)[:, None], -2)
    _close(largest.imag, np.zeros((2, 1, 4)))  # LAPACK's phase: the largest entry real


def test_eig_result_reads_by_name_and_reconstructs_the_matrix():
    a = np.random.default_rng(1).standard_normal((3, 3))
    result = fg.linalg.eig(fg.tensor(a))
    v, w = result.eigenvectors, result.eigenvalues
    _close(fg.linalg.solve(v.mT, (v * w.unsqueeze(-2)).mT).mT.real, a)
    _close(fg.linalg.eigvals(fg.tensor(a)), torch.linalg.eigvals(torch.tensor(a)))


def _phase_free(mod, values, vectors):
    """A loss that doesn't depend on each eigenvector's phase."""
    f = mod.matmul(vectors * values.exp().unsqueeze(-2), mod.linalg.inv(vectors))
    return (f.real * 0.3 + f.imag).sum() + (vectors.abs() ** 3).sum() + values.real.sum()


@pytest.mark.parametrize("complex_input", [False, True])
def test_eig_gradient_of_a_phase_free_loss_matches_torch(complex_input):
    rng = np.random.default_rng(2)
    a = rng.standard_normal((2, 3, 3)) + (1j * rng.standard_normal((2, 3, 3))
                                          if complex_input else 0)
    x, tx = _pair(a)
    _phase_free(fg, *fg.linalg.eig(x)).backward()
    _phase_free(torch, *torch.linalg.eig(tx)).backward()
    assert x.grad.dtype == (fg.complex128 if complex_input else fg.float64)
    _close(x.grad, tx.grad)


def test_eigvals_gradient_matches_torch():
    x, tx = _pair(np.random.default_rng(3).standard_normal((4, 4)))
    (fg.linalg.eigvals(x) ** 2).imag.sum().backward()
    (torch.linalg.eigvals(tx) ** 2).imag.sum().backward()
    _close(x.grad, tx.grad)


def test_eig_under_vmap_matches_the_loop():
    a = fg.tensor(np.random.default_rng(4).standard_normal((3, 3, 3)))
    batched = fg.func.vmap(lambda m: fg.linalg.eigvals(m))(a)
    _close(batched, torch.linalg.eigvals(torch.tensor(a.numpy())))


@pytest.mark.parametrize("a, error", [
    (np.array([[1.0, np.nan], [0.0, 1.0]]), "should not contain infs or NaNs"),
    (np.ones((2, 3)), "square"),
    (np.ones((2, 2), np.int64), "int64"),
])
def test_eig_refuses_what_torch_refuses(a, error):
    with pytest.raises(RuntimeError):
        torch.linalg.eig(torch.tensor(a))
    with pytest.raises(RuntimeError, match=error):
        fg.linalg.eig(fg.tensor(a))


def test_complex_solve_and_inverse_gradients_match_torch():
    rng = np.random.default_rng(5)
    a = rng.standard_normal((3, 3)) + 1j * rng.standard_normal((3, 3))
    b = rng.standard_normal((3, 2)) + 1j * rng.standard_normal((3, 2))
    (x, tx), (y, ty) = _pair(a), _pair(b)
    for mod, p, q in ((fg, x, y), (torch, tx, ty)):
        out = mod.linalg.solve(p, q) + mod.linalg.inv(p)[:, :2]
        ((out * out).real.sum() + out.abs().sum()).backward()
    _close(x.grad, tx.grad)
    _close(y.grad, ty.grad)


@pytest.mark.parametrize("factor", [
    np.array([[1.0, 0.0], [2.0, 0.0]]),
    np.stack([np.eye(2), np.zeros((2, 2))]),
])
def test_cholesky_inverse_of_a_singular_factor_raises_as_torch(factor):
    with pytest.raises(torch.linalg.LinAlgError) as theirs:
        torch.cholesky_inverse(torch.tensor(factor))
    with pytest.raises(fg.linalg.LinAlgError) as ours:
        fg.cholesky_inverse(fg.tensor(factor))
    assert str(ours.value) == str(theirs.value)


# --- stft / istft, hfft2 / hfftn / ihfft2 / ihfftn ---------------------------------------
def _signal(*shape, seed=6):
    return np.random.default_rng(seed).standard_normal(shape)


def test_stft_without_return_complex_refuses_a_real_signal_as_torch():
    x = _signal(40)
    with pytest.raises(RuntimeError) as theirs:
        torch.stft(torch.tensor(x), 8)
    with pytest.raises(RuntimeError) as ours:
        fg.stft(fg.tensor(x), 8)
    assert str(ours.value) == str(theirs.value)


def test_stft_of_a_complex_signal_defaults_to_a_two_sided_complex_spectrum():
    z = _signal(30) + 1j * _signal(30, seed=7)
    ours, theirs = fg.stft(fg.tensor(z), 8), torch.stft(torch.tensor(z), 8)
    assert ours.shape == theirs.shape == (8, 16)
    _close(ours, theirs)


def test_stft_return_complex_false_gives_the_real_view():
    x = _signal(2, 30)
    window = np.hanning(9)[:-1]
    ours = fg.stft(fg.tensor(x), 8, window=fg.tensor(window), return_complex=False)
    with pytest.warns(UserWarning):
        theirs = torch.stft(torch.tensor(x), 8, window=torch.tensor(window),
                            return_complex=False)
    assert ours.dtype == fg.float64 and ours.shape == theirs.shape
    _close(ours, theirs)


@pytest.mark.parametrize("kwargs, shape, message", [
    ({"hop_length": 0}, (40,), "hop_length > 0"),
    ({"win_length": 9}, (40,), "win_length <= n_fft"),
    ({}, (2, 2, 40), "1D or 2D"),
    ({"center": False}, (6,), "n_fft"),
    ({"window": np.ones(7)}, (40,), "window"),
    ({"onesided": True, "window": np.ones(8, complex)}, (40,), "onesided"),
])
def test_stft_refuses_what_torch_refuses(kwargs, shape, message):
    x = _signal(*shape)
    window = kwargs.pop("window", None)
    with pytest.raises(RuntimeError):
        torch.stft(torch.tensor(x), 8, window=None if window is None else torch.tensor(window),
                   return_complex=True, **kwargs)
    with pytest.raises(RuntimeError, match=message):
        fg.stft(fg.tensor(x), 8, window=None if window is None else fg.tensor(window),
                return_complex=True, **kwargs)


def test_istft_inverts_stft_and_its_gradient_matches_torch():
    x = _signal(2, 50)
    window = np.hanning(13)[:-1]
    (a, ta), (w, tw) = _pair(x), _pair(window)
    outs = []
    for mod, signal, win in ((fg, a, w), (torch, ta, tw)):
        spectrum = mod.stft(signal, 12, hop_length=3, window=win, return_complex=True)
        back = mod.istft(spectrum * 1.5, 12, hop_length=3, window=win, length=50)
        (back ** 3).sum().backward()
        outs.append(back)
    _close(outs[0], 1.5 * x)
    _close(outs[0], outs[1])
    _close(a.grad, ta.grad)
    _close(w.grad, tw.grad)


def test_istft_refuses_a_real_spectrum_and_a_window_that_leaves_gaps_as_torch():
    with pytest.raises(RuntimeError, match="complex-valued input"):
        fg.istft(fg.tensor(_signal(5, 4)), 8)
    spectrum = torch.stft(torch.tensor(_signal(40)), 8, window=torch.hann_window(8).double(),
                          center=False, return_complex=True)
    with pytest.raises(RuntimeError, match="window overlap add min"):
        torch.istft(spectrum, 8, window=torch.hann_window(8).double(), center=False)
    with pytest.raises(RuntimeError, match="window overlap add min"):
        fg.istft(fg.tensor(spectrum.numpy()), 8, window=fg.tensor(np.hanning(9)[:-1]),
                 center=False)


def test_istft_checks_the_frequency_count_against_n_fft():
    spectrum = fg.stft(fg.tensor(_signal(40)), 8, return_complex=True)
    with pytest.raises(RuntimeError, match="match n_fft when onesided=False"):
        fg.istft(spectrum, 8, onesided=False)


@pytest.mark.parametrize("name, kwargs", [
    ("hfft2", {}), ("hfftn", {"s": (3, 6), "dim": (0, 2), "norm": "ortho"}),
    ("ihfft2", {"norm": "forward"}), ("ihfftn", {}),
])
def test_hermitian_transforms_in_several_dimensions_match_torch(name, kwargs):
    x = _signal(3, 4, 5)
    if name.startswith("hfft"):
        x = x + 1j * _signal(3, 4, 5, seed=8)
    a, ta = _pair(x)
    ours, theirs = getattr(fg.fft, name)(a, **kwargs), getattr(torch.fft, name)(ta, **kwargs)
    assert ours.shape == theirs.shape and ours.dtype.is_complex == theirs.is_complex()
    _close(ours, theirs)
    ours.abs().sum().backward()
    theirs.abs().sum().backward()
    _close(a.grad, ta.grad)


# --- interpolate(antialias=True) ----------------------------------------------------------
@pytest.mark.parametrize("shape, kwargs", [
    ((1, 2, 16, 12), {"size": (5, 7), "mode": "bilinear"}),
    ((2, 1, 20, 20), {"scale_factor": 0.3, "mode": "bicubic"}),
    ((1, 1, 9, 13), {"size": (4, 4), "mode": "bicubic", "align_corners": True}),
    ((1, 1, 6, 5), {"size": (12, 9), "mode": "bicubic"}),  # upsampling: Keys' a = -0.5
    ((1, 1, 17, 11), {"scale_factor": (0.45, 0.7), "mode": "bilinear"}),
])
def test_antialiased_interpolate_matches_torch(shape, kwargs):
    x, tx = _pair(_signal(*shape))
    ours = fg.nn.functional.interpolate(x, antialias=True, **kwargs)
    theirs = torch.nn.functional.interpolate(tx, antialias=True, **kwargs)
    _close(ours, theirs)
    (ours ** 2).sum().backward()
    (theirs ** 2).sum().backward()
    _close(x.grad, tx.grad)


def test_antialiased_halving_weighs_by_the_stretched_triangle():
    # output 0 is centred at 1.0 in input coordinates; the triangle of half-width 2 weighs
    # inputs 0, 1, 2 (centres 0.5, 1.5, 2.5) by 0.75, 0.75, 0.25, normalised: 3/7, 3/7, 1/7
    x = np.array([1.0, 2.0, 4.0, 8.0]).reshape(1, 1, 1, 4)
    out = fg.nn.functional.interpolate(fg.tensor(x), size=(1, 2), mode="bilinear",
                                       antialias=True)
    np.testing.assert_allclose(out.numpy().ravel(), [(3 + 6 + 4) / 7, (2 + 12 + 24) / 7])


def test_antialias_refuses_other_modes_as_torch():
    with pytest.raises(ValueError, match="Anti-alias"):
        torch.nn.functional.interpolate(torch.ones(1, 1, 4, 4), size=2, mode="nearest",
                                        antialias=True)
    with pytest.raises(ValueError, match="Anti-alias"):
        fg.nn.functional.interpolate(fg.ones(1, 1, 4, 4), size=2, mode="nearest",
                                     antialias=True)


# --- LR schedulers' state_dict ------------------------------------------------------------
def _schedulers(L):
    """(name, factory of a scheduler given an optimizer) for every torch.optim.lr_scheduler
    class."""
    return [
        ("StepLR", lambda o: L.StepLR(o, 3)),
        ("MultiStepLR", lambda o: L.MultiStepLR(o, [2, 5, 2])),
        ("ExponentialLR", lambda o: L.ExponentialLR(o, 0.9)),
        ("CosineAnnealingLR", lambda o: L.CosineAnnealingLR(o, 10)),
        ("LambdaLR", lambda o: L.LambdaLR(o, lambda e: 0.9 ** e)),
        ("MultiplicativeLR", lambda o: L.MultiplicativeLR(o, lambda e: 0.9)),
        ("LinearLR", lambda o: L.LinearLR(o)),
        ("ConstantLR", lambda o: L.ConstantLR(o)),
        ("PolynomialLR", lambda o: L.PolynomialLR(o, power=2.0)),
        ("CosineAnnealingWarmRestarts", lambda o: L.CosineAnnealingWarmRestarts(o, 3, 2)),
        ("CyclicLR", lambda o: L.CyclicLR(o, 0.01, 0.1, step_size_up=3)),
        ("CyclicLR-exp_range", lambda o: L.CyclicLR(o, 0.01, 0.1, cycle_momentum=False,
                                                    mode="exp_range", gamma=0.9)),
        ("OneCycleLR", lambda o: L.OneCycleLR(o, 0.1, total_steps=10)),
        ("OneCycleLR-three_phase", lambda o: L.OneCycleLR(o, 0.1, total_steps=10,
                                                          three_phase=True,
                                                          anneal_strategy="linear")),
        ("SequentialLR", lambda o: L.SequentialLR(o, [L.ConstantLR(o), L.ExponentialLR(o, 0.9)],
                                                  [2])),
        ("ChainedScheduler", lambda o: L.ChainedScheduler([L.ConstantLR(o),
                                                           L.ExponentialLR(o, 0.9)])),
        ("ReduceLROnPlateau", lambda o: L.ReduceLROnPlateau(o, patience=1)),
    ]


_SCHEDULER_NAMES = [name for name, _ in _schedulers(torch.optim.lr_scheduler)]


def _stepped(mod, k, steps=4):
    p = mod.nn.Parameter(mod.zeros(2))
    optimizer = mod.optim.SGD([p], lr=0.1, momentum=0.9)
    name, make = _schedulers(mod.optim.lr_scheduler)[k]
    scheduler = make(optimizer)
    for _ in range(steps):
        optimizer.step()
        scheduler.step(1.0) if name == "ReduceLROnPlateau" else scheduler.step()
    return scheduler, optimizer


def _same_state(ours, theirs, where="state"):
    """Equal keys in the same order and equal values (floats to rounding: fluxgrad's closed
    forms and torch's recursive ones differ in the last bits)."""
    if isinstance(theirs, dict):
        assert list(ours) == list(theirs), where
        assert type(ours) is type(theirs) or isinstance(theirs, type(ours)), where
        for key in theirs:
            _same_state(ours[key], theirs[key], f"{where}[{key!r}]")
    elif isinstance(theirs, (list, tuple)):
        assert type(ours) is type(theirs) and len(ours) == len(theirs), where
        for i, (a, b) in enumerate(zip(ours, theirs)):
            _same_state(a, b, f"{where}[{i}]")
    elif isinstance(theirs, float):
        assert type(ours) is float and ours == pytest.approx(theirs, rel=1e-12), where
    else:
        assert type(ours) is type(theirs) and ours == theirs, where


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("k", range(len(_SCHEDULER_NAMES)), ids=_SCHEDULER_NAMES)
def test_scheduler_state_dict_reads_as_torch(k):
    ours, our_optimizer = _stepped(fg, k)
    theirs, their_optimizer = _stepped(torch, k)
    _same_state(ours.state_dict(), theirs.state_dict())
    group = {key: v for key, v in their_optimizer.param_groups[0].items() if key != "params"}
    for key in ("lr", "momentum", "initial_lr", "max_lr", "min_lr", "max_momentum",
                "base_momentum"):
        if key in group:
            assert our_optimizer.param_groups[0][key] == pytest.approx(group[key], rel=1e-12)


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("k", range(len(_SCHEDULER_NAMES)), ids=_SCHEDULER_NAMES)
def test_scheduler_loads_torch_state_dict_and_continues_as_torch(k):
    theirs, their_optimizer = _stepped(torch, k, steps=3)
    ours, our_optimizer = _stepped(fg, k, steps=0)
    for key, value in their_optimizer.param_groups[0].items():  # (the optimizer's state too)
        if key != "params":
            our_optimizer.param_groups[0][key] = value
    ours.load_state_dict(theirs.state_dict())
    for _ in range(3):
        for scheduler, optimizer in ((ours, our_optimizer), (theirs, their_optimizer)):
            optimizer.step()
            if isinstance(scheduler, (fg.optim.lr_scheduler.ReduceLROnPlateau,
                                      torch.optim.lr_scheduler.ReduceLROnPlateau)):
                scheduler.step(1.0)
            else:
                scheduler.step()
        assert our_optimizer.param_groups[0]["lr"] == pytest.approx(
            their_optimizer.param_groups[0]["lr"], rel=1e-12)
    _same_state(ours.state_dict(), theirs.state_dict())


# --- vmap's randomness for draws with tensor inputs -------------------------------------
def _rows_equal(t):
    t = np.asarray(t) if isinstance(t, np.ndarray) else t.numpy()
    return all(np.array_equal(t[0], row) for row in t[1:])


def test_vmap_same_bernoulli_of_an_input_copied_across_the_batch_draws_once():
    probs = fg.full((32,), 0.5).expand(4, 32)
    assert _rows_equal(fg.func.vmap(fg.bernoulli, randomness="same")(probs))


def test_vmap_same_bernoulli_compares_one_draw_with_each_examples_probabilities():
    probs = fg.tensor([[0.0] * 16 + [1.0] * 16, [1.0] * 16 + [0.0] * 16])
    out = fg.func.vmap(fg.bernoulli, randomness="same")(probs).numpy()
    np.testing.assert_array_equal(out, probs.numpy())  # (0 and 1 need no luck)


def test_vmap_same_dropout_draws_one_mask_as_torch():
    def drop(mod):
        return mod.func.vmap(lambda x: mod.nn.functional.dropout(x, 0.5),
                             randomness="same")(mod.ones(4, 32))
    assert _rows_equal(drop(torch)) and _rows_equal(drop(fg))


@pytest.mark.parametrize("batched", [True, False])
def test_vmap_different_bernoulli_draws_per_example_as_torch(batched):
    def run(mod):
        if batched:
            return mod.func.vmap(mod.bernoulli, randomness="different")(mod.full((4, 32), 0.5))
        return mod.func.vmap(lambda x: x + mod.bernoulli(mod.full((32,), 0.5)),
                             randomness="different")(mod.zeros(4, 32))
    assert not _rows_equal(run(torch)) and not _rows_equal(run(fg))


@pytest.mark.parametrize("batched", [True, False])
def test_vmap_error_refuses_a_bernoulli_as_torch(batched):
    for mod in (torch, fg):
        if batched:
            call = lambda: mod.func.vmap(mod.bernoulli)(mod.full((4, 8), 0.5))  # noqa: E731
        else:
            call = lambda: mod.func.vmap(  # noqa: E731
                lambda x: x + mod.bernoulli(mod.full((8,), 0.5)))(mod.zeros(4, 8))
        with pytest.raises(RuntimeError, match="randomness"):
            call()


@pytest.mark.parametrize("draw", ["normal", "poisson"])
def test_vmap_same_refuses_other_draws_of_inputs_that_differ_as_torch(draw):
    for mod in (torch, fg):
        fn = (lambda x: mod.normal(x, 1.0)) if draw == "normal" else mod.poisson
        with pytest.raises(RuntimeError, match="same randomness with a batched tensor input"):
            mod.func.vmap(fn, randomness="same")(mod.rand(4, 8) + 1)


def test_vmap_nested_levels_keep_their_own_randomness():
    inner = fg.func.vmap(fg.bernoulli, randomness="same")
    out = fg.func.vmap(inner, randomness="different")(fg.full((2, 3, 32), 0.5)).numpy()
    assert _rows_equal(out[0]) and _rows_equal(out[1])  # the same within an outer example
    assert not np.array_equal(out[0], out[1])  # different between them


def test_vmap_refuses_an_unknown_randomness_as_torch():
    for mod in (torch, fg):
        with pytest.raises(RuntimeError, match="Only allowed values for randomness"):
            mod.func.vmap(lambda x: x, randomness="sometimes")(mod.zeros(2))


# --- lazy layers' UninitializedParameter ----------------------------------------------------
@pytest.mark.parametrize("name, args", [
    ("LazyLinear", (3,)), ("LazyConv2d", (3, 1)), ("LazyConvTranspose1d", (2, 2)),
    ("LazyBatchNorm1d", ()), ("LazyInstanceNorm2d", ())])
def test_lazy_layer_before_its_first_call_prints_as_torch(name, args):
    ours, theirs = getattr(fg.nn, name)(*args), getattr(torch.nn, name)(*args)
    assert repr(ours.state_dict()) == repr(theirs.state_dict())
    assert repr(list(ours.named_parameters())) == repr(list(theirs.named_parameters()))
    assert repr(list(ours.named_buffers())) == repr(list(theirs.named_buffers()))
    assert ours.has_uninitialized_params() and theirs.has_uninitialized_params()


def test_uninitialized_parameter_is_a_parameter_without_a_shape_as_torch():
    for mod in (torch, fg):
        layer = mod.nn.LazyLinear(3)
        assert isinstance(layer.weight, mod.nn.parameter.UninitializedParameter)
        assert isinstance(layer.weight, mod.nn.Parameter) and layer.weight.requires_grad
        assert mod.nn.parameter.is_lazy(layer.weight)
        with pytest.raises(RuntimeError, match="Can't access the shape"):
            layer.weight.shape
        layer(mod.ones(2, 5))
        assert type(layer.weight) is mod.nn.Parameter and tuple(layer.weight.shape) == (3, 5)
        assert not mod.nn.parameter.is_lazy(layer.weight)


def test_uninitialized_parameter_materializes_into_a_parameter_as_torch():
    for mod in (torch, fg):
        param = mod.nn.parameter.UninitializedParameter(dtype=mod.float64)
        assert repr(param) == "<UninitializedParameter>"
        param.materialize((2, 3))
        assert type(param) is mod.nn.Parameter and tuple(param.shape) == (2, 3)
        assert param.dtype == mod.float64 and param.requires_grad
    assert repr(fg.nn.parameter.UninitializedBuffer()) == "<UninitializedBuffer>"
