"""Every seat's position on the ring: an overlay of qiklaxon/core.py, loaded while shown.

The Klaxon between questions or after the game (refused: nothing changes) shows each
seat in turn; hardware/device.py draws it a step at a time (``dice``, as the roll's
entry.py ``dice``), until every seat was shown or the next action.
"""

if __debug__:  # CPython needs const; the Express's mpy-cross -O3 drops this import
    from micropython import const

# names: made by tools/gen/consts.py from model/layout.py (python3 tools/dev.py regen)
_PLAYERS = const(0)
_DICE = const(24)
_SEAT_STEPS = const(20)
_YELLOW = const(2)
_VERMILLION = const(5)
_FAST = const(2)
# (end of the names)


def dice(dev, q, np):
    """Every seat's position, seat 0 first, a seat every 2.56 s (its last 0.26 s dark), into
    the scene ``c``: the seat's own light blinks fast, yellow (0 or more) or vermillion
    (below 0); from the light after it, clockwise, the squares: green lights hundreds,
    white tens, orange units (blue thousands); more than the lights left, each kind in
    turn. ``dev``: hardware/device.py's Device (its referee ``r``, scene ``c``); once every
    seat was shown, the ring shows the game again (``f[_DICE]`` 0, ``render()``).
    Returns -1: the scene is drawn."""
    r = dev.r
    c = dev.c
    n = r.S[_PLAYERS]
    s = q // _SEAT_STEPS
    if s >= n:
        dev.f[_DICE] = 0
        dev.render()
        return -1
    q %= _SEAT_STEPS
    for i in range(2 * np):
        c[i] = 0
    at = s * np // n if np >= n else s
    if q >= _SEAT_STEPS - 2 or at >= np:
        return -1
    v = r.P[s]
    c[at] = _VERMILLION if v < 0 else _YELLOW
    c[np + at] = _FAST
    v = min(abs(v), 9999)
    k = 0  # the kinds of light to show, and all their lights
    j = 0
    for i in range(4):
        d = v // 10 ** (3 - i) % 10
        k += d > 0
        j += d
    g = -1 if j < np else q * k // (_SEAT_STEPS - 2)  # -1: all at once; else the g-th kind
    j = 0
    for i in range(4):
        d = v // 10 ** (3 - i) % 10
        if d:
            if g <= 0:
                while d and j < np - 1:
                    c[(at + 1 + j) % np] = b"\x09\x03\x01\x07"[i]  # _BLUE, _GREEN, _WHITE,
                    j += 1  # _ORANGE
                    d -= 1
                if not g:
                    break
            g -= 1
    return -1
