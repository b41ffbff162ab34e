"""fluxgrad.linalg.LinAlgError: raised where torch raises torch.linalg.LinAlgError, a
RuntimeError (never NumPy's ValueError), with PyTorch's message, batch element included; the
`_ex` variants return info instead unless check_errors=True."""
import numpy as np
import pytest
import torch

import fluxgrad as fg

SINGULAR = [[1.0, 2.0], [2.0, 4.0]]
INDEFINITE = [[1.0, 2.0], [2.0, 1.0]]
NAN = [[float("nan")] * 2] * 2
EYE = np.eye(2).tolist()
ONES = [1.0, 1.0]

# (name, call(lib, tensor)) where tensor(data) builds a float64 tensor of that library
CASES = [
    ("inv", lambda L, t: L.linalg.inv(t(SINGULAR))),
    ("inv_batch", lambda L, t: L.linalg.inv(t([EYE, SINGULAR]))),
    ("inv_batch_of_one", lambda L, t: L.linalg.inv(t([SINGULAR]))),
    ("inv_zero_3x3", lambda L, t: L.linalg.inv(t(np.zeros((3, 3)).tolist()))),
    ("inv_nested_batch", lambda L, t: L.linalg.inv(t([[EYE, EYE], [EYE, SINGULAR]]))),
    ("inverse", lambda L, t: L.inverse(t(SINGULAR))),
    ("inv_float32", lambda L, t: L.linalg.inv(t(SINGULAR).float())),
    ("solve", lambda L, t: L.linalg.solve(t(SINGULAR), t(ONES))),
    ("solve_batch", lambda L, t: L.linalg.solve(t([EYE, SINGULAR]), t([EYE, EYE]))),
    ("tensorsolve", lambda L, t: L.linalg.tensorsolve(t(SINGULAR), t(ONES))),
    ("cholesky", lambda L, t: L.linalg.cholesky(t(INDEFINITE))),
    ("cholesky_upper", lambda L, t: L.linalg.cholesky(t(INDEFINITE), upper=True)),
    ("cholesky_batch", lambda L, t: L.linalg.cholesky(t([EYE, INDEFINITE]))),
    ("cholesky_nan", lambda L, t: L.linalg.cholesky(t(NAN))),
    ("matrix_power_negative", lambda L, t: L.linalg.matrix_power(t(SINGULAR), -1)),
    ("matrix_power_negative_batch", lambda L, t: L.linalg.matrix_power(t([EYE, SINGULAR]), -2)),
    ("svd_nan", lambda L, t: L.linalg.svd(t(NAN))),
    ("svd_nan_batch", lambda L, t: L.linalg.svd(t([EYE, NAN]))),
    ("svdvals_nan", lambda L, t: L.linalg.svdvals(t(NAN))),
    ("pinv_nan", lambda L, t: L.linalg.pinv(t(NAN))),
    ("matrix_rank_nan", lambda L, t: L.linalg.matrix_rank(t(NAN))),
    ("cond_nan", lambda L, t: L.linalg.cond(t(NAN))),
    ("matrix_norm_2_nan", lambda L, t: L.linalg.matrix_norm(t(NAN), 2)),
    ("matrix_norm_nuc_nan", lambda L, t: L.linalg.matrix_norm(t(NAN), "nuc")),
    ("inv_ex_check", lambda L, t: L.linalg.inv_ex(t([EYE, SINGULAR]), check_errors=True)),
    ("cholesky_ex_check",
     lambda L, t: L.linalg.cholesky_ex(t([EYE, INDEFINITE]), check_errors=True)),
    ("solve_ex_check",
     lambda L, t: L.linalg.solve_ex(t([EYE, SINGULAR]), t([EYE, EYE]), check_errors=True)),
    ("lu_factor", lambda L, t: L.linalg.lu_factor(t(SINGULAR))),
    ("lu_factor_batch", lambda L, t: L.linalg.lu_factor(t([EYE, SINGULAR]))),
    ("lu_factor_ex_check",
     lambda L, t: L.linalg.lu_factor_ex(t([EYE, SINGULAR]), check_errors=True)),
]


def _torch_tensor(data):
    return torch.tensor(data, dtype=torch.float64)


def _fluxgrad_tensor(data):
    return fg.tensor(data, dtype=fg.float64)


def _raised(call, lib, tensor):
    try:
        call(lib, tensor)
    except Exception as err:  # noqa: BLE001 - the test compares whatever was raised
        return err
    return None


@pytest.mark.parametrize("name, call", CASES, ids=[c[0] for c in CASES])
def test_linalg_error_type_and_message_match_torch(name, call):
    expected = _raised(call, torch, _torch_tensor)
    got = _raised(call, fg, _fluxgrad_tensor)
    assert expected is not None and got is not None, (expected, got)
    assert not isinstance(got, np.linalg.LinAlgError)
    assert isinstance(got, RuntimeError)
    assert isinstance(got, fg.linalg.LinAlgError) == isinstance(expected, torch.linalg.LinAlgError)
    assert str(got).startswith(str(expected)), (str(got), str(expected))


def test_linalg_error_is_a_runtime_error_not_a_value_error():
    assert issubclass(fg.linalg.LinAlgError, RuntimeError)
    assert not issubclass(fg.linalg.LinAlgError, ValueError)


@pytest.mark.parametrize("fn, data, expected_info", [
    ("inv_ex", [EYE, SINGULAR], [0, 2]),
    ("cholesky_ex", [INDEFINITE, EYE], [2, 0]),
    ("cholesky_ex", NAN, 1),
])
def test_ex_variants_return_info_as_torch(fn, data, expected_info):
    got = getattr(fg.linalg, fn)(_fluxgrad_tensor(data)).info
    want = getattr(torch.linalg, fn)(_torch_tensor(data)).info
    assert got.numpy().tolist() == want.numpy().tolist() == expected_info


@pytest.mark.parametrize("p", ["fro", 1, -1, float("inf"), float("-inf")])
def test_cond_of_a_singular_matrix_is_inf_as_torch(p):
    want = torch.linalg.cond(_torch_tensor(SINGULAR), p)
    got = fg.linalg.cond(_fluxgrad_tensor(SINGULAR), p)
    assert float(want) == float(got) == float("inf")


def test_cond_nuc_of_the_zero_matrix_is_nan_as_torch():
    zero = np.zeros((2, 2)).tolist()
    assert np.isnan(float(torch.linalg.cond(_torch_tensor(zero), "nuc")))
    assert np.isnan(float(fg.linalg.cond(_fluxgrad_tensor(zero), "nuc")))


def test_error_names_the_batch_element_under_vmap():
    batch = _fluxgrad_tensor([EYE, SINGULAR, EYE])
    with pytest.raises(fg.linalg.LinAlgError, match=r"\(Batch element 1\)"):
        fg.func.vmap(fg.linalg.inv)(batch)


def test_static_program_with_cholesky_builds_and_raises_when_run_on_indefinite():
    fn = fg.compile(lambda a: fg.linalg.cholesky(a))
    assert np.allclose(fn(_fluxgrad_tensor(EYE)).numpy(), np.eye(2))
    with pytest.raises(fg.linalg.LinAlgError, match="leading minor of order 2"):
        fn(_fluxgrad_tensor(INDEFINITE))
