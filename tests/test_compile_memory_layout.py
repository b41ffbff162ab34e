"""The memory layout of values inside a compiled function (`jit.views`): `view`, `reshape`,
`is_contiguous()`, `stride()` and `contiguous()` behave as in eager mode, for arguments that
are not C-contiguous (part of the signature: such an argument traces again) and for the
results of ops that give non-C-contiguous arrays. Each function is compiled with
fullgraph=True (a fallback to eager mode fails the test) and called twice (the trace's first
call, then the generated code); the expected values come from eager mode on copies."""
import numpy as np
import pytest

import fluxgrad as fg
from fluxgrad._core.errors import ShapeError

RNG = np.random.default_rng(0)
A = RNG.standard_normal((3, 4))


def _same_as_eager(fn, *make_args):
    """fn compiled and fn eager, each on fresh arguments from `make_args`, give equal results
    (or raise the same error with the same message)."""
    compiled = fg.compile(fn, fullgraph=True)
    outcomes = []
    for run in (fn, compiled, compiled):
        try:
            result = run(*[make() for make in make_args])
        except Exception as err:  # noqa: BLE001 - the error is the outcome compared
            outcomes.append(("raised", type(err), str(err)))
        else:
            outcomes.append(("returned", _plain(result)))
    for got in outcomes[1:]:
        assert got[0] == outcomes[0][0], (got, outcomes[0])
        if got[0] == "raised":
            assert got == outcomes[0]
        else:
            _assert_equal(got[1], outcomes[0][1])
    return compiled


def _plain(x):
    if isinstance(x, fg.Tensor):
        return x.numpy().copy()
    if isinstance(x, (tuple, list)):
        return [_plain(v) for v in x]
    return x


def _assert_equal(got, want):
    if isinstance(want, list):
        assert isinstance(got, list) and len(got) == len(want)
        for g, w in zip(got, want):
            _assert_equal(g, w)
    elif isinstance(want, np.ndarray):
        np.testing.assert_array_equal(got, want)
    else:
        assert got == want


def _arg():
    return fg.tensor(A)


def _transposed_arg():
    return fg.tensor(A).t()


def _fortran_arg():  # not C-contiguous, and not a view
    return fg.tensor(A).t() * 1


def test_view_of_a_transpose_raises_as_in_eager_mode():
    with pytest.raises(ShapeError, match="can't be a view"):
        fg.compile(lambda x: x.t().view(-1), fullgraph=True)(_arg())
    _same_as_eager(lambda x: x.t().view(-1), _arg)


def test_view_of_a_transposed_argument_raises_as_in_eager_mode():
    _same_as_eager(lambda x: x.view(-1), _transposed_arg)
    with pytest.raises(ShapeError, match="can't be a view"):
        fg.compile(lambda x: x.view(-1), fullgraph=True)(_transposed_arg())


def test_view_of_a_non_contiguous_argument_that_is_no_view_copies_as_in_eager_mode():
    _same_as_eager(lambda x: x.view(-1) * 2, _fortran_arg)


def test_view_of_a_transpose_made_contiguous_is_allowed():
    _same_as_eager(lambda x: x.t().contiguous().view(-1), _arg)


@pytest.mark.parametrize("make", [_arg, _transposed_arg, _fortran_arg])
def test_strides_and_contiguity_of_arguments_and_results_match_eager_mode(make):
    def fn(x):
        y = x * 2  # keeps x's order of memory
        z = x + fg.tensor(np.ones((4, 3)) if x.shape[0] == 4 else np.ones((3, 4)))
        s = x.sum(0)
        p = x[:, 1:]
        return [x.stride(), x.is_contiguous(), y.stride(), y.is_contiguous(), z.stride(),
                s.stride(), p.stride(), p.is_contiguous(), x.stride(1), x.t().stride()]
    _same_as_eager(fn, make)


def test_a_convolutions_result_is_not_contiguous_as_in_eager_mode():
    x = RNG.standard_normal((2, 3, 6, 6))
    w = RNG.standard_normal((4, 3, 3, 3))

    def fn(x, w):
        y = fg.nn.functional.conv2d(x, w)
        return [y.is_contiguous(), y.stride(), y.relu().stride()]
    _same_as_eager(fn, lambda: fg.tensor(x), lambda: fg.tensor(w))


def test_a_write_into_a_reshape_of_a_non_contiguous_result_stays_in_the_copy():
    def fn(x):
        y = x.t() * 2  # not C-contiguous: reshape copies
        r = y.reshape(-1)
        r[0] = 100.0
        return y, r
    _same_as_eager(fn, _arg)


def test_a_write_into_a_reshape_of_a_contiguous_result_reaches_it():
    def fn(x):
        y = x * 2
        r = y.reshape(-1)
        r[0] = 100.0
        return y, r
    _same_as_eager(fn, _arg)


def test_contiguous_of_a_contiguous_value_is_the_value_itself():
    def fn(x):
        y = x * 2
        y.contiguous().add_(1)  # the same tensor: y changes
        z = y.t()
        z.contiguous().add_(1)  # a copy: z and y don't
        return y, z
    _same_as_eager(fn, _arg)


def test_a_value_written_in_place_keeps_its_memory_layout():
    def fn(x):
        y = x.t() * 2  # laid out as x.t()
        y.mul_(fg.ones(4, 3))  # an elementwise result of mixed layouts would be C-contiguous
        return [y.stride(), y.is_contiguous()]
    _same_as_eager(fn, _arg)


def test_a_non_contiguous_argument_traces_again_and_says_why():
    compiled = fg.compile(lambda x: x.view(-1) * 2, fullgraph=True)
    compiled(fg.tensor(np.ascontiguousarray(A.T)))
    compiled(fg.tensor(np.ascontiguousarray(A.T)))
    assert compiled.trace_count == 1
    with pytest.raises(ShapeError, match="can't be a view"):
        compiled(_transposed_arg())
    assert compiled.trace_count == 1  # the refused trace is not kept
    out = compiled(_fortran_arg())
    np.testing.assert_array_equal(out.numpy(), (A.T * 2).reshape(-1))
    assert compiled.trace_count == 2
    assert "strides" in compiled.traces[-1].reason
    compiled(fg.tensor(np.ascontiguousarray(A.T)))  # the first trace still serves C order
    assert compiled.trace_count == 2


def test_fallback_to_eager_mode_for_a_transposed_argument_raises_eager_modes_error():
    compiled = fg.compile(lambda x: x.view(-1) * 2)  # fullgraph=False
    np.testing.assert_array_equal(compiled(_arg()).numpy(), A.reshape(-1) * 2)
    with pytest.raises(ShapeError, match="can't be a view"):
        compiled(_transposed_arg())


def _column_major_view():  # A's shape and values, laid out column by column, a view
    return fg.tensor(np.ascontiguousarray(A.T)).t()


def _column_major():  # the same, not a view
    return fg.tensor(np.ascontiguousarray(A.T)).t() * 1


def test_a_trace_that_reads_no_layout_serves_arguments_of_any_strides():
    compiled = fg.compile(lambda x, y: (x * 2 + y).sum(0), fullgraph=True)
    y = fg.tensor(np.ones(4))
    want = (A * 2 + 1).sum(0)
    for make in (_arg, _column_major_view, _arg, _column_major):
        np.testing.assert_allclose(compiled(make(), y).numpy(), want, rtol=1e-15)
    compiled(fg.tensor(np.ones((2, 4))), y)  # another trace is the latest one used
    np.testing.assert_allclose(compiled(_column_major_view(), y).numpy(), want, rtol=1e-15)
    assert compiled.trace_count == 2


@pytest.mark.parametrize("fn", [
    lambda x: x * x.stride(0),
    lambda x: x * 2 if x.is_contiguous() else x * 3,
    lambda x: x.contiguous() * 2,
    lambda x: x.view(-1) * 2,
    lambda x: (x * 2).t().reshape(-1).mul_(2)[:4],  # whether the reshape copied
])
def test_a_trace_that_reads_an_arguments_layout_traces_again_for_other_strides(fn):
    compiled = fg.compile(fn, fullgraph=True)
    for make in (_arg, _arg, _column_major, _column_major, _arg):
        np.testing.assert_array_equal(compiled(make()).numpy(), fn(make()).numpy())
    assert compiled.trace_count == 2


def test_a_trace_that_writes_into_an_argument_traces_again_for_other_strides():
    def fn(x):
        x.mul_(2)
        return x.sum()
    compiled = fg.compile(fn, fullgraph=True)
    for make in (_arg, _column_major, _column_major):
        x, expected = make(), make()
        assert compiled(x).item() == fn(expected).item()
        np.testing.assert_array_equal(x.numpy(), expected.numpy())
        assert x.stride() == expected.stride()
    assert compiled.trace_count == 2


def test_the_guards_read_each_threads_grad_mode():
    import threading
    w = fg.tensor(np.ones(3))
    compiled = fg.compile(lambda x: (x * w).sum())
    x = fg.tensor(np.ones(3), requires_grad=True)
    compiled(x).backward()  # traced for grad mode, the latest trace used
    results = {}

    def other_thread():
        with fg.no_grad():
            results["no_grad"] = compiled(x).requires_grad
    thread = threading.Thread(target=other_thread)
    thread.start()
    thread.join()
    assert results == {"no_grad": False}
    with fg.no_grad():
        done = threading.Event()
        results["grad"] = None

        def grad_thread():  # grad mode is on in a new thread while this one has it off
            results["grad"] = compiled(x).requires_grad
            done.set()
        threading.Thread(target=grad_thread).start()
        done.wait(10)
    assert results["grad"] is True
