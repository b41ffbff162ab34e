"""Training-step time of fluxgrad against PyTorch, side by side in one process, single thread.

    python benchmarks/bench_training.py            # all three
    python benchmarks/bench_training.py mlp cnn    # a subset

Cases (targets from the eager-speed issue): an MLP 784-512-512-10 at batch 256 with an SGD
step (target <= 1.0x PyTorch), a small VGG-style CNN on 3x32x32 at batch 32
(target <= 1.2x), and VGG-11 forward+backward on one 224x224 image (reported).
From the compile issue: the same MLP and CNN steps under `fluxgrad.compile` (the whole
step: zero_grad, forward, backward, opt.step) against PyTorch eager (targets <= 0.9x and
<= 1.0x), and with `backend="numba"` (`mlp-numba`, `cnn-numba`: fused elementwise
kernels), a small MLP's compiled Adam step, where Python overhead dominates (reported),
`cpu`: the eager and compiled steps' CPU time per step against PyTorch's (robust to the load
of other processes on a shared machine) with their page faults, `memory`: the peak traced memory
(tracemalloc, which sees NumPy's buffers) of one compiled step against one eager fluxgrad
step, counting what each keeps between steps (target: no higher), `layers`: the CNN's
convolutions and poolings one by one, the CPU time of fluxgrad's array work against
PyTorch's kernels, and `loss`: the MLP's cross_entropy alone, forward + backward.
Both frameworks get the same weights and data; the median of several steps is
compared, both back to back and interleaved.
"""
import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_var] = "1"

import sys  # noqa: E402
import time  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # this checkout

import numpy as np  # noqa: E402
import torch  # noqa: E402

import fluxgrad as fg  # noqa: E402
from fluxgrad import nn  # noqa: E402
import fluxgrad.nn.functional as F  # noqa: E402

torch.set_num_threads(1)


def median_times(ours, theirs, repeat, interleaved, warmup=2):
    """Median step times of both: each run back to back, or their steps interleaved."""
    for _ in range(warmup):
        ours()
        theirs()
    times = {ours: [], theirs: []}
    order = [(ours, theirs)] * repeat if interleaved else [(ours,)] * repeat + [(theirs,)] * repeat
    for steps in order:
        for step in steps:
            start = time.perf_counter()
            step()
            times[step].append(time.perf_counter() - start)
    return float(np.median(times[ours])), float(np.median(times[theirs]))


def copy_weights(model, torch_model):
    state = {k: torch.tensor(np.array(v.numpy())) for k, v in model.state_dict().items()}
    torch_model.load_state_dict(state)


def training_step(model, x, y, opt):
    def step():
        loss = F.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
    return step


def torch_training_step(model, x, y, opt):
    def step():
        loss = torch.nn.functional.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
    return step


def compiled_training_step(model, x, y, opt, backend=None):
    def step(x, y):
        opt.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        return loss
    compiled = fg.compile(step, backend=backend)
    return lambda: compiled(x, y)


def numba_training_step(model, x, y, opt):
    """The compiled step with `backend="numba"` (fused elementwise kernels)."""
    return compiled_training_step(model, x, y, opt, backend="numba")


def mlp(step=training_step, target=1.0, title=""):
    fg.manual_seed(0)
    model = nn.Sequential(nn.Linear(784, 512), nn.ReLU(), nn.Linear(512, 512), nn.ReLU(),
                          nn.Linear(512, 10))
    t_model = torch.nn.Sequential(torch.nn.Linear(784, 512), torch.nn.ReLU(),
                                  torch.nn.Linear(512, 512), torch.nn.ReLU(),
                                  torch.nn.Linear(512, 10))
    copy_weights(model, t_model)
    rng = np.random.default_rng(0)
    x = rng.standard_normal((256, 784)).astype(np.float32)
    y = rng.integers(0, 10, 256)
    ours = step(model, fg.tensor(x), fg.tensor(y), fg.optim.SGD(model.parameters(), lr=0.01))
    theirs = torch_training_step(t_model, torch.tensor(x), torch.tensor(y),
                                 torch.optim.SGD(t_model.parameters(), lr=0.01))
    return f"MLP 784-512-512-10, batch 256, SGD step{title}", ours, theirs, 30, target


def small_mlp():
    """Where Python overhead dominates: a small MLP's Adam step, compiled (reported)."""
    fg.manual_seed(0)
    model = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 10))
    t_model = torch.nn.Sequential(torch.nn.Linear(32, 64), torch.nn.ReLU(),
                                  torch.nn.Linear(64, 10))
    copy_weights(model, t_model)
    rng = np.random.default_rng(0)
    x = rng.standard_normal((16, 32)).astype(np.float32)
    y = rng.integers(0, 10, 16)
    ours = compiled_training_step(model, fg.tensor(x), fg.tensor(y),
                                  fg.optim.Adam(model.parameters(), lr=1e-3))
    theirs = torch_training_step(t_model, torch.tensor(x), torch.tensor(y),
                                 torch.optim.Adam(t_model.parameters(), lr=1e-3))
    return "MLP 32-64-10, batch 16, Adam step, compiled", ours, theirs, 300, None


def _cnn(lib):
    n = lib.nn
    return n.Sequential(
        n.Conv2d(3, 32, 3, padding=1), n.ReLU(), n.MaxPool2d(2),
        n.Conv2d(32, 64, 3, padding=1), n.ReLU(), n.MaxPool2d(2),
        n.Conv2d(64, 128, 3, padding=1), n.ReLU(), n.AdaptiveAvgPool2d(1), n.Flatten(),
        n.Linear(128, 10))


def cnn(step=training_step, target=1.2, title=""):
    fg.manual_seed(0)
    model, t_model = _cnn(fg), _cnn(torch)
    copy_weights(model, t_model)
    rng = np.random.default_rng(0)
    x = rng.standard_normal((32, 3, 32, 32)).astype(np.float32)
    y = rng.integers(0, 10, 32)
    ours = step(model, fg.tensor(x), fg.tensor(y),
                fg.optim.SGD(model.parameters(), lr=0.01, momentum=0.9))
    theirs = torch_training_step(t_model, torch.tensor(x), torch.tensor(y),
                                 torch.optim.SGD(t_model.parameters(), lr=0.01, momentum=0.9))
    return f"small VGG-style CNN, 3x32x32, batch 32, SGD step{title}", ours, theirs, 30, target


def vgg11():
    fg.manual_seed(0)
    model = fg.vision.models.vgg11()
    model.eval()  # no dropout, so both compute the same thing
    t_features = []
    in_c = 3
    for v in [64, "M", 128, "M", 256, 256, "M", 512, 512, "M", 512, 512, "M"]:
        if v == "M":
            t_features.append(torch.nn.MaxPool2d(2, 2))
        else:
            t_features += [torch.nn.Conv2d(in_c, v, 3, padding=1), torch.nn.ReLU()]
            in_c = v
    t_model = torch.nn.Sequential()
    t_model.add_module("features", torch.nn.Sequential(*t_features))
    t_model.add_module("avgpool", torch.nn.AdaptiveAvgPool2d((7, 7)))
    t_model.add_module("flatten", torch.nn.Flatten())
    t_model.add_module("classifier", torch.nn.Sequential(
        torch.nn.Linear(25088, 4096), torch.nn.ReLU(), torch.nn.Dropout(),
        torch.nn.Linear(4096, 4096), torch.nn.ReLU(), torch.nn.Dropout(),
        torch.nn.Linear(4096, 1000)))
    copy_weights(model, t_model)
    t_model.eval()
    x = np.random.default_rng(0).random((1, 3, 224, 224), dtype=np.float32)
    xf, xt = fg.tensor(x), torch.tensor(x)
    label = np.array([3])

    def ours():
        model.zero_grad()
        F.cross_entropy(model(xf), fg.tensor(label)).backward()

    def theirs():
        t_model.zero_grad()
        torch.nn.functional.cross_entropy(t_model(xt), torch.tensor(label)).backward()
    return "VGG-11, one 224x224 image, forward+backward", ours, theirs, 3, None


def peak_memory(step, warmup=3):
    """The peak traced memory of one step (after `warmup` steps), in bytes above the memory
    before the first step: so what a step keeps between calls counts too (the gradients,
    the compiled code's workspaces and caches)."""
    import tracemalloc
    tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]
        for _ in range(warmup):
            step()
        tracemalloc.reset_peak()
        step()
        return tracemalloc.get_traced_memory()[1] - base
    finally:
        tracemalloc.stop()


def memory():
    print("peak memory of one step (tracemalloc), compiled / eager fluxgrad (target <= 1.0x):")
    for case in (mlp, cnn):
        title, eager, _, _, _ = case()
        _, compiled, _, _, _ = case(compiled_training_step)
        e, c = peak_memory(eager), peak_memory(compiled)
        print(f"  {title:<46} eager {e / 2**20:7.2f} MiB, compiled {c / 2**20:7.2f} MiB: "
              f"{c / e:.2f}x  {'met' if c <= e else 'MISSED'}", flush=True)
        if fg.jit.kernels.available():
            k = peak_memory(case(numba_training_step)[1])
            print(f"  {'':<46} compiled with backend='numba' {k / 2**20:7.2f} MiB: "
                  f"{k / e:.2f}x  {'met' if k <= e else 'MISSED'}", flush=True)


def cpu_times(steps=30):
    """The eager and compiled steps' CPU time (`thread_time`: robust to other processes' load,
    page faults included) against PyTorch's, medians, back to back and interleaved, and the page
    faults per step of each (a step that allocates fresh memory every time pays for them)."""
    import resource
    print("CPU time per step (thread_time), medians; page faults per step:")
    for name in ("mlp", "cnn", "mlp-compiled", "cnn-compiled"):
        title, ours, theirs, _, target = CASES[name]()
        for step in (ours, theirs, ours, theirs):
            step()
        cells = []
        for order in ([ours] * steps + [theirs] * steps, [ours, theirs] * steps):
            times, faults = {ours: [], theirs: []}, {ours: 0, theirs: 0}
            for step in order:
                before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
                start = time.thread_time()
                step()
                times[step].append(time.thread_time() - start)
                faults[step] += resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before
            ratio = np.median(times[ours]) / np.median(times[theirs])
            cells.append(f"{ratio:.2f}x ({faults[ours] / steps:.0f} / "
                         f"{faults[theirs] / steps:.0f} faults)")
        print(f"  {title:<58} back to back {cells[0]}, interleaved {cells[1]}  "
              f"(target <= {target}x)", flush=True)


def _cpu_medians(ours, theirs, repeat):
    """The median CPU times (thread_time, in ms) of two steps run alternately `repeat` times."""
    times = {ours: [], theirs: []}
    for _ in range(repeat):
        for step in (ours, theirs):
            start = time.thread_time()
            step()
            times[step].append(time.thread_time() - start)
    return [float(np.median(times[f])) * 1e3 for f in (ours, theirs)]


def loss_step(repeat=301):
    """The MLP's loss alone: cross_entropy of [256, 10] logits, forward + backward (the fused
    op and its cotangent), CPU time (thread_time, medians, interleaved) against PyTorch's."""
    rng = np.random.default_rng(0)
    logits = rng.standard_normal((256, 10)).astype(np.float32)
    labels = rng.integers(0, 10, 256)
    x, y = fg.tensor(logits, requires_grad=True), fg.tensor(labels)
    tx, ty = torch.tensor(logits, requires_grad=True), torch.tensor(labels)

    def ours():
        F.cross_entropy(x, y).backward()

    def theirs():
        torch.nn.functional.cross_entropy(tx, ty).backward()
    ours(), theirs()
    t_ours, t_theirs = (t * 1e3 for t in _cpu_medians(ours, theirs, repeat))
    print(f"cross_entropy [256, 10], forward + backward, CPU time: {t_ours:.0f}us, torch "
          f"{t_theirs:.0f}us: {t_ours / t_theirs:.2f}x", flush=True)


def conv_layers(repeat=41):
    """The CNN case's convolutions and poolings one by one: the CPU time (thread_time,
    medians, interleaved) of each fluxgrad primitive's array work (its impl, no dispatch)
    against PyTorch's kernel for the same work, on the CNN's shapes at batch 32; for each
    convolution, the algorithm it takes (Winograd F(2x2, 3x3) or im2col) and the float32
    relative error (max |error| / max |value|) of both against torch in float64."""
    from fluxgrad.ops import conv as C
    from fluxgrad.ops.winograd import winograd_applies
    rng = np.random.default_rng(0)

    def activation(n, c, h, w):  # fluxgrad's activations are channels-last in memory
        return rng.standard_normal((n, h, w, c)).astype(np.float32).transpose(0, 3, 1, 2)

    def medians(ours, theirs):
        ours(), theirs()
        return _cpu_medians(ours, theirs, repeat)

    def error(ours, theirs, exact):
        exact = exact().detach().numpy()
        scale = np.abs(exact).max()
        return [np.abs(np.asarray(r, np.float64) - exact).max() / scale
                for r in (ours(), theirs().numpy())]

    print("CNN layers, CPU time per call (thread_time), medians: fluxgrad impl / torch kernel;")
    print("float32 error against torch in float64: fluxgrad / torch")
    geometry = dict(stride=(1, 1), pads=(1, 1, 1, 1), dilation=(1, 1), groups=1)
    one = dict(stride=(1, 1), dilation=(1, 1), groups=1)
    backward = torch.ops.aten.convolution_backward
    totals = [0.0, 0.0]
    for c_in, c_out, size in ((3, 32, 32), (32, 64, 16), (64, 128, 8)):
        x, y = activation(32, c_in, size, size), activation(32, c_out, size, size)
        w = rng.standard_normal((c_out, c_in, 3, 3)).astype(np.float32)
        tx, ty, tw = (torch.tensor(np.ascontiguousarray(a)) for a in (x, y, w))
        dx, dy, dw = (t.double() for t in (tx, ty, tw))
        work = [("forward", lambda: C.conv2d_p.impl(x, w, **geometry),
                 lambda: torch.conv2d(tx, tw, None, 1, 1),
                 lambda: torch.conv2d(dx, dw, None, 1, 1),
                 winograd_applies(x, w.shape, **one)),
                ("weight grad", lambda: C.conv2d_weight_p.impl(x, y, kernel=(3, 3), **geometry),
                 lambda: backward(ty, tx, tw, None, [1, 1], [1, 1], [1, 1], False, [0, 0], 1,
                                  [False, True, False])[1],
                 lambda: backward(dy, dx, dw, None, [1, 1], [1, 1], [1, 1], False, [0, 0], 1,
                                  [False, True, False])[1],
                 winograd_applies(x, w.shape, **one))]
        if c_in > 3:  # the first layer's input needs no gradient
            work.insert(1, ("input grad",
                            lambda: C.conv2d_input_p.impl(y, w, size=(size, size), **geometry),
                            lambda: backward(ty, tx, tw, None, [1, 1], [1, 1], [1, 1], False,
                                             [0, 0], 1, [True, False, False])[0],
                            lambda: backward(dy, dx, dw, None, [1, 1], [1, 1], [1, 1], False,
                                             [0, 0], 1, [True, False, False])[0],
                            winograd_applies(y, w.transpose(1, 0, 2, 3).shape, **one)))
        for what, ours, theirs, exact, winograd in work:
            t_ours, t_theirs = medians(ours, theirs)
            totals[0] += t_ours
            totals[1] += t_theirs
            e_ours, e_theirs = error(ours, theirs, exact)
            print(f"  conv {c_in:>3}->{c_out:<3} {size:>2}x{size:<2} {what:<12} {t_ours:7.2f}ms "
                  f"{t_theirs:7.2f}ms {t_ours / t_theirs:6.2f}x  "
                  f"{'winograd' if winograd else 'im2col':<8} error {e_ours:.1e} / {e_theirs:.1e}",
                  flush=True)
    pool = dict(kernel=(2, 2), stride=(2, 2), pads=(0, 0, 0, 0), dilation=(1, 1))
    for c, size in ((32, 32), (64, 16)):
        x, g = activation(32, c, size, size), activation(32, c, size // 2, size // 2)
        argmax = C.max_pool2d_p.impl(x, **pool)[1]
        tx = torch.tensor(np.ascontiguousarray(x), requires_grad=True)
        tg = torch.tensor(np.ascontiguousarray(g))
        t_out, t_idx = torch.nn.functional.max_pool2d_with_indices(tx, 2)
        work = [("max pool", lambda: C.max_pool2d_p.impl(x, **pool),
                 lambda: torch.nn.functional.max_pool2d_with_indices(tx.detach(), 2)),
                ("its scatter", lambda: C.max_pool2d_scatter_p.impl(g, argmax, size=(size, size),
                                                                    **pool),
                 lambda: torch.ops.aten.max_pool2d_with_indices_backward(
                     tg, tx.detach(), [2, 2], [2, 2], [0, 0], [1, 1], False, t_idx))]
        for what, ours, theirs in work:
            t_ours, t_theirs = medians(ours, theirs)
            totals[0] += t_ours
            totals[1] += t_theirs
            print(f"  {what:<12} {c:>3}x{size:<2}x{size:<11} {t_ours:7.2f}ms {t_theirs:7.2f}ms "
                  f"{t_ours / t_theirs:6.2f}x", flush=True)
    print(f"  {'all of the above':<35} {totals[0]:7.2f}ms {totals[1]:7.2f}ms "
          f"{totals[0] / totals[1]:6.2f}x")


CASES = {"mlp": mlp, "cnn": cnn, "vgg11": vgg11,
         "mlp-compiled": lambda: mlp(compiled_training_step, 0.9, ", compiled"),
         "cnn-compiled": lambda: cnn(compiled_training_step, 1.0, ", compiled"),
         "small-compiled": small_mlp,
         "mlp-numba": lambda: mlp(numba_training_step, 0.9, ", compiled, numba"),
         "cnn-numba": lambda: cnn(numba_training_step, 1.0, ", compiled, numba")}
REPORTS = {"memory": memory, "cpu": cpu_times, "layers": conv_layers, "loss": loss_step}


def main(names):
    print(f"single thread; numpy {np.__version__}, torch {torch.__version__}")
    print("ratio = fluxgrad / torch, medians; 'back to back' runs all of one framework's steps,")
    print("then the other's; 'interleaved' alternates them, so machine load hits both alike.")
    print(f"{'case':<48} {'fluxgrad':>10} {'torch':>10} {'back to back':>13} "
          f"{'interleaved':>12}  target")
    for name in names:
        if name in REPORTS:
            REPORTS[name]()
            continue
        title, ours, theirs, repeat, target = CASES[name]()
        t_ours, t_theirs = median_times(ours, theirs, repeat, interleaved=False)
        i_ours, i_theirs = median_times(ours, theirs, repeat, interleaved=True)
        ratios = (t_ours / t_theirs, i_ours / i_theirs)
        goal = "report" if target is None else f"<= {target}x: " + " / ".join(
            "met" if r <= target else "MISSED" for r in ratios)
        print(f"{title:<48} {t_ours * 1e3:>8.2f}ms {t_theirs * 1e3:>8.2f}ms {ratios[0]:>12.2f}x "
              f"{ratios[1]:>11.2f}x  {goal}", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:] or list(CASES) + list(REPORTS))
