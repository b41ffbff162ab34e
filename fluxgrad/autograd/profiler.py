"""`torch.autograd.profiler`'s older spelling of the profiler: `profile(enabled=True,
record_shapes=False, ...)` and `record_function`, over `fluxgrad.profiler`."""
from ..profiler import EventList, record_function
from ..profiler import profile as _profile

__all__ = ["profile", "record_function", "EventList"]


class profile(_profile):
    """`with profile() as prof: ...; print(prof.table())` (PyTorch's arguments accepted;
    device and memory options record nothing more)."""

    def __init__(self, enabled=True, *, use_cuda=False, use_device=None, record_shapes=False,
                 with_flops=False, profile_memory=False, with_stack=False, with_modules=False,
                 use_kineto=False, use_cpu=True, experimental_config=None, acc_events=False,
                 custom_trace_id_callback=None):
        super().__init__(record_shapes=record_shapes)
        self.enabled = enabled

    def __enter__(self):
        if not self.enabled:
            return None  # (as PyTorch's)
        self.start()
        return self

    def table(self, sort_by=None, row_limit=100, **kwargs):
        return self.key_averages().table(sort_by=sort_by, row_limit=row_limit, **kwargs)

    @property
    def self_cpu_time_total(self):
        return self.events().self_cpu_time_total

    def __str__(self):
        return self.table()
