"""Python code that decides something from an unknown size while a static program is built
(`if x.shape[0] > 64:`, `min(x.shape[0], 5)`, `x.shape[0] % 2 == 0`) makes the program hold
only for the sizes where the decision comes out the same: at those it gives PyTorch's numbers
for the size fed, at the others the Executor refuses, naming the size, the condition and the
line that decided, and changing nothing. fluxgrad's own shape checks make no condition."""
import math
import re

import numpy as np
import pytest
import torch

import fluxgrad as fg
from fluxgrad import static

HERE = r"test_static_size_conditions\.py:\d+"


def _build(fn, *shapes):
    main = static.Program()
    fg.enable_static()
    try:
        with static.program_guard(main, static.Program()):
            xs = [static.data(f"x{i}", list(s), "float64") for i, s in enumerate(shapes)]
            out = fn(fg, *xs)
    finally:
        fg.disable_static()
    return main, out


def _run(main, out, *arrays, scope=None):
    return static.Executor().run(main, feed={f"x{i}": a for i, a in enumerate(arrays)},
                                 fetch_list=[out], scope=scope)[0]


def _torch(fn, *arrays):
    return fn(torch, *map(torch.tensor, arrays)).numpy()


def _arrays(*shapes):
    rng = np.random.default_rng(sum(map(sum, shapes)))
    return [rng.standard_normal(s) for s in shapes]


def _grow(m, x):
    return x.cumsum(0)


# name: (function of (module, *inputs), input shapes, fed shapes where the decision holds,
#        fed shapes where it doesn't, the condition as the refusal names it)
DECISIONS = {
    "size == 1": (lambda m, x: x * 2 if x.shape[0] == 1 else x - 1,
                  [(None, 3)], [[(2, 3)], [(5, 3)]], [(1, 3)], "N0 != 1"),
    "size > 64": (lambda m, x: x.sum(0) if x.shape[0] > 64 else x.mean(0),
                  [(None, 3)], [[(65, 3)], [(80, 3)]], [(64, 3)], "N0 > 64"),
    "int < size": (lambda m, x: x.sum(0) if 64 < x.shape[0] else x.mean(0),
                   [(None, 3)], [[(65, 3)]], [(3, 3)], "N0 > 64"),
    "size < 10 decided False": (lambda m, x: _grow(m, x) if x.shape[0] < 10 else x,
                                [(None, 3)], [[(10, 3)], [(12, 3)]], [(9, 3)], "N0 >= 10"),
    "size > 2.5": (lambda m, x: x * 2 if x.shape[0] > 2.5 else x,
                   [(None, 3)], [[(3, 3)]], [(2, 3)], "N0 > 2.5"),
    "size == numpy int": (lambda m, x: x * 2 if x.shape[0] == np.int64(5) else x,
                          [(None, 3)], [[(4, 3)]], [(5, 3)], "N0 != 5"),
    "shape == tuple": (lambda m, x: x * 2 if x.shape == (5, 3) else x,
                       [(None, 3)], [[(4, 3)]], [(5, 3)], "N0 != 5"),
    "size in tuple": (lambda m, x: x * 2 if x.shape[0] in (1, 2) else x,
                      [(None, 3)], [[(3, 3)]], [(2, 3)], "N0 != 2"),
    "two sizes equal": (lambda m, a: a.transpose(0, 1) * 2 if a.shape[-1] == a.shape[-2]
                        else a * 3, [(None, None)], [[(3, 4)], [(4, 3)]], [(4, 4)],
                        "N1 != N0"),
    "two inputs' sizes": (lambda m, a, b: a[:, :1] + b[:1] if a.shape[1] > b.shape[0] else a,
                          [(3, None), (None, 3)], [[(3, 2), (1, 3)]], [(3, 2), (2, 3)],
                          "N1 > N0"),
    "min(size, 5)": (lambda m, x: x.sum(0) + min(x.shape[0], 5),
                     [(None, 3)], [[(6, 3)], [(9, 3)]], [(3, 3)], "N0 > 5"),
    "max(size, 2)": (lambda m, x: x.sum(0) * max(x.shape[0], 2),
                     [(None, 3)], [[(2, 3)], [(7, 3)]], [(1, 3)], "N0 >= 2"),
    "size % 2 == 0": (lambda m, x: x * 2 if x.shape[0] % 2 == 0 else x,
                      [(None, 3)], [[(3, 3)], [(5, 3)]], [(4, 3)], "N0 % 2 != 0"),
    "bool(size - 3)": (lambda m, x: x * 2 if x.shape[0] - 3 else x,
                       [(None, 3)], [[(2, 3)], [(5, 3)]], [(3, 3)], "N0 - 3 != 0"),
    "bool(size)": (lambda m, x: x.sum(0) if x.shape[0] else x.sum(0) + 1,
                   [(None, 3)], [[(1, 3)]], [(0, 3)], "N0 != 0"),
    "derived size > 10": (lambda m, x: x * 2 if x.shape[0] - 1 > 10 else x,
                          [(None, 3)], [[(12, 3)]], [(11, 3)], "N0 - 1 > 10"),
    "derived float <= 4": (lambda m, x: x * 2 if x.shape[0] / 2 <= 4 else x,
                           [(None, 3)], [[(9, 3)]], [(8, 3)], "N0 / 2 > 4"),
    "-size < -2": (lambda m, x: x * 2 if -x.shape[0] < -2 else x,
                   [(None, 3)], [[(3, 3)]], [(2, 3)], "N0 * -1 < -2"),
    "size ** 2 > 10": (lambda m, x: x * 2 if x.shape[0] ** 2 > 10 else x,
                       [(None, 3)], [[(4, 3)]], [(3, 3)], "N0 ** 2 > 10"),
    "abs(size - 4) > 1": (lambda m, x: x * 2 if abs(x.shape[0] - 4) > 1 else x,
                          [(None, 3)], [[(1, 3)], [(6, 3)]], [(5, 3)], "abs(N0 - 4) > 1"),
    "divmod(size, 3)": (lambda m, x: x * 2 if divmod(x.shape[0], 3)[1] == 1 else x,
                        [(None, 3)], [[(3, 3)], [(5, 3)]], [(4, 3)], "N0 % 3 != 1"),
    "round(size / 4) == 1": (lambda m, x: x * 2 if round(x.shape[0] / 4) == 1 else x,
                             [(None, 3)], [[(8, 3)]], [(4, 3)], "round(N0 / 4) != 1"),
    "ceil(size / 2) > 3": (lambda m, x: x * 2 if math.ceil(x.shape[0] / 2) > 3 else x,
                           [(None, 3)], [[(7, 3)]], [(6, 3)], "ceil(N0 / 2) > 3"),
    "fitted size x[1:]": (lambda m, x: x[1:] * 2 if x[1:].shape[0] == 4 else x[1:],
                          [(None, 3)], [[(3, 3)], [(6, 3)]], [(5, 3)], "N0-1 != 4"),
}


@pytest.mark.parametrize("name", DECISIONS)
def test_a_decision_on_an_unknown_size_holds_the_program_to_the_sizes_that_make_it(name):
    fn, shapes, right, wrong, condition = DECISIONS[name]
    main, out = _build(fn, *shapes)
    for fed in right:
        arrays = _arrays(*fed)
        np.testing.assert_allclose(_run(main, out, *arrays), _torch(fn, *arrays), rtol=1e-12)
    with pytest.raises(ValueError, match=rf"holds only where {re.escape(condition)}: Python "
                                         rf"code at .*{HERE} .*\((N\d = \d+(, )?)+\)"):
        _run(main, out, *_arrays(*wrong))


def test_the_refusal_says_what_to_do():
    main, out = _build(DECISIONS["size > 64"][0], (None, 3))
    with pytest.raises(ValueError) as err:
        _run(main, out, np.ones((3, 3)))
    message = str(err.value)
    assert "N0 = 3" in message and "give static.data a known size" in message
    assert "fluxgrad.where" in message and "static.nn.cond" in message


SETTLED = {
    "size >= 0": lambda m, x: x * 2 if x.shape[0] >= 0 else x,
    "size < 0": lambda m, x: x if x.shape[0] < 0 else x * 2,
    "size != -1": lambda m, x: x * 2 if x.shape[0] != -1 else x,
    "size == 2.5": lambda m, x: x if x.shape[0] == 2.5 else x * 2,
    "size == itself": lambda m, x: x * 2 if x.shape[0] == x.shape[0] else x,
    "shape == shape": lambda m, x: x * 2 if x.shape == x.shape else x,
    "x[:4] at least 0": lambda m, x: x[:4] * 2 if x[:4].shape[0] >= 0 else x,
    "pad: size + 3 above 2": lambda m, x: (
        m.nn.functional.pad(x, (0, 0, 1, 2)) * 2
        if m.nn.functional.pad(x, (0, 0, 1, 2)).shape[0] > 2 else x),
}


@pytest.mark.parametrize("name", SETTLED)
def test_a_decision_true_for_every_size_is_no_condition(name):
    fn = SETTLED[name]
    main, out = _build(fn, (None, 3))
    assert not main.size_conditions
    for n in (0, 1, 3, 4, 6):
        x = _arrays((n, 3))[0]
        np.testing.assert_allclose(_run(main, out, x), _torch(fn, x), rtol=1e-12)


def test_a_decision_no_size_makes_true_is_refused_when_built():
    """A clamped size's stand-in (x[:4]: min(N0, 4)) is a large prime, above its clamp."""
    with pytest.raises(ValueError, match=rf"{HERE}: .*min\(N0,4\) > 4 of the stand-in sizes .*"
                                         "no size fed makes true"):
        _build(lambda m, x: x if x[:4].shape[0] <= 4 else x * 2, (None, 3))


def _internal_checks(m, x, y):
    """Ops whose own shape checks compare unknown sizes (broadcasting against 1, matching
    batch sizes, reductions, a fitted size)."""
    h = (x - x.mean(0)) / (x.abs().mean(0) + 1) + y[:, :1]
    h = m.nn.functional.linear(h, m.ones(2, 3, dtype=m.float64)) @ m.ones(2, 2, dtype=m.float64)
    return m.cat([h, h[1:] * 2]).softmax(0) + m.where(x[:, :2] > 0, x[:, :2], 0.0).sum(0)


def test_fluxgrads_own_shape_checks_make_no_condition():
    main, out = _build(_internal_checks, (None, 3), (None, 4))
    assert not main.size_conditions
    for n in (1, 2, 5):
        x, y = _arrays((n, 3), (n, 4))
        np.testing.assert_allclose(_run(main, out, x, y), _torch(_internal_checks, x, y),
                                   rtol=1e-10)


def test_a_refused_run_fetches_nothing_and_updates_nothing():
    main, startup = static.Program(), static.Program()
    fg.enable_static()
    try:
        with static.program_guard(main, startup):
            x = static.data("x", [None, 2], "float32")
            loss = fg.nn.Linear(2, 1)(x).sum()
            if x.shape[0] > 4:
                loss = loss * 2
            fg.optim.SGD(0.1).minimize(loss)
    finally:
        fg.disable_static()
    scope, exe = static.Scope(), static.Executor()
    exe.run(startup, scope=scope)
    before = {k: v.copy() for k, v in scope.values.items()}
    exe.run(main, feed={"x": np.ones((5, 2), np.float32)}, fetch_list=[loss], scope=scope)
    moved = {k: v.copy() for k, v in scope.values.items()}
    assert any(not np.array_equal(before[k], moved[k]) for k in before)
    with pytest.raises(ValueError, match="N0 > 4"):
        exe.run(main, feed={"x": np.ones((3, 2), np.float32)}, fetch_list=[loss], scope=scope)
    for k in moved:
        np.testing.assert_array_equal(scope.values[k], moved[k])


def test_a_decision_on_a_size_that_depends_on_the_data_is_checked_when_it_is_known():
    def fn(m, x):
        y = x[x > 0]
        return y.sum() * 2 if y.shape[0] > 2 else y.sum()
    main, out = _build(fn, (None,))
    x = np.array([1.0, -2.0, 3.0, 4.0, -5.0])
    np.testing.assert_allclose(_run(main, out, x), _torch(fn, x))
    with pytest.raises(ValueError, match=rf"holds only where U0 > 2: .*{HERE}.*U0 = 1"):
        _run(main, out, np.array([1.0, -2.0, -3.0]))


def test_a_decision_inside_a_branch_function_holds_the_whole_program():
    def fn(m, x):
        return static.nn.cond(x.sum() > 0, lambda: x * 2 if x.shape[0] > 4 else x,
                              lambda: x - 1)
    main, out = _build(fn, (None, 3))
    assert [str(c) for c in main.size_conditions.values()] == ["N0 > 4"]
    x = np.ones((5, 3))
    np.testing.assert_allclose(_run(main, out, x), x * 2)
    with pytest.raises(ValueError, match="N0 > 4"):
        _run(main, out, np.ones((4, 3)))


def test_clones_keep_the_conditions():
    main, out = _build(DECISIONS["size > 64"][0], (None, 3))
    for program in (main.clone(), main.clone(for_test=True)):
        with pytest.raises(ValueError, match="N0 > 64"):
            _run(program, out, np.ones((3, 3)))


def test_a_comparison_after_static_mode_is_off_makes_no_condition():
    main, out = _build(lambda m, x: x * 2, (None, 3))
    assert out.shape[0] != 5 and out.shape[0] > 3
    assert not main.size_conditions


def test_a_condition_decided_twice_is_kept_once_with_the_first_line():
    def fn(m, x):
        for _ in range(3):
            x = x * 2 if x.shape[0] > 4 else x
        return x
    main, _ = _build(fn, (None, 3))
    assert len(main.size_conditions) == 1


@pytest.mark.parametrize("convert", [lambda n: float(n), lambda n: math.sqrt(n - 1),
                                     lambda n: float(n / 2)], ids=["float", "sqrt", "float(n/2)"])
def test_float_of_an_unknown_size_in_user_code_is_refused(convert):
    with pytest.raises(TypeError, match=r"float\(\) of N0.*stand-in.*known size"):
        _build(lambda m, x: x * convert(x.shape[0]), (None, 3))


def test_squeeze_of_an_unknown_size_inside_a_branch_refuses_a_size_of_1():
    """(The branch's sub-program kept the refusal, which the Executor never read: a run at 1
    gave the unsqueezed shape.)"""
    def fn(m, x):
        return static.nn.cond(x.sum() > 0, lambda: x.squeeze(1) * 2, lambda: x.squeeze(1))
    main, out = _build(fn, (3, None))
    np.testing.assert_allclose(_run(main, out, np.ones((3, 2))), np.full((3, 2), 2.0))
    with pytest.raises(ValueError, match="N1 is not 1"):
        _run(main, out, np.ones((3, 1)))


def test_a_python_loop_over_range_of_an_unknown_size_is_refused():
    """range() reads the size in C (no comparison to see): the loop ran 10007 times."""
    def fn(m, x):
        h = x.sum(0)
        for _ in range(x.shape[0]):
            h = h * 0.5
        return h
    main, out = _build(fn, (None, 3))
    with pytest.raises(ValueError, match=rf"line .*{HERE} staged 10007 equations.*N0.*range"):
        _run(main, out, np.ones((4, 3)))


def test_a_loop_of_a_known_count_near_the_stand_in_runs():
    main, out = _build(lambda m, x: sum([x] * 10000), (None, 3))  # (10000 adds on one line)
    np.testing.assert_allclose(_run(main, out, np.ones((2, 3))), np.full((2, 3), 10000.0))


def test_len_of_a_variable_of_unknown_first_size_is_refused():
    with pytest.raises(TypeError, match=r"len\(\) of the static Variable 'x0' \(f64\[N0,3\]\)"):
        _build(lambda m, x: x * len(x), (None, 3))
    main, out = _build(lambda m, x: x * len(x), (3, None))
    np.testing.assert_allclose(_run(main, out, np.ones((3, 2))), np.full((3, 2), 3.0))


@pytest.mark.parametrize("convert", [lambda n: int(n / 2), lambda n: int(n - 1)],
                         ids=["int(n/2)", "int(n-1)"])
def test_int_of_a_number_computed_from_an_unknown_size_in_user_code_is_refused(convert):
    with pytest.raises(TypeError, match=r"int\(\) of N0 . \d.*drop the int\(\)"):
        _build(lambda m, x: x * convert(x.shape[0]), (None, 3))


def test_an_inference_model_saved_and_loaded_keeps_its_conditions(tmp_path):
    main, out = _build(lambda m, x: x.sum(0) if x.shape[0] > 64 else x.mean(0), (None, 3))
    exe = static.Executor()
    prefix = str(tmp_path / "model")
    static.save_inference_model(prefix, [main.data[0]], [out], exe, program=main)
    program, feeds, fetches = static.load_inference_model(prefix, exe)
    x = np.ones((80, 3))
    np.testing.assert_allclose(exe.run(program, feed={feeds[0]: x}, fetch_list=fetches)[0],
                               torch.ones(80, 3, dtype=torch.float64).sum(0).numpy())
    with pytest.raises(ValueError, match=f"N0 > 64: Python code at .*{HERE}"):
        exe.run(program, feed={feeds[0]: np.ones((3, 3))}, fetch_list=fetches)
