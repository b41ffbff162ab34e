"""Training steps under `compile`: the eager state a traced function reads and writes becomes
implicit inputs and outputs of its program (functionalization, as AOTAutograd and Paddle do).

While `tracing.trace` runs the function, a `Tracer` stands between it and the eager objects it
captures. "Tracked" tensors are the parameters and buffers of every Module called, the
parameters of every optimizer stepped, and any leaf tensor that requires grad.
- An op that reads a tracked tensor reads its current value in the trace: at first a data
  Variable of the program (a lifted input), named after the module attribute.
- `.grad` of a tracked tensor is read and assigned virtually (the first read lifts the eager
  gradient, or gives None); an in-place op on a tracked tensor (`p.add_`,
  `running_mean.mul_`) gives it a new value in the trace. Nothing eager changes.
- `backward()` stages the VJP (`static.transforms.vjp`) of the loss w.r.t. the current values
  of the tracked leaves that require grad, and adds each result to the leaf's `.grad` (or
  makes it the `.grad`), as the eager engine does.
- `opt.zero_grad()` / `module.zero_grad()` / `p.clear_grad()` and `opt.step()` (or
  `opt.minimize(loss)`) of SGD (Momentum), Adam (AdamW), RMSprop, Adagrad and Lamb stage their
  updates (the formulas of `optim._static`), with their `grad_clip` (ClipGradByGlobalNorm,
  ByNorm, ByValue); so do `nn.utils.clip_grad_norm_` and `clip_grad_value_`. The
  optimizer's state tensors and step counts and each group's learning rate are lifted
  inputs, so the next step count or a scheduler's new lr needs no new trace.
Every slot whose value changed is an output of the program.

`Binding` (a trace's `state`) then serves each call: `read()` gives the lifted inputs'
current arrays, `write(arrays)` writes the new values back into the eager objects (in place
where eager mode writes in place: parameters, buffers, an existing `.grad`, state tensors;
so references to `p`, `p.grad` and `opt.state` stay valid; `in_place` names, per output,
the lifted input whose array the generated code may write that new value into after its last
read, and then nothing is copied), and `holds()` checks the
guards: what the trace took as fixed (which `.grad` were None, which optimizer state
existed, the optimizers' other options, each module's `training` flag, the tracked tensors'
shapes and dtypes). A call whose guards fail traces again (`run`).

Refused at trace time with a clear error: `backward()` with `create_graph`, `retain_graph`
or `inputs`, a second backward through the same ops, a backward reaching an argument that
requires grad or a tensor with a hook, an optimizer, `step(closure)` or `grad_clip` not
listed above, `clip_grad_norm_(error_if_nonfinite=True)`, an LR scheduler stepped inside,
an in-place op writing a staged value into an untracked captured tensor.

Not covered (eager code that reads or writes arrays directly, `_data` or `.numpy()`, sees the
Variables' stand-ins): custom optimizers' `step`, GradScaler. The entry points above are
patched on their classes while a trace runs, so tracing is not thread-safe.
"""
import contextlib
import types

import numpy as np

from .. import random_ops
from .._core.grad_mode import state as _grad_state
from .._core.strict import state as _strict
from .._core.tensor import Tensor
from ..static import transforms
from ..static.program import Variable, user_line

_GRAD = Tensor.grad
_BEFORE_INPLACE = Tensor._before_inplace
_REBASE_INPLACE = Tensor._rebase_inplace
_MAX_VARIANTS = 8


@contextlib.contextmanager
def attributes_set(patches):
    """Each `(owner, name, value)` of `patches` set while the block runs; the old values back
    after it, however it ends."""
    saved = [(owner, name, vars(owner)[name]) for owner, name, _ in patches]
    try:
        for owner, name, value in patches:
            setattr(owner, name, value)
        yield
    finally:
        for owner, name, value in saved:
            setattr(owner, name, value)


class Slot:
    """One piece of eager state: `kind` is "data" (a tensor's values), "grad" (its `.grad`),
    "state" (an optimizer's per-parameter entry `key`) or "lr" (a group's learning rate)."""
    __slots__ = ("kind", "owner", "key", "input", "value", "written", "fresh", "source")

    def __init__(self, kind, owner, key, input, value):
        self.kind, self.owner, self.key = kind, owner, key
        self.input = input  # the lifted data Variable, or None (no eager value was read)
        self.value = value  # the value now in the trace: a Tensor, or None for a `.grad`
        self.written = False
        self.fresh = input is None  # eager mode would make a new object, not write in place
        self.source = None


class Tracer:
    """The trace's view of the eager state (see the module docstring)."""

    def __init__(self, program, fn, arg_inputs, arg_tensors):
        self.program, self.fn = program, fn
        self.tracked = {}  # id -> tensor
        self.names = {}  # id -> a readable name
        self.slots = {}  # (kind, id(owner), key) -> Slot, in order of first use
        self.guards = []  # (read the value now, value at trace time, what it is)
        self.modules = set()
        self.backwarded = set()  # ids of equations a backward() went through
        self.grad_args = {id(v) for v, t in zip(arg_inputs, arg_tensors) if t._requires_grad}
        self.wrote = False
        self._name_captured_modules(fn)

    def _name_captured_modules(self, fn):
        """Name the parameters and buffers of the Modules `fn` captures after the variable
        that holds them (`model.0.weight`), before any is lifted."""
        from ..nn.module import Module
        code = getattr(fn, "__code__", None)
        if code is None:
            return
        cells = [(n, c.cell_contents) for n, c in zip(code.co_freevars, fn.__closure__ or ())
                 if _has_contents(c)]
        found = cells + [(n, fn.__globals__[n]) for n in code.co_names
                         if n in getattr(fn, "__globals__", {})]
        for prefix, value in found:
            if isinstance(value, Module):
                for name, t in list(value.named_parameters()) + list(value.named_buffers()):
                    if t is not None:
                        self.track(t, f"{prefix}.{name}")

    # --- tracked tensors and their values ----------------------------------------------
    def tracks(self, t):
        if id(t) in self.tracked:
            return True
        if t._requires_grad and t._grad_fn is None:
            self.track(t)
            return True
        return False

    def track(self, t, name=None):
        self.tracked.setdefault(id(t), t)
        if name is not None:
            self.names.setdefault(id(t), name)

    def _name(self, t):
        name = self.names.get(id(t))
        if name is None:
            name = self.names[id(t)] = t.name if isinstance(t.name, str) and t.name else \
                f"t{len(self.names)}"
        return name

    def _lift(self, base, array):
        name = "".join(c if c.isalnum() or c == "_" else "_" for c in base).strip("_") or "s"
        if not name.isidentifier():
            name = f"p{name}"
        candidate, k = name, 1
        while candidate in self.program.vars:
            candidate, k = f"{name}_{k}", k + 1
        var = self.program.new_var(array.shape, array.dtype, name=candidate, is_data=True)
        self.program.data.append(var)
        return var

    def _slot(self, kind, owner, key, make):
        slot = self.slots.get((kind, id(owner), key))
        if slot is None:
            slot = self.slots[(kind, id(owner), key)] = make()
        return slot

    def data(self, t):
        """The slot of tracked tensor `t`'s values."""
        def make():
            data = t._data
            self.guards.append((lambda: (t._data.shape, t._data.dtype, t._requires_grad),
                                (data.shape, data.dtype, t._requires_grad),
                                f"the shape, dtype or requires_grad of {self._name(t)}"))
            var = self._lift(self._name(t), data)
            slot = Slot("data", t, None, var, var)
            slot.source = user_line()
            return slot
        return self._slot("data", t, None, make)

    def lift(self, inputs):
        """`inputs` of an op with tracked eager tensors replaced by their current values."""
        lifted = None
        for i, x in enumerate(inputs):
            if isinstance(x, Tensor) and not isinstance(x, Variable) and self.tracks(x):
                if lifted is None:
                    lifted = list(inputs)
                lifted[i] = self.data(x).value
        return inputs if lifted is None else tuple(lifted)

    def write_data(self, t, value):
        slot = self.data(t)
        if value._data.dtype != t._data.dtype:
            value = value.astype(t.dtype)
        slot.value, slot.written = value, True
        self.wrote = True

    def grad(self, t):
        """The slot of `t.grad` (the first read lifts the eager gradient)."""
        def make():
            g = t._grad
            self.guards.append((lambda: t._grad is None, g is None,
                                f"whether {self._name(t)}.grad is None"))
            if g is None:
                return Slot("grad", t, None, None, None)
            var = self._lift(self._name(t) + "_grad", g._data)
            return Slot("grad", t, None, var, var)
        return self._slot("grad", t, None, make)

    def set_grad(self, t, value, fresh=True):
        slot = self.grad(t)
        slot.value, slot.written = value, True
        slot.fresh = slot.fresh or fresh
        self.wrote = True

    # --- patched eager entry points ----------------------------------------------------
    @contextlib.contextmanager
    def patched(self):
        """Route the eager entry points that touch state through this tracer while tracing."""
        from ..nn import utils
        from ..nn.module import Module
        from ..nn.utils import clip_grad
        from ..optim.lbfgs import LBFGS
        from ..optim.lr_scheduler import LRScheduler, ReduceLROnPlateau
        from ..optim.optimizer import Optimizer
        tracer = self

        def get_grad(t):
            if isinstance(t, Variable) or not tracer.tracks(t):
                return t._grad
            return tracer.grad(t).value

        def set_grad(t, value):
            if isinstance(t, Variable) or not tracer.tracks(t):
                return _GRAD.fset(t, value)
            old = t._grad
            _GRAD.fset(t, value)  # its checks of shape and dtype
            t._grad = old
            tracer.set_grad(t, value)

        def module_call(module, *args, **kwargs):
            tracer.module_called(module)
            return call(module, *args, **kwargs)

        def tensor_zero_grad(t, set_to_zero=True):
            if isinstance(t, Variable) or not tracer.tracks(t):
                return zero_grad(t, set_to_zero)
            tracer.zero_grad([t], set_to_none=not set_to_zero)

        def minimize(opt, loss, startup_program=None, parameters=None, no_grad_set=None):
            if parameters is not None or no_grad_set is not None:
                raise NotImplementedError(
                    f"fluxgrad.compile({_fn_name(tracer.fn)}): {type(opt).__name__}.minimize "
                    "with parameters or no_grad_set inside a compiled function is not "
                    "supported; call loss.backward() and opt.step()")
            tracer.backward([loss])
            tracer.step(opt)

        zero_grad = Tensor.zero_grad
        patches = [
            (Tensor, "grad", property(get_grad, set_grad, doc=_GRAD.__doc__)),
            (Tensor, "zero_grad", tensor_zero_grad),
            (Tensor, "clear_grad", tensor_zero_grad),
            (Tensor, "clear_gradient", tensor_zero_grad),
            (clip_grad, "clip_grad_norm_", self.clip_grad_norm_),
            (clip_grad, "clip_grad_value_", self.clip_grad_value_),
            (utils, "clip_grad_norm_", self.clip_grad_norm_),
            (utils, "clip_grad_value_", self.clip_grad_value_),
            (clip_grad.ClipGradByValue, "__call__",
             lambda c, params: tracer.clip_grad_value_(clip_grad._clipped_params(params),
                                                       c.max, c.min)),
            (Optimizer, "minimize", minimize),
            (Tensor, "_before_inplace", lambda t, *others: tracer._before_inplace(t, *others)),
            (Tensor, "_rebase_inplace", lambda t, result: tracer._rebase_inplace(t, result)),
            (Module, "__call__", module_call),
            (Module, "zero_grad", lambda m, set_to_none=True: tracer.zero_grad(
                m.parameters(), set_to_none)),
            (Optimizer, "zero_grad", lambda opt, set_to_none=True: tracer.zero_grad(
                [p for g in opt.param_groups for p in g["params"]], set_to_none)),
            (Optimizer, "step", lambda opt, closure=None: tracer.step(opt, closure)),
            (LBFGS, "step", lambda opt, closure=None: tracer.step(opt, closure)),
            (LRScheduler, "step", lambda s, *args, **kwargs: tracer.scheduler_step(s)),
            (ReduceLROnPlateau, "step", lambda s, *args, **kwargs: tracer.scheduler_step(s)),
        ]
        call = Module.__call__
        with attributes_set(patches):
            yield self

    def module_called(self, module):
        if id(module) in self.modules:
            return
        for m in module.modules():
            if id(m) not in self.modules:
                self.modules.add(id(m))
                self.guards.append((lambda m=m: m.training, m.training,
                                    f"{type(m).__name__}.training"))
        for name, p in module.named_parameters():
            self.track(p, name)
        for name, b in module.named_buffers():
            if b is not None:
                self.track(b, name)

    def _before_inplace(self, t, *others):
        if self.tracks(t):
            return self.data(t).value
        return _BEFORE_INPLACE(t, *others)

    def _rebase_inplace(self, t, result):
        if self.tracks(t):
            if t._grad_fn is None and t._requires_grad and _grad_state.enabled:
                raise RuntimeError(
                    f"a leaf tensor of shape {list(t.shape)} that requires grad is being "
                    "modified in place; do it under fluxgrad.no_grad(), or on a copy (x = x + y)")
            if tuple(result._data.shape) != tuple(t._data.shape):
                raise RuntimeError(f"an in-place op would change the shape {list(t.shape)} to "
                                   f"{list(result.shape)}; use an out-of-place op")
            self.write_data(t, result)
            return t
        if isinstance(result, Variable):
            raise NotImplementedError(
                f"fluxgrad.compile({_fn_name(self.fn)}): an in-place op (at "
                f"{user_line()}) writes a value computed from the traced inputs into a tensor "
                f"of shape {list(t.shape)} that the compiled function captures but fluxgrad "
                "does not track (it tracks modules' parameters and buffers, optimizers' "
                "parameters and tensors that require grad). Use an out-of-place op "
                "(total = total + loss), or call the function without compile")
        return _REBASE_INPLACE(t, result)

    def scheduler_step(self, scheduler):
        raise NotImplementedError(
            f"fluxgrad.compile({_fn_name(self.fn)}): {type(scheduler).__name__}.step() inside "
            "a compiled function would change the learning rate once, while tracing; call "
            "scheduler.step() outside it (the compiled step reads each group's lr at every "
            "call)")

    # --- backward ----------------------------------------------------------------------
    def backward(self, tensors, grad_tensors=None, retain_graph=None, create_graph=False,
                 inputs=None, **kwargs):
        where = f"fluxgrad.compile({_fn_name(self.fn)}): backward() inside a compiled function"
        for flag, what in ((create_graph, "create_graph=True"), (retain_graph, "retain_graph"),
                           (inputs is not None, "inputs="), (kwargs, "grad_variables")):
            if flag:
                raise NotImplementedError(f"{where} with {what} is not supported; call the "
                                          "function without compile")
        tensors = [tensors] if isinstance(tensors, Tensor) else list(tensors)
        if grad_tensors is not None:
            grad_tensors = [grad_tensors] if isinstance(grad_tensors, Tensor) or not \
                isinstance(grad_tensors, (tuple, list)) else list(grad_tensors)
        for t in tensors:
            if not isinstance(t, Variable) or t.program is not self.program:
                raise RuntimeError("element 0 of tensors does not require grad and does not "
                                   "have a grad_fn (inside fluxgrad.compile: the loss does not "
                                   "depend on the arguments or on any parameter)")
        leaves = [s for s in self.slots.values() if s.kind == "data" and
                  s.owner._requires_grad and s.owner._grad_fn is None and
                  isinstance(s.value, Variable)]
        path, _ = transforms._path(self.program, [s.value for s in leaves] +
                                   [v for v in self.program.data if id(v) in self.grad_args],
                                   tensors)
        if not path:
            raise RuntimeError(
                f"backward(): the tensor (shape {list(tensors[0].shape)}) does not require grad "
                "and has no grad_fn: it was not computed from any tensor with "
                "requires_grad=True. Set requires_grad=True (stop_gradient=False) on the inputs "
                "you want gradients for, and don't compute it under no_grad().")
        for i, t in enumerate(tensors):
            if _strict.pytorch and grad_tensors is None and t._data.size != 1:
                raise RuntimeError(f"backward(): grad can be implicitly created only for scalar "
                                   f"outputs, and outputs[{i}] has shape {list(t.shape)}; pass "
                                   "a gradient (strict PyTorch mode is on)")
        ids = {id(eq) for eq in path}
        for eq in path:
            if any(id(x) in self.grad_args for x in eq.inputs):
                raise NotImplementedError(
                    f"{where} reaches an argument that requires grad (at {eq.source}); its "
                    ".grad can't be written by compiled code yet. Pass it with "
                    "requires_grad=False, or call the function without compile")
        if ids & self.backwarded:
            raise RuntimeError(
                f"{where}: trying to backward through the graph a second time (part of it was "
                "already backpropagated by an earlier backward() in this function, whose "
                "saved values eager mode frees); compute the loss again, or call the function "
                "without compile")
        self.backwarded |= ids
        grads = transforms.vjp(tensors, [s.value for s in leaves], grad_tensors)
        for slot, g in zip(leaves, grads):
            if g is None:
                continue
            t = slot.owner
            if t._hooks:
                raise NotImplementedError(
                    f"{where}: {self._name(t)} has a hook (register_hook), which compiled code "
                    "does not run; remove it, or call the function without compile")
            old = self.grad(t)
            if old.value is None:
                self.set_grad(t, g)
            else:
                self.set_grad(t, old.value + g, fresh=False)

    # --- optimizers --------------------------------------------------------------------
    def zero_grad(self, params, set_to_none=True):
        for p in params:
            self.track(p)
            g = self.grad(p).value
            if g is None:
                continue
            if set_to_none:
                self.set_grad(p, None)
            else:
                self.set_grad(p, Tensor(np.zeros(g._data.shape, g._data.dtype)), fresh=False)

    def step(self, opt, closure=None):
        from .. import param_attr
        from ..optim import _static
        from ..optim.lamb import Lamb
        from ..optim.optimizer import SGD, Adagrad, Adam, RMSprop
        name = type(opt).__name__
        where = f"fluxgrad.compile({_fn_name(self.fn)}): {name}.step() inside a compiled function"
        supported = (SGD, Adam, RMSprop, Adagrad, Lamb)
        if not isinstance(opt, supported) or type(opt)._update is not next(
                c for c in supported if isinstance(opt, c))._update:
            raise NotImplementedError(
                f"{where} is not supported (compiled steps: SGD, Momentum, Adam, AdamW, RMSprop, "
                "Adagrad, Lamb); call the function without compile")
        if closure is not None:
            raise NotImplementedError(f"{where} with a closure is not supported; call the "
                                      "closure and step() in the compiled function instead")
        clip = opt.grad_clip
        self.guards.append((lambda: (opt.grad_clip, _options(opt.grad_clip)),
                            (clip, _options(clip)), f"{name}.grad_clip"))
        if clip is not None:
            from ..nn.utils import clip_grad
            if type(clip) not in (clip_grad.ClipGradByGlobalNorm, clip_grad.ClipGradByNorm,
                                  clip_grad.ClipGradByValue):
                raise NotImplementedError(f"{where} with a grad_clip of type "
                                          f"{type(clip).__name__} is not supported; call the "
                                          "function without compile")
            clip([p for group in opt.param_groups for p in group["params"]])
        self.guards.append((lambda: [[id(p) for p in g["params"]] for g in opt.param_groups],
                            [[id(p) for p in g["params"]] for g in opt.param_groups],
                            f"the parameters of {name}"))
        for i, group in enumerate(opt.param_groups):
            for key, value in group.items():
                if key not in ("params", "lr", "initial_lr"):
                    self.guards.append((lambda group=group, key=key: group.get(key), value,
                                        f"{name}.param_groups[{i}][{key!r}]"))
            for p in group["params"]:
                self.track(p)
                g = self.grad(p).value
                if g is None:
                    continue
                if group.get("maximize"):
                    g = -g
                options = dict(group, lr=self.lr(opt, i, group, p._data.dtype))
                value = self.data(p).value
                if "regularizer" in group or param_attr.active():  # PaddlePaddle's ones
                    g, options = param_attr.adjusted(p, value, g, options)
                state = _OptimizerState(self, opt, p)
                if isinstance(opt, Lamb):
                    new = _static._lamb(self._lamb_decay(opt, p), options, value, g, state)
                else:
                    new = _static._update(opt, options, value, g, state)
                self.write_data(p, new)

    def _lamb_decay(self, opt, p):
        """What `optim._static`'s Lamb rule reads of the optimizer: whether its
        `exclude_from_weight_decay_fn` excludes the parameter `p` (asked of the eager
        parameter, as `Lamb.step` asks it; guarded: the trace depends on the answer)."""
        if opt._exclude is None:
            return types.SimpleNamespace(_exclude=None)
        excluded = bool(opt._exclude(p))
        self.guards.append((lambda: bool(opt._exclude(p)), excluded,
                            f"Lamb's exclude_from_weight_decay_fn({self._name(p)})"))
        return types.SimpleNamespace(_exclude=lambda _: excluded)

    def clip_grad_norm_(self, parameters, max_norm, norm_type=2.0, error_if_nonfinite=False):
        """`nn.utils.clip_grad_norm_` on the trace's gradients (the same formula)."""
        from .. import ops
        params = [parameters] if isinstance(parameters, Tensor) else list(parameters)
        for p in params:
            self.track(p)
        grads = [(p, self.grad(p).value) for p in params]
        grads = [(p, g) for p, g in grads if g is not None]
        if not grads:
            return Tensor(np.zeros((), np.float32))
        if error_if_nonfinite:
            raise NotImplementedError(
                f"fluxgrad.compile({_fn_name(self.fn)}): clip_grad_norm_(error_if_nonfinite="
                "True) inside a compiled function would raise depending on a traced value; "
                "pass error_if_nonfinite=False, or call the function without compile")
        norm_type = float(norm_type)
        if norm_type == np.inf:
            total = None
            for _, g in grads:
                m = g.abs().max()
                total = m if total is None else ops.maximum(total, m)
        else:
            total = sum((g.abs() ** norm_type).sum() for _, g in grads) ** (1 / norm_type)
        total = total.astype(grads[0][1].dtype)
        scale = ops.minimum(max_norm / (total + 1e-6), 1.0)  # scaled only when below 1
        for p, g in grads:
            self.set_grad(p, g * scale, fresh=False)
        return total

    def clip_grad_value_(self, parameters, clip_value, low=None):
        """`nn.utils.clip_grad_value_` (and Paddle's ClipGradByValue) on the trace's
        gradients."""
        params = [parameters] if isinstance(parameters, Tensor) else list(parameters)
        low = -clip_value if low is None else low
        for p in params:
            self.track(p)
            g = self.grad(p).value
            if g is not None:
                self.set_grad(p, g.clip(low, clip_value), fresh=False)

    def lr(self, opt, i, group, dtype):
        def make():
            var = self._lift(f"lr{i}" if len(opt.param_groups) > 1 else "lr",
                             np.asarray(group["lr"], dtype))
            return Slot("lr", group, dtype, var, var)
        return self._slot("lr", group, np.dtype(dtype).str, make).value

    # --- the result --------------------------------------------------------------------
    def written(self):
        """The slots whose value changed, and the values to output (None: `.grad` = None)."""
        slots = [s for s in self.slots.values() if s.written and s.value is not s.input]
        return slots, [s.value for s in slots if s.value is not None]

    def captured_grad_reads(self):
        """Data slots of tensors that require grad, read by a trace that wrote nothing."""
        if self.wrote:
            return []
        return [s for s in self.slots.values() if s.kind == "data" and s.owner._requires_grad]


class _OptimizerState:
    """`optim._static`'s state interface over an eager optimizer's `state[p]`."""

    def __init__(self, tracer, opt, p):
        self.tracer, self.opt, self.p = tracer, opt, p
        eager = opt.state.get(p, {})
        tracer.guards.append((lambda: tuple(opt.state.get(p, ())), tuple(eager),
                              f"which {type(opt).__name__} state {tracer._name(p)} has"))
        self.first = not eager
        self.of_value = {}

    def __call__(self, slot, init=0.0, shape=None):
        tracer, p = self.tracer, self.p
        dtype = p._data.dtype

        def make():
            eager = self.opt.state.get(p, {})
            if slot in eager:
                value = np.asarray(eager[slot], dtype)
                var = tracer._lift(f"{tracer._name(p)}_{slot}", value)
                return Slot("state", (self.opt, p), slot, var, var)
            shape_ = p._data.shape if shape is None else shape
            return Slot("state", (self.opt, p), slot, None, Tensor(np.full(shape_, init, dtype)))
        value = tracer._slot("state", p, (id(self.opt), slot), make).value
        self.of_value[id(value)] = slot
        return value

    def set(self, var, value):
        slot = self.tracer.slots[("state", id(self.p), (id(self.opt), self.of_value[id(var)]))]
        slot.value, slot.written = value, True

    def on_first_step(self, first, later):
        return first if self.first else later


class Binding:
    """How a compiled call reads and writes the eager state of its trace (module docstring)."""

    def __init__(self, tracer, slots, n_results, lifted):
        readers = {id(s.input): _reader(s) for s in tracer.slots.values() if s.input is not None}
        self.reads = [readers[id(v)] for v in lifted]
        read = {id(v) for v in lifted}
        # `.grad`s the step replaces without reading them: dropped before the code runs, as
        # eager zero_grad() drops them before the forward (their memory is free for it)
        self.drops = [s.owner for s in slots if s.kind == "grad" and s.fresh and
                      id(s.input) not in read]
        self.writes, self.in_place = [], {}
        k = n_results
        for s in slots:
            index = None if s.value is None else k
            k += s.value is not None
            self.writes.append((s.kind, s.owner, s.key, s.fresh, index))
            if index is not None and id(s.input) in read and s.kind != "lr" and \
                    not (s.kind == "grad" and s.fresh):
                # the generated code may write the new value into the array it read
                self.in_place[index] = s.input
        self.guards = tracer.guards
        self.n_results = n_results
        self.variants = []

    def read(self):
        """The current arrays of the lifted state the program reads."""
        return [read() for read in self.reads]

    def release(self):
        """Drop the `.grad`s the call replaces without reading them (before it runs)."""
        for t in self.drops:
            t._grad = None

    def holds(self):
        for read, value, _ in self.guards:
            if read() != value:
                return False
        return True

    def mismatch(self):
        for read, value, what in self.guards:
            now = read()
            if now != value:
                return f"{what} changed: {value!r} -> {now!r}"
        return "the eager state changed"

    def write(self, arrays, taken):
        """Write the new values `arrays` back; `taken`: the arrays the call read or returns
        (a new value sharing memory with one of them, or with another new value, is copied:
        each eager buffer is its own)."""
        taken = {_root(a) for a in taken}
        for kind, owner, key, fresh, index in self.writes:
            value = None if index is None else arrays[index - self.n_results]
            if value is not None and value is _eager_array(kind, owner, key):
                if kind == "data":  # the code wrote the new values in place
                    owner._bump_version()
                continue
            if value is not None:
                root = _root(value)
                if root in taken or not value.flags.writeable:
                    value = value.copy()
                else:
                    taken.add(root)
            if kind == "data":
                np.copyto(owner._data, value)
                owner._bump_version()
            elif kind == "grad":
                if value is None:
                    owner._grad = None
                elif not fresh and owner._grad is not None:
                    np.copyto(owner._grad._data, value)
                else:
                    owner._grad = Tensor._make(value)
            else:
                opt, p = owner
                entries = opt.state.setdefault(p, {})
                old = entries.get(key)
                if key in opt._state_numbers:
                    number = value.item()
                    entries[key] = int(number) if old is None or type(old) is int else number
                elif isinstance(old, np.ndarray) and old.shape == value.shape:
                    np.copyto(old, value)
                else:
                    entries[key] = value


def _eager_array(kind, owner, key):
    """The eager array a slot's new value is written into, or None."""
    if kind == "data":
        return owner._data
    if kind == "grad":
        return owner._grad._data if owner._grad is not None else None
    if kind == "state":
        opt, p = owner
        entry = opt.state.get(p, {}).get(key)
        return entry._data if isinstance(entry, Tensor) else entry
    return None


def _root(array):
    while isinstance(array.base, np.ndarray):
        array = array.base
    return id(array)


def _reader(slot):
    owner, kind = slot.owner, slot.kind
    if kind == "data":
        return lambda: owner._data
    if kind == "grad":
        return lambda: owner._grad._data
    if kind == "lr":
        dtype = slot.input._data.dtype
        return lambda: np.asarray(owner["lr"], dtype)
    opt, p = owner
    key, dtype = slot.key, slot.input._data.dtype

    def read():
        value = opt.state[p][key]
        if isinstance(value, Tensor) and value._data.dtype == dtype:
            return value._data  # itself, not a copy: the code may write its new value there
        return np.asarray(value, dtype)
    return read


def run(compiled, entry, arrays, args, kwargs, tensors):
    """A call of `compiled` whose trace reads or writes eager state: the guards checked (else
    a variant traced earlier for the same arguments whose guards hold, else a new trace), the
    code run, the new state written back. `arrays` are the results of a call that just traced."""
    from . import arguments, signature
    binding = entry.traced.state
    variants = binding.variants
    if arrays is None and not binding.holds():
        entry = next((v for v in variants if v is not entry and v.traced.state.holds()), None)
        if entry is None:
            reason = binding.mismatch()
            entry, arrays = compiled._retrace(args, kwargs, tensors)
            if entry.eager:  # fullgraph=False and the new trace failed: it ran eagerly
                return arrays.value
            compiled.traces[-1] = compiled.traces[-1]._replace(reason=reason)
            if random_ops.draws_in(entry.traced.program):
                arrays = None  # the trace's own run was undone: this call draws
            if entry.traced.state is None:
                return signature.unflatten(entry.traced.out_structure,
                                           iter(arguments.results(entry.traced, tensors, arrays)))
            variants.insert(0, entry)
            del variants[_MAX_VARIANTS:]
            entry.traced.state.variants = variants
        compiled._use(args, kwargs, tensors, entry)
        binding = entry.traced.state
    elif not variants:
        variants.append(entry)
    inputs = [t._data for t in tensors] + binding.read()
    binding.release()
    if arrays is None:
        arrays = entry.forward(*inputs)
    n = binding.n_results
    binding.write(arrays[n:], inputs + list(arrays[:n]))
    return signature.unflatten(entry.traced.out_structure,
                               iter(arguments.results(entry.traced, tensors, arrays)))


def refuse_check(compiled):
    raise NotImplementedError(
        f"fluxgrad.compile({_fn_name(compiled.fn)}, check=True): the function writes eager "
        "state (a training step), so running it eagerly to compare would take a second step; "
        "check=True is not supported for training steps yet")


def _options(obj):
    return None if obj is None else dict(vars(obj))


def _has_contents(cell):
    try:
        cell.cell_contents
    except ValueError:  # an empty cell
        return False
    return True


def _fn_name(fn):
    return getattr(fn, "__name__", type(fn).__name__)
