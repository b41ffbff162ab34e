"""Focused tests of the small fixes the scripts of round 7 (tests/pytorch_scripts) brought in."""
import pytest

import fluxgrad as fg


@pytest.mark.parametrize("make", [fg.zeros, fg.ones, fg.empty, fg.rand, fg.randn])
def test_factories_take_the_size_as_a_keyword_as_torch(make):
    assert make(size=(2, 3)).shape == (2, 3)
    assert make(size=[4]).shape == (4,)
    assert make(2, 3).shape == make((2, 3)).shape == (2, 3)


@pytest.mark.parametrize("make", [fg.zeros, fg.rand])
def test_a_size_given_twice_is_refused_with_type_error(make):
    with pytest.raises(TypeError, match="both positionally"):
        make(2, size=(2,))


def test_distribution_modules_import_by_torch_paths():
    from fluxgrad.distributions.categorical import Categorical
    from fluxgrad.distributions.one_hot_categorical import OneHotCategoricalStraightThrough
    import fluxgrad.distributions.multivariate_normal as mvn
    assert Categorical is fg.distributions.Categorical
    assert OneHotCategoricalStraightThrough is fg.distributions.OneHotCategoricalStraightThrough
    assert mvn.MultivariateNormal is fg.distributions.MultivariateNormal
    assert fg.distributions.normal.Normal is fg.distributions.Normal


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("start,end,steps", [(-1, 1, 7), (-1, 1, 34), (0.0, 10.0, 101),
                                             (-3.3, 7.1, 64), (5.0, -2.0, 1001)])
def test_linspace_is_bitwise_torchs(dtype, start, end, steps):
    torch = pytest.importorskip("torch")
    ours = fg.linspace(start, end, steps, dtype=getattr(fg, dtype)).numpy()
    theirs = torch.linspace(start, end, steps, dtype=getattr(torch, dtype)).numpy()
    assert ours.tobytes() == theirs.tobytes()


@pytest.mark.parametrize("align_corners", [False, True])
@pytest.mark.parametrize("padding_mode", ["zeros", "border", "reflection"])
def test_grid_sample_on_the_identity_grid_has_torchs_grid_gradient(align_corners, padding_mode):
    # the spatial-transformer tutorial starts from the identity: every sample lies on a pixel
    # centre (a kink of bilinear interpolation), so the gradient depends on how the coordinate
    # rounds and which side of the edges counts as inside
    torch = pytest.importorskip("torch")
    import numpy as np
    x = np.random.default_rng(0).normal(size=(2, 1, 34, 9)).astype(np.float32)
    theta = [[[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]] * 2
    grads = []
    for lib in (fg, torch):
        grid = lib.nn.functional.affine_grid(lib.tensor(theta), (2, 1, 34, 9),
                                             align_corners=align_corners)
        grid = grid.detach().requires_grad_()
        out = lib.nn.functional.grid_sample(lib.tensor(x), grid, padding_mode=padding_mode,
                                            align_corners=align_corners)
        out.pow(2).sum().backward()
        grads.append(grid.grad.numpy())
    assert np.allclose(grads[0], grads[1], atol=1e-4)


def test_legacy_contiguous_format_is_contiguous_format_as_torch():
    assert fg.legacy_contiguous_format is fg.contiguous_format
    like = fg.zeros_like(fg.ones(2, 3), memory_format=fg.legacy_contiguous_format)
    assert like.shape == (2, 3) and like.is_contiguous()


def test_function_with_setup_context_runs_forward_without_ctx():
    class Cube(fg.autograd.Function):
        @staticmethod
        def forward(x):
            return x ** 3

        @staticmethod
        def setup_context(ctx, inputs, output):
            ctx.save_for_backward(inputs[0])

        @staticmethod
        def backward(ctx, out_bar):
            x, = ctx.saved_tensors
            return out_bar * 3 * x ** 2

    x = fg.tensor([1.0, -2.0], requires_grad=True)
    Cube.apply(x).sum().backward()
    assert x.grad.tolist() == [3.0, 12.0]
    assert fg.vmap(Cube.apply)(fg.tensor([[1.0], [2.0]])).tolist() == [[1.0], [8.0]]


def _two_layers():
    return fg.nn.Sequential(fg.nn.Linear(2, 2), fg.nn.Linear(2, 1))


def test_load_state_dict_post_hook_may_clear_missing_keys_before_strict_checks():
    model, calls = _two_layers(), []

    def forgive_missing(module, incompatible_keys):
        calls.append(type(module).__name__)
        incompatible_keys.missing_keys.clear()

    model[1].register_load_state_dict_post_hook(forgive_missing)
    state = {k: v for k, v in _two_layers().state_dict().items() if k != "1.bias"}
    result = model.load_state_dict(state)
    assert calls == ["Linear"] and result.missing_keys == [] and repr(result).startswith("<All")
    assert fg.equal(model[0].weight, state["0.weight"])


def test_load_state_dict_pre_hook_renames_keys_in_a_copy():
    model, source = _two_layers(), _two_layers().state_dict()
    renamed = {k.replace("0.weight", "0.w"): v for k, v in source.items()}

    def rename(module, state_dict, prefix, *rest):
        if prefix + "w" in state_dict:
            state_dict[prefix + "weight"] = state_dict.pop(prefix + "w")

    model[0]._register_load_state_dict_pre_hook(rename)
    model.load_state_dict(renamed)
    assert fg.equal(model[0].weight, source["0.weight"]) and "0.w" in renamed


def test_state_dict_pre_and_post_hooks_see_each_module_prefix():
    model, seen = _two_layers(), []
    model[1].register_state_dict_pre_hook(lambda module, prefix, keep_vars: seen.append(prefix))
    model[1].register_state_dict_post_hook(
        lambda module, state, prefix, meta: state.pop(prefix + "bias"))
    assert list(model.state_dict()) == ["0.weight", "0.bias", "1.weight"] and seen == ["1."]


def test_named_parameters_remove_duplicate_false_lists_shared_modules_twice():
    shared = fg.nn.Linear(2, 2)
    model = fg.nn.Sequential(shared, fg.nn.ReLU(), shared)
    names = [n for n, _ in model.named_parameters(remove_duplicate=False)]
    assert names == ["0.weight", "0.bias", "2.weight", "2.bias"]
    assert len(list(model.parameters())) == 2


def test_reshape_takes_the_shape_keyword_as_torch():
    x = fg.arange(6.0)
    assert x.reshape(shape=(2, 3)).shape == (2, 3)
    assert fg.reshape(x, shape=[3, -1]).shape == (3, 2)
    with pytest.raises(TypeError, match="both positionally"):
        x.reshape(2, 3, shape=(6,))


def test_range_includes_its_end_in_the_default_float_dtype_and_warns_as_torch():
    with pytest.warns(UserWarning, match="torch.range is deprecated"):
        r = fg.range(1, 4, 0.5)
    assert r.dtype == fg.float32 and r.tolist() == [1.0, 1.5, 2.0, 2.5, 3.0, 3.5, 4.0]
    with pytest.warns(UserWarning):
        assert fg.range(5, 1, -2).tolist() == [5.0, 3.0, 1.0]
        assert fg.range(0, 2, dtype=fg.int64).tolist() == [0, 1, 2]
        with pytest.raises(RuntimeError, match="inconsistent with step sign"):
            fg.range(0, 2, -1)


def test_embedding_and_transposed_conv_print_every_non_default_argument_as_torch():
    emb = fg.nn.Embedding(5, 3, padding_idx=1, max_norm=1.0, norm_type=1.0,
                          scale_grad_by_freq=True, sparse=True)
    assert repr(emb) == ("Embedding(5, 3, padding_idx=1, max_norm=1.0, norm_type=1.0, "
                         "scale_grad_by_freq=True, sparse=True)")
    up = fg.nn.ConvTranspose2d(3, 8, 3, stride=2, output_padding=1)
    assert repr(up) == ("ConvTranspose2d(3, 8, kernel_size=(3, 3), stride=(2, 2), "
                        "output_padding=(1, 1))")
