"""What the code generator rewrites for speed and memory, checked against PyTorch: a training
step's parameter and optimizer-state updates written in place into the eager arrays (in
chunks for a large parameter), the transpose of a matrix product written as one transposed
product, a bias added in place into its product, large products written into a workspace
kept between calls (one per concurrent call), and the `stop_gradient` equations tracing under
no_grad adds dropped from the code."""

import numpy as np
import pytest

import fluxgrad
import fluxgrad.nn.functional as F
from fluxgrad import Tensor, nn, optim

torch = pytest.importorskip("torch")
STEPS = 20


def _models():
    fluxgrad.manual_seed(0)
    model = nn.Sequential(nn.Linear(6, 16), nn.Tanh(), nn.Linear(16, 3))
    t_model = torch.nn.Sequential(torch.nn.Linear(6, 16), torch.nn.Tanh(),
                                  torch.nn.Linear(16, 3))
    with torch.no_grad():
        for p, q in zip(model.parameters(), t_model.parameters()):
            q.copy_(torch.tensor(p._data))
    return model, t_model


def _batches():
    rng = np.random.default_rng(1)
    return [(rng.standard_normal((5, 6)).astype(np.float32), rng.integers(0, 3, 5))
            for _ in range(STEPS)]


def _train(make_opt, make_t_opt):
    model, t_model = _models()
    opt, t_opt = make_opt(model.parameters()), make_t_opt(t_model.parameters())

    def step(x, y):
        opt.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        return loss
    compiled = fluxgrad.compile(step)
    arrays = {id(p): p._data for p in model.parameters()}
    for x, y in _batches():
        loss = compiled(Tensor(x), Tensor(y))
        t_opt.zero_grad()
        t_loss = torch.nn.functional.cross_entropy(t_model(torch.tensor(x)), torch.tensor(y))
        t_loss.backward()
        t_opt.step()
        np.testing.assert_allclose(loss.item(), t_loss.item(), rtol=1e-5)
        assert all(p._data is arrays[id(p)] for p in model.parameters())
    for p, q in zip(model.parameters(), t_model.parameters()):
        np.testing.assert_allclose(p._data, q.detach().numpy(), rtol=1e-4, atol=1e-6)
        np.testing.assert_allclose(p.grad._data, q.grad.numpy(), rtol=1e-4, atol=1e-6)
    return compiled, model, opt


def test_sgd_step_updates_each_parameter_in_place_and_matches_pytorch_for_20_steps():
    compiled, _, _ = _train(lambda ps: optim.SGD(ps, lr=0.1),
                            lambda ps: torch.optim.SGD(ps, lr=0.1))
    for name in ("model_0_weight", "model_0_bias", "model_2_weight", "model_2_bias"):
        assert f", {name})" in compiled.code  # the update's `out=` is the parameter's array


def test_momentum_buffers_are_updated_in_place_and_match_pytorch_for_20_steps():
    compiled, model, opt = _train(lambda ps: optim.SGD(ps, lr=0.05, momentum=0.9),
                                  lambda ps: torch.optim.SGD(ps, lr=0.05, momentum=0.9))
    weight = model[0].weight
    buffers = {k: (v, v._data) for k, v in opt.state[weight].items()}
    assert buffers
    x, y = _batches()[0]
    compiled(Tensor(x), Tensor(y))
    assert all(opt.state[weight][k] is v and v._data is a for k, (v, a) in buffers.items())


def _transposed_product(a, b):
    return (a @ b).T * 2.0


def test_transpose_of_a_matrix_product_is_one_contiguous_product():
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((5, 4)), rng.standard_normal((4, 7))
    compiled = fluxgrad.compile(_transposed_product)
    compiled(Tensor(a), Tensor(b))
    out = compiled(Tensor(a), Tensor(b))
    assert "_matmul_transposed" in compiled.code and "_permute" not in compiled.code
    assert out._data.flags.c_contiguous
    expected = _transposed_product(torch.tensor(a), torch.tensor(b)).numpy()
    np.testing.assert_allclose(out._data, expected, rtol=1e-12)


def test_a_saved_module_with_a_transposed_product_runs_without_fluxgrad(
        tmp_path, run_without_fluxgrad):
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((5, 4)), rng.standard_normal((4, 7))
    compiled = fluxgrad.compile(_transposed_product)
    compiled(Tensor(a), Tensor(b))
    compiled.save(tmp_path / "product.py")
    np.savez(tmp_path / "inputs.npz", a=a, b=b,
             expected=_transposed_product(torch.tensor(a), torch.tensor(b)).numpy())
    run_without_fluxgrad(
        "from product import _transposed_product as f\n"
        "d = np.load('inputs.npz')\n"
        "np.testing.assert_allclose(f(d['a'], d['b'])[0], d['expected'], rtol=1e-12)\n"
        "print('ok')\n")


def _chain(y, w):
    for _ in range(4):
        y = (y * w + 0.5).tanh() - y * 0.25
    return y


def test_a_chain_compiled_under_no_grad_calls_no_stop_gradient_and_matches_pytorch():
    rng = np.random.default_rng(0)
    y, w = rng.standard_normal(300000).astype(np.float32), np.full(300000, 0.9, np.float32)
    compiled = fluxgrad.compile(_chain)
    with fluxgrad.no_grad():
        compiled(Tensor(y), Tensor(w))
        out = compiled(Tensor(y), Tensor(w))
    assert "stop_gradient" not in compiled.code
    assert "for " in compiled.code  # one fused loop over chunks, unbroken
    expected = _chain(torch.tensor(y), torch.tensor(w)).numpy()
    np.testing.assert_allclose(out._data, expected, rtol=1e-5, atol=1e-6)


def _large_linear_steps(order, steps=3):
    """A compiled SGD step of a 400 -> 512 linear layer (a weight large enough that its update
    runs in chunks), its weight array in C or Fortran order, against PyTorch."""
    rng = np.random.default_rng(0)
    w0 = rng.standard_normal((512, 400)).astype(np.float32) * 0.05
    x = rng.standard_normal((8, 400)).astype(np.float32)
    layer = nn.Linear(400, 512)
    layer.weight._data = np.array(w0, order=order)
    t_layer = torch.nn.Linear(400, 512)
    with torch.no_grad():
        t_layer.weight.copy_(torch.tensor(w0))
        t_layer.bias.copy_(torch.tensor(layer.bias._data))
    opt, t_opt = optim.SGD(layer.parameters(), lr=0.1), torch.optim.SGD(t_layer.parameters(),
                                                                        lr=0.1)

    def step(x):
        opt.zero_grad()
        loss = (layer(x) ** 2).mean()
        loss.backward()
        opt.step()
        return loss
    compiled = fluxgrad.compile(step)
    array = layer.weight._data
    for _ in range(steps):
        compiled(Tensor(x))
        t_opt.zero_grad()
        (t_layer(torch.tensor(x)) ** 2).mean().backward()
        t_opt.step()
    np.testing.assert_allclose(layer.weight._data, t_layer.weight.detach().numpy(),
                               rtol=1e-5, atol=1e-7)
    return compiled, layer, array


def test_a_large_weight_is_updated_in_chunks_in_place_and_matches_pytorch():
    compiled, layer, array = _large_linear_steps("C")
    assert "for " in compiled.code and "layer_weight.flags.c_contiguous" in compiled.code
    assert layer.weight._data is array


def test_a_large_fortran_order_weight_chunked_update_matches_pytorch():
    compiled, layer, _ = _large_linear_steps("F")
    assert "for " in compiled.code


def test_a_bias_is_added_in_place_into_the_product():
    compiled, _, _ = _large_linear_steps("C", steps=2)
    # nn.Linear is one op (fluxgrad/ops/linear.py) whose impl adds the bias into its product
    # in place: no separate add of the bias in the program
    lines = compiled.code.splitlines()
    first = next(i for i, line in enumerate(lines) if "_linear(" in line)
    assert "_linear(layer_bias, x, layer_weight)" in lines[first]
    forward_and_backward = lines[first + 1:next(i for i, line in enumerate(lines)
                                                 if "opt.step()" in line)]
    assert not any("layer_bias" in line for line in forward_and_backward)


def _mlp_layer(x, w, v):
    h = (x @ w).relu()  # (256, 128) float64: a product large enough for a kept workspace
    return h @ v, (h * 2.0).sum(axis=0)


def _mlp_layer_inputs(seed):
    rng = np.random.default_rng(seed)
    return (rng.standard_normal((256, 64)), rng.standard_normal((64, 128)),
            rng.standard_normal((128, 3)))


def _mlp_layer_expected(x, w, v):
    product, sums = _mlp_layer(*(torch.tensor(a) for a in (x, w, v)))
    return product.numpy(), sums.numpy()


def test_products_write_into_a_workspace_kept_between_calls_that_results_never_share():
    compiled = fluxgrad.compile(_mlp_layer)
    first_inputs, second_inputs = _mlp_layer_inputs(0), _mlp_layer_inputs(1)
    first = compiled(*(Tensor(a) for a in first_inputs))
    second = compiled(*(Tensor(a) for a in second_inputs))
    assert "_matmul_into(" in compiled.code and "_scratch.append(" in compiled.code
    for result, inputs in ((first, first_inputs), (second, second_inputs)):
        for value, expected in zip(result, _mlp_layer_expected(*inputs)):
            np.testing.assert_allclose(value._data, expected, rtol=1e-9, atol=1e-12)


def test_calls_from_two_threads_at_once_each_get_their_own_workspace():
    import threading
    compiled = fluxgrad.compile(_mlp_layer)
    inputs = [_mlp_layer_inputs(seed) for seed in range(2)]
    compiled(*(Tensor(a) for a in inputs[0]))
    expected = [_mlp_layer_expected(*a) for a in inputs]
    errors = []

    def work(k):
        for _ in range(30):
            result = compiled(*(Tensor(a) for a in inputs[k]))
            if not all(np.allclose(value._data, e, rtol=1e-9, atol=1e-12)
                       for value, e in zip(result, expected[k])):
                errors.append(k)
    threads = [threading.Thread(target=work, args=(k,)) for k in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors


def test_a_saved_module_with_a_workspace_runs_without_fluxgrad(tmp_path, run_without_fluxgrad):
    compiled = fluxgrad.compile(_mlp_layer)
    inputs = _mlp_layer_inputs(0)
    compiled(*(Tensor(a) for a in inputs))
    compiled.save(tmp_path / "layer.py")
    product, sums = _mlp_layer_expected(*inputs)
    np.savez(tmp_path / "inputs.npz", x=inputs[0], w=inputs[1], v=inputs[2], product=product,
             sums=sums)
    run_without_fluxgrad(
        "from layer import _mlp_layer as f\n"
        "d = np.load('inputs.npz')\n"
        "for _ in range(2):\n"
        "    product, sums = f(d['x'], d['w'], d['v'])\n"
        "    np.testing.assert_allclose(product, d['product'], rtol=1e-9, atol=1e-12)\n"
        "    np.testing.assert_allclose(sums, d['sums'], rtol=1e-9, atol=1e-12)\n"
        "print('ok')\n")


def _conv_block(x, w, b):
    h = F.conv2d(x, w, b, padding=1)  # channels-last memory, (8, 16, 16, 16) float64
    return ((h.relu() * 2.0 - 1.0) * h).sum(), (h.relu() + 1.0).sum(axis=(0, 2, 3))


def test_channels_last_convolution_results_are_reused_in_their_layout_and_match_pytorch():
    rng = np.random.default_rng(0)
    arrays = [(rng.standard_normal((8, 3, 16, 16)), rng.standard_normal((16, 3, 3, 3)),
               rng.standard_normal(16)) for _ in range(2)]
    compiled = fluxgrad.compile(_conv_block)
    results = [compiled(*(Tensor(a) for a in inputs)) for inputs in arrays]
    conv = next(line for line in compiled.code.splitlines() if "_conv2d(" in line)
    name = conv.split("=")[0].strip()
    assert f", {name})" in compiled.code  # a ufunc writes into the convolution's result
    assert ".transpose((0, 3, 1, 2))" in compiled.code  # a channels-last workspace
    for result, (x, w, b) in zip(results, arrays):
        h = torch.nn.functional.conv2d(torch.tensor(x), torch.tensor(w), torch.tensor(b),
                                       padding=1)
        total, sums = ((h.relu() * 2.0 - 1.0) * h).sum(), (h.relu() + 1.0).sum(dim=(0, 2, 3))
        np.testing.assert_allclose(result[0].item(), total.item(), rtol=1e-10)
        np.testing.assert_allclose(result[1]._data, sums.numpy(), rtol=1e-10)
