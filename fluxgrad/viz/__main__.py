"""`python -m fluxgrad.viz out.png [--example NAME]`: draw a small built-in example's graph.

Without Graphviz (its `dot` program or the `graphviz` package), the picture is written as DOT
text next to the requested file (out.dot) with the command that renders it, and the exit
status is 1.
"""
import argparse
import pathlib

import fluxgrad as fg
from fluxgrad import viz


def _example_z():
    x = fg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = fg.tensor([4.0, 5.0, 6.0], requires_grad=True)
    z = x ** 2 + 4 * y
    z.sum().backward(retain_graph=True)
    return viz.draw(z, params={"x": x, "y": y, "z": z}, local_names=False)


class _MLP(fg.nn.Module):
    def __init__(self):
        super().__init__()
        self.hidden = fg.nn.Linear(4, 8)
        self.out = fg.nn.Linear(8, 2)

    def forward(self, x):
        return self.out(fg.tanh(self.hidden(x)))


def _example_mlp():
    fg.manual_seed(0)
    model = _MLP()
    x = fg.randn(3, 4)
    with viz.record_modules(model) as modules:
        loss = (model(x) ** 2).mean()
    loss.backward(retain_graph=True)
    return viz.draw(loss, params=dict(model.named_parameters()) | {"x": x, "loss": loss},
                    modules=modules, local_names=False)


EXAMPLES = {"z": _example_z, "mlp": _example_mlp}


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m fluxgrad.viz",
                                     description=__doc__.split(":", 1)[1].strip())
    parser.add_argument("output", help="file to write: .png, .svg, .pdf, or .dot for DOT text")
    parser.add_argument("--example", choices=sorted(EXAMPLES), default="z",
                        help="z: z = x**2 + 4*y (default); mlp: a two-layer network's loss")
    args = parser.parse_args(argv)
    graph = EXAMPLES[args.example]()
    try:
        path = graph.render(args.output)
    except (ImportError, RuntimeError) as e:
        target = pathlib.Path(args.output)
        fallback = graph.render(target.with_suffix(".dot"))
        fmt = target.suffix.lstrip(".") or "svg"
        parser.exit(1, f"couldn't render {target}: {e}\nwrote the DOT text to {fallback} "
                       f"instead; once Graphviz is installed, render it with:\n"
                       f"  dot -T{fmt} {fallback} -o {target}\n")
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
