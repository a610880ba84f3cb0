"""Stand-in for CircuitPython's ``alarm`` (host-only): deep sleep is recorded and ends the run.

``exit_and_deep_sleep_until_alarms`` raises ``DeepSleep`` (a BaseException, as
the board's never returns); the harness catches it. ``wake_alarm`` is what
woke this "power-on" (set it before starting the device to simulate a wake).
"""

import simclock

wake_alarm = None
sleeps = []  # (t_us, alarms) of each deep sleep
sleep_memory = bytearray(256)


class DeepSleep(BaseException):
    """The firmware went into deep sleep: the program has ended until an alarm."""


class _Pin:
    class PinAlarm:
        def __init__(self, pin, value, edge=False, pull=False):
            self.pin = pin
            self.value = value
            self.pull = pull


class _Time:
    class TimeAlarm:
        def __init__(self, monotonic_time=None, epoch_time=None):
            self.monotonic_time = monotonic_time


pin = _Pin()
time = _Time()


def exit_and_deep_sleep_until_alarms(*alarms, preserve_dios=()):
    sleeps.append((simclock.now_us(), alarms))
    raise DeepSleep()
