"""Generator state and inference mode as scripts use them: get_rng_state / set_rng_state as a
uint8 tensor (saved with torch.save), torch.random.fork_rng, Generator get_state/set_state and
initial_seed, reproducibility by reseeding, inference tensors (is_inference) and nested
inference_mode(False), and the grad mode around them."""
import io
import fluxgrad as torch

torch.manual_seed(42)
state = torch.get_rng_state()
print(state.dtype, state.shape, state.dim())
first = torch.rand(3)
torch.set_rng_state(state)
again = torch.rand(3)
print(torch.equal(first, again), torch.initial_seed())
buf = io.BytesIO()
torch.save({"rng": torch.random.get_rng_state(), "step": 7}, buf)
torch.rand(10)
buf.seek(0)
saved = torch.load(buf, weights_only=True)
torch.random.set_rng_state(saved["rng"])
print(torch.equal(torch.rand(3), first), saved["step"], saved["rng"].dtype)
with torch.random.fork_rng():
    torch.randn(100)
after_fork = torch.rand(2)
torch.set_rng_state(state)
torch.rand(3)
print(torch.equal(torch.rand(2), after_fork))
g = torch.Generator().manual_seed(7)
print(g.initial_seed(), g.get_state().shape, g.get_state().dtype)
s = g.get_state()
a = torch.randn(4, generator=g)
g.set_state(s)
print(torch.equal(a, torch.randn(4, generator=g)))
g2 = torch.Generator()
g2.set_state(g.get_state())
print(torch.equal(torch.rand(3, generator=g), torch.rand(3, generator=g2)))
try:
    torch.set_rng_state(torch.zeros(10, dtype=torch.uint8))
except RuntimeError:
    print("state of the wrong size: RuntimeError")
try:
    torch.set_rng_state(torch.zeros(5056))
except TypeError:
    print("state of the wrong dtype: TypeError")
x = torch.ones(2, 3, requires_grad=True)
print(torch.is_inference_mode_enabled(), x.is_inference())
with torch.inference_mode():
    y = x * 2
    z = torch.zeros(2)
    print(torch.is_inference_mode_enabled(), torch.is_grad_enabled(), y.requires_grad,
          y.is_inference(), z.is_inference())
    with torch.inference_mode(False):
        w = torch.ones(1)
        print(torch.is_inference_mode_enabled(), torch.is_grad_enabled(), w.is_inference())
print(y.is_inference(), y.view(3, 2).is_inference(), (y + 1).is_inference(), y.clone().is_inference())


@torch.inference_mode()
def predict(model, inp):
    return model(inp)


model = torch.nn.Linear(3, 1)
out = predict(model, x)
print(out.requires_grad, out.is_inference(), model.weight.is_inference(), torch.is_grad_enabled())
with torch.no_grad():
    n = x * 2
print(n.is_inference(), n.requires_grad)
