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
