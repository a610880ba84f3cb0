"""QI Klaxon.

Start-up runs in steps (hardware/steps.py: the version line, the settings, the
build, the outputs, the saved game), each gone when done, and the steps' module
too; then the loop (hardware/device.py) runs for ever. This file stays in RAM
while the loop runs, so it is only these lines.
"""

import gc

# The libraries the loop keeps, first (issue 24): the first blocks allocated after this
# file's compile land where the compile's garbage was, and a word that a frame above
# this one still holds keeps whatever lands at its address for good. On the libraries
# that costs nothing; on the first step's garbage (hardware/settings.py's table) it
# kept 2.7 KB for the whole game. (Comments, not a docstring: they cost no heap.)
import adafruit_ticks  # noqa: E402,F401
import adafruit_debouncer  # noqa: E402,F401
import hardware.steps  # noqa: E402

p = hardware.steps.parts()
gc.collect()
import hardware.device  # noqa: E402

hardware.device.Device(p).run()
