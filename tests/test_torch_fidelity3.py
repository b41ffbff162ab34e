"""PyTorch fidelity, third round: the generator state as a byte tensor, inference tensors,
as_strided, module forward argument names, indexing corner cases, special functions.

Expected values and behaviour come from torch 2.13 run side by side."""
import inspect

import numpy as np
import pytest

import fluxgrad as fg

torch = pytest.importorskip("torch")


# --- the generator state -----------------------------------------------------------------
def test_rng_state_is_a_uint8_tensor_of_torchs_size():
    ours, theirs = fg.get_rng_state(), torch.get_rng_state()
    assert isinstance(ours, fg.Tensor) and str(ours.dtype) == "fluxgrad.uint8"
    assert tuple(ours.shape) == tuple(theirs.shape)
    assert tuple(fg.random.get_rng_state().shape) == tuple(theirs.shape)


def test_set_rng_state_repeats_the_draws():
    fg.manual_seed(11)
    state = fg.get_rng_state()
    first = fg.randn(5).numpy()
    fg.rand(7)
    fg.set_rng_state(state)
    np.testing.assert_array_equal(fg.randn(5).numpy(), first)
    assert fg.initial_seed() == 11


def test_generator_state_round_trips_and_carries_the_seed():
    g = fg.Generator().manual_seed(3)
    fg.rand(4, generator=g)
    state = g.get_state()
    drawn = fg.rand(6, generator=g).numpy()
    other = fg.Generator().manual_seed(99)
    assert other.set_state(state) is other
    np.testing.assert_array_equal(fg.rand(6, generator=other).numpy(), drawn)
    assert other.initial_seed() == 3


def test_fork_rng_restores_the_state():
    fg.manual_seed(2)
    with fg.random.fork_rng():
        fg.randn(3)
    after = fg.randn(3).numpy()
    fg.manual_seed(2)
    np.testing.assert_array_equal(fg.randn(3).numpy(), after)


@pytest.mark.parametrize("bad, error", [
    (lambda L: L.zeros(3, dtype=L.uint8), RuntimeError),
    (lambda L: L.zeros(5056), TypeError),
    (lambda L: [1, 2], TypeError)])
def test_set_rng_state_refuses_what_torch_refuses(bad, error):
    with pytest.raises(error):
        torch.set_rng_state(bad(torch))
    fg.manual_seed(4)
    state = fg.get_rng_state()
    with pytest.raises(error, match="state"):
        fg.set_rng_state(bad(fg))
    assert fg.equal(fg.get_rng_state(), state)


# --- inference mode -----------------------------------------------------------------------
def test_tensors_made_in_inference_mode_are_inference_tensors():
    for L in (torch, fg):
        outside = L.ones(2)
        with L.inference_mode():
            inside = L.ones(2) * 3
            layer = L.nn.Linear(2, 2)
        assert not outside.is_inference() and inside.is_inference()
        assert layer.weight.is_inference()
        assert inside.view(2, 1).is_inference()  # a view of an inference tensor
        assert not (inside + 1).is_inference() and not inside.clone().is_inference()


@pytest.mark.parametrize("L", [torch, fg], ids=["torch", "fluxgrad"])
def test_inference_mode_false_leaves_inference_mode_and_turns_grad_on(L):
    with L.inference_mode():
        assert L.is_inference_mode_enabled() and not L.is_grad_enabled()
        with L.no_grad(), L.inference_mode(False):
            assert not L.is_inference_mode_enabled() and L.is_grad_enabled()
            assert not L.ones(1).is_inference()
        with L.inference_mode(False), L.inference_mode():
            assert L.is_inference_mode_enabled() and not L.is_grad_enabled()

    @L.inference_mode(False)
    def inside():
        return L.is_inference_mode_enabled(), L.is_grad_enabled()
    with L.inference_mode():
        assert inside() == (False, True)
    assert not L.is_inference_mode_enabled() and L.is_grad_enabled()


# --- as_strided and unfold ----------------------------------------------------------------
def both(fn):
    """fn(L) for L = torch and fluxgrad, as NumPy arrays."""
    return [np.asarray(fn(L).detach().numpy()) for L in (torch, fg)]


@pytest.mark.parametrize("size, stride, offset", [
    ((2, 2), (1, 2), 1), ((3, 3), (1, 1), None), ((4, 3), (1, 4), 0), ((2, 3), (0, 2), 2),
    ((), (), 7), ((0, 4), (1, 1), None)])
def test_as_strided_reads_what_torch_reads(size, stride, offset):
    theirs, ours = both(lambda L: L.arange(12.).reshape(3, 4).as_strided(size, stride, offset))
    np.testing.assert_array_equal(ours, theirs)


def test_as_strided_of_a_slice_counts_the_storage_offset_as_torch():
    for start in (None, 5):
        theirs, ours = both(lambda L: L.as_strided(L.arange(12.).reshape(3, 4)[1:], (2, 2),
                                                   (1, 2), start))
        np.testing.assert_array_equal(ours, theirs)


def test_as_strided_gradient_adds_up_over_overlapping_windows():
    grads = []
    for L in (torch, fg):
        a = L.tensor([0.5, -1.0, 2.0, 3.0, 1.5, -2.0], requires_grad=True)
        (a.as_strided((3, 3), (1, 1)) ** 2).sum().backward()
        grads.append(a.grad.numpy())
    np.testing.assert_allclose(grads[1], grads[0])


def test_writes_through_as_strided_and_unfold_reach_the_base():
    for build in (lambda t: t.as_strided((2, 2), (1, 2)), lambda t: t.unfold(0, 3, 2)):
        results = []
        for L in (torch, fg):
            a = L.arange(1., 7., requires_grad=True)
            c = a * 1
            build(c)[0].mul_(10)
            c.sum().backward()
            results.append((c.detach().numpy(), a.grad.numpy()))
        np.testing.assert_array_equal(results[1][0], results[0][0])
        np.testing.assert_array_equal(results[1][1], results[0][1])


@pytest.mark.parametrize("size, stride, offset", [
    ((5, 5), (4, 1), 0), ((2, 2), (-1, 1), 0), ((2,), (1, 1), 0), ((2,), (1,), 20)])
def test_as_strided_refuses_what_torch_refuses(size, stride, offset):
    with pytest.raises(RuntimeError):
        torch.arange(12.).reshape(3, 4).as_strided(size, stride, offset)
    with pytest.raises(RuntimeError, match="as_strided"):
        fg.arange(12.).reshape(3, 4).as_strided(size, stride, offset)


@pytest.mark.parametrize("args", [(0, 5, 1), (0, 2, 0)])
def test_unfold_refuses_windows_that_do_not_fit(args):
    with pytest.raises(RuntimeError):
        torch.arange(4.).unfold(*args)
    with pytest.raises(RuntimeError, match="unfold"):
        fg.arange(4.).unfold(*args)


# --- module forward argument names --------------------------------------------------------
def _module_classes():
    for name in sorted(dir(torch.nn)):
        theirs = getattr(torch.nn, name)
        ours = getattr(fg.nn, name, None)
        if (isinstance(theirs, type) and issubclass(theirs, torch.nn.Module)
                and theirs.forward is not torch.nn.Module.forward and ours is not None):
            yield name, theirs, ours


def _forward_names(cls):
    return [p.name for p in inspect.signature(cls.forward).parameters.values()][1:]


@pytest.mark.parametrize("name, theirs, ours", list(_module_classes()),
                         ids=[name for name, _, _ in _module_classes()])
def test_forward_takes_torchs_argument_names(name, theirs, ours):
    assert _forward_names(ours) == _forward_names(theirs)


def test_layers_are_called_with_keyword_input():
    x = np.random.default_rng(0).standard_normal((2, 3, 8)).astype(np.float32)
    for L in (torch, fg):
        L.manual_seed(0)
    outputs = []
    for L in (torch, fg):
        t = L.tensor(x)
        conv, norm, act = L.nn.Conv1d(3, 4, 3), L.nn.BatchNorm1d(3), L.nn.GELU()
        with L.no_grad():
            conv.weight.copy_(L.tensor(np.linspace(-1, 1, 36, dtype=np.float32).reshape(4, 3, 3)))
            conv.bias.zero_()
        y = act(input=conv(input=norm(input=t)))
        out, (h, c) = L.nn.LSTM(8 - 2, 5, batch_first=True)(input=y)
        convt = L.nn.ConvTranspose1d(4, 2, 3, stride=2)
        outputs.append((y.detach().numpy(), out.shape, convt(input=y, output_size=[14]).shape))
    np.testing.assert_allclose(outputs[1][0], outputs[0][0], rtol=1e-5, atol=1e-6)
    assert tuple(outputs[1][1]) == tuple(outputs[0][1])
    assert tuple(outputs[1][2]) == tuple(outputs[0][2])


# --- indexing corner cases ----------------------------------------------------------------
@pytest.mark.parametrize("index", [
    lambda L: [1.1], lambda L: [1, 2.5], lambda L: [-1.5], lambda L: np.array([1.7, -0.2]),
    lambda L: [[0, 1], [1, 2]], lambda L: [[True, False, True]], lambda L: [1, [0]],
    lambda L: [None], lambda L: [slice(1, 2)], lambda L: [[1.5, 0]],
    lambda L: np.array([[0, 1], [1, 2]])], ids=str)
@pytest.mark.filterwarnings("ignore:.*(non-tuple sequence|as a tuple)")
def test_getitem_reads_float_lists_and_lists_of_sequences_as_torch(index):
    theirs, ours = both(lambda L: L.arange(12.).reshape(3, 4)[index(L)])
    np.testing.assert_array_equal(ours, theirs)


@pytest.mark.filterwarnings("ignore:.*(non-tuple sequence|as a tuple)")
def test_setitem_reads_float_lists_and_lists_of_sequences_as_torch():
    def write(L):
        x = L.arange(12.).reshape(3, 4)
        x[[1.2]] = 5
        x[[[0, 1], [1, 2]]] = -1
        x[0, 0] = L.tensor([7.])  # leading size-1 dimensions of the value are dropped
        x[2] = L.full((1, 1, 4), 3.)
        return x
    theirs, ours = both(write)
    np.testing.assert_array_equal(ours, theirs)


def test_a_list_read_as_a_tuple_warns():
    with pytest.warns(UserWarning, match="tuple"):
        fg.arange(12.).reshape(3, 4)[[[0, 1], [1, 2]]]


@pytest.mark.filterwarnings("ignore:.*non-tuple sequence")
def test_indexing_with_a_string_is_a_type_error():
    for L in (torch, fg):
        with pytest.raises(TypeError):
            L.arange(3.)["a"]


def test_float_tensors_still_refused_as_indices():
    with pytest.raises(IndexError):
        torch.arange(3.)[torch.tensor([1.0])]
    with pytest.raises(IndexError, match="integer or boolean"):
        fg.arange(3.)[fg.tensor([1.0])]


# --- zeta and the incomplete gamma functions ----------------------------------------------
INF, NAN = float("inf"), float("nan")


def test_zeta_values_and_edges_as_torch():
    x = [2., 1., 0.5, 1.5, 3., 2., 2., 2., 4., 2., INF, 2., 1.0001, 5.5, 2.3, 7., 30., 1.5]
    q = [1., 1., 1., -0.5, -1.5, -2., 0., 1e9, 0.3, INF, 2., NAN, 1., 0.01, 40., -20.5, 0.5, 1e7]
    theirs, ours = both(lambda L: L.special.zeta(L.tensor(x, dtype=L.float64),
                                                 L.tensor(q, dtype=L.float64)))
    np.testing.assert_allclose(ours, theirs, rtol=1e-12)


@pytest.mark.parametrize("name", ["gammainc", "gammaincc"])
def test_incomplete_gamma_values_and_edges_as_torch(name):
    a = [1., 2., 0.5, 0., 0., -1., 2., INF, INF, 2., NAN, 0., 100., 1000., 1e5, 0.01, 30., 5.,
         1e-3]
    x = [1., 0.5, 2., 1., 0., 1., -1., 3., INF, INF, 1., INF, 90., 1010., 1e5 + 300, 1e-3, 60.,
         1e-20, 50.]
    theirs, ours = both(lambda L: getattr(L.special, name)(L.tensor(a, dtype=L.float64),
                                                          L.tensor(x, dtype=L.float64)))
    np.testing.assert_allclose(ours, theirs, rtol=1e-8, atol=1e-300)


def test_special_function_dtypes_and_spellings_as_torch():
    for L in (torch, fg):
        ints = L.special.zeta(L.tensor([2, 3]), L.tensor([1, 2]))
        mixed = L.special.gammainc(L.tensor([1.]), L.tensor([1.], dtype=L.float64))
        assert str(ints.dtype).split(".")[1] == "float32"
        assert str(mixed.dtype).split(".")[1] == "float64"
    theirs, ours = both(lambda L: L.stack([L.special.zeta(2, L.tensor([1., 2.])),
                                           L.special.zeta(L.tensor([2., 3.]), 1),
                                           L.igamma(L.tensor([1., 2.]), L.tensor([.5, 1.5])),
                                           L.tensor([1., 2.]).igammac(L.tensor([.5, 1.5]))]))
    np.testing.assert_allclose(ours, theirs, rtol=1e-6)


def test_gradients_in_the_second_argument_as_torch():
    grads = []
    for L in (torch, fg):
        q = L.tensor([2., 3.], requires_grad=True)
        x = L.tensor([0.5, 2.], requires_grad=True)
        (L.special.zeta(L.tensor([2., 3.]), q) + L.special.gammainc(L.tensor([1.5, 3.]), x)
         ).sum().backward()
        grads.append((q.grad.numpy(), x.grad.numpy()))
    np.testing.assert_allclose(grads[1][0], grads[0][0], rtol=1e-5)
    np.testing.assert_allclose(grads[1][1], grads[0][1], rtol=1e-5)


@pytest.mark.parametrize("call", [lambda L, t: L.special.zeta(t, L.tensor([1., 2.])),
                                  lambda L, t: L.special.gammainc(t, L.tensor([1., 2.])),
                                  lambda L, t: L.special.gammaincc(t, L.tensor([1., 2.]))])
def test_no_gradient_in_the_first_argument_as_torch(call):
    for L in (torch, fg):
        t = L.tensor([2., 3.], requires_grad=True)
        with pytest.raises(NotImplementedError):
            call(L, t).sum().backward()


@pytest.mark.parametrize("name", ["gammainc", "gammaincc"])
def test_incomplete_gamma_refuses_integer_tensors_as_torch(name):
    for L in (torch, fg):
        with pytest.raises(NotImplementedError):
            getattr(L.special, name)(L.tensor([1, 2]), L.tensor([1, 2]))


# --- pooling with indices -----------------------------------------------------------------
def test_max_pool1d_layer_returns_indices_and_unpools_as_torch():
    results = []
    for L in (torch, fg):
        x = L.tensor([[[1., 5., 2., 8., 3., 0.]]])
        pooled, indices = L.nn.MaxPool1d(2, return_indices=True)(x)
        x3 = L.arange(8.).view(1, 1, 2, 2, 2)
        p3, i3 = L.nn.MaxPool3d(2, return_indices=True)(x3)
        results.append((L.nn.MaxUnpool1d(2)(pooled, indices).numpy(), indices.numpy(),
                        L.nn.MaxUnpool3d(2)(p3, i3).numpy(),
                        [repr(L.nn.MaxUnpool1d(3, stride=1)), repr(L.nn.MaxUnpool2d(2)),
                         repr(L.nn.MaxUnpool3d(2, padding=1))]))
    for theirs, ours in zip(*results):
        if isinstance(theirs, list):
            assert ours == theirs
        else:
            np.testing.assert_array_equal(ours, theirs)


# --- nn.utils.parametrizations.orthogonal -------------------------------------------------
@pytest.mark.parametrize("shape, options", [
    ((4, 4), {}), ((5, 3), {}), ((3, 5), {}), ((4, 4), {"orthogonal_map": "cayley"}),
    ((4, 4), {"orthogonal_map": "householder"}), ((5, 3), {"orthogonal_map": "matrix_exp"}),
    ((5, 3), {"orthogonal_map": "householder", "use_trivialization": False}),
    ((4, 4), {"orthogonal_map": "householder", "use_trivialization": False})], ids=str)
def test_orthogonal_parametrization_trains_as_torch(shape, options):
    results = []
    for L in (torch, fg):
        rng = np.random.default_rng(0)
        lin = L.nn.Linear(shape[1], shape[0])
        with L.no_grad():
            lin.weight.copy_(L.tensor(rng.normal(0, 1, shape).astype(np.float32)))
            lin.bias.copy_(L.tensor(rng.normal(0, 1, shape[0]).astype(np.float32)))
        L.nn.utils.parametrizations.orthogonal(lin, **options)
        x = L.tensor(rng.normal(0, 1, (6, shape[1])).astype(np.float32))
        first = lin.weight.detach().clone()
        opt = L.optim.SGD(lin.parameters(), lr=0.1)
        for _ in range(3):
            loss = (lin(x) - 1).pow(2).sum()
            opt.zero_grad()
            loss.backward()
            opt.step()
        w = lin.weight.detach()
        gram = w.T @ w if shape[0] >= shape[1] else w @ w.T
        assert float((gram - L.eye(min(shape))).abs().max()) < 1e-5
        results.append((first.numpy(), w.numpy(), type(lin).__name__))
    np.testing.assert_allclose(results[1][0], results[0][0], atol=1e-5)
    if shape[0] == shape[1] or options.get("use_trivialization") is False:
        # a non-square base is completed with random columns, which training then reaches
        np.testing.assert_allclose(results[1][1], results[0][1], atol=1e-4)
    assert results[1][2] == results[0][2]


def test_orthogonal_refuses_what_torch_refuses():
    for L in (torch, fg):
        with pytest.raises(ValueError, match="matrix"):
            L.nn.utils.parametrizations.orthogonal(L.nn.Linear(3, 3), "bias")
        with pytest.raises(ValueError, match="orthogonal_map"):
            L.nn.utils.parametrizations.orthogonal(L.nn.Linear(3, 3), orthogonal_map="qr")
        with pytest.raises(ValueError, match="no parameter"):
            L.nn.utils.parametrizations.orthogonal(L.nn.Linear(3, 3), "kernel")
