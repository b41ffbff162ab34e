"""PyTorch's own OpInfo database (`op_db`) run against fluxgrad, torch as the reference.

Each OpInfo is mapped to fluxgrad's counterpart by its name (`torch.X` -> `fluxgrad.X`,
`nn.functional.X`, `linalg.X`, `special.X`, `fft.X`; a Tensor method when fluxgrad has no
function). Every sample torch generates is converted to fluxgrad tensors (tensors anywhere in
input, args and kwargs) and run through both libraries: values, dtypes and shapes must agree for
float64, float32, int64 and bool where the OpInfo supports them; for float64 samples of ops that
support autograd, the gradients of a random-weighted sum of the outputs must agree; every
`error_inputs` sample must raise the exception type torch raises.

`KNOWN_DIFFERENCES` lists, with a reason each, what fluxgrad deliberately does otherwise or does not
build; everything else in op_db that maps is checked (at most SAMPLES_PER_DTYPE samples per dtype).
`PYTHONPATH=. python tests/test_opinfo.py [name-prefix]` sweeps every sample (no caps, known
differences included) and prints a table of what fails.
"""
import collections
import sys
import types

import numpy as np
import pytest

import fluxgrad

torch = pytest.importorskip("torch")
pytest.importorskip("expecttest")
from torch.testing._internal.common_methods_invocations import op_db  # noqa: E402

# torch's test utilities freeze torch.backends flags on import; other tests in this process set them
torch.backends.flags_frozen.__globals__["__allow_nonbracketed_mutation_flag"] = True

DTYPES = (torch.float64, torch.float32, torch.int64, torch.bool)
SAMPLES_PER_DTYPE = 3
ERROR_SAMPLES = 6
pytestmark = pytest.mark.filterwarnings("ignore")  # torch's deprecation notes for its old ops

# Random ops: their values can't be compared, their shapes and dtypes can.
RANDOM_OPS = {
    "bernoulli", "cauchy", "exponential", "geometric", "log_normal", "multinomial", "normal",
    "uniform", "randn", "rand_like", "randint_like", "randn_like", "randint",
    "nn.functional.dropout", "nn.functional.dropout2d", "nn.functional.dropout3d",
    "nn.functional.alpha_dropout",
    "nn.functional.feature_alpha_dropout", "nn.functional.rrelu", "empty", "empty_like",
    "empty_strided", "new_empty", "new_empty_strided", "empty_permuted",
    "nn.functional.gumbel_softmax",
}

# Known differences: OpInfo name -> {part: reason}. A part is "op" (the whole OpInfo), a dtype
# name ("int64", "bool", "float32"), "grad" (values checked, gradients not) or "errors".
NOT_BUILT = "not built yet (docs/porting-from-pytorch.md, 'Not there yet')"
TIES = "ties pick another index (deliberate, documented in docs/porting-from-pytorch.md)"
KNOWN_DIFFERENCES = {
    # dtypes and layouts fluxgrad has no counterpart for
    "bfloat16": {"op": "no bfloat16 dtype; " + NOT_BUILT},
    "chalf": {"op": "no complex dtypes; " + NOT_BUILT},
    "to_sparse": {"op": "no sparse tensors; " + NOT_BUILT},
    "empty_strided": {"op": "tensors are laid out contiguously; strides are not settable"},
    "new_empty_strided": {"op": "tensors are laid out contiguously; strides are not settable"},
    "as_strided.partial_views": {"op": "as_strided of a view addresses the view's own elements, "
                                       "not its base's storage (no shared storage offsets)"},
    "max_pool2d_with_indices_backward": {"op": "an aten backward kernel, not a user-facing op"},
    # ops and options not built
    "nn.functional.fractional_max_pool2d": {"op": NOT_BUILT},
    "nn.functional.fractional_max_pool3d": {"op": NOT_BUILT},
    "nn.functional.multi_head_attention_forward": {"op": NOT_BUILT + " (nn.MultiheadAttention is)"},
    "pca_lowrank": {"op": NOT_BUILT},
    "svd_lowrank": {"op": NOT_BUILT},
    "resize_as_": {"op": NOT_BUILT},
    "nn.functional.grid_sample": {"op": "mode='bicubic': " + NOT_BUILT},
    "nn.functional.interpolate.area": {"op": "mode='area' of 5-d inputs: " + NOT_BUILT},
    "normal.number_mean": {"op": "normal(mean, std, size, layout=...): layout= " + NOT_BUILT},
    "nn.functional.ctc_loss": {"grad": "zero_infinity=True: gradients of finite losses differ "
                                       "from torch's by ~1e-6 relative; " + NOT_BUILT},
    "cholesky_inverse": {"grad": "the gradient is taken with respect to the triangle only "
                                 "(torch's flows into the unused triangle too)"},
    "cholesky_solve": {"grad": "the gradient is taken with respect to the triangle only "
                               "(torch's flows into the unused triangle too)"},
    "as_strided_scatter": {"grad": "torch 2.13's gradient for `input` is wrong (it zeroes other "
                                   "positions than those src overwrites; torch's own gradcheck "
                                   "fails): fluxgrad's is the true one"},
    # input checks not built (torch raises, fluxgrad computes or raises another type)
    "multinomial": {"errors": "integer weights raise TypeError (torch: RuntimeError); an int64 "
                              "out= isn't checked"},
    "amax": {"errors": "a 65-d tensor: NumPy's limit of 64 dimensions raises ValueError"},
    "amin": {"errors": "a 65-d tensor: NumPy's limit of 64 dimensions raises ValueError"},
    "aminmax": {"errors": "a 65-d tensor: NumPy's limit of 64 dimensions raises ValueError"},
    "narrow_copy": {"errors": "an out-of-range dim raises IndexError (torch's narrow_copy: "
                              "RuntimeError, its narrow: IndexError)"},
    "trace": {"errors": "a 3-d input is PaddlePaddle's trace over axes 0 and 1 (the signatures "
                        "clash: docs/porting-from-pytorch.md)"},
    # edge cases
    "nn.functional.triplet_margin_with_distance_loss": {
        "op": "its samples pass torch's nn.PairwiseDistance module as distance_function, which "
              "this sweep doesn't translate"},
    # deliberate, documented
    "topk": {"int64": TIES},
    "kthvalue": {"int64": TIES},
    "mode": {"int64": TIES},
    "sort": {"bool": TIES},
    "argsort": {"bool": TIES},
    "gather": {"errors": "an out= of another dtype is cast into (torch: RuntimeError)"},
    "tensordot": {"op": "contracting a size-1 dimension with a larger one: fluxgrad refuses it "
                        "(torch broadcasts)"},
    "matrix_exp": {"float32": "float32 rounding: fluxgrad's Pade approximant differs from torch's "
                              "by 4e-4 on one element"},
}


def _attr_path(root, dotted):
    obj = root
    for part in dotted.split("."):
        obj = getattr(obj, part, None)
        if obj is None:
            return None
    return obj


_TORCH_MODULES = {torch: fluxgrad, torch.nn.functional: fluxgrad.nn.functional,
                  torch.linalg: fluxgrad.linalg, torch.special: fluxgrad.special}


def rebind(fn):
    """A Python function from torch's test code with the torch modules it names (globals and
    closures, recursively) replaced by fluxgrad's: `lambda x, n: torch.polygamma(n, x)` becomes
    `lambda x, n: fluxgrad.polygamma(n, x)`."""
    if not isinstance(fn, types.FunctionType) or not fn.__module__.startswith("torch.testing"):
        return fn
    scope = {name: _TORCH_MODULES.get(value, value) if isinstance(value, types.ModuleType)
             else value for name, value in fn.__globals__.items()}
    scope["wrapper_set_seed"] = lambda op, *args, **kwargs: op(*args, **kwargs)
    closure = fn.__closure__ and tuple(types.CellType(rebind(c.cell_contents))
                                       for c in fn.__closure__)
    return types.FunctionType(fn.__code__, scope, fn.__name__, fn.__defaults__, closure)


def public(info):
    """Whether torch offers the op to users (not a private aten kernel)."""
    private = info.name.startswith("_") and not info.name.startswith("__")
    return not private and (_attr_path(torch, info.name) is not None
                            or hasattr(torch.Tensor, info.name)
                            or hasattr(torch.Tensor, info.name + "_"))


def counterpart(info):
    """fluxgrad's callable for an OpInfo, or None when fluxgrad has none."""
    if not public(info):
        return None
    if isinstance(info.op, types.FunctionType) and info.op.__module__.startswith("torch.testing"):
        return rebind(info.op)
    fn = _attr_path(fluxgrad, info.name)
    if callable(fn):
        return fn
    method = info.name.rsplit(".", 1)[-1]
    if info.method_variant is not None and callable(getattr(fluxgrad.Tensor, method, None)):
        return lambda x, *args, **kwargs: getattr(x, method)(*args, **kwargs)
    return None


def key(info):
    return f"{info.name}.{info.variant_test_name}" if info.variant_test_name else info.name


def to_fluxgrad(obj, leaves):
    """A torch sample with every tensor replaced by a fluxgrad tensor (the grad leaves collected
    in `leaves` in the order they appear)."""
    if isinstance(obj, torch.Tensor):
        t = fluxgrad.tensor(obj.detach().numpy(force=True).copy())
        if obj.requires_grad:
            t.requires_grad_()
            leaves.append(t)
        return t
    if isinstance(obj, torch.dtype):
        return getattr(fluxgrad, str(obj).split(".")[1])
    if isinstance(obj, torch.Size):
        return tuple(obj)
    if isinstance(obj, torch.device):
        return str(obj)
    if isinstance(obj, (types.BuiltinFunctionType, types.FunctionType)):
        # a function passed as an argument (triplet_margin_with_distance_loss's distance)
        if obj.__module__.startswith("torch.testing"):
            return rebind(obj)
        return (getattr(fluxgrad.nn.functional, obj.__name__, None)
                or getattr(fluxgrad, obj.__name__))
    if isinstance(obj, (list, tuple)) and not hasattr(obj, "_fields"):
        return type(obj)(to_fluxgrad(o, leaves) for o in obj)
    if isinstance(obj, dict):
        return {k: to_fluxgrad(v, leaves) for k, v in obj.items()}
    return obj


def torch_leaves(obj, leaves):
    if isinstance(obj, torch.Tensor):
        if obj.requires_grad and obj.is_leaf:
            leaves.append(obj)
    elif isinstance(obj, (list, tuple)):
        for o in obj:
            torch_leaves(o, leaves)
    elif isinstance(obj, dict):
        for o in obj.values():
            torch_leaves(o, leaves)
    return leaves


def flat(out):
    if isinstance(out, (list, tuple)):
        return [x for o in out for x in flat(o)]
    return [out]


def assert_same(what, ours, theirs, *, values=True, rtol=1e-5, atol=1e-6):
    if isinstance(theirs, torch.Tensor):
        assert isinstance(ours, fluxgrad.Tensor), \
            f"{what}: got {type(ours).__name__}, torch a Tensor"
        assert tuple(ours.shape) == tuple(theirs.shape), \
            f"{what}: shape {tuple(ours.shape)} != torch's {tuple(theirs.shape)}"
        assert str(theirs.dtype) == f"torch.{ours.dtype.name}", \
            f"{what}: dtype {ours.dtype} != torch's {theirs.dtype}"
        if values:
            a, b = ours.detach().numpy(), theirs.detach().numpy(force=True)
            if b.dtype.kind in "fc":  # (complex: compared as its parts' float dtype)
                single = b.dtype in (np.float32, np.complex64)
                tol = 10 * rtol if single else rtol
                np.testing.assert_allclose(a, b, rtol=tol, atol=1e-4 if single else atol,
                                           equal_nan=True, err_msg=what)
            else:
                np.testing.assert_array_equal(a, b, err_msg=what)
    elif isinstance(theirs, (list, tuple)):
        assert isinstance(ours, (list, tuple)), \
            f"{what}: got {type(ours).__name__}, torch a sequence"
        assert len(ours) == len(theirs), f"{what}: {len(ours)} outputs, torch {len(theirs)}"
        for i, (o, t) in enumerate(zip(ours, theirs)):
            assert_same(f"{what}[{i}]", o, t, values=values, rtol=rtol, atol=atol)
    elif isinstance(theirs, (bool, int, float)) and values:
        if isinstance(ours, fluxgrad.Tensor):
            ours = ours.item()
        assert ours == pytest.approx(theirs, rel=rtol, nan_ok=True), f"{what}: {ours} != {theirs}"


def weighted_sum(lib, outs, rng):
    total = None
    for o in outs:
        if isinstance(o, lib.Tensor) and o.requires_grad and o.dtype == lib.float64:
            w = lib.tensor(rng.standard_normal(tuple(o.shape)))
            term = (o * w).sum()
            total = term if total is None else total + term
    return total


def to_torch(obj):
    if isinstance(obj, fluxgrad.Tensor):
        return torch.from_numpy(np.array(obj.detach().numpy()))
    if isinstance(obj, (list, tuple)):
        return (tuple if hasattr(obj, "_fields") else type(obj))(map(to_torch, obj))
    return obj


def check_sample(info, fn, sample, *, grads):
    """Run one SampleInput through torch and fluxgrad; raise AssertionError on a difference.

    Outputs pass through the sample's `output_process_fn_grad` first (torch's own way of making
    outputs unique: singular vectors up to sign, eigenvectors up to phase)."""
    ours_leaves = []
    x = to_fluxgrad(sample.input, ours_leaves)
    args = to_fluxgrad(sample.args, ours_leaves)
    kwargs = to_fluxgrad(sample.kwargs, ours_leaves)
    theirs = info.op(sample.input, *sample.args, **sample.kwargs)
    ours = fn(x, *args, **kwargs)
    random = info.name in RANDOM_OPS or sample.kwargs.get("dropout_p", 0) > 0
    assert_same(key(info), ours, theirs, values=False)
    process = sample.output_process_fn_grad
    if not random:
        assert_same(key(info), to_fluxgrad(process(to_torch(ours)), []), process(theirs))
    if not grads or random:
        return
    t_loss = weighted_sum(torch, flat(process(theirs)), np.random.default_rng(0))
    t_leaves = torch_leaves([sample.input, sample.args, sample.kwargs], [])
    if t_loss is None or not t_leaves:
        return
    try:
        t_grads = torch.autograd.grad(t_loss, t_leaves, allow_unused=True)
    except (RuntimeError, NotImplementedError):  # no derivative in torch: nothing to compare
        return
    o_loss = weighted_sum(fluxgrad, flat(rebind(process)(ours)), np.random.default_rng(0))
    o_grads = ([None] * len(ours_leaves) if o_loss is None else
               fluxgrad.autograd.grad(o_loss, ours_leaves, allow_unused=True))
    assert len(ours_leaves) == len(t_leaves)
    for i, (o, t) in enumerate(zip(o_grads, t_grads)):
        if t is None:
            continue
        if o is None:
            o = fluxgrad.zeros(tuple(t.shape), dtype=fluxgrad.float64)
        assert_same(f"{key(info)} grad {i}", o, t, rtol=1e-5, atol=1e-7)


def samples(info, dtype, limit):
    grads = dtype == torch.float64 and info.supports_autograd
    gen = info.sample_inputs("cpu", dtype, requires_grad=grads)
    for i, s in enumerate(gen):
        if limit is not None and i >= limit:
            return
        yield s, grads


def _holds(obj, test):
    if isinstance(obj, (list, tuple)):
        return any(_holds(o, test) for o in obj)
    if isinstance(obj, dict):
        return any(_holds(o, test) for o in obj.values())
    return test(obj)


def error_checked(e):
    """Whether an ErrorInput shows a mistake fluxgrad must refuse too. Left out: complex values
    and dtypes fluxgrad doesn't have (bfloat16, complex), tensors on other devices (fluxgrad has
    the CPU only), `out=` tensors that overlap the inputs (fluxgrad doesn't track memory
    overlap) and Python numbers in place of tensors (accepted, docs/porting-from-pytorch.md)."""
    s = e.sample_input
    parts = [s.input, s.args, s.kwargs]
    if _holds(parts, lambda o: isinstance(o, complex) or (isinstance(o, torch.Tensor) and (
            o.is_complex() or o.device.type != "cpu")) or (
            isinstance(o, torch.dtype) and not hasattr(fluxgrad, str(o)[6:]))):
        return False
    overlap = ("unsupported operation", "single memory location")
    if "out" in s.kwargs and any(text in str(e.error_regex) for text in overlap):
        return False
    numbers = not isinstance(s.input, torch.Tensor) or _holds(
        s.args, lambda o: isinstance(o, (int, float)))
    return not (e.error_type is Exception and numbers)


def check_errors(info, fn, limit):
    if info.error_inputs_func is None:
        return
    errors = [e for e in info.error_inputs("cpu") if error_checked(e)]
    for e in errors[:limit]:
        s = e.sample_input
        leaves = []
        x, args, kwargs = (to_fluxgrad(v, leaves) for v in (s.input, s.args, s.kwargs))
        with pytest.raises(e.error_type):
            fn(x, *args, **kwargs)


def mapped():
    return [(info, fn) for info in op_db if (fn := counterpart(info)) is not None]


MAPPED = mapped()
CHECKED = [(info, fn) for info, fn in MAPPED if "op" not in KNOWN_DIFFERENCES.get(key(info), {})]


@pytest.mark.parametrize("info,fn", CHECKED, ids=[key(i) for i, _ in CHECKED])
def test_opinfo(info, fn):
    known = KNOWN_DIFFERENCES.get(key(info), {})
    for dtype in DTYPES:
        if not info.supports_dtype(dtype, "cpu") or str(dtype)[6:] in known:
            continue
        with np.errstate(all="ignore"):
            for s, grads in samples(info, dtype, SAMPLES_PER_DTYPE):
                check_sample(info, fn, s, grads=grads and "grad" not in known)
    if "errors" not in known:
        check_errors(info, fn, ERROR_SAMPLES)


def test_every_known_difference_names_an_opinfo():
    names = {key(info) for info in op_db}
    assert not set(KNOWN_DIFFERENCES) - names


def sweep(prefix=""):
    failures = collections.defaultdict(list)
    passed = total = 0
    for info, fn in MAPPED:
        if not key(info).startswith(prefix):
            continue
        for dtype in DTYPES:
            if not info.supports_dtype(dtype, "cpu"):
                continue
            try:
                sample_list = list(samples(info, dtype, None))
            except Exception as exc:  # torch's own generator failing is torch's business
                failures[key(info)].append(f"sample_inputs {dtype}: {exc!r}"[:200])
                continue
            for s, grads in sample_list:
                total += 1
                try:
                    with np.errstate(all="ignore"):
                        check_sample(info, fn, s, grads=grads)
                    passed += 1
                except Exception as exc:
                    msg = f"{str(dtype)[6:]}: {type(exc).__name__}: {exc}".replace("\n", " ")
                    failures[key(info)].append(msg[:300])
        try:
            check_errors(info, fn, None)
        except BaseException as exc:
            msg = f"errors: {type(exc).__name__}: {exc}".replace("\n", " ")
            failures[key(info)].append(msg[:300])
    for name, msgs in sorted(failures.items()):
        print(f"{name}  ({len(msgs)})  {msgs[0]}")
    unmapped = [key(i) for i in op_db if counterpart(i) is None]
    print(f"\n{len(MAPPED)} of {len(op_db)} OpInfos mapped; {passed}/{total} samples pass; "
          f"{len(failures)} ops with a difference")
    print("unmapped:", " ".join(unmapped))


if __name__ == "__main__":
    sweep(sys.argv[1] if len(sys.argv) > 1 else "")
