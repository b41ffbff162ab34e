"""The "Tensor Views" page of the PyTorch docs worked through: t.view sharing storage with its base
(untyped_storage().data_ptr() equal, a write through the view seen in the base), _base of a view,
the list of view ops (narrow, expand, unbind, split/chunk, diagonal, movedim, unflatten, select,
indexing with slices vs advanced indexing making copies, writes through .real/.imag of a complex
tensor), contiguity after transpose and .contiguous() copying, reshape returning a view or a copy,
storage_offset of slices, and unfold as a strided view."""
import fluxgrad as torch

t = torch.rand(4, 4)
b = t.view(2, 8)
print(t.untyped_storage().data_ptr() == b.untyped_storage().data_ptr(), b._base is t, t._base is None)
b[0][0] = 3.14
print(t[0][0])

base = torch.arange(12.0).view(3, 4).clone()
print(base.is_contiguous(), base.t().is_contiguous(), base.t().contiguous().is_contiguous())
tt = base.transpose(0, 1)
c = tt.contiguous()
print(tt._base is base, c._base is None, c.data_ptr() == base.data_ptr(), tt.data_ptr() == base.data_ptr())

views = {
    "narrow": base.narrow(1, 1, 2),
    "select": base.select(0, 1),
    "slice": base[:, 1:3],
    "diagonal": base.diagonal(),
    "expand": base[:1].expand(3, 4),
    "movedim": base.movedim(0, 1),
    "unflatten": base.unflatten(1, (2, 2)),
    "T": base.T,
    "unfold": base[0].unfold(0, 2, 1),
    "view_as": base.view_as(torch.empty(2, 6)),
}
for name, v in views.items():
    print(name, tuple(v.shape), v.stride(), v.storage_offset(), v._base is base)
print([u.storage_offset() for u in base.unbind(0)], [s.stride() for s in base.split(1, dim=1)], [ch.shape for ch in base.chunk(2, dim=1)])

fancy = base[[0, 2]]
masked = base[base > 5]
print(fancy._base is None, masked._base is None, fancy.data_ptr() == base.data_ptr())
fancy[0, 0] = -1.0
print(base[0, 0])

r1 = base.reshape(4, 3)
r2 = base.t().reshape(12)
print(r1._base is base, r2._base is None, r2.is_contiguous(), r2[:4])
try:
    base.t().view(12)
except RuntimeError as err:
    print("view of a transpose refused:", "reshape" in str(err))

z = torch.zeros(3, dtype=torch.cfloat)
z.real[1] = 2.0
z.imag.fill_(-1.0)
print(z, torch.view_as_real(z).shape, torch.view_as_real(z).stride())
exp = torch.ones(1, 3).expand(2, 3)
print(exp.stride(), exp.is_contiguous(), exp.contiguous().stride())
s = base[1:, 2:]
print(s.storage_offset(), s.stride(), s.is_contiguous(), s.data_ptr() - base.data_ptr() == s.storage_offset() * base.element_size())
