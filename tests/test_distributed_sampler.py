"""DistributedSampler against torch's (same indices without shuffling; same padding and
drop_last rules), and its per-epoch shuffling. No MPI needed: rank and size are given."""
import numpy as np
import pytest
import torch.utils.data

from fluxgrad.data import DataLoader, DistributedSampler, TensorDataset


@pytest.mark.parametrize("n", [1, 3, 10, 11])
@pytest.mark.parametrize("replicas", [1, 2, 3, 4])
@pytest.mark.parametrize("drop_last", [False, True])
def test_indices_match_torch_without_shuffling(n, replicas, drop_last):
    for rank in range(replicas):
        ours = DistributedSampler(range(n), replicas, rank, shuffle=False, drop_last=drop_last)
        theirs = torch.utils.data.DistributedSampler(range(n), replicas, rank, shuffle=False,
                                                     drop_last=drop_last)
        assert list(ours) == list(theirs)
        assert len(ours) == len(theirs)


@pytest.mark.parametrize("drop_last", [False, True])
def test_shuffled_ranks_partition_the_dataset_and_change_with_the_epoch(drop_last):
    n, replicas = 11, 4
    samplers = [DistributedSampler(range(n), replicas, r, seed=3, drop_last=drop_last)
                for r in range(replicas)]
    first = [list(s) for s in samplers]
    assert len({len(part) for part in first}) == 1
    union = sorted(i for part in first for i in part)
    if drop_last:
        assert len(union) == len(set(union)) == 8
    else:
        assert set(union) == set(range(n)) and len(union) == 12
    assert first == [list(s) for s in samplers], "the same epoch gives the same order"
    for s in samplers:
        s.set_epoch(1)
    assert [list(s) for s in samplers] != first


def test_dataloader_batches_follow_the_sampler():
    data = TensorDataset(np.arange(10.0))
    sampler = DistributedSampler(data, num_replicas=4, rank=1, shuffle=False)
    batches = [b[0].numpy().tolist() for b in DataLoader(data, batch_size=2, sampler=sampler)]
    assert batches == [[1.0, 5.0], [9.0]]


def test_rank_outside_the_group_is_rejected():
    with pytest.raises(ValueError, match=r"invalid rank 4, rank should be in the interval "
                                         r"\[0, 3\]"):
        DistributedSampler(range(10), num_replicas=4, rank=4)


def test_default_rank_needs_a_process_group():
    with pytest.raises(RuntimeError, match="init_process_group"):
        DistributedSampler(range(10))
