"""Test helper: a static program built by a function, outside any test's default program."""
import fluxgrad as fg
from fluxgrad import static


def build_program(fn):
    """`fn()` staged in static mode into fresh main and startup programs: (main, startup,
    what fn returned)."""
    main, startup = static.Program(), static.Program()
    fg.enable_static()
    try:
        with static.program_guard(main, startup):
            out = fn()
    finally:
        fg.disable_static()
    return main, startup, out
