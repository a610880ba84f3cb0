"""Start-up only: the saved game back from nvm, or a new game (code.py drops this module after).

The newest valid record in ``microcontroller.nvm`` (core.py's ``Referee.save``
has the format); its log is replayed through the rules themselves. A damaged or
foreign store gives a new game and a message; a saved game whose players or finish
differ from settings.toml goes on; the next new game takes the settings.
"""

import sys

from qiklaxon.core import check

if __debug__:  # CPython needs const; the Express's mpy-cross -O3 drops this import
    from micropython import const

# The names of the numbers: made by tools/consts.py from lib/qiklaxon/layout.py (edit there,
# then: python3 tools/dev.py regen). The names this module uses, at no RAM cost.
# The referee's state: Referee.S (bytearray), and B, its copy before the log
_PLAYERS = const(0)  # players (2..10)
_QM = const(1)  # seat of the Question Master
_PHASE = const(2)  # the phase (below)
_TURN = const(3)  # seat answering now (NONE: none)
_CHALLENGER = const(4)  # the Klaxon's challenger (NONE: none); kept until the next ask
_CHALLENGED = const(5)  # ... and the challenged
_ROLL = const(6)  # last roll: (red-1)*36 + (white-1)*6 + (blue-1) (NONE: none)
_FINISH = const(7)  # 7, 8: the square that ends the game, big-endian (0: the QM ends it)
_FINISH_LO = const(8)
_DID = const(9)  # 9 + seat: what each seat did this question (below)
_SEATS = const(10)  # seats at most (Referee.P, Q: each seat's square)
_NONE = const(255)  # no seat, no roll, no sound, a button up
# What a seat did (S[DID + seat])
_PASSED = const(2)
# The phase each op up to OP_MOVE needs (OP_END: not ENDED; OP_NEW: ENDED)
_LOG_SIZE = const(64)  # log bytes at most (Referee.L holds 5 more: the longest op)
_ALL = const(99)  # past any log: undo.py's replay(r, ALL) keeps B as it is
# Console words (Referee.out(word, numbers...)); tools/events.py reads the lines
_W_NEW = const(9)
_W_RESUMED = const(28)
# Overlays (Referee.more(overlay)); one in RAM at a time
_OV_UNDO = const(0)  # qiklaxon/undo.py
# The saved game: Referee.j (list, 5)
_J_SEQ = const(2)  # seq of the newest record (-1: none)
_J_AT = const(3)  # where it starts
_J_TAIL = const(4)  # where a log's erased tail starts
# A record: MAGIC | seq (2, big-endian) | length | body | Fletcher-16 (2) | 0x00
_MAGIC = const(81)  # 'Q'
_R_SEQ = const(1)
_R_LEN = const(3)
_R_BODY = const(4)  # the body: VERSION, B, Q (little-endian), the log
_R_MORE = const(7)  # a record's bytes besides its body
_VERSION = const(2)
_BODY_B = const(1)
_BODY_Q = const(20)
_BODY_LOG = const(40)
# The Device's parts (Device.p): hardware/device.py's _K ... and f, t
_R = const(1)  # the referee (qiklaxon.core.Referee), or None: a pure Klaxon
_BUT = const(2)  # buttons A, B: each (DigitalInOut, level released, keys ladder, ms held for each)
_FLAGS = const(11)  # Device.f
_TIMES = const(12)  # Device.t
# ... and start-up's, outputs.py's for qiklaxon/restore.py: the Device's above (R: None),
_GAME_V = const(13)  # the settings (QK_ indexes: the players, the finish, the house rules)
_GAME_QM = const(14)  # the first QM's seat (QK_FIRST_QM, checked against the players)
_GAME_NVM = const(15)  # the saved game's layout (the profile's P_NVM)
_GAME_DICE = const(16)  # dice(1, 6) rolls a die, or None: random.randint
# Flags and small values (Device.f, bytearray)
_FL = const(7)  # the ring flashes colours a | b << 4 (0: no flash)
# Times (ticks) and numbers (Device.t, list)
_KT = const(0)  # the Klaxon's last edge
_FLT = const(1)  # the flash ends
_TICKS = const(0x1FFFFFFF)  # ticks_ms() wraps at 2**29: (now + ms) & TICKS is ticks_add
# Colours (a pixel's: colour | second colour << 4): Okabe-Ito, white, a dim grey, the red
_PURPLE = const(8)
# The settings (hardware/settings.py's read(): values in the order of its KEYS)
_QK_PLAYERS = const(1)
_QK_FINISH = const(3)
# (end of the made names)


def restore(p):
    """The ``Device``'s parts from hardware/start.py's: the referee added."""
    f = p[_FLAGS]
    v = p[_GAME_V]  # the settings
    n = v[_QK_PLAYERS]
    fin = v[_QK_FINISH]
    r = None
    if p[_BUT]:
        from qiklaxon.core import Referee

        dice = p[_GAME_DICE]
        if dice is None:
            import random

            dice = random.randint
        r = Referee(n, p[_GAME_QM], fin, dice)
        saved = None
        try:
            import microcontroller

            m = microcontroller.nvm
            r.j, saved = find(m, p[_GAME_NVM])
            i = len(m)  # not erased, and no record: something else
            while saved is None and i and m[i - 1] == 255:
                i -= 1
            if saved is None and i:
                print("nvm holds no valid saved game (damaged or foreign data): a new game "
                      "starts")
                f[_FL] = _PURPLE
        except (ImportError, AttributeError, TypeError) as e:
            print("no saved game here (%r): a power cut loses the game" % e)
            f[_FL] = _PURPLE
        if saved is not None:
            try:
                ok = load(r, saved)
            except Exception:  # whatever a record that checks can hold: it is not a game
                ok = False
            if ok:
                r.more(_OV_UNDO).reset(r)
                S = r.S
                if S[_PLAYERS] != n or S[_FINISH] << 8 | S[_FINISH_LO] != fin:
                    print("settings.toml: QK_PLAYERS = %d, QK_FINISH = %d; the saved game has "
                          "%d players and finish %d, and goes on; the next new game takes "
                          "QK_FINISH (its players are set at the table)"
                          % (n, fin, S[_PLAYERS], S[_FINISH] << 8 | S[_FINISH_LO]))
            else:
                print("the saved game is damaged: a new game starts")
                f[_FL] = _PURPLE  # purple flashes: look at the console
                saved = None
                j = r.j
                r = Referee(n, p[_GAME_QM], fin, dice)
                r.j = j
        if f[_FL]:  # purple flashes for two seconds (from now: every time starts now): look
            t = p[_TIMES]  # at the console
            t[_FLT] = (t[_KT] + 2000) & _TICKS
        r.out(_W_RESUMED if saved is not None else _W_NEW)
        r.more()
    sys.modules.pop("qiklaxon.restore", None)
    if hasattr(sys.modules.get("qiklaxon"), "restore"):
        delattr(sys.modules["qiklaxon"], "restore")
    return p[:_R] + (r,) + p[_R + 1:_TIMES + 1]  # the Device's parts, the referee in them


def find(m, log):
    """(``Referee.j`` for nvm ``m`` in layout ``log``, the newest valid record's body or
    None)."""
    size = len(m)
    j = [m, log, -1, 0, 0]
    saved = None
    if log:  # the erased tail: after the last byte that is not 0xFF
        j[_J_TAIL] = size
        while j[_J_TAIL] and m[j[_J_TAIL] - 1] == 0xFF:
            j[_J_TAIL] -= 1
    skip = 0
    for at in range(j[_J_TAIL]) if log else (0, size // 2):
        if at < skip or m[at] != _MAGIC or at + _R_MORE > size or (
                at + _R_MORE + m[at + _R_LEN] > size):
            continue  # not a record's start: look from the next byte
        end = at + _R_MORE + m[at + _R_LEN]
        raw = bytes(m[at:end])  # (its last 3 bytes: the check, 0x00)
        if raw[-1] or check(raw, end - at - 3) != raw[-3] << 8 | raw[-2]:
            continue  # torn or foreign
        seq = raw[_R_SEQ] << 8 | raw[_R_SEQ + 1]
        if j[_J_SEQ] < 0 or 0 < (seq - j[_J_SEQ]) & 0xFFFF < 0x8000:
            j[_J_SEQ] = seq
            j[_J_AT] = at
            saved = raw[_R_BODY:-3]
        skip = end
    return j, saved


def load(r, data):
    """A saved game (a record's body) into ``r``; False if it is not a valid one."""
    k = len(data) - _BODY_LOG  # the log's length
    if k < 0 or k > _LOG_SIZE or data[0] != _VERSION:
        return False
    B = r.B
    B[:] = data[_BODY_B:_BODY_Q]
    n = B[_PLAYERS]
    c = B[_CHALLENGER]
    d = B[_CHALLENGED]
    # between questions or over (phase 0 or 3), nobody answering, a roll that dice make
    # (215: three sixes), a finish that QK_FINISH can be, the Klaxon's parties both or neither
    if not 2 <= n <= _SEATS or B[_QM] >= n or B[_PHASE] % 3 or B[_TURN] != _NONE or (
            215 < B[_ROLL] < _NONE) or (B[_FINISH] << 8 | B[_FINISH_LO]) > 9999 or (
            c & d != _NONE and (c >= n or d >= n or c == d)):
        return False
    for s in range(_SEATS):
        v = data[_BODY_Q + 2 * s] | data[(_BODY_Q + 1) + 2 * s] << 8
        r.Q[s] = v - 65536 if v > 32767 else v
        if B[_DID + s] > _PASSED or s >= n and (B[_DID + s] or v):
            return False
    r.L[:k] = data[_BODY_LOG:]
    r.n = k
    return r.more(_OV_UNDO).replay(r, _ALL) >= 0
