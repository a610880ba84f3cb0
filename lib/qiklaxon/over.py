"""The end and a new game: an overlay of qiklaxon/core.py, in RAM while the game is
over or a new one is being set up.

B held 2 s once the game is over sets up a new one: A counts the players, B goes
on to the first QM, A walks the seats, B starts it; B held steps back. ``r`` is
the ``Referee``; ``r.u`` holds the entry: [what (5 a new game's players, 6 its
first QM), the count, the seat, ...].
"""


def key(r, k):
    """Every key once the game is over or a new one is being set up: True when taken."""
    u = r.u
    m = u[0]
    if k == 6:  # the game is over: set up a new one (its players first)
        if m:
            return False
        u[0] = 5
        u[1] = r.S[0]
        r.out(10, u[1])
        return True
    if k == 5:  # one step back
        if not m:
            return False
        u[0] = 5 if m == 6 else 0
        r.out(26)
        return True
    if not m:
        return False
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


def draw(r, c, np):
    """The end or a new game on the ring (colour | pattern << 4, as hardware/device.py
    draws them): a new game's players (sky); its first QM, blinking white; at the end,
    the winners green blinking fast, the others grey."""
    u = r.u
    m = u[0]
    n = r.S[0]
    if m == 5:
        for i in range(min(u[1], np)):
            c[i] = 6
        return
    if m == 6:
        n = u[1]
    best = max(r.P[:n])
    for s in range(n):
        if m:
            k = 0x21 if s == u[2] else 4
        else:
            k = 0x23 if r.P[s] == best else 4
        i = s * np // n if np >= n else s
        if i < np:
            c[i] = k & 15
            c[np + i] = k >> 4
