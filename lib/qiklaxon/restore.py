"""Start-up only: the saved game back from nvm, or a new game (code.py drops this module after).

The newest valid record in ``microcontroller.nvm`` (core.py's ``Referee.save``
has the format); its log is replayed through the rules themselves. A damaged or
foreign store gives a new game and a message; a saved game whose players or finish
differ from settings.toml goes on; the next new game takes the settings. A saved game
goes on across an update (core.py's state gains a house rule's slot: the record says
how many it holds); a newer firmware's game goes on here only if its house rules are at
the rules' own, else it is said and left in the flash for that firmware.
"""

import sys

from qiklaxon.core import check

if __debug__:  # CPython needs const; the Express's mpy-cross -O3 drops this import
    from micropython import const

# names: made by tools/gen/consts.py from model/layout.py (python3 tools/dev.py regen)
_S_SLOTS = const(19)
_PLAYERS = const(0)
_QM = const(1)
_PHASE = const(2)
_TURN = const(3)
_CHALLENGER = const(4)
_CHALLENGED = const(5)
_ROLL = const(6)
_FINISH = const(7)
_FINISH_LO = const(8)
_DID = const(9)
_SEATS = const(10)
_NONE = const(255)
_PASSED = const(2)
_LOG_SIZE = const(64)
_ALL = const(99)
_W_NEW = const(9)
_W_RESUMED = const(28)
_OV_UNDO = const(0)
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
_V2 = const(2)
_V2_SLOTS = const(19)
_R = const(1)
_BUT = const(2)
_FLAGS = const(11)
_TIMES = const(12)
_GAME_V = const(13)
_GAME_QM = const(14)
_GAME_NVM = const(15)
_GAME_DICE = const(16)
_FL = const(7)
_KT = const(0)
_FLT = const(1)
_TICKS = const(0x1FFFFFFF)
_PURPLE = const(8)
_QK_PLAYERS = const(1)
_QK_FINISH = const(3)
# (end of the names)


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
                ok = 0
            if ok == 1:
                r.more(_OV_UNDO).reset(r)
                S = r.S
                if S[_PLAYERS] != n or S[_FINISH] << 8 | S[_FINISH_LO] != fin:
                    print("settings.toml: QK_PLAYERS = %d, QK_FINISH = %d; the saved game has "
                          "%d players and finish %d, and goes on; the next new game takes "
                          "QK_FINISH (its players are set at the table)"
                          % (n, fin, S[_PLAYERS], S[_FINISH] << 8 | S[_FINISH_LO]))
            else:
                if not ok:  # (2: a newer firmware's game, said)
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
    """A saved game (a record's body) into ``r``: True, else False if it is not a valid
    one, or 2 (said) if it holds state slots past this firmware's that play a house rule
    (a newer firmware's: this one cannot replay its log as it was played). Slots it lacks
    (a rule added since it was saved) are 0: the rules' own, as the game was played (its
    log replays so), whatever settings.toml now says; extra slots at 0 are dropped."""
    if data and data[0] == _V2:  # VERSION 2: VERSION 3 with its V2_SLOTS slots unsaid
        data = bytes((_VERSION, _V2_SLOTS)) + data[1:]
    b = data[_BODY_NB] if len(data) > _BODY_NB else 0  # the record's state slots
    q = _BODY_B + b  # where its Q starts
    k = len(data) - q - 2 * _SEATS  # the log's length
    if b < _V2_SLOTS or k < 0 or k > _LOG_SIZE or data[0] != _VERSION:
        return 0
    B = r.B
    B[:] = bytes(_S_SLOTS)
    B[:min(b, _S_SLOTS)] = data[_BODY_B:_BODY_B + min(b, _S_SLOTS)]
    n = B[_PLAYERS]
    c = B[_CHALLENGER]
    d = B[_CHALLENGED]
    # between questions or over (phase 0 or 3), nobody answering, a roll that dice make
    # (215: three sixes), a finish that QK_FINISH can be, the Klaxon's parties both or neither
    if not 2 <= n <= _SEATS or B[_QM] >= n or B[_PHASE] % 3 or B[_TURN] != _NONE or (
            215 < B[_ROLL] < _NONE) or (B[_FINISH] << 8 | B[_FINISH_LO]) > 9999 or (
            c & d != _NONE and (c >= n or d >= n or c == d)):
        return 0
    for s in range(_SEATS):
        v = data[q + 2 * s] | data[q + 1 + 2 * s] << 8
        r.Q[s] = v - 65536 if v > 32767 else v
        if B[_DID + s] > _PASSED or s >= n and (B[_DID + s] or v):
            return 0
    if any(data[_BODY_B + _S_SLOTS:q]):  # (0: a house rule at the rules' own)
        # its log replays only by rules this firmware lacks: played on, it would rescore
        print("the saved game holds %d state slots, this firmware %d: it was played with a "
              "newer firmware's house rules, which this one cannot replay; a new game starts "
              "(put that firmware back before playing on, to keep the game)" % (b, _S_SLOTS))
        return 2
    r.L[:k] = data[q + 2 * _SEATS:]
    r.n = k
    return r.more(_OV_UNDO).replay(r, _ALL) >= 0
