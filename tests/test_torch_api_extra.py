"""The torch functions and Tensor methods added by fluxgrad/ops/{math,linalg,index}_extras.py,
special_functions.py and tensor_extras.py, fluxgrad.special and fluxgrad.testing: each
against torch (values, dtypes, gradients where differentiable, exception types)."""
import warnings

import numpy as np
import pytest
import torch

import fluxgrad as fg

rng = np.random.default_rng(0)
A = rng.standard_normal((3, 4))
B = rng.standard_normal((4, 5))
SQ = rng.standard_normal((3, 3)) + 3 * np.eye(3)
V3 = rng.standard_normal(3)
V4 = rng.standard_normal(4)
B3 = rng.standard_normal((2, 3, 4))
B4 = rng.standard_normal((2, 4, 5))
POS = rng.uniform(0.5, 3.0, (3, 4))
NAN = np.array([[1.0, np.nan, 3.0, -2.0], [np.nan, np.nan, np.nan, np.nan],
                [0.5, 4.0, -1.0, 2.0]])
INTS = np.array([3, 0, 7, 2, 2, 9, 4])
SORTED = np.array([1.0, 2.0, 2.0, 5.0, 8.0])


def t(L, a, dtype=None):
    """`a` as a tensor of library L (float64 unless told)."""
    a = np.asarray(a)
    if dtype is None:
        dtype = L.float64 if a.dtype.kind == "f" else (L.bool if a.dtype == bool else L.int64)
    return L.tensor(a.tolist(), dtype=dtype)


FUNCTIONS = {
    # elementwise
    "absolute": lambda L: L.absolute(t(L, A)),
    "positive": lambda L: L.positive(t(L, A)),
    "sgn": lambda L: L.sgn(t(L, A)),
    "float_power": lambda L: L.float_power(t(L, INTS), 2),
    "float_power tensors": lambda L: L.float_power(t(L, POS, L.float32), t(L, A)),
    "fmax": lambda L: L.fmax(t(L, NAN), t(L, NAN[::-1].copy())),
    "fmin": lambda L: L.fmin(t(L, NAN), t(L, A)),
    "frexp": lambda L: tuple(L.frexp(t(L, A * 100, L.float32))),
    "gcd": lambda L: L.gcd(t(L, INTS), t(L, INTS[::-1].copy())),
    "lcm": lambda L: L.lcm(t(L, INTS), t(L, [6] * 7)),
    "heaviside": lambda L: L.heaviside(t(L, [-1.0, 0.0, 2.0]), t(L, [0.5, 0.5, 0.5])),
    "hypot": lambda L: L.hypot(t(L, A), t(L, POS)),
    "hypot huge float32": lambda L: L.hypot(t(L, [3e30, 0.0], L.float32),
                                            t(L, [4e30, 0.0], L.float32)),
    "ldexp": lambda L: L.ldexp(t(L, A), t(L, [[1, 2, -1, 0]])),
    "logaddexp2": lambda L: L.logaddexp2(t(L, A), t(L, POS)),
    "nextafter": lambda L: L.nextafter(t(L, A), t(L, POS)),
    "xlogy": lambda L: L.xlogy(t(L, [0.0, 0.0, 2.0, 1.5]), t(L, [0.0, np.nan, 3.0, 0.5])),
    "xlogy scalar": lambda L: L.xlogy(2, t(L, POS)),
    "isneginf": lambda L: L.isneginf(t(L, [1.0, -np.inf, np.inf, np.nan])),
    "isposinf": lambda L: L.isposinf(t(L, [1.0, -np.inf, np.inf, np.nan])),
    "isposinf int": lambda L: L.isposinf(t(L, INTS)),
    "isreal": lambda L: L.isreal(t(L, A)),
    "isin": lambda L: L.isin(t(L, INTS), t(L, [2, 9])),
    "isin invert": lambda L: L.isin(t(L, INTS), t(L, [2, 9]), invert=True),
    "mvlgamma": lambda L: L.mvlgamma(t(L, POS + 2), 3),
    "lgamma": lambda L: L.lgamma(t(L, A * 4)),
    "lgamma int": lambda L: L.lgamma(t(L, INTS + 1)),
    "digamma": lambda L: L.digamma(t(L, A * 4)),
    "polygamma 2": lambda L: L.polygamma(2, t(L, A * 4)),
    "polygamma 3": lambda L: L.polygamma(3, t(L, POS)),
    "erfinv": lambda L: L.erfinv(t(L, np.tanh(A))),
    "erfinv ends": lambda L: L.erfinv(t(L, [-1.0, 1.0, 1.5, 0.0])),
    "i0": lambda L: L.i0(t(L, A * 5)),
    # products and matrices
    "addmm": lambda L: L.addmm(t(L, V4[:1]), t(L, A), t(L, B[:, :1]), beta=0.5, alpha=2),
    "addmm beta 0 ignores nan": lambda L: L.addmm(t(L, np.full((3, 5), np.nan)), t(L, A),
                                                  t(L, B), beta=0),
    "addmv": lambda L: L.addmv(t(L, V3), t(L, A), t(L, V4)),
    "addr": lambda L: L.addr(t(L, A), t(L, V3), t(L, V4), alpha=3),
    "baddbmm": lambda L: L.baddbmm(t(L, np.ones((2, 3, 5))), t(L, B3), t(L, B4)),
    "addbmm": lambda L: L.addbmm(t(L, np.ones((3, 5))), t(L, B3), t(L, B4), beta=2),
    "chain_matmul": lambda L: L.linalg.multi_dot([t(L, A), t(L, B)]) if L is torch else
    L.chain_matmul(t(L, A), t(L, B)),
    "ger": lambda L: L.ger(t(L, V3), t(L, V4)),
    "inner": lambda L: L.inner(t(L, B3), t(L, A)),
    "inner 0-d": lambda L: L.inner(t(L, 2.0), t(L, A)),
    "vdot": lambda L: L.vdot(t(L, V4), t(L, V4[::-1].copy())),
    "logdet": lambda L: L.logdet(t(L, SQ)),
    "logdet negative": lambda L: L.logdet(t(L, [[0.0, 1.0], [1.0, 0.0]])),
    "dist": lambda L: L.dist(t(L, A), t(L, POS)),
    "dist p=1": lambda L: L.dist(t(L, A), t(L, POS), 1),
    "pdist": lambda L: L.nn.functional.pdist(t(L, A)) if L is torch else L.pdist(t(L, A)),
    "pdist p=3": lambda L: L.nn.functional.pdist(t(L, A), 3) if L is torch else
    L.pdist(t(L, A), 3),
    "renorm": lambda L: L.renorm(t(L, A), 2, 0, 1.5),
    "block_diag": lambda L: L.block_diag(t(L, A), t(L, 2.0), t(L, V3), t(L, SQ)),
    "block_diag int": lambda L: L.block_diag(t(L, INTS), t(L, [[1], [2]])),
    "cartesian_prod": lambda L: L.cartesian_prod(t(L, V3), t(L, [1.0, 2.0])),
    "combinations": lambda L: L.combinations(t(L, V4)),
    "combinations r=3 replacement": lambda L: L.combinations(t(L, V3), 3, True),
    "vander": lambda L: L.vander(t(L, V3)),
    "vander int increasing": lambda L: L.vander(t(L, INTS[:4]), 3, True),
    "diagflat": lambda L: L.diagflat(t(L, A[:2, :2]), 1),
    "cov": lambda L: L.cov(t(L, A)),
    "cov 1-d": lambda L: L.cov(t(L, V4), correction=0),
    "cov weights": lambda L: L.cov(t(L, A), fweights=t(L, [1, 2, 1, 3]),
                                   aweights=t(L, POS[0])),
    "corrcoef": lambda L: L.corrcoef(t(L, A)),
    "trapezoid": lambda L: L.trapezoid(t(L, A)),
    "trapezoid x": lambda L: L.trapezoid(t(L, A), t(L, np.cumsum(POS[0]))),
    "trapezoid dx dim": lambda L: L.trapezoid(t(L, A), dx=0.5, dim=0),
    "trapz": lambda L: L.trapz(t(L, A), t(L, np.cumsum(POS[0]))),
    "cumulative_trapezoid": lambda L: L.cumulative_trapezoid(t(L, A), dx=2.0),
    "cumulative_trapezoid x": lambda L: L.cumulative_trapezoid(
        t(L, A), t(L, np.cumsum(POS[:, 0])), dim=0),
    # indexing, splitting, counting
    "index_copy": lambda L: L.index_copy(t(L, A), 1, t(L, [3, 0]), t(L, POS[:, :2])),
    "index_fill": lambda L: L.index_fill(t(L, A), 0, t(L, [2, 0]), -1.5),
    "index_reduce prod": lambda L: L.index_reduce(t(L, A), 0, t(L, [0, 2, 0]), t(L, POS),
                                                  "prod"),
    "index_reduce amax no self": lambda L: L.index_reduce(t(L, A), 1, t(L, [1, 1, 3, 1]),
                                                          t(L, POS), "amax",
                                                          include_self=False),
    "index_reduce mean": lambda L: L.index_reduce(t(L, A), 0, t(L, [1, 1, 0]), t(L, POS),
                                                  "mean"),
    "masked_scatter": lambda L: L.masked_scatter(t(L, A), t(L, A > 0), t(L, POS)),
    "masked_scatter broadcast": lambda L: L.masked_scatter(t(L, A), t(L, [True, False, True,
                                                                        False]), t(L, POS)),
    "select_scatter": lambda L: L.select_scatter(t(L, A), t(L, V3), 1, -1),
    "slice_scatter": lambda L: L.slice_scatter(t(L, A), t(L, POS[:, :2]), 1, 0, 4, 2),
    "slice_scatter rows": lambda L: L.slice_scatter(t(L, A), t(L, POS[:2]), start=1),
    "tensor_split int": lambda L: L.tensor_split(t(L, B), 3, 1),
    "tensor_split indices": lambda L: L.tensor_split(t(L, B), [1, 3, 10], 1),
    "tensor_split tensor": lambda L: L.tensor_split(t(L, B), t(L, 2)),
    "hsplit": lambda L: L.hsplit(t(L, A), 2),
    "hsplit 1-d": lambda L: L.hsplit(t(L, V4), [1]),
    "vsplit": lambda L: L.vsplit(t(L, B), [1, 2]),
    "dsplit": lambda L: L.dsplit(t(L, B3), 2),
    "narrow_copy": lambda L: L.narrow_copy(t(L, A), 1, 1, 2),
    "argwhere": lambda L: L.argwhere(t(L, A > 0)),
    "unravel_index": lambda L: L.unravel_index(t(L, [0, 5, 11, -1, 12, -13]), (3, 4)),
    "tril_indices": lambda L: L.tril_indices(4, 3, 1),
    "triu_indices": lambda L: L.triu_indices(3, 5, -1),
    "bincount": lambda L: L.bincount(t(L, INTS)),
    "bincount weights": lambda L: L.bincount(t(L, INTS), t(L, INTS * 0.5, L.float32), 12),
    "histc": lambda L: L.histc(t(L, A, L.float32), 5),
    "histc range": lambda L: L.histc(t(L, A), 4, -1, 1),
    "searchsorted": lambda L: L.searchsorted(t(L, SORTED), t(L, [[2.0, 0.0], [9.0, 5.0]])),
    "searchsorted right int32": lambda L: L.searchsorted(t(L, SORTED), t(L, [2.0, 5.0]),
                                                         right=True, out_int32=True),
    "searchsorted side scalar": lambda L: L.searchsorted(t(L, SORTED), 2.0, side="right"),
    "searchsorted rows": lambda L: L.searchsorted(t(L, np.sort(A, 1)), t(L, POS[:, :2])),
    "bucketize": lambda L: L.bucketize(t(L, [[2.0, 0.0], [9.0, 5.0]]), t(L, SORTED)),
    "bucketize right": lambda L: L.bucketize(t(L, [2.0, 5.0]), t(L, SORTED), right=True),
    "msort": lambda L: L.msort(t(L, A)),
    "aminmax": lambda L: tuple(L.aminmax(t(L, A))),
    "aminmax dim": lambda L: tuple(L.aminmax(t(L, A), dim=1, keepdim=True)),
    "nansum": lambda L: L.nansum(t(L, NAN)),
    "nansum dim": lambda L: L.nansum(t(L, NAN), 1, keepdim=True),
    "nansum int": lambda L: L.nansum(t(L, INTS)),
    "nanmean": lambda L: L.nanmean(t(L, NAN[::2].copy()), 0),
    "quantile": lambda L: L.quantile(t(L, A), 0.3),
    "quantile dim": lambda L: L.quantile(t(L, A), 0.75, dim=1, keepdim=True),
    "quantile q tensor": lambda L: L.quantile(t(L, A), t(L, [0.0, 0.5, 0.9]), dim=0),
    "quantile nan": lambda L: L.quantile(t(L, NAN), 0.5, dim=1),
    "quantile keepdim all": lambda L: L.quantile(t(L, A), t(L, [0.2, 0.6]), keepdim=True),
    **{f"quantile {mode}": (lambda L, mode=mode: L.quantile(t(L, A), t(L, [0.1, 0.5, 0.85]), 1,
                                                            interpolation=mode))
       for mode in ("lower", "higher", "midpoint", "nearest")},
    "nanquantile": lambda L: L.nanquantile(t(L, NAN), t(L, [0.25, 0.5]), dim=1),
    "nanquantile all": lambda L: L.nanquantile(t(L, NAN), 0.4),
    # windows, histogram
    **{f"{name} {n} {periodic}": (lambda L, name=name, n=n, periodic=periodic:
                                  getattr(L, name)(n, periodic))
       for name in ("hann_window", "hamming_window", "blackman_window", "bartlett_window",
                    "kaiser_window") for n in (0, 1, 6) for periodic in (True, False)},
    "hamming_window alpha beta float64": lambda L: L.hamming_window(5, False, 0.5, 0.4,
                                                                    dtype=L.float64),
    "kaiser_window beta": lambda L: L.kaiser_window(7, True, 5.0),
    "histogram": lambda L: tuple(L.histogram(t(L, A), 4)),
    "histogram range": lambda L: tuple(L.histogram(t(L, A, L.float32), 3, range=(-1.0, 1.0))),
    "histogram edges weight density": lambda L: tuple(L.histogram(
        t(L, A), t(L, [-2.0, 0.0, 0.5, 3.0]), weight=t(L, POS), density=True)),
    "histogram constant": lambda L: tuple(L.histogram(t(L, [3.0, 3.0]), 2)),
    "cosine_similarity": lambda L: L.cosine_similarity(t(L, A), t(L, POS)),
    # dtypes and global queries
    "is_floating_point": lambda L: L.is_floating_point(t(L, A)),
    "is_complex": lambda L: L.is_complex(t(L, A)),
    "is_nonzero": lambda L: L.is_nonzero(t(L, [0.5])),
    "is_signed": lambda L: (L.is_signed(t(L, A)), L.is_signed(t(L, INTS, L.uint8))),
    "rsub": lambda L: L.rsub(t(L, A), t(L, POS), alpha=2),
    "rsub scalar": lambda L: L.rsub(t(L, INTS), 3),
    "vmap": lambda L: L.vmap(lambda row: (row * row).sum())(t(L, A)),
    "broadcast_shapes": lambda L: tuple(L.broadcast_shapes((3, 1), (4,), (2, 1, 1))),
    "result_type": lambda L: str(L.result_type(t(L, INTS), 2.5)).split(".")[-1],
    "result_type tensors": lambda L: str(L.result_type(t(L, [1], L.int8),
                                                       t(L, [1], L.uint8))).split(".")[-1],
    "promote_types": lambda L: str(L.promote_types(L.int32, L.float16)).split(".")[-1],
    "can_cast": lambda L: (L.can_cast(L.float64, L.int32), L.can_cast(L.int32, L.float32),
                           L.can_cast(L.int64, L.int8), L.can_cast(L.bool, L.uint8)),
    "get_float32_matmul_precision": lambda L: L.get_float32_matmul_precision(),
    "are_deterministic_algorithms_enabled": lambda L: L.are_deterministic_algorithms_enabled(),
    "is_inference_mode_enabled": lambda L: L.is_inference_mode_enabled(),
}


def _as_numpy(v):
    if isinstance(v, (tuple, list)):
        return [_as_numpy(x) for x in v]
    if isinstance(v, torch.Tensor):
        return (v.detach().numpy(), str(v.dtype).split(".")[-1])
    if isinstance(v, fg.Tensor):
        return (v.detach().numpy(), str(v.dtype).split(".")[-1])
    return v


def _assert_same(ours, theirs):
    if isinstance(theirs, list):
        assert isinstance(ours, list) and len(ours) == len(theirs)
        for a, b in zip(ours, theirs):
            _assert_same(a, b)
    elif isinstance(theirs, tuple) and len(theirs) == 2 and isinstance(theirs[0], np.ndarray):
        assert ours[1] == theirs[1], f"dtype {ours[1]} != torch's {theirs[1]}"
        assert ours[0].shape == theirs[0].shape
        atol = 1e-9 if theirs[1] == "float64" else 1e-6  # float32 rounding near 0
        np.testing.assert_allclose(ours[0], theirs[0], rtol=1e-6, atol=atol)
    else:
        assert ours == theirs


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_function_matches_torch(name):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = _as_numpy(FUNCTIONS[name](torch))
    _assert_same(_as_numpy(FUNCTIONS[name](fg)), theirs)


SPECIAL = {
    **{name: (lambda L, name=name: getattr(L.special, name)(t(L, A * 2)))
       for name in ("erf", "erfc", "expit", "exp2", "expm1", "sinc", "round", "i0", "i0e", "i1",
                    "i1e", "ndtr", "log_ndtr")},
    **{name: (lambda L, name=name: getattr(L.special, name)(t(L, POS + 0.3)))
       for name in ("digamma", "psi", "gammaln", "entr", "log1p")},
    "entr edges": lambda L: L.special.entr(t(L, [-1.0, 0.0, 0.5])),
    "erfcx": lambda L: L.special.erfcx(t(L, A * 3)),
    "erfinv": lambda L: L.special.erfinv(t(L, np.tanh(A))),
    "ndtri": lambda L: L.special.ndtri(t(L, 1 / (1 + np.exp(-A)))),
    "logit": lambda L: L.special.logit(t(L, 1 / (1 + np.exp(-A)))),
    "logit eps": lambda L: L.special.logit(t(L, [0.0, 0.5, 1.0]), eps=1e-3),
    "polygamma": lambda L: L.special.polygamma(2, t(L, POS)),
    "multigammaln": lambda L: L.special.multigammaln(t(L, POS + 2), 2),
    "xlogy": lambda L: L.special.xlogy(t(L, [0.0, 2.0]), t(L, [0.0, 3.0])),
    "xlog1py": lambda L: L.special.xlog1py(t(L, [0.0, 2.0, 0.0]), t(L, [-1.0, 3.0, np.nan])),
    "softmax": lambda L: L.special.softmax(t(L, A), 1),
    "log_softmax": lambda L: L.special.log_softmax(t(L, A), 0),
    "logsumexp": lambda L: L.special.logsumexp(t(L, A), 1),
}


@pytest.mark.parametrize("name", sorted(SPECIAL))
def test_special_function_matches_torch_special(name):
    _assert_same(_as_numpy(SPECIAL[name](fg)), _as_numpy(SPECIAL[name](torch)))


METHODS = {
    "H": lambda L: t(L, A).H,
    "mH": lambda L: t(L, B3).mH,
    "adjoint": lambda L: t(L, B3).adjoint(),
    "ndimension": lambda L: t(L, B3).ndimension(),
    "nelement": lambda L: t(L, B3).nelement(),
    "element_size": lambda L: t(L, A, L.float16).element_size(),
    "itemsize": lambda L: t(L, INTS, L.int32).itemsize,
    "nbytes": lambda L: t(L, A).nbytes,
    "stride": lambda L: t(L, B3).stride(),
    "stride of a transpose": lambda L: t(L, B3).transpose(0, 2).stride(1),
    "storage_offset": lambda L: t(L, B3)[1, 1:].storage_offset(),
    "data_ptr shared by a view": lambda L: (lambda x: x.data_ptr() == x[0].data_ptr())(t(L, A)),
    "sum_to_size": lambda L: t(L, B3).sum_to_size(2, 1, 4),
    "is_signed": lambda L: (t(L, A).is_signed(), t(L, INTS, L.uint8).is_signed()),
    "is_complex": lambda L: t(L, A).is_complex(),
    "is_nonzero": lambda L: t(L, [[0]]).is_nonzero(),
    "not pinned, not sparse": lambda L: (t(L, A).is_pinned(), t(L, A).is_sparse),
    "layout": lambda L: str(t(L, A).layout).split(".")[-1],
    "output_nr": lambda L: t(L, A).output_nr,
    "msort": lambda L: t(L, A).msort(),
    "tensor_split": lambda L: t(L, V4).tensor_split(3),
    "polygamma": lambda L: t(L, POS).polygamma(1),
    "put": lambda L: t(L, A).put(t(L, [0, 11]), t(L, [7.0, 8.0])),
    "baddbmm": lambda L: t(L, np.ones((2, 3, 5))).baddbmm(t(L, B3), t(L, B4), alpha=0.5),
    "index_fill": lambda L: t(L, A).index_fill(1, t(L, [0, 3]), 9.0),
    "real, conj, resolve_conj, resolve_neg": lambda L: (lambda x: (
        x.real is x, x.conj() is x, x.resolve_conj() is x, x.resolve_neg() is x, x.is_conj(),
        x.is_neg()))(t(L, A)),
    "is_same_size": lambda L: (t(L, A).is_same_size(t(L, POS)), t(L, A).is_same_size(t(L, B))),
    "split_with_sizes": lambda L: t(L, B).split_with_sizes([2, 3], 1),
}


@pytest.mark.parametrize("name", sorted(METHODS))
def test_tensor_method_matches_torch(name):
    _assert_same(_as_numpy(METHODS[name](fg)), _as_numpy(METHODS[name](torch)))


# in-place methods: (call on x, the input), checked for value, version bump, identity
INPLACE = {
    "eq_": (lambda x, L: x.eq_(t(L, np.where(A > 0, A, 0.0))), A),
    "ne_ scalar": (lambda x, L: x.ne_(A[0, 1].item()), A),
    "ge_ scalar": (lambda x, L: x.ge_(0.1), A),
    "lt_": (lambda x, L: x.lt_(t(L, V4)), A),
    "logical_not_": (lambda x, L: x.logical_not_(), np.round(A)),
    "logical_and_": (lambda x, L: x.logical_and_(t(L, np.round(POS))), np.round(A)),
    "nan_to_num_": (lambda x, L: x.nan_to_num_(1.5), NAN),
    "absolute_": (lambda x, L: x.absolute_(), A),
    "asin_": (lambda x, L: x.asin_(), np.tanh(A)),
    "lgamma_": (lambda x, L: x.lgamma_(), POS),
    "digamma_": (lambda x, L: x.digamma_(), POS),
    "erfinv_": (lambda x, L: x.erfinv_(), np.tanh(A)),
    "polygamma_": (lambda x, L: x.polygamma_(2), POS),
    "xlogy_": (lambda x, L: x.xlogy_(t(L, POS)), A),
    "hypot_": (lambda x, L: x.hypot_(t(L, POS)), A),
    "cumsum_": (lambda x, L: x.cumsum_(1), A),
    "addmm_": (lambda x, L: x.addmm_(t(L, A[:, :3]), t(L, SQ[:, :1]).expand(3, 4), beta=2), A),
    "index_fill_": (lambda x, L: x.index_fill_(0, t(L, [1]), -2.0), A),
    "index_copy_": (lambda x, L: x.index_copy_(1, t(L, [2]), t(L, V3[:, None])), A),
    "masked_scatter_": (lambda x, L: x.masked_scatter_(t(L, A > 0), t(L, POS)), A),
    "fill_diagonal_": (lambda x, L: x.fill_diagonal_(3.0), A),
    "fill_diagonal_ wrap": (lambda x, L: x.fill_diagonal_(3.0, wrap=True),
                            rng.standard_normal((7, 2))),
    "put_": (lambda x, L: x.put_(t(L, [1, -1]), t(L, [5.0, 6.0])), A),
    "put_ accumulate": (lambda x, L: x.put_(t(L, [1, 1]), t(L, [5.0, 6.0]), True), A),
    "tril_": (lambda x, L: x.tril_(), A),
    "renorm_": (lambda x, L: x.renorm_(1, 1, 1.0), A),
    "squeeze_": (lambda x, L: x.squeeze_(), A[None, :, None]),
    "unsqueeze_": (lambda x, L: x.unsqueeze_(-1), A),
    "t_": (lambda x, L: x.t_(), A),
    "transpose_": (lambda x, L: x.transpose_(0, 2), B3),
    "resize_ same size": (lambda x, L: x.resize_(2, 6), A),
    "float_power_": (lambda x, L: x.float_power_(2), A),
    "sgn_": (lambda x, L: x.sgn_(), A),
}


@pytest.mark.parametrize("name", sorted(INPLACE))
def test_inplace_method_matches_torch_and_bumps_the_version(name):
    call, data = INPLACE[name]
    results = []
    for L in (fg, torch):
        x = t(L, data)
        before = x._version
        out = call(x, L)
        assert out is x
        assert x._version > before
        results.append(_as_numpy(x))
    _assert_same(*results)


@pytest.mark.parametrize("name", ["eq_", "tril_", "cumsum_", "lgamma_", "unsqueeze_", "t_",
                                  "index_fill_", "masked_scatter_", "fill_diagonal_", "put_",
                                  "addmm_", "squeeze_", "xlogy_"])
def test_inplace_method_on_a_non_leaf_gives_torchs_gradient(name):
    call, data = INPLACE[name]
    grads = []
    for L in (fg, torch):
        leaf = t(L, data).requires_grad_()
        y = leaf * 1.5
        call(y, L)
        (y * y).sum().backward()
        grads.append(leaf.grad.numpy())
    np.testing.assert_allclose(grads[0], grads[1], rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("name", ["eq_", "unsqueeze_", "cumsum_"])
def test_inplace_method_on_a_leaf_that_requires_grad_raises(name):
    call, data = INPLACE[name]
    x = t(fg, data).requires_grad_()
    with pytest.raises(RuntimeError, match="leaf"):
        call(x, fg)
    assert x.shape == tuple(np.shape(data)) and x._version == 0


def test_unsqueeze_in_place_through_a_view_writes_the_base():
    for L in (fg, torch):
        base = t(L, A)
        view = base[1]
        view.unsqueeze_(0)
        view[0, 2] = 100.0
        assert tuple(view.shape) == (1, 4) and base[1, 2].item() == 100.0


def test_resize_to_another_number_of_elements_is_refused_and_changes_nothing():
    x = t(fg, A)
    with pytest.raises(RuntimeError, match="same number of elements"):
        x.resize_(4, 5)
    assert x.shape == (3, 4) and x._version == 0


@pytest.mark.parametrize("name, draw", [
    ("cauchy_", lambda x: x.cauchy_(1.0, 0.5)),
    ("log_normal_", lambda x: x.log_normal_(0.0, 0.5)),
    ("geometric_", lambda x: x.geometric_(0.3)),
])
def test_random_fills_follow_their_distribution(name, draw):
    fg.manual_seed(0)
    x = draw(fg.zeros(20000, dtype=fg.float64)).numpy()
    if name == "cauchy_":
        assert abs(np.median(x) - 1.0) < 0.03 and abs(np.percentile(x, 75) - 1.5) < 0.05
    elif name == "log_normal_":
        assert (x > 0).all() and abs(np.log(x).mean()) < 0.02 and abs(np.log(x).std() - 0.5) < 0.02
    else:
        assert x.min() >= 1 and (x == np.round(x)).all() and abs(x.mean() - 1 / 0.3) < 0.1


def test_pin_memory_and_share_memory_return_the_tensor_itself():
    x = t(fg, A)
    assert x.pin_memory() is x and x.share_memory_() is x


# differentiable composites: fn(L, *leaves), float64 inputs
GRADIENTS = {
    "fmax": (lambda L, x, y: L.fmax(x, y), [A, POS]),
    "fmin": (lambda L, x, y: L.fmin(x, y), [A, POS]),
    "hypot": (lambda L, x, y: L.hypot(x, y), [A, POS]),
    # (PyTorch's gradient is 0 for a negative integer exponent: 2 ** -1 taken in integers)
    "ldexp": (lambda L, x: L.ldexp(x, t(L, [[1, 2, 3, 0]])), [A]),
    "logaddexp2": (lambda L, x, y: L.logaddexp2(x, y), [A, POS]),
    "xlogy": (lambda L, x, y: L.xlogy(x, y), [np.where(A > 0, A, 0.0), POS]),
    "float_power": (lambda L, x, y: L.float_power(x, y), [POS, A]),
    "mvlgamma": (lambda L, x: L.mvlgamma(x, 3), [POS + 2]),
    "addmm": (lambda L, x, a, b: L.addmm(x, a, b, beta=0.5, alpha=2), [A[:, :1], A, B[:, :4]]),
    "addmv": (lambda L, x, a, v: L.addmv(x, a, v, beta=3), [V3, A, V4]),
    "addr": (lambda L, x, u, v: L.addr(x, u, v), [A, V3, V4]),
    "baddbmm": (lambda L, x, a, b: L.baddbmm(x, a, b), [np.ones((2, 3, 5)), B3, B4]),
    "addbmm": (lambda L, x, a, b: L.addbmm(x, a, b, alpha=-1), [np.ones((3, 5)), B3, B4]),
    "inner": (lambda L, x, y: L.inner(x, y), [B3, A]),
    "vdot": (lambda L, x, y: L.vdot(x, y), [V4, V4 * 2 - 1]),
    "logdet": (lambda L, x: L.logdet(x), [SQ]),
    "dist": (lambda L, x, y: L.dist(x, y, 3), [A, POS]),
    "pdist": (lambda L, x: L.nn.functional.pdist(x) if L is torch else L.pdist(x), [A]),
    "renorm": (lambda L, x: L.renorm(x, 2, 1, 1.0), [A]),
    "block_diag": (lambda L, x, y: L.block_diag(x, y), [A, SQ]),
    "cartesian_prod": (lambda L, x, y: L.cartesian_prod(x, y), [V3, V4]),
    "combinations": (lambda L, x: L.combinations(x, 3), [V4]),
    "diagflat": (lambda L, x: L.diagflat(x, -1), [V3]),
    "cov": (lambda L, x, w: L.cov(x, aweights=w), [A, POS[0]]),
    "corrcoef": (lambda L, x: L.corrcoef(x), [A]),
    "trapezoid": (lambda L, y, x: L.trapezoid(y, x), [A, np.cumsum(POS[0])]),
    "cumulative_trapezoid": (lambda L, y: L.cumulative_trapezoid(y, dx=0.3, dim=0), [A]),
    "index_copy": (lambda L, x, s: L.index_copy(x, 1, t(L, [3, 0]), s), [A, POS[:, :2]]),
    "index_fill": (lambda L, x: L.index_fill(x, 0, t(L, [2]), 1.0), [A]),
    "index_reduce prod": (lambda L, x, s: L.index_reduce(x, 0, t(L, [0, 2, 0]), s, "prod"),
                          [A, POS]),
    "index_reduce mean": (lambda L, x, s: L.index_reduce(x, 0, t(L, [1, 1, 0]), s, "mean"),
                          [A, POS]),
    "masked_scatter": (lambda L, x, s: L.masked_scatter(x, t(L, A > 0), s), [A, POS]),
    "select_scatter": (lambda L, x, s: L.select_scatter(x, s, 0, 1), [A, V4]),
    "slice_scatter": (lambda L, x, s: L.slice_scatter(x, s, 1, 1, 4, 2), [A, POS[:, :2]]),
    "tensor_split": (lambda L, x: L.tensor_split(x, [1, 3], 1)[1], [A]),
    "narrow_copy": (lambda L, x: L.narrow_copy(x, 0, 1, 2), [A]),
    "msort": (lambda L, x: L.msort(x), [A]),
    "aminmax": (lambda L, x: L.aminmax(x, dim=0)[1], [A]),
    "nansum": (lambda L, x: L.nansum(x, 1), [NAN]),
    "nanmean": (lambda L, x: L.nanmean(x, 1), [NAN[::2].copy()]),
    "quantile": (lambda L, x: L.quantile(x, t(L, [0.2, 0.7]), dim=1), [A]),
    "nanquantile": (lambda L, x: L.nanquantile(x, 0.4, dim=1), [NAN[::2].copy()]),
    "special.entr": (lambda L, x: L.special.entr(x), [POS]),
    "special.ndtri": (lambda L, x: L.special.ndtri(x), [POS / 4]),
    "special.xlog1py": (lambda L, x, y: L.special.xlog1py(x, y), [A, POS]),
    "special.i1e": (lambda L, x: L.special.i1e(x), [A * 3]),
}


@pytest.mark.parametrize("name", sorted(GRADIENTS))
def test_composite_gradient_matches_torch(name):
    fn, arrays = GRADIENTS[name]
    grads = []
    for L in (fg, torch):
        xs = [t(L, a).requires_grad_() for a in arrays]
        out = fn(L, *xs)
        weights = t(L, np.random.default_rng(1).standard_normal(tuple(out.shape)))
        (out * weights).nansum().backward() if L is torch else (
            L.nansum(out * weights).backward())
        grads.append([x.grad.numpy() for x in xs])
    for ours, theirs in zip(*grads):
        np.testing.assert_allclose(ours, theirs, rtol=1e-7, atol=1e-10)


ERRORS = {
    "gcd of floats": lambda L: L.gcd(t(L, A), t(L, A)),
    "heaviside of two dtypes": lambda L: L.heaviside(t(L, A), t(L, A, L.float32)),
    "frexp of ints": lambda L: L.frexp(t(L, INTS)),
    "polygamma negative n": lambda L: L.polygamma(-1, t(L, A)),
    "polygamma float n": lambda L: L.polygamma(1.5, t(L, A)),
    "positive of bool": lambda L: L.positive(t(L, A > 0)),
    "addmm bad shapes": lambda L: L.addmm(t(L, A), t(L, A), t(L, A)),
    "addmm input does not broadcast": lambda L: L.addmm(t(L, V4), t(L, A), t(L, B)),
    "inner mismatch": lambda L: L.inner(t(L, A), t(L, B)),
    "vdot dtypes": lambda L: L.vdot(t(L, V4), t(L, V4, L.float32)),
    "pdist 3-d": lambda L: (L.nn.functional.pdist if L is torch else L.pdist)(t(L, B3)),
    "block_diag 3-d": lambda L: L.block_diag(t(L, B3)),
    "cov 3-d": lambda L: L.cov(t(L, B3)),
    "cov float fweights": lambda L: L.cov(t(L, A), fweights=t(L, POS[0])),
    "combinations 2-d": lambda L: L.combinations(t(L, A)),
    "index_copy bad source": lambda L: L.index_copy(t(L, A), 1, t(L, [0]), t(L, A)),
    "index_fill float index": lambda L: L.index_fill(t(L, A), 1, t(L, [0.0]), 1.0),
    "index_reduce unknown": lambda L: L.index_reduce(t(L, A), 0, t(L, [0, 1, 2]), t(L, A),
                                                     "sum"),
    "masked_scatter short source": lambda L: L.masked_scatter(
        t(L, A), t(L, np.ones((3, 4), bool)), t(L, V3)),
    "masked_scatter float mask": lambda L: L.masked_scatter(t(L, A), t(L, A), t(L, A)),
    "select_scatter bad src": lambda L: L.select_scatter(t(L, A), t(L, A), 0, 0),
    "tensor_split 0 sections": lambda L: L.tensor_split(t(L, A), 0),
    "tensor_split 0-d": lambda L: L.tensor_split(t(L, 1.0), 2),
    "hsplit not divisible": lambda L: L.hsplit(t(L, A), 3),
    "vsplit 1-d": lambda L: L.vsplit(t(L, V4), 2),
    "dsplit 2-d": lambda L: L.dsplit(t(L, A), 2),
    "bincount negative": lambda L: L.bincount(t(L, [-1, 2])),
    "bincount float": lambda L: L.bincount(t(L, V4)),
    "histc of ints": lambda L: L.histc(t(L, INTS)),
    "histogram of ints": lambda L: L.histogram(t(L, INTS)),
    "window of negative length": lambda L: L.hann_window(-1),
    "window of int dtype": lambda L: L.hann_window(4, dtype=L.int64),
    "histc min above max": lambda L: L.histc(t(L, A), 4, 2, 1),
    "searchsorted side and right": lambda L: L.searchsorted(t(L, SORTED), t(L, V3),
                                                            right=True, side="left"),
    "searchsorted bad side": lambda L: L.searchsorted(t(L, SORTED), t(L, V3), side="up"),
    "bucketize 2-d boundaries": lambda L: L.bucketize(t(L, V3), t(L, A)),
    "quantile q out of range": lambda L: L.quantile(t(L, A), 1.5),
    "quantile of ints": lambda L: L.quantile(t(L, INTS), 0.5),
    "quantile q dtype": lambda L: L.quantile(t(L, A), t(L, [0.5], L.float32)),
    "quantile 2-d q": lambda L: L.quantile(t(L, A), t(L, [[0.5]])),
    "nanmean of ints": lambda L: L.nanmean(t(L, INTS)),
    "aminmax of empty": lambda L: L.aminmax(t(L, np.zeros(0))),
    "is_nonzero of two": lambda L: L.is_nonzero(t(L, V3[:2])),
    "H of 3-d": lambda L: t(L, B3).H,
    "H of 1-d": lambda L: t(L, V3).H,
    "imag of a real tensor": lambda L: t(L, V3).imag,
    "sum_to_size not expandable": lambda L: t(L, A).sum_to_size(2, 4),
    "fill_diagonal_ unequal dims": lambda L: t(L, B3).fill_diagonal_(1.0),
    "fill_diagonal_ 1-d": lambda L: t(L, V3).fill_diagonal_(1.0),
    "put_ sizes differ": lambda L: t(L, A).put_(t(L, [0, 1]), t(L, [1.0])),
    "float_power_ on float32": lambda L: t(L, A, L.float32).float_power_(2),
    "broadcast_shapes mismatch": lambda L: L.broadcast_shapes((2, 3), (4,)),
    "promote_types of a string": lambda L: L.promote_types(L.int32, "float"),
    "unravel_index of floats": lambda L: L.unravel_index(t(L, V3), (3,)),
}


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_error_has_torchs_exception_type(name):
    with pytest.raises(Exception) as theirs:
        ERRORS[name](torch)
    with pytest.raises(type(theirs.value)):
        ERRORS[name](fg)


def test_vander_gradient_is_the_derivative_of_the_powers():
    # PyTorch's own vander backward fails (an in-place write in its cumprod), so the closed form
    x = t(fg, V3).requires_grad_()
    fg.vander(x, 4).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 1 + 2 * V3 + 3 * V3 ** 2, rtol=1e-12)


@pytest.mark.parametrize("options", [dict(precision=2), dict(sci_mode=True),
                                     dict(profile="short"), dict(precision=6, sci_mode=False)])
def test_set_printoptions_prints_as_torch(options):
    values = [[1.23456, 2.5, -3.0], [0.5, 1e-3, 2.0]]
    try:
        texts = []
        for L in (fg, torch):
            L.set_printoptions(**options)
            texts.append(repr(L.tensor(values)))
    finally:
        fg.set_printoptions(profile="default")
        torch.set_printoptions(profile="default")
    assert texts[0] == texts[1]
    assert repr(fg.tensor([1.23456])) == "tensor([1.2346])"


def test_set_printoptions_threshold_summarises_long_tensors():
    try:
        fg.set_printoptions(threshold=5, edgeitems=2)
        text = repr(fg.arange(10.0))
    finally:
        fg.set_printoptions(profile="default")
    assert text.replace(" ", "") == "tensor([0.,1.,...,8.,9.])"
    assert repr(fg.arange(10.0)).count(".") == 10


def test_set_printoptions_refuses_an_unknown_profile():
    with pytest.raises(ValueError, match="profile"):
        fg.set_printoptions(profile="long")


def test_is_inference_mode_enabled_inside_inference_mode_only():
    assert not fg.is_inference_mode_enabled()
    with fg.inference_mode():
        assert fg.is_inference_mode_enabled() and not fg.is_grad_enabled()
        with fg.inference_mode(False):
            assert not fg.is_inference_mode_enabled() and fg.is_grad_enabled()  # as torch
    with fg.no_grad():
        assert not fg.is_inference_mode_enabled()

    @fg.inference_mode()
    def inside():
        return fg.is_inference_mode_enabled()
    assert inside() and not fg.is_inference_mode_enabled()


def test_interop_thread_count_is_recorded_and_must_be_positive():
    before = fg.get_num_interop_threads()
    try:
        fg.set_num_interop_threads(2)
        assert fg.get_num_interop_threads() == 2
        with pytest.raises(RuntimeError):
            fg.set_num_interop_threads(0)
        assert fg.get_num_interop_threads() == 2
    finally:
        fg.set_num_interop_threads(before)


def test_deterministic_and_matmul_precision_switches_are_recorded():
    try:
        fg.use_deterministic_algorithms(True, warn_only=True)
        fg.set_float32_matmul_precision("high")
        assert fg.are_deterministic_algorithms_enabled()
        assert fg.is_deterministic_algorithms_warn_only_enabled()
        assert fg.get_float32_matmul_precision() == "high"
        with pytest.warns(UserWarning, match="not one of"):
            fg.set_float32_matmul_precision("fastest")
        assert fg.get_float32_matmul_precision() == "high"
    finally:
        fg.use_deterministic_algorithms(False)
        fg.set_float32_matmul_precision("highest")


# --- fluxgrad.testing ------------------------------------------------------------------------
CLOSE_CASES = {
    "close tensors": lambda L: ((t(L, [1.0, 2.0], L.float32), t(L, [1.0, 2.000001], L.float32)),
                                {}),
    "tensors differ": lambda L: ((t(L, [1.0, 2.0], L.float32), t(L, [1.0, 2.1], L.float32)), {}),
    "2-d differ": lambda L: ((t(L, [[1.0, 2.0], [3.0, 4.0]]), t(L, [[1.0, 2.0], [3.0, 5.0]])),
                             {}),
    "0-d": lambda L: ((t(L, 1.0, L.float32), t(L, 2.0, L.float32)), {}),
    "nan": lambda L: ((t(L, [np.nan]), t(L, [np.nan])), {}),
    "nan equal_nan": lambda L: ((t(L, [np.nan]), t(L, [np.nan])), dict(equal_nan=True)),
    "ints": lambda L: ((t(L, [1, 2]), t(L, [1, 3])), {}),
    "bools": lambda L: ((t(L, [True]), t(L, [False])), {}),
    "rtol and atol": lambda L: ((t(L, [1.0, 2.0]), t(L, [1.0, 2.1])), dict(rtol=0.1, atol=0)),
    "custom msg": lambda L: ((t(L, [1.0]), t(L, [2.0])), dict(msg="custom")),
    "sequence": lambda L: (([t(L, 1.0, L.float32), t(L, 2.0, L.float32)],
                            [t(L, 1.0, L.float32), t(L, 3.0, L.float32)]), {}),
    "mapping": lambda L: (({"a": t(L, 1.0, L.float32)}, {"a": t(L, 3.0, L.float32)}), {}),
    "python floats": lambda L: ((1.0, 1.1), {}),
    "python ints": lambda L: ((1, 2), {}),
    "close python floats": lambda L: ((1.0, 1.0 + 1e-9), {}),
    "lengths differ": lambda L: (([1, 2], [1, 2, 3]), {}),
    "dtype unchecked": lambda L: ((t(L, [1.0], L.float32), t(L, [1.0])), dict(check_dtype=False)),
    "infinities": lambda L: ((t(L, [1.0, np.inf]), t(L, [1.0, np.inf])), {}),
    "int and float numbers": lambda L: ((1, 1.0), {}),
    "numpy arrays": lambda L: ((np.array([1.0, 2.0]), np.array([1.0, 3.0])), {}),
    "tuple and list": lambda L: (((t(L, 1.0),), [t(L, 1.0)]), {}),
}


@pytest.mark.parametrize("name", sorted(CLOSE_CASES))
def test_assert_close_passes_and_fails_as_torch_with_its_message(name):
    outcomes = []
    for L in (fg, torch):
        args, kwargs = CLOSE_CASES[name](L)
        try:
            L.testing.assert_close(*args, **kwargs)
            outcomes.append(None)
        except AssertionError as err:
            outcomes.append(str(err))
    assert outcomes[0] == outcomes[1]


@pytest.mark.parametrize("call, error", [
    (lambda L: L.testing.assert_close(t(L, [1.0]), t(L, [1.0]), rtol=0.1), ValueError),
    (lambda L: L.testing.assert_close(t(L, [1.0]), [1.0]), TypeError),
    (lambda L: L.testing.assert_close(t(L, [1.0]), np.array([1.0])), TypeError),
    (lambda L: L.testing.assert_close(t(L, 1.0), 1.0), TypeError),
    (lambda L: L.testing.assert_close(t(L, [1.0]), t(L, [1.0], L.float32)), AssertionError),
    (lambda L: L.testing.assert_close(t(L, [1.0, 2.0]), t(L, [1.0])), AssertionError),
])
def test_assert_close_raises_torchs_exception(call, error):
    for L in (fg, torch):
        with pytest.raises(error):
            call(L)


@pytest.mark.parametrize("dtype, low, high", [("float32", None, None), ("float64", -1, 2),
                                              ("int64", None, None), ("uint8", None, None),
                                              ("int32", 3, 7), ("bool", None, None)])
def test_make_tensor_draws_in_torchs_default_ranges(dtype, low, high):
    x = fg.testing.make_tensor(50, 40, dtype=getattr(fg, dtype), device="cpu", low=low,
                               high=high)
    theirs = torch.testing.make_tensor(50, 40, dtype=getattr(torch, dtype), device="cpu",
                                       low=low, high=high)
    assert str(x.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1]
    assert tuple(x.shape) == (50, 40)
    data, ref = x.numpy().astype(float), theirs.numpy().astype(float)
    # both fill their range: the same extremes, up to sampling
    assert data.min() >= ref.min() - 0.05 * (ref.max() - ref.min() + 1)
    assert data.max() <= ref.max() + 0.05 * (ref.max() - ref.min() + 1)
    assert abs(data.mean() - ref.mean()) < 0.1 * (ref.max() - ref.min() + 1)


def test_make_tensor_options():
    x = fg.testing.make_tensor((3, 4), dtype=fg.float64, requires_grad=True, exclude_zero=True,
                               noncontiguous=True)
    assert x.requires_grad and not x.is_contiguous() and (x.detach().numpy() != 0).all()


def test_composites_vmap_like_a_loop_over_examples():
    x = t(fg, NAN)
    for fn in (lambda r: fg.quantile(r, 0.4), lambda r: fg.nansum(r * 2),
               lambda r: fg.masked_scatter(r, t(fg, [True, False, True, False]), r * 10),
               lambda r: fg.hypot(r, 2.0), lambda r: fg.special.xlog1py(r, r)):
        batched = fg.vmap(fn)(x).numpy()
        looped = np.stack([fn(x[i]).numpy() for i in range(x.shape[0])])
        np.testing.assert_array_equal(batched, looped)


@pytest.mark.parametrize("name, fn", [
    ("searchsorted", lambda r: fg.searchsorted(t(fg, SORTED), r)),
    ("bincount", lambda r: fg.bincount(r.long().abs())),
    ("histc", lambda r: fg.histc(r, 3)),
    ("nanquantile", lambda r: fg.nanquantile(r, 0.5)),
    ("masked_scatter", lambda r: fg.masked_scatter(r, r > 0, r)),
    ("index_fill", lambda r: fg.index_fill(r, 0, r.long().abs() % 2, 1.0)),
])
def test_value_dependent_functions_refuse_vmap_over_what_they_read(name, fn):
    with pytest.raises(RuntimeError, match=f"vmap: {name}"):
        fg.vmap(fn)(t(fg, A))


@pytest.mark.parametrize("name, fn", [
    ("searchsorted", lambda x: fg.searchsorted(t(fg, SORTED), x)),
    ("masked_scatter", lambda x: fg.masked_scatter(x, x > 0, x)),
    ("histc", lambda x: fg.histc(x, 3)),
    ("frexp", lambda x: fg.frexp(x)[0]),
])
def test_value_dependent_functions_refuse_to_be_frozen_by_compile(name, fn):
    with pytest.raises(NotImplementedError, match=f"{name} reads the values"):
        fg.compile(fn, fullgraph=True)(t(fg, V4))


def test_composites_compile_to_eagers_values():
    fn = lambda x: fg.quantile(x, 0.3) + fg.special.ndtr(x).sum() + fg.lgamma(x.abs() + 1).sum()
    compiled = fg.compile(fn)
    for data in (V4, POS[0]):
        np.testing.assert_allclose(compiled(t(fg, data)).numpy(), fn(t(fg, data)).numpy(),
                                   rtol=1e-12)
