"""L-BFGS, as PyTorch's `optim.LBFGS` (itself after minFunc), step for step.

All parameters form one flat vector; `step(closure)` re-evaluates the loss and gradients
through `closure` as often as it needs (up to `max_iter` iterations and `max_eval`
evaluations per step), with a fixed step `lr` or a strong-Wolfe line search. The updates
happen in place on the parameters' arrays, outside the graph, like the other optimizers; the
history (directions, steps, curvature) is kept across steps in the state of the first
parameter, as PyTorch keeps it (vectors and curvatures as tensors, counters as ints).
"""
import numpy as np

from .._core.grad_mode import enable_grad
from .._core.tensor import Tensor
from .optimizer import Optimizer

__all__ = ["LBFGS"]


def _cubic_interpolate(x1, f1, g1, x2, f2, g2, bounds=None):
    """The minimiser of the cubic through (x1, f1, g1) and (x2, f2, g2), clamped to `bounds`
    (the interval itself by default); its midpoint when the cubic has no minimum."""
    xmin_bound, xmax_bound = bounds if bounds is not None else (min(x1, x2), max(x1, x2))
    d1 = g1 + g2 - 3 * (f1 - f2) / (x1 - x2)
    d2_square = d1 ** 2 - g1 * g2
    if d2_square < 0:
        return (xmin_bound + xmax_bound) / 2.0
    d2 = np.sqrt(d2_square)
    if x1 <= x2:
        min_pos = x2 - (x2 - x1) * ((g2 + d2 - d1) / (g2 - g1 + 2 * d2))
    else:
        min_pos = x1 - (x1 - x2) * ((g1 + d2 - d1) / (g1 - g2 + 2 * d2))
    return min(max(min_pos, xmin_bound), xmax_bound)


def _strong_wolfe(obj_func, t, d, f, g, gtd, c1=1e-4, c2=0.9, tolerance_change=1e-9,
                  max_ls=25):
    """A step t along d meeting the strong Wolfe conditions: (f, g, t, evaluations)."""
    d_norm = np.abs(d).max()
    g = g.copy()
    f_new, g_new = obj_func(t, d)
    ls_func_evals = 1
    gtd_new = g_new.dot(d)
    t_prev, f_prev, g_prev, gtd_prev = 0, f, g, gtd
    done = False
    ls_iter = 0
    # bracket an interval holding a point that meets the conditions
    while ls_iter < max_ls:
        if f_new > (f + c1 * t * gtd) or (ls_iter > 1 and f_new >= f_prev):
            bracket, bracket_f = [t_prev, t], [f_prev, f_new]
            bracket_g, bracket_gtd = [g_prev, g_new.copy()], [gtd_prev, gtd_new]
            break
        if abs(gtd_new) <= -c2 * gtd:
            bracket, bracket_f, bracket_g = [t], [f_new], [g_new]
            done = True
            break
        if gtd_new >= 0:
            bracket, bracket_f = [t_prev, t], [f_prev, f_new]
            bracket_g, bracket_gtd = [g_prev, g_new.copy()], [gtd_prev, gtd_new]
            break
        min_step = t + 0.01 * (t - t_prev)
        max_step = t * 10
        t_prev, t = t, _cubic_interpolate(t_prev, f_prev, gtd_prev, t, f_new, gtd_new,
                                          bounds=(min_step, max_step))
        f_prev, g_prev, gtd_prev = f_new, g_new.copy(), gtd_new
        f_new, g_new = obj_func(t, d)
        ls_func_evals += 1
        gtd_new = g_new.dot(d)
        ls_iter += 1
    if ls_iter == max_ls:
        bracket, bracket_f, bracket_g = [0, t], [f, f_new], [g, g_new]
    # zoom: shrink the bracket until a point meets the conditions
    insuf_progress = False
    low_pos, high_pos = (0, 1) if bracket_f[0] <= bracket_f[-1] else (1, 0)
    while not done and ls_iter < max_ls:
        if abs(bracket[1] - bracket[0]) * d_norm < tolerance_change:
            break
        t = _cubic_interpolate(bracket[0], bracket_f[0], bracket_gtd[0],
                               bracket[1], bracket_f[1], bracket_gtd[1])
        # a point too close to an end of the bracket makes too little progress
        eps = 0.1 * (max(bracket) - min(bracket))
        if min(max(bracket) - t, t - min(bracket)) < eps:
            if insuf_progress or t >= max(bracket) or t <= min(bracket):
                t = max(bracket) - eps if abs(t - max(bracket)) < abs(t - min(bracket)) \
                    else min(bracket) + eps
                insuf_progress = False
            else:
                insuf_progress = True
        else:
            insuf_progress = False
        f_new, g_new = obj_func(t, d)
        ls_func_evals += 1
        gtd_new = g_new.dot(d)
        ls_iter += 1
        if f_new > (f + c1 * t * gtd) or f_new >= bracket_f[low_pos]:
            bracket[high_pos], bracket_f[high_pos] = t, f_new
            bracket_g[high_pos], bracket_gtd[high_pos] = g_new.copy(), gtd_new
            low_pos, high_pos = (0, 1) if bracket_f[0] <= bracket_f[1] else (1, 0)
        else:
            if abs(gtd_new) <= -c2 * gtd:
                done = True
            elif gtd_new * (bracket[high_pos] - bracket[low_pos]) >= 0:
                bracket[high_pos], bracket_f[high_pos] = bracket[low_pos], bracket_f[low_pos]
                bracket_g[high_pos] = bracket_g[low_pos]
                bracket_gtd[high_pos] = bracket_gtd[low_pos]
            bracket[low_pos], bracket_f[low_pos] = t, f_new
            bracket_g[low_pos], bracket_gtd[low_pos] = g_new.copy(), gtd_new
    return bracket_f[low_pos], bracket_g[low_pos], bracket[low_pos], ls_func_evals


class LBFGS(Optimizer):
    """L-BFGS with PyTorch's arguments; `step(closure)` needs a closure that zeroes the
    gradients, computes the loss, calls `backward()` and returns the loss. One parameter
    group only."""

    def __init__(self, params=None, lr=1, max_iter=20, max_eval=None, tolerance_grad=1e-7,
                 tolerance_change=1e-9, history_size=100, line_search_fn=None, *,
                 learning_rate=None, parameters=None):
        params = parameters if params is None else params
        lr = lr if learning_rate is None else learning_rate
        if line_search_fn not in (None, "strong_wolfe"):
            raise ValueError(f"LBFGS: line_search_fn must be None or 'strong_wolfe', got "
                             f"{line_search_fn!r}")
        for name, value in (("max_iter", max_iter), ("history_size", history_size)):
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"LBFGS: {name} must be a positive integer, got {value!r}")
        if max_eval is None:
            max_eval = max_iter * 5 // 4
        super().__init__(params, dict(lr=lr, max_iter=max_iter, max_eval=max_eval,
                                      tolerance_grad=tolerance_grad,
                                      tolerance_change=tolerance_change,
                                      history_size=history_size,
                                      line_search_fn=line_search_fn))
        if len(self.param_groups) != 1:
            raise ValueError("LBFGS doesn't support per-parameter options (parameter groups); "
                             "pass one list of parameters")
        self._params = self.param_groups[0]["params"]

    def add_param_group(self, group):
        if self.param_groups:
            raise ValueError("LBFGS doesn't support per-parameter options (parameter groups)")
        super().add_param_group(group)

    def _flat_grad(self):
        return np.concatenate([np.zeros(p.numel(), p._data.dtype) if p.grad is None
                               else p.grad._data.reshape(-1) for p in self._params])

    def _add_grad(self, step_size, update):
        offset = 0
        for p in self._params:
            n = p.numel()
            p._data += (step_size * update[offset:offset + n]).reshape(p.shape).astype(
                p._data.dtype, copy=False)
            p._bump_version()
            offset += n

    def _set_params(self, arrays):
        for p, a in zip(self._params, arrays):
            p._data[...] = a
            p._bump_version()

    def _evaluate(self, closure):
        with enable_grad():
            loss = closure()
        return loss

    def step(self, closure=None):
        """Up to `max_iter` L-BFGS iterations; returns the loss `closure` gave first."""
        if closure is None:
            raise TypeError("LBFGS.step needs a closure that re-evaluates the model and "
                            "returns the loss (it zeroes the gradients, computes the loss and "
                            "calls backward()): optimizer.step(closure)")
        group = self.param_groups[0]
        lr, max_iter, max_eval = float(group["lr"]), group["max_iter"], group["max_eval"]
        tolerance_grad, tolerance_change = group["tolerance_grad"], group["tolerance_change"]
        history_size = group["history_size"]
        state = self.state.setdefault(self._params[0], {})
        state.setdefault("func_evals", 0)
        state.setdefault("n_iter", 0)

        orig_loss = self._evaluate(closure)
        loss = float(orig_loss)
        current_evals = 1
        state["func_evals"] += 1
        flat_grad = self._flat_grad()
        if np.abs(flat_grad).max() <= tolerance_grad:
            return orig_loss

        d, t, H_diag = _array(state.get("d")), state.get("t"), _array(state.get("H_diag"))
        old_dirs, old_stps, ro = (None if state.get(key) is None else
                                  [_array(x) for x in state[key]]
                                  for key in ("old_dirs", "old_stps", "ro"))
        prev_flat_grad, prev_loss = _array(state.get("prev_flat_grad")), state.get("prev_loss")
        # the two-loop coefficients, kept in the state as PyTorch does (history_size slots)
        al = None if state.get("al") is None else [_array(a) for a in state["al"]]
        n_iter = 0
        while n_iter < max_iter:
            n_iter += 1
            state["n_iter"] += 1
            if state["n_iter"] == 1:
                d = -flat_grad
                old_dirs, old_stps, ro = [], [], []
                H_diag = 1
            else:
                y = flat_grad - prev_flat_grad
                s = d * t
                ys = y.dot(s)
                if ys > 1e-10:  # keep only pairs with positive curvature
                    if len(old_dirs) == history_size:
                        old_dirs.pop(0)
                        old_stps.pop(0)
                        ro.pop(0)
                    old_dirs.append(y)
                    old_stps.append(s)
                    ro.append(1.0 / ys)
                    H_diag = ys / y.dot(y)
                # two-loop recursion: d = -H g with the inverse Hessian estimate H
                if al is None:
                    al = [None] * history_size
                q = -flat_grad
                for i in range(len(old_dirs) - 1, -1, -1):
                    al[i] = old_stps[i].dot(q) * ro[i]
                    q = q - al[i] * old_dirs[i]
                r = q * H_diag
                for i in range(len(old_dirs)):
                    be_i = old_dirs[i].dot(r) * ro[i]
                    r = r + (al[i] - be_i) * old_stps[i]
                d = r
            prev_flat_grad = flat_grad.copy()
            prev_loss = loss
            if state["n_iter"] == 1:
                t = min(1.0, 1.0 / np.abs(flat_grad).sum()) * lr
            else:
                t = lr
            gtd = flat_grad.dot(d)
            if gtd > -tolerance_change:  # not a descent direction
                break

            ls_func_evals = 0
            if group["line_search_fn"] == "strong_wolfe":
                x_init = [p._data.copy() for p in self._params]

                def obj_func(step, direction):
                    self._add_grad(step, direction)
                    value = float(self._evaluate(closure))
                    grad = self._flat_grad()
                    self._set_params(x_init)
                    return value, grad

                loss, flat_grad, t, ls_func_evals = _strong_wolfe(
                    obj_func, t, d, loss, flat_grad, gtd, max_ls=max_eval - current_evals)
                self._add_grad(t, d)
                opt_cond = np.abs(flat_grad).max() <= tolerance_grad
            else:
                self._add_grad(t, d)
                opt_cond = False
                if n_iter != max_iter:
                    loss = float(self._evaluate(closure))
                    flat_grad = self._flat_grad()
                    opt_cond = np.abs(flat_grad).max() <= tolerance_grad
                    ls_func_evals = 1
            current_evals += ls_func_evals
            state["func_evals"] += ls_func_evals

            if n_iter == max_iter or current_evals >= max_eval or opt_cond:
                break
            if np.abs(d * t).max() <= tolerance_change:
                break
            if abs(loss - prev_loss) < tolerance_change:
                break

        state.update(d=_tensor(d), t=t, old_dirs=[_tensor(x) for x in old_dirs],
                     old_stps=[_tensor(x) for x in old_stps], ro=[_tensor(x) for x in ro],
                     H_diag=_tensor(H_diag), prev_flat_grad=_tensor(prev_flat_grad),
                     prev_loss=prev_loss)
        if al is not None:
            state["al"] = [_tensor(a) for a in al]
        return orig_loss


def _array(value):
    return value._data if isinstance(value, Tensor) else value


def _tensor(value):
    """A vector or curvature as a tensor (the initial H_diag, 1, stays a number)."""
    return Tensor._make(np.asarray(value)) if isinstance(value, (np.ndarray, np.generic)) \
        else value
