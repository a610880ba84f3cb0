"""Saving the game: an overlay of qiklaxon/core.py, loaded a second after an action.

``Referee.save()`` (core.py has the format). Not in the core: between saves its
bytecode is out of RAM, and it is small, so a save never needs a key overlay's RAM.
"""

from qiklaxon.core import check

if __debug__:  # CPython needs const; the Express's mpy-cross -O3 drops this import
    from micropython import const

# names: made by tools/gen/consts.py from model/layout.py (python3 tools/dev.py regen)
_S_SLOTS = const(19)
_J_NVM = const(0)
_J_LOG = const(1)
_J_SEQ = const(2)
_J_AT = const(3)
_J_TAIL = const(4)
_MAGIC = const(81)
_R_SEQ = const(1)
_R_LEN = const(3)
_R_BODY = const(4)
_R_MORE = const(7)
_VERSION = const(3)
_BODY_NB = const(1)
_BODY_B = const(2)
_BODY_Q = const(21)
_BODY_LOG = const(41)
# (end of the names)


def save(r):
    """``Referee.save()``: the game into nvm as the newest record."""
    j = r.j
    d = record(r, (j[_J_SEQ] + 1) & 0xFFFF)
    n = len(d)
    size = len(j[_J_NVM])
    if not j[_J_LOG]:  # ping-pong: the half without the newest record
        i = size // 2 if j[_J_AT] == 0 and j[_J_SEQ] >= 0 else 0
    elif j[_J_TAIL] + n <= size:  # log: append in the erased tail
        i = j[_J_TAIL]
    else:  # log full: the sector anew, holding only this record
        i = 0
        d.extend(b"\xff" * (size - n))
    j[_J_NVM][i:i + len(d)] = d
    r.w = 0
    j[_J_SEQ] = d[_R_SEQ] << 8 | d[_R_SEQ + 1]
    j[_J_AT] = i
    j[_J_TAIL] = i + n


def record(r, q):
    """Referee ``r``'s game as a record, sequence number ``q``. (Apart from ``save``: an
    overlay's bytecode is one run of heap blocks a function, and two short runs fit the
    holes of a nearly full heap where one long one may not.)"""
    n = _BODY_LOG + r.n  # the body's length
    d = bytearray(n + _R_MORE)
    d[0] = _MAGIC
    d[_R_SEQ] = q >> 8
    d[_R_SEQ + 1] = q & 255
    d[_R_LEN] = n
    d[_R_BODY] = _VERSION
    data(d, r, n)
    return d


def data(d, r, n):
    """The body of record ``d`` from Referee ``r`` (``n`` bytes), and its check. (Apart
    from ``record``, as ``record`` is from ``save``: shorter runs of heap blocks.)"""
    d[_R_BODY + _BODY_NB] = _S_SLOTS  # the state's slots, then the state
    d[_R_BODY + _BODY_B:_R_BODY + _BODY_Q] = r.B
    # each seat's square, 2 bytes little-endian: an array('h')'s own bytes on every port
    # (Cortex-M, RP2040, x86 and WebAssembly are little-endian)
    d[_R_BODY + _BODY_Q:_R_BODY + _BODY_LOG] = bytes(r.Q)
    d[_R_BODY + _BODY_LOG:n + _R_BODY] = r.L[:r.n]
    i = check(d, n + _R_BODY)  # the check follows the body
    d[n + _R_BODY] = i >> 8
    d[n + (_R_BODY + 1)] = i & 255
