"""Random number generators: `Generator`, the `default_generator` that `manual_seed` reseeds, and
`numpy_generator`, the NumPy Generator a `generator=` argument names.

Kept apart from `fluxgrad.random` so that the random primitives (`random_ops`) and the public
sampling functions both read it.
"""
import numpy as np

from ._core.devices import check_device


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
        return dict(self.np.bit_generator.state)

    def set_state(self, state):
        self.np.bit_generator.state = state
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
