"""User-written schedulers: subclasses of lr_scheduler._LRScheduler (PyTorch's older name of
the base) overriding get_lr give PyTorch's learning rates."""
import pytest

import fluxgrad

torch = pytest.importorskip("torch")


def warmup_class(module):
    class Warmup(module.optim.lr_scheduler._LRScheduler):
        def __init__(self, optimizer, warmup, last_epoch=-1):
            self.warmup = warmup
            super().__init__(optimizer, last_epoch)

        def get_lr(self):
            return [base * min(1.0, (self.last_epoch + 1) / self.warmup) for base in self.base_lrs]
    return Warmup


def test_subclass_of_old_base_name_matches_pytorch():
    seen = []
    for m in (fluxgrad, torch):
        opt = m.optim.SGD([m.nn.Parameter(m.zeros(1))], lr=0.3)
        scheduler = warmup_class(m)(opt, warmup=4)
        lrs = [opt.param_groups[0]["lr"]]
        for _ in range(6):
            opt.step()
            scheduler.step()
            lrs.append(opt.param_groups[0]["lr"])
        seen.append(lrs)
    assert seen[0] == pytest.approx(seen[1], rel=1e-12)
