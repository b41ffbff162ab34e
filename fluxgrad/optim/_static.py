"""`optimizer.minimize(loss)` in static mode: the backward program plus the update equations.

The gradients of the trainable parameters the loss depends on (the others are left
alone, as in PaddlePaddle) come from the static transforms (prim on: linearize +
transpose; off: staged VJPs). Each optimizer's update is the same formula
as its eager `_update`, written in fluxgrad ops on Variables; optimizer state (moments,
step counts) lives in persistable Variables named `<param>.<slot>`, set to their
initial values by the startup program. The update formulas (`_update`) take the state
through an interface (`_State`: `state(slot, init, shape)`, `set`, `on_first_step`) that
`jit.state` also implements over an eager optimizer's `state`, for compiled training steps. Every new value is a program update, applied to
the scope after a run. The learning rate is read when `minimize` is called. A `grad_clip`
(nn.ClipGradBy*) clips the gradients first, leaving out need_clip=False parameters.
"""
import numpy as np

from .. import ops
from ..param_attr import adjusted
from ..static import staging
from .lamb import Lamb
from .optimizer import SGD, Adagrad, Adam, RMSprop


def minimize(opt, loss, parameters=None, no_grad_set=None):
    from ..incubate.autograd import prim_enabled
    from ..static.transforms import grad_prim, vjp
    from ..static.parameters import to_static_parameter
    clip = opt.grad_clip
    if clip is not None and not hasattr(clip, "clipped"):
        raise NotImplementedError(f"{type(opt).__name__}.minimize in static mode: a grad_clip "
                                  f"of type {type(clip).__name__} is not supported; use "
                                  "nn.ClipGradByGlobalNorm, ClipGradByNorm or ClipGradByValue")
    program = loss.program
    given = parameters if parameters is not None else [
        p for g in opt.param_groups for p in g["params"]]
    if given:
        params = [to_static_parameter(p) for p in given]
    else:
        params = [v for v in program.vars.values()
                  if v.persistable and getattr(v, "_requires_grad", False)]
    skip = {getattr(v, "name", v) for v in (no_grad_set or ())}
    params = [p for p in params if p.name not in skip and p._requires_grad]
    if not params:
        raise ValueError(f"{type(opt).__name__}.minimize: the program of the loss has no "
                         "trainable parameters")
    group = dict(opt.defaults)
    if opt.param_groups:
        group.update({k: v for k, v in opt.param_groups[0].items() if k != "params"})
    startup = staging.programs.startup
    with program.transaction(), startup.transaction(), staging.guard(program):
        grads = (grad_prim if prim_enabled() else vjp)([loss], params)
        pairs = [(p, g) for p, g in zip(params, grads) if g is not None]
        # as PaddlePaddle's, minimize returns the gradients before clipping
        for p, g in (pairs if clip is None else clip.clipped(pairs)):
            if group.get("maximize"):
                g = -g
            g, options = adjusted(p, p, g, group)  # PaddlePaddle's per-parameter attributes
            new_p = _update(opt, options, p, g, _State(program, p))
            program.set_update(p, new_p)
        program.check()
    return None, pairs


class _State:
    """Persistable optimizer state of one parameter, created on first use."""

    def __init__(self, program, param):
        self.program, self.param = program, param

    def __call__(self, slot, init=0.0, shape=None):
        name = f"{self.param.name}.{slot}"
        var = self.program.vars.get(name)
        if var is None:
            dims = self.param.dims if shape is None else shape
            var = self.program.new_var(dims, self.param._data.dtype, name=name, persistable=True)
            staging.programs.startup.set_update(
                var, np.full(var._data.shape, init, self.param._data.dtype))
        return var

    def set(self, var, value):
        self.program.set_update(var, value)

    def on_first_step(self, first, later):
        """`first` on the first step, `later` on the others (counted in a "step" slot)."""
        step = self("step", shape=())
        self.set(step, step + 1)
        return ops.where(step == 0, first, later)


def _update(opt, group, p, g, state):
    if isinstance(opt, Adam):
        return _adam(opt, group, p, g, state)
    if isinstance(opt, SGD):
        return _sgd(group, p, g, state)
    if isinstance(opt, RMSprop):
        return _rmsprop(group, p, g, state)
    if isinstance(opt, Adagrad):
        return _adagrad(group, p, g, state)
    if isinstance(opt, Lamb):
        return _lamb(opt, group, p, g, state)
    raise NotImplementedError(f"{type(opt).__name__}.minimize has no static-mode update; "
                              "use SGD, Momentum, Adam, AdamW, RMSprop, Adagrad or Lamb")


def _sgd(group, p, g, state):
    wd, momentum, lr = group["weight_decay"], group["momentum"], group["lr"]
    if wd:
        g = g + wd * p
    if momentum:
        buf = state("momentum_buffer")
        new = momentum * buf + (1 - group["dampening"]) * g
        if group["dampening"]:
            new = state.on_first_step(g, new)  # the first step copies the gradient
        state.set(buf, new)
        g = g + momentum * new if group["nesterov"] else new
    return p - lr * g


def _adam(opt, group, p, g, state):
    lr, wd, eps = group["lr"], group["weight_decay"], group["eps"]
    b1, b2 = group["betas"]
    if wd:
        if group["decoupled_weight_decay"]:
            p = p * (1 - lr * wd)
        else:
            g = g + wd * p
    t, m_new, v_new = _moments(state, "exp_avg", "exp_avg_sq", b1, b2, g)
    if group["amsgrad"]:
        v_max = state("max_exp_avg_sq")
        v_new = ops.maximum(v_max, v_new)
        state.set(v_max, v_new)
    denom = ops.sqrt(v_new) / ops.sqrt(1 - b2 ** t) + eps
    return p - (lr / (1 - b1 ** t)) * (m_new / denom)


def _moments(state, first, second, b1, b2, g):
    """Adam's and Lamb's step count and moving averages of g and g * g, updated in `state`
    under the names `first` and `second`: (t, new first moment, new second moment)."""
    step = state("step", shape=())
    t = step + 1
    state.set(step, t)
    m, v = state(first), state(second)
    m_new = b1 * m + (1 - b1) * g
    v_new = b2 * v + (1 - b2) * (g * g)
    state.set(m, m_new)
    state.set(v, v_new)
    return t, m_new, v_new


def _rmsprop(group, p, g, state):
    alpha, wd, momentum = group["alpha"], group["weight_decay"], group["momentum"]
    step = state("step", shape=())
    state.set(step, step + 1)  # counted, as eager RMSprop counts
    if wd:
        g = g + wd * p
    sq = state("square_avg")
    sq_new = alpha * sq + (1 - alpha) * (g * g)
    state.set(sq, sq_new)
    if group["centered"]:
        ga = state("grad_avg")
        ga_new = alpha * ga + (1 - alpha) * g
        state.set(ga, ga_new)
        avg = ops.sqrt(sq_new - ga_new * ga_new)
    else:
        avg = ops.sqrt(sq_new)
    avg = avg + group["eps"]
    if momentum:
        buf = state("momentum_buffer")
        buf_new = momentum * buf + g / avg
        state.set(buf, buf_new)
        return p - group["lr"] * buf_new
    return p - group["lr"] * (g / avg)


def _adagrad(group, p, g, state):
    step = state("step", shape=())
    t = step + 1
    state.set(step, t)
    if group["weight_decay"]:
        g = g + group["weight_decay"] * p
    clr = group["lr"] / (1 + (t - 1) * group["lr_decay"])
    acc = state("sum", init=group["initial_accumulator_value"])
    acc_new = acc + g * g
    state.set(acc, acc_new)
    return p - clr * (g / (ops.sqrt(acc_new) + group["eps"]))


def _lamb(opt, group, p, g, state):
    b1, b2 = group["betas"]
    t, m_new, v_new = _moments(state, "moment1", "moment2", b1, b2, g)
    excluded = opt._exclude is not None and bool(opt._exclude(p))
    wd = 0.0 if excluded else group["lamb_weight_decay"]
    r = (m_new / (1 - b1 ** t)) / (ops.sqrt(v_new / (1 - b2 ** t)) + group["eps"]) + wd * p
    if excluded and not group["always_adapt"]:
        return p - group["lr"] * r
    p_norm, r_norm = ops.sqrt(ops.sum(p * p)), ops.sqrt(ops.sum(r * r))
    usable = (p_norm > 0) & (r_norm > 0)  # else the trust ratio is 1
    ratio = ops.where(usable, p_norm / ops.where(usable, r_norm, 1.0), 1.0)
    return p - group["lr"] * ratio * r
