"""Moving a piece: an overlay of qiklaxon/core.py, loaded when used.

For real dice, a chance card or a correction: A held 2 s between questions; A
walks the seats (the QM's first), B picks one to move forward (A held: back), A
adds 1, A held 10 (the ring counts them), B moves it; B held steps back. ``r`` is
the ``Referee``; ``r.u`` holds the entry: [what (2 which seat, 3 and 4 how far
forward or back), the count, the seat, ...].
"""


def key(r, k):
    """Every key during the entry, and the one that starts it: True when taken."""
    S = r.S
    u = r.u
    n = S[0]
    m = u[0]
    if k == 5:  # one step of the entry back
        if not m:
            return False
        u[0] = 2 if m > 2 else 0
        r.out(26)
        return True
    if m == 2:  # which seat to move: A the next, B forward, A held back
        if k == 1:
            u[2] = (u[2] + 1) % n
            r.out(12, u[2])
            return True
        if k != 4 and k != 2:
            return False
        u[0] = 3 if k == 4 else 4
        u[1] = 0
        return True
    if m:  # how far to move: A adds 1, A held 10, B moves it
        if k == 1 or k == 2:  # (as reveal.py's penalty: overlays never share RAM with
            # each other, and a shared function would stay in the core's)
            k = u[1] + (1 if k == 1 else 10)
            if k > 99:
                return False
            u[1] = k
            r.out(13, k)
            return True
        if k != 4:
            return False
        u[0] = 0
        k = u[1] if m == 3 else -u[1]
        if k:
            r.act(8, u[2], k >> 8 & 255, k & 255)
            r.out(15)
        return True
    if k == 3 and not S[2]:  # move a piece: which one? The QM's, first
        u[0] = 2
        u[2] = S[1]
        r.out(12, S[1])
        return True
    return False


def dice(v, q, np):
    """The roll ``v`` (``S[6]``) on ``np`` pixels (0: only an LED), ``q`` steps of 128 ms
    after it: how many pixels light now | their colour << 8 (hardware/device.py's
    numbers: red 10, white 1, blue 9), 0 dark. Red, white, then blue, one die at a
    time, as many pixels as its value (clockwise from pixel 0) for 8 steps, then 3
    dark, and 5 more before red again (a 4.9 s cycle); with fewer than 6 pixels, or only
    the LED, each die is that many blinks (2 steps on, 2 off), then 4 dark, and 8 more
    before red again. Order and count carry the meaning, not the hue alone. The device
    shows it from a roll until the next action (entry.py is loaded meanwhile)."""
    big = np >= 6
    q %= 38 if big else 4 * (v // 36 + v // 6 % 6 + v % 6) + 32
    for i in range(3):
        m = v // b"\x24\x06\x01"[i] % 6 + 1  # this die
        e = 11 if big else 4 * m + 4  # its steps, the dark after it too
        if q < e:
            if q < 8 if big else q < 4 * m and q & 3 < 2:
                return (m if big else np or 1) | b"\x0a\x01\x09"[i] << 8
            return 0
        q -= e
    return 0


def draw(r, c, np):
    """The entry on the ring (colour | pattern << 4, as hardware/device.py draws them):
    the seat being chosen blinking blue; how far, as a count (white tens, orange units
    forward, blue back)."""
    u = r.u
    m = u[0]
    n = r.S[0]
    if m > 2:
        return count(u[1], c, np, 9 if m == 4 else 7)
    for s in range(n):
        k = 0x29 if s == u[2] else 0
        i = s * np // n if np >= n else s
        if i < np:
            c[i] = k & 15
            c[np + i] = k >> 4


def count(v, c, np, k):
    """Count ``v`` on the ring: white tens, then units in colour ``k``; when they are more
    than the pixels, tens and units blink in turn on the same pixels. (As reveal.py's
    penalty count: overlays never share RAM, and a shared function would stay in the
    core's.)"""
    a = v // 10
    b = v % 10
    for i in range(np):
        if a + b > np:
            c[i] = (1 if i < a else 0) | (k << 4 if i < b else 0)
            c[np + i] = 1
        elif i < a + b:
            c[i] = 1 if i < a else k
