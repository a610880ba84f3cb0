"""The end and a game set up: an overlay of qiklaxon/core.py, in RAM while the game is
over or a game is being set up.

B held long once the game is over, or before its first question, sets up a game:
A counts the players up (to 10), B held one down (at 2: the step before), B goes on
to the first QM, A walks the seats, B starts it; B held is one step back, and B
held long again leaves the set-up with the game as it was.
"""

if __debug__:  # CPython needs const; the Express's mpy-cross -O3 drops this import
    from micropython import const

# names: made by tools/gen/consts.py from model/layout.py (python3 tools/dev.py regen)
_PLAYERS = const(0)
_SEATS = const(10)
_WHAT = const(0)
_COUNT = const(1)
_SEAT = const(2)
_NEW_PLAYERS = const(5)
_NEW_QM = const(6)
_OP_NEW = const(10)
_KEY_A = const(1)
_KEY_B = const(4)
_KEY_B_HELD = const(5)
_KEY_B_2S = const(6)
_REFUSED = const(0)
_TAKEN = const(1)
_UNDONE = const(2)
_DONE = const(3)
_W_NEW = const(9)
_W_PLAYERS = const(10)
_W_FIRST = const(11)
_W_BACK = const(26)
_WHITE = const(1)
_GREEN = const(3)
_GREY = const(4)
_SKY = const(6)
_FAST = const(2)
# (end of the names)


def key(r, k):
    """Every key once over or in a set-up; returns as core.py's ``key``."""
    u = r.u
    m = u[_WHAT]
    if k == _KEY_B_2S:  # set up a game (its players first); in the set-up, leave it
        if m >= _NEW_PLAYERS:
            u[_WHAT] = 0
            r.out(_W_BACK)
            return _UNDONE
        u[_WHAT] = _NEW_PLAYERS
        u[_COUNT] = r.S[_PLAYERS]
        r.out(_W_PLAYERS, u[_COUNT])
        return _TAKEN
    if m < _NEW_PLAYERS:
        return _REFUSED
    if k == _KEY_B_HELD:  # one step back: one player fewer; at 2, or the first QM, the step
        if m == _NEW_PLAYERS and u[_COUNT] > 2:  # before
            u[_COUNT] -= 1
            r.out(_W_PLAYERS, u[_COUNT])
        else:
            u[_WHAT] = _NEW_PLAYERS if m == _NEW_QM else 0
            r.out(_W_BACK)
        return _UNDONE
    if k == _KEY_A:
        if m == _NEW_PLAYERS:
            if u[_COUNT] >= _SEATS:
                return _REFUSED
            u[_COUNT] += 1
            r.out(_W_PLAYERS, u[_COUNT])
        else:
            u[_SEAT] = (u[_SEAT] + 1) % u[_COUNT]
            r.out(_W_FIRST, u[_SEAT])
        return _TAKEN
    if k != _KEY_B:
        return _REFUSED
    if m == _NEW_PLAYERS:
        u[_WHAT] = _NEW_QM
        u[_SEAT] = r.new[1] if r.new[1] < u[_COUNT] else 0
        r.out(_W_FIRST, u[_SEAT])  # (r.new: the defaults, players, first QM, finish)
        return _TAKEN
    if r.act(_OP_NEW, u[_COUNT], u[_SEAT], r.new[2] >> 8, r.new[2] & 255):
        return _REFUSED
    u[_WHAT] = 0
    r.out(_W_NEW)
    return _DONE


def draw(r, c, np):
    """The end or a new game on the ring: the new game's seats sky, on the lights it will
    use; the first QM blinking white; at the end, the winners green blinking fast, the
    others grey."""
    u = r.u
    m = u[_WHAT]
    n = r.S[_PLAYERS]
    if m:  # the new game's seats, on the lights that game will use
        n = u[_COUNT]
    best = max(r.P[:n])
    for s in range(n):
        if m == _NEW_PLAYERS:
            k = _SKY
        elif m:
            k = _WHITE | _FAST << 4 if s == u[_SEAT] else _GREY
        else:
            k = _GREEN | _FAST << 4 if r.P[s] == best else _GREY
        i = s * np // n if np >= n else s
        if i < np:
            c[i] = k & 15
            c[np + i] = k >> 4
