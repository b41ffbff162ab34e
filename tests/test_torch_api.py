"""PyTorch's API as PyTorch code calls it: positional forms where PyTorch's and PaddlePaddle's
signatures clash, legacy names, devices, Size and dtypes, utils.data, Module.parameters().

Expected values come from torch (the test-only reference)."""
import os
import pathlib
import subprocess
import sys

import numpy as np
import pytest
import torch
import torch.nn.functional as TF

import fluxgrad as fg
import fluxgrad.nn.functional as F

x34 = np.arange(12, dtype=np.float32).reshape(3, 4) - 5
x234 = np.arange(24, dtype=np.float32).reshape(2, 3, 4) - 7
idx = np.array([[0, 1], [2, 0], [1, 1]])


def _t(lib, a):
    return lib.tensor(a)


def _F(lib):
    return F if lib is fg else TF


POSITIONAL = {
 "randint(high, size)": lambda L: L.randint(10, (64,)),
 "randint(low, high, size)": lambda L: L.randint(3, 10, (2, 2)),
 "full": lambda L: L.full((2, 3), 1.5),
 "full int": lambda L: L.full((2,), 7),
 "arange(end)": lambda L: L.arange(5),
 "arange(start,end,step)": lambda L: L.arange(1, 2, 0.25),
 "linspace": lambda L: L.linspace(0, 1, 5),
 "zeros(*size)": lambda L: L.zeros(2, 3),
 "zeros(size)": lambda L: L.zeros((2, 3)),
 "eye(n,m)": lambda L: L.eye(2, 3),
 "split(int)": lambda L: L.split(_t(L, x34), 2, 1),
 "split(list)": lambda L: L.split(_t(L, x34), [1, 3], 1),
 "Tensor.split": lambda L: _t(L, x34).split(3, 1),
 "chunk": lambda L: L.chunk(_t(L, x34), 2, 1),
 "norm(p)": lambda L: L.norm(_t(L, x34), 1),
 "norm(p,dim)": lambda L: L.norm(_t(L, x34), 2, 1),
 "norm(p,dim,keepdim)": lambda L: L.norm(_t(L, x34), 2, 1, True),
 "cat": lambda L: L.cat([_t(L, x34), _t(L, x34)], 1),
 "concat": lambda L: L.concat([_t(L, x34), _t(L, x34)], 1),
 "stack": lambda L: L.stack([_t(L, x34), _t(L, x34)], 1),
 "transpose": lambda L: L.transpose(_t(L, x234), 0, 2),
 "flatten": lambda L: L.flatten(_t(L, x234), 1),
 "flatten(start,end)": lambda L: L.flatten(_t(L, x234), 0, 1),
 "sum(dim,keepdim)": lambda L: L.sum(_t(L, x34), 1, True),
 "mean(dim,keepdim)": lambda L: L.mean(_t(L, x34), 0, True),
 "std(dim)": lambda L: L.std(_t(L, x34), 1),
 "var(dim,unbiased)": lambda L: L.var(_t(L, x34), 1, False),
 "prod(dim)": lambda L: L.prod(_t(L, x34), 1),
 "max(dim)": lambda L: tuple(L.max(_t(L, x34), 1)),
 "min(dim,keepdim)": lambda L: tuple(L.min(_t(L, x34), 0, True)),
 "max(x,y)": lambda L: L.max(_t(L, x34), _t(L, -x34)),
 "argmax(dim)": lambda L: L.argmax(_t(L, x34), 1),
 "argmin(dim,keepdim)": lambda L: L.argmin(_t(L, x34), 1, True),
 "sort(dim)": lambda L: tuple(L.sort(_t(L, x34), 0)),
 "sort(dim,descending)": lambda L: tuple(L.sort(_t(L, x34), 1, True)),
 "argsort(dim)": lambda L: L.argsort(_t(L, x34), 0),
 "topk(k,dim)": lambda L: tuple(L.topk(_t(L, x34), 2, 0)),
 "cumsum(dim)": lambda L: L.cumsum(_t(L, x34), 1),
 "cumprod(dim)": lambda L: L.cumprod(_t(L, x34), 0),
 "logsumexp(dim)": lambda L: L.logsumexp(_t(L, x34), 1),
 "gather(dim,index)": lambda L: L.gather(_t(L, x34), 1, _t(L, idx)),
 "index_select(dim,index)": lambda L: L.index_select(_t(L, x34), 1, _t(L, np.array([0, 2]))),
 "scatter(dim,index,src)": lambda L: L.scatter(_t(L, np.zeros((3, 4), np.float32)), 1,
                                               _t(L, idx[:, :1]), _t(L, x34)),
 "index_add(dim,index,source)": lambda L: L.index_add(_t(L, x34), 0, _t(L, np.array([0, 2])),
                                                     _t(L, x34[:2])),
 "squeeze(dim)": lambda L: L.squeeze(_t(L, x34[None]), 0),
 "unsqueeze(dim)": lambda L: L.unsqueeze(_t(L, x34), 1),
 "reshape": lambda L: L.reshape(_t(L, x34), (4, 3)),
 "Tensor.view(*shape)": lambda L: _t(L, x34).view(2, 6),
 "Tensor.reshape(*shape)": lambda L: _t(L, x34).reshape(2, 6),
 "Tensor.permute(*dims)": lambda L: _t(L, x234).permute(2, 0, 1),
 "permute(dims)": lambda L: L.permute(_t(L, x234), (2, 0, 1)),
 "Tensor.expand(*sizes)": lambda L: _t(L, x34[:1]).expand(3, 4),
 "Tensor.repeat(*sizes)": lambda L: _t(L, x34).repeat(2, 1),
 "tile(dims)": lambda L: L.tile(_t(L, x34), (1, 2)),
 "roll(shifts,dims)": lambda L: L.roll(_t(L, x34), 1, 1),
 "flip(dims)": lambda L: L.flip(_t(L, x34), (0,)),
 "diagonal(offset,dim1,dim2)": lambda L: L.diagonal(_t(L, x234), 0, 1, 2),
 "tril(diagonal)": lambda L: L.tril(_t(L, x34), 1),
 "triu(diagonal)": lambda L: L.triu(_t(L, x34), -1),
 "clamp(min,max)": lambda L: L.clamp(_t(L, x34), -1, 2),
 "clip(min,max)": lambda L: L.clip(_t(L, x34), -1, 2),
 "where": lambda L: L.where(_t(L, x34) > 0, _t(L, x34), _t(L, -x34)),
 "masked_fill": lambda L: L.masked_fill(_t(L, x34), _t(L, x34) > 0, 0.0),
 "unbind(dim)": lambda L: L.unbind(_t(L, x34), 1),
 "narrow": lambda L: L.narrow(_t(L, x34), 1, 1, 2),
 "repeat_interleave(repeats,dim)": lambda L: L.repeat_interleave(_t(L, x34), 2, 0),
 "matmul": lambda L: L.matmul(_t(L, x34), _t(L, x34.T.copy())),
 "pow(x,y)": lambda L: L.pow(_t(L, x34), 2),
 "add(x,y,alpha)": lambda L: L.add(_t(L, x34), _t(L, x34), alpha=2),
 "sub(x,y)": lambda L: L.sub(_t(L, x34), 1),
 "div(rounding_mode)": lambda L: L.div(_t(L, x34), 3, rounding_mode="floor"),
 "lerp": lambda L: L.lerp(_t(L, x34), _t(L, -x34), 0.25),
 "diff(n,dim)": lambda L: L.diff(_t(L, x34), 1, 0),
 "cross(dim)": lambda L: L.cross(_t(L, x34[:, :3]), _t(L, x34[:, 1:]), 1),
 "einsum": lambda L: L.einsum("ij,kj->ik", _t(L, x34), _t(L, x34)),
 "softmax(dim)": lambda L: L.softmax(_t(L, x34), 1),
 "log_softmax(dim)": lambda L: L.log_softmax(_t(L, x34), 0),
 "F.softmax(x, dim)": lambda L: _F(L).softmax(_t(L, x34), 1),
 "F.dropout(x, p, training)": lambda L: _F(L).dropout(_t(L, x34), 0.0, True),
 "F.pad(x, pad)": lambda L: _F(L).pad(_t(L, x34), (1, 2)),
 "F.pad(x, pad 4)": lambda L: _F(L).pad(_t(L, x34), (1, 2, 0, 1)),
 "F.pad(x, pad, mode, value)": lambda L: _F(L).pad(_t(L, x34), (1, 1), "constant", 3.0),
 "F.linear(x, w, b)": lambda L: _F(L).linear(_t(L, x34), _t(L, x34[:2]), _t(L, x34[0, :2])),
 "F.normalize(x, p, dim)": lambda L: _F(L).normalize(_t(L, x34), 1, 0),
 "F.cross_entropy": lambda L: _F(L).cross_entropy(_t(L, x34), _t(L, np.array([0, 3, 1]))),
 "Tensor.size(dim)": lambda L: _t(L, x34).size(1),
 "Tensor.type()": lambda L: _t(L, x34).type(),
 "Tensor(list)": lambda L: L.Tensor([0, 1]),
 "Tensor(*sizes).shape": lambda L: tuple(L.Tensor(1, 5).shape),
 "nonzero": lambda L: L.nonzero(_t(L, x34)),
 "multinomial shape": lambda L: L.multinomial(_t(L, np.ones((2, 4), np.float32)), 3).shape,
 "randperm shape": lambda L: L.randperm(5).shape,
 "normal(mean,std,size)": lambda L: L.normal(0.0, 1.0, (2, 3)).shape,
 "kthvalue(k,dim)": lambda L: tuple(L.kthvalue(_t(L, x34), 2, 1)),
 "amax(dim)": lambda L: L.amax(_t(L, x34), 1),
 "all(dim)": lambda L: L.all(_t(L, x34) > -10, 1),
 "any(dim)": lambda L: L.any(_t(L, x34) > 5, 1),
 "bmm": lambda L: L.bmm(_t(L, x234), _t(L, x234.transpose(0, 2, 1).copy())),
 "take_along_dim": lambda L: L.take_along_dim(_t(L, x34), _t(L, idx), 1),
 "movedim": lambda L: L.movedim(_t(L, x234), 0, 2),
 "swapaxes": lambda L: L.swapaxes(_t(L, x234), 0, 2),
 "expand_as": lambda L: _t(L, x34[:1]).expand_as(_t(L, x34)),
 "hstack": lambda L: L.hstack([_t(L, x34), _t(L, x34)]),
 "vstack": lambda L: L.vstack([_t(L, x34[0]), _t(L, x34[1])]),
 "dstack": lambda L: L.dstack([_t(L, x34), _t(L, x34)]),
 "column_stack": lambda L: L.column_stack([_t(L, x34[0]), _t(L, x34[1])]),
}

def _plain(v):
    """Results as nested lists of (array, dtype name), tuples of ints, or Python values."""
    if isinstance(v, (tuple, list)) and not isinstance(v, (torch.Size, fg.Size)):
        return [_plain(a) for a in v]
    if isinstance(v, (torch.Tensor, fg.Tensor)):
        return (np.asarray(v.detach().numpy()), str(v.dtype).split(".")[-1])
    if isinstance(v, (torch.Size, fg.Size)):
        return tuple(v)
    return v


def _assert_same(ours, theirs, random):
    if isinstance(theirs, list):
        assert isinstance(ours, list) and len(ours) == len(theirs)
        for o, t in zip(ours, theirs):
            _assert_same(o, t, random)
    elif isinstance(theirs, tuple) and len(theirs) == 2 and isinstance(theirs[0], np.ndarray):
        assert ours[1] == theirs[1] and ours[0].shape == theirs[0].shape
        if not random:
            np.testing.assert_allclose(ours[0], theirs[0], rtol=1e-5, atol=1e-6)
    else:
        assert ours == theirs


@pytest.mark.parametrize("name", list(POSITIONAL))
def test_pytorch_positional_form_gives_pytorch_result(name):
    call = POSITIONAL[name]
    _assert_same(_plain(call(fg)), _plain(call(torch)), random=name.startswith("rand"))


@pytest.mark.parametrize("call, shape, dtype", [
    (lambda: fg.randint(low=2, high=5, shape=[3]), (3,), fg.int64),
    (lambda: fg.randint(2, 5, [2, 2]), (2, 2), fg.int64),
    (lambda: fg.zeros([2, 3], "float64"), (2, 3), fg.float64),
    (lambda: fg.ones([2], "int64"), (2,), fg.int64),
    (lambda: fg.rand([2, 3], "float64"), (2, 3), fg.float64),
    (lambda: fg.randn([4], "float64"), (4,), fg.float64),
    (lambda: fg.sum(fg.ones(3, 4), 0, "int64"), (4,), fg.int64),
    (lambda: fg.full([2], 1.0, "float64"), (2,), fg.float64),
    (lambda: fg.arange(0, 5, 1, "int32"), (5,), fg.int32),
    (lambda: fg.transpose(fg.zeros(2, 3, 4), [2, 0, 1]), (4, 2, 3), fg.float32),
    (lambda: fg.split(fg.zeros(6, 2), num_or_sections=3)[0], (2, 2), fg.float32),
    (lambda: fg.flatten(fg.zeros(2, 3, 4), start_axis=1, stop_axis=2), (2, 12), fg.float32),
    (lambda: fg.concat([fg.zeros(2), fg.zeros(3)], axis=0), (5,), fg.float32),
    (lambda: fg.gather(fg.zeros(3, 4), fg.tensor([0, 2]), axis=1), (3, 2), fg.float32),
])
def test_paddle_forms_keep_working(call, shape, dtype):
    out = call()
    assert out.shape == shape and out.dtype == dtype


def test_randint_values_lie_in_the_range():
    fg.manual_seed(0)
    values = fg.randint(3, 10, (2000,)).detach().numpy()
    assert values.min() == 3 and values.max() == 9
    assert fg.randint(10, (64,)).shape == (64,)


def test_randint_with_an_empty_range_raises():
    with pytest.raises(ValueError, match="empty"):
        fg.randint(5, 5, (2,))


def test_legacy_tensor_constructor_matches_torch():
    for args in [([0],), ([1, 2],), ([True, False],), (1, 5), (3,), ()]:
        ours, theirs = fg.Tensor(*args), torch.Tensor(*args)
        assert ours.shape == tuple(theirs.shape) and ours.dtype == fg.float32
        if args and isinstance(args[0], list):
            np.testing.assert_array_equal(ours.detach().numpy(), theirs.detach().numpy())
    assert fg.Tensor(fg.Size([2, 3])).shape == (2, 3)
    t = fg.Tensor([0])
    t += 0.5  # the float32 result fits, as in PyTorch
    assert t.tolist() == [0.5]


def test_tensor_of_an_array_keeps_its_dtype():
    assert fg.Tensor(np.arange(3)).dtype == fg.int64
    assert fg.Tensor([1, 2], dtype=fg.int64).dtype == fg.int64


@pytest.mark.parametrize("name", ["FloatTensor", "DoubleTensor", "HalfTensor", "LongTensor",
                                  "IntTensor", "ShortTensor", "CharTensor", "ByteTensor",
                                  "BoolTensor"])
def test_legacy_typed_tensors_construct_and_test_like_torch(name):
    ours, theirs = getattr(fg, name), getattr(torch, name)
    made, expected = ours([1, 0, 1]), theirs([1, 0, 1])
    assert str(made.dtype).split(".")[1] == str(expected.dtype).split(".")[1]
    assert made.tolist() == expected.tolist()
    assert ours(2, 3).shape == (2, 3) and ours().shape == tuple(theirs().shape)
    assert isinstance(made, ours) and isinstance(made, fg.Tensor)
    other = "FloatTensor" if name != "FloatTensor" else "LongTensor"
    assert not isinstance(made, getattr(fg, other))
    assert made.type() == expected.type()


def test_tensor_type_converts_by_legacy_name_or_dtype():
    x = fg.tensor([1.5, 2.5])
    assert x.type("torch.LongTensor").dtype == fg.int64
    assert x.type(fg.DoubleTensor).dtype == fg.float64
    assert x.type(fg.int32).dtype == fg.int32
    with pytest.raises(RuntimeError, match="CPU only"):
        x.type("torch.cuda.FloatTensor")
    with pytest.raises(RuntimeError, match="CPU only"):
        x.type(fg.cuda.FloatTensor)


def test_cuda_typed_tensors_match_nothing_and_refuse_construction():
    assert not isinstance(fg.ones(1), fg.cuda.FloatTensor)
    for lib in (fg, torch):  # a TypeError, as in PyTorch's CPU build
        with pytest.raises(TypeError, match="type torch.cuda.LongTensor not available. Torch "
                                            "not compiled with CUDA enabled"):
            lib.cuda.LongTensor([1])


CUDA_REQUESTS = {
    "Tensor.to('cuda')": lambda lib: lib.ones(2).to("cuda"),
    "Tensor.to(device('cuda:0'))": lambda lib: lib.ones(2).to(lib.device("cuda:0")),
    "Tensor.to('cuda', float64)": lambda lib: lib.ones(2).to("cuda", lib.float64),
    "Tensor.cuda()": lambda lib: lib.ones(2).cuda(),
    "ones(device='cuda')": lambda lib: lib.ones(2, device="cuda"),
    "tensor(device='cuda')": lambda lib: lib.tensor([1.0], device="cuda"),
    "Module.cuda()": lambda lib: lib.nn.Linear(2, 2).cuda(),
    "Module.to('cuda')": lambda lib: lib.nn.Linear(2, 2).to("cuda"),
    "cuda.current_device()": lambda lib: lib.cuda.current_device(),
    "cuda.synchronize()": lambda lib: lib.cuda.synchronize(),
    "cuda.get_device_properties(0)": lambda lib: lib.cuda.get_device_properties(0),
}


@pytest.mark.parametrize("case", list(CUDA_REQUESTS))
def test_asking_for_cuda_raises_as_pytorchs_cpu_build(case):
    for lib in (fg, torch):
        with pytest.raises(AssertionError, match="^Torch not compiled with CUDA enabled"):
            CUDA_REQUESTS[case](lib)
    with pytest.raises(RuntimeError, match="CPU only"):  # and says what to do
        CUDA_REQUESTS[case](fg)


def test_asking_for_mps_raises_as_pytorchs_cpu_build():
    for lib in (fg, torch):
        with pytest.raises(RuntimeError, match="PyTorch is not linked with support for mps "
                                               "devices"):
            lib.ones(2).to("mps")


def test_accelerator_queries_answer_as_pytorchs_cpu_build():
    for lib in (fg, torch):
        assert lib.cuda.is_available() is False and lib.cuda.device_count() == 0
        assert lib.backends.mps.is_available() is False
        assert lib.cuda.memory_allocated() == lib.cuda.max_memory_allocated() == 0
        assert lib.cuda.get_arch_list() == []
        assert lib.device("cuda:1").type == "cuda" and lib.device("cuda:1").index == 1
        with pytest.raises(RuntimeError, match="Tried to instantiate dummy base class Event"):
            lib.cuda.Event()


def test_variable_is_a_passthrough_leaf_sharing_data():
    from fluxgrad.autograd import Variable
    t = fg.ones(2)
    v = Variable(t, requires_grad=True)
    assert v.requires_grad and not t.requires_grad and isinstance(t, Variable)
    (v * 3).sum().backward()
    assert v.grad.tolist() == [3.0, 3.0]
    v.data[0] = 5
    assert t.tolist() == [5.0, 1.0]
    with pytest.warns(UserWarning, match="no_grad"):
        Variable(t, volatile=True)
    with pytest.raises(TypeError, match="fluxgrad.tensor"):
        Variable([1.0])


# --- devices -------------------------------------------------------------------------------
FACTORIES = {
    "tensor": lambda d: fg.tensor([1.0], device=d), "zeros": lambda d: fg.zeros(2, device=d),
    "ones": lambda d: fg.ones(2, device=d), "empty": lambda d: fg.empty(2, device=d),
    "full": lambda d: fg.full((2,), 1.0, device=d), "rand": lambda d: fg.rand(2, device=d),
    "randn": lambda d: fg.randn(2, device=d), "randint": lambda d: fg.randint(3, (2,), device=d),
    "randperm": lambda d: fg.randperm(3, device=d), "arange": lambda d: fg.arange(3, device=d),
    "linspace": lambda d: fg.linspace(0, 1, 3, device=d), "eye": lambda d: fg.eye(2, device=d),
    "zeros_like": lambda d: fg.zeros_like(fg.ones(2), device=d),
    "ones_like": lambda d: fg.ones_like(fg.ones(2), device=d),
    "full_like": lambda d: fg.full_like(fg.ones(2), 3, device=d),
    "empty_like": lambda d: fg.empty_like(fg.ones(2), device=d),
    "rand_like": lambda d: fg.rand_like(fg.ones(2), device=d),
    "randn_like": lambda d: fg.randn_like(fg.ones(2), device=d),
    "randint_like": lambda d: fg.randint_like(fg.ones(2), 5, device=d),
    "as_tensor": lambda d: fg.as_tensor([1.0], device=d),
    "normal": lambda d: fg.normal(0.0, 1.0, (2,), device=d),
    "new_zeros": lambda d: fg.ones(2).new_zeros(3, device=d),
}


@pytest.mark.parametrize("name", list(FACTORIES))
def test_factory_takes_the_cpu_and_refuses_cuda(name):
    for cpu in ("cpu", fg.device("cpu"), "cpu:0", None):
        assert FACTORIES[name](cpu).device == "cpu"
    with pytest.raises(RuntimeError, match="CPU only"):
        FACTORIES[name]("cuda")


def test_device_objects_behave_like_torch():
    d = fg.device("cuda:1")
    assert (d.type, d.index, str(d)) == ("cuda", 1, "cuda:1")
    assert fg.device("cpu") == "cpu" and fg.ones(1).device.type == "cpu"
    assert str(fg.ones(1).device) == str(torch.ones(1).device)
    with pytest.raises(RuntimeError, match="unknown device"):
        fg.device("tpu")


def test_the_usual_device_line_picks_the_cpu():
    device = fg.device("cuda" if fg.cuda.is_available() else "cpu")
    x = fg.ones(2, device=device).to(device)
    assert device.type == "cpu" and x.device == device
    assert fg.cuda.device_count() == 0 and not fg.backends.mps.is_available()
    assert not fg.backends.cudnn.is_available() and not fg.accelerator.is_available()
    assert fg.accelerator.current_accelerator() is None
    fg.backends.cudnn.benchmark = True  # tutorials set it; it changes nothing


@pytest.mark.parametrize("move", [lambda t: t.to("cuda"), lambda t: t.cuda(),
                                  lambda t: t.to(device="cuda:0"),
                                  lambda t: t.to("cuda", fg.float64)])
def test_tensor_to_cuda_says_fluxgrad_runs_on_the_cpu(move):
    x = fg.ones(2)
    with pytest.raises(RuntimeError, match="CPU only"):
        move(x)
    assert x.dtype == fg.float32


@pytest.mark.parametrize("move", [lambda m: m.to("cuda"), lambda m: m.cuda(),
                                  lambda m: m.to(fg.device("cuda"))])
def test_module_to_cuda_says_fluxgrad_runs_on_the_cpu(move):
    model = fg.nn.Linear(2, 3)
    with pytest.raises(RuntimeError, match="CPU only"):
        move(model)


def test_module_to_cpu_and_dtype():
    model = fg.nn.Linear(2, 3)
    assert model.to("cpu") is model and model.cpu() is model
    assert model.to("cpu", fg.float64).weight.dtype == fg.float64
    assert model.to(fg.zeros(1)).weight.dtype == fg.float32
    with pytest.raises(TypeError, match="floating"):
        model.to(fg.int64)


def test_paddle_device_functions():
    assert not fg.is_compiled_with_cuda() and not fg.device.is_compiled_with_cuda()
    assert fg.device.set_device("cpu") == "cpu" and fg.device.get_device() == "cpu"
    assert fg.device.cuda.device_count() == 0
    assert fg.set_device("cpu") == "cpu" and fg.get_device() == "cpu"
    fg.set_default_device("cpu")
    with pytest.raises(RuntimeError, match="CPU only"):
        fg.set_device("gpu:0")
    with pytest.raises(RuntimeError, match="CPU only"):
        fg.set_default_device("cuda")


# --- Size, dtypes, modes -------------------------------------------------------------------
def test_shape_is_a_size_printing_like_torch():
    shape = fg.zeros(64, 1, 28, 28).shape
    assert isinstance(shape, fg.Size) and isinstance(shape, tuple)
    assert repr(shape) == repr(torch.zeros(64, 1, 28, 28).shape).replace("torch", "fluxgrad")
    assert shape == (64, 1, 28, 28) and shape[1:] == fg.Size([1, 28, 28])
    assert isinstance(shape[1:], fg.Size) and shape.numel() == 64 * 28 * 28
    assert fg.zeros(2, 3).size() == (2, 3) and fg.zeros(2, 3).size(1) == 3


def test_dtypes_are_dtype_objects():
    for name in ("float16", "float32", "float64", "uint8", "int8", "int16", "int32", "int64",
                 "bool"):
        ours, theirs = getattr(fg, name), getattr(torch, name)
        assert isinstance(ours, fg.dtype)
        assert ours.is_floating_point == theirs.is_floating_point
        assert ours.is_signed == theirs.is_signed and ours.itemsize == theirs.itemsize
    assert fg.half is fg.float16 and fg.short is fg.int16


@pytest.mark.parametrize("a, b", [("int8", "uint8"), ("uint8", "int16"), ("float16", "int64"),
                                  ("uint8", "bool"), ("float16", "float32"), ("int8", "int8")])
def test_small_dtypes_promote_as_in_torch(a, b):
    ours = fg.ones(2, dtype=getattr(fg, a)) + fg.ones(2, dtype=getattr(fg, b))
    theirs = torch.ones(2, dtype=getattr(torch, a)) + torch.ones(2, dtype=getattr(torch, b))
    assert str(ours.dtype).split(".")[1] == str(theirs.dtype).split(".")[1]


def test_half_and_small_int_conversions():
    x = fg.tensor([1.5, -2.0])
    assert x.half().dtype == fg.float16 and x.byte().dtype == fg.uint8
    assert x.char().dtype == fg.int8 and x.short().dtype == fg.int16
    h = fg.tensor([1.0, 2.0], dtype=fg.float16, requires_grad=True)
    (h * h).sum().backward()
    assert h.grad.dtype == fg.float16 and h.grad.tolist() == [2.0, 4.0]


@pytest.mark.parametrize("name", ["float16", "float32", "float64"])
def test_finfo_matches_torch(name):
    ours, theirs = fg.finfo(getattr(fg, name)), torch.finfo(getattr(torch, name))
    for field in ("bits", "eps", "max", "min", "tiny", "resolution"):
        assert getattr(ours, field) == pytest.approx(getattr(theirs, field))


@pytest.mark.parametrize("name", ["uint8", "int8", "int16", "int32", "int64"])
def test_iinfo_matches_torch(name):
    ours, theirs = fg.iinfo(getattr(fg, name)), torch.iinfo(getattr(torch, name))
    assert (ours.bits, ours.max, ours.min) == (theirs.bits, theirs.max, theirs.min)


def test_finfo_and_iinfo_refuse_the_other_kind():
    with pytest.raises(TypeError, match="iinfo"):
        fg.finfo(fg.int32)
    with pytest.raises(TypeError, match="finfo"):
        fg.iinfo(fg.float32)


def test_set_default_dtype_changes_float_factories():
    assert fg.get_default_dtype() == fg.float32
    fg.set_default_dtype(fg.float64)
    try:
        assert fg.zeros(2).dtype == fg.float64 and fg.tensor([1.5]).dtype == fg.float64
        assert fg.Tensor([1]).dtype == fg.float64 and fg.finfo().bits == 64
    finally:
        fg.set_default_dtype(fg.float32)
    with pytest.raises(TypeError, match="floating"):
        fg.set_default_dtype(fg.int64)


def test_inference_mode_records_no_graph():
    x = fg.ones(2, requires_grad=True)
    with fg.inference_mode():
        assert not (x * 2).requires_grad
    with fg.inference_mode(False):
        assert (x * 2).requires_grad

    @fg.inference_mode()
    def f(t):
        return t * 2
    assert not f(x).requires_grad and (x * 2).requires_grad


@pytest.mark.parametrize("name, shapes", [
    ("hstack", [(3,), (2,)]), ("hstack", [(2, 3), (2, 1)]), ("vstack", [(3,), (3,)]),
    ("vstack", [(2, 3), (1, 3)]), ("dstack", [(3,), (3,)]), ("dstack", [(2, 3), (2, 3)]),
    ("column_stack", [(3,), (3, 2)]), ("column_stack", [(), ()]),
])
def test_stacking_functions_match_torch_values_and_gradients(name, shapes):
    arrays = [np.random.default_rng(i).standard_normal(s) for i, s in enumerate(shapes)]
    ours = [fg.tensor(a, requires_grad=True) for a in arrays]
    theirs = [torch.tensor(a, requires_grad=True) for a in arrays]
    out, expected = getattr(fg, name)(ours), getattr(torch, name)(theirs)
    np.testing.assert_allclose(out.detach().numpy(), expected.detach().numpy())
    weight = np.arange(out.numel(), dtype=np.float64).reshape(out.shape)
    (out * fg.tensor(weight)).sum().backward()
    (expected * torch.tensor(weight)).sum().backward()
    for o, t in zip(ours, theirs):
        np.testing.assert_allclose(o.grad.detach().numpy(), t.grad.detach().numpy())


# --- data, parameters ----------------------------------------------------------------------
def test_torch_utils_data_path_imports():
    from fluxgrad.utils.data import (DataLoader, Dataset, RandomSampler, Subset, TensorDataset,
                                     random_split)
    assert DataLoader is fg.data.DataLoader and Dataset is fg.data.Dataset
    assert (TensorDataset, Subset, random_split, RandomSampler) == (
        fg.data.TensorDataset, fg.data.Subset, fg.data.random_split, fg.data.RandomSampler)


@pytest.mark.parametrize("size, message", [(2.5, "batch_size=2.5"),
                                           ("4", "batch_size='4'.*pass batch_size=4"),
                                           (0, "batch_size=0"), (True, "batch_size=True")])
def test_dataloader_names_a_bad_batch_size(size, message):
    with pytest.raises(ValueError, match=message):
        fg.data.DataLoader(list(range(5)), batch_size=size)


def test_dataloader_names_the_samples_of_unequal_shapes():
    data = [(fg.zeros(2), 0), (fg.zeros(2), 1), (fg.zeros(3), 2)]
    with pytest.raises(RuntimeError, match="sample 0 has shape \\[2\\] but of sample 2 has "
                                           "shape \\[3\\]"):
        next(iter(fg.data.DataLoader(data, batch_size=3)))


def test_dataloader_is_callable_as_in_paddle():
    loader = fg.data.DataLoader(fg.data.TensorDataset(fg.arange(5)), batch_size=2)
    assert [b[0].tolist() for b in loader()] == [[0, 1], [2, 3], [4]]


def test_dataloader_without_batch_size_yields_samples():
    loader = fg.data.DataLoader([1, 2, 3], batch_size=None)
    assert list(loader) == [1, 2, 3] and len(loader) == 3


def test_generator_makes_shuffles_and_splits_repeat():
    ds = fg.data.TensorDataset(fg.arange(20))

    def epoch(seed):
        loader = fg.data.DataLoader(ds, 6, shuffle=True, generator=fg.Generator().manual_seed(seed))
        return np.concatenate([b[0].detach().numpy() for b in loader]).tolist()
    assert epoch(3) == epoch(3) and epoch(3) != epoch(4) and sorted(epoch(3)) == list(range(20))
    split = [s.indices for s in fg.data.random_split(ds, [15, 5],
                                                     generator=fg.Generator().manual_seed(1))]
    again = [s.indices for s in fg.data.random_split(ds, [15, 5],
                                                     generator=fg.Generator().manual_seed(1))]
    assert split == again


def test_samplers():
    from fluxgrad.data import BatchSampler, RandomSampler, SequentialSampler, WeightedRandomSampler
    g = fg.Generator().manual_seed(0)
    assert sorted(RandomSampler(range(7), generator=g)) == list(range(7))
    assert len(list(RandomSampler(range(3), replacement=True, num_samples=10))) == 10
    assert list(BatchSampler(SequentialSampler(range(5)), 2, drop_last=True)) == [[0, 1], [2, 3]]
    drawn = list(WeightedRandomSampler([0.0, 1.0, 0.0], 20, generator=g))
    assert drawn == [1] * 20
    loader = fg.data.DataLoader(list(range(5)), batch_sampler=BatchSampler(range(5), 3, False))
    assert [b.tolist() for b in loader] == [[0, 1, 2], [3, 4]]


def test_parameters_is_an_iterator_and_a_list():
    model = fg.nn.Sequential(fg.nn.Linear(2, 3), fg.nn.Linear(3, 1))
    params = model.parameters()
    assert next(params) is model[0].weight and next(params) is model[0].bias
    assert len(model.parameters()) == 4 and model.parameters()[3] is model[1].bias
    assert next(model.parameters()).dtype == fg.float32
    names = model.named_parameters()
    assert next(names)[0] == "0.weight"


def test_paddle_batchnorm_momentum_weighs_the_running_average():
    x = np.random.default_rng(0).standard_normal((8, 3, 4, 4)).astype(np.float32)
    ours = fg.nn.BatchNorm2D(3, momentum=0.9, epsilon=1e-3)
    theirs = torch.nn.BatchNorm2d(3, eps=1e-3, momentum=0.1)
    ours(fg.tensor(x))
    theirs(torch.tensor(x))
    np.testing.assert_allclose(ours.running_mean.detach().numpy(), theirs.running_mean.detach().numpy(), rtol=1e-5)
    np.testing.assert_allclose(ours.running_var.detach().numpy(), theirs.running_var.detach().numpy(), rtol=1e-5)


def test_paddle_avgpool_leaves_padding_out():
    x = np.arange(16, dtype=np.float32).reshape(1, 1, 4, 4)
    ours = fg.nn.AvgPool2D(2, 2, 1)(fg.tensor(x))
    theirs = torch.nn.AvgPool2d(2, 2, 1, count_include_pad=False)(torch.tensor(x))
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy())


# --- out= and floating-point warnings ------------------------------------------------------
OUT_CALLS = {
    "add": lambda L, o: L.add(_t(L, x34), 2, out=o),
    "mul": lambda L, o: L.mul(_t(L, x34), 3, out=o),
    "div": lambda L, o: L.div(_t(L, x34), 4, out=o),
    "matmul": lambda L, o: L.matmul(_t(L, x34), _t(L, x34.T.copy()), out=o),
    "exp": lambda L, o: L.exp(_t(L, x34), out=o),
    "sqrt": lambda L, o: L.sqrt(_t(L, x34 ** 2), out=o),
    "sum": lambda L, o: L.sum(_t(L, x34), 1, out=o),
    "mean": lambda L, o: L.mean(_t(L, x34), 0, out=o),
    "cat": lambda L, o: L.cat([_t(L, x34), _t(L, x34)], 0, out=o),
    "stack": lambda L, o: L.stack([_t(L, x34), _t(L, x34)], out=o),
    "clamp": lambda L, o: L.clamp(_t(L, x34), -1, 1, out=o),
    "where": lambda L, o: L.where(_t(L, x34) > 0, _t(L, x34), _t(L, -x34), out=o),
    "cumsum": lambda L, o: L.cumsum(_t(L, x34), 1, out=o),
    "zeros": lambda L, o: L.zeros(2, 3, out=o),
    "ones": lambda L, o: L.ones(4, out=o),
    "arange": lambda L, o: L.arange(0.0, 3.0, out=o),
    "linspace": lambda L, o: L.linspace(0, 1, 5, out=o),
    "full": lambda L, o: L.full((2,), 7.0, out=o),
    "eye": lambda L, o: L.eye(3, out=o),
}


@pytest.mark.parametrize("name", list(OUT_CALLS))
def test_out_receives_the_result_as_in_torch(name):
    ours, theirs = fg.empty(0), torch.empty(0)
    returned = OUT_CALLS[name](fg, ours)
    OUT_CALLS[name](torch, theirs)
    assert returned is ours
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=1e-6)


def test_out_for_values_and_indices():
    values, indices = fg.empty(0), fg.empty(0, dtype=fg.int64)
    got = fg.max(fg.tensor(x34), 1, out=(values, indices))
    assert got.values is values and indices.tolist() == torch.max(torch.tensor(x34), 1)[1].tolist()


def test_out_refuses_a_lossy_cast_and_autograd():
    with pytest.raises(RuntimeError, match="can't be cast to out's dtype fluxgrad.int64"):
        fg.add(fg.ones(2), 1, out=fg.zeros(2, dtype=fg.int64))
    with pytest.raises(RuntimeError, match="automatic differentiation"):
        fg.mul(fg.ones(2, requires_grad=True), 2, out=fg.empty(2))
    kept = fg.zeros(2)
    with pytest.raises(RuntimeError):
        fg.add(fg.ones(2), 1.5, out=fg.zeros(2, dtype=fg.int64))
    assert kept.tolist() == [0.0, 0.0]


def test_floating_point_edge_cases_are_silent_as_in_torch(tmp_path):
    # in a fresh interpreter: pytest restores the warning filters after importing test modules
    script = tmp_path / "edge.py"
    script.write_text(
        "import numpy as np\n"
        "import fluxgrad as fg\n"
        "x = fg.tensor([0.0, 1.0], requires_grad=True)\n"
        "fg.log(x).sum().backward()\n"
        "(fg.tensor([1.0, 0.0]) / 0).sum()\n"
        "fg.exp(fg.tensor([1000.0])) * 0\n"
        "print(x.grad.tolist())\n"
        "np.log(np.zeros(1))  # the user's own NumPy call still warns\n")
    root = pathlib.Path(fg.__file__).resolve().parent.parent
    env = dict(os.environ, PYTHONPATH=str(root))
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=env,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[inf, 1.0]"
    warned = [line for line in done.stderr.splitlines() if "RuntimeWarning" in line]
    assert len(warned) == 1 and "edge.py:8" in warned[0]


def test_porting_page_code_runs():
    import re
    page = pathlib.Path(fg.__file__).resolve().parent.parent / "docs" / "porting-from-pytorch.md"
    blocks = re.findall(r"^```python\n(.*?)^```", page.read_text(), re.S | re.M)
    assert len(blocks) >= 3
    for block in blocks:
        exec(compile(block, str(page), "exec"), {"__name__": "__porting__"})


def test_paddle_metric_accuracy_counts_top_k_hits():
    scores = fg.tensor([[0.1, 0.9, 0.0], [0.8, 0.15, 0.05], [0.3, 0.2, 0.5], [0.6, 0.3, 0.1]])
    labels = fg.tensor([[1], [2], [0], [1]])
    assert fg.metric.accuracy(scores, labels).item() == pytest.approx(1 / 4)
    assert fg.metric.accuracy(scores, labels, k=2).item() == pytest.approx(3 / 4)
    assert fg.metric.accuracy(scores, labels.reshape(-1), k=3).item() == 1.0
    correct, total = fg.zeros(1, dtype=fg.int64), fg.zeros(1, dtype=fg.int64)
    fg.metric.accuracy(scores, labels, k=2, correct=correct, total=total)
    assert (correct.item(), total.item()) == (3, 4)
    assert fg.metric.accuracy(fg.zeros(0, 3), fg.zeros(0, dtype=fg.int64)).item() == 0.0
    with pytest.raises(ValueError, match="integer class indices"):
        fg.metric.accuracy(scores, fg.zeros(4))
    with pytest.raises(ValueError, match="integer class indices"):
        fg.metric.accuracy(scores, fg.zeros(3, dtype=fg.int64))


def test_onnx_export_names_the_alternative():
    with pytest.raises(NotImplementedError, match="torch.onnx.export"):
        fg.onnx.export(fg.nn.Linear(2, 1), fg.zeros(1, 2), "model.onnx")


@pytest.mark.parametrize("size, error", [((2.5,), TypeError), ((2, -1), RuntimeError),
                                         (("3",), TypeError)])
def test_bad_sizes_raise_what_torch_raises(size, error):
    with pytest.raises(error):
        torch.zeros(*size)
    with pytest.raises(error, match="zeros"):
        fg.zeros(*size)


def test_legacy_new_and_get_device_match_torch():
    ours, theirs = fg.ones(2, dtype=fg.float64), torch.ones(2, dtype=torch.float64)
    for args in [(2, 3), ([1, 2],), (), (fg.Size([4]),)]:
        targs = tuple(torch.Size(a) if isinstance(a, fg.Size) else a for a in args)
        made, expected = ours.new(*args), theirs.new(*targs)
        assert made.shape == tuple(expected.shape) and made.dtype == fg.float64
    assert ours.new([1, 2]).tolist() == [1.0, 2.0]
    assert ours.get_device() == theirs.get_device() == -1


def test_set_num_threads_limits_numpys_blas_threads():
    import threadpoolctl  # the test extra installs fluxgrad[threads]
    before = fg.get_num_threads()
    try:
        fg.set_num_threads(1)
        assert fg.get_num_threads() == 1
        assert all(p["num_threads"] == 1 for p in threadpoolctl.threadpool_info())
    finally:
        fg.set_num_threads(before)
    assert fg.get_num_threads() == before
    with pytest.raises(ValueError, match="at least 1"):
        fg.set_num_threads(0)
    with pytest.raises(TypeError, match="expected an int"):
        fg.set_num_threads(1.5)


@pytest.mark.parametrize("a, b", [([1.0, 2.0], [1.0, 2.0]), ([1.0, 2.0], [1.0, 3.0]),
                                  ([1.0, 2.0], [[1.0, 2.0]]), ([float("nan")], [float("nan")])])
def test_equal_is_one_bool_as_torch(a, b):
    want = torch.equal(torch.tensor(a), torch.tensor(b))
    got = fg.equal(fg.tensor(a), fg.tensor(b))
    assert type(got) is bool and got == want
    assert fg.tensor(a).equal(fg.tensor(b)) == want
    np.testing.assert_array_equal(fg.eq(fg.tensor([1.0, 2.0]), 1.0).numpy(), [True, False])


def test_memory_formats_are_accepted_and_change_no_value():
    x = fg.arange(24.0).reshape(1, 2, 3, 4)
    for fmt in (fg.contiguous_format, fg.preserve_format, fg.channels_last):
        np.testing.assert_array_equal(x.to(memory_format=fmt).numpy(), x.numpy())
        np.testing.assert_array_equal(x.contiguous(memory_format=fmt).numpy(), x.numpy())
        assert fg.zeros_like(x, memory_format=fmt).shape == x.shape
    conv = fg.nn.Conv2d(2, 3, 3).to(memory_format=fg.channels_last)
    assert conv(x).shape == (1, 3, 1, 2)
    assert repr(fg.channels_last) == "fluxgrad.channels_last"


def test_grad_mode_switches_are_also_in_the_autograd_namespace():
    x = fg.ones(2, requires_grad=True)
    for switch in (fg.autograd.no_grad(), fg.autograd.set_grad_enabled(False),
                   fg.autograd.inference_mode()):
        with switch:
            assert not (x * 2).requires_grad
    with fg.no_grad(), fg.autograd.enable_grad():
        assert (x * 2).requires_grad


@pytest.mark.parametrize("name", ["not_equal", "less", "less_equal", "greater", "greater_equal",
                                  "floor_divide", "eq", "ne", "lt", "le", "gt", "ge"])
def test_comparison_methods_match_torch(name):
    a, b = [1.0, 2.0, 3.0], [2.0, 2.0, 2.0]
    got = getattr(fg.tensor(a), name)(fg.tensor(b))
    want = getattr(torch.tensor(a), name)(torch.tensor(b))
    np.testing.assert_array_equal(got.numpy(), want.numpy())
