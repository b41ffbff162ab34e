"""How many vmap and forward-mode levels are open, in all threads together.

The eager hot path (`apply`) reads `state.count` alone: while it is 0, no thread has a
transform open and the thread-local states (`batching.state.sizes`,
`forward_mode.state.level`) need not be read; while `state.batching` (the vmap levels among
them) is 0, `batching.state.sizes` need not be, nor `forward_mode.state.untaped` while
`state.untaped` (the untaped forward levels that `fluxgrad.func.hvp` opens) is, nor while it
equals `state.count`: then every open level is an untaped one, so a thread at level 1 is at
its untaped level (the counts are read without the lock: `opened()` counts a level in
`count` first, `closed()` uncounts it there last). `opened()` and `closed()` are called
wherever such a level opens and closes.
"""
import threading


class _State:
    __slots__ = ("count", "batching", "untaped")

    def __init__(self):
        self.count = 0
        self.batching = 0
        self.untaped = 0


state = _State()
_lock = threading.Lock()  # `count += 1` is a read and a write: two threads must not interleave


def opened(batching=False, untaped=False):
    with _lock:
        state.count += 1
        state.batching += batching
        state.untaped += untaped


def closed(batching=False, untaped=False):
    with _lock:  # (untaped first: `untaped == count` must never hold while another level is open)
        state.untaped -= untaped
        state.batching -= batching
        state.count -= 1
