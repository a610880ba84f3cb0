"""Stand-in ``digitalio`` for the MicroPython and CircuitPython lanes: inputs read the
scripted levels.

On a board ``DigitalInOut.value`` is one C call; a Python property calling into
tools/simulated/simboard/simpins.py would cost the lanes' fuel measure many times that. So
``value`` is a plain attribute: outputs hold what was written, and inputs are
refreshed from the scripted levels each time the simulated clock moves (a hook in
simclock, the harness's cost, not the firmware's). Two more attributes, so that the
CircuitPython lane's heap counts about what the board's C object takes (16 bytes).
"""

import simclock
import simpins


class Direction:
    INPUT = 0
    OUTPUT = 1


class Pull:
    UP = 1
    DOWN = 2


class DriveMode:
    PUSH_PULL = 0


_inputs = []  # the DigitalInOuts that are inputs now


def _refresh():
    for io in _inputs:
        io.value = simpins.read(io._id)


simclock.on_advance(_refresh)


class DigitalInOut:
    """``_id`` the pin; ``value`` its level (an input's, as scripted now)."""

    def __init__(self, pin):
        self._id = pin.id
        self.value = simpins.read(self._id)
        _inputs.append(self)

    def switch_to_input(self, pull=None):
        if self not in _inputs:
            _inputs.append(self)
        self.value = simpins.read(self._id)

    def switch_to_output(self, value=False, drive_mode=None):
        if self in _inputs:
            _inputs.remove(self)
        self.value = bool(value)

    def deinit(self):
        if self in _inputs:
            _inputs.remove(self)
