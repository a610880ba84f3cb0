"""Start-up, in steps (code.py calls ``parts()`` once): the firmware's version line
(version.txt, from the deploy); hardware/settings.py, start.py (the build, its
buttons), outputs.py (sound, lights, sleep), qiklaxon/restore.py (the saved game),
each in RAM alone. Each runs in a function of its own, so no stale reference to its
module stays in a frame (the collector scans the stack conservatively), and
``gc.collect()`` frees it before the next. Then this module goes too: code.py stays
in RAM for the whole game, so it holds only what must be there (the steps in it
cost 0.5 KB of the Express's heap).
"""

import gc
import sys


def _settings():
    try:  # the first line: which firmware this is (version.txt, as the deploy wrote it)
        print(open("version.txt").readline(), end="")
    except OSError:  # (copied by hand, without it)
        pass
    gc.collect()  # the file now: left as garbage under the import, it cost up to 3.6 KB
    import hardware.settings

    p = hardware.settings.read()
    sys.modules.pop("hardware.settings")
    del sys.modules["hardware"].settings
    return p


def _start(p):
    import hardware.start

    return hardware.start.start(p)


def _outputs(p):
    import hardware.outputs

    return hardware.outputs.start(p)


def _restore(p):
    import qiklaxon.core  # noqa: F401  (before restore: it stays, restore goes)
    import qiklaxon.restore

    return qiklaxon.restore.restore(p)


def parts():
    """The parts for hardware/device.py's ``Device``, this module gone."""
    p = _settings()
    gc.collect()
    p = _start(p)
    gc.collect()
    p = _outputs(p)
    gc.collect()
    p = _restore(p)
    sys.modules.pop("hardware.steps", None)
    if hasattr(sys.modules["hardware"], "steps"):
        delattr(sys.modules["hardware"], "steps")
    # and its names: a stale word on the stack that still points at this module's dict
    # (the collector scans the stack conservatively) then keeps an empty table, not the
    # steps' bytecode (0.6 KB of start-up's peak in some call structures)
    globals().clear()
    return p
