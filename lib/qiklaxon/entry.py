"""Moving a piece: an overlay of qiklaxon/core.py, loaded when used.

For real dice, a chance card or a correction: A held long between questions; A
walks the seats (the QM's first), B picks one to move forward (A held: back), A
adds 1, A held 10 (the ring counts them), B moves it; B held is one step back (the
count one down; at 0, the seat again; while choosing the seat, no move).
"""

if __debug__:  # CPython needs const; the Express's mpy-cross -O3 drops this import
    from micropython import const

# names: made by tools/gen/consts.py from model/layout.py (python3 tools/dev.py regen)
_PLAYERS = const(0)
_QM = const(1)
_PHASE = const(2)
_ROLL = const(6)
_WHAT = const(0)
_COUNT = const(1)
_SEAT = const(2)
_WHICH = const(2)
_FORWARD = const(3)
_BACKWARD = const(4)
_OP_MOVE = const(8)
_KEY_A = const(1)
_KEY_A_HELD = const(2)
_KEY_A_2S = const(3)
_KEY_B = const(4)
_KEY_B_HELD = const(5)
_REFUSED = const(0)
_TAKEN = const(1)
_UNDONE = const(2)
_DONE = const(3)
_W_SEAT = const(12)
_W_COUNT = const(13)
_W_MOVE = const(15)
_W_BACK = const(26)
_WHITE = const(1)
_ORANGE = const(7)
_BLUE = const(9)
_SLOW = const(1)
_FAST = const(2)
# (end of the names)


def key(r, k):
    """Every key of the entry, and the one that starts it; returns as core.py's ``key``."""
    S = r.S
    u = r.u
    n = S[_PLAYERS]
    m = u[_WHAT]
    if k == _KEY_B_HELD:  # one step back: the count one down; at 0, or while choosing
        if not m:  # the seat, the step before
            return _REFUSED
        if m > _WHICH and u[_COUNT]:
            u[_COUNT] -= 1
            r.out(_W_COUNT, u[_COUNT])
        else:
            u[_WHAT] = _WHICH if m > _WHICH else 0
            r.out(_W_BACK)
        return _UNDONE
    if m == _WHICH:  # which seat to move: A the next, B forward, A held back
        if k == _KEY_A:
            u[_SEAT] = (u[_SEAT] + 1) % n
            r.out(_W_SEAT, u[_SEAT])
            return _TAKEN
        if k != _KEY_B and k != _KEY_A_HELD:
            return _REFUSED
        u[_WHAT] = _FORWARD if k == _KEY_B else _BACKWARD
        u[_COUNT] = 0
        return _TAKEN
    if m:  # how far to move: A adds 1, A held 10, B moves it
        if k == _KEY_A or k == _KEY_A_HELD:  # (as reveal.py's penalty: see count())
            k = u[_COUNT] + (1 if k == _KEY_A else 10)
            if k > 99:
                return _REFUSED
            u[_COUNT] = k
            r.out(_W_COUNT, k)
            return _TAKEN
        if k != _KEY_B:
            return _REFUSED
        u[_WHAT] = 0
        k = u[_COUNT] if m == _FORWARD else -u[_COUNT]
        if not k:
            r.out(_W_BACK)  # nothing to move: the entry is over
            return _UNDONE
        r.act(_OP_MOVE, u[_SEAT], k >> 8 & 255, k & 255)
        r.out(_W_MOVE)
        return _DONE
    if k == _KEY_A_2S and not S[_PHASE]:  # move a piece: which one? The QM's, first
        u[_WHAT] = _WHICH
        u[_SEAT] = S[_QM]
        r.out(_W_SEAT, S[_QM])
        return _TAKEN
    return _REFUSED


def dice(dev, q, np):
    """What the ring shows ``q`` steps of 128 ms after a roll (the referee's ``S[_ROLL]``;
    ``dev`` hardware/device.py's Device) on ``np`` pixels (0: only an LED): pixels lit
    now | their colour << 8 (red 10, white 1, blue 9), 0 dark;
    they blink (fast), so that a white 1 is never the QM's steady white. Red, white, then
    blue, each die as many pixels as its value (clockwise from pixel 0) for 8 steps,
    then 3 dark, and 5 more before red again (a 4.9 s cycle); under 6 pixels, each die
    is that many blinks (2 steps on, 2 off), then 4 dark, and 8 more before red again.
    Order and count carry the meaning, not the hue alone."""
    v = dev.r.S[_ROLL]
    big = np >= 6
    q %= 38 if big else 4 * (v // 36 + v // 6 % 6 + v % 6) + 32
    for i in range(3):
        m = v // b"\x24\x06\x01"[i] % 6 + 1  # this die
        e = 11 if big else 4 * m + 4  # its steps, the dark after it too
        if q < e:
            if q < 8 and not q & 1 if big else q < 4 * m and q & 3 < 2:
                return (m if big else np or 1) | b"\x0a\x01\x09"[i] << 8  # _RED, _WHITE, _BLUE
            return 0
        q -= e
    return 0


def draw(r, c, np):
    """The entry on the ring: the seat being chosen blinks blue; how far: it blinks the
    way it moves (orange forward, blue back), and the count in that colour starts from
    the light after it."""
    u = r.u
    m = u[_WHAT]
    n = r.S[_PLAYERS]
    s = u[_SEAT]
    i = s * np // n if np >= n else s
    k = _BLUE
    if m > _WHICH:
        k = _BLUE if m == _BACKWARD else _ORANGE
        count(u[_COUNT], c, np, k, i)
    if i < np:
        c[i] = k
        c[np + i] = _FAST


def count(v, c, np, k, at):
    """Count ``v`` on the ring clockwise from the light after ``at`` (its seat's, which the
    caller draws): white tens, then units in colour ``k``; more than the lights left:
    tens and units blink in turn. (Also in reveal.py: overlays never share RAM, and a
    shared function would stay in the core's.)"""
    a = v // 10
    b = v % 10
    for j in range(np - 1):
        i = (at + 1 + j) % np
        if a + b > np - 1:
            c[i] = (_WHITE if j < a else 0) | (k << 4 if j < b else 0)
            c[np + i] = _SLOW  # (the tens, then the units)
        elif j < a + b:
            c[i] = _WHITE if j < a else k
