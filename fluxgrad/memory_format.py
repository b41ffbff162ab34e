"""PyTorch's memory formats (`fluxgrad.contiguous_format`, `channels_last`, ...), accepted
wherever PyTorch takes `memory_format=`. Every format computes the same values; `to`,
`contiguous`, `clone` and `Module.to` lay a 4-d (5-d) tensor out channels last when asked, so
that its strides and `is_contiguous(memory_format=...)` read as PyTorch's."""

__all__ = ["memory_format", "contiguous_format", "legacy_contiguous_format", "preserve_format",
           "channels_last", "channels_last_3d", "channels_last_rank"]


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


def channels_last_rank(memory_format, ndim, op):
    """Whether `memory_format` asks for a channels-last layout of a tensor of `ndim` dimensions
    (False for the contiguous and preserve formats, or None); a channels-last format of another
    rank is refused with PyTorch's RuntimeError."""
    rank = {channels_last: 4, channels_last_3d: 5}.get(memory_format)
    if rank is None:
        return False
    if ndim != rank:
        raise RuntimeError(f"{op}: required rank {rank} tensor to use {memory_format._name} "
                           f"format, got a tensor of {ndim} dimensions")
    return True
