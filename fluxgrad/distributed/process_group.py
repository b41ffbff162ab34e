"""The default process group: every process of the MPI job (`MPI.COMM_WORLD`).

`init_process_group()` (PaddlePaddle: `init_parallel_env()`) makes it; ranks and the world
size come from the MPI launcher (`python -m fluxgrad.distributed.run -n 4 script.py`, or
`mpiexec -n 4 python script.py`). A script started without a launcher is a world of one.

While the group exists, an exception that escapes a rank's script prints its traceback and a
line naming the rank, then calls `MPI_Abort`: the launcher stops every other rank, so a job
whose worker failed exits with an error instead of hanging in a collective.
"""
import sys
import time

__all__ = ["init_process_group", "init_parallel_env", "is_initialized", "is_available",
           "get_rank", "get_world_size", "get_backend", "destroy_process_group", "ProcessGroup"]


class ProcessGroup:
    """A set of ranks that run collectives together (here always the whole MPI job)."""

    def __init__(self, comm):
        self.comm = comm

    def rank(self):
        return self.comm.Get_rank()

    def size(self):
        return self.comm.Get_size()

    def __repr__(self):
        return f"ProcessGroup(backend='mpi', rank={self.rank()}, world_size={self.size()})"


_state = {"group": None, "excepthook": None}


def mpi():
    """The `mpi4py.MPI` module, or an ImportError saying how to install it."""
    try:
        from mpi4py import MPI
    except ImportError as e:
        raise ImportError("fluxgrad.distributed runs on MPI through mpi4py, which is not "
                          "installed: pip install -e '.[distributed]' (it brings mpi4py and an "
                          f"MPI runtime, no compiler needed). ({e})") from None
    return MPI


def is_available():
    """Whether mpi4py (and so an MPI runtime) can be imported."""
    try:
        mpi()
    except ImportError:
        return False
    return True


def init_process_group(backend="mpi", init_method=None, timeout=None, world_size=-1, rank=-1,
                       **kwargs):
    """Join the default process group. `world_size` / `rank`, when given, must match what the
    MPI launcher assigned; `init_method` and `timeout` are accepted for torch's signature."""
    if backend not in (None, "mpi"):
        raise ValueError(f"init_process_group: backend {backend!r} is not available; "
                         "fluxgrad.distributed runs on MPI: pass backend='mpi' or leave it out")
    if _state["group"] is not None:
        raise RuntimeError("init_process_group: the default process group is already "
                           "initialized; call destroy_process_group() first to make a new one")
    comm = mpi().COMM_WORLD
    for name, asked, actual in (("world_size", world_size, comm.Get_size()),
                                ("rank", rank, comm.Get_rank())):
        if asked not in (-1, None) and asked != actual:
            raise ValueError(f"init_process_group: {name}={asked} was asked but the MPI launcher "
                             f"started this process with {name} {actual}; leave {name} out "
                             "(the launcher decides it: -n N)")
    _state["group"] = ProcessGroup(comm)
    _state["excepthook"] = sys.excepthook
    sys.excepthook = _abort_job
    return _state["group"]


def init_parallel_env():
    """PaddlePaddle's spelling of `init_process_group()`; returns the group."""
    if _state["group"] is not None:
        return _state["group"]
    return init_process_group()


def is_initialized():
    return _state["group"] is not None


def default_group(name="fluxgrad.distributed"):
    """The default group, or a RuntimeError naming the call that needed it."""
    g = _state["group"]
    if g is None:
        raise RuntimeError(f"{name}: the default process group has not been initialized; call "
                           "fluxgrad.distributed.init_process_group() first (and start the "
                           "script with python -m fluxgrad.distributed.run -n N)")
    return g


def get_rank(group=None):
    """This process's rank, 0 .. world_size - 1."""
    return (group or default_group("get_rank")).rank()


def get_world_size(group=None):
    """How many processes the group has."""
    return (group or default_group("get_world_size")).size()


def get_backend(group=None):
    default_group("get_backend")
    return "mpi"


def destroy_process_group(group=None):
    """Leave the default group (MPI itself is finalized when the interpreter exits)."""
    default_group("destroy_process_group")
    sys.excepthook = _state["excepthook"]
    _state["group"] = None
    _state["excepthook"] = None


def _abort_job(exc_type, exc, tb):
    hook = _state["excepthook"] or sys.__excepthook__
    hook(exc_type, exc, tb)
    g = _state["group"]
    if g is None or g.size() == 1:
        return
    sys.stderr.write(f"fluxgrad.distributed: rank {g.rank()} of {g.size()} failed with "
                     f"{exc_type.__name__}; aborting all {g.size()} ranks\n")
    sys.stderr.flush()
    time.sleep(0.5)  # the launcher forwards output asynchronously; the abort would cut it off
    g.comm.Abort(1)
