"""The reveal: an overlay of qiklaxon/core.py, in RAM while the reveal is under way.

The QM marks the answers in answering order: A right, B wrong; B held takes the
last mark back (a party marked wrong: back into its penalty's count). A Klaxon
party's wrong answer asks for its penalty first: A adds 1, A held 10, B is done
(no penalty: B at once), B held one down (at 0: unmarked). Once all are marked,
the outcome (``act(6)``). B held with nothing marked is undo. device.py draws the
reveal; this, a penalty being entered.
"""

if __debug__:  # CPython needs const; the Express's mpy-cross -O3 drops this import
    from micropython import const

# names: made by tools/gen/consts.py from model/layout.py (python3 tools/dev.py regen)
_PLAYERS = const(0)
_QM = const(1)
_CHALLENGER = const(4)
_CHALLENGED = const(5)
_DID = const(9)
_NONE = const(255)
_ANSWERED = const(1)
_WHAT = const(0)
_COUNT = const(1)
_SEAT = const(2)
_RIGHT = const(3)
_WRONG = const(4)
_CHALLENGER_PEN = const(5)
_CHALLENGED_PEN = const(6)
_PENALTY = const(1)
_OP_REVEAL = const(6)
_KEY_A = const(1)
_KEY_A_HELD = const(2)
_KEY_B = const(4)
_KEY_B_HELD = const(5)
_REFUSED = const(0)
_TAKEN = const(1)
_UNDONE = const(2)
_DONE = const(3)
_W_COUNT = const(13)
_W_PENALTY = const(14)
_W_RIGHT = const(22)
_W_WRONG = const(23)
_W_REVEAL = const(24)
_W_UNMARK = const(27)
_WHITE = const(1)
_VERMILLION = const(5)
_SKY = const(6)
_ORANGE = const(7)
_SLOW = const(1)
_FAST = const(2)
# (end of the names)


def cursor(r):
    """The next answer to mark, in answering order, or 255."""
    S = r.S
    s = S[_QM]
    while True:
        s = (s + 1) % S[_PLAYERS]
        if s == S[_QM]:
            return _NONE
        if S[_DID + s] == _ANSWERED and not (r.u[_RIGHT] | r.u[_WRONG]) >> s & 1:
            return s


def key(r, k):
    """A or B marks the next answer, B held unmarks the last; in a penalty, its keys.
    Returns as core.py's ``key``."""
    u = r.u
    S = r.S
    n = S[_PLAYERS]
    if u[_WHAT]:
        return penalty(r, k)
    if k == _KEY_B_HELD:
        s = S[_QM]
        while (s + 1) % n != S[_QM]:  # the last answer marked
            s = (s + 1) % n
            if (u[_RIGHT] | u[_WRONG]) >> s & 1:
                w = s
        p = _CHALLENGER_PEN if w == S[_CHALLENGER] else _CHALLENGED_PEN if w == S[_CHALLENGED] \
            else 0  # a party: its Klaxon penalty
        if p and u[_WRONG] >> w & 1:  # marked wrong: one step back is into its count
            u[_WHAT] = _PENALTY
            u[_COUNT] = u[p]
            u[_SEAT] = w
            u[p] = 0
            r.out(_W_COUNT, u[_COUNT])
            return _UNDONE
        u[_RIGHT] &= ~(1 << w)
        u[_WRONG] &= ~(1 << w)
        r.out(_W_UNMARK, w)
        return _UNDONE
    if k != _KEY_A and k != _KEY_B:
        return _REFUSED
    s = cursor(r)
    if s != _NONE:
        u[_RIGHT if k == _KEY_A else _WRONG] |= 1 << s
        r.out(_W_RIGHT if k == _KEY_A else _W_WRONG, s)
        if k == _KEY_B and (s == S[_CHALLENGER] or s == S[_CHALLENGED]):  # a party: the
            u[_WHAT] = _PENALTY  # booklet may give a Klaxon penalty
            u[_COUNT] = 0
            u[_SEAT] = s
            return _TAKEN
    return outcome(r)


def penalty(r, k):
    """The keys while seat u[_SEAT]'s Klaxon penalty is entered (the module says how)."""
    u = r.u
    if k == _KEY_B_HELD:
        if u[_COUNT]:
            u[_COUNT] -= 1
            r.out(_W_COUNT, u[_COUNT])
        else:
            u[_WRONG] &= ~(1 << u[_SEAT])
            u[_WHAT] = 0
            r.out(_W_UNMARK, u[_SEAT])
        return _UNDONE
    if k == _KEY_A or k == _KEY_A_HELD:  # (as entry.py's move: see there)
        k = u[_COUNT] + (1 if k == _KEY_A else 10)
        if k > 99:
            return _REFUSED
        u[_COUNT] = k
        r.out(_W_COUNT, k)
        return _TAKEN
    if k != _KEY_B:
        return _REFUSED
    u[_WHAT] = 0
    u[_CHALLENGER_PEN if u[_SEAT] == r.S[_CHALLENGER] else _CHALLENGED_PEN] = u[_COUNT]
    r.out(_W_PENALTY, u[_SEAT], u[_COUNT])
    return outcome(r)


def outcome(r):
    """Once every answer is marked: the outcome (3); before that, 1."""
    u = r.u
    if cursor(r) == _NONE:
        if r.act(_OP_REVEAL, u[_RIGHT] >> 8, u[_RIGHT] & 255, u[_CHALLENGER_PEN], u[_CHALLENGED_PEN]):
            return _REFUSED
        u[_RIGHT] = u[_WRONG] = 0
        r.out(_W_REVEAL)
        return _DONE
    return _TAKEN


def draw(r, c, np):
    """The Klaxon penalty on the ring, as entry.py's count(), from the light after the
    party's, which keeps blinking its colour (the challenger vermillion, the challenged
    sky)."""
    a = r.u[_COUNT] // 10
    b = r.u[_COUNT] % 10
    s = r.u[_SEAT]
    n = r.S[_PLAYERS]
    at = s * np // n if np >= n else s
    for j in range(np - 1):
        i = (at + 1 + j) % np
        if a + b > np - 1:
            c[i] = (_WHITE if j < a else 0) | (_ORANGE << 4 if j < b else 0)
            c[np + i] = _SLOW  # (the tens, then the units)
        elif j < a + b:
            c[i] = _WHITE if j < a else _ORANGE
    if at < np:
        c[at] = _VERMILLION if s == r.S[_CHALLENGER] else _SKY
        c[np + at] = _FAST if s == r.S[_CHALLENGER] else _SLOW
