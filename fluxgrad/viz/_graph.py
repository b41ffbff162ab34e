"""Build a picture of the recorded graph and write it as DOT.

The forward side is rebuilt from the backward nodes: a node's `inputs` are the
forward op's arguments and the node stands for the op itself; a tensor is
identified by its node and output index (a leaf by itself). After a backward
pass that freed the buffers, only the edges remain, so constants and stopped
inputs of freed nodes can no longer be shown (pass retain_graph=True to see them);
nor can tensor inputs that no rule of their node reads, which nodes never keep.
"""
import contextlib
import shutil
import sys
import weakref
from dataclasses import dataclass, field

from .._core.node import Node, is_stand_in
from .._core.tensor import Tensor

_NO_PACKAGE = ("rendering needs the `graphviz` Python package: pip install graphviz "
               "(or pip install 'fluxgrad[viz]'). The DOT text is in `.source` meanwhile.")
_NO_DOT = ("rendering needs Graphviz's `dot` program, which was not found on PATH. Install "
           "Graphviz: `apt-get install graphviz` (Debian/Ubuntu), `brew install graphviz` "
           "(macOS), `conda install graphviz`, or see https://graphviz.org/download/. "
           "The DOT text is in `.source` meanwhile.")


def find_dot():
    """The path of Graphviz's `dot` program, or None when it is not installed."""
    return shutil.which("dot")


_STYLE = {
    "tensor": 'shape=box, style="rounded,filled", fillcolor="#ffffff"',
    "leaf": 'shape=box, style="rounded,filled", fillcolor="#c9e7c9"',
    "stopped": 'shape=box, style="rounded,filled", fillcolor="#eeeeee", fontcolor="#888888", '
               'color="#aaaaaa"',
    "const": 'shape=plaintext, fontcolor="#888888"',
    "op": 'shape=ellipse, style=filled, fillcolor="#fde9c9"',
    "backward": 'shape=box, style=filled, fillcolor="#cfe2f3"',
    "accumulate": 'shape=box, style=filled, fillcolor="#9fc5e8"',
}
_LEGEND_NODES = {
    "leaf": "leaf tensor (requires grad)",
    "tensor": "tensor",
    "stopped": "tensor without grad",
    "const": "constant",
    "op": "forward op",
    "backward": "backward node (grad_fn)",
    "accumulate": "AccumulateGrad (into .grad)",
}
_LEGEND_EDGES = {"data": "forward data", "grad": "gradient", "link": "tensor to its node"}
_EDGE_STYLE = {
    "data": "",
    "grad": 'dir=back, color="#3d85c6"',
    "link": 'style=dashed, color="#aaaaaa", arrowhead=none, minlen=0',
}


@dataclass
class Vertex:
    """One box of the picture. `kind`: tensor, const, op, backward or accumulate."""
    id: str
    kind: str
    title: str
    lines: list = field(default_factory=list)
    style: str = ""
    module: str = None
    obj: object = None

    @property
    def label(self):
        return "\n".join(([self.title] if self.title else []) + self.lines)


@dataclass(frozen=True)
class Edge:
    """`kind`: data (forward, input -> op -> output), grad (backward node -> the node
    its cotangent goes to) or link (tensor -> its grad_fn / leaf -> AccumulateGrad)."""
    src: str
    dst: str
    kind: str


class Graph:
    """The picture: `vertices` (id -> Vertex), `edges`, `.source` (DOT), rendering."""

    def __init__(self, vertices, edges, backward=True):
        self.vertices = vertices
        self.edges = edges
        self.backward = backward

    def find(self, kind=None, title=None):
        """The vertices of that kind and/or title, in drawing order."""
        return [v for v in self.vertices.values()
                if (kind is None or v.kind == kind) and (title is None or v.title == title)]

    def edge_set(self, kind=None):
        return {(e.src, e.dst) for e in self.edges if kind is None or e.kind == kind}

    @property
    def source(self):
        """The DOT text of the graph alone (pictures add a legend: `to_dot(legend=True)`)."""
        return self.to_dot()

    def to_dot(self, legend=False):
        """The DOT text; with `legend`, a small cluster explaining the shapes and colours used."""
        out = ["digraph fluxgrad {",
               '  graph [rankdir=TB, newrank=true, fontname="Helvetica", fontsize=11];',
               '  node [fontname="Helvetica", fontsize=10];',
               '  edge [fontname="Helvetica", fontsize=9];']
        sides = [("forward", ("tensor", "const", "op"))]
        if self.backward:
            sides.append(("backward", ("backward", "accumulate")))
        for side, kinds in sides:
            out.append(f"  subgraph cluster_{side} {{")
            out.append(f'    label="{side}"; color="#cccccc"; fontcolor="#666666";')
            members = [v for v in self.vertices.values() if v.kind in kinds]
            _write_clusters(out, members, "    ", side)
            out.append("  }")
        for e in self.edges:
            src, dst = (e.dst, e.src) if e.kind == "grad" else (e.src, e.dst)
            style = _EDGE_STYLE[e.kind]
            out.append(f"  {src} -> {dst}" + (f" [{style}];" if style else ";"))
        if legend:
            self._write_legend(out)
        out.append("}")
        return "\n".join(out) + "\n"

    def _write_legend(self, out):
        """One row per shape, colour or edge style the picture uses, stacked in a column."""
        styles = {v.style for v in self.vertices.values()}
        edge_kinds = {e.kind for e in self.edges}
        out.append("  subgraph cluster_legend {")
        out.append('    label="legend"; style=dashed; color="#bbbbbb"; fontcolor="#666666";')
        column = []
        for name, meaning in _LEGEND_NODES.items():
            if _STYLE[name] in styles:
                out.append(f'    legend_{name} [label="{meaning}", {_STYLE[name]}];')
                column.append(f"legend_{name}")
        for kind, meaning in _LEGEND_EDGES.items():
            if kind in edge_kinds:
                a, b = f"legend_{kind}_from", f"legend_{kind}_to"
                out.append(f"    {a} [shape=point, width=0.05]; {b} [shape=point, width=0.05];")
                out.append(f"    {{rank=same; {a}; {b}}}")
                extra = f", {_EDGE_STYLE[kind]}" if _EDGE_STYLE[kind] else ""
                out.append(f'    {a} -> {b} [label="{meaning}", minlen=2{extra}];')
                column.append(a)
        for upper, lower in zip(column, column[1:]):
            out.append(f"    {upper} -> {lower} [style=invis];")
        out.append("  }")

    def to_graphviz(self, legend=True):
        """A `graphviz.Source` of this picture (needs the graphviz package)."""
        try:
            import graphviz
        except ImportError:
            raise ImportError(_NO_PACKAGE) from None
        return graphviz.Source(self.to_dot(legend=legend))

    def pipe(self, format="svg"):
        """The rendered picture, with its legend, as bytes (`format`: svg, png, pdf, ...)."""
        source = self.to_graphviz()
        if find_dot() is None:
            raise RuntimeError(_NO_DOT)
        return source.pipe(format=format)

    def render(self, path, format=None):
        """Write the picture to `path`; the format comes from the suffix unless given
        (.dot or .gv: the DOT text, legend included)."""
        path = str(path)
        if format is None:
            format = path.rsplit(".", 1)[-1].lower() if "." in path else "svg"
        if format in ("dot", "gv"):
            data = self.to_dot(legend=True).encode()
        else:
            data = self.pipe(format)
        with open(path, "wb") as f:
            f.write(data)
        return path

    save = render

    def _repr_mimebundle_(self, include=None, exclude=None):
        try:
            return {"image/svg+xml": self.pipe("svg").decode()}
        except (ImportError, RuntimeError):
            return {"text/plain": self.source}

    def __repr__(self):
        counts = {}
        for v in self.vertices.values():
            counts[v.kind] = counts.get(v.kind, 0) + 1
        parts = ", ".join(f"{n} {k}" for k, n in counts.items())
        return f"<fluxgrad.viz.Graph: {parts}; {len(self.edges)} edges>"


def _write_clusters(out, members, indent, prefix):
    """Vertices at top level, then one nested cluster per module path."""
    groups = {}
    for v in members:
        groups.setdefault(v.module.split(".")[0] if v.module else None, []).append(v)
    for v in groups.pop(None, []):
        out.append(f'{indent}{v.id} [label="{_escape(v.label)}", {v.style}];')
    for name, vs in groups.items():
        path = f"{prefix}.{name}" if prefix else name
        out.append(f"{indent}subgraph cluster_{_ident(path)} {{")
        out.append(f'{indent}  label="{_escape(name)}"; style=dashed; color="#bbbbbb";')
        inner = []
        for v in vs:
            rest = v.module.split(".", 1)[1] if "." in v.module else None
            inner.append((v, rest))
        saved = [(v, v.module) for v, _ in inner]
        for v, rest in inner:
            v.module = rest
        _write_clusters(out, [v for v, _ in inner], indent + "  ", path)
        for v, module in saved:
            v.module = module
        out.append(f"{indent}}}")


def _escape(text):
    return text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


def _ident(text):
    return "".join(c if c.isalnum() else "_" for c in text)


def _describe(t):
    return f"{t.dtype.name}{list(t.shape)}"


class _Builder:
    def __init__(self, names, modules):
        self.names = names
        self.modules = modules or {}
        self.vertices = {}
        self.edges = []
        self.edge_seen = set()
        self.tensor_ids = {}
        self.counts = {}
        self.node_ids, self.backward_ids, self.accumulators = {}, {}, {}

    def new(self, kind, prefix, title, lines=(), style=None, module=None, obj=None):
        n = self.counts.get(prefix, 0)
        self.counts[prefix] = n + 1
        v = Vertex(f"{prefix}{n}", kind, title, list(lines), _STYLE[style or kind], module, obj)
        self.vertices[v.id] = v
        return v

    def edge(self, src, dst, kind):
        e = Edge(src, dst, kind)
        if e not in self.edge_seen:
            self.edge_seen.add(e)
            self.edges.append(e)

    def tensor(self, key, t, node=None, index=0):
        """The vertex of a tensor, by key; `t` (may be None) fills in what is known about it."""
        vid = self.tensor_ids.get(key)
        if vid is not None:
            v = self.vertices[vid]
            if v.obj is None and t is not None:
                v.obj = t
                self._fill(v)
            return v
        v = self.new("tensor", "t", "", obj=t)
        v.node, v.index = node, index
        self.tensor_ids[key] = v.id
        self._fill(v)
        return v

    def _fill(self, v):
        t = v.obj
        v.title = self.names.get(id(t), "") if t is not None else ""
        if t is not None and not v.title and t.name:
            v.title = t.name
        lines = []
        if t is None:
            lines.append("(freed)")
        else:
            lines.append(_describe(t))
            if t._grad_fn is None:
                lines.append("leaf" if t._requires_grad else "stop_gradient")
                v.style = _STYLE["leaf" if t._requires_grad else "stopped"]
            if t.grad is not None:
                lines.append(f"grad {_describe(t.grad)}")
        v.lines = lines


def draw(*tensors, backward=True, params=None, modules=None, collapse=None,
         local_names=True):
    """Draw the graph that produced `tensors`: forward ops and tensors, and the backward nodes.

    - `backward`: also draw the backward graph beside the forward one (backward nodes,
      the edges gradients travel along, AccumulateGrad for leaves).
    - `params`: {name: tensor} labels, e.g. `dict(model.named_parameters())`.
    - `local_names`: also label tensors by the caller's local variable names.
    - `modules`: the table from `record_modules(model)`; ops are grouped by module.
    - `collapse`: with `modules`, an int depth: each module at that depth becomes one box
      (`collapse=1` shows `features`, `classifier`; `collapse=2` shows `features.0`, ...).

    Leaves that require grad are green, stopped tensors grey, and after a backward pass
    the tensors holding `.grad` show its shape. Returns a `Graph`: `.render("g.png")`,
    `.source` (DOT text), shown inline in Jupyter.
    """
    if not tensors:
        raise ValueError("draw() needs at least one tensor")
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    for i, t in enumerate(tensors):
        if not isinstance(t, Tensor):
            raise TypeError(f"draw(): argument {i} is a {type(t).__name__}, not a Tensor")
    names = {}
    if local_names:
        for name, value in sys._getframe(1).f_locals.items():
            if isinstance(value, Tensor) and not name.startswith("_"):
                names.setdefault(id(value), name)
    for name, value in (params or {}).items():
        names[id(value)] = name
    b = _Builder(names, modules)
    nodes = _collect(b, tensors)
    for node in nodes:
        _add_op(b, node, backward)
    for v in b.vertices.values():
        if v.kind == "tensor" and v.obj is not None and v.obj._grad_fn is None \
                and v.obj._requires_grad and backward:
            acc = b.accumulators.get(id(v.obj))
            if acc is not None:
                b.edge(v.id, acc.id, "link")
    graph = Graph(b.vertices, b.edges, backward)
    if collapse is not None:
        if not modules:
            raise ValueError("draw(collapse=...) needs modules=record_modules(model)'s table")
        graph = _collapse(graph, collapse)
    return graph


def _collect(b, roots):
    """Backward nodes reachable from the roots, depth first in edge order (deterministic)."""
    order, seen = [], set()
    stack = []
    for t in roots:
        if t._grad_fn is not None:
            b.tensor((id(t._grad_fn), t._out_index), t, t._grad_fn, t._out_index)
            stack.append(t._grad_fn)
        else:
            b.tensor(id(t), t)
    stack.reverse()
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        order.append(node)
        for edge in reversed(node.edges):
            if edge is not None and isinstance(edge[0], Node) and id(edge[0]) not in seen:
                stack.append(edge[0])
    return order


def _add_op(b, node, backward):
    module = b.modules.get(node)
    params = ", ".join(f"{k}={_short(v)}" for k, v in node.params.items() if v is not None)
    op = b.new("op", "op", node.prim.name, [params] if params else [], module=module, obj=node)
    n_out = node.n_outputs
    outs = node.outputs() if node.inputs is not None and node.out_ref is not None else None
    for i in range(n_out):
        t = (outs if node.prim.n_outputs != 1 else (outs,))[i] if outs is not None else None
        out = b.tensor((id(node), i), t, node, i)
        out.module = module
        b.edge(op.id, out.id, "data")
    inputs = node.inputs
    for i, edge in enumerate(node.edges):
        x = inputs[i] if inputs is not None else None
        if isinstance(x, Tensor) and is_stand_in(x._data):
            x = None  # a value no rule reads, not kept: only its edge is known
        if isinstance(x, Tensor):
            key = (id(x._grad_fn), x._out_index) if x._grad_fn is not None else id(x)
            b.edge(b.tensor(key, x, x._grad_fn, x._out_index).id, op.id, "data")
        elif x is not None:
            b.edge(b.new("const", "c", _short(x)).id, op.id, "data")
        elif edge is not None:
            target = edge[0]
            key = (id(target), edge[1]) if isinstance(target, Node) else id(target)
            b.edge(b.tensor(key, None if isinstance(target, Node) else target).id, op.id, "data")
    if not backward:
        return
    bw = _backward_vertex(b, node)
    bw.module = module
    for i in range(n_out):
        b.edge(b.vertices[b.tensor_ids[(id(node), i)]].id, bw.id, "link")
    for edge in node.edges:
        if edge is None:
            continue
        target = edge[0]
        if isinstance(target, Node):
            b.edge(bw.id, _backward_vertex(b, target).id, "grad")
        else:
            acc = b.accumulators.get(id(target))
            if acc is None:
                lines = [f"grad {_describe(target.grad)}"] if target.grad is not None else []
                acc = b.accumulators[id(target)] = b.new("accumulate", "acc", "AccumulateGrad",
                                                         lines, obj=target)
            b.edge(bw.id, acc.id, "grad")


def _backward_vertex(b, node):
    vid = b.backward_ids.get(id(node))
    if vid is None:
        lines = ["(buffers freed)"] if node.inputs is None else []
        vid = b.backward_ids[id(node)] = b.new("backward", "b", node.name(), lines,
                                               obj=node).id
    return b.vertices[vid]


def _short(value):
    text = repr(value) if not isinstance(value, Tensor) else _describe(value)
    return text if len(text) <= 24 else text[:21] + "..."


def _collapse(graph, depth):
    """Merge the vertices of each module (cut to `depth` dotted parts) into one box per side."""
    merged, vertices, alias, counts = {}, {}, {}, {}
    for v in graph.vertices.values():
        if v.module is None or v.kind in ("const", "accumulate") or (
                v.kind == "tensor" and v.obj is not None and v.obj._grad_fn is None):
            vertices[v.id] = v
            continue
        group = ".".join(v.module.split(".")[:depth])
        side = "backward" if v.kind == "backward" else "forward"
        key = (group, side)
        if key not in merged:
            box = Vertex(f"m{'b' if side == 'backward' else 'f'}{len(merged)}",
                         "backward" if side == "backward" else "op", group, [],
                         _STYLE["backward" if side == "backward" else "op"], group)
            merged[key] = box
            vertices[box.id] = box
        box = merged[key]
        if v.kind in ("op", "backward"):
            counts[box.id] = counts.get(box.id, 0) + 1
            box.lines = [f"{counts[box.id]} ops"]
        alias[v.id] = box.id
    edges, seen = [], set()
    for e in graph.edges:
        src, dst = alias.get(e.src, e.src), alias.get(e.dst, e.dst)
        if src == dst:
            continue
        ne = Edge(src, dst, e.kind)
        if ne not in seen:
            seen.add(ne)
            edges.append(ne)
    return Graph(vertices, edges, graph.backward)


@contextlib.contextmanager
def record_modules(model):
    """While active, remember which module ran each op: `with record_modules(m) as mods: m(x)`.

    The table (node -> dotted module name, innermost module wins) goes to
    `draw(..., modules=mods)`.
    """
    table = weakref.WeakKeyDictionary()
    handles = []
    for name, module in model.named_modules():
        if name:
            handles.append(module.register_forward_hook(_assign(table, name)))
    try:
        yield table
    finally:
        for h in handles:
            h.remove()


def _assign(table, name):
    def hook(module, args, out):
        stop = {id(a._grad_fn) for a in _tensors(args) if a._grad_fn is not None}
        stack = [t._grad_fn for t in _tensors(out) if t._grad_fn is not None]
        seen = set()
        while stack:
            node = stack.pop()
            if id(node) in seen or id(node) in stop:
                continue
            seen.add(id(node))
            if node not in table:
                table[node] = name
            stack.extend(e[0] for e in node.edges if e is not None and isinstance(e[0], Node))
    return hook


def _tensors(value):
    if isinstance(value, Tensor):
        yield value
    elif isinstance(value, (list, tuple)):
        for v in value:
            yield from _tensors(v)
    elif isinstance(value, dict):
        for v in value.values():
            yield from _tensors(v)
