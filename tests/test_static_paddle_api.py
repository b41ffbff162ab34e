"""PaddlePaddle's static API as its tutorials use it: `paddle.shape`, `clone(for_test=True)`,
`static.nn.fc`, `append_backward`, `global_block().var`, save/load of values and of an
inference model, `return_numpy=False`; each checked against eager mode or closed forms."""
import os

import numpy as np
import pytest

import fluxgrad as fg
from fluxgrad import nn, static

from static_programs import build_program


def test_shape_is_the_shape_fed_at_every_run():
    main, _, (x, s) = build_program(lambda: (lambda x: (x, fg.shape(x)))(
        static.data("x", [None, 3, 2], "float32")))
    exe = static.Executor()
    for n in (1, 4):
        got, = exe.run(main, feed={"x": np.zeros((n, 3, 2), np.float32)}, fetch_list=[s])
        assert got.tolist() == [n, 3, 2] and got.dtype == np.int64
    assert fg.shape(fg.zeros(2, 5)).tolist() == [2, 5]


def test_clone_for_test_runs_dropout_and_batch_norm_in_inference_mode(scoped):
    fg.manual_seed(0)
    model = nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4), nn.ReLU(), nn.Dropout(0.5),
                          nn.Linear(4, 2))
    a = np.random.default_rng(0).standard_normal((5, 3)).astype(np.float32)
    model.eval()
    want = model(fg.tensor(a)).detach().numpy()
    model.train()
    main, startup, y = build_program(lambda: model(static.data("x", [None, 3], "float32")))
    test = main.clone(for_test=True)
    exe = static.Executor()
    exe.run(startup)
    got, = exe.run(test, feed={"x": a}, fetch_list=[y])
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    again, = exe.run(test, feed={"x": a}, fetch_list=[y])
    np.testing.assert_array_equal(again, got)  # no dropout draw, no running-stat update
    train, = exe.run(main, feed={"x": a}, fetch_list=[y])
    assert np.abs(train - want).max() > 1e-3  # the main program still trains


def test_fc_is_a_linear_layer_with_new_parameters(scoped):
    main, startup, (x, y) = build_program(lambda: (lambda x: (x, static.nn.fc(
        x, 4, num_flatten_dims=1, activation="relu")))(static.data("x", [None, 2, 3],
                                                                   "float32")))
    exe = static.Executor()
    exe.run(startup)
    w, b = main.all_parameters()
    assert w.type_str == "f32[6,4]" and b.type_str == "f32[4]"
    a = np.random.default_rng(1).standard_normal((3, 2, 3)).astype(np.float32)
    got, = exe.run(main, feed={"x": a}, fetch_list=[y])
    scope = static.global_scope()
    want = np.maximum(a.reshape(3, 6) @ scope.values[w.name] + scope.values[b.name], 0)
    np.testing.assert_allclose(got, want, rtol=1e-5)


def test_append_backward_gives_each_parameter_its_gradient(scoped):
    def build():
        x = static.data("x", [None, 3], "float32")
        w = static.create_parameter([3, 2], "float32", name="w")
        loss = (x @ w).sum()
        return loss, static.append_backward(loss)
    main, startup, (loss, pairs) = build_program(build)
    assert [p.name for p, _ in pairs] == ["w"]
    exe = static.Executor()
    exe.run(startup)
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    g, = exe.run(main, feed={"x": a}, fetch_list=[pairs[0][1]])
    np.testing.assert_allclose(g, np.repeat(a.sum(0)[:, None], 2, 1))  # d sum(xw)/dw


def test_global_block_var_finds_a_variable_by_name_or_raises():
    main, _, x = build_program(lambda: static.data("x", [2], "float32"))
    assert main.global_block().var("x") is x
    with pytest.raises(ValueError, match="'nope' is not in this program"):
        main.global_block().var("nope")


def test_save_and_load_restore_the_values_of_a_program(scoped, tmp_path):
    main, startup, (x, y) = build_program(lambda: (lambda x: (x, static.nn.fc(x, 2)))(
        static.data("x", [None, 3], "float32")))
    exe = static.Executor()
    exe.run(startup)
    a = np.ones((2, 3), np.float32)
    want, = exe.run(main, feed={"x": a}, fetch_list=[y])
    path = str(tmp_path / "model")
    static.save(main, path)
    assert all(os.path.exists(path + s) for s in (".pdparams", ".pdopt", ".pdmodel"))
    with static.scope_guard(static.Scope()):
        with pytest.raises(RuntimeError, match="run the startup program"):
            exe.run(main, feed={"x": a}, fetch_list=[y])
        static.load(main, path)
        got, = exe.run(main, feed={"x": a}, fetch_list=[y])
    np.testing.assert_array_equal(got, want)


def test_an_inference_model_saved_and_loaded_computes_the_same(scoped, tmp_path):
    def build():
        x = static.data("x", [None, 3], "float32")
        y = static.nn.fc(x, 2, activation="tanh")
        return x, y, (y * y).mean()
    main, startup, (x, y, loss) = build_program(build)
    exe = static.Executor()
    exe.run(startup)
    a = np.random.default_rng(2).standard_normal((4, 3)).astype(np.float32)
    want, = exe.run(main, feed={"x": a}, fetch_list=[y])
    prefix = str(tmp_path / "infer")
    static.save_inference_model(prefix, [x], [y], exe, program=main)
    with static.scope_guard(static.Scope()):
        program, feeds, fetches = static.load_inference_model(prefix, exe)
        assert feeds == ["x"] and len(program.equations) < len(main.equations)  # no loss
        got, = exe.run(program, feed={feeds[0]: a[:2]}, fetch_list=fetches)
    np.testing.assert_allclose(got, want[:2], rtol=1e-6)


def test_save_inference_model_refuses_fetches_that_read_an_unfed_input(tmp_path):
    main, _, (x, y) = build_program(lambda: (lambda x, z: (x, x + z))(
        static.data("x", [2], "float32"), static.data("z", [2], "float32")))
    with pytest.raises(ValueError, match=r"read the data \['z'\]"):
        static.save_inference_model(str(tmp_path / "m"), [x], [y], None, program=main)


def test_run_with_return_numpy_false_gives_tensors():
    main, _, y = build_program(lambda: static.data("x", [2], "float32") * 2)
    got, = static.Executor().run(main, feed={"x": np.ones(2, np.float32)}, fetch_list=[y],
                                 return_numpy=False)
    assert isinstance(got, fg.Tensor) and got.tolist() == [2.0, 2.0]
