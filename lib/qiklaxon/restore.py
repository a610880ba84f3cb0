"""Start-up only: the saved game back from nvm, or a new game (code.py drops this module after).

``restore(parts)`` takes hardware/start.py's parts, finds the newest valid
record in ``microcontroller.nvm`` (``Referee.save`` in core.py has the
format) and returns the ``Device``'s parts with the ``Referee`` among them. A
record's body (``Referee.save``) is: version 2, the 19-byte state ``B`` (which must
be one between questions: idle or over), ten 16-bit positions
(little-endian), then the log, replayed action by action through the rules
themselves. A damaged or foreign store gives a new game and a message; a
saved game whose player count or finish differs from settings.toml goes on,
and the message says the next new game takes the settings.
"""

import sys

from qiklaxon.core import check


def restore(p):
    """The ``Device``'s parts from hardware/start.py's: the referee added."""
    (k, b, o, snd, en, sw, px, led, sleeper, wd, f, t, n, q, fin, log, dice) = p
    r = None
    if b:
        from qiklaxon.core import Referee

        if dice is None:
            import random

            dice = random.randint
        r = Referee(n, q, fin, dice)
        saved = None
        try:
            import microcontroller

            m = microcontroller.nvm
            r.j, saved = find(m, log)
            i = len(m)  # not erased, and no record: something else
            while saved is None and i and m[i - 1] == 255:
                i -= 1
            if saved is None and i:
                print("nvm holds no valid saved game (damaged or foreign data): a new game "
                      "starts")
                f[7] = 8
        except (ImportError, AttributeError, TypeError) as e:
            print("no saved game here (%r): a power cut loses the game" % e)
            f[7] = 8
        if saved is not None:
            try:
                ok = load(r, saved)
            except Exception:  # whatever a record that checks can hold: it is not a game
                ok = False
            if ok:
                r.more(0).reset(r)
                S = r.S
                if S[0] != n or S[7] << 8 | S[8] != fin:
                    print("settings.toml: QK_PLAYERS = %d, QK_FINISH = %d; the saved game has "
                          "%d players and finish %d, and goes on; the next new game takes "
                          "QK_FINISH (its players are set at the table)"
                          % (n, fin, S[0], S[7] << 8 | S[8]))
            else:
                print("the saved game is damaged: a new game starts")
                f[7] = 8  # purple flashes: look at the console
                saved = None
                j = r.j
                r = Referee(n, q, fin, dice)
                r.j = j
        if f[7]:  # purple flashes for two seconds: look at the console
            t[1] = (t[0] + 2000) & 0x1FFFFFFF
        r.out(28 if saved is not None else 9)
        r.more()
    sys.modules.pop("qiklaxon.restore", None)
    if hasattr(sys.modules.get("qiklaxon"), "restore"):
        delattr(sys.modules["qiklaxon"], "restore")
    return (k, r, b, o, snd, en, sw, px, led, sleeper, wd, f, t)


def find(m, log):
    """(``Referee.j`` for nvm ``m`` with the layout ``log``, the newest valid record's
    body or None): [nvm, log?, the newest record's seq (-1: none) and start,
    where a log's erased tail starts]."""
    size = len(m)
    j = [m, log, -1, 0, 0]
    saved = None
    if log:  # the erased tail: after the last byte that is not 0xFF
        j[4] = size
        while j[4] and m[j[4] - 1] == 0xFF:
            j[4] -= 1
    skip = 0
    for at in range(j[4]) if log else (0, size // 2):
        if at < skip or m[at] != 0x51 or at + 7 > size or at + 7 + m[at + 3] > size:
            continue  # not a record's start: look from the next byte
        end = at + 7 + m[at + 3]
        raw = bytes(m[at:end])
        if raw[-1] or check(raw, end - at - 3) != raw[-3] << 8 | raw[-2]:
            continue  # torn or foreign
        seq = raw[1] << 8 | raw[2]
        if j[2] < 0 or 0 < (seq - j[2]) & 0xFFFF < 0x8000:
            j[2] = seq
            j[3] = at
            saved = raw[4:-3]
        skip = end
    return j, saved


def load(r, data):
    """Take a saved game (a record's body, ``Referee.save``) into ``r``; False if it is not a valid one."""
    k = len(data) - 40
    if k < 0 or k > 64 or data[0] != 2:
        return False
    B = r.B
    B[:] = data[1:20]
    n = B[0]
    c = B[4]
    d = B[5]
    if not 2 <= n <= 10 or B[1] >= n or B[2] % 3 or B[3] != 255 or (
            215 < B[6] < 255) or (B[7] << 8 | B[8]) > 9999 or (
            c & d != 255 and (c >= n or d >= n or c == d)):
        return False
    for s in range(10):
        v = data[20 + 2 * s] | data[21 + 2 * s] << 8
        r.Q[s] = v - 65536 if v > 32767 else v
        if B[9 + s] > 2 or s >= n and (B[9 + s] or v):
            return False
    r.L[:k] = data[40:]
    r.n = k
    return r.more(0).replay(r, 99) >= 0
