"""Undo, and the log replayed: an overlay of qiklaxon/core.py, loaded when used.

The state is ``B`` and the log replayed (core.py), so undo replays the log less its
last action. Also: the log folded when full, the referee rebuilt after a fault, a
saved game taken back at power-up.
"""

from qiklaxon.core import _LEN

if __debug__:  # CPython needs const; the Express's mpy-cross -O3 drops this import
    from micropython import const

# names: made by tools/gen/consts.py from model/layout.py (python3 tools/dev.py regen)
_PLAYERS = const(0)
_PHASE = const(2)
_DID = const(9)
_ANSWERED = const(1)
_U_SLOTS = const(7)
_RIGHT = const(3)
_WRONG = const(4)
_CHALLENGER_PEN = const(5)
_CHALLENGED_PEN = const(6)
_OP_REVEAL = const(6)
_OP_NEW = const(10)
_ALL = const(99)
# (end of the names)


def undo(r):
    """Undo the last action: 0, or 1 with nothing to undo. A reveal taken back leaves
    its marks and penalties in ``u`` as they were."""
    L = r.L
    if not r.n:
        return 1
    i = 0
    while i + _LEN[L[i]] < r.n:
        i += _LEN[L[i]]
    r.n = i
    r.w = 1  # a save is due
    replay(r, _ALL)
    if L[i] == _OP_REVEAL:  # the reveal's marks and penalties as they were at its end
        S = r.S
        u = r.u
        u[_RIGHT] = L[i + 1] << 8 | L[i + 2]
        u[_WRONG] = 0
        for s in range(S[_PLAYERS]):
            if S[_DID + s] == _ANSWERED and not u[_RIGHT] >> s & 1:
                u[_WRONG] |= 1 << s
        u[_CHALLENGER_PEN] = L[i + 3]
        u[_CHALLENGED_PEN] = L[i + 4]
    return 0


def replay(r, k):
    """The state from ``B`` and the log. From log byte ``k`` on, the first state between
    questions becomes the new ``B``: returns where (0: none), or -1 if the log does not
    replay (a damaged saved game)."""
    L = r.L
    S = r.S
    S[:] = r.B
    r.P[:] = r.Q
    r.r = 1
    i = c = 0
    while i < r.n:
        op = L[i]
        if not 0 < op <= _OP_NEW or r.act(op, L[i + 1], L[i + 2], L[i + 3], L[i + 4]):
            if op != _OP_REVEAL or S[_PHASE] or L[i + 1] | L[i + 2] | L[i + 3] | L[i + 4]:
                break  # (else an older firmware's reveal of a question everyone passed,
                # which is over at its last pass now: nothing to do)
        i += _LEN[op]
        if not c and i >= k and not S[_PHASE] % 3:  # between questions or over
            c = i
            r.B[:] = S
            r.Q[:] = r.P
    r.r = 0
    return -1 if i != r.n else c


def fold(r):
    """Room in the log for a whole question: its oldest finished questions go into ``B``,
    keeping at least its newest half. Returns the log's new length."""
    n = r.n
    c = replay(r, n - 32)
    if c > 0:
        n -= c
        r.L[0:n] = r.L[c:c + n]
        r.n = n
    return n


def reset(r):
    """The game rebuilt from its log, and nothing being entered (after a fault)."""
    replay(r, _ALL)
    for i in range(_U_SLOTS):
        r.u[i] = 0
