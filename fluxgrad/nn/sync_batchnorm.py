"""`SyncBatchNorm` and `SyncBatchNorm.convert_sync_batchnorm`, for scripts written for
DistributedDataParallel. In one process (no process group, or a group of one) it is batch
norm over any [N, C, ...] input, as PyTorch's is there. Statistics synchronised across several
processes are not built: training in a group of more than one process raises."""
from .layers import _BatchNorm

__all__ = ["SyncBatchNorm"]


class SyncBatchNorm(_BatchNorm):
    _ndims = None

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
        if self.training and self._world_size() > 1:
            raise NotImplementedError(
                "SyncBatchNorm: statistics synchronised across processes are not implemented; "
                "train with one process, or use BatchNorm (per-process statistics)")
        self._ndims = (input.ndim,)
        return super().forward(input)

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


