"""The simulated clock of the host harness (host-only; runs on CPython and MicroPython).

Time is kept in microseconds so that contact bounce and glitches shorter
than a millisecond can be modelled; ``ticks_ms`` starts like CircuitPython's
``supervisor.ticks_ms``, wrapping about 65 s after "power-on".
"""

TICKS_PERIOD = 1 << 29
POWER_ON_MS = TICKS_PERIOD - 65536  # ticks_ms() at power-on, as on the boards

# [microseconds since power-on, ticks at power-on, ticks now]: the ticks are kept as
# time moves, so that reading them is as cheap as the board's one C call (the VM lane
# counts the firmware's cost per loop pass)
_state = [0, POWER_ON_MS, POWER_ON_MS]


_hooks = []  # called whenever the time moves (tools/lanes/vmboard/digitalio.py's inputs)


def on_advance(hook):
    """Call ``hook()`` whenever the time moves."""
    if hook not in _hooks:
        _hooks.append(hook)


def _tick():
    _state[2] = (_state[1] + _state[0] // 1000) % TICKS_PERIOD
    for h in _hooks:
        h()


def reset(start_ms=POWER_ON_MS):
    """Power on again: time 0, ticks_ms() == start_ms."""
    _state[0] = 0
    _state[1] = start_ms % TICKS_PERIOD
    _tick()


def now_us():
    """Microseconds since power-on."""
    return _state[0]


def now_ms():
    """Whole milliseconds since power-on."""
    return _state[0] // 1000


def advance_us(us):
    """Let ``us`` microseconds pass."""
    _state[0] += us
    _tick()


def set_us(t_us):
    """Jump forward to ``t_us`` microseconds since power-on (never back)."""
    if t_us > _state[0]:
        _state[0] = t_us
        _tick()


def ticks_ms():
    """``supervisor.ticks_ms()`` on the simulated board."""
    return _state[2]
