"""Samples for the shape ops (fluxgrad/ops/shape.py), and for the composites built on them."""
import numpy as np

import fluxgrad as fg

from . import Sample, normal


def _torch():
    import torch
    return torch


def _reshape_samples():
    return [
        Sample("reshape", lambda x: x.reshape(3, 4), [normal(2, 6)], lambda x: x.reshape(3, 4)),
        Sample("reshape", lambda x: x.view(-1), [normal(2, 3, 4)], lambda x: x.view(-1)),
        Sample("reshape", lambda x: fg.reshape(x, (1, 1)), [normal()],
               lambda x: x.reshape(1, 1)),
        Sample("reshape", lambda x: x.reshape(()), [normal(1, 1)], lambda x: x.reshape(())),
        Sample("reshape", lambda x: x.reshape(0, 3), [normal(2, 0)], lambda x: x.reshape(0, 3)),
        Sample("reshape", lambda x: x.T.reshape(-1), [normal(3, 4)],
               lambda x: x.T.reshape(-1)),
        Sample("reshape", lambda x, y: x.view_as(y), [normal(6), normal(2, 3, seed=1)],
               lambda x, y: x.view_as(y)),
        Sample("reshape", lambda x: x.squeeze(), [normal(1, 3, 1, 2)], lambda x: x.squeeze()),
        Sample("reshape", lambda x: x.squeeze(-2), [normal(1, 3, 1, 2)],
               lambda x: x.squeeze(-2)),
        Sample("reshape", lambda x: fg.squeeze(x, axis=(0, 2)), [normal(1, 3, 1, 2)],
               lambda x: x.squeeze((0, 2))),
        Sample("reshape", lambda x: x.squeeze(1).squeeze(0), [normal(1, 3)],
               lambda x: x.squeeze(1).squeeze(0)),
        Sample("reshape", lambda x: x.unsqueeze(-1), [normal(2, 3)], lambda x: x.unsqueeze(-1)),
        Sample("reshape", lambda x: x.unsqueeze(0), [normal()], lambda x: x.unsqueeze(0)),
        Sample("reshape", lambda x: fg.unsqueeze(x, [0, 2]), [normal(2, 3)],
               lambda x: x.unsqueeze(0).unsqueeze(2)),
        Sample("reshape", lambda x: x.flatten(), [normal(2, 3, 4)], lambda x: x.flatten()),
        Sample("reshape", lambda x: x.flatten(1), [normal(2, 3, 4)], lambda x: x.flatten(1)),
        Sample("reshape", lambda x: x.flatten(-3, -2), [normal(2, 3, 4)],
               lambda x: x.flatten(-3, -2)),
        Sample("reshape", lambda x: x.flatten(), [normal()], lambda x: x.flatten()),
        Sample("reshape", lambda x: x.unflatten(1, (2, -1)), [normal(3, 4)],
               lambda x: x.unflatten(1, (2, -1))),
    ]


def _broadcast_samples():
    return [
        Sample("broadcast_to", lambda x: fg.broadcast_to(x, (2, 3, 4)), [normal(3, 1)],
               lambda x: x.broadcast_to((2, 3, 4))),
        Sample("broadcast_to", lambda x: x.broadcast_to((3,)), [normal()],
               lambda x: x.broadcast_to((3,))),
        Sample("broadcast_to", lambda x: x.expand(2, -1, 4), [normal(3, 1)],
               lambda x: x.expand(2, -1, 4)),
        Sample("broadcast_to", lambda x, y: x.expand_as(y), [normal(1, 4), normal(3, 4)],
               lambda x, y: x.expand_as(y)),
        Sample("broadcast_to", lambda x, y: fg.broadcast_tensors(x, y),
               [normal(3, 1), normal(1, 4, seed=1)],
               lambda x, y: _torch().broadcast_tensors(x, y)),
        Sample("sum_to", lambda x: fg.sum_to(x, (3, 1)), [normal(2, 3, 4)],
               lambda x: x.sum_to_size((3, 1))),
        Sample("sum_to", lambda x: fg.sum_to(x, ()), [normal(2, 3)],
               lambda x: x.sum()),
        Sample("sum_to", lambda x: fg.sum_to(x, (1, 4)), [normal(5, 4)],
               lambda x: x.sum_to_size((1, 4))),
    ]


def _permute_samples():
    return [
        Sample("permute", lambda x: x.permute(2, 0, 1), [normal(2, 3, 4)],
               lambda x: x.permute(2, 0, 1)),
        Sample("permute", lambda x: fg.permute(x, (-1, 0, -2)), [normal(2, 3, 4)],
               lambda x: x.permute(-1, 0, -2)),
        Sample("permute", lambda x: x.transpose(0, -1), [normal(2, 3, 4)],
               lambda x: x.transpose(0, -1)),
        Sample("permute", lambda x: fg.transpose(x, [1, 2, 0]), [normal(2, 3, 4)],
               lambda x: x.permute(1, 2, 0)),
        Sample("permute", lambda x: x.T, [normal(3, 4)], lambda x: x.T),
        Sample("permute", lambda x: x.mT, [normal(2, 3, 4)], lambda x: x.mT),
        Sample("permute", lambda x: x.swapaxes(1, 2), [normal(2, 1, 4)],
               lambda x: x.swapaxes(1, 2)),
        Sample("permute", lambda x: fg.moveaxis(x, 0, -1), [normal(2, 3, 4)],
               lambda x: x.movedim(0, -1)),
        Sample("permute", lambda x: x.movedim((0, 1), (2, 0)), [normal(2, 3, 4)],
               lambda x: x.movedim((0, 1), (2, 0))),
    ]


def _concat_samples():
    return [
        Sample("concat", lambda x, y: fg.cat([x, y]), [normal(2, 3), normal(4, 3, seed=1)],
               lambda x, y: _torch().cat([x, y])),
        Sample("concat", lambda x, y, z: fg.concat([x, y, z], axis=-1),
               [normal(2, 1), normal(2, 3, seed=1), normal(2, 2, seed=2)],
               lambda x, y, z: _torch().cat([x, y, z], -1)),
        Sample("concat", lambda x, y: fg.concat((x, y), dim=1),
               [normal(2, 0, 3), normal(2, 2, 3, seed=1)],
               lambda x, y: _torch().cat((x, y), dim=1)),
        Sample("concat", lambda x: fg.cat([x, x * 2], 0), [normal(3)],
               lambda x: _torch().cat([x, x * 2], 0)),
        Sample("concat", lambda x, y: fg.stack([x, y]), [normal(2, 3), normal(2, 3, seed=1)],
               lambda x, y: _torch().stack([x, y])),
        Sample("concat", lambda x, y: fg.stack([x, y], axis=-1), [normal(2, 3),
                                                                normal(2, 3, seed=1)],
               lambda x, y: _torch().stack([x, y], -1)),
        Sample("concat", lambda x, y, z: fg.stack([x, y, z], 0), [normal(), normal(seed=1),
                                                                 normal(seed=2)],
               lambda x, y, z: _torch().stack([x, y, z], 0)),
        Sample("split", lambda x: x.split(2), [normal(5, 3)], lambda x: x.split(2)),
        Sample("split", lambda x: fg.split(x, [1, 3, 0], dim=-1), [normal(2, 4)],
               lambda x: x.split([1, 3, 0], dim=-1)),
        Sample("split", lambda x: fg.split(x, num_or_sections=3, axis=1), [normal(2, 6)],
               lambda x: x.split(2, 1)),
        Sample("split", lambda x: fg.split(x, num_or_sections=[2, -1], axis=0), [normal(5)],
               lambda x: x.split([2, 3])),
        # only some pieces used: the others' cotangents are zeros
        Sample("split", lambda x: x.split([1, 2, 1], 1)[1], [normal(3, 4)],
               lambda x: x.split([1, 2, 1], 1)[1]),
        Sample("split", lambda x: x.chunk(3, 1), [normal(2, 7)], lambda x: x.chunk(3, 1)),
        Sample("split", lambda x: x.chunk(2), [normal(4, 2)], lambda x: x.chunk(2)),
        Sample("split", lambda x: x.unbind(1), [normal(2, 3, 2)], lambda x: x.unbind(1)),
        Sample("split", lambda x: fg.unbind(x, -1), [normal(3, 2)],
               lambda x: x.unbind(-1)),
        Sample("split", lambda x: x.unbind(0), [normal(2)], lambda x: x.unbind(0)),
    ]


def _tile_samples():
    return [
        Sample("broadcast_to", lambda x: x.tile(2, 3), [normal(2, 3)],
               lambda x: x.tile(2, 3)),
        Sample("broadcast_to", lambda x: fg.tile(x, (2,)), [normal(2, 3)],
               lambda x: x.tile((2,))),
        Sample("broadcast_to", lambda x: x.tile(2, 1, 2), [normal(3)],
               lambda x: x.tile(2, 1, 2)),
        Sample("broadcast_to", lambda x: x.repeat(2, 1, 3), [normal(2, 1)],
               lambda x: x.repeat(2, 1, 3)),
        Sample("broadcast_to", lambda x: x.repeat(3), [normal()], lambda x: x.repeat(3)),
        Sample("broadcast_to", lambda x: x.repeat_interleave(2), [normal(2, 3)],
               lambda x: x.repeat_interleave(2)),
        Sample("broadcast_to", lambda x: x.repeat_interleave(3, dim=-1), [normal(2, 2)],
               lambda x: x.repeat_interleave(3, dim=-1)),
        Sample("index", lambda x: fg.repeat_interleave(x, fg.tensor([1, 0, 3]), 0),
               [normal(3, 2)], lambda x: x.repeat_interleave(_torch().tensor([1, 0, 3]), 0)),
    ]


def _reorder_samples():
    return [
        Sample("flip", lambda x: x.flip(0), [normal(3, 2)], lambda x: x.flip(0)),
        Sample("flip", lambda x: x.flip((0, -1)), [normal(2, 3, 4)],
               lambda x: x.flip((0, -1))),
        Sample("flip", lambda x: fg.flip(x, axis=[0]), [normal(1)], lambda x: x.flip([0])),
        Sample("roll", lambda x: x.roll(1, 0), [normal(4, 2)], lambda x: x.roll(1, 0)),
        Sample("roll", lambda x: x.roll((2, -1), (1, 0)), [normal(3, 4)],
               lambda x: x.roll((2, -1), (1, 0))),
        Sample("roll", lambda x: x.roll(-3), [normal(2, 3)], lambda x: x.roll(-3)),
        Sample("roll", lambda x: fg.roll(x, 7, axis=0), [normal(3)],
               lambda x: x.roll(7, 0)),
    ]


def _pad_samples():
    def tpad(*args, **kw):
        import torch.nn.functional as F
        return lambda x: F.pad(x, *args, **kw)
    return [
        Sample("pad", lambda x: fg.pad(x, (1, 2)), [normal(2, 3)], tpad((1, 2))),
        Sample("pad", lambda x: fg.pad(x, (1, 0, 0, 2), value=1.5), [normal(2, 3, 2)],
               tpad((1, 0, 0, 2), value=1.5)),
        Sample("pad", lambda x: fg.pad(x, (2, 2, 1, 1, 1, 0)), [normal(1, 2, 3)],
               tpad((2, 2, 1, 1, 1, 0))),
        Sample("pad", lambda x: fg.pad(x, (-1, 2)), [normal(2, 3)], tpad((-1, 2))),
        Sample("pad", lambda x: fg.pad(x, (1, 1)), [normal(0, 2)], tpad((1, 1))),
        Sample("slice", lambda x: fg.pad(x, (-1, -1, 0, -1)), [normal(3, 4)],
               tpad((-1, -1, 0, -1))),
        Sample("index", lambda x: fg.pad(x, (2, 1), mode="reflect"), [normal(2, 4)],
               tpad((2, 1), mode="reflect")),
        Sample("index", lambda x: fg.pad(x, (1, 1, 2, 0), mode="reflect"), [normal(2, 3, 4)],
               tpad((1, 1, 2, 0), mode="reflect")),
        Sample("index", lambda x: fg.pad(x, (3, 1), mode="replicate"), [normal(2, 2)],
               tpad((3, 1), mode="replicate")),
        Sample("index", lambda x: fg.pad(x, (1, 2, 1, 1), mode="replicate"),
               [normal(1, 2, 3)], tpad((1, 2, 1, 1), mode="replicate")),
        Sample("index", lambda x: fg.pad(x, (2, 3), mode="circular"), [normal(1, 2, 3)],
               tpad((2, 3), mode="circular")),
    ]


def _misc_samples():
    return [
        Sample("clone", lambda x: x.clone(), [normal(2, 3)], lambda x: x.clone()),
        Sample("clone", lambda x: fg.clone(x), [normal()], lambda x: x.clone()),
        Sample("clone", lambda x: fg.assign(x), [normal(3)], lambda x: x.clone()),
        Sample("slice", lambda x: x.narrow(1, 1, 2), [normal(2, 4)],
               lambda x: x.narrow(1, 1, 2)),
        Sample("slice", lambda x: x.select(-1, 2), [normal(2, 4)], lambda x: x.select(-1, 2)),
        Sample("reshape", lambda x: x.contiguous().reshape(-1), [normal(2, 2)],
               lambda x: x.contiguous().reshape(-1)),
        Sample("contiguous", lambda x: x.t().contiguous(), [normal(3, 4)],
               lambda x: x.t().contiguous()),
        Sample("contiguous", lambda x: x[:, ::2].contiguous().view(-1), [normal(3, 4)],
               lambda x: x[:, ::2].contiguous().view(-1)),
    ]


def _composite_samples():
    """Composites PyTorch also has: rotations and mirrors, windows, finite differences."""
    torch = _torch
    x = normal(3, 4, seed=4)
    samples = [
        Sample("flip", fg.flipud, [x], lambda x: torch().flipud(x)),
        Sample("flip", fg.fliplr, [x], lambda x: torch().fliplr(x)),
        Sample("reshape", lambda x: x.ravel(), [x], lambda x: x.ravel()),
    ]
    for k, dims in [(1, (0, 1)), (2, (0, 1)), (3, (1, 0)), (-1, (0, 2))]:
        samples.append(Sample("flip", lambda x, k=k, d=dims: fg.rot90(x, k, d),
                              [normal(2, 3, 4)], lambda x, k=k, d=dims: torch().rot90(x, k, d)))
    coords = np.array([0.0, 0.5, 2.0, 2.5, 4.0])
    for kwargs in [{}, {"spacing": 2.0}, {"dim": 1, "edge_order": 2},
                   {"spacing": [0.5, 3.0]}, {"dim": 0, "edge_order": 2}]:
        samples.append(Sample("concat", lambda x, kw=kwargs: fg.gradient(x, **kw),
                              [normal(4, 5, seed=6)],
                              lambda x, kw=kwargs: torch().gradient(x, **kw)))
    samples.append(Sample("concat", lambda x: fg.gradient(x, spacing=[fg.tensor(coords)], dim=1),
                          [normal(4, 5, seed=6)], lambda x: torch().gradient(
                              x, spacing=[torch().tensor(coords)], dim=1), rtol=1e-12))
    return samples


SAMPLES = (_composite_samples() + _reshape_samples() + _broadcast_samples() + _permute_samples()
           + _concat_samples() + _tile_samples() + _reorder_samples() + _pad_samples()
           + _misc_samples())
