"""Random programs that write in place into values the graph has saved, for any library with
PyTorch's API: which of them fail at backward (a saved value was modified by an in-place op:
the version counter), and the gradients of those that don't.

A program draws a chain of steps on a non-leaf tensor made from a leaf: an op (some save
their input for backward, some their output, some nothing), a view of the current value
(slices with steps, transpose, diagonal, unfold, narrow, as_strided, expand), or an in-place
write (add_, mul_, copy_, clamp_, masked_fill_, index_put_, exp_, zero_) into the current value
or one of its views. `run(m, leaf)` replays it and returns the scalar to differentiate.
"""
import numpy as np

OPS = {
    "exp": lambda m, h: h.exp(),            # saves its output
    "sin": lambda m, h: h.sin(),            # saves its input
    "mul_self": lambda m, h: h * h,         # saves both inputs
    "add_one": lambda m, h: h + 1.0,        # saves nothing
    "sigmoid": lambda m, h: m.sigmoid(h),   # saves its output
    "relu": lambda m, h: m.relu(h),         # saves its output
    "matmul_t": lambda m, h: h @ h.mT,      # saves both
    "sum_keep": lambda m, h: h.sum(-1, keepdim=True) + h,  # saves nothing
    "pow3": lambda m, h: h ** 3,            # saves its input
    "tanh": lambda m, h: m.tanh(h),         # saves its output
    "div_const": lambda m, h: h / 3.0,      # saves nothing
}

VIEWS = {
    "slice_step": lambda m, h: h[::2],
    "slice_col": lambda m, h: h[:, 1:],
    "transpose": lambda m, h: h.transpose(0, 1),
    "diagonal": lambda m, h: h.diagonal(),
    # (windows apart: PyTorch writes overlapping windows once per copy, an accident of its
    # loop order, where fluxgrad writes each element once)
    "unfold": lambda m, h: h.unfold(1, 2, 2),
    "narrow": lambda m, h: h.narrow(0, 1, 2),
    "select": lambda m, h: h[1],
    "as_strided": lambda m, h: h.as_strided((2, 2), (1, 3), 1),
    "view_flat": lambda m, h: h.view(-1),
}

WRITES = {
    "add_": lambda m, v: v.add_(0.5),
    "mul_": lambda m, v: v.mul_(1.5),
    "copy_": lambda m, v: v.copy_(m.ones_like(v) * 0.25),
    "clamp_": lambda m, v: v.clamp_(-0.5, 0.5),
    "masked_fill_": lambda m, v: v.masked_fill_(v > 0, 0.1),
    "index_put_": lambda m, v: v.index_put_((m.tensor([0]),), m.tensor(0.75, dtype=v.dtype)),
    "exp_": lambda m, v: v.exp_(),
    "zero_": lambda m, v: v.zero_(),
    "setitem": lambda m, v: v.__setitem__(0, 2.0),
}


class Program:
    def __init__(self, seed):
        self.rng = r = np.random.default_rng(seed)
        self.x = r.uniform(-1, 1, (3, 3))
        self.steps = []
        for _ in range(int(r.integers(2, 7))):
            kind = r.choice(["op", "op", "write", "view_write"])
            if kind == "op":
                self.steps.append(("op", str(r.choice(list(OPS)))))
            elif kind == "write":
                self.steps.append(("write", str(r.choice(list(WRITES)))))
            else:
                self.steps.append(("view_write", str(r.choice(list(VIEWS))),
                                   str(r.choice(list(WRITES)))))
        self.weight = r.uniform(-1, 1, (3, 3))

    def run(self, m, leaf):
        h = leaf * 1.0  # (a non-leaf: writes into it are allowed)
        keep = []
        for step in self.steps:
            if step[0] == "op":
                h = OPS[step[1]](m, h)
                if h.shape != (3, 3):
                    h = h[..., :3, :3] if h.ndim == 2 else h
                keep.append(h)
            elif step[0] == "write":
                WRITES[step[1]](m, h)
            else:
                v = VIEWS[step[1]](m, h)
                WRITES[step[2]](m, v)
        # every value the program made feeds the loss (the written ones at their last version)
        return sum((k * m.tensor(self.weight, dtype=k.dtype)).sum() for k in keep) + \
            (h * m.tensor(self.weight, dtype=h.dtype)).sum()

    def describe(self):
        return " -> ".join("/".join(s) for s in self.steps)
