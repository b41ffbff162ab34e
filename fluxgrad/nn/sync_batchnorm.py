"""`SyncBatchNorm` and `SyncBatchNorm.convert_sync_batchnorm`, for scripts written for
DistributedDataParallel. Training in a process group of more than one process, the batch
statistics are those of the whole global batch: each rank's per-channel sums, sums of squares
and counts are added across the ranks by a differentiable all-reduce (every rank must call it, and
run backward), so the gradients are those of batch norm over the global batch. In one process
(no process group, or a group of one), and in eval mode, it is batch norm over any [N, C, ...]."""
from .._core.grad_mode import no_grad
from ..creation import full
from ..ops.shape import cat
from .layers import _BatchNorm

__all__ = ["SyncBatchNorm"]


class SyncBatchNorm(_BatchNorm):
    _ndims = range(2, 64)  # any [N, C, ...]

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=True,
                 track_running_stats=True, process_group=None, device=None, dtype=None, *,
                 bias=True):
        super().__init__(num_features, eps, momentum, affine, track_running_stats, bias=bias)
        self.process_group = process_group
        if dtype is not None:
            self.to(dtype)

    def forward(self, input):
        if input.ndim < 2:
            raise ValueError(f"SyncBatchNorm: expected at least 2D input (got {input.ndim}D "
                             f"input of shape {list(input.shape)})")
        if input.shape[1] != self.num_features:
            raise ValueError(f"SyncBatchNorm({self.num_features}): expected {self.num_features} "
                             f"channels on axis 1, got shape {list(input.shape)}")
        if self.training and self._world_size() > 1:
            return self._synchronised(input)
        return super().forward(input)

    def _synchronised(self, input):
        from ..distributed.functional import all_reduce
        channels = self.num_features
        axes = [0] + list(range(2, input.ndim))
        local = cat([input.sum(axes), (input * input).sum(axes),
                     full((1,), input.numel() // channels, dtype=input.dtype)])
        total = all_reduce(local, group=self.process_group)
        count = total[-1]
        mean = total[:channels] / count
        var = total[channels:2 * channels] / count - mean * mean  # biased, as normalisation uses
        shape = (1, channels) + (1,) * (input.ndim - 2)
        out = (input - mean.reshape(shape)) * (var.reshape(shape) + self.eps).rsqrt()
        if self.weight is not None:
            out = out * self.weight.reshape(shape)
        if self.bias is not None:
            out = out + self.bias.reshape(shape)
        if self.track_running_stats:
            with no_grad():
                self.num_batches_tracked.add_(1)
                momentum = (1.0 / float(self.num_batches_tracked.item()) if self.momentum is None
                            else self.momentum)
                n = float(count.item())
                self.running_mean.mul_(1 - momentum).add_(mean.detach() * momentum)
                self.running_var.mul_(1 - momentum).add_(var.detach() * (momentum * n / (n - 1)))
        return out

    def _world_size(self):
        from .. import distributed
        if self.process_group is not None:
            return self.process_group.size()
        return distributed.get_world_size() if distributed.is_initialized() else 1

    @classmethod
    def convert_sync_batchnorm(cls, module, process_group=None):
        """`module` with every BatchNorm*d inside it replaced by a SyncBatchNorm holding the same
        parameters, running statistics and mode (a BatchNorm `module` itself is returned
        replaced; any other is changed in place and returned)."""
        converted = module
        if isinstance(module, _BatchNorm) and not isinstance(module, SyncBatchNorm):
            converted = cls(module.num_features, module.eps, module.momentum, module.affine,
                            module.track_running_stats, process_group)
            if module.affine:
                converted.weight, converted.bias = module.weight, module.bias
            if module.track_running_stats:
                converted.running_mean = module.running_mean
                converted.running_var = module.running_var
                converted.num_batches_tracked = module.num_batches_tracked
            converted.training = module.training
        for name, child in module.named_children():
            converted.add_module(name, cls.convert_sync_batchnorm(child, process_group))
        return converted


