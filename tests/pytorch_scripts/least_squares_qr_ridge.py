"""Least squares the ways a numerical-linear-algebra notebook compares them: a polynomial fit with
torch.vander and torch.linalg.lstsq (solution, residuals, rank, singular values with gelsd),
the same by QR and solve_triangular, by the normal equations with cholesky and cholesky_solve,
ridge regression by pinv and by solve with lambda I, batched lstsq, the condition number growing
with the degree, and the gradient of the fitted coefficients w.r.t. the targets."""
import numpy as np
import fluxgrad as torch

rng = np.random.default_rng(17)
x = torch.linspace(-1, 1, 30, dtype=torch.float64)
y_true = 0.5 - 1.2 * x + 0.8 * x ** 3
y = y_true + torch.from_numpy(rng.normal(0, 0.05, 30))

A = torch.vander(x, N=4, increasing=True)
print(A.shape, A[:2], torch.vander(torch.tensor([1, 2, 3]), N=3))
sol = torch.linalg.lstsq(A, y.unsqueeze(1))
print(sol.solution.squeeze(), sol.residuals, sol.rank, sol.singular_values)
sol_d = torch.linalg.lstsq(A, y.unsqueeze(1), driver="gelsd")
print(sol_d.solution.squeeze(), sol_d.rank, sol_d.singular_values)

Q, Rm = torch.linalg.qr(A)
coef_qr = torch.linalg.solve_triangular(Rm, (Q.T @ y).unsqueeze(1), upper=True).squeeze()
print(Q.shape, Rm.shape, torch.allclose(Q.T @ Q, torch.eye(4, dtype=torch.float64)), coef_qr)
L = torch.linalg.cholesky(A.T @ A)
coef_ne = torch.cholesky_solve((A.T @ y).unsqueeze(1), L).squeeze()
print(coef_ne, torch.allclose(coef_ne, coef_qr, atol=1e-8))
Qc, Rc = torch.linalg.qr(A, mode="complete")
print(Qc.shape, Rc.shape, torch.linalg.qr(A, mode="r")[0].numel())

lam = 0.1
ridge_solve = torch.linalg.solve(A.T @ A + lam * torch.eye(4, dtype=torch.float64), A.T @ y)
augmented = torch.cat([A, (lam ** 0.5) * torch.eye(4, dtype=torch.float64)])
ridge_pinv = torch.linalg.pinv(augmented) @ torch.cat([y, torch.zeros(4, dtype=torch.float64)])
print(ridge_solve, torch.allclose(ridge_solve, ridge_pinv), ridge_solve.norm() < coef_qr.norm())

for degree in (2, 5, 8, 11):
    V = torch.vander(x, N=degree + 1, increasing=True)
    fit = torch.linalg.lstsq(V, y.unsqueeze(1)).solution
    rss = (V @ fit - y.unsqueeze(1)).pow(2).sum()
    print(degree, "%.3e" % torch.linalg.cond(V).item(), round(rss.item(), 5), torch.linalg.matrix_rank(V).item())

batch_A = torch.from_numpy(rng.normal(size=(3, 6, 2)))
batch_b = torch.from_numpy(rng.normal(size=(3, 6, 1)))
batch_sol = torch.linalg.lstsq(batch_A, batch_b).solution
print(batch_sol.shape, torch.allclose(batch_sol, torch.linalg.pinv(batch_A) @ batch_b))

targets = y.clone().requires_grad_()
coef = torch.linalg.lstsq(A, targets.unsqueeze(1)).solution.squeeze()
coef[3].backward()
hat_row = torch.linalg.pinv(A)[3]
print(torch.allclose(targets.grad, hat_row), targets.grad[:4])
