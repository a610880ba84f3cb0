"""The reveal: an overlay of qiklaxon/core.py, in RAM while the reveal is under way.

The QM marks the answers in answering order, from the QM's left: A right, B
wrong; B held unmarks the last. A wrong answer by the challenger or the
challenged asks for its Klaxon penalty first: A adds 1, A held 10, B is done,
B held steps back. Once every answer is marked, the outcome (core.py's
``act(6)``): right answers forward 3, the parties' penalties back, and the
dice pass left. B held with nothing marked is core.py's undo. The device
draws the reveal (hardware/device.py's ``render``).
"""


def cursor(r):
    """The next answer to mark, in answering order, or 255."""
    S = r.S
    s = S[1]
    while True:
        s = (s + 1) % S[0]
        if s == S[1]:
            return 255
        if S[9 + s] == 1 and not (r.u[3] | r.u[4]) >> s & 1:
            return s


def key(r, k):
    """A (1) or B (4) marks the next answer, B held (5) unmarks the last; during a
    penalty (``penalty``), its keys."""
    u = r.u
    S = r.S
    n = S[0]
    if u[0]:
        return penalty(r, k)
    if k == 5:
        s = S[1]
        while (s + 1) % n != S[1]:  # the last answer marked
            s = (s + 1) % n
            if (u[3] | u[4]) >> s & 1:
                w = s
        u[3] &= ~(1 << w)
        u[4] &= ~(1 << w)
        if w == S[4] or w == S[5]:  # its Klaxon penalty goes too
            u[5 if w == S[4] else 6] = 0
        r.out(27, w)
        return True
    if k != 1 and k != 4:
        return False
    s = cursor(r)
    if s != 255:
        u[3 if k == 1 else 4] |= 1 << s
        r.out(22 if k == 1 else 23, s)
        if k == 4 and (s == S[4] or s == S[5]):  # a party: the booklet may give a Klaxon penalty
            u[0] = 1
            u[1] = 0
            u[2] = s
            return True
    return outcome(r)


def penalty(r, k):
    """The Klaxon penalty for seat u[2]: A (1) adds 1, A held (2) 10, B (4) is done,
    B held (5) steps back (its answer is no longer marked)."""
    u = r.u
    if k == 5:
        u[4] &= ~(1 << u[2])
        u[0] = 0
        r.out(26)
        return True
    if k == 1 or k == 2:  # (as entry.py's move: see there)
        k = u[1] + (1 if k == 1 else 10)
        if k > 99:
            return False
        u[1] = k
        r.out(13, k)
        return True
    if k != 4:
        return False
    u[0] = 0
    u[5 if u[2] == r.S[4] else 6] = u[1]
    r.out(14, u[2], u[1])
    return outcome(r)


def outcome(r):
    """Once every answer is marked (or nobody answered): the outcome."""
    u = r.u
    if cursor(r) == 255:
        if r.act(6, u[3] >> 8, u[3] & 255, u[5], u[6]):
            return False
        u[3] = u[4] = 0
        r.out(24)
    return True


def draw(r, c, np):
    """The Klaxon penalty being entered, on the ring (as hardware/device.py draws it):
    white tens, orange units; when they are more than the pixels, tens and units blink
    in turn on the same pixels."""
    a = r.u[1] // 10  # (as entry.py's move count: overlays never share RAM)
    b = r.u[1] % 10
    for i in range(np):
        if a + b > np:
            c[i] = (1 if i < a else 0) | (7 << 4 if i < b else 0)
            c[np + i] = 1
        elif i < a + b:
            c[i] = 1 if i < a else 7
