"""More of PaddlePaddle's static API, as its tutorials use it: `static.Print`, functional
dropout in a `clone(for_test=True)` program, and the `static.nn` layers and Executor
spellings; each checked against eager mode, PyTorch or closed forms."""
import numpy as np
import pytest

import fluxgrad as fg
import fluxgrad.nn.functional as F
from fluxgrad import static

from static_programs import build_program


def test_print_prints_the_value_at_every_run_and_returns_it(capsys):
    def build():
        x = static.data("x", [None, 3], "float64")
        return x, static.Print(x * 2, message="doubled:", summarize=4)
    main, _, (x, y) = build_program(build)
    assert capsys.readouterr().out == ""  # building prints nothing
    exe = static.Executor()
    for n in (1, 2):
        a = np.arange(3.0 * n).reshape(n, 3)
        got, = exe.run(main, feed={"x": a}, fetch_list=[y])
        np.testing.assert_array_equal(got, 2 * a)
        text = capsys.readouterr().out
        assert "message: doubled:" in text and f"shape: [{n}, 3]" in text
        assert "data: [" + " ".join(map(str, (2 * a).reshape(-1)[:4].tolist())) + "]" in text


def test_print_in_backward_prints_the_gradient_too(capsys):
    def build():
        x = static.data("x", [2], "float64")
        x.stop_gradient = False
        y = static.Print(x * 3, message="m")
        loss = (y * y).sum()
        return x, static.gradients([loss], [x])[0]
    main, _, (x, g) = build_program(build)
    got, = static.Executor().run(main, feed={"x": np.array([1.0, 2.0])}, fetch_list=[g])
    np.testing.assert_allclose(got, 18 * np.array([1.0, 2.0]))  # d(9x^2)/dx
    text = capsys.readouterr().out
    assert text.count("message: m") == 2 and "@GRAD" in text and "data: [6.0 12.0]" in text


def test_print_phase_forward_prints_only_the_value_and_first_n_limits_the_runs(capsys):
    def build():
        x = static.data("x", [2], "float64")
        x.stop_gradient = False
        y = static.Print(x, first_n=2, print_phase="forward")
        return static.gradients([(y * y).sum()], [x])[0]
    main, _, g = build_program(build)
    exe = static.Executor()
    for _ in range(3):
        exe.run(main, feed={"x": np.ones(2)}, fetch_list=[g])
    text = capsys.readouterr().out
    assert text.count("Variable:") == 2 and "@GRAD" not in text


def test_print_of_a_constant_is_staged_and_prints_at_each_run(capsys):
    main, _, c = build_program(lambda: static.Print(fg.full([2, 3], 3, dtype="int64"),
                                             message="The content of input layer:"))
    assert capsys.readouterr().out == ""
    exe = static.Executor()
    exe.run(main, fetch_list=[c])
    exe.run(main, fetch_list=[c])
    assert capsys.readouterr().out.count("data: [3 3 3 3 3 3]") == 2


def test_print_refuses_an_unknown_phase():
    with pytest.raises(ValueError, match="print_phase must be one of"):
        static.Print(fg.ones(2), print_phase="sideways")


def test_clone_for_test_runs_functional_dropout_as_the_identity(scoped):
    def build():
        x = static.data("x", [None, 3], "float32")
        h = static.nn.fc(x, 4, activation="relu")
        d = F.dropout(h, 0.5, training=True)
        return x, h, d, static.nn.fc(d, 2)
    main, startup, (x, h, d, y) = build_program(build)
    test = main.clone(for_test=True)
    exe = static.Executor()
    exe.run(startup)
    a = np.random.default_rng(0).standard_normal((6, 3)).astype(np.float32)
    hidden, dropped = exe.run(main, feed={"x": a}, fetch_list=[h, d])
    assert (dropped == 0).any() and not np.allclose(dropped, hidden)  # training drops
    hidden, dropped, out = exe.run(test, feed={"x": a}, fetch_list=[h, d, y])
    np.testing.assert_array_equal(dropped, hidden)  # the clone's dropout is the identity
    scope = static.global_scope()
    w, b = (scope.find_var(p.name).get_tensor() for p in main.all_parameters()[2:])
    np.testing.assert_allclose(out, hidden @ w + b, rtol=1e-5, atol=1e-6)


def test_clone_for_test_runs_dropout_after_batch_norm_in_inference_mode(scoped):
    """The dropout's inference value is the batch norm's training value, whose own inference
    value (the running statistics) the clone reads."""
    fg.manual_seed(0)
    norm = fg.nn.BatchNorm1d(3)
    a = np.random.default_rng(1).standard_normal((5, 3)).astype(np.float32)
    norm.eval()
    want = norm(fg.tensor(a)).detach().numpy()
    norm.train()
    main, startup, y = build_program(lambda: F.dropout(norm(static.data("x", [None, 3], "float32")),
                                                0.5, training=True))
    exe = static.Executor()
    exe.run(startup)
    got, = exe.run(main.clone(for_test=True), feed={"x": a}, fetch_list=[y])
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def _scope_value(name):
    return static.global_scope().find_var(name).get_tensor()


def test_nn_conv2d_and_batch_norm_compute_as_torch_and_update_the_moving_statistics(scoped):
    torch = pytest.importorskip("torch")
    def build():
        img = static.data("img", [None, 2, 5, 5], "float64")
        c = static.nn.conv2d(img, 3, 3, stride=2, padding=1, name="conv")
        return static.nn.batch_norm(c, act="relu", momentum=0.9, name="bn",
                                    moving_mean_name="bn.mean", moving_variance_name="bn.var")
    main, startup, y = build_program(build)
    exe = static.Executor()
    exe.run(startup)
    a = np.random.default_rng(2).standard_normal((4, 2, 5, 5))
    got, = exe.run(main, feed={"img": a}, fetch_list=[y])
    conv = torch.nn.functional.conv2d(torch.tensor(a), torch.tensor(_scope_value("conv.w_0")),
                                      torch.tensor(_scope_value("conv.b_0")), 2, 1)
    norm = torch.nn.BatchNorm2d(3, momentum=0.1).double()
    want = torch.relu(norm(conv)).detach().numpy()
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(_scope_value("bn.mean"), norm.running_mean.numpy(), rtol=1e-10)
    np.testing.assert_allclose(_scope_value("bn.var"), norm.running_var.numpy(), rtol=1e-10)
    norm.eval()  # the clone for test reads the moving statistics
    got, = exe.run(main.clone(for_test=True), feed={"img": a}, fetch_list=[y])
    np.testing.assert_allclose(got, torch.relu(norm(conv)).detach().numpy(), rtol=1e-10)


def test_nn_layer_norm_and_embedding_compute_as_torch(scoped):
    torch = pytest.importorskip("torch")
    def build():
        x = static.data("x", [None, 2, 3], "float64")
        ids = static.data("ids", [None, 4], "int64")
        return (static.nn.layer_norm(x, begin_norm_axis=1, name="ln"),
                static.nn.embedding(ids, [7, 3], padding_idx=-1, dtype="float64", name="emb"))
    main, startup, (ln, emb) = build_program(build)
    exe = static.Executor()
    exe.run(startup)
    a = np.random.default_rng(3).standard_normal((5, 2, 3))
    ids = np.array([[0, 6, 2, 6], [1, 1, 3, 5], [2, 2, 2, 2], [6, 0, 4, 4], [5, 5, 1, 0]])
    got_ln, got_emb = exe.run(main, feed={"x": a, "ids": ids}, fetch_list=[ln, emb])
    want = torch.nn.functional.layer_norm(torch.tensor(a), (2, 3)).numpy()  # scale 1, shift 0
    np.testing.assert_allclose(got_ln, want, rtol=1e-10, atol=1e-12)
    table = _scope_value("emb.w_0")
    assert not table[6].any()  # padding_idx -1 is the last row, zeros
    np.testing.assert_array_equal(got_emb, table[ids])


def test_nn_case_and_switch_case_choose_their_branch_when_the_program_runs():
    def build():
        i = static.data("i", [1], "int64")
        pick = static.nn.switch_case(i, {1: lambda: fg.full([1], 10.0), 3: lambda: fg.full(
            [1], 30.0)}, default=lambda: fg.full([1], -1.0))
        last = static.nn.switch_case(i, [lambda: fg.full([1], 0.0), lambda: fg.full([1], 1.0)])
        first = static.nn.case([(i < 2, lambda: fg.full([1], 1.0)),
                                (i < 4, lambda: fg.full([1], 2.0))])
        return pick, last, first
    main, _, outs = build_program(build)
    exe = static.Executor()
    for i, want in ((1, (10, 1, 1)), (3, (30, 1, 2)), (0, (-1, 0, 1)), (7, (-1, 1, 2))):
        got = exe.run(main, feed={"i": np.array([i])}, fetch_list=list(outs))
        assert [float(g[0]) for g in got] == list(want)


def test_layers_refuse_bad_arguments_naming_them():
    fg.enable_static()
    try:
        with static.program_guard(static.Program(), static.Program()):
            x = static.data("x", [None, 3], "float32")
            with pytest.raises(ValueError, match="conv2d: expects a 4-d input"):
                static.nn.conv2d(x, 2, 3)
            with pytest.raises(ValueError, match="begin_norm_axis"):
                static.nn.layer_norm(x, begin_norm_axis=2)
            with pytest.raises(ValueError, match="data_layout"):
                static.nn.batch_norm(x, data_layout="NWC")
            with pytest.raises(TypeError, match="pred_fn_pairs"):
                static.nn.case([])
    finally:
        fg.disable_static()


@pytest.mark.parametrize("accuracy", [static.accuracy, fg.metric.accuracy])
def test_accuracy_is_computed_at_every_run_as_the_eager_metric(scoped, accuracy):
    def build():
        x = static.data("x", [None, 4], "float32")
        label = static.data("label", [None, 1], "int64")
        return accuracy(x, label, k=1), accuracy(x, label, k=2)
    main, _, (top1, top2) = build_program(build)
    exe = static.Executor()
    rng = np.random.default_rng(4)
    for n in (3, 8):
        scores = rng.standard_normal((n, 4)).astype(np.float32)
        labels = rng.integers(0, 4, (n, 1))
        got1, got2 = exe.run(main, feed={"x": scores, "label": labels}, fetch_list=[top1, top2])
        ranks = np.argsort(-scores, axis=1)
        assert got1 == np.float32(np.mean(ranks[:, 0] == labels[:, 0]))
        assert got2 == np.float32(np.mean((ranks[:, :2] == labels).any(axis=1)))


def test_accuracy_refuses_counts_in_a_static_program(scoped):
    def build():
        x = static.data("x", [None, 4], "float32")
        label = static.data("label", [None, 1], "int64")
        with pytest.raises(NotImplementedError, match="correct= and total="):
            fg.metric.accuracy(x, label, correct=fg.zeros(1, dtype=fg.int64))
        return x
    main, _, _ = build_program(build)
    assert not [eq for eq in main.equations if eq.prim.name == "topk"]


def test_a_global_var_starts_at_its_value_and_keeps_its_updates(scoped):
    def build():
        step = static.create_global_var([1], 5.0, "float32", persistable=True, name="step")
        static.default_main_program().set_update(step, step + 1)
        return step
    main, startup, step = build_program(build)
    exe = static.Executor()
    exe.run(startup)
    got = [float(exe.run(main, fetch_list=[step])[0][0]) for _ in range(3)]
    assert got == [5.0, 6.0, 7.0]


def test_compiled_program_name_scope_and_device_guard_change_nothing(scoped):
    def build():
        with static.name_scope("block"), static.device_guard("cpu"):
            x = static.data("x", [None, 2], "float64")
            return x * 3
    main, _, y = build_program(build)
    compiled = static.CompiledProgram(main, static.BuildStrategy()).with_data_parallel()
    got, = static.Executor().run(compiled, feed={"x": np.ones((2, 2))}, fetch_list=[y.name])
    np.testing.assert_array_equal(got, np.full((2, 2), 3.0))
    with pytest.raises(TypeError, match="CompiledProgram: expected"):
        static.CompiledProgram("main")
