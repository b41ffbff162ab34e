"""Survival analysis losses as DeepSurv-style code writes them: the Cox partial log-likelihood with
risk sets from a descending sort of times (torch.sort, index_select), torch.logcumsumexp over the
sorted risk scores, events masking the sum (Breslow ties), the same via an explicit risk-set matrix
and logsumexp with masked_fill, the concordance index by pairwise comparisons, a linear Cox model
fitted by Adam, and Weibull AFT log-likelihood with censoring (log_prob and the log survival)."""
import numpy as np
import fluxgrad as torch

rng = np.random.default_rng(1972)
n = 30
X = torch.from_numpy(rng.normal(size=(n, 3)).astype(np.float32))
beta_true = torch.tensor([0.8, -0.5, 0.0])
hazard = torch.exp(X @ beta_true)
times = torch.from_numpy(rng.exponential(1.0, n).astype(np.float32)) / hazard
censor = torch.from_numpy(rng.exponential(2.0, n).astype(np.float32))
events = (times <= censor).float()
observed = torch.minimum(times, censor)
print(events.sum().item(), observed[:5])


def cox_ph_loss(risk, durations, events):
    order = torch.argsort(durations, descending=True)
    risk, events = risk[order], events[order]
    log_cum = torch.logcumsumexp(risk, dim=0)
    return -((risk - log_cum) * events).sum() / events.sum()


def cox_ph_loss_matrix(risk, durations, events):
    at_risk = durations.unsqueeze(0) >= durations.unsqueeze(1)
    log_denominator = torch.logsumexp(risk.unsqueeze(0).masked_fill(~at_risk, float("-inf")), dim=1)
    return -((risk - log_denominator) * events).sum() / events.sum()


risk0 = X @ torch.tensor([0.5, -0.2, 0.1])
print(cox_ph_loss(risk0, observed, events), cox_ph_loss_matrix(risk0, observed, events))
sorted_t, idx = torch.sort(observed, descending=True)
print(sorted_t[:3], idx[:3], torch.index_select(events, 0, idx[:5]))


def concordance_index(durations, risk, events):
    t_i, t_j = durations.unsqueeze(1), durations.unsqueeze(0)
    comparable = (t_i < t_j) & (events.unsqueeze(1) == 1)
    concordant = (risk.unsqueeze(1) > risk.unsqueeze(0)) & comparable
    ties = (risk.unsqueeze(1) == risk.unsqueeze(0)) & comparable
    return (concordant.sum() + 0.5 * ties.sum()) / comparable.sum()


beta = torch.zeros(3, requires_grad=True)
opt = torch.optim.Adam([beta], lr=0.1)
for step in range(40):
    opt.zero_grad()
    loss = cox_ph_loss(X @ beta, observed, events)
    loss.backward()
    opt.step()
    if step % 10 == 0:
        print(step, round(loss.item(), 5), beta.grad)
print(beta.detach(), round(concordance_index(observed, (X @ beta).detach(), events).item(), 5), concordance_index(observed, -observed, events))

log_k = torch.zeros(1, requires_grad=True)
log_lam = torch.zeros(1, requires_grad=True)
opt = torch.optim.Adam([log_k, log_lam], lr=0.05)
for step in range(30):
    opt.zero_grad()
    weibull = torch.distributions.Weibull(log_lam.exp(), log_k.exp())
    log_surv = -(observed / log_lam.exp()) ** log_k.exp()
    ll = events * weibull.log_prob(observed) + (1 - events) * log_surv
    loss = -ll.mean()
    loss.backward()
    opt.step()
print(round(loss.item(), 5), log_k.exp().item(), log_lam.exp().item(), weibull.mean)
