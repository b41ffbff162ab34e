"""PaddlePaddle's introspection of static programs (Blocks, Operators, Variable flags), its
places, `Program.random_seed` and `static.nn.dropout`; checked against the equations built
and closed forms."""
import numpy as np
import pytest

import fluxgrad as fg
from fluxgrad import static

from static_programs import build_program


def _fc_program():
    def build():
        x = static.data("x", [None, 3], "float32")
        h = static.nn.fc(x, 2, name="fc")
        return x, h, fg.tanh(h)
    return build_program(build)


def test_global_block_ops_name_each_equation_with_its_argument_names():
    main, _, (x, h, y) = _fc_program()
    ops = main.global_block().ops
    assert [op.type for op in ops] == ["matmul", "add", "tanh"]
    matmul, add, tanh = ops
    assert matmul.input_arg_names == ["x", "fc.w_0"] and matmul.input("Y") == ["fc.w_0"]
    assert add.output_arg_names == [h.name] == add.output("Out")
    assert tanh.input("X") == [h.name] and tanh.output_arg_names == [y.name]
    with pytest.raises(ValueError, match="no input slot 'Z'"):
        matmul.input("Z")


def test_operator_attributes_are_the_primitive_parameters():
    main, _, _ = build_program(lambda: fg.sum(static.data("x", [2, 3], "float32"), axis=1) * 2.0)
    total, scale = main.global_block().ops
    assert total.has_attr("axis") and not total.has_attr("nope")
    assert total.attr("axis") in (1, (1,))
    assert scale.attr("constants") == [2.0]
    with pytest.raises(ValueError, match="no attribute 'nope'"):
        total.attr("nope")


def test_blocks_are_the_global_block_and_one_per_branch():
    def build():
        x = static.data("x", [3], "float32")
        return static.nn.cond(fg.mean(x) > 0, lambda: x * 2, lambda: x - 1)
    main, _, _ = build_program(build)
    assert main.num_blocks == 3 == len(main.blocks)
    assert main.block(0).idx == 0 and main.block(0).parent_idx == -1
    assert [b.parent_idx for b in main.blocks[1:]] == [0, 0]
    assert [op.type for op in main.block(1).ops] == ["mul"]
    assert [op.type for op in main.block(2).ops] == ["sub"]
    with pytest.raises(IndexError, match="3 blocks"):
        main.block(3)


def test_block_vars_and_var_find_variables_by_name():
    main, _, (x, h, _) = _fc_program()
    block = main.global_block()
    assert block.vars["x"] is x and block.var(h.name) is h
    assert {p.name for p in block.all_parameters()} == {"fc.w_0", "fc.b_0"}
    assert "Variable" in str(block.var("fc.w_0")) and "matmul" in str(main)


def test_variable_flags_follow_paddle():
    main, _, (x, h, _) = _fc_program()
    w = main.global_block().var("fc.w_0")
    assert x.stop_gradient and not x.persistable
    assert not h.stop_gradient and not h.persistable
    assert not w.stop_gradient and w.persistable
    assert x.name == "x" and x.dtype == fg.float32 and x.shape[1] == 3
    x.stop_gradient = False
    assert not x.stop_gradient
    with pytest.raises(NotImplementedError, match="detach"):
        h.stop_gradient = True


def test_places_cpu_and_pinned_run_and_cuda_refuses():
    assert fg.CPUPlace() == fg.CPUPlace() and isinstance(static.cpu_places()[0], fg.CPUPlace)
    static.Executor(fg.CPUPlace())
    static.Executor(fg.CUDAPinnedPlace())
    with pytest.raises(RuntimeError, match="CPU only"):
        fg.CUDAPlace(0)
    with pytest.raises(ValueError, match="not the CPU"):
        static.Executor("gpu:0")


def _dropout_program(**kwargs):
    return build_program(lambda: static.nn.dropout(static.data("x", [4, 50], "float64"), 0.5,
                                                   **kwargs))


def test_dropout_downgrades_in_inference_by_default(scoped):
    main, _, y = _dropout_program()
    exe, a = static.Executor(), np.ones((4, 50))
    train, = exe.run(main, feed={"x": a}, fetch_list=[y])
    assert set(np.unique(train)) == {0.0, 1.0}
    test, = exe.run(main.clone(for_test=True), feed={"x": a}, fetch_list=[y])
    np.testing.assert_array_equal(test, a * 0.5)


def test_dropout_upscale_in_train_scales_the_kept_elements(scoped):
    main, _, y = _dropout_program(dropout_implementation="upscale_in_train")
    train, = static.Executor().run(main, feed={"x": np.ones((4, 50))}, fetch_list=[y])
    assert set(np.unique(train)) == {0.0, 2.0}
    main2, _, y2 = _dropout_program(is_test=True, dropout_implementation="upscale_in_train")
    test, = static.Executor().run(main2, feed={"x": np.ones((4, 50))}, fetch_list=[y2])
    np.testing.assert_array_equal(test, np.ones((4, 50)))


def test_dropout_with_a_seed_drops_the_same_elements_every_run(scoped):
    main, _, y = _dropout_program(seed=7)
    exe = static.Executor()
    first, = exe.run(main, feed={"x": np.ones((4, 50))}, fetch_list=[y])
    second, = exe.run(main, feed={"x": np.ones((4, 50))}, fetch_list=[y])
    np.testing.assert_array_equal(first, second)


def test_dropout_refuses_an_unknown_implementation():
    with pytest.raises(ValueError, match="dropout_implementation"):
        _dropout_program(dropout_implementation="sometimes")


def test_program_random_seed_repeats_the_draws_of_every_run(scoped):
    main, _, y = _dropout_program()
    exe, a = static.Executor(), np.ones((4, 50))
    runs = [exe.run(main, feed={"x": a}, fetch_list=[y])[0] for _ in range(2)]
    assert not np.array_equal(*runs)
    main.random_seed = 11
    runs = [exe.run(main, feed={"x": a}, fetch_list=[y])[0] for _ in range(2)]
    np.testing.assert_array_equal(*runs)
    assert main.clone().random_seed == 11
