"""Stand-in for CircuitPython's ``supervisor`` on the simulated board (host-only)."""

import simclock

ticks_ms = simclock.ticks_ms

class _Runtime:
    serial_connected = True
    usb_connected = True


runtime = _Runtime()

reloads = []  # ticks of each reload() the firmware asked for


def reload():
    """Recorded; the harness decides what a reload means."""
    reloads.append(simclock.ticks_ms())
    raise ReloadRequested()


class ReloadRequested(BaseException):
    """Raised where the board would restart code.py: as CircuitPython's ReloadException, a
    BaseException, so that the firmware's ``except Exception`` does not catch it."""


def set_next_code_file(*args, **kwargs):
    pass
