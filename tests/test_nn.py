"""nn: Module behaviour, every layer and loss against PyTorch (values and gradients), errors."""
import numpy as np
import pytest

import fluxgrad as fg
from fluxgrad import nn
import fluxgrad.nn.functional as F

torch = pytest.importorskip("torch")
tnn = torch.nn
TF = torch.nn.functional


def _to_torch(module, torch_module):
    """Copy the fluxgrad module's state into the torch module, both in float64."""
    module.double()
    torch_module.double()
    state = {k: torch.tensor(np.array(v.numpy())) for k, v in module.state_dict().items()}
    torch_module.load_state_dict(state)
    return torch_module


def _compare(module, torch_module, *inputs, grad_inputs=True, atol=1e-10):
    """Same forward value, input gradients and parameter gradients as PyTorch."""
    torch_module = _to_torch(module, torch_module)
    rng = np.random.default_rng(1)
    xs = [fg.tensor(a, requires_grad=grad_inputs and a.dtype.kind == "f") for a in inputs]
    ts = [torch.tensor(a, requires_grad=grad_inputs and a.dtype.kind == "f") for a in inputs]
    out, t_out = module(*xs), torch_module(*ts)
    if isinstance(out, tuple):
        out, t_out = out[0], t_out[0]
    np.testing.assert_allclose(out.detach().numpy(), t_out.detach().numpy(), atol=atol,
                               rtol=1e-8)
    u = rng.standard_normal(out.shape)
    (out * fg.tensor(u)).sum().backward()
    (t_out * torch.tensor(u)).sum().backward()
    for x, t in zip(xs, ts):
        if x.requires_grad:
            np.testing.assert_allclose(x.grad.numpy(), t.grad.numpy(), atol=atol, rtol=1e-8)
    t_params = dict(torch_module.named_parameters())
    for name, p in module.named_parameters():
        np.testing.assert_allclose(p.grad.numpy(), t_params[name].grad.numpy(), atol=atol,
                                   rtol=1e-8, err_msg=name)


def _x(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape)


LAYERS = [
    ("linear", lambda: nn.Linear(5, 3), lambda: tnn.Linear(5, 3), [_x(4, 5)]),
    ("linear_3d", lambda: nn.Linear(5, 3, bias=False), lambda: tnn.Linear(5, 3, bias=False),
     [_x(2, 4, 5)]),
    ("bilinear", lambda: nn.Bilinear(3, 4, 2), lambda: tnn.Bilinear(3, 4, 2),
     [_x(5, 3), _x(5, 4, seed=1)]),
    ("conv1d", lambda: nn.Conv1d(3, 4, 3, stride=2, padding=1),
     lambda: tnn.Conv1d(3, 4, 3, stride=2, padding=1), [_x(2, 3, 9)]),
    ("conv2d", lambda: nn.Conv2d(3, 4, 3), lambda: tnn.Conv2d(3, 4, 3), [_x(2, 3, 6, 6)]),
    ("conv2d_strided_grouped", lambda: nn.Conv2d(4, 6, 3, stride=2, padding=1, groups=2),
     lambda: tnn.Conv2d(4, 6, 3, stride=2, padding=1, groups=2), [_x(2, 4, 7, 6)]),
    ("conv2d_dilated", lambda: nn.Conv2d(2, 3, (3, 2), dilation=(2, 1), padding=(2, 0)),
     lambda: tnn.Conv2d(2, 3, (3, 2), dilation=(2, 1), padding=(2, 0)), [_x(1, 2, 7, 5)]),
    ("conv2d_same", lambda: nn.Conv2d(2, 3, 4, padding="same", bias=False),
     lambda: tnn.Conv2d(2, 3, 4, padding="same", bias=False), [_x(2, 2, 5, 6)]),
    ("conv_transpose2d", lambda: nn.ConvTranspose2d(4, 2, 3, stride=2, padding=1,
                                                    output_padding=1),
     lambda: tnn.ConvTranspose2d(4, 2, 3, stride=2, padding=1, output_padding=1),
     [_x(2, 4, 3, 4)]),
    ("conv_transpose2d_groups", lambda: nn.ConvTranspose2d(4, 6, 2, groups=2, dilation=2),
     lambda: tnn.ConvTranspose2d(4, 6, 2, groups=2, dilation=2), [_x(1, 4, 3, 3)]),
    ("max_pool2d", lambda: nn.MaxPool2d(3, 2, 1), lambda: tnn.MaxPool2d(3, 2, 1),
     [_x(2, 3, 7, 6)]),
    ("max_pool2d_ceil", lambda: nn.MaxPool2d(2, ceil_mode=True),
     lambda: tnn.MaxPool2d(2, ceil_mode=True), [_x(1, 2, 5, 7)]),
    ("avg_pool2d", lambda: nn.AvgPool2d(2), lambda: tnn.AvgPool2d(2), [_x(2, 3, 6, 4)]),
    ("avg_pool2d_pad", lambda: nn.AvgPool2d(3, 2, 1, count_include_pad=False),
     lambda: tnn.AvgPool2d(3, 2, 1, count_include_pad=False), [_x(1, 2, 5, 6)]),
    ("adaptive_avg_pool2d", lambda: nn.AdaptiveAvgPool2d((2, 3)),
     lambda: tnn.AdaptiveAvgPool2d((2, 3)), [_x(2, 2, 5, 7)]),
    ("adaptive_avg_pool2d_global", lambda: nn.AdaptiveAvgPool2d(1),
     lambda: tnn.AdaptiveAvgPool2d(1), [_x(2, 2, 5, 7)]),
    ("batch_norm1d", lambda: nn.BatchNorm1d(4), lambda: tnn.BatchNorm1d(4), [_x(6, 4)]),
    ("batch_norm1d_3d", lambda: nn.BatchNorm1d(3), lambda: tnn.BatchNorm1d(3), [_x(4, 3, 5)]),
    ("batch_norm2d", lambda: nn.BatchNorm2d(3), lambda: tnn.BatchNorm2d(3), [_x(2, 3, 4, 4)]),
    ("layer_norm", lambda: nn.LayerNorm((4, 5)), lambda: tnn.LayerNorm((4, 5)),
     [_x(3, 4, 5)]),
    ("group_norm", lambda: nn.GroupNorm(2, 4), lambda: tnn.GroupNorm(2, 4), [_x(3, 4, 3, 2)]),
    ("embedding", lambda: nn.Embedding(10, 3, padding_idx=0),
     lambda: tnn.Embedding(10, 3, padding_idx=0), [np.array([[1, 0, 3], [3, 9, 0]])]),
    ("flatten", lambda: nn.Flatten(), lambda: tnn.Flatten(), [_x(2, 3, 4)]),
    ("sequential", lambda: nn.Sequential(nn.Linear(4, 6), nn.Tanh(), nn.Linear(6, 2)),
     lambda: tnn.Sequential(tnn.Linear(4, 6), tnn.Tanh(), tnn.Linear(6, 2)), [_x(3, 4)]),
    ("relu", lambda: nn.ReLU(), lambda: tnn.ReLU(), [_x(3, 4) + 0.05]),
    ("leaky_relu", lambda: nn.LeakyReLU(0.2), lambda: tnn.LeakyReLU(0.2), [_x(3, 4)]),
    ("gelu", lambda: nn.GELU(), lambda: tnn.GELU(), [_x(3, 4)]),
    ("gelu_tanh", lambda: nn.GELU("tanh"), lambda: tnn.GELU("tanh"), [_x(3, 4)]),
    ("silu", lambda: nn.SiLU(), lambda: tnn.SiLU(), [_x(3, 4)]),
    ("tanh", lambda: nn.Tanh(), lambda: tnn.Tanh(), [_x(3, 4)]),
    ("sigmoid", lambda: nn.Sigmoid(), lambda: tnn.Sigmoid(), [_x(3, 4)]),
    ("elu", lambda: nn.ELU(), lambda: tnn.ELU(), [_x(3, 4)]),
    ("softplus", lambda: nn.Softplus(), lambda: tnn.Softplus(), [_x(3, 4)]),
    ("softmax", lambda: nn.Softmax(dim=1), lambda: tnn.Softmax(dim=1), [_x(3, 4)]),
    ("log_softmax", lambda: nn.LogSoftmax(dim=-1), lambda: tnn.LogSoftmax(dim=-1), [_x(3, 4)]),
    ("rnn_cell", lambda: nn.RNNCell(3, 4), lambda: tnn.RNNCell(3, 4), [_x(2, 3)]),
    ("lstm_cell", lambda: nn.LSTMCell(3, 4), lambda: tnn.LSTMCell(3, 4), [_x(2, 3)]),
    ("gru_cell", lambda: nn.GRUCell(3, 4), lambda: tnn.GRUCell(3, 4), [_x(2, 3)]),
    ("rnn", lambda: nn.RNN(3, 4, num_layers=2), lambda: tnn.RNN(3, 4, num_layers=2),
     [_x(5, 2, 3)]),
    ("lstm_bidirectional", lambda: nn.LSTM(3, 4, batch_first=True, bidirectional=True),
     lambda: tnn.LSTM(3, 4, batch_first=True, bidirectional=True), [_x(2, 5, 3)]),
    ("gru_2layer", lambda: nn.GRU(3, 4, num_layers=2, bidirectional=True),
     lambda: tnn.GRU(3, 4, num_layers=2, bidirectional=True), [_x(4, 2, 3)]),
    ("gru_unbatched", lambda: nn.GRU(3, 4), lambda: tnn.GRU(3, 4), [_x(4, 3)]),
    ("prelu", lambda: nn.PReLU(3), lambda: tnn.PReLU(3), [_x(2, 3, 4) + 0.05]),
]


@pytest.mark.parametrize("name,make,make_torch,inputs", LAYERS, ids=[c[0] for c in LAYERS])
def test_layer_matches_torch(name, make, make_torch, inputs):
    fg.manual_seed(0)
    _compare(make(), make_torch(), *inputs)


@pytest.mark.parametrize("cls,tcls", [(nn.BatchNorm1d, tnn.BatchNorm1d),
                                      (nn.BatchNorm2d, tnn.BatchNorm2d)])
def test_batch_norm_running_stats_and_eval_match_torch(cls, tcls):
    shape = (5, 3) if cls is nn.BatchNorm1d else (4, 3, 2, 2)
    bn, tbn = cls(3, momentum=0.3), tcls(3, momentum=0.3)
    _to_torch(bn, tbn)
    for seed in range(3):
        x = _x(*shape, seed=seed)
        bn(fg.tensor(x))
        tbn(torch.tensor(x))
    np.testing.assert_allclose(bn.running_mean.numpy(), tbn.running_mean.numpy(), atol=1e-12)
    np.testing.assert_allclose(bn.running_var.numpy(), tbn.running_var.numpy(), atol=1e-12)
    assert int(bn.num_batches_tracked.item()) == 3
    bn.eval()
    tbn.eval()
    _compare(bn, tbn, _x(*shape, seed=9))


def test_dropout_scales_kept_elements_in_training_and_is_identity_in_eval():
    fg.manual_seed(0)
    drop = nn.Dropout(0.25)
    x = fg.ones(1000)
    y = drop(x).numpy()
    np.testing.assert_allclose(np.unique(y), [0.0, 1 / 0.75], rtol=1e-6)
    assert 0.15 < (y == 0).mean() < 0.35
    drop.eval()
    assert drop(x) is x


def _loss_cases():
    logits = _x(6, 5)
    idx = np.array([0, 4, 2, 1, 3, 2])
    probs = np.random.default_rng(2).dirichlet(np.ones(5), 6)
    weight = np.array([0.5, 1.0, 2.0, 1.5, 0.3])
    spatial = _x(2, 4, 3, 2)
    spatial_idx = np.random.default_rng(3).integers(0, 4, (2, 3, 2))
    p = 1 / (1 + np.exp(-_x(4, 3)))
    y01 = (np.random.default_rng(4).random((4, 3)) > 0.5).astype(float)
    a, b = _x(4, 3), _x(4, 3, seed=5)
    w_t = torch.tensor(weight)
    return [
        ("mse", lambda x, y: F.mse_loss(x, y), TF.mse_loss, a, b),
        ("mse_sum", lambda x, y: nn.MSELoss(reduction="sum")(x, y),
         lambda x, y: TF.mse_loss(x, y, reduction="sum"), a, b),
        ("l1_none", lambda x, y: nn.L1Loss(reduction="none")(x, y),
         lambda x, y: TF.l1_loss(x, y, reduction="none"), a, b),
        ("smooth_l1", lambda x, y: nn.SmoothL1Loss(beta=0.5)(x, y),
         lambda x, y: TF.smooth_l1_loss(x, y, beta=0.5), a, b),
        ("huber", lambda x, y: nn.HuberLoss(delta=0.7)(x, y),
         lambda x, y: TF.huber_loss(x, y, delta=0.7), a, b),
        ("ce_index", lambda x: F.cross_entropy(x, fg.tensor(idx)),
         lambda x: TF.cross_entropy(x, torch.tensor(idx)), logits),
        ("ce_weight_ignore_smooth",
         lambda x: nn.CrossEntropyLoss(weight=fg.tensor(weight), ignore_index=2,
                                       label_smoothing=0.1)(x, fg.tensor(idx)),
         lambda x: TF.cross_entropy(x, torch.tensor(idx), weight=w_t, ignore_index=2,
                                    label_smoothing=0.1), logits),
        ("ce_sum", lambda x: F.cross_entropy(x, fg.tensor(idx), reduction="sum"),
         lambda x: TF.cross_entropy(x, torch.tensor(idx), reduction="sum"), logits),
        ("ce_probs", lambda x, y: F.cross_entropy(x, y, label_smoothing=0.2),
         lambda x, y: TF.cross_entropy(x, y, label_smoothing=0.2), logits, probs),
        ("ce_probs_weight", lambda x, y: F.cross_entropy(x, y, weight=fg.tensor(weight)),
         lambda x, y: TF.cross_entropy(x, y, weight=w_t), logits, probs),
        ("ce_spatial", lambda x: F.cross_entropy(x, fg.tensor(spatial_idx), reduction="none"),
         lambda x: TF.cross_entropy(x, torch.tensor(spatial_idx), reduction="none"), spatial),
        ("nll", lambda x: nn.NLLLoss(weight=fg.tensor(weight))(x, fg.tensor(idx)),
         lambda x: TF.nll_loss(x, torch.tensor(idx), weight=w_t), logits),
        ("bce", lambda x, y: nn.BCELoss()(x, y), TF.binary_cross_entropy, p, y01),
        ("bce_logits", lambda x, y: nn.BCEWithLogitsLoss(pos_weight=fg.tensor([1.0, 2.0, 0.5]))(
            x, y), lambda x, y: TF.binary_cross_entropy_with_logits(
            x, y, pos_weight=torch.tensor([1.0, 2.0, 0.5], dtype=torch.float64)), a, y01),
        ("kl_div", lambda x, y: nn.KLDivLoss(reduction="batchmean")(x, y),
         lambda x, y: TF.kl_div(x, y, reduction="batchmean"), np.log(probs[::-1].copy()), probs),
        ("kl_div_log_target", lambda x, y: F.kl_div(x, y, reduction="sum", log_target=True),
         lambda x, y: TF.kl_div(x, y, reduction="sum", log_target=True),
         np.log(probs[::-1].copy()), np.log(probs)),
    ]


LOSSES = _loss_cases()


@pytest.mark.parametrize("name,fn,torch_fn,arrays",
                         [(c[0], c[1], c[2], c[3:]) for c in LOSSES], ids=[c[0] for c in LOSSES])
def test_loss_matches_torch_in_value_and_gradients(name, fn, torch_fn, arrays):
    xs = [fg.tensor(a, requires_grad=True) for a in arrays]
    ts = [torch.tensor(a, requires_grad=True) for a in arrays]
    out, t_out = fn(*xs), torch_fn(*ts)
    np.testing.assert_allclose(out.detach().numpy(), t_out.detach().numpy(), rtol=1e-10,
                               atol=1e-12)
    u = np.random.default_rng(0).standard_normal(out.shape)
    (out * fg.tensor(u)).sum().backward()
    (t_out * torch.tensor(u)).sum().backward()
    for x, t in zip(xs, ts):  # targets too: gradients flow into them where the math allows
        np.testing.assert_allclose(x.grad.numpy(), t.grad.numpy(), rtol=1e-9, atol=1e-12)


def test_cross_entropy_is_stable_for_huge_logits():
    x = fg.tensor([[1000.0, -1000.0, 0.0]], requires_grad=True)
    loss = F.cross_entropy(x, fg.tensor([1]))
    loss.backward()
    assert np.isfinite(loss.item()) and abs(loss.item() - 2000.0) < 1e-3
    assert np.all(np.isfinite(x.grad.numpy()))


def test_bce_with_logits_is_stable_for_huge_logits():
    x = fg.tensor([800.0, -800.0], requires_grad=True)
    loss = F.binary_cross_entropy_with_logits(x, fg.tensor([0.0, 1.0]), reduction="sum")
    loss.backward()
    assert abs(loss.item() - 1600.0) < 1e-3
    np.testing.assert_allclose(x.grad.numpy(), [1.0, -1.0])


def test_mse_loss_differentiates_through_both_arguments():
    x = fg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    nn.MSELoss()(x, x * x).backward()
    xt = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    tnn.MSELoss()(xt, xt * xt).backward()
    np.testing.assert_allclose(x.grad.numpy(), xt.grad.numpy(), rtol=1e-6)


def test_cross_entropy_accepts_paddle_shaped_labels():
    x = fg.randn(3, 4)
    a = F.cross_entropy(x, fg.tensor([[1], [0], [3]]))
    b = F.cross_entropy(x, fg.tensor([1, 0, 3]))
    assert a.item() == pytest.approx(b.item())
    single = F.cross_entropy(fg.randn(1, 10), fg.randint(0, 10))
    assert single.shape == ()


def test_cross_entropy_rejects_class_index_out_of_range():
    with pytest.raises(IndexError, match="target 7 is out of bounds for 5 classes"):
        F.cross_entropy(fg.randn(2, 5), fg.tensor([1, 7]))


def test_cross_entropy_rejects_mismatched_target_shape():
    with pytest.raises(ValueError, match="expected class-index targets of shape"):
        F.cross_entropy(fg.randn(4, 5), fg.tensor([1, 2]))


def test_linear_rejects_wrong_input_shape():
    with pytest.raises(ValueError, match=r"Linear\(4, 2\): expected input with last dimension 4"):
        nn.Linear(4, 2)(fg.randn(3, 5))


def test_conv2d_rejects_wrong_channels_and_rank():
    conv = nn.Conv2d(3, 4, 3)
    with pytest.raises(ValueError, match="C=3 channels, got shape \\[2, 5, 8, 8\\]"):
        conv(fg.randn(2, 5, 8, 8))
    with pytest.raises(ValueError, match="expected input \\[C, H, W\\] or \\[N, C, H, W\\]"):
        conv(fg.randn(8, 8))


# --- Module behaviour -----------------------------------------------------------------------
class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(fg.tensor([[1.0], [1.0]]))
        self.body = nn.Sequential(nn.Linear(2, 3), nn.ReLU())
        self.heads = nn.ModuleList([nn.Linear(3, 1), nn.Linear(3, 2)])
        self.register_buffer("steps", fg.zeros(1))
        self.plain = 5

    def forward(self, x):
        h = self.body(x)
        return self.heads[0](h) + fg.matmul(x, self.w)


def test_module_registers_parameters_buffers_and_children_in_order():
    net = Net()
    names = [n for n, _ in net.named_parameters()]
    assert names == ["w", "body.0.weight", "body.0.bias", "heads.0.weight", "heads.0.bias",
                     "heads.1.weight", "heads.1.bias"]
    assert [n for n, _ in net.named_buffers()] == ["steps"]
    assert list(net.state_dict()) == ["w", "steps"] + names[1:]  # PyTorch's order
    assert [type(c).__name__ for c in net.children()] == ["Sequential", "ModuleList"]
    assert len(list(net.modules())) == 7
    assert all(p.requires_grad for p in net.parameters())
    assert net.plain == 5


def test_state_dict_round_trip_restores_outputs():
    fg.manual_seed(0)
    a, b = Net(), Net()
    x = fg.randn(4, 2)
    assert not np.allclose(a(x).detach().numpy(), b(x).detach().numpy())
    b.load_state_dict(a.state_dict())
    np.testing.assert_array_equal(a(x).detach().numpy(), b(x).detach().numpy())


def test_state_dict_values_are_detached_copies_of_references():
    net = Net()
    sd = net.state_dict()
    assert not sd["w"].requires_grad
    assert sd["w"].numpy() is net.w.detach().numpy()


def test_load_state_dict_reports_missing_unexpected_and_shape_mismatch():
    net = Net()
    sd = net.state_dict()
    del sd["w"]
    sd["extra"] = fg.zeros(1)
    with pytest.raises(RuntimeError, match=r'Missing key\(s\) in state_dict: "w".*\n.*'
                                           r'Unexpected key\(s\) in state_dict: "extra"'):
        net.load_state_dict(sd)
    result = net.load_state_dict(sd, strict=False)
    assert result.missing_keys == ["w"] and result.unexpected_keys == ["extra"]
    sd = net.state_dict()
    sd["body.0.weight"] = fg.zeros(2, 2)
    with pytest.raises(RuntimeError, match=r"size mismatch for body.0.weight: copying a param "
                                           r"with shape \[2, 2\] from checkpoint, the shape in "
                                           r"current model is \[3, 2\]"):
        net.load_state_dict(sd)


def test_train_eval_propagates_to_submodules():
    net = Net()
    net.eval()
    assert not any(m.training for m in net.modules())
    net.train()
    assert all(m.training for m in net.modules())


def test_zero_grad_and_clear_gradients():
    net = Net()
    net(fg.randn(3, 2)).sum().backward()
    assert all(p.grad is not None for p in net.heads[0].parameters())
    net.clear_gradients()
    assert all(float(np.abs(p.grad.numpy()).sum()) == 0 for p in net.heads[0].parameters())
    net.zero_grad()
    assert all(p.grad is None for p in net.parameters())


def test_forward_hooks_can_replace_inputs_and_outputs():
    lin = nn.Linear(2, 2)
    calls = []
    pre = lin.register_forward_pre_hook(lambda m, args: (args[0] * 0,))
    post = lin.register_forward_hook(lambda m, args, out: calls.append(out.shape) or out + 1)
    out = lin(fg.ones(1, 2))
    np.testing.assert_allclose(out.detach().numpy(), lin.bias.detach().numpy()[None] + 1,
                               rtol=1e-6)
    assert calls == [(1, 2)]
    pre.remove()
    post.remove()
    lin(fg.ones(1, 2))
    assert calls == [(1, 2)]


def test_apply_and_requires_grad_():
    net = Net()
    seen = []
    net.apply(lambda m: seen.append(type(m).__name__))
    assert seen[-1] == "Net" and "Linear" in seen
    net.requires_grad_(False)
    assert not any(p.requires_grad for p in net.parameters())


def test_paddle_spellings_create_add_parameter_and_sublayer():
    layer = nn.Layer()
    w = layer.create_parameter([3, 4])
    b = layer.create_parameter([4], is_bias=True)
    layer.add_parameter("w", w)
    layer.add_sublayer("fc", nn.Linear(4, 2))
    assert [n for n, _ in layer.named_parameters()] == ["w", "fc.weight", "fc.bias"]
    assert np.all(b.detach().numpy() == 0) and not b.stop_gradient
    bound = np.sqrt(6 / 7)
    assert np.abs(w.detach().numpy()).max() <= bound
    custom = layer.create_parameter([2], default_initializer=lambda p: nn.init.constant_(p, 3.0))
    np.testing.assert_array_equal(custom.detach().numpy(), [3.0, 3.0])


def test_repr_shows_the_module_tree():
    text = repr(nn.Sequential(nn.Linear(2, 3), nn.ReLU()))
    assert text == ("Sequential(\n  (0): Linear(in_features=2, out_features=3, bias=True)\n"
                    "  (1): ReLU()\n)")


def test_assigning_non_parameter_to_parameter_slot_raises():
    lin = nn.Linear(2, 2)
    with pytest.raises(TypeError, match="assign a nn.Parameter"):
        lin.weight = fg.zeros(2, 2)


def test_module_dict_and_sequential_indexing():
    d = nn.ModuleDict({"a": nn.Linear(1, 1), "b": nn.ReLU()})
    assert list(d.keys()) == ["a", "b"] and len(list(d.parameters())) == 2
    seq = nn.Sequential(nn.Linear(1, 2), nn.ReLU(), nn.Linear(2, 1))
    assert isinstance(seq[1], nn.ReLU) and len(seq[1:]) == 2


def test_default_inits_have_pytorch_bounds():
    fg.manual_seed(0)
    lin = nn.Linear(100, 50)
    w = lin.weight.detach().numpy()
    assert np.abs(w).max() <= 1 / np.sqrt(100) and np.abs(w).max() > 0.09
    conv = nn.Conv2d(8, 4, 3)
    assert np.abs(conv.weight.detach().numpy()).max() <= 1 / np.sqrt(72)
    w = fg.empty(300, 200)
    nn.init.kaiming_normal_(w, mode="fan_out", nonlinearity="relu")
    assert abs(w.numpy().std() - np.sqrt(2 / 300)) < 0.005
    q = fg.empty(4, 6)
    nn.init.orthogonal_(q)
    np.testing.assert_allclose(q.numpy() @ q.numpy().T, np.eye(4), atol=1e-5)


def test_clip_grad_norm_and_value_and_parameters_to_vector():
    a = nn.Parameter(fg.tensor([3.0, 0.0]))
    b = nn.Parameter(fg.tensor([4.0]))
    a.grad, b.grad = fg.tensor([3.0, 0.0]), fg.tensor([4.0])
    total = nn.utils.clip_grad_norm_([a, b], 1.0)
    assert total.item() == pytest.approx(5.0)
    np.testing.assert_allclose(np.concatenate([a.grad.numpy(), b.grad.numpy()]),
                               [0.6, 0.0, 0.8], rtol=1e-5)
    nn.utils.clip_grad_value_([a, b], 0.7)
    np.testing.assert_allclose(b.grad.numpy(), [0.7])
    np.testing.assert_array_equal(nn.utils.parameters_to_vector([a, b]).detach().numpy(),
                                  [3.0, 0.0, 4.0])


def test_vgg11_gives_imagenet_logits_and_trains_one_step():
    fg.manual_seed(0)
    model = fg.vision.models.vgg11()
    x = fg.rand([1, 3, 224, 224])
    label = fg.randint(0, 1000)
    predicts = model(x)
    assert predicts.shape == (1, 1000)
    loss = F.cross_entropy(predicts, label)
    loss.backward()
    optim = fg.optimizer.Adam(learning_rate=0.001, parameters=model.parameters())
    before = model.classifier[6].bias.detach().numpy().copy()
    optim.step()
    assert not np.array_equal(before, model.classifier[6].bias.detach().numpy())
    assert all(p.grad is not None for p in model.parameters())


def test_small_models_forward_shapes():
    fg.manual_seed(0)
    assert fg.vision.models.lenet()(fg.randn(2, 1, 28, 28)).shape == (2, 10)
    net = fg.vision.models.resnet18(num_classes=7, width=8)
    assert net(fg.randn(2, 3, 32, 32)).shape == (2, 7)
    bn = fg.vision.models.vgg11_bn(num_classes=3)
    assert any(isinstance(m, nn.BatchNorm2d) for m in bn.modules())


def test_small_cnn_loss_falls():
    fg.manual_seed(0)
    rng = np.random.default_rng(0)
    x = rng.standard_normal((32, 1, 8, 8)).astype(np.float32)
    y = (x[:, 0, :4].sum((1, 2)) > x[:, 0, 4:].sum((1, 2))).astype(np.int64)
    model = nn.Sequential(nn.Conv2d(1, 4, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                          nn.Flatten(), nn.Linear(64, 2))
    opt = fg.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    losses = []
    for _ in range(30):
        loss = nn.CrossEntropyLoss()(model(fg.tensor(x)), fg.tensor(y))
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    assert losses[-1] < 0.5 * losses[0]


@pytest.mark.parametrize("first", [np.zeros((2, 3)), np.arange(6.0).reshape(2, 3) - 2.5],
                         ids=["zero vectors", "values"])
def test_cosine_similarity_and_its_gradient_match_pytorch_also_at_zero_vectors(first):
    torch = pytest.importorskip("torch")
    second = np.random.default_rng(0).standard_normal((2, 3))
    results = []
    for lib in (torch, fg):
        a, b = (lib.tensor(v, requires_grad=True) for v in (first, second))
        out = lib.nn.functional.cosine_similarity(a, b)
        out.sum().backward()
        results.append([v.detach().numpy() for v in (out, a.grad, b.grad)])
    for want, got in zip(*results):
        np.testing.assert_allclose(got, want, rtol=1e-7, atol=1e-12)
