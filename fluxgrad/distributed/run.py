"""The launcher: `python -m fluxgrad.distributed.run -n 4 train.py [args...]`.

A thin wrapper around the MPI runtime's `mpiexec`: it starts N copies of the script with this
Python, sets one BLAS/OpenMP thread per process unless the environment already says otherwise
(as torchrun does), and passes `--hostfile FILE` / `--hosts a,b` on for several machines.
`-m module` runs a module instead of a script. The exit status is mpiexec's.
"""
import argparse
import os
import shutil
import sys

THREAD_VARIABLES = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")


def find_mpiexec():
    """The `mpiexec` installed next to this Python (the `mpich` wheel puts it there), else the
    one on PATH."""
    beside = os.path.join(os.path.dirname(sys.executable), "mpiexec")
    if os.path.isfile(beside) and os.access(beside, os.X_OK):
        return beside
    found = shutil.which("mpiexec")
    if found is None:
        raise SystemExit("fluxgrad.distributed.run: no mpiexec found; install the MPI runtime "
                         "with pip install -e '.[distributed]'")
    return found


def command(argv):
    """The mpiexec command line for the launcher's arguments."""
    parser = argparse.ArgumentParser(prog="python -m fluxgrad.distributed.run",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("-n", "--nproc", "--nproc-per-node", dest="nproc", type=int, default=1,
                        help="number of processes to start (default 1)")
    parser.add_argument("--hostfile", help="MPI host file, for several machines")
    parser.add_argument("--hosts", help="comma-separated host names, for several machines")
    parser.add_argument("-m", dest="module", action="store_true",
                        help="run the target as a module (python -m target)")
    parser.add_argument("target", help="the training script (or module with -m)")
    parser.add_argument("args", nargs=argparse.REMAINDER, help="arguments for the script")
    args = parser.parse_args(argv)
    if args.nproc < 1:
        parser.error(f"-n must be at least 1, got {args.nproc}")
    cmd = [find_mpiexec(), "-n", str(args.nproc)]
    if args.hostfile:
        cmd += ["-hostfile", args.hostfile]
    if args.hosts:
        cmd += ["-hosts", args.hosts]
    cmd += [sys.executable] + (["-m"] if args.module else []) + [args.target] + args.args
    return cmd


def main(argv=None):
    cmd = command(sys.argv[1:] if argv is None else argv)
    for var in THREAD_VARIABLES:
        os.environ.setdefault(var, "1")
    os.execv(cmd[0], cmd)


if __name__ == "__main__":
    main()
