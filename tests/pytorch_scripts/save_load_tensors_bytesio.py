"""torch.save / torch.load of plain Python containers of tensors into io.BytesIO (the pattern for
caching features or sending checkpoints over a socket): dicts of tensors of every dtype, nested
lists and tuples, views that share storage staying shared after loading, requires_grad kept,
map_location='cpu', weights_only=True, and saving a single tensor, a Size and ints."""
import io
import fluxgrad as torch

base = torch.arange(12.0).view(3, 4)
payload = {
    "features": base,
    "row": base[1],
    "ints": torch.tensor([1, -2, 3], dtype=torch.int32),
    "mask": torch.tensor([True, False]),
    "half": torch.tensor([0.5, 1.5], dtype=torch.float16),
    "double": torch.tensor([1e-10], dtype=torch.float64),
    "u8": torch.tensor([250, 3], dtype=torch.uint8),
    "scalar": torch.tensor(3.25),
    "empty": torch.zeros(0, 3),
    "nested": [torch.ones(2), (torch.zeros(1), {"deep": torch.full((2, 2), 7.0)})],
    "meta": {"epoch": 5, "name": "run-1", "shape": torch.Size([3, 4]), "lr": 1e-3},
}
buffer = io.BytesIO()
torch.save(payload, buffer)
print(buffer.tell() > 0)
buffer.seek(0)
loaded = torch.load(buffer)
print(sorted(loaded.keys()))
for key in ["features", "row", "ints", "mask", "half", "double", "u8", "scalar", "empty"]:
    v = loaded[key]
    print(key, v.dtype, tuple(v.shape), torch.equal(v, payload[key]))
print(loaded["nested"][1][1]["deep"], type(loaded["nested"][1]).__name__, loaded["meta"])
loaded["row"][0] = -1.0
print(loaded["features"][1, 0], base[1, 0])

w = torch.tensor([1.0, 2.0], requires_grad=True)
buf = io.BytesIO()
torch.save({"w": w, "g": w.detach() * 2}, buf)
buf.seek(0)
back = torch.load(buf, map_location="cpu", weights_only=True)
print(back["w"].requires_grad, back["g"].requires_grad, back["w"].is_leaf, back["w"])
(back["w"] * 3).sum().backward()
print(back["w"].grad)

single = io.BytesIO()
torch.save(torch.linspace(0, 1, 5), single)
single.seek(0)
print(torch.load(single))
many = io.BytesIO()
torch.save([torch.tensor(i) for i in range(3)] + [torch.Size([2]), 4], many)
print(torch.load(io.BytesIO(many.getvalue())))
transposed = base.t()
tb = io.BytesIO()
torch.save(transposed, tb)
tb.seek(0)
tt = torch.load(tb)
print(torch.equal(tt, transposed), tt.shape, tt.is_contiguous() == transposed.is_contiguous())
