"""Nested tuples, lists and dicts of tensors ("trees"): flatten to a list and rebuild."""
from .._core.tensor import Tensor


def flatten(tree):
    """(leaves, rebuild): the tensors of `tree` in order, and a function that puts new ones back."""
    leaves = []
    build = _builder(tree, leaves)
    return leaves, lambda new_leaves: build(iter(new_leaves))


def _builder(node, leaves):
    """A function rebuilding `node` from an iterator of new leaves; appends `node`'s tensors to
    `leaves`. (Module level, not a closure calling itself: that would be a reference cycle,
    keeping the leaves and their graphs alive until the garbage collector ran.)"""
    if isinstance(node, (tuple, list)):
        parts = [_builder(n, leaves) for n in node]
        kind = type(node)
        if hasattr(node, "_fields"):  # a namedtuple, such as max's (values, indices)
            return lambda it: kind(*(p(it) for p in parts))
        return lambda it: kind(p(it) for p in parts)
    if isinstance(node, dict):
        parts = {k: _builder(v, leaves) for k, v in node.items()}
        return lambda it: {k: p(it) for k, p in parts.items()}
    if isinstance(node, Tensor):
        leaves.append(node)
        return next
    return lambda it: node


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
