"""Random number generators: `Generator`, the `default_generator` that `manual_seed` reseeds, and
`numpy_generator`, the NumPy Generator a `generator=` argument names.

A generator's state (`get_state`, `fluxgrad.get_rng_state`) is a uint8 tensor of PyTorch's size
(5056 bytes): NumPy's PCG64 state (state and increment, 16 bytes each, little-endian), its
cached 32-bit half (flag and value, 4 bytes each) and the seed (8 bytes); the rest is zero.

Kept apart from `fluxgrad.random` so that the random primitives (`random_ops`) and the public
sampling functions both read it.
"""
import numpy as np

from ._core.devices import check_device
from ._core.tensor import Tensor

STATE_SIZE = 5056  # bytes, as PyTorch's CPU generator state
_FIELDS = (("state", 16), ("inc", 16), ("has_uint32", 4), ("uinteger", 4), ("seed", 8))


class Generator:
    """A seedable stream of random numbers (PyTorch's `torch.Generator`, CPU only)."""

    def __init__(self, device="cpu"):
        self.device = check_device(device, "Generator")
        self.manual_seed(int(np.random.SeedSequence().entropy % (2 ** 63)))

    def manual_seed(self, seed):
        """Restart the stream from `seed`; returns the generator, as PyTorch's does."""
        seed = int(seed)
        self._seed = seed
        self.np = np.random.default_rng(seed % (2 ** 64))
        return self

    def seed(self):
        """Reseed from fresh entropy and return the new seed."""
        new = int(np.random.SeedSequence().entropy % (2 ** 63))
        self.manual_seed(new)
        return new

    def initial_seed(self):
        return self._seed

    def get_state(self):
        """The state as a uint8 tensor, for `set_state` to restore."""
        pcg = self.np.bit_generator.state
        values = dict(pcg["state"], has_uint32=pcg["has_uint32"], uinteger=pcg["uinteger"],
                      seed=self._seed % (2 ** 64))
        packed = b"".join(int(values[name]).to_bytes(size, "little") for name, size in _FIELDS)
        state = np.zeros(STATE_SIZE, np.uint8)
        state[:len(packed)] = np.frombuffer(packed, np.uint8)
        return Tensor(state)

    def set_state(self, new_state):
        """Restore a state that `get_state` (or `fluxgrad.get_rng_state`) returned."""
        if not isinstance(new_state, Tensor):
            raise TypeError(f"set_state: expected a uint8 tensor from get_state(), but got "
                            f"{type(new_state).__name__}")
        if new_state._data.dtype != np.uint8:
            raise TypeError(f"set_state: the state must be a uint8 tensor from get_state(), "
                            f"got dtype {new_state.dtype}")
        if new_state._data.shape != (STATE_SIZE,):
            raise RuntimeError(f"set_state: expected a state of {STATE_SIZE} bytes (from "
                               f"get_state()), got shape {list(new_state.shape)}")
        packed, values, at = new_state._data.tobytes(), {}, 0
        for name, size in _FIELDS:
            values[name] = int.from_bytes(packed[at:at + size], "little")
            at += size
        if not isinstance(self.np.bit_generator, np.random.PCG64):
            self.np = np.random.Generator(np.random.PCG64())
        self.np.bit_generator.state = {
            "bit_generator": "PCG64", "state": {"state": values["state"], "inc": values["inc"]},
            "has_uint32": values["has_uint32"], "uinteger": values["uinteger"]}
        self._seed = values["seed"]
        return self

    def __repr__(self):
        return f"<fluxgrad.Generator seed={self._seed}>"


default_generator = Generator()


def numpy_generator(generator):
    """The NumPy Generator that `generator=` (None, a fluxgrad or NumPy Generator) names."""
    if generator is None:
        return default_generator.np
    if isinstance(generator, Generator):
        return generator.np
    if isinstance(generator, np.random.Generator):
        return generator
    raise TypeError(f"generator must be a fluxgrad.Generator, got {type(generator).__name__}")
