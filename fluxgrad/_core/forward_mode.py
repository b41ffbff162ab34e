"""Forward-mode state: how many dual levels are open (0: the hot path skips tangents)."""
import threading


class _State(threading.local):
    level = 0


state = _State()
