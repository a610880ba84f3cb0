"""The simulated clock of the host harness (host-only; runs on CPython and MicroPython).

Time is kept in microseconds so that contact bounce and glitches shorter
than a millisecond can be modelled; ``ticks_ms`` starts like CircuitPython's
``supervisor.ticks_ms``, wrapping about 65 s after "power-on".
"""

TICKS_PERIOD = 1 << 29
POWER_ON_MS = TICKS_PERIOD - 65536  # ticks_ms() at power-on, as on the boards

_state = [0, POWER_ON_MS]  # [microseconds since power-on, ticks at power-on]


def reset(start_ms=POWER_ON_MS):
    """Power on again: time 0, ticks_ms() == start_ms."""
    _state[0] = 0
    _state[1] = start_ms % TICKS_PERIOD


def now_us():
    """Microseconds since power-on."""
    return _state[0]


def now_ms():
    """Whole milliseconds since power-on."""
    return _state[0] // 1000


def advance_us(us):
    """Let ``us`` microseconds pass."""
    _state[0] += us


def set_us(t_us):
    """Jump forward to ``t_us`` microseconds since power-on (never back)."""
    if t_us > _state[0]:
        _state[0] = t_us


def ticks_ms():
    """``supervisor.ticks_ms()`` on the simulated board."""
    return (_state[1] + _state[0] // 1000) % TICKS_PERIOD
