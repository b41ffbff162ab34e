"""Focused tests of the small fixes the scripts of round 8 (tests/pytorch_scripts) brought in."""
import math

import numpy as np
import pytest

import fluxgrad as fg


@pytest.mark.parametrize("dtype,part", [(fg.complex64, fg.float32), (fg.complex128, fg.float64)])
def test_randn_of_a_complex_dtype_has_parts_of_variance_one_half(dtype, part):
    fg.manual_seed(0)
    z = fg.randn(40000, dtype=dtype)
    assert z.dtype == dtype and z.real.dtype == part
    assert abs(z.real.var().item() - 0.5) < 0.02 and abs(z.imag.var().item() - 0.5) < 0.02
    assert abs(z.abs().pow(2).mean().item() - 1.0) < 0.03


def test_rand_of_a_complex_dtype_draws_both_parts_on_the_unit_interval():
    z = fg.rand(2, 500, dtype=fg.cfloat)
    assert z.shape == (2, 500) and z.dtype == fg.complex64
    for part in (z.real, z.imag):
        assert 0 <= part.min().item() and part.max().item() < 1 and part.std().item() > 0.2


def test_complex64_modulus_is_rounded_once_as_hypotf():
    z = fg.exp(1j * fg.linspace(0, math.pi, 5))
    parts = np.stack([z.real.numpy(), z.imag.numpy()]).astype(np.float64)
    exact = np.hypot(parts[0], parts[1]).astype(np.float32)
    assert z.abs().numpy().tobytes() == exact.tobytes()
    assert (z.abs() == 1).all()


@pytest.mark.parametrize("name", ["Adam", "RMSprop", "Adagrad", "NAdam", "Adamax", "Adadelta",
                                  "RAdam", "AdamW"])
def test_optimizers_update_a_complex_parameter_as_its_real_pairs(name):
    torch = pytest.importorskip("torch")
    values = []
    for lib in (fg, torch):
        w = lib.tensor([1 + 2j, -0.5 + 0.1j], requires_grad=True)
        opt = getattr(lib.optim, name)([w], lr=0.1)
        for _ in range(3):
            opt.zero_grad()
            (w.abs() ** 3).sum().backward()
            opt.step()
        values.append((w.detach().numpy(), sorted(
            (k, str(v.dtype).split(".")[-1]) for k, v in opt.state[w].items() if v.ndim)))
    assert np.allclose(values[0][0], values[1][0], atol=1e-5)
    assert values[0][1] == values[1][1]


@pytest.mark.parametrize("values,name", [([True], "Bool"), ([1, 2], "Long"), ([1.0], None)])
def test_mean_of_a_non_float_names_the_dtype_as_torchs_message(values, name):
    x = fg.tensor(values)
    if name is None:
        with pytest.raises(RuntimeError, match="Optional dtype .* Got: Int"):
            x.mean(dtype=fg.int32)
        return
    with pytest.raises(RuntimeError, match=f"Got: {name};"):
        x.mean()


def test_lbfgs_keeps_its_two_loop_coefficients_in_the_state_as_torch():
    torch = pytest.importorskip("torch")
    keys = []
    for lib in (fg, torch):
        w = lib.tensor([-1.5, 2.0], dtype=lib.float64, requires_grad=True)
        opt = lib.optim.LBFGS([w], history_size=4, max_iter=6)

        def closure():
            opt.zero_grad()
            loss = (1 - w[0]) ** 2 + 100 * (w[1] - w[0] ** 2) ** 2
            loss.backward()
            return loss

        opt.step(closure)
        state = opt.state[w]
        keys.append((sorted(state), len(state["al"]), sum(a is None for a in state["al"])))
    assert keys[0] == keys[1]


@pytest.mark.parametrize("shape", [(2, 3, 4, 5), (2, 1, 3, 3), (4, 3, 1, 1)])
def test_channels_last_layouts_have_torchs_strides_and_identity(shape):
    torch = pytest.importorskip("torch")
    seen = []
    for lib in (fg, torch):
        x = lib.ones(*shape)
        cl = x.to(memory_format=lib.channels_last)
        seen.append((x.is_contiguous(memory_format=lib.channels_last), cl.stride(),
                     cl.is_contiguous(), cl.to(memory_format=lib.channels_last) is cl,
                     x.contiguous(memory_format=lib.channels_last).stride(),
                     x.clone(memory_format=lib.channels_last).stride(),
                     cl.contiguous().stride(),
                     cl.clone().is_contiguous(memory_format=lib.channels_last)))
    assert seen[0] == seen[1]


def test_channels_last_3d_and_a_wrong_rank():
    x = fg.zeros(1, 2, 3, 4, 5).to(memory_format=fg.channels_last_3d)
    assert x.stride() == (120, 1, 40, 10, 2)
    assert x.is_contiguous(memory_format=fg.channels_last_3d)
    assert not x.is_contiguous(memory_format=fg.channels_last)
    with pytest.raises(RuntimeError, match="required rank 4"):
        fg.zeros(3, 4, 5).to(memory_format=fg.channels_last)
    with pytest.raises(RuntimeError, match="required rank 5"):
        fg.zeros(3, 4, 5, 6).contiguous(memory_format=fg.channels_last_3d)


def test_a_channels_last_copy_keeps_values_and_gradients():
    x = fg.arange(24.0).view(1, 2, 3, 4).requires_grad_()
    y = x.to(memory_format=fg.channels_last)
    assert fg.equal(y, x.detach()) and y.stride() == (24, 1, 8, 2)
    (y * fg.arange(4.0)).sum().backward()
    assert fg.equal(x.grad, fg.arange(4.0).expand(1, 2, 3, 4))


def test_module_to_channels_last_lays_out_4d_parameters_only():
    model = fg.nn.Sequential(fg.nn.Conv2d(3, 4, 3), fg.nn.BatchNorm2d(4))
    assert model.to(memory_format=fg.channels_last) is model
    assert model[0].weight.stride() == (27, 1, 9, 3)
    assert model[0].weight.is_contiguous(memory_format=fg.channels_last)
    assert model[1].weight.stride() == (1,)


def test_base_of_a_view_is_the_tensor_that_owns_the_memory():
    t = fg.arange(12.0).clone()
    v = t.view(3, 4)
    assert t._base is None
    assert v._base is t and v.t()._base is t and v[1:, ::2]._base is t
    assert v.contiguous()._base is t and v.t().contiguous()._base is None
    assert t[[0, 2]]._base is None and t[t > 3]._base is None


def test_untyped_storage_is_shared_by_views_and_not_by_copies():
    t = fg.zeros(4, 4)
    assert t.untyped_storage().data_ptr() == t[2:].untyped_storage().data_ptr()
    assert t.untyped_storage().data_ptr() != t.clone().untyped_storage().data_ptr()
    assert t[2:].untyped_storage().nbytes() == 64 == len(t.untyped_storage())
