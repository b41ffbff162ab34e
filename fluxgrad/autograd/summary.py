"""`graph_summary(t)`: the backward graph behind `t` as a text table, with the memory it holds."""
from .._core.node import Node, is_stand_in
from .._core.tensor import Tensor

__all__ = ["graph_summary", "GraphSummary"]


class GraphSummary:
    """The table: `rows` (one per backward node, in the order backward runs them) and
    `total_bytes` (distinct arrays held by saved buffers). Printing it shows the table."""

    def __init__(self, rows, total_bytes):
        self.rows = rows
        self.total_bytes = total_bytes

    def __str__(self):
        header = ("#", "node", "op", "inputs", "saved buffers", "bytes")
        table = [header] + [(str(i), r["node"], r["op"], r["inputs"], r["saved"],
                             _size(r["bytes"])) for i, r in enumerate(self.rows)]
        widths = [max(len(row[c]) for row in table) for c in range(len(header))]
        lines = []
        for n, row in enumerate(table):
            cells = [cell.rjust(w) if c in (0, 5) else cell.ljust(w)
                     for c, (cell, w) in enumerate(zip(row, widths))]
            lines.append("  ".join(cells).rstrip())
            if n == 0:
                lines.append("  ".join("-" * w for w in widths))
        lines.append(f"{len(self.rows)} nodes; saved buffers hold {_size(self.total_bytes)} "
                     "(arrays shared by several nodes counted once)")
        return "\n".join(lines)

    __repr__ = __str__


def graph_summary(*tensors):
    """A table of the backward graph that produced `tensors`: each node, where its inputs
    come from, the buffers it saved for backward (shapes and sizes), and the total memory
    those buffers hold. `print(fluxgrad.autograd.graph_summary(loss))`."""
    order = _topological(tensors)
    index = {id(node): i for i, node in enumerate(order)}
    seen_arrays = {}
    rows = []
    for node in order:
        inputs = []
        for edge in node.edges:
            if edge is None:
                inputs.append("-")
            elif isinstance(edge[0], Node):
                inputs.append(f"#{index[id(edge[0])]}" + (f"[{edge[1]}]" if edge[1] else ""))
            else:
                leaf = edge[0]
                inputs.append(f"leaf {leaf.name}" if leaf.name else
                              f"leaf {leaf.dtype.name}{list(leaf.shape)}")
        saved, nbytes = [], 0
        arrays = []
        if node.inputs is not None:
            arrays = [x._data for x in node.inputs if isinstance(x, Tensor)]
            out = node.out_data
            if out is not None:
                arrays += list(out) if isinstance(out, tuple) else [out]
            arrays = [a for a in arrays if not is_stand_in(a)]
        if not arrays:
            saved.append("(freed)")
        else:
            for a in arrays:
                saved.append(f"{a.dtype.name}{list(a.shape)}")
                nbytes += a.nbytes
                seen_arrays[id(a)] = a
        rows.append(dict(node=node.name(), op=node.prim.name, inputs=", ".join(inputs),
                         saved=", ".join(saved), bytes=nbytes))
    total = sum(a.nbytes for a in _distinct_buffers(seen_arrays.values()))
    return GraphSummary(rows, total)


def _distinct_buffers(arrays):
    """Arrays that own distinct memory: a view is counted with its base."""
    bases = {}
    for a in arrays:
        base = a
        while base.base is not None and hasattr(base.base, "nbytes"):
            base = base.base
        bases[id(base)] = base
    return bases.values()


def _topological(tensors):
    """Nodes in the order backward runs them (Kahn's algorithm, as the engine does)."""
    roots = [t._grad_fn for t in tensors if isinstance(t, Tensor) and t._grad_fn is not None]
    deps, stack = {}, list(roots)
    seen = {id(n) for n in roots}
    while stack:
        node = stack.pop()
        for edge in node.edges:
            if edge is not None and isinstance(edge[0], Node):
                deps[id(edge[0])] = deps.get(id(edge[0]), 0) + 1
                if id(edge[0]) not in seen:
                    seen.add(id(edge[0]))
                    stack.append(edge[0])
    ready = [n for n in dict.fromkeys(roots) if deps.get(id(n), 0) == 0]
    ready.reverse()
    order = []
    while ready:
        node = ready.pop()
        order.append(node)
        for edge in reversed(node.edges):
            if edge is not None and isinstance(edge[0], Node):
                deps[id(edge[0])] -= 1
                if deps[id(edge[0])] == 0:
                    ready.append(edge[0])
    return order


def _size(n):
    for unit in ("B", "KiB", "MiB", "GiB"):
        if n < 1024 or unit == "GiB":
            return f"{n} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
