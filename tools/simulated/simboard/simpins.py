"""Scripted pin levels for the simulated board (host-only; CPython and MicroPython).

Each pin id has a timeline of (t_us, level) changes; reading a pin gives its
level at the simulated clock's current time. Unscripted pins read their idle
level (True: buttons pulled up and not pressed).
"""

import simclock

_timelines = {}  # pin id -> list of [t_us, level], sorted
_cursor = {}  # pin id -> [its level now, when it next changes, index of the change in force]
_clock = simclock._state  # [0]: microseconds since power-on
_NEVER = (1 << 30) - 1  # "no change to come": the largest small int of a 32-bit MicroPython
_idle = {}  # pin id -> level before the first change


def reset():
    _timelines.clear()
    _cursor.clear()
    _idle.clear()


def set_idle(pin_id, level):
    """The level ``pin_id`` reads before its first scripted change."""
    _idle[pin_id] = bool(level)
    _cursor.pop(pin_id, None)


def schedule(pin_id, t_us, level):
    """From ``t_us`` on, ``pin_id`` reads ``level``; changes must come in time order."""
    tl = _timelines.setdefault(pin_id, [])
    if tl and t_us < tl[-1][0]:
        raise ValueError("pin changes must come in time order")
    tl.append([t_us, bool(level)])
    _cursor.pop(pin_id, None)  # read() looks again


def read(pin_id):
    """The level of ``pin_id`` now. Cheap while nothing changes (the VM lane counts the
    firmware's cost per pass, and on a board a pin read is one C call): the level and
    the time of its next change are kept per pin."""
    c = _cursor.get(pin_id)
    if c is not None and _clock[0] < c[1]:
        return c[0]
    return _refresh(pin_id)


def _refresh(pin_id):
    now = _clock[0]
    tl = _timelines.get(pin_id, ())
    c = _cursor.get(pin_id)
    i = c[2] if c is not None else -1
    while i + 1 < len(tl) and tl[i + 1][0] <= now:
        i += 1
    level = tl[i][1] if i >= 0 else _idle.get(pin_id, True)
    nxt = tl[i + 1][0] if i + 1 < len(tl) else _NEVER
    if c is None:
        _cursor[pin_id] = [level, nxt, i]
    else:  # (in place: a board's pin read allocates nothing, nor should the stand-in's)
        c[0] = level
        c[1] = nxt
        c[2] = i
    return level


def next_level_us(pin_id, t_us, level):
    """When ``pin_id`` next goes to ``level`` after ``t_us`` (scripted), or None."""
    for t, v in _timelines.get(pin_id, ()):
        if t > t_us and v == bool(level):
            return t
    return None


def next_change_us(t_us):
    """When any pin next changes after ``t_us`` (scripted), or None."""
    best = None
    for tl in _timelines.values():
        for t, _ in tl:
            if t > t_us:
                best = t if best is None or t < best else best
                break
    return best


def last_change_before_us(t_us):
    """When any pin last changed at or before ``t_us`` (0 if none)."""
    best = 0
    for tl in _timelines.values():
        for t, _ in tl:
            if t <= t_us and t > best:
                best = t
    return best


def last_change_us():
    """Time of the last scripted change of any pin (0 if none)."""
    last = 0
    for tl in _timelines.values():
        if tl and tl[-1][0] > last:
            last = tl[-1][0]
    return last
