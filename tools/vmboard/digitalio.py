"""Stand-in ``digitalio`` for the MicroPython VM lane: inputs read the scripted levels."""

import simpins


class Direction:
    INPUT = 0
    OUTPUT = 1


class Pull:
    UP = 1
    DOWN = 2


class DriveMode:
    PUSH_PULL = 0


class DigitalInOut:
    def __init__(self, pin):
        self._id = pin.id
        self._output = False
        self._level = False
        self.pull = None

    def switch_to_input(self, pull=None):
        self._output = False
        self.pull = pull

    def switch_to_output(self, value=False, drive_mode=None):
        self._output = True
        self._level = bool(value)

    @property
    def value(self):
        if self._output:
            return self._level
        return simpins.read(self._id)

    @value.setter
    def value(self, level):
        self._level = bool(level)

    def deinit(self):
        pass
