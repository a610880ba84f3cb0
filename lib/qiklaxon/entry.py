"""Entries and the end on the ring: an overlay of qiklaxon/core.py, loaded when used.

Moving a piece (A held 2 s between questions), setting up a new game (B held
2 s once the game is over), and how those and the end of a game look on
the ring. ``r`` is the ``Referee``; ``r.u`` holds the entry: [what, the
count, the seat, ...]; what is 2 which seat to move, 3 and 4 how far
forward or back, 5 a new game's players, 6 its first QM (1, a Klaxon
penalty, is qiklaxon/reveal.py's).
"""


def key(r, k):
    """Every key during an entry, and those that start one: True when taken."""
    S = r.S
    u = r.u
    n = S[0]
    m = u[0]
    if k == 6:  # the game is over: set up a new one (its players first)
        if m:
            return False
        u[0] = 5
        u[1] = n
        r.out(10, n)
        return True
    if k == 5:  # one step of the entry back
        if not m:
            return False
        u[0] = b"\x00\x00\x00\x02\x02\x00\x05"[m]  # where each steps back to
        r.out(26)
        return True
    if m >= 5:
        return game(r, k)
    return move(r, k)


def game(r, k):
    """A new game: its players (A: one more), then its first QM (A: the next seat);
    B goes on, then starts it."""
    u = r.u
    m = u[0]
    if k == 1:
        if m == 5:
            u[1] = u[1] + 1 if u[1] < 10 else 2
            r.out(10, u[1])
        else:
            u[2] = (u[2] + 1) % u[1]
            r.out(11, u[2])
        return True
    if k != 4:
        return False
    if m == 5:
        u[0] = 6
        u[2] = r.new[1] if r.new[1] < u[1] else 0
        r.out(11, u[2])
        return True
    r.act(10, u[1], u[2], r.new[2] >> 8, r.new[2] & 255)
    u[0] = 0
    r.out(9)
    return True


def move(r, k):
    """Moving a piece: which one (A the next seat, B forward, A held back), then how far
    (A adds 1, A held 10, B moves it); A held 2 s between questions starts it."""
    S = r.S
    u = r.u
    n = S[0]
    m = u[0]
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


def draw(r, c, np):
    """An entry or the end on the ring (colour | pattern << 4, as hardware/device.py
    draws them): how far to move (white tens, orange units forward, blue back; when
    they are more than the pixels, tens and units blink in turn on the same pixels); a
    new game's players (sky); the seat being chosen, blinking (white: the first QM,
    blue: the piece to move); at the end, the winners green blinking fast, the others
    grey."""
    u = r.u
    m = u[0]
    n = r.S[0]
    if m == 3 or m == 4:
        return count(u[1], c, np, 9 if m == 4 else 7)
    if m == 5:
        for i in range(min(u[1], np)):
            c[i] = 6
        return
    if m == 6:
        n = u[1]
    best = max(r.P[:n])
    for s in range(n):
        if m:
            k = ((9 if m == 2 else 1) | 0x20) if s == u[2] else 4 * (m == 6)
        else:
            k = 0x23 if r.P[s] == best else 4
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
