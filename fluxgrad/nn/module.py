"""`Module` (alias `Layer`): a tree of sub-modules owning parameters and buffers.

Attributes set to a `Parameter` or a `Module` are registered automatically;
`state_dict` / `load_state_dict` name them by their dotted path. PaddlePaddle's
spellings (`create_parameter`, `add_parameter`, `add_sublayer`, `set_state_dict`,
`clear_gradients`) sit beside PyTorch's.
"""
from collections import OrderedDict, namedtuple

import numpy as np

from .._core import devices, dtypes
from .._core.grad_mode import no_grad
from .._core.hooks import HookHandle
from .._core.static_mode import state as _static_state
from .._core.tensor import Tensor
from ._backward_hooks import BackwardHookCall
from .parameter import Parameter
from ..memory_format import channels_last, channels_last_3d

__all__ = ["Module", "Layer"]

_EXTRA_STATE = "_extra_state"  # the state_dict key of a module's get_extra_state()

class _IncompatibleKeys(namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])):
    """What load_state_dict returns; prints as PyTorch's when every key matched."""

    def __repr__(self):
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return super().__repr__()


class _WithKwargs:
    """A forward (pre-)hook registered with with_kwargs=True: it is also given the kwargs."""
    __slots__ = ("fn",)

    def __init__(self, fn):
        self.fn = fn


def _register(table, hook, prepend, with_kwargs):
    handle = HookHandle(table, _WithKwargs(hook) if with_kwargs else hook)
    if prepend:
        table.move_to_end(handle.key, last=False)
    return handle


class Module:
    """Base class of every layer: subclass it, set layers/parameters in `__init__`, write `forward`."""

    training = True
    # the version state_dict records (PyTorch's `_metadata`); a subclass that gains a buffer
    # raises it and lists the buffer in `_added_buffers`, which checkpoints saved without a
    # version may lack (they keep the module's value and are not reported missing)
    _version = 1
    _added_buffers = ()

    def __init__(self, *args, **kwargs):
        d = self.__dict__
        d["_parameters"] = OrderedDict()
        d["_buffers"] = OrderedDict()
        d["_non_persistent"] = set()
        d["_modules"] = OrderedDict()
        d["_forward_pre_hooks"] = OrderedDict()
        d["_forward_hooks"] = OrderedDict()
        d["_backward_pre_hooks"] = OrderedDict()
        d["_backward_hooks"] = OrderedDict()
        d["training"] = True

    def forward(self, *args, **kwargs):
        raise NotImplementedError(f"{type(self).__name__} has no forward(); define "
                                  "forward(self, ...) in your Module subclass")

    def __call__(self, *args, **kwargs):
        if _static_state.enabled:
            from ..static.parameters import adopt_parameters
            adopt_parameters(self)
        if self._forward_pre_hooks:
            for hook in list(self._forward_pre_hooks.values()):
                if type(hook) is _WithKwargs:
                    new = hook.fn(self, args, kwargs)
                    if new is not None:
                        if not (isinstance(new, tuple) and len(new) == 2):
                            raise RuntimeError(
                                f"forward pre-hook with kwargs must return None or a tuple of "
                                f"(new_args, new_kwargs), but got {new!r}")
                        args, kwargs = new
                    continue
                new = hook(self, args)
                if new is not None:
                    args = new if isinstance(new, tuple) else (new,)
        backward_hooks = BackwardHookCall(self) if BackwardHookCall.wanted(self) else None
        if backward_hooks is not None:
            args = backward_hooks.wrap_inputs(args)
        out = self.forward(*args, **kwargs)
        if self._forward_hooks:
            for hook in list(self._forward_hooks.values()):
                new = (hook.fn(self, args, kwargs, out) if type(hook) is _WithKwargs
                       else hook(self, args, out))
                if new is not None:
                    out = new
        if backward_hooks is not None:
            out = backward_hooks.wrap_outputs(out)
        return out

    # --- registration -----------------------------------------------------
    def _check_init(self):
        if "_parameters" not in self.__dict__:
            raise AttributeError(f"{type(self).__name__}: call super().__init__() before "
                                 "assigning parameters or sub-modules")

    def __setattr__(self, name, value):
        d = self.__dict__
        if isinstance(value, Parameter):
            self._check_init()
            self._forget(name, keep="_parameters")
            d["_parameters"][name] = value
        elif isinstance(value, Module):
            self._check_init()
            self._forget(name, keep="_modules")
            d["_modules"][name] = value
        elif "_parameters" in d and name in d["_parameters"]:
            if value is not None:
                raise TypeError(f"can't assign a {type(value).__name__} to the parameter "
                                f"{name!r}; assign a nn.Parameter (or None)")
            d["_parameters"][name] = None
        elif "_modules" in d and name in d["_modules"]:
            if value is not None:
                raise TypeError(f"can't assign a {type(value).__name__} to the sub-module "
                                f"{name!r}; assign a Module (or None)")
            d["_modules"][name] = None
        elif "_buffers" in d and name in d["_buffers"]:
            if value is not None and not isinstance(value, Tensor):
                raise TypeError(f"can't assign a {type(value).__name__} to the buffer {name!r}; "
                                "assign a Tensor (or None)")
            d["_buffers"][name] = value
        else:
            object.__setattr__(self, name, value)

    def _forget(self, name, keep=None):
        """Unregister `name` everywhere except from the table `keep`, where an entry keeps its
        place when replaced (as PyTorch's: `model.conv1 = ...` stays first)."""
        d = self.__dict__
        for table in ("_parameters", "_modules", "_buffers"):
            if table != keep:
                d[table].pop(name, None)
        d.pop(name, None)

    def __getattr__(self, name):
        d = self.__dict__
        for table in ("_parameters", "_buffers", "_modules"):
            if table in d and name in d[table]:
                return d[table][name]
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def __delattr__(self, name):
        d = self.__dict__
        for table in ("_parameters", "_buffers", "_modules"):
            if name in d.get(table, ()):
                del d[table][name]
                d["_non_persistent"].discard(name)
                return
        object.__delattr__(self, name)

    def __dir__(self):
        return sorted(set(super().__dir__()) | set(self._parameters) | set(self._buffers)
                      | set(self._modules))

    def register_parameter(self, name, param):
        """Register `param` (a Parameter, or None) under `name`."""
        self._check_init()
        _check_name(name, self, "parameter")
        if param is not None and not isinstance(param, Parameter):
            raise TypeError(f"register_parameter({name!r}): expected a nn.Parameter or None, got "
                            f"{type(param).__name__}; wrap a tensor as nn.Parameter(t)")
        self._forget(name, keep="_parameters")
        self._parameters[name] = param
        return param

    def add_parameter(self, name, parameter):
        """PaddlePaddle's spelling of `register_parameter`; returns the parameter."""
        return self.register_parameter(name, parameter)

    def register_buffer(self, name, tensor, persistent=True):
        """A tensor that is state (saved in `state_dict` if persistent) but not a parameter."""
        self._check_init()
        _check_name(name, self, "buffer")
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(f"register_buffer({name!r}): expected a Tensor or None, got "
                            f"{type(tensor).__name__}")
        self._forget(name, keep="_buffers")
        self._buffers[name] = tensor
        if persistent:
            self._non_persistent.discard(name)
        else:
            self._non_persistent.add(name)

    def add_module(self, name, module):
        """Register `module` as a child named `name`."""
        self._check_init()
        _check_name(name, self, "sub-module")
        if module is not None and not isinstance(module, Module):
            raise TypeError(f"add_module({name!r}): {type(module).__name__} is not a Module")
        self._forget(name, keep="_modules")
        self._modules[name] = module
        return module

    register_module = add_module
    add_sublayer = add_module

    def create_parameter(self, shape, dtype=None, is_bias=False, default_initializer=None,
                         attr=None):
        """A new Parameter of `shape` (PaddlePaddle): zeros for a bias, else Xavier uniform.

        `default_initializer` is a function that fills a tensor in place, such as
        `lambda p: nn.init.normal_(p, std=0.01)`; `attr` (a `fluxgrad.ParamAttr`) comes after
        it (its initializer, name, trainable). The parameter is returned, not registered;
        assign it to an attribute to register it.
        """
        dtype = dtypes.as_dtype(dtype) if dtype is not None else dtypes.default_float
        param = Parameter(np.zeros(tuple(int(s) for s in shape), dtype.np))
        from . import init
        from .. import param_attr
        if default_initializer is not None:
            default_initializer(param)
        elif not is_bias:
            init.xavier_uniform_(param)
        return param_attr.apply(param, param_attr.to_attr(attr, "create_parameter", "attr"))

    # --- traversal --------------------------------------------------------
    def named_modules(self, memo=None, prefix="", remove_duplicate=True):
        if memo is None:
            memo = set()
        if remove_duplicate:
            if id(self) in memo:
                return
            memo.add(id(self))
        yield prefix, self
        for name, child in self._modules.items():
            if child is None:
                continue
            yield from child.named_modules(memo, prefix + ("." if prefix else "") + name,
                                           remove_duplicate)

    def modules(self):
        for _, m in self.named_modules():
            yield m

    def named_children(self):
        seen = set()
        for name, child in self._modules.items():
            if child is not None and id(child) not in seen:
                seen.add(id(child))
                yield name, child

    def children(self):
        for _, child in self.named_children():
            yield child

    def _named_members(self, table, prefix, recurse, remove_duplicate=True):
        seen = set()
        modules = (self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate)
                   if recurse else [(prefix, self)])
        for mod_prefix, module in modules:
            for name, value in getattr(module, table).items():
                if value is None or (remove_duplicate and id(value) in seen):
                    continue
                seen.add(id(value))
                yield mod_prefix + ("." if mod_prefix else "") + name, value

    def named_parameters(self, prefix="", recurse=True, remove_duplicate=True):
        return self._named_members("_parameters", prefix, recurse, remove_duplicate)

    def parameters(self, recurse=True, include_sublayers=None):
        """The parameters, as a list that is also an iterator: `next(model.parameters())`
        works as with PyTorch's generator, `model.parameters()[0]` as with PaddlePaddle's list."""
        if include_sublayers is not None:
            recurse = include_sublayers
        return MemberList(p for _, p in self.named_parameters(recurse=recurse))

    def named_buffers(self, prefix="", recurse=True, remove_duplicate=True):
        return self._named_members("_buffers", prefix, recurse, remove_duplicate)

    def buffers(self, recurse=True):
        return MemberList(b for _, b in self.named_buffers(recurse=recurse))

    def sublayers(self, include_self=False):
        mods = list(self.modules())
        return mods if include_self else mods[1:]

    def get_submodule(self, target):
        module = self
        for part in target.split(".") if target else []:
            if part not in module._modules:
                raise AttributeError(f"{type(module).__name__} has no sub-module {part!r} "
                                     f"(looking up {target!r})")
            module = module._modules[part]
        return module

    def get_parameter(self, target):
        return self._get_entry(target, "_parameters", "parameter")

    def get_buffer(self, target):
        return self._get_entry(target, "_buffers", "buffer")

    def _get_entry(self, target, table, what):
        path, _, name = target.rpartition(".")
        module = self.get_submodule(path)
        if name not in getattr(module, table):
            raise AttributeError(f"{type(module).__name__} has no {what} {name!r} (looking up "
                                 f"{target!r})")
        return getattr(module, table)[name]

    # --- state ------------------------------------------------------------
    def state_dict(self, destination=None, prefix="", keep_vars=False):
        """Parameters and persistent buffers by dotted name (detached unless `keep_vars`)."""
        for hook in list(self.__dict__.get("_state_dict_pre_hooks", {}).values()):
            hook(self, prefix, keep_vars)
        if destination is None:
            destination = OrderedDict()
            destination._metadata = OrderedDict()
        local_metadata = {"version": self._version}
        if hasattr(destination, "_metadata"):
            destination._metadata[prefix[:-1]] = local_metadata
        for name, p in self._parameters.items():
            if p is not None:
                destination[prefix + name] = p if keep_vars else p.detach()
        for name, b in self._buffers.items():
            if b is not None and name not in self._non_persistent:
                destination[prefix + name] = b if keep_vars else b.detach()
        if type(self).get_extra_state is not Module.get_extra_state:
            destination[prefix + _EXTRA_STATE] = self.get_extra_state()
        for name, child in self._modules.items():
            if child is not None:
                child.state_dict(destination, prefix + name + ".", keep_vars)
        for hook in list(self.__dict__.get("_state_dict_hooks", {}).values()):
            replaced = hook(self, destination, prefix, local_metadata)
            if replaced is not None:
                destination = replaced
        return destination

    def load_state_dict(self, state_dict, strict=True, assign=False):
        """Copy values from `state_dict` into this module's parameters and buffers, in place
        (with `assign`, the given tensors become them, parameters keeping requires_grad).

        With `strict`, missing or unexpected keys raise; a shape mismatch always raises.
        Returns (missing_keys, unexpected_keys).
        """
        return self._load_state(state_dict, strict, assign, with_post_hooks=True)

    def _load_state(self, state_dict, strict, assign, with_post_hooks):
        if not hasattr(state_dict, "items"):
            raise TypeError(f"load_state_dict expects a dict of name -> tensor, got "
                            f"{type(state_dict).__name__}")
        state_dict = self._run_load_pre_hooks(state_dict, strict)
        for path, module in self.named_modules():
            if hasattr(module, "_materialize_from_state"):  # a lazy layer not yet called
                module._materialize_from_state(state_dict, path + "." if path else "")
        own = self.state_dict(keep_vars=True)
        defaulted = self._buffers_older_checkpoints_lack(getattr(state_dict, "_metadata", {}))
        missing = [k for k in own if k not in state_dict and k not in defaulted]
        unexpected = [k for k in state_dict if k not in own]
        errors = []
        post_hooks = with_post_hooks and [
            (module, hook) for module in self.modules()
            for hook in module.__dict__.get("_load_state_dict_post_hooks", {}).values()]
        if post_hooks:
            # torch's order: load what matches, let the hooks edit the key lists, then check
            return self._load_then_post_hooks(state_dict, own, missing, unexpected, strict,
                                              assign, post_hooks)
        if strict:
            # PyTorch's wording, which scripts search for
            if missing:
                errors.append("Missing key(s) in state_dict: " +
                              ", ".join(f'"{k}"' for k in missing) + ".")
            if unexpected:
                errors.append("Unexpected key(s) in state_dict: " +
                              ", ".join(f'"{k}"' for k in unexpected) + ".")
        updates, extra_states = [], []
        for key, target in own.items():
            if key not in state_dict:
                continue
            value = state_dict[key]
            path, _, name = key.rpartition(".")
            if name == _EXTRA_STATE:
                extra_states.append((self.get_submodule(path), value))
                continue
            array = value._data if isinstance(value, Tensor) else np.asarray(value)
            if array.dtype.kind not in "biufc" or isinstance(value, (list, tuple)):
                errors.append(f'While copying the parameter named "{key}", expected a tensor '
                              f"from checkpoint but received {type(value).__name__} (of "
                              f"{array.dtype}); store tensors (or arrays of numbers)")
                continue
            if array.shape != target._data.shape:
                errors.append(f"size mismatch for {key}: copying a param with shape "
                              f"{list(array.shape)} from checkpoint, the shape in current model "
                              f"is {list(target.shape)}.")
                continue
            updates.append((key, target, value) if assign else (target, array))
        if errors:
            raise RuntimeError(f"Error(s) in loading state_dict for {type(self).__name__}:\n  "
                               + "\n  ".join(errors))
        for module, state in extra_states:
            module.set_extra_state(state)
        if assign:
            for key, target, value in updates:
                self._assign_entry(key, target, value)
            return _IncompatibleKeys(missing, unexpected)
        with no_grad():
            for target, array in updates:
                np.copyto(target._data, array, casting="unsafe")
                target._bump_version()
        return _IncompatibleKeys(missing, unexpected)

    def _run_load_pre_hooks(self, state_dict, strict):
        """Each module's load_state_dict pre-hooks, given torch's arguments and a copy of the
        state dict they may edit (renaming or dropping keys); error messages they add raise."""
        hooked = [(path, module) for path, module in self.named_modules()
                  if module.__dict__.get("_load_state_dict_pre_hooks")]
        if not hooked:
            return state_dict
        metadata = getattr(state_dict, "_metadata", None)
        state_dict = OrderedDict(state_dict)
        if metadata is not None:
            state_dict._metadata = metadata
        error_msgs = []
        for path, module in hooked:
            prefix = path + "." if path else ""
            local_metadata = {} if metadata is None else metadata.get(path, {})
            for hook in list(module._load_state_dict_pre_hooks.values()):
                hook(module, state_dict, prefix, local_metadata, strict, [], [], error_msgs)
        if error_msgs:
            raise RuntimeError(f"Error(s) in loading state_dict for {type(self).__name__}:\n  "
                               + "\n  ".join(error_msgs))
        return state_dict

    def _load_then_post_hooks(self, state_dict, own, missing, unexpected, strict, assign,
                              post_hooks):
        """load_state_dict with post-hooks: the matching entries load (strict=False), each
        hook gets (module, incompatible_keys) and may remove keys from its lists, and what
        remains then raises under strict, as torch."""
        self._load_state({k: v for k, v in state_dict.items() if k in own}, False, assign,
                         with_post_hooks=False)
        keys = _IncompatibleKeys(missing, unexpected)
        for module, hook in post_hooks:
            if hook(module, keys) is not None:
                raise RuntimeError("a load_state_dict post hook should return None; edit the "
                                   "incompatible_keys it is given in place instead")
        if strict and (keys.missing_keys or keys.unexpected_keys):
            errors = []
            if keys.missing_keys:
                errors.append("Missing key(s) in state_dict: " +
                              ", ".join(f'"{k}"' for k in keys.missing_keys) + ".")
            if keys.unexpected_keys:
                errors.append("Unexpected key(s) in state_dict: " +
                              ", ".join(f'"{k}"' for k in keys.unexpected_keys) + ".")
            raise RuntimeError(f"Error(s) in loading state_dict for {type(self).__name__}:\n  "
                               + "\n  ".join(errors))
        return keys

    def get_extra_state(self):
        """Override (with set_extra_state) to put any picklable state of the module into its
        state_dict, under the key `_extra_state`."""
        raise RuntimeError(f"{type(self).__name__}.get_extra_state: this module keeps no extra "
                           "state; override get_extra_state and set_extra_state to give it some")

    def set_extra_state(self, state):
        """Receives what get_extra_state returned, from load_state_dict."""
        raise RuntimeError(f"{type(self).__name__}.set_extra_state: the state_dict holds extra "
                           "state for this module, which does not override set_extra_state")

    def _buffers_older_checkpoints_lack(self, metadata):
        """Keys of buffers added in a later version of their module than `metadata` records."""
        keys = set()
        for path, module in self.named_modules(remove_duplicate=False):
            version = metadata.get(path, {}).get("version")
            if version is None or version < module._version:
                keys.update(path + "." + name if path else name for name in module._added_buffers)
        return keys

    set_state_dict = load_state_dict
    set_dict = load_state_dict

    def _assign_entry(self, key, target, value):
        """The parameter or buffer named `key` replaced by `value` (load_state_dict(assign))."""
        path, _, name = key.rpartition(".")
        owner = self.get_submodule(path)
        value = value if isinstance(value, Tensor) else Tensor(np.asarray(value))
        if name in owner._parameters:
            if not isinstance(value, Parameter):
                value = Parameter(value.detach(), requires_grad=target.requires_grad)
            owner._parameters[name] = value
        else:
            owner._buffers[name] = value

    # --- modes and gradients ------------------------------------------------
    def train(self, mode=True):
        for m in self.modules():
            m.__dict__["training"] = bool(mode)
        return self

    def eval(self):
        return self.train(False)

    def requires_grad_(self, requires_grad=True):
        for p in self.parameters():
            p.requires_grad = requires_grad
        return self

    def zero_grad(self, set_to_none=True):
        """Drop every parameter's `.grad` (or zero it in place with set_to_none=False)."""
        for p in self.parameters():
            if p.grad is not None:
                if set_to_none:
                    p.grad = None
                else:
                    p.grad._data[...] = 0

    def clear_gradients(self, set_to_zero=True):
        """PaddlePaddle's spelling: zero every parameter's gradient (drop it if not set_to_zero)."""
        self.zero_grad(set_to_none=not set_to_zero)

    def apply(self, fn):
        """Call `fn(module)` on every sub-module (children first) and on this module."""
        for child in self.children():
            child.apply(fn)
        fn(self)
        return self

    def to(self, *args, dtype=None, device=None, non_blocking=False, memory_format=None,
           **kwargs):
        """Cast floating parameters and buffers to a dtype in place: `to(dtype)`, `to(tensor)`,
        `to(device, dtype)`. The device may only be the CPU (fluxgrad runs there), or 'meta'
        for a skeleton that torch.func.functional_call fills (fluxgrad has no meta tensors:
        the module keeps its values). `memory_format=channels_last` lays out the 4-d ones
        (channels_last_3d: the 5-d ones) channels last."""
        if memory_format is not None:
            self._lay_out(memory_format)
        for arg in args + ((device,) if device is not None else ()):
            if isinstance(arg, Tensor):
                dtype = arg.dtype
            elif devices.is_device(arg):
                if devices.device(arg).type != "meta":
                    devices.check_device(arg, f"{type(self).__name__}.to")
            elif arg is not None:
                dtype = arg
        if dtype is None:
            return self
        target = dtypes.as_dtype(dtype)
        if not target.is_floating_point:
            raise TypeError(f"{type(self).__name__}.to only casts to floating dtypes, got "
                            f"{target}")
        for t in list(self.parameters()) + list(self.buffers()):
            if t._data.dtype.kind == "f" and t._data.dtype != target.np:
                t._data = t._data.astype(target.np)
                if t.grad is not None:
                    t.grad = Tensor._make(t.grad._data.astype(target.np))
        return self

    def _lay_out(self, memory_format):
        rank = {channels_last: 4, channels_last_3d: 5}.get(memory_format)
        for t in list(self.parameters()) + list(self.buffers()):
            if t.ndim == rank and not t.is_contiguous(memory_format=memory_format):
                t._data = t.contiguous(memory_format=memory_format)._data

    def cuda(self, device=None):
        devices.refuse_accelerator(f"{type(self).__name__}.cuda()")

    def float(self):
        return self.to(dtypes.float32)

    def double(self):
        return self.to(dtypes.float64)

    def half(self):
        return self.to(dtypes.float16)

    def cpu(self):
        return self

    def type(self, dst_type):
        """Cast every parameter and buffer (integer ones too) to `dst_type`, in place."""
        for t in list(self.parameters()) + list(self.buffers()):
            t._data = t.detach().type(dst_type)._data
        return self

    # --- hooks ------------------------------------------------------------
    def register_forward_pre_hook(self, hook, *, prepend=False, with_kwargs=False):
        """`hook(module, args)` before forward; a returned value replaces the args. With
        with_kwargs=True: `hook(module, args, kwargs)`, returning None or (args, kwargs).
        prepend=True runs it before the hooks already registered."""
        return _register(self._forward_pre_hooks, hook, prepend, with_kwargs)

    def register_forward_hook(self, hook, *, prepend=False, with_kwargs=False):
        """`hook(module, args, output)` after forward; a returned value replaces the output.
        With with_kwargs=True: `hook(module, args, kwargs, output)`. prepend=True runs it
        before the hooks already registered."""
        return _register(self._forward_hooks, hook, prepend, with_kwargs)

    register_forward_post_hook = register_forward_hook

    def register_full_backward_pre_hook(self, hook):
        """`hook(module, grad_output)` when the gradients of the outputs are known; a returned
        tuple replaces grad_output."""
        return HookHandle(self._backward_pre_hooks, hook)

    def register_full_backward_hook(self, hook):
        """`hook(module, grad_input, grad_output)` when the gradients of the tensor inputs are
        known (all None when no input requires grad); a returned tuple replaces grad_input."""
        return HookHandle(self._backward_hooks, hook)

    register_backward_hook = register_full_backward_hook

    def _hook_table(self, name):
        return self.__dict__.setdefault(name, OrderedDict())

    def register_state_dict_pre_hook(self, hook):
        """`hook(module, prefix, keep_vars)` before state_dict() collects this module."""
        return HookHandle(self._hook_table("_state_dict_pre_hooks"), hook)

    def register_state_dict_post_hook(self, hook):
        """`hook(module, state_dict, prefix, local_metadata)` after state_dict() collected this
        module (and its children); it may edit the dict in place."""
        return HookHandle(self._hook_table("_state_dict_hooks"), hook)

    _register_state_dict_hook = register_state_dict_post_hook  # may also return a new dict

    def register_load_state_dict_pre_hook(self, hook):
        """`hook(module, state_dict, prefix, local_metadata, strict, missing_keys,
        unexpected_keys, error_msgs)` before load_state_dict reads the (copied) state dict,
        which the hook may edit; messages appended to error_msgs raise."""
        return HookHandle(self._hook_table("_load_state_dict_pre_hooks"), hook)

    _register_load_state_dict_pre_hook = register_load_state_dict_pre_hook

    def register_load_state_dict_post_hook(self, hook):
        """`hook(module, incompatible_keys)` after load_state_dict; it may remove entries from
        incompatible_keys.missing_keys / unexpected_keys before strict checks them."""
        return HookHandle(self._hook_table("_load_state_dict_post_hooks"), hook)

    # --- printing ---------------------------------------------------------
    def extra_repr(self):
        return ""

    def __repr__(self):
        return self._repr_with([f"({name}): {child!r}" for name, child in self._modules.items()])

    def _repr_with(self, children):
        """PyTorch's layout: extra_repr alone on the head line, else one line per entry
        (`children`: the printed sub-modules)."""
        extra = self.extra_repr()
        lines = extra.split("\n") if extra else []
        lines += [child.replace("\n", "\n  ") for child in children]
        if len(lines) == 1 and not children:
            return f"{type(self).__name__}({lines[0]})"
        body = "\n  " + "\n  ".join(lines) + "\n" if lines else ""
        return f"{type(self).__name__}({body})"


Layer = Module


class MemberList(list):
    """A list that is also its own iterator: `next()` walks it once, as a generator would."""
    __slots__ = ("_position",)

    def __next__(self):
        position = getattr(self, "_position", 0)
        if position >= len(self):
            raise StopIteration
        self._position = position + 1
        return self[position]


def _check_name(name, module, what):
    if not isinstance(name, str) or not name or "." in name:
        raise KeyError(f"a {what} name must be a non-empty string without '.', got {name!r}")
    if name in module.__dict__ and name not in ("training",):
        raise KeyError(f"attribute {name!r} already exists on {type(module).__name__}")
