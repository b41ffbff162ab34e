"""The graph picture: exact structure of a small graph, its DOT text, rendering."""
import re
import shutil

import pytest

import fluxgrad as fg
from fluxgrad import viz


def _z_graph():
    x = fg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = fg.tensor([4.0, 5.0, 6.0], requires_grad=True)
    z = x ** 2 + 4 * y
    return viz.draw(z), x, y, z


def _one(graph, kind, title=None):
    found = graph.find(kind, title)
    assert len(found) == 1, (kind, title, found)
    return found[0].id


def _expected_z_edges(g):
    x, y, z = (_one(g, "tensor", n) for n in "xyz")
    pow_, mul, add = (_one(g, "op", n) for n in ("pow", "mul", "add"))
    two, four = _one(g, "const", "2"), _one(g, "const", "4")
    (x2,) = [e.dst for e in g.edges if e.src == pow_ and e.kind == "data"]
    (y4,) = [e.dst for e in g.edges if e.src == mul and e.kind == "data"]
    b_add, b_pow, b_mul = (_one(g, "backward", n)
                           for n in ("AddBackward", "PowBackward", "MulBackward"))
    acc_x, acc_y = (e.dst for e in g.edges if e.kind == "link" and e.src in (x, y))
    data = {(x, pow_), (two, pow_), (pow_, x2), (four, mul), (y, mul), (mul, y4),
            (x2, add), (y4, add), (add, z)}
    grad = {(b_add, b_pow), (b_add, b_mul), (b_pow, acc_x), (b_mul, acc_y)}
    link = {(z, b_add), (x2, b_pow), (y4, b_mul), (x, acc_x), (y, acc_y)}
    return data, grad, link


def test_graph_of_x_squared_plus_4y_has_exactly_the_expected_vertices():
    g, *_ = _z_graph()
    kinds = sorted(v.kind for v in g.vertices.values())
    assert kinds == sorted(["tensor"] * 5 + ["op"] * 3 + ["const"] * 2 + ["backward"] * 3
                           + ["accumulate"] * 2)
    assert sorted(v.title for v in g.find("op")) == ["add", "mul", "pow"]
    assert sorted(v.title for v in g.find("backward")) == ["AddBackward", "MulBackward",
                                                          "PowBackward"]
    assert sorted(v.title for v in g.find("tensor")) == ["", "", "x", "y", "z"]
    assert [v.title for v in g.find("accumulate")] == ["AccumulateGrad"] * 2


def test_graph_of_x_squared_plus_4y_has_exactly_the_expected_edges():
    g, *_ = _z_graph()
    data, grad, link = _expected_z_edges(g)
    assert g.edge_set("data") == data
    assert g.edge_set("grad") == grad
    assert g.edge_set("link") == link
    assert len(g.edges) == len(data) + len(grad) + len(link)


def test_dot_text_has_exactly_the_expected_edges_and_labels():
    g, *_ = _z_graph()
    data, grad, link = _expected_z_edges(g)
    edges = set()
    for src, dst, attrs in re.findall(r"^\s*(\w+) -> (\w+)(?: \[(.*)\])?;$", g.source, re.M):
        edges.add((dst, src) if "dir=back" in attrs else (src, dst))
    assert edges == data | grad | link
    labels = dict(re.findall(r'^\s*(\w+) \[label="([^"]*)"', g.source, re.M))
    assert set(labels) == set(g.vertices)
    x = _one(g, "tensor", "x")
    assert labels[x] == r"x\nfloat32[3]\nleaf"
    assert labels[_one(g, "backward", "MulBackward")] == "MulBackward"


def test_without_backward_only_the_forward_graph_is_drawn():
    x = fg.tensor([1.0, 2.0], requires_grad=True)
    g = viz.draw(x * 3, backward=False)
    assert {v.kind for v in g.vertices.values()} == {"tensor", "op", "const"}
    assert "cluster_backward" not in g.source


def test_stopped_input_is_grey_and_gradient_shapes_show_after_backward():
    w = fg.tensor([[1.0, 2.0]], requires_grad=True)
    c = fg.tensor([3.0, 4.0])
    out = (w * c).sum()
    out.backward(retain_graph=True)
    g = viz.draw(out, params={"weight": w})
    (weight,) = g.find("tensor", "weight")
    assert "grad float32[1, 2]" in weight.lines
    (c_vertex,) = g.find("tensor", "c")
    assert "stop_gradient" in c_vertex.lines and "#eeeeee" in c_vertex.style


def test_two_paths_meet_at_one_backward_node_per_op():
    a = fg.tensor(2.0, requires_grad=True)
    b = a * a
    g = viz.draw(b + b)
    assert len(g.find("backward", "MulBackward")) == 1
    assert len(g.find("accumulate")) == 1


def test_record_modules_groups_ops_and_collapse_merges_them():
    model = fg.nn.Linear(3, 2)
    outer = fg.nn.Module()
    outer.layer = model
    with viz.record_modules(outer) as mods:
        out = outer.layer(fg.ones(4, 3)).sum()
    g = viz.draw(out, modules=mods, params=dict(outer.named_parameters()))
    assert {v.module for v in g.find("op")} == {"layer", None}
    assert "subgraph cluster_forward_layer" in g.source
    small = viz.draw(out, modules=mods, collapse=1)
    assert [v.title for v in small.find("op")] == ["sum", "layer"]


def test_draw_rejects_non_tensors():
    with pytest.raises(TypeError, match="not a Tensor"):
        viz.draw([1.0])


def test_rendering_without_dot_says_how_to_install(monkeypatch):
    graphviz = pytest.importorskip("graphviz")
    monkeypatch.setenv("PATH", "")
    g, *_ = _z_graph()
    assert g.source.startswith("digraph")
    with pytest.raises(RuntimeError, match="apt-get install graphviz"):
        g.pipe("png")
    assert "text/plain" in g._repr_mimebundle_()


@pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz's dot is not installed")
def test_renders_a_non_empty_png(tmp_path):
    pytest.importorskip("graphviz")
    g, *_ = _z_graph()
    path = g.render(tmp_path / "z.png")
    data = open(path, "rb").read()
    assert data.startswith(b"\x89PNG") and len(data) > 1000
    assert "image/svg+xml" in g._repr_mimebundle_()


def test_command_line_writes_the_example(tmp_path, capsys):
    from fluxgrad.viz.__main__ import main
    main([str(tmp_path / "g.dot"), "--example", "mlp"])
    text = (tmp_path / "g.dot").read_text()
    assert "hidden.weight" in text and "LinearBackward" in text
