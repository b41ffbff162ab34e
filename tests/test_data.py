"""data: Dataset, TensorDataset, DataLoader batching and seeded shuffling, random_split."""
import numpy as np
import pytest

import fluxgrad as fg
from fluxgrad.data import DataLoader, Dataset, TensorDataset, random_split


def _dataset(n=10):
    x = fg.tensor(np.arange(n * 2, dtype=np.float32).reshape(n, 2))
    y = fg.tensor(np.arange(n))
    return TensorDataset(x, y)


def test_tensor_dataset_indexes_rows():
    ds = _dataset()
    x, y = ds[3]
    assert len(ds) == 10 and x.tolist() == [6.0, 7.0] and y.item() == 3


def test_tensor_dataset_rejects_different_lengths():
    with pytest.raises(ValueError, match="same first dimension"):
        TensorDataset(fg.zeros(3, 2), fg.zeros(4))


def test_loader_batches_in_order_and_keeps_the_last_partial_batch():
    loader = DataLoader(_dataset(), batch_size=4)
    batches = [y.tolist() for _, y in loader]
    assert batches == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9]] and len(loader) == 3


def test_loader_drop_last():
    loader = DataLoader(_dataset(), batch_size=4, drop_last=True)
    assert [len(y) for _, y in loader] == [4, 4] and len(loader) == 2


def test_shuffle_is_a_permutation_repeatable_with_manual_seed():
    def epoch():
        fg.manual_seed(7)
        return np.concatenate([y.numpy() for _, y in DataLoader(_dataset(), 3, shuffle=True)])
    a, b = epoch(), epoch()
    np.testing.assert_array_equal(a, b)
    assert sorted(a.tolist()) == list(range(10)) and a.tolist() != list(range(10))


def test_custom_dataset_is_collated_into_tensors():
    class Squares(Dataset):
        def __len__(self):
            return 5

        def __getitem__(self, i):
            return {"x": np.array([i, i * i], np.float32), "label": i % 2}

    batch = next(iter(DataLoader(Squares(), batch_size=5)))
    assert batch["x"].shape == (5, 2) and batch["label"].tolist() == [0, 1, 0, 1, 0]


def test_random_split_partitions_the_dataset():
    fg.manual_seed(0)
    a, b = random_split(_dataset(), [7, 3])
    got = sorted([a[i][1].item() for i in range(len(a))] + [b[i][1].item() for i in range(3)])
    assert got == list(range(10))
    c, d = random_split(_dataset(), [0.8, 0.2])
    assert (len(c), len(d)) == (8, 2)
    with pytest.raises(ValueError, match="sum to 9"):
        random_split(_dataset(), [5, 4])



def _streams(torch_data, base):
    class Counting(base):
        def __init__(self, n):
            self.n = n

        def __iter__(self):
            for i in range(self.n):
                yield np.array([i, 10 * i], np.float32), i
    return Counting


@pytest.mark.parametrize("batch_size, drop_last", [(4, False), (4, True), (None, False), (5, False)])
def test_iterable_dataset_batches_the_stream_as_torch(batch_size, drop_last):
    torch = pytest.importorskip("torch")
    ours = _streams(fg.data, fg.data.IterableDataset)(10)
    theirs = _streams(torch.utils.data, torch.utils.data.IterableDataset)(10)
    got = list(DataLoader(ours, batch_size=batch_size, drop_last=drop_last))
    want = list(torch.utils.data.DataLoader(theirs, batch_size=batch_size, drop_last=drop_last))
    assert len(got) == len(want)
    for (gx, gy), (wx, wy) in zip(got, want):
        np.testing.assert_array_equal(np.asarray(gx), np.asarray(wx))
        np.testing.assert_array_equal(np.asarray(gy), np.asarray(wy))


def test_iterable_dataset_refuses_shuffle_and_samplers_and_unknown_length():
    stream = _streams(fg.data, fg.data.IterableDataset)(3)
    with pytest.raises(ValueError, match="IterableDataset: expected unspecified shuffle"):
        DataLoader(stream, shuffle=True)
    with pytest.raises(ValueError, match="unspecified sampler"):
        DataLoader(stream, sampler=[0, 1])
    with pytest.raises(TypeError, match="without __len__"):
        len(DataLoader(stream, batch_size=2))
    with pytest.raises(TypeError, match="can't be indexed"):
        stream[0]


def test_chained_and_concatenated_datasets():
    stream = _streams(fg.data, fg.data.IterableDataset)
    assert [y for _, y in stream(2) + stream(3)] == [0, 1, 0, 1, 2]
    both = TensorDataset(fg.arange(2)) + TensorDataset(fg.arange(3))
    assert len(both) == 5 and both[4][0].item() == 2
    assert fg.data.get_worker_info() is None
