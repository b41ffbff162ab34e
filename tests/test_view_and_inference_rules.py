"""PyTorch's rules for views taken under no_grad, views that are outputs of multi-output ops
(split, chunk, unbind), inference tensors saved for backward, and the dtypes cdist, pdist
and quantile refuse; each checked against what torch 2.13 does on the same program."""
import pytest
import torch

import fluxgrad as fg

LIBS = [fg, torch]


def _outcome(fn, lib):
    """What `fn(lib)` gives: its value, or the exception type (RuntimeError-like) it raises."""
    try:
        return fn(lib)
    except RuntimeError:
        return RuntimeError
    except NotImplementedError:
        return NotImplementedError


def _same_in_both(fn):
    ours, theirs = _outcome(fn, fg), _outcome(fn, torch)
    assert ours == theirs, f"fluxgrad: {ours}, torch: {theirs}"
    return ours


# --- views taken under no_grad -------------------------------------------------------------
@pytest.mark.parametrize("take", [lambda p: p.view(6), lambda p: p.t(), lambda p: p[0],
                                  lambda p: p.reshape(3, 2)[1:]])
def test_view_of_a_parameter_under_no_grad_requires_grad_as_a_leaf(take):
    def program(lib):
        p = lib.nn.Parameter(lib.ones(3, 2))
        with lib.no_grad():
            v = take(p)
        return v.requires_grad, v.is_leaf, v.grad_fn is None, (v * 2).sum().requires_grad
    assert _same_in_both(program) == (True, True, True, True)


def test_detach_under_no_grad_does_not_require_grad():
    def program(lib):
        p = lib.nn.Parameter(lib.ones(3))
        with lib.no_grad():
            return p.detach().requires_grad
    assert _same_in_both(program) is False


def test_no_gradient_reaches_the_parameter_or_the_view_through_a_no_grad_view():
    def program(lib):
        p = lib.nn.Parameter(lib.ones(3, 2))
        with lib.no_grad():
            v = p[0]
        (v * p[1]).sum().backward()
        return v.grad, p.grad.tolist()
    assert _same_in_both(program) == (None, [[0, 0], [1, 1], [0, 0]])


@pytest.mark.parametrize("base", ["leaf", "non-leaf"])
def test_in_place_write_with_grad_on_through_a_no_grad_view_raises(base):
    def program(lib):
        x = lib.ones(3, 2, requires_grad=True)
        y = x if base == "leaf" else x * 1
        with lib.no_grad():
            v = y.view(6)
        v.mul_(2)
        return v.sum().item()
    assert _same_in_both(program) is RuntimeError


def test_in_place_write_under_no_grad_through_a_no_grad_view_is_allowed():
    def program(lib):
        p = lib.nn.Parameter(lib.ones(3, 2))
        with lib.no_grad():
            v = p.view(6)
            v.mul_(2)
        return p.sum().item(), p.requires_grad
    assert _same_in_both(program) == (12.0, True)


def test_no_grad_view_message_says_what_to_do():
    p = fg.nn.Parameter(fg.ones(3, 2))
    with fg.no_grad():
        v = p.view(6)
    with pytest.raises(RuntimeError, match="created in no_grad mode.*shape \\[6\\]"):
        v.mul_(2)
    assert p.tolist() == [[1, 1]] * 3


# --- outputs of split, chunk and unbind ----------------------------------------------------
MULTI = {"unbind": lambda y: y.unbind(0), "split": lambda y: y.split(2),
         "chunk": lambda y: y.chunk(2), "split_sizes": lambda y: y.split([1, 3])}


@pytest.mark.parametrize("op", MULTI)
def test_in_place_write_into_a_multi_output_view_raises_when_grad_is_recorded(op):
    def program(lib):
        y = lib.ones(4, 2, requires_grad=True) * 1
        MULTI[op](y)[-1].mul_(2)
        return y.sum().item()
    assert _same_in_both(program) is RuntimeError


@pytest.mark.parametrize("write", [lambda piece: piece.view(-1).add_(1),
                                   lambda piece: piece.__setitem__(0, 5.0)])
def test_writes_into_a_view_of_a_multi_output_view_raise_too(write):
    def program(lib):
        y = lib.ones(4, 2, requires_grad=True) * 1
        write(y.split(2)[0])
        return y.sum().item()
    assert _same_in_both(program) is RuntimeError


@pytest.mark.parametrize("op", MULTI)
def test_multi_output_views_of_a_tensor_without_grad_take_writes(op):
    def program(lib):
        x = lib.ones(4, 2)
        MULTI[op](x)[0].mul_(3)
        return x.sum().item()
    assert _same_in_both(program) in (12.0, 16.0)  # the write reached x (2 or 4 entries)


@pytest.mark.parametrize("op", MULTI)
def test_multi_output_views_taken_under_no_grad_refuse_writes_with_grad_on(op):
    def program(lib):
        y = lib.ones(4, 2, requires_grad=True) * 1
        with lib.no_grad():
            pieces = MULTI[op](y)
        requires = pieces[0].requires_grad
        pieces[0].mul_(2)
        return requires
    assert _same_in_both(program) is RuntimeError


@pytest.mark.parametrize("op", MULTI)
def test_multi_output_views_take_writes_under_no_grad(op):
    def program(lib):
        y = lib.ones(4, 2, requires_grad=True) * 1
        pieces = MULTI[op](y)
        with lib.no_grad():
            pieces[0].mul_(2)
        return y.sum().item()
    assert _same_in_both(program) != RuntimeError


def test_multi_output_write_refused_changes_nothing():
    y = fg.ones(4, 2, requires_grad=True) * 1
    first, _ = y.split(2)
    with pytest.raises(RuntimeError, match="returns multiple views"):
        first.add_(1)
    assert y.sum().item() == 8 and first._version == 0


def test_out_of_place_ops_on_multi_output_views_still_differentiate():
    def program(lib):
        x = lib.arange(8.0).reshape(4, 2).requires_grad_()
        a, b = (x * 1).chunk(2)
        (a * b + a.exp()).sum().backward()
        return [round(v, 4) for v in x.grad.flatten().tolist()]
    assert isinstance(_same_in_both(program), list)


# --- inference tensors in recorded computations --------------------------------------------
SAVES = {"mul": lambda w, x, lib: w * x, "matmul": lambda w, x, lib: w @ x.reshape(3, 1),
         "linear": lambda w, x, lib: lib.nn.functional.linear(x.reshape(1, 3), w.reshape(1, 3))}


@pytest.mark.parametrize("op", SAVES)
def test_an_inference_tensor_saved_for_backward_raises(op):
    def program(lib):
        with lib.inference_mode():
            x = lib.ones(3)
        w = lib.ones(3, requires_grad=True)
        return SAVES[op](w, x, lib).sum().item()
    assert _same_in_both(program) is RuntimeError


def test_an_inference_tensor_not_saved_for_backward_is_allowed():
    def program(lib):
        with lib.inference_mode():
            x = lib.ones(3)
        w = lib.ones(3, requires_grad=True)
        (w + x).sum().backward()
        return w.grad.tolist()
    assert _same_in_both(program) == [1.0, 1.0, 1.0]


def test_a_clone_of_an_inference_tensor_can_be_saved():
    def program(lib):
        with lib.inference_mode():
            x = lib.full((3,), 2.0)
        w = lib.ones(3, requires_grad=True)
        (w * x.clone()).sum().backward()
        return w.grad.tolist()
    assert _same_in_both(program) == [2.0, 2.0, 2.0]


def test_requires_grad_on_an_inference_tensor_outside_inference_mode_raises():
    def program(lib):
        with lib.inference_mode():
            x = lib.ones(3)
        x.requires_grad_()
    assert _same_in_both(program) is RuntimeError


def test_inference_refusal_names_the_op_and_the_fix():
    with fg.inference_mode():
        x = fg.ones(2, 3)
    w = fg.ones(3, 4, requires_grad=True)
    with pytest.raises(RuntimeError, match="cannot be saved for backward: matmul .*clone"):
        x @ w


# --- dtypes cdist, pdist and quantile refuse ------------------------------------------------
REFUSED = {
    "cdist float16": lambda lib: lib.cdist(lib.ones(2, 3, dtype=lib.float16),
                                           lib.ones(4, 3, dtype=lib.float16)),
    "pdist float16": lambda lib: lib.nn.functional.pdist(lib.ones(4, 3, dtype=lib.float16)),
    "quantile float16": lambda lib: lib.quantile(lib.ones(5, dtype=lib.float16), 0.5),
    "nanquantile float16": lambda lib: lib.nanquantile(lib.ones(5, dtype=lib.float16), 0.5),
    "cdist float32 with float64": lambda lib: lib.cdist(lib.ones(2, 3),
                                                        lib.ones(4, 3, dtype=lib.float64)),
}


@pytest.mark.parametrize("case", REFUSED)
def test_dtype_refused_as_in_pytorch(case):
    def program(lib):
        REFUSED[case](lib)
        return "computed"
    assert _same_in_both(program) in (RuntimeError, NotImplementedError)


def test_median_and_pairwise_distance_take_float16_as_in_pytorch():
    def program(lib):
        x = lib.tensor([[1.0, 2.0, 4.0]], dtype=lib.float16)
        return (lib.median(x).item(),
                round(lib.nn.functional.pairwise_distance(x, x * 2).item(), 1))
    assert _same_in_both(program) == (2.0, 4.6)
