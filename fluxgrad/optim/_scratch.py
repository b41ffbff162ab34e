"""An optimizer's update `p -= lr * g` without a fresh temporary per parameter and step.

`p -= lr * g` allocates `lr * g` (a parameter-sized array) every step: for a large
parameter the allocator hands back fresh pages, and the page faults cost more than the
arithmetic. `subtract_scaled` writes the product into a buffer the optimizer keeps
(`Scratch`, at most `CHUNK` elements per dtype: a larger parameter is updated in blocks of
rows), then subtracts it in place. The values are those of `p -= lr * g`: the same product,
rounded in g's dtype, then the same subtraction.
"""
import numpy as np

CHUNK = 1 << 20  # elements: the largest scratch buffer kept (4 MiB of float32)


class Scratch(dict):
    """Flat buffers by dtype, grown on demand up to CHUNK elements."""

    def take(self, shape, size, dtype):
        buf = self.get(dtype)
        if buf is None or buf.size < size:
            buf = self[dtype] = np.empty(size, dtype)
        return buf[:size].reshape(shape)


def subtract_scaled(p, scale, g, scratch):
    """p -= scale * g, in place, the product formed in `scratch`'s buffer."""
    if type(scale) not in (float, int):
        p -= scale * g  # (a NumPy scalar may promote the product: NumPy's own result)
    elif g.size <= CHUNK:
        s = scratch.take(g.shape, g.size, g.dtype)
        np.multiply(g, scale, out=s)
        np.subtract(p, s, out=p)
    else:  # blocks of rows, or row by row (one dimension less) where a row is too large
        rows = CHUNK // (g.size // g.shape[0])
        for i in range(0, g.shape[0], max(rows, 1)):
            block = slice(i, i + rows) if rows > 1 else i
            subtract_scaled(p[block], scale, g[block], scratch)
