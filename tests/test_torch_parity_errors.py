"""Misuse of an op raises the exception type PyTorch raises (RuntimeError, IndexError, ...),
so `except RuntimeError` written for PyTorch catches fluxgrad's errors too; fluxgrad's own
types stay (a shape error is also a ValueError). Each case runs in both libraries."""
import pytest

import fluxgrad as fg
import fluxgrad.nn.functional as F

torch = pytest.importorskip("torch")
import torch.nn.functional as TF  # noqa: E402

CASES = {
 "permute dup": lambda L: L.ones(2,3).permute(0,0),
 "permute len": lambda L: L.ones(2,3).permute(0),
 "permute range": lambda L: L.ones(2,3).permute(0,5),
 "reshape": lambda L: L.ones(2,3).reshape(4),
 "reshape -1 -1": lambda L: L.ones(2,3).reshape(-1,-1),
 "view": lambda L: L.ones(2,3).view(5),
 "flip dup": lambda L: L.ones(2,3).flip((0,0)),
 "flip range": lambda L: L.ones(2,3).flip(3),
 "roll": lambda L: L.ones(2,3).roll((1,2),(0,)),
 "roll range": lambda L: L.ones(2,3).roll(1,5),
 "gather ndim": lambda L: L.ones(2,3).gather(1, L.zeros(2, dtype=L.int64)),
 "gather oob": lambda L: L.ones(2,3).gather(1, L.full((2,1), 5, dtype=L.int64)),
 "gather big": lambda L: L.ones(2,3).gather(1, L.zeros((3,1), dtype=L.int64)),
 "gather float idx": lambda L: L.ones(2,3).gather(1, L.zeros((2,1))),
 "einsum ops": lambda L: L.einsum("ij,jk->ik", L.ones(2,3), L.ones(4,5)),
 "einsum count": lambda L: L.einsum("ij,jk->ik", L.ones(2,3)),
 "einsum ndim": lambda L: L.einsum("ijk->i", L.ones(2,3)),
 "matmul": lambda L: L.matmul(L.ones(2,3), L.ones(4,5)),
 "matmul 0d": lambda L: L.matmul(L.ones(()), L.ones(4)),
 "mm": lambda L: L.mm(L.ones(2,3), L.ones(4,5)),
 "bmm": lambda L: L.bmm(L.ones(2,2,3), L.ones(2,4,5)),
 "dot": lambda L: L.dot(L.ones(2), L.ones(3)),
 "diagonal": lambda L: L.ones(2,3).diagonal(0,0,0),
 "diagonal range": lambda L: L.ones(2,3).diagonal(0,0,4),
 "clamp none": lambda L: L.clamp(L.ones(2)),
 "conv2d ch": lambda L: _functional(L).conv2d(L.ones(1,3,5,5), L.ones(2,4,3,3)),
 "conv2d big kernel": lambda L: _functional(L).conv2d(L.ones(1,3,2,2), L.ones(2,3,3,3)),
 "pad odd": lambda L: _functional(L).pad(L.ones(2,3), (1,)),
 "pad reflect wide": lambda L: _functional(L).pad(L.ones(1,2,3), (3,3), mode="reflect"),
 "pad too many": lambda L: _functional(L).pad(L.ones(2), (1,1,1,1)),
 "cat shape": lambda L: L.cat([L.ones(2,3), L.ones(2,4)]),
 "cat dim": lambda L: L.cat([L.ones(2,3), L.ones(2,3)], 3),
 "stack shape": lambda L: L.stack([L.ones(2,3), L.ones(2,4)]),
 "expand": lambda L: L.ones(2,3).expand(4,4),
 "expand few": lambda L: L.ones(2,3).expand(3),
 "broadcast_to": lambda L: L.broadcast_to(L.ones(2,3), (4,4)),
 "squeeze range": lambda L: L.ones(2,3).squeeze(4),
 "unsqueeze range": lambda L: L.ones(2,3).unsqueeze(4),
 "transpose range": lambda L: L.ones(2,3).transpose(0,3),
 "split sizes": lambda L: L.ones(4).split([1,2]),
 "chunk 0": lambda L: L.ones(4).chunk(0),
 "narrow": lambda L: L.ones(4).narrow(0, 2, 5),
 "select": lambda L: L.ones(4).select(0, 5),
 "index oob": lambda L: L.ones(4)[5],
 "index oob list": lambda L: L.ones(4)[[5]],
 "index too many": lambda L: L.ones(4)[0, 0],
 "index float": lambda L: L.ones(4)[L.tensor([1.0])],
 "mask shape": lambda L: L.ones(4)[L.tensor([True, False])],
 "setitem shape": lambda L: L.ones(4).__setitem__(slice(None), L.ones(3)),
 "index_select 2d": lambda L: L.ones(4,2).index_select(0, L.zeros((2,2), dtype=L.int64)),
 "index_select oob": lambda L: L.ones(4,2).index_select(0, L.tensor([7])),
 "scatter ndim": lambda L: L.zeros(2,3).scatter(1, L.zeros(2, dtype=L.int64), 1.0),
 "masked_fill shape": lambda L: L.zeros(2,3).masked_fill(L.ones(4) > 0, 1.0),
 "tile neg": lambda L: L.ones(2).tile(-1),
 "repeat few": lambda L: L.ones(2,3).repeat(2),
 "unflatten": lambda L: L.ones(6).unflatten(0, (4, 2)),
 "flatten order": lambda L: L.ones(2,3,4).flatten(2, 1),
 "softmax dim": lambda L: L.ones(2,3).softmax(5),
 "sum dim": lambda L: L.ones(2,3).sum(5),
 "sum dup": lambda L: L.ones(2,3).sum((0,0)),
 "max empty": lambda L: L.ones(0).max(),
 "argmax empty": lambda L: L.ones(0).argmax(),
 "topk k": lambda L: L.ones(3).topk(5),
 "kthvalue": lambda L: L.ones(3).kthvalue(5),
 "repeat_interleave": lambda L: L.ones(3).repeat_interleave(L.tensor([1,2])),
 "outer 2d": lambda L: L.outer(L.ones(2,2), L.ones(2)),
 "take oob": lambda L: L.take(L.ones(3), L.tensor([5])),
 "take_along_dim": lambda L: L.take_along_dim(L.ones(3, 2), L.zeros(3, dtype=L.int64), 0),
 "meshgrid 2d": lambda L: L.meshgrid(L.ones(2,2), L.ones(2), indexing="ij"),
 "diff 0d": lambda L: L.diff(L.tensor(1.0)),
 "cumsum dim": lambda L: L.ones(2).cumsum(3),
 "std dim": lambda L: L.ones(2).std(3),
 "norm dim": lambda L: L.ones(2).norm(dim=3),
 "linear in": lambda L: L.nn.Linear(3, 2)(L.ones(4, 5)),
 "conv2d module ch": lambda L: L.nn.Conv2d(3, 4, 3)(L.ones(1, 2, 5, 5)),
 "layer_norm shape": lambda L: _functional(L).layer_norm(L.ones(2, 3), (4,)),
 "one_hot range": lambda L: _functional(L).one_hot(L.tensor([0, 5]), 3),
 "ce index shape": lambda L: _functional(L).cross_entropy(L.ones(2, 3), L.zeros(3, dtype=L.int64)),
 "ce prob shape": lambda L: _functional(L).cross_entropy(L.ones(2, 3), L.tensor([0.0, 1.0])),
 "item of many": lambda L: L.ones(2).item(),
 "randint empty": lambda L: L.randint(5, 5, (2,)),
 "randperm neg": lambda L: L.randperm(-1),
 "multinomial 3d": lambda L: L.multinomial(L.ones(2, 2, 2), 1),
 "mean of ints": lambda L: L.tensor([1, 2]).mean(),
 "int @ float": lambda L: L.ones(2, 2, dtype=L.int64) @ L.ones(2, 2),
 "linear int input": lambda L: L.nn.Linear(2, 2)(L.ones(3, 2, dtype=L.int64)),
}


def _functional(lib):
    return TF if lib is torch else F


@pytest.mark.parametrize("name", list(CASES))
def test_misuse_raises_the_type_torch_raises(name):
    with pytest.raises(Exception) as theirs:
        CASES[name](torch)
    with pytest.raises(Exception) as ours:
        CASES[name](fg)
    assert isinstance(ours.value, theirs.type), (
        f"{name}: fluxgrad raises {ours.type.__name__} ({ours.value}), PyTorch "
        f"{theirs.type.__name__}")


def test_shape_errors_stay_value_errors():
    with pytest.raises(ValueError):
        fg.ones(2, 3).reshape(4)
    with pytest.raises(ValueError):
        fg.ones(2, 3).permute(0, 0)
