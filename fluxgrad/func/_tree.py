"""Nested tuples, lists and dicts of tensors ("trees"): flatten to a list and rebuild."""
from .._core.tensor import Tensor


def flatten(tree):
    """(leaves, rebuild): the tensors of `tree` in order, and a function that puts new ones back."""
    leaves = []

    def walk(node):
        if isinstance(node, (tuple, list)):
            parts = [walk(n) for n in node]
            kind = type(node)
            if hasattr(node, "_fields"):  # a namedtuple, such as max's (values, indices)
                return lambda it: kind(*(p(it) for p in parts))
            return lambda it: kind(p(it) for p in parts)
        if isinstance(node, dict):
            parts = {k: walk(v) for k, v in node.items()}
            return lambda it: {k: p(it) for k, p in parts.items()}
        if isinstance(node, Tensor):
            leaves.append(node)
            return lambda it: next(it)
        return lambda it: node

    build = walk(tree)
    return leaves, lambda new_leaves: build(iter(new_leaves))


def tree_map(fn, tree):
    leaves, rebuild = flatten(tree)
    return rebuild([fn(x) for x in leaves])


def is_tree_of_tensors(tree):
    """Whether `tree` is a tensor, or a nested tuple/list/dict holding only tensors (and some)."""
    if isinstance(tree, (tuple, list)):
        return len(tree) > 0 and all(is_tree_of_tensors(t) for t in tree)
    if isinstance(tree, dict):
        return len(tree) > 0 and all(is_tree_of_tensors(t) for t in tree.values())
    return isinstance(tree, Tensor)
