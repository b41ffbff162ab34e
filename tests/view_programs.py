"""Random chains of views with in-place writes through them, for any library with PyTorch's API.

A program starts from a non-leaf `base` (the leaf times 1) and draws steps: a chain of one to
three views of the base or of an earlier view (transpose, permute, expand, view, reshape,
narrow, diagonal, as_strided, unfold, split, chunk, unbind, real, slices), an in-place write
into the base or a view (add_, mul_, copy_, zero_, clamp_, `[...] =`, fill_), or an op that
saves its input for backward (sin, a product). Writes into an expanded view or into an output of
split / chunk / unbind, and backward through a saved value written since, are errors in
PyTorch; a program keeps them, and `run` raises where the library does. The value to
differentiate reads the base, every view (at its latest version) and every saved op's result.
"""
import numpy as np

VIEWS = {
    "t": lambda m, v: v.transpose(0, -1),
    "permute": lambda m, v: v.permute(*reversed(range(v.ndim))),
    "expand": lambda m, v: v.unsqueeze(0).expand(2, *v.shape),
    "view_flat": lambda m, v: v.view(-1),
    "view_split": lambda m, v: v.view(2, -1),
    "reshape_flat": lambda m, v: v.reshape(-1),  # a view where it can be, else a copy
    "narrow": lambda m, v: v.narrow(-1, 1, 2),
    "narrow0": lambda m, v: v.narrow(0, 0, 2),
    "diagonal": lambda m, v: v.diagonal(),
    "diagonal_off": lambda m, v: v.diagonal(1, 0, -1),
    "as_strided": lambda m, v: v.as_strided((2, 2), (1, 2), 1),
    "unfold_apart": lambda m, v: v.unfold(-1, 2, 2),
    "unfold_overlap": lambda m, v: v.unfold(0, 2, 1),
    "split": lambda m, v: v.split(2, 0)[-1],
    "chunk": lambda m, v: v.chunk(2, -1)[0],
    "unbind": lambda m, v: v.unbind(0)[1],
    "real": lambda m, v: v.real,
    "slice_step": lambda m, v: v[::2],
    "select": lambda m, v: v[1],
    "ellipsis": lambda m, v: v[..., 1:],
}

WRITES = {
    "add_": lambda m, v: v.add_(0.5),
    "add_tensor": lambda m, v: v.add_(v.detach() * 0 + 0.25),
    "mul_": lambda m, v: v.mul_(1.5),
    "copy_": lambda m, v: v.copy_(m.ones_like(v) * 0.75),
    "zero_": lambda m, v: v.zero_(),
    "fill_": lambda m, v: v.fill_(-0.5),
    "clamp_": lambda m, v: v.clamp_(-0.4, 0.6),
    "setitem": lambda m, v: v.__setitem__(..., 2.0),
    "setitem_first": lambda m, v: v.__setitem__(0, -1.0),
}

SAVING = {
    "sin": lambda m, v: v.sin(),
    "square": lambda m, v: v * v,
    "exp": lambda m, v: v.exp(),
}

# writes whose value PyTorch leaves to its loop order through an overlapping view (each copy
# of an entry reads the other's write)
ORDER_DEPENDENT = {"add_", "add_tensor", "mul_", "setitem_first"}


class Program:
    def __init__(self, seed):
        rng = np.random.default_rng(seed)
        shapes = [(4, 3), (3, 4), (4, 4), (2, 3, 4), (4, 2, 3)]
        self.x = rng.uniform(-1, 1, shapes[int(rng.integers(len(shapes)))])
        self.steps = []
        n_views = 0
        expanded = []  # whether each view reads an expand
        for _ in range(int(rng.integers(2, 7))):
            kind = str(rng.choice(["view", "view", "write", "write", "save"]))
            source = int(rng.integers(-1, n_views)) if n_views else -1  # -1: the base
            if kind == "view":
                chain = [str(rng.choice(sorted(VIEWS))) for _ in range(int(rng.integers(1, 4)))]
                # (as_strided reads memory: fluxgrad's only agrees on a contiguous tensor's)
                chain = [name for k, name in enumerate(chain) if name != "as_strided" or
                         k == 0 and source < 0] or ["t"]
                self.steps.append(("view", source, chain))
                expanded.append("expand" in chain or source >= 0 and expanded[source])
                n_views += 1
            elif kind == "write":
                write = str(rng.choice(sorted(WRITES)))
                if write == "setitem_first" and source >= 0 and expanded[source]:
                    # (PyTorch writes into a part of a broadcast that doesn't overlap itself;
                    # fluxgrad refuses every write into a broadcast)
                    write = "setitem"
                self.steps.append(("write", source, write))
            else:
                self.steps.append(("save", source, str(rng.choice(sorted(SAVING)))))
        self.weight = rng.uniform(-1, 1, self.x.shape)

    def overlapping(self):
        """Whether a write that depends on PyTorch's loop order meets an overlapping view."""
        writes = {s[2] for s in self.steps if s[0] == "write"}
        return bool(writes & ORDER_DEPENDENT) and any(
            s[0] == "view" and ("unfold_overlap" in s[2] or "expand" in s[2])
            for s in self.steps)

    def run(self, m, leaf):
        """The value to differentiate and the base (raises where the library refuses a step)."""
        base = leaf * 1.0
        views, saved = [], []
        for kind, source, what in self.steps:
            target = base if source < 0 else views[source]
            if kind == "view":
                for name in what:
                    target = VIEWS[name](m, target)
                views.append(target)
            elif kind == "write":
                WRITES[what](m, target)
            else:
                saved.append(SAVING[what](m, target))
        total = (base * m.tensor(self.weight)).sum()
        for v in views + saved:
            total = total + (v * v).sum() * 0.5
        return total, base

    def describe(self):
        return f"x {list(self.x.shape)}: " + "; ".join(
            f"{kind} {'base' if source < 0 else f'view{source}'} {what}"
            for kind, source, what in self.steps)
