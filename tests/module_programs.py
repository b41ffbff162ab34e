"""Random compositions of nn modules, for any library with PyTorch's API (fluxgrad eager, static
or compiled, and torch itself).

A program is a stack of layers (convolutions and transposed convolutions with random strides,
padding, dilation and groups; batch norm in train or eval mode, instance, group, layer and local
response norm; embeddings, recurrent layers and multi-head attention; max, average, LP and
adaptive pooling; upsampling; pads, pixel shuffles, activations, dropout with p=0) joined by
reshapes, drawn against PyTorch itself: each candidate layer is built and run by torch on the
current value, and a layer torch refuses is drawn again. `build(m)` makes the layers with library
`m` (fluxgrad's take torch's parameters and buffers), `run(m, layers, x)` applies them, and
`loss(m, out)` makes the scalar whose gradients are compared.
"""
import numpy as np
import torch

ACTIVATIONS = ["ReLU", "Tanh", "GELU", "SiLU", "ELU", "Sigmoid", "Softplus", "Hardswish",
               "Mish", "LogSigmoid", "Softsign", "Tanhshrink", "CELU", "SELU", "PReLU"]
REFUSALS = (ValueError, RuntimeError, IndexError, TypeError)


class Layer:
    """One step: a module (class name and constructor arguments) or a function of the value."""

    def __init__(self, name, args=(), kwargs=None, call="plain", fn=None, state=None):
        self.name, self.args, self.kwargs = name, tuple(args), dict(kwargs or {})
        self.call, self.fn = call, fn
        self.state = state  # the torch module's parameters and buffers (numpy), once drawn

    def make(self, m):
        if self.fn is not None:
            return None
        module = getattr(m.nn, self.name)(*self.args, **self.kwargs).double()
        if self.state is not None:
            module.load_state_dict({k: m.tensor(v) for k, v in self.state.items()})
        return module

    def apply(self, m, module, x):
        if self.fn is not None:
            return self.fn(m, x)
        if self.call == "rnn":
            return module(x)[0]
        if self.call == "mha":
            out, weights = module(x, x, x, need_weights=True)
            return out if weights is None else out + weights.sum(-1, keepdim=True)
        return module(x)

    def describe(self):
        if self.fn is not None:
            return self.name
        args = [repr(a) for a in self.args] + [f"{k}={v!r}" for k, v in self.kwargs.items()]
        return f"{self.name}({', '.join(args)})"


class Program:
    """An input (shape and dtype) and layers drawn for `seed`."""

    def __init__(self, seed, n_layers=None, eval_mode=None):
        self.rng = rng = np.random.default_rng(seed)
        self.eval = bool(rng.random() < 0.3) if eval_mode is None else eval_mode
        self.layers = []
        kind = rng.choice(["seq", "1d", "2d", "tokens"], p=[.25, .3, .35, .1])
        n = int(rng.integers(1, 4))
        if kind == "tokens":
            self.x = rng.integers(0, 7, (n, int(rng.integers(1, 6))))
            value = torch.tensor(self.x)
            self._try(Layer("Embedding", (7, int(rng.integers(2, 6))),
                            dict(padding_idx=int(rng.integers(7)) if rng.random() < .4 else None,
                                 max_norm=None)), value)
            value = self._run_last(value)
        else:
            shape = {"seq": (n, int(rng.integers(1, 6)), int(rng.integers(2, 7))),
                     "1d": (n, int(rng.integers(1, 7)), int(rng.integers(1, 10))),
                     "2d": (n, int(rng.integers(1, 6)), int(rng.integers(1, 8)),
                            int(rng.integers(1, 8)))}[kind]
            self.x = rng.uniform(-1.5, 1.5, shape)
            value = torch.tensor(self.x)
        n_layers = int(rng.integers(1, 6)) if n_layers is None else n_layers
        for _ in range(n_layers):
            for _attempt in range(30):
                layer = self._candidate(value)
                if self._try(layer, value):
                    value = self._run_last(value)
                    break
        self.out_shape = tuple(value.shape)
        self.weight = rng.uniform(-1, 1, self.out_shape[1:])  # the same for every batch row

    # -- drawing --------------------------------------------------------------------------------
    def _try(self, layer, value):
        torch.manual_seed(int(self.rng.integers(2 ** 31)))
        try:
            with torch.no_grad():
                module = layer.make(torch)
                if module is not None:
                    self._perturb(module)
                    module.train(not self.eval)
                out = layer.apply(torch, module, value)
        except REFUSALS:
            return False
        # (a window made only of padding gives -inf, which torch's max-pool backward reads out of
        # bounds; an LP pool of a negative sum is NaN)
        if out.numel() == 0 or out.numel() > 4000 or not out.is_floating_point() or \
                not bool(torch.isfinite(out).all()):
            return False
        if module is not None:
            layer.state = {k: v.detach().numpy().copy() for k, v in module.state_dict().items()}
        self.layers.append(layer)
        return True

    def _perturb(self, module):
        """Running statistics and affine parameters away from their initial values, so that
        eval mode and the affine gradients are tested on general numbers."""
        for name, b in module.named_buffers():
            if name.endswith("running_mean"):
                b.copy_(torch.tensor(self.rng.uniform(-.5, .5, tuple(b.shape))))
            elif name.endswith("running_var"):
                b.copy_(torch.tensor(self.rng.uniform(.5, 2., tuple(b.shape))))
        for name, p in module.named_parameters():
            if name in ("weight", "bias") and type(module).__name__.endswith(("Norm", "Norm1d",
                                                                              "Norm2d")):
                p.copy_(torch.tensor(self.rng.uniform(.5, 1.5, tuple(p.shape))))

    def _run_last(self, value):
        layer = self.layers[-1]
        module = layer.make(torch)
        if module is not None:
            module.train(not self.eval)
        with torch.no_grad():
            return layer.apply(torch, module, value)

    def _candidate(self, value):
        rng = self.rng
        shape = tuple(value.shape)
        r = rng.random()
        if r < 0.15:
            return self._activation()
        if len(shape) == 3:
            return self._layer_3d(shape) if rng.random() < 0.75 else self._reshape(shape)
        if len(shape) == 4:
            return self._layer_4d(shape) if rng.random() < 0.8 else self._reshape(shape)
        return self._reshape(shape)

    def _activation(self):
        rng = self.rng
        name = str(rng.choice(ACTIVATIONS))
        if rng.random() < 0.15:
            return Layer("Dropout", (0.0,))
        return Layer(name)

    def _reshape(self, shape):
        rng = self.rng
        options = []
        if len(shape) == 4:
            options += [Layer("Flatten", (2,)), Layer("Flatten_13", fn=lambda m, x: x.flatten(1, 2))]
        if len(shape) == 3:
            options += [Layer("transpose12", fn=lambda m, x: x.transpose(1, 2))]
            c, l = shape[1], shape[2]
            for h in range(2, l):
                if l % h == 0:
                    options.append(Layer("Unflatten", (2, (h, l // h))))
                    break
            options.append(Layer("Unflatten", (1, (1, c))))
        if len(shape) == 2:
            options += [Layer("Unflatten", (1, (1, shape[1])))]
        if not options:
            return Layer("Flatten", (1,))
        return options[int(rng.integers(len(options)))]

    def _conv_args(self, c, dims):
        rng = self.rng
        groups = int(rng.choice([g for g in (1, 1, 2, 3) if c % g == 0]))
        out = groups * int(rng.integers(1, 4))
        k = int(rng.integers(1, 4)) if dims == 1 or rng.random() < .6 else \
            tuple(int(rng.integers(1, 4)) for _ in range(dims))
        kwargs = dict(stride=int(rng.choice([1, 1, 2, 3])), padding=int(rng.choice([0, 0, 1, 2])),
                      dilation=int(rng.choice([1, 1, 2])), groups=groups,
                      bias=bool(rng.random() < .7))
        return out, k, kwargs

    def _common_1d2d(self, shape, dims):
        rng = self.rng
        c = shape[1]
        D = f"{dims}d"
        r = rng.random()
        out, k, kw = self._conv_args(c, dims)
        if r < 0.18:
            if rng.random() < .3:
                kw["padding_mode"] = str(rng.choice(["reflect", "replicate", "circular"]))
            if rng.random() < .2 and kw["stride"] == 1:
                kw["padding"] = "same"
            return Layer(f"Conv{D}", (c, out, k), kw)
        if r < 0.3:
            stride = kw["stride"]
            kw["output_padding"] = int(rng.integers(0, max(stride, kw["dilation"])))
            return Layer(f"ConvTranspose{D}", (c, out, k), kw)
        if r < 0.4:
            return Layer(f"BatchNorm{D}", (c,), dict(affine=bool(rng.random() < .8),
                                                     momentum=float(rng.choice([.1, .5])),
                                                     eps=float(rng.choice([1e-5, 1e-3]))))
        if r < 0.45:
            return Layer(f"InstanceNorm{D}", (c,), dict(affine=bool(rng.random() < .5),
                                                        track_running_stats=bool(rng.random() < .3)))
        if r < 0.52:
            groups = [g for g in range(1, c + 1) if c % g == 0]
            return Layer("GroupNorm", (int(rng.choice(groups)), c),
                         dict(affine=bool(rng.random() < .8)))
        if r < 0.57:
            return Layer("LayerNorm", (list(shape[-dims:]) if rng.random() < .5 else [shape[-1]],),
                         dict(elementwise_affine=bool(rng.random() < .8)))
        if r < 0.65:
            k = int(rng.integers(1, 4))
            return Layer(f"MaxPool{D}", (k,), dict(stride=int(rng.integers(1, 4)),
                                                  padding=int(rng.integers(0, k // 2 + 1)),
                                                  dilation=int(rng.choice([1, 1, 2])),
                                                  ceil_mode=bool(rng.random() < .3)))
        if r < 0.72:
            k = int(rng.integers(1, 4))
            kw = dict(stride=int(rng.integers(1, 4)), padding=int(rng.integers(0, k // 2 + 1)),
                      ceil_mode=bool(rng.random() < .3),
                      count_include_pad=bool(rng.random() < .5))
            if dims == 2 and rng.random() < .2:
                kw["divisor_override"] = int(rng.integers(1, 5))
            return Layer(f"AvgPool{D}", (k,), kw)
        if r < 0.78:
            size = int(rng.integers(1, 5)) if dims == 1 or rng.random() < .5 else \
                tuple(int(rng.integers(1, 5)) for _ in range(dims))
            return Layer(f"Adaptive{str(rng.choice(['Avg', 'Max']))}Pool{D}", (size,))
        if r < 0.84:
            modes = ["nearest", "linear"] if dims == 1 else ["nearest", "bilinear", "bicubic"]
            mode = str(rng.choice(modes + ["nearest-exact"]))
            kw = dict(scale_factor=float(rng.choice([2, 1.5, 0.5, 3])), mode=mode)
            if mode not in ("nearest", "nearest-exact"):
                kw["align_corners"] = bool(rng.random() < .5)
            return Layer("Upsample", (), kw)
        if r < 0.88:
            pads = {1: ["ConstantPad1d", "ReflectionPad1d", "ReplicationPad1d", "CircularPad1d",
                        "ZeroPad1d"],
                    2: ["ConstantPad2d", "ReflectionPad2d", "ReplicationPad2d", "CircularPad2d",
                        "ZeroPad2d"]}[dims]
            name = str(rng.choice(pads))
            pad = tuple(int(rng.integers(0, 3)) for _ in range(2 * dims))
            return Layer(name, (pad, 0.5) if name.startswith("Constant") else (pad,))
        if r < 0.92:
            return Layer(f"LPPool{D}", (float(rng.choice([1, 2, 3])), int(rng.integers(1, 3))),
                         dict(stride=int(rng.integers(1, 3))))
        if r < 0.96:
            return Layer("LocalResponseNorm", (int(rng.integers(1, 4)),),
                         dict(alpha=float(rng.choice([1e-4, 0.1])), beta=.75, k=1.))
        return self._activation()

    def _layer_3d(self, shape):
        rng = self.rng
        n, l, e = shape  # as a sequence (batch first), or (N, C, L)
        r = rng.random()
        if r < 0.12:
            return Layer("Linear", (e, int(rng.integers(1, 7))), dict(bias=bool(rng.random() < .8)))
        if r < 0.22:
            name = str(rng.choice(["LSTM", "GRU", "RNN"]))
            kw = dict(num_layers=int(rng.integers(1, 3)), batch_first=True,
                      bidirectional=bool(rng.random() < .4), bias=bool(rng.random() < .8))
            if name == "RNN":
                kw["nonlinearity"] = str(rng.choice(["tanh", "relu"]))
            if name == "LSTM" and rng.random() < .25:
                kw["proj_size"] = int(rng.integers(1, 3))
            return Layer(name, (e, int(rng.integers(1, 5))), kw, call="rnn")
        if r < 0.3:
            heads = int(rng.choice([h for h in (1, 2, 3) if e % h == 0]))
            kw = dict(batch_first=True, bias=bool(rng.random() < .8),
                      add_bias_kv=bool(rng.random() < .2), add_zero_attn=bool(rng.random() < .2))
            return Layer("MultiheadAttention", (e, heads), kw, call="mha")
        if r < 0.33:
            return Layer("RMSNorm", ([e],), dict(eps=1e-5))
        return self._common_1d2d(shape, 1)

    def _layer_4d(self, shape):
        rng = self.rng
        c = shape[1]
        r = rng.random()
        if r < 0.05:
            f = [q for q in (2, 3) if shape[2] % q == 0 and shape[3] % q == 0]
            if f:
                return Layer("PixelUnshuffle", (f[0],))
            return Layer("PixelShuffle", (1,))
        if r < 0.1:
            for q in (2, 3):
                if c % (q * q) == 0:
                    return Layer("PixelShuffle", (q,))
            return Layer("ChannelShuffle", (1,))
        if r < 0.12:
            return Layer("Dropout2d", (0.0,))
        return self._common_1d2d(shape, 2)

    # -- running --------------------------------------------------------------------------------
    def build(self, m):
        modules = [layer.make(m) for layer in self.layers]
        for module in modules:
            if module is not None:
                module.train(not self.eval)
        return modules

    def run(self, m, modules, x):
        for layer, module in zip(self.layers, modules):
            x = layer.apply(m, module, x)
        return x

    def loss(self, m, out):
        return (out * m.tensor(self.weight)).sum()

    def describe(self):
        mode = "eval" if self.eval else "train"
        return (f"x {self.x.shape} {self.x.dtype}, {mode}:\n  " +
                "\n  ".join(layer.describe() for layer in self.layers))
