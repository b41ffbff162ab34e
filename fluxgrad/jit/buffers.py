"""Buffer reuse in generated code: which equations write their result into a dead buffer.

`plan(equations, inputs, keep, last_use, layout, ...) -> Plan` walks the equations once. An
equation qualifies when its primitive's impl is a NumPy ufunc called on its inputs alone (no
params), so that it takes the output array as one more positional argument
(`_add(a, 0.5, buf)`), and its first run gave an array with a `layout_key` (`layout`: the
key per such output: shape, dtype and the order of its memory). It then writes into a
buffer of the same key whose values nothing reads any more: in place into an input that
dies at this equation when it can, else into an earlier dead one; only when none is free is
a new array allocated. So may a matrix product in `takes_out` (`np.matmul(..., out=)`),
though never into its own inputs. A dead buffer is reused only within `_REUSE_WITHIN`
equations of its death: kept alive longer (from the forward pass into the backward pass) it
would add to the call's peak memory.

A buffer ("root") is an array that a ufunc equation of this function made, or a product
(`made`: a new array from an impl in `PRODUCTS`, with its key). Any other equation's
outputs may alias any of its inputs' roots (views: reshape, transpose, slicing; an impl
that returns its input), unless the first run found them sharing no memory with their
inputs (`fresh`: a reduction), so a root is free only once no live Variable may alias it.
A Variable in `keep` (returned: also a joint forward's residuals) never dies, so no root it
may alias is ever reused. The function's inputs are never roots: nothing derived from them
by a view is written.

`in_place` ({id(output Variable): input Variable}: a training step's new parameter and
state values, `state.Binding.in_place`) lets an output be written into the array of that
input, which then is a root: the equation that makes the output writes into it when it is
a ufunc equation of the input's shape and dtype and no live Variable may alias the input
any more (its last read is behind); no other equation ever writes there.

`Plan.out_of[id(eq)]` is the Variable whose array (the buffer) the equation writes into;
`Plan.delete_at[id(var)]` the equation after which a Variable's name is dropped: its last
use, or later when its array is a dead buffer reused there; `Plan.scratch[id(eq)]` the key of
the new array an equation allocates when no returned Variable may alias it (its memory can
serve the next call too: `codegen`'s workspaces), and `Plan.lifetimes[id(eq)]` the first and
last equation that may read that array (through any Variable aliasing it). `Plan.arrays`
lists every new array the function makes (ufunc and product buffers, other equations' new
outputs) as (bytes, first, last equation that may read it; the equation count for one that
may be returned), the function's memory over time.
"""
import numpy as np


class Plan:
    __slots__ = ("out_of", "delete_at", "scratch", "lifetimes", "arrays")

    def __init__(self, out_of, delete_at, scratch, lifetimes, arrays):
        self.out_of = out_of
        self.delete_at = delete_at
        self.scratch = scratch
        self.lifetimes = lifetimes
        self.arrays = arrays


def writes_out(eq):
    """Whether the equation's impl takes an output array as its next positional argument."""
    impl = eq.prim.impl
    if getattr(eq.prim, "writes_out", False):  # `codegen._Emitted`
        return not eq.params
    return type(impl) is np.ufunc and impl.nout == 1 and impl.nin == len(eq.inputs) and \
        not eq.params and eq.prim.n_outputs == 1


# ufuncs whose positional output argument NumPy deprecates (2.4): given as `out=` instead
_OUT_BY_KEYWORD = (np.maximum, np.minimum)


def out_argument(eq, name):
    """The argument that passes the array `name` as the equation's output."""
    return f"out={name}" if eq.prim.impl in _OUT_BY_KEYWORD else name


def layout_key(array):
    """(shape, dtype, order) of a writeable array whose elements fill one block of memory, in
    C order (order None) or in another order of its axes (the axes by decreasing stride: a
    convolution's channels-last result); None for any other array. Buffers are reused only
    for results of the same key, so a ufunc writing into one runs as fast as into its own."""
    if not array.flags.writeable:
        return None
    if array.flags.c_contiguous:
        return array.shape, array.dtype, None
    order = tuple(sorted(range(array.ndim), key=lambda k: (-array.strides[k], k)))
    if array.transpose(order).flags.c_contiguous:
        return array.shape, array.dtype, order
    return None


# primitives whose impl returns a new array on every call (never a cached one): when the first
# run gave one with a `layout_key`, it is a buffer that ufunc equations may write into once dead
PRODUCTS = {"matmul", "conv2d", "conv2d_weight", "conv2d_input", "max_pool2d_scatter"}


# a dead buffer is written again only by an equation this close after its death: held any
# longer it would add to the memory a call holds at its peak (the workspace's arena serves
# later allocations from the dead buffers' memory, see `codegen.arena_layout`)
_REUSE_WITHIN = 8


def plan(equations, inputs, keep, last_use, layout, in_place=None, fresh=(), made=None,
         takes_out=()):
    from ..static.program import Variable
    roots_of = {id(v): () for v in inputs}
    refs, holder, key_of, free = {}, {}, {}, {}
    out_of, delete_at = {}, dict(last_use)
    allocates = {}  # id(equation) -> the root it makes (a new array)
    lifetime = {}  # root -> [the equation that makes it, the last one that may read it]
    size_of = {}  # root -> its bytes (of the stand-in values where sizes are unknown)
    pinned = {}  # id(output) -> the root of the input it may be written into
    for key, v in (in_place or {}).items():
        if id(v) in last_use and id(v) not in keep and id(v) in roots_of:
            r = len(key_of)
            key_of[r], holder[r], refs[r] = (v._data.shape, v._data.dtype), v, 1
            roots_of[id(v)] = (r,)
            pinned[key] = r
    pinned_roots = set(pinned.values())
    for n, eq in enumerate(equations):
        dying = list({id(x): x for x in eq.inputs if isinstance(x, Variable) and
                      last_use.get(id(x)) == n and id(x) not in keep}.values())
        out = eq.outputs[0]
        key = layout.get(id(out)) if writes_out(eq) else \
            made.get(id(out)) if made and id(eq) in takes_out else None
        target = None
        r = pinned.get(id(out))
        if r is not None and writes_out(eq) and \
                (out._data.shape, out._data.dtype) == key_of[r] and \
                refs[r] == sum(1 for x in dying if roots_of[id(x)] == (r,)):
            # the final update of a parameter (state), after its last read
            target = r
            buffer = holder[r]
            out_of[id(eq)] = buffer
            delete_at[id(buffer)] = max(delete_at[id(buffer)], n)
            holder[r] = out
            out_roots = (r,)
        elif key is not None:
            for x in dying if writes_out(eq) else ():  # a product never writes over its input
                roots = roots_of[id(x)]
                if len(roots) == 1 and holder.get(roots[0]) is x and refs[roots[0]] == 1 \
                        and key_of[roots[0]] == key and roots[0] not in pinned_roots:
                    target = roots[0]
                    break
            if target is None and free.get(key) and n - free[key][-1][0] <= _REUSE_WITHIN:
                target = free[key].pop()[1]
            if target is None:
                target = len(key_of)
                key_of[target] = key
                allocates[id(eq)] = target
                lifetime[target], size_of[target] = [n, n], out._data.nbytes
            else:
                buffer = holder[target]
                out_of[id(eq)] = buffer
                delete_at[id(buffer)] = max(delete_at[id(buffer)], n)
            holder[target] = out
            out_roots = (target,)
        elif made and id(out) in made and eq.prim.n_outputs == 1:
            target = len(key_of)
            key_of[target], holder[target] = made[id(out)], out
            lifetime[target], size_of[target] = [n, n], out._data.nbytes
            out_roots = (target,)
        elif all(id(o) in fresh for o in eq.outputs):
            out_roots = None  # a new array each, no buffer to reuse: tracked for `arrays`
        else:
            out_roots = tuple({r: None for x in eq.inputs if isinstance(x, Variable)
                               for r in roots_of[id(x)]})
        for o in eq.outputs:
            if out_roots is None:
                r = len(key_of)
                key_of[r], holder[r], lifetime[r], size_of[r] = None, o, [n, n], o._data.nbytes
                roots_of[id(o)] = (r,)
            else:
                roots_of[id(o)] = out_roots
            if id(o) in last_use or id(o) in keep:
                for r in roots_of[id(o)]:
                    refs[r] = refs.get(r, 0) + 1
        for x in dying:
            for r in roots_of[id(x)]:
                refs[r] -= 1
                if r in lifetime:
                    lifetime[r][1] = n
                # a buffer is reachable by its holder's name (never `_`: an unused output)
                if refs[r] == 0 and id(holder[r]) in last_use and r not in pinned_roots and \
                        key_of[r] is not None:
                    free.setdefault(key_of[r], []).append((n, r))
    escaping = {r for key in keep for r in roots_of.get(key, ())}
    scratch = {k: key_of[r] for k, r in allocates.items()
               if r not in escaping and r not in pinned_roots}
    arrays = [(size_of[r], first, len(equations) if r in escaping else last)
              for r, (first, last) in lifetime.items() if r not in pinned_roots]
    return Plan(out_of, delete_at, scratch, {k: tuple(lifetime[allocates[k]]) for k in scratch},
                arrays)

