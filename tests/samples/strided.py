"""Samples for as_strided and unfold (fluxgrad/ops/strided.py)."""
import fluxgrad as fg

from . import Sample, normal


def _samples():
    x = normal(3, 4, seed=4)
    return [
        Sample("as_strided", lambda x: fg.as_strided(x, (2, 2), (1, 2), 1), [x],
               lambda x: x.as_strided((2, 2), (1, 2), 1)),
        Sample("as_strided", lambda x: x.as_strided((3, 3), (1, 1)), [normal(6)],
               lambda x: x.as_strided((3, 3), (1, 1))),  # overlapping windows
        Sample("as_strided", lambda x: x.as_strided((4, 3), (1, 4)), [x],
               lambda x: x.as_strided((4, 3), (1, 4))),  # the transpose
        Sample("as_strided", lambda x: x.as_strided((2, 3), (0, 2), 2), [normal(2, 4)],
               lambda x: x.as_strided((2, 3), (0, 2), 2)),  # a repeated row
        Sample("as_strided", lambda x: x.as_strided((), (), 5), [normal(8)],
               lambda x: x.as_strided((), (), 5)),
        Sample("as_strided", lambda x: x.as_strided((0, 2), (1, 1)), [normal(3)],
               lambda x: x.as_strided((0, 2), (1, 1))),
        Sample("as_strided", lambda x: x.unfold(1, 2, 1), [x], lambda x: x.unfold(1, 2, 1)),
        Sample("as_strided", lambda x: x.unfold(0, 2, 2), [normal(5, 2)],
               lambda x: x.unfold(0, 2, 2)),
        Sample("as_strided", lambda x: x.unfold(-1, 3, 2), [normal(2, 3, 7)],
               lambda x: x.unfold(-1, 3, 2)),
    ]


SAMPLES = _samples()
