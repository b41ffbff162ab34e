"""NumPy and DLPack interop: zero-copy round trips."""
import numpy as np
import pytest

import fluxgrad as fg

torch = pytest.importorskip("torch")


def test_from_dlpack_of_a_torch_tensor_shares_memory():
    t = torch.arange(6.0).reshape(2, 3)
    x = fg.from_dlpack(t)
    assert x.shape == (2, 3) and x.dtype == fg.float32
    t[0, 0] = 42.0
    assert x[0, 0].item() == 42.0


def test_torch_from_dlpack_of_a_tensor_shares_memory():
    x = fg.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=fg.float64)
    t = torch.from_dlpack(x)
    assert t.dtype == torch.float64 and t.data_ptr() == x.numpy().ctypes.data
    t[1, 1] = -1.0
    assert x.tolist() == [[1.0, 2.0], [3.0, -1.0]]


def test_round_trip_through_numpy_dlpack_is_zero_copy():
    x = fg.tensor([1, 2, 3])
    a = np.from_dlpack(x)
    assert np.shares_memory(a, x.numpy())
    back = fg.from_dlpack(a)
    assert np.shares_memory(back.numpy(), x.numpy()) and back.dtype == fg.int64


def test_dlpack_device_is_cpu():
    assert fg.tensor([1.0]).__dlpack_device__() == (1, 0)


def test_non_contiguous_views_keep_their_strides():
    x = fg.tensor(np.arange(6.0).reshape(2, 3))
    t = torch.from_dlpack(x.T)
    assert t.tolist() == np.arange(6.0).reshape(2, 3).T.tolist()


def test_from_dlpack_can_start_a_leaf_that_requires_grad():
    x = fg.from_dlpack(torch.ones(3), requires_grad=True)
    (x * x).sum().backward()
    assert x.grad.tolist() == [2.0, 2.0, 2.0]


def test_from_dlpack_of_a_torch_tensor_requiring_grad_says_detach():
    with pytest.raises(RuntimeError, match="detach"):
        fg.from_dlpack(torch.ones(2, requires_grad=True))


def test_from_dlpack_rejects_objects_without_dlpack():
    with pytest.raises(TypeError, match="__dlpack__"):
        fg.from_dlpack([1, 2])


def test_ndarray_op_tensor_returns_a_tensor():
    x = fg.tensor([1.0, 2.0], requires_grad=True)
    y = np.array([3.0, 4.0], dtype=np.float32) * x
    assert isinstance(y, fg.Tensor) and y.grad_fn is not None
    assert np.asarray(x).tolist() == [1.0, 2.0]


def test_from_numpy_shares_memory():
    a = np.zeros(3, dtype=np.float32)
    x = fg.from_numpy(a)
    a[1] = 5.0
    assert x.tolist() == [0.0, 5.0, 0.0]
