"""Scripted pin levels for the simulated board (host-only; CPython and MicroPython).

Each pin id has a timeline of (t_us, level) changes; reading a pin gives its
level at the simulated clock's current time. Unscripted pins read their idle
level (True: buttons pulled up and not pressed).
"""

import simclock

_timelines = {}  # pin id -> list of [t_us, level], sorted
_cursor = {}  # pin id -> index of the change in force
_idle = {}  # pin id -> level before the first change


def reset():
    _timelines.clear()
    _cursor.clear()
    _idle.clear()


def set_idle(pin_id, level):
    """The level ``pin_id`` reads before its first scripted change."""
    _idle[pin_id] = bool(level)


def schedule(pin_id, t_us, level):
    """From ``t_us`` on, ``pin_id`` reads ``level``; changes must come in time order."""
    tl = _timelines.setdefault(pin_id, [])
    if tl and t_us < tl[-1][0]:
        raise ValueError("pin changes must come in time order")
    tl.append([t_us, bool(level)])
    _cursor.setdefault(pin_id, -1)


def read(pin_id):
    """The level of ``pin_id`` now."""
    tl = _timelines.get(pin_id)
    if not tl:
        return _idle.get(pin_id, True)
    now = simclock.now_us()
    i = _cursor[pin_id]
    while i + 1 < len(tl) and tl[i + 1][0] <= now:
        i += 1
    _cursor[pin_id] = i
    return tl[i][1] if i >= 0 else _idle.get(pin_id, True)


def last_change_us():
    """Time of the last scripted change of any pin (0 if none)."""
    last = 0
    for tl in _timelines.values():
        if tl and tl[-1][0] > last:
            last = tl[-1][0]
    return last
