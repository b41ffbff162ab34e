"""PyTorch's memory formats (`fluxgrad.contiguous_format`, `channels_last`, ...), accepted
wherever PyTorch takes `memory_format=`. fluxgrad's arrays are NumPy's, so every format
computes the same values; none changes a layout."""

__all__ = ["memory_format", "contiguous_format", "legacy_contiguous_format", "preserve_format",
           "channels_last", "channels_last_3d"]


class memory_format:
    __slots__ = ("_name",)

    def __init__(self, name):
        self._name = name

    def __repr__(self):
        return f"fluxgrad.{self._name}"

    def __reduce__(self):
        return self._name


contiguous_format = memory_format("contiguous_format")
legacy_contiguous_format = contiguous_format  # the same object in torch (F.gumbel_softmax uses it)
preserve_format = memory_format("preserve_format")
channels_last = memory_format("channels_last")
channels_last_3d = memory_format("channels_last_3d")
