"""Forward-mode state: how many dual levels are open (0: the hot path skips tangents), and
the level whose tangents no reverse pass will ever differentiate (0: none), whose JVP rules
therefore run without recording (`fluxgrad.func.hvp` opens such a level)."""
import threading


class _State(threading.local):
    level = 0
    untaped = 0


state = _State()
