"""Stand-in for CircuitPython's ``supervisor`` on the simulated board (host-only)."""

import simclock

ticks_ms = simclock.ticks_ms

class _Runtime:
    serial_connected = True
    usb_connected = True
    serial_bytes_available = 0  # (a harness that types on the console: scenario.type_in)


runtime = _Runtime()

class ReloadRequested(BaseException):
    """Raised where the board would restart code.py: as CircuitPython's ReloadException, a
    BaseException, so that the firmware's ``except Exception`` does not catch it."""


_RELOAD = ReloadRequested()  # made once: as on a board, a reload allocates nothing (a full
# heap is when the firmware asks for one)


def reload():
    """The harness (or the CircuitPython lane's runner) decides what a reload means."""
    raise _RELOAD


def set_next_code_file(*args, **kwargs):
    pass
