"""QI Klaxon.

Start-up runs in steps, each in RAM alone and gone when done:
hardware/start.py (the settings; the build, its buttons), hardware/outputs.py
(sound, lights, sleep), qiklaxon/restore.py (the saved game). Each
``gc.collect()`` frees the step before, so that the next fills its holes.
Then the loop (hardware/device.py) runs for ever.
"""

import gc

import hardware.start

p = hardware.start.read()
gc.collect()
p = hardware.start.start(p)
gc.collect()
import hardware.outputs  # noqa: E402

p = hardware.outputs.start(p)
gc.collect()
import qiklaxon.core  # noqa: E402,F401  (before restore: it stays, restore goes)
import qiklaxon.restore  # noqa: E402

p = qiklaxon.restore.restore(p)
gc.collect()
import hardware.device  # noqa: E402

hardware.device.Device(p).run()
