"""Optimizers: SGD, Adam, AdamW, RMSprop, Adagrad, with parameter groups and state dicts.

Updates happen in place on the parameters' arrays, outside the graph, in NumPy
(each parameter's version counter is bumped, so a graph that saved the old
value refuses to backward through it). `opt.state[p]` holds tensors, as PyTorch's
does (the moments shaped like `p`, the step count a 0-d float32 tensor); the update
works on their arrays in place. Both spellings work:
`SGD(model.parameters(), lr=0.01)` and `Adam(learning_rate=1e-3, parameters=...)`.

Bad input changes nothing: options are checked as PyTorch checks them (and NaN is
refused too), `step()` checks every gradient before it updates any parameter, and
`load_state_dict` checks the whole state before it replaces any of it.
"""
import math
import numbers
import warnings

import numpy as np

from .._core.errors import ShapeError
from .._core.static_mode import state as _static_state
from .._core.tensor import Tensor
from .. import param_attr as _param_attr
from ._scratch import Scratch, subtract_scaled
from ._state import States, arrays, count, counter, zeros_like

__all__ = ["Optimizer", "SGD", "Adam", "AdamW", "RMSprop", "Adagrad"]


def _as_real(a):
    """A complex array's (real, imaginary) pairs along a new last dimension, sharing memory."""
    return a[..., None].view(a.real.dtype)


def _update_as_real(update, p, g, state, group):
    """PyTorch's update of a complex parameter: the update of its real pairs (view_as_real),
    so that moments are kept per part; the state keeps tensors as complex as the parameter."""
    pairs_shape = p.shape + (2,)
    for value in state.values():
        if isinstance(value, Tensor) and np.iscomplexobj(value._data):
            value._data = _as_real(value._data)
    try:
        update(_as_real(p), _as_real(g), state, group)
    finally:
        for value in state.values():
            if isinstance(value, Tensor) and value._data.shape == pairs_shape:
                value._data = np.ascontiguousarray(value._data).view(p.dtype)[..., 0]


class Optimizer:
    """Base class: holds `param_groups` (dicts of 'params' plus options) and per-parameter `state`.

    A built-in subclass names its per-parameter state: `_state_tensors` (tensors shaped like
    the parameter) and `_state_numbers` (0-d tensors such as the step count). A subclass
    that writes its own `step` names none and keeps in `state[p]` what it likes.
    """

    _state_tensors = None
    _state_numbers = ()
    _optional_state = {}  # a state tensor made only under an option: {its name: the option}
    _torch_keys = ()  # the order of PyTorch's defaults (and so of a state_dict's param_groups)

    def __init__(self, params, defaults, grad_clip=None):
        if grad_clip is not None and not callable(grad_clip):
            raise TypeError(f"{type(self).__name__}: grad_clip must be a clipping object such as "
                            "fluxgrad.nn.ClipGradByGlobalNorm(1.0), got "
                            f"{type(grad_clip).__name__}")
        self.grad_clip = grad_clip
        _regularizer_option(defaults)
        if (isinstance(params, (int, float)) and not isinstance(params, bool)) or hasattr(
                params, "_attach"):
            defaults["lr"], params = params, None  # PaddlePaddle's positional learning_rate
        defaults = self.defaults = {**{k: defaults[k] for k in self._torch_keys if k in defaults},
                                   **defaults}
        self.state = States.of(self)  # as PyTorch's defaultdict(dict): self.state[p] starts empty
        self._scratch = Scratch()
        self.param_groups = []
        self._scheduler = None
        lr = defaults.get("lr")
        if hasattr(lr, "_attach"):
            self._scheduler = lr
            defaults["lr"] = lr.last_lr
        if params is None and _static_state.enabled:
            return  # static mode: minimize(loss) optimizes the parameters of loss's program
        if params is None:
            raise TypeError(f"{type(self).__name__}: pass the parameters to optimize, e.g. "
                            f"{type(self).__name__}(model.parameters(), lr=...) or "
                            "parameters=model.parameters()")
        if isinstance(params, Tensor):
            raise TypeError(f"{type(self).__name__}: params must be an iterable of tensors or of "
                            "dicts (parameter groups), not a single Tensor; wrap it in a list")
        params = list(params)
        if not params:
            raise ValueError(f"{type(self).__name__} got an empty parameter list")
        if not isinstance(params[0], dict):
            params = [{"params": params}]
        for group in params:
            self.add_param_group(group)
        if self._scheduler is not None:
            self._scheduler._attach(self)

    def add_param_group(self, group):
        group = dict(group)
        params = group["params"]
        params = [params] if isinstance(params, Tensor) else list(params)
        seen = {id(p) for g in self.param_groups for p in g["params"]}
        group["params"] = []
        for p in params:
            if not isinstance(p, Tensor):
                raise TypeError(f"{type(self).__name__}: expected tensors to optimize, got "
                                f"{type(p).__name__}")
            if not p.is_leaf:
                raise ValueError(f"{type(self).__name__} can't optimize a non-leaf tensor "
                                 f"(shape {list(p.shape)}); optimize the leaves it came from")
            if id(p) in seen:
                raise ValueError("some parameters appear in more than one parameter group "
                                 f"(one has shape {list(p.shape)}); list each parameter once")
            if any(q is p for q in group["params"]):
                warnings.warn("optimizer contains a parameter group with duplicate parameters; "
                              "in future, this will cause an error; fluxgrad keeps one copy, "
                              "so each parameter is updated once per step", UserWarning,
                              stacklevel=4)
                continue
            group["params"].append(p)
        for key, value in self.defaults.items():
            group.setdefault(key, value)
        _regularizer_option(group)
        _check_options(group, f"{type(self).__name__}: ")
        self.param_groups.append(group)

    # --- gradients ------------------------------------------------------------
    def zero_grad(self, set_to_none=True):
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is not None:
                    if set_to_none:
                        p.grad = None
                    else:
                        p.grad._data[...] = 0

    def clear_grad(self, set_to_zero=True):
        """PaddlePaddle's spelling: zero the gradients (drop them if not set_to_zero)."""
        self.zero_grad(set_to_none=not set_to_zero)

    clear_gradients = clear_grad

    def minimize(self, loss, startup_program=None, parameters=None, no_grad_set=None):
        """Backward from `loss`, then one step (gradients are not cleared). On a static
        Variable: append the backward and update equations to its program."""
        if _static_state.armed and getattr(loss, "program", None) is not None:
            from ._static import minimize
            return minimize(self, loss, parameters, no_grad_set)
        loss.backward()
        self.step()

    def step(self, closure=None):
        loss = None
        if closure is not None:
            from .._core.grad_mode import enable_grad
            with enable_grad():
                loss = closure()
        self._check_grads()
        if self.grad_clip is not None:
            self.grad_clip([p for group in self.param_groups for p in group["params"]])
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is None:
                    continue
                g = p.grad._data
                if group.get("maximize"):
                    g = -g
                state = self.state.get(p)
                if state is None:  # as PyTorch, an optimizer with no state (SGD) keeps no entry
                    state = self.state.default_factory()
                options = group
                if "regularizer" in group or _param_attr.active():
                    g, options = _param_attr.adjusted(p, p._data, g, group)
                if np.iscomplexobj(p._data):
                    _update_as_real(self._update, p._data, g, state, options)
                else:
                    self._update(p._data, g, state, options)
                if state and p not in self.state:
                    self.state[p] = state
                p._bump_version()
        return loss

    def _update(self, p, g, state, group):
        raise NotImplementedError

    def _check_grads(self):
        """Refuse a step that would fail or broadcast on some parameter, before any update:
        every group's options (they may have been set after construction), every gradient,
        and the state each update will read."""
        for i, group in enumerate(self.param_groups):
            _check_options(group, f"{type(self).__name__}.step: parameter group {i}: ",
                           values=False)
            for j, p in enumerate(group["params"]):
                g = p.grad
                if g is None:
                    continue
                state = self.state.get(p)
                if state and self._state_tensors is not None:
                    self._check_state(state, p, group, i, j)
                if not isinstance(g, Tensor):
                    raise TypeError(f"{self._where(i, j)} is a {type(g).__name__}, not a "
                                    "Tensor; nothing was updated")
                if g._data.shape != p._data.shape or g._data.dtype != p._data.dtype:
                    raise ValueError(f"{self._where(i, j)} has shape {list(g.shape)} and dtype "
                                     f"{g.dtype}, the parameter has shape {list(p.shape)} and "
                                     f"dtype {p.dtype}; nothing was updated. Set .grad to a "
                                     "tensor like the parameter, or to None")

    def _check_state(self, state, p, group, i, j):
        """The state of parameter j of group i holds, shaped like the parameter, the tensors
        that the group's options make the update read."""
        for key in self._state_tensors:
            value = state.get(key)
            option = self._optional_state.get(key)
            if value is None and option is not None and group.get(option):
                raise KeyError(f"{type(self).__name__}.step: parameter {j} in group {i} has no "
                               f"{key!r} state, which {option}={group[option]!r} needs (was "
                               f"{option} set after the first step?); nothing was updated. "
                               f"Set {option} back, or make a new optimizer")
            if isinstance(value, Tensor) and value._data.shape != p._data.shape:
                raise ShapeError(f"{type(self).__name__}.step: the state {key!r} of parameter "
                                 f"{j} in group {i} has shape {list(value.shape)}, the parameter "
                                 f"{list(p.shape)}; nothing was updated. Give it the "
                                 "parameter's shape (or load a matching state_dict)")

    def _where(self, group, index):
        return f"{type(self).__name__}.step: the gradient of parameter {index} in group {group}"

    # --- learning rate ----------------------------------------------------------
    def get_lr(self):
        """PaddlePaddle's spelling: the first group's learning rate."""
        return self.param_groups[0]["lr"]

    def set_lr(self, value):
        for group in self.param_groups:
            group["lr"] = float(value)

    # --- state ------------------------------------------------------------------
    def state_dict(self):
        """{'state': {index: {name: tensor}}, 'param_groups': [options + 'params' indices]}.
        As PyTorch's, the entries are the state's own tensors, not copies (deepcopy for a
        snapshot)."""
        index = {}
        groups = []
        for group in self.param_groups:
            packed = {k: v for k, v in group.items() if k != "params"}
            packed["params"] = []
            for p in group["params"]:
                index.setdefault(id(p), len(index))
                packed["params"].append(index[id(p)])
            groups.append(packed)
        state = {}
        for group in self.param_groups:
            for p in group["params"]:
                if p in self.state and self.state[p]:
                    state[index[id(p)]] = dict(self.state[p])
        return {"state": state, "param_groups": groups}

    def load_state_dict(self, state_dict):
        """Replace options and state with `state_dict`'s, all checked before any is replaced."""
        name = f"{type(self).__name__}.load_state_dict"
        groups = state_dict["param_groups"]
        if len(groups) != len(self.param_groups):
            raise ValueError(f"load_state_dict: the saved state has {len(groups)} parameter "
                             f"groups, this optimizer has {len(self.param_groups)}")
        params, new_groups = {}, []
        for i, (saved, group) in enumerate(zip(groups, self.param_groups)):
            if len(saved["params"]) != len(group["params"]):
                raise ValueError(f"load_state_dict: parameter group {i} has "
                                 f"{len(saved['params'])} parameters in the saved state but "
                                 f"{len(group['params'])} here")
            new = dict(group)
            new.update((key, tuple(value) if isinstance(value, list) else value)
                       for key, value in saved.items() if key != "params")
            _check_options(new, f"{name}: parameter group {i}: ", prefix_values=True)
            new_groups.append(new)
            for idx, p in zip(saved["params"], group["params"]):
                params[idx] = p
        state = {}
        for idx, entries in state_dict["state"].items():
            p = params.get(idx if isinstance(idx, int) else _index(idx))
            if p is None:
                raise ValueError(f"{name}: the saved state names parameter {idx!r}, which no "
                                 "saved parameter group holds")
            state[p] = {key: self._restore(key, value, p, f"{name}: state {key!r} of "
                                                          f"parameter {idx}")
                        for key, value in entries.items()}
        for group, new in zip(self.param_groups, new_groups):
            group.update(new)
        self.state = States.of(self)
        for p, entries in state.items():
            self.state[p].update(entries)

    def _restore(self, key, value, p, where):
        """One saved state entry as `_update` keeps it, copied: a tensor shaped like `p` (in
        its dtype), or a 0-d counter tensor. A custom optimizer's entries are kept as saved,
        tensors copied."""
        if key in self._state_numbers:
            if isinstance(value, Tensor) and value.numel() == 1:
                value = value.item()
            if isinstance(value, bool) or not isinstance(value, numbers.Real):
                raise TypeError(f"{where} is a {type(value).__name__}; it should be a number")
            return counter(value)
        if self._state_tensors is None:
            return Tensor._make(np.array(value._data)) if isinstance(value, Tensor) else value
        if key not in self._state_tensors:
            raise ValueError(f"{where} is not state of {type(self).__name__} (which keeps "
                             f"{', '.join(self._state_tensors + self._state_numbers)}); was it "
                             "saved from another optimizer?")
        if value is None and key == "momentum_buffer":
            return None
        if not isinstance(value, Tensor):
            raise TypeError(f"{where} is a {type(value).__name__}; it should be a tensor of the "
                            f"parameter's shape {list(p.shape)}, as state_dict() writes it")
        if value.shape != p.shape:
            raise ValueError(f"{where} has shape {list(value.shape)}, the parameter has "
                             f"{list(p.shape)}")
        return Tensor._make(np.array(value._data, dtype=p._data.dtype))

    set_state_dict = load_state_dict

    def __repr__(self):
        lines = [type(self).__name__ + " ("]
        for i, group in enumerate(self.param_groups):
            lines.append(f"Parameter Group {i}")
            for k, v in sorted(group.items()):
                if k != "params":
                    lines.append(f"    {k}: {v}")
        return "\n".join(lines) + "\n)"


_NON_NEGATIVE = {"lr": "learning rate", "momentum": "momentum value",
                 "dampening": "dampening value", "weight_decay": "weight_decay value",
                 "eps": "epsilon value", "alpha": "alpha value", "lr_decay": "lr_decay value",
                 "initial_accumulator_value": "initial_accumulator_value value"}


def _check_options(group, owner, prefix_values=False, values=True):
    """PyTorch's checks of optimizer options (ValueError in PyTorch's words), NaN refused too.
    `owner` starts the TypeError messages (and the ValueError ones if `prefix_values`). With
    values=False only what would make an update fail is checked (a step's check: PyTorch
    checks the values when an optimizer is made, not when it steps)."""
    prefix = owner if prefix_values else ""
    for key, what in _NON_NEGATIVE.items():
        value = group.get(key)
        if key == "lr" and hasattr(value, "_attach"):
            continue
        if value is not None and (isinstance(value, bool) or not isinstance(value, numbers.Real)):
            raise TypeError(f"{owner}{key} must be a number, got {type(value).__name__}")
        if values and value is not None and not value >= 0:
            raise ValueError(f"{prefix}Invalid {what}: {value}")
    for key in ("etas", "step_sizes"):
        if group.get(key) is not None:
            _check_pair(group[key], key, owner, prefix)
    betas = group.get("betas")
    if betas is not None:
        _check_pair(betas, "betas", owner, prefix)
        for i, beta in enumerate(betas):
            if values and not 0 <= beta < 1:
                raise ValueError(f"{prefix}Invalid beta parameter at index {i}: {beta}")


def _check_pair(pair, key, owner, prefix):
    if len(pair) != 2:
        raise ValueError(f"{prefix}{key} must be a pair of numbers, got {pair}")
    for i, value in enumerate(pair):
        if isinstance(value, bool) or not isinstance(value, (numbers.Real, Tensor)):
            raise TypeError(f"{owner}{key}[{i}] must be a number, got {type(value).__name__}")


def _index(key):
    """A state key as an int index (JSON-like round trips may turn 0 into '0')."""
    try:
        return int(key)
    except (TypeError, ValueError):
        return None


def _pick(value, paddle_value, default=None):
    if paddle_value is not None:
        return paddle_value
    return default if value is None else value


def _flags(owner, **flags):
    """PyTorch's implementation switches (foreach, fused, capturable, differentiable), kept in
    the parameter groups as PyTorch keeps them. fluxgrad has one implementation, which they
    leave as it is; differentiable=True (a step recorded for autograd) it can't do."""
    if flags.get("differentiable"):
        raise NotImplementedError(f"{owner}: differentiable=True is not supported: fluxgrad's "
                                  "optimizers update the parameters outside autograd")
    return flags


def _params(params, parameters):
    return parameters if params is None else params


def _weight_decay(value):
    """A float, or PaddlePaddle's regularizer: L2Decay as its `coeff`; L1Decay kept (an
    Optimizer moves it to the option `regularizer`, see `_regularizer_option`)."""
    if value is None:
        return 0.0
    from ..regularizer import L1Decay
    if isinstance(value, L1Decay):
        return value
    return float(getattr(value, "coeff", getattr(value, "_coeff", value)))


def _regularizer_option(options):
    """An L1Decay given as `weight_decay` becomes the option `regularizer` (its term is added
    to the gradients, see `param_attr.adjusted`), the weight decay 0."""
    from ..regularizer import L1Decay
    if isinstance(options.get("weight_decay"), L1Decay):
        options["regularizer"], options["weight_decay"] = options["weight_decay"], 0.0


class SGD(Optimizer):
    """Stochastic gradient descent with optional momentum, dampening, Nesterov and L2 decay."""

    _state_tensors = ("momentum_buffer",)

    def __init__(self, params=None, lr=1e-3, momentum=0.0, dampening=0.0, weight_decay=0.0,
                 nesterov=False, *, maximize=False, foreach=None, differentiable=False,
                 fused=None, learning_rate=None, parameters=None, grad_clip=None, name=None):
        lr = _pick(lr, learning_rate)
        if not isinstance(lr, (int, float)) and not hasattr(lr, "_attach"):
            raise TypeError(f"SGD: lr must be a number or an LRScheduler, got {type(lr).__name__}")
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("SGD: Nesterov momentum needs momentum > 0 and dampening = 0")
        super().__init__(_params(params, parameters),
                         dict(lr=lr, momentum=momentum, dampening=dampening,
                              weight_decay=_weight_decay(weight_decay), nesterov=nesterov,
                              maximize=maximize,
                              **_flags("SGD", foreach=foreach, differentiable=differentiable,
                                       fused=fused)), grad_clip)

    def _update(self, p, g, state, group):
        wd, momentum = group["weight_decay"], group["momentum"]
        if wd:
            g = g + wd * p
        if momentum:
            buf, = arrays(state, "momentum_buffer")
            if buf is None:
                buf = np.array(g, copy=True)
                state["momentum_buffer"] = Tensor._make(buf)
            else:
                buf *= momentum
                buf += (1 - group["dampening"]) * g
            g = g + momentum * buf if group["nesterov"] else buf
        subtract_scaled(p, group["lr"], g, self._scratch)


class Adam(Optimizer):
    """Adam (L2 weight decay added to the gradient, or decoupled as AdamW's with
    decoupled_weight_decay=True); `amsgrad` keeps the running max of v."""
    _torch_keys = ('lr', 'betas', 'eps', 'weight_decay', 'amsgrad', 'maximize', 'foreach',
                   'capturable', 'differentiable', 'fused', 'decoupled_weight_decay')

    _state_tensors = ("exp_avg", "exp_avg_sq", "max_exp_avg_sq")
    _state_numbers = ("step",)
    _optional_state = {"max_exp_avg_sq": "amsgrad"}

    def __init__(self, params=None, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.0,
                 amsgrad=False, *, foreach=None, maximize=False, capturable=False,
                 differentiable=False, fused=None, decoupled_weight_decay=False,
                 learning_rate=None, parameters=None, beta1=None, beta2=None, epsilon=None,
                 grad_clip=None, lazy_mode=False, name=None):
        betas = (_pick(betas[0], beta1), _pick(betas[1], beta2))
        super().__init__(_params(params, parameters),
                         dict(lr=_pick(lr, learning_rate), betas=tuple(betas),
                              eps=_pick(eps, epsilon), weight_decay=_weight_decay(weight_decay),
                              amsgrad=amsgrad, maximize=maximize,
                              decoupled_weight_decay=bool(decoupled_weight_decay),
                              **_flags(type(self).__name__, foreach=foreach,
                                       capturable=capturable, differentiable=differentiable,
                                       fused=fused)), grad_clip)

    def _update(self, p, g, state, group):
        lr, wd, eps = group["lr"], group["weight_decay"], group["eps"]
        b1, b2 = group["betas"]
        if not state:
            state["step"] = counter(0)
            state["exp_avg"] = zeros_like(p)
            state["exp_avg_sq"] = zeros_like(p)
            if group["amsgrad"]:
                state["max_exp_avg_sq"] = zeros_like(p)
        if wd:
            if group["decoupled_weight_decay"]:
                p *= 1 - lr * wd
            else:
                g = g + wd * p
        t = count(state)
        m, v, v_max = arrays(state, "exp_avg", "exp_avg_sq", "max_exp_avg_sq")
        m *= b1
        m += (1 - b1) * g
        v *= b2
        v += (1 - b2) * (g * g)
        if group["amsgrad"]:
            np.maximum(v_max, v, out=v_max)
            v = v_max
        denom = np.sqrt(v)
        denom /= math.sqrt(1 - b2 ** t)
        denom += eps
        p -= (lr / (1 - b1 ** t)) * (m / denom)


class AdamW(Adam):
    """Adam with decoupled weight decay (`p *= 1 - lr * weight_decay` before the update)."""

    def __init__(self, params=None, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2,
                 amsgrad=False, **kwargs):
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad,
                         decoupled_weight_decay=True, **kwargs)


class RMSprop(Optimizer):
    _torch_keys = ('lr', 'momentum', 'alpha', 'eps', 'centered', 'weight_decay', 'capturable',
                   'foreach', 'maximize', 'differentiable')
    _state_tensors = ("square_avg", "momentum_buffer", "grad_avg")
    _state_numbers = ("step",)
    _optional_state = {"momentum_buffer": "momentum", "grad_avg": "centered"}

    def __init__(self, params=None, lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0.0,
                 momentum=0.0, centered=False, *, capturable=False, foreach=None,
                 maximize=False, differentiable=False, learning_rate=None, parameters=None,
                 rho=None, epsilon=None, grad_clip=None, name=None):
        super().__init__(_params(params, parameters),
                         dict(lr=_pick(lr, learning_rate), alpha=_pick(alpha, rho),
                              eps=_pick(eps, epsilon), weight_decay=_weight_decay(weight_decay),
                              momentum=momentum, centered=centered, maximize=maximize,
                              **_flags("RMSprop", capturable=capturable, foreach=foreach,
                                       differentiable=differentiable)), grad_clip)

    def _update(self, p, g, state, group):
        alpha, wd, momentum = group["alpha"], group["weight_decay"], group["momentum"]
        if not state:
            state["step"] = counter(0)
            state["square_avg"] = zeros_like(p)
            if momentum:
                state["momentum_buffer"] = zeros_like(p)
            if group["centered"]:
                state["grad_avg"] = zeros_like(p)
        count(state)
        if wd:
            g = g + wd * p
        sq, ga, buf = arrays(state, "square_avg", "grad_avg", "momentum_buffer")
        sq *= alpha
        sq += (1 - alpha) * (g * g)
        if group["centered"]:
            ga *= alpha
            ga += (1 - alpha) * g
            avg = np.sqrt(sq - ga * ga)
        else:
            avg = np.sqrt(sq)
        avg += group["eps"]
        if momentum:
            buf *= momentum
            buf += g / avg
            p -= group["lr"] * buf
        else:
            p -= group["lr"] * (g / avg)


class Adagrad(Optimizer):
    _torch_keys = ('lr', 'lr_decay', 'eps', 'weight_decay', 'initial_accumulator_value', 'foreach',
                   'maximize', 'differentiable', 'fused')
    _state_tensors = ("sum",)
    _state_numbers = ("step",)

    def __init__(self, params=None, lr=1e-2, lr_decay=0.0, weight_decay=0.0,
                 initial_accumulator_value=0.0, eps=1e-10, *, foreach=None, maximize=False,
                 differentiable=False, fused=None, learning_rate=None, parameters=None,
                 epsilon=None, grad_clip=None, name=None):
        super().__init__(_params(params, parameters),
                         dict(lr=_pick(lr, learning_rate), lr_decay=lr_decay,
                              weight_decay=_weight_decay(weight_decay),
                              initial_accumulator_value=initial_accumulator_value,
                              eps=_pick(eps, epsilon), maximize=maximize,
                              **_flags("Adagrad", foreach=foreach, differentiable=differentiable,
                                       fused=fused)), grad_clip)

    def _update(self, p, g, state, group):
        if not state:
            state["step"] = counter(0)
            state["sum"] = zeros_like(p, group["initial_accumulator_value"])
        t = count(state)
        if group["weight_decay"]:
            g = g + group["weight_decay"] * p
        clr = group["lr"] / (1 + (t - 1) * group["lr_decay"])
        acc = state["sum"]._data
        acc += g * g
        p -= clr * (g / (np.sqrt(acc) + group["eps"]))
