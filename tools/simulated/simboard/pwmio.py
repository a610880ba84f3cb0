"""Stand-in for ``pwmio`` on the simulated board (host-only): the Pico's piezo. Its
checks are CircuitPython's (shared-bindings/pwmio/PWMOut.c), so that what the real port
refuses fails here too: a pin that is not one, a duty cycle outside 0..65535 or not an
int, a frequency of 0 or not an int, and any change of frequency on a PWMOut made
without ``variable_frequency=True``. While ``_audioout.record`` is set it keeps what the
pin is driven with (its frequency and duty cycle at each change), which ``waveform()``
renders as the pin's level."""

import _audioout


def _int(value, name, low, high):
    if not isinstance(value, int) or isinstance(value, bool):
        raise TypeError("can't convert %s to int" % type(value).__name__)
    if not low <= value <= high:
        raise ValueError("Invalid %s" % name)
    return value


class PWMOut:
    def __init__(self, pin, *, duty_cycle=0, frequency=500, variable_frequency=False):
        if pin is None or not hasattr(pin, "id"):
            raise TypeError("pin must be of type Pin, not %s" % type(pin).__name__)
        self.pin = pin
        self.variable_frequency = bool(variable_frequency)
        self._frequency = _int(frequency, "frequency", 1, 100_000_000)
        self._duty_cycle = 0
        _audioout.made(self)
        self.duty_cycle = duty_cycle

    @property
    def duty_cycle(self):
        return self._duty_cycle

    @duty_cycle.setter
    def duty_cycle(self, value):
        self._duty_cycle = _int(value, "duty_cycle", 0, 65535)
        _audioout.note(self, self._frequency, self._duty_cycle)

    @property
    def frequency(self):
        return self._frequency

    @frequency.setter
    def frequency(self, value):
        if not self.variable_frequency:
            raise AttributeError("PWM frequency not writable when variable_frequency is False "
                                 "on construction.")
        self._frequency = _int(value, "frequency", 1, 100_000_000)
        _audioout.note(self, self._frequency, self._duty_cycle)

    def deinit(self):
        _audioout.note(self, self._frequency, 0)
        self.pin = None

    def waveform(self, t0_us, t1_us, rate):
        """Host only: the pin's level (0 or 1) from ``t0_us`` to ``t1_us`` (simulated time)
        as ``rate`` samples a second (list of floats)."""
        import _drive

        return _drive.pwm(self, t0_us, t1_us, rate).tolist()
