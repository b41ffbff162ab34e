"""Pictures of the recorded graph: the forward ops and tensors, and beside them the backward nodes.

    g = fluxgrad.viz.draw(z)          # from the tensors you want to see the history of
    g.render("graph.png")             # or .svg; in Jupyter the object shows itself
    print(g.source)                   # the DOT text, even without Graphviz installed

Rendering needs the `graphviz` Python package (`pip install fluxgrad[viz]`) and
Graphviz's `dot` program (`apt-get install graphviz`, `brew install graphviz`,
`conda install graphviz`). `python -m fluxgrad.viz out.png` draws a small example.
"""
from ._graph import Edge, Graph, Vertex, draw, record_modules

__all__ = ["draw", "record_modules", "Graph", "Vertex", "Edge"]
