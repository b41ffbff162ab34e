"""A hidden Markov model the way a speech or bio-sequence course codes it: transition and
emission matrices from log_softmax of logits, the forward algorithm in log space with
torch.logsumexp (and its scaled-probability twin), backward and posteriors, Viterbi decoding with
max/argmax back-pointers, the stationary distribution from matrix_power and by least squares on
(A^T - I) pi = 0 with sum(pi) = 1, and maximum-likelihood training of the logits by gradient ascent."""
import numpy as np
import fluxgrad as torch

rng = np.random.default_rng(6)
K, V, T = 3, 4, 12
trans_logits = torch.from_numpy(rng.normal(size=(K, K)).astype(np.float32)).requires_grad_()
emit_logits = torch.from_numpy(rng.normal(size=(K, V)).astype(np.float32)).requires_grad_()
init_logits = torch.zeros(K, requires_grad=True)
obs = torch.from_numpy(rng.integers(0, V, T))


def forward_log(obs):
    log_A = torch.log_softmax(trans_logits, dim=1)
    log_B = torch.log_softmax(emit_logits, dim=1)
    log_alpha = torch.log_softmax(init_logits, 0) + log_B[:, obs[0]]
    alphas = [log_alpha]
    for t in range(1, len(obs)):
        log_alpha = torch.logsumexp(log_alpha.unsqueeze(1) + log_A, dim=0) + log_B[:, obs[t]]
        alphas.append(log_alpha)
    return torch.logsumexp(log_alpha, 0), torch.stack(alphas)


def forward_scaled(obs):
    A = torch.softmax(trans_logits, 1)
    B = torch.softmax(emit_logits, 1)
    alpha = torch.softmax(init_logits, 0) * B[:, obs[0]]
    log_like = torch.zeros(())
    for t in range(1, len(obs) + 1):
        c = alpha.sum()
        log_like = log_like + torch.log(c)
        alpha = alpha / c
        if t < len(obs):
            alpha = (alpha @ A) * B[:, obs[t]]
    return log_like


ll, log_alphas = forward_log(obs)
print(round(ll.item(), 5), round(forward_scaled(obs).item(), 5), log_alphas.shape)

with torch.no_grad():
    log_A = torch.log_softmax(trans_logits, 1)
    log_B = torch.log_softmax(emit_logits, 1)
    log_beta = torch.zeros(K)
    betas = [log_beta]
    for t in range(T - 1, 0, -1):
        log_beta = torch.logsumexp(log_A + (log_B[:, obs[t]] + log_beta).unsqueeze(0), dim=1)
        betas.append(log_beta)
    log_betas = torch.stack(betas[::-1])
    posterior = torch.softmax(log_alphas + log_betas, dim=1)
print(posterior[:3], posterior.sum(1)[:3])


def viterbi(obs):
    log_A = torch.log_softmax(trans_logits, 1).detach()
    log_B = torch.log_softmax(emit_logits, 1).detach()
    delta = torch.log_softmax(init_logits, 0).detach() + log_B[:, obs[0]]
    pointers = []
    for t in range(1, len(obs)):
        scores = delta.unsqueeze(1) + log_A
        best, idx = scores.max(dim=0)
        pointers.append(idx)
        delta = best + log_B[:, obs[t]]
    path = [delta.argmax().item()]
    for idx in reversed(pointers):
        path.append(idx[path[-1]].item())
    return path[::-1], delta.max()


path, best_score = viterbi(obs)
print(path, round(best_score.item(), 5), posterior.argmax(1).tolist())

A = torch.softmax(trans_logits, 1).detach().double()
print(torch.linalg.matrix_power(A, 50)[0])
system = torch.cat([A.T - torch.eye(K, dtype=torch.float64), torch.ones(1, K, dtype=torch.float64)])
rhs = torch.cat([torch.zeros(K, dtype=torch.float64), torch.ones(1, dtype=torch.float64)])
pi = torch.linalg.lstsq(system, rhs.unsqueeze(1)).solution.squeeze(1)
print(pi, torch.allclose(pi @ A, pi))

opt = torch.optim.Adam([trans_logits, emit_logits, init_logits], lr=0.1)
for step in range(5):
    opt.zero_grad()
    nll = -forward_log(obs)[0]
    nll.backward()
    opt.step()
    print(step, round(nll.item(), 5), emit_logits.grad.abs().sum().item())
