"""QI Klaxon.

The console's first line is the firmware's version (version.txt, which the
deploy writes and the bundles hold). Start-up then runs in steps, each in RAM
alone and gone when done: hardware/settings.py, hardware/start.py (the build,
its buttons), hardware/outputs.py (sound, lights, sleep), qiklaxon/restore.py
(the saved game). Each step runs in a function of its own, so that no stale reference
to its module stays behind in this module's frame (the collector scans it
conservatively), and ``gc.collect()`` frees it before the next fills its
holes. Then the loop (hardware/device.py) runs for ever.
"""

import gc
import sys


def settings():
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


def start(p):
    import hardware.start

    return hardware.start.start(p)


def outputs(p):
    import hardware.outputs

    return hardware.outputs.start(p)


def restore(p):
    import qiklaxon.core  # noqa: F401  (before restore: it stays, restore goes)
    import qiklaxon.restore

    return qiklaxon.restore.restore(p)


# The libraries the loop keeps, first (issue 24): the first blocks allocated after this
# file's compile land where the compile's garbage was, and a word that a frame above
# this one still holds keeps whatever lands at its address for good. On the libraries
# that costs nothing; on the first step's garbage (hardware/settings.py's table) it
# kept 2.7 KB for the whole game. (Comments, not a docstring: they cost no heap.)
import adafruit_ticks  # noqa: E402,F401
import adafruit_debouncer  # noqa: E402,F401

p = settings()
gc.collect()
p = start(p)
gc.collect()
p = outputs(p)
gc.collect()
p = restore(p)
gc.collect()
import hardware.device  # noqa: E402

hardware.device.Device(p).run()
