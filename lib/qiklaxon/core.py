"""The game and the referee at the table, as the board runs them: what stays in RAM.

Pure Python, no hardware. Small on purpose: the Circuit Playground Express has
~16 KB of heap for the whole firmware. This module holds every action and what a
question needs while answered (ask, answer, pass, the Klaxon), rolling and ending.
Six overlays, loaded one at a time when used (``more``): undo.py (undo, the log
replayed), reveal.py (marking answers, the Klaxon penalty), entry.py (moving a
piece), over.py (the end, a new game set up), save.py (the game into nvm), seats.py
(every position on the ring).
``game.Game`` is the readable API over it for tests and host tools (not on the board).

The game's state is ``S`` (bytearray; its slots: layout.py's PLAYERS to DID) and
``P`` (each seat's square, ``array('h')``).

Every accepted action goes into the log ``L`` (``n`` bytes, at most 64) as an op
code and its argument bytes; ``B``/``Q`` is the state before the log's first action,
always between questions. Undo replays ``B`` and the log less its last action:
exact by construction, across a new game and a power cut (``save()`` writes the
log). When an action between questions would leave less room than a whole question
takes, the oldest finished questions fold into ``B``: a Klaxon, an answer or a
reveal never waits for a fold.

``act(op, a, b, c, d)`` returns 0, or a refusal code and nothing has changed: 1 not
now (or nothing to undo), 2..6 the Klaxon's (see ``out``), 7 an argument the board
cannot take. It checks the rules (the phase, the Klaxon's turn) and what would break
the board (a seat or player count out of range); ``Game`` checks arguments for
people. Positions are 16 bits (``Game`` refuses a move past +-32767). The ops and
their arguments: layout.py's OP_ names.
"""

from array import array

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
_HOUSE = const(19)
_NONE = const(255)
_BETWEEN = const(0)
_ANSWERING = const(1)
_REVEAL = const(2)
_ENDED = const(3)
_ANSWERED = const(1)
_PASSED = const(2)
_U_SLOTS = const(7)
_WHAT = const(0)
_RIGHT = const(3)
_WRONG = const(4)
_CHALLENGER_PEN = const(5)
_CHALLENGED_PEN = const(6)
_PENALTY = const(1)
_BACKWARD = const(4)
_NEW_PLAYERS = const(5)
_OP_UNDO = const(0)
_OP_ROLL = const(1)
_OP_ASK = const(2)
_OP_ANSWER = const(3)
_OP_PASS = const(4)
_OP_KLAXON = const(5)
_OP_REVEAL = const(6)
_OP_MISS = const(7)
_OP_MOVE = const(8)
_OP_END = const(9)
_OP_NEW = const(10)
_LOG_SIZE = const(64)
_FOLD_AT = const(48)
_NOT_NOW = const(1)
_NOBODY_ANSWERED = const(2)
_NO_QUESTION = const(3)
_HAD_KLAXON = const(4)
_ALL_ANSWERED = const(5)
_GAME_OVER = const(6)
_BAD_ARG = const(7)
_KEY_A = const(1)
_KEY_A_HELD = const(2)
_KEY_A_2S = const(3)
_KEY_B = const(4)
_KEY_B_HELD = const(5)
_KEY_B_2S = const(6)
_REFUSED = const(0)
_TAKEN = const(1)
_UNDONE = const(2)
_DONE = const(3)
_TRY = const(2)
_W_REFUSED = const(5)
_W_KLAXON = const(6)
_W_UNDO = const(7)
_W_END = const(8)
_W_ROLL = const(16)
_W_AT = const(17)
_W_ASK = const(18)
_W_MISS = const(19)
_W_ANSWER = const(20)
_W_PASS = const(21)
_W_REVEAL = const(24)
_W_GAME_OVER = const(25)
_OV_UNDO = const(0)
_OV_REVEAL = const(1)
_OV_ENTRY = const(2)
_OV_OVER = const(3)
_OV_SAVE = const(4)
_OV_TIDY = const(6)
_OV_ROOM = const(4096)
_RIGHT_SQUARES = const(3)
# (end of the names)

_LEN = b"\x00\x02\x01\x01\x01\x01\x05\x01\x04\x01\x05"  # log bytes of each action (layout's OP_LOG_BYTES)


class Referee:
    """``Referee(players, first_qm, finish, dice)``: the first three are a new game's
    defaults too (finish 0: the QM ends the game); ``dice(1, 6)`` rolls a die. ``u``:
    what is being entered (layout.py's U_ slots); ``j``: where the game is saved.

    ``key(k)``: a key is what A or B did when let go:

    =========== ========================= ================== =====================
    key         between questions         answering          reveal
    =========== ========================= ================== =====================
    1 A         roll the dice             answer             this answer right
    2 A held    miss a go                 --                 --
    3 A held 2  move a piece              --                 --
    4 B         ask the question          pass               this answer wrong
    5 B held    undo                      undo               undo one mark
    6 B held 2  end the game              end the game       end the game
    =========== ========================= ================== =====================

    Once over, or before the first question, B held 2 sets up a game (over.py). A
    wrong answer by a Klaxon party asks for its penalty (reveal.py). Moving a piece:
    entry.py. B held steps back one step of an entry. A question everyone passed is
    over at once (``act``). The overlays (``more``) hold all but asking, answering,
    rolling, missing a go and the end.
    """

    def __init__(self, n, q=0, f=0, dice=None):
        # (one letter each: an attribute's name is interned on the Express, where longer
        # names measured +70 B of a whole game's heap, 14.48 of 14.5 KB: docs/develop.md)
        self.S = bytearray(_S_SLOTS)  # the state: layout.py's slots PLAYERS .. DID, HOUSE ..
        self.P = array("h", [0] * _SEATS)  # each seat's position
        self.B = bytearray(_S_SLOTS)  # the state and ...
        self.Q = array("h", [0] * _SEATS)  # ... the positions the log replays from (undo)
        self.L = bytearray(_LOG_SIZE + 5)  # the log of actions (+ the longest action)
        self.n = 0  # log bytes in use
        self.r = 1  # replaying: nothing is logged
        self.w = 0  # changed since the last save
        self.dice = dice
        self.new = (n, q, f)
        self.j = None
        self.u = [0] * _U_SLOTS
        self.S[_PHASE] = _ENDED
        self.act(_OP_NEW, n, q, f >> 8, f & 255)
        self.r = 0
        self.B[:] = self.S

    def act(self, op, a=0, b=0, c=0, d=0):
        """Take an action; 0, or the refusal code (and then nothing has changed)."""
        S = self.S
        if not op:  # undo
            return self.more(_OV_UNDO).undo(self)
        if op > _OP_MOVE:  # the end; a new game
            return self.over(op, a, b, c, d)
        n = S[_PLAYERS]
        ph = S[_PHASE]
        qm = S[_QM]
        s = S[_TURN]
        if op == _OP_KLAXON and ph != _ANSWERING:  # the refusal, by phase
            return (_NO_QUESTION, 0, _HAD_KLAXON if S[_CHALLENGER] < _NONE else _ALL_ANSWERED,
                    _GAME_OVER)[ph]
        if ph != (b"\x00\x00\x00\x01\x01\x01\x02\x00\x00"[op]):  # the phase each needs
            return _NOT_NOW  # (layout's OP_PHASE)
        w = s
        if op == _OP_KLAXON:  # the challenged: the most recent answer, passes skipped
            while True:
                w = (w or n) - 1
                if w == qm:
                    return _NOBODY_ANSWERED
                if S[_DID + w] == _ANSWERED:
                    break
        elif op == _OP_ROLL or op == _OP_MOVE:  # the QM by the white die; seat a by (b, c)
            w = qm
            v = a // 6 % 6 + 1
            if op == _OP_MOVE:
                w = a
                v = b << 8 | c
                v -= (v & 32768) << 1
            if w >= n:
                return _BAD_ARG
        self.log(op, a, b, c, d)
        if op == _OP_ASK:  # answering starts on the QM's left
            for w in range(n):
                S[_DID + w] = 0
            S[_CHALLENGER] = S[_CHALLENGED] = _NONE
            S[_PHASE] = _ANSWERING
            S[_TURN] = (qm + 1) % n
        elif op == _OP_REVEAL:  # right answers forward, the Klaxon parties' penalties back
            for w in range(n):
                v = self.P[w] + (_RIGHT_SQUARES if (a << 8 | b) >> w & 1 else 0) - (
                    c if w == S[_CHALLENGER] else 0) - (d if w == S[_CHALLENGED] else 0)
                self.P[w] = min(32767, max(-32767, v))
            S[_QM] = (qm + 1) % n  # the QM's turn ends: the dice pass left
            S[_PHASE] = _BETWEEN
        elif op > _OP_ASK and op < _OP_REVEAL:  # answer, pass, Klaxon; the turn moves left
            self.step(op, s, w)
        else:  # roll, miss a go, move
            if op == _OP_MISS:  # the dice pass left
                S[_QM] = (qm + 1) % n
            else:
                self.P[w] = min(32767, max(-32767, self.P[w] + v))
                if op == _OP_ROLL:
                    S[_ROLL] = a
        if op == _OP_ROLL or op > _OP_KLAXON:  # pieces moved: over once one reaches the finish
            for w in range(n):
                if S[_FINISH] | S[_FINISH_LO] and self.P[w] >= S[_FINISH] << 8 | S[_FINISH_LO]:
                    S[_PHASE] = _ENDED
                    S[_TURN] = _NONE
        return 0

    def over(self, op, a, b, c, d):
        """``act``'s end of the game, or a new one: once over, or before the first
        question (a new game: ``a`` players, ``b`` the first QM, ``c``, ``d`` the finish)."""
        S = self.S
        if (S[_PHASE] == _ENDED or op == _OP_NEW and not S[_PHASE] and not any(
                S[_DID:_HOUSE])) != (op == _OP_NEW):
            return _NOT_NOW
        if op == _OP_NEW and not (2 <= a <= _SEATS and b < a):
            return _BAD_ARG
        self.log(op, a, b, c, d)
        S[_PHASE] = _ENDED
        S[_TURN] = _NONE
        if op == _OP_NEW:
            for w in range(_HOUSE):  # (the house rules' slots: the game's, kept)
                S[w] = 0
                if w < _SEATS:
                    self.P[w] = 0
            S[_PLAYERS] = a
            S[_QM] = b
            S[_TURN] = S[_CHALLENGER] = S[_CHALLENGED] = S[_ROLL] = _NONE
            S[_FINISH] = c
            S[_FINISH_LO] = d
        return 0

    def step(self, op, s, w):
        """``act``'s answer, pass or Klaxon by seat ``s`` (the Klaxon's challenged: ``w``):
        the turn moves left, to the QM's right at most; there the answers are revealed."""
        S = self.S
        n = S[_PLAYERS]
        qm = S[_QM]
        S[_DID + s] = _PASSED if op == _OP_PASS else _ANSWERED
        if op == _OP_KLAXON:
            S[_CHALLENGER] = s
            S[_CHALLENGED] = w
        while True:
            s = (s + 1) % n
            if s == qm:
                S[_TURN] = _NONE
                S[_PHASE] = _REVEAL
                if S.find(b"\x01", _DID, _HOUSE) < 0:  # all passed: over, the dice pass left
                    S[_QM] = (qm + 1) % n
                    S[_PHASE] = _BETWEEN
                break
            if op < _OP_KLAXON:
                S[_TURN] = s
                break
            S[_DID + s] = _PASSED  # a Klaxon: everyone not asked yet has passed

    def log(self, op, a, b, c, d):
        """Log an action (not while replaying); between questions, room for a whole
        question first (16 bytes)."""
        if self.r:
            return
        self.w = 1  # the game changed: a save is due
        i = self.n
        if i > _FOLD_AT and (op < _OP_ANSWER or op > _OP_REVEAL):
            i = self.more(_OV_UNDO).fold(self)
        L = self.L
        L[i] = op
        L[i + 1] = a
        L[i + 2] = b
        L[i + 3] = c
        L[i + 4] = d
        self.n = i + _LEN[op]

    def out(self, i, *a):
        """A console line: word ``i`` and the numbers ``a`` ("refused": the reason, by number)."""
        w = ("nobody has answered yet" "no question running" "this question already had its "
             "Klaxon" "everyone has answered" "the game is over" "refused" "klaxon" "undo"
             "end" "new" "players" "first" "seat" "count" "penalty" "move" "roll" "at" "ask"
             "miss" "answer" "pass" "right" "wrong" "reveal" "game over" "back" "unmark"
             "resumed")
        o = (b"\x00\x17\x2a\x4e\x63\x73\x7a\x80\x84\x87\x8a\x91\x96\x9a\x9f\xa6\xaa\xae\xb0"
             b"\xb3\xb7\xbd\xc1\xc6\xcb\xd1\xda\xde\xe4\xeb")  # where each word ends in w
        if i == _W_REFUSED:  # the reason: refusal 2 is word 0
            a = (w[o[a[0] - 2]:o[a[0] - 1]],)
        print(w[o[i]:o[i + 1]], *a)
        if i in b"\x07\x08\x09\x0f\x10\x18\x1c":  # then where every seat stands (layout's
            print(w[o[_W_AT]:o[_W_AT + 1]], *self.P[:self.S[_PLAYERS]])  # W_THEN_AT) ...
            if self.S[_PHASE] == _ENDED:  # ... and whether the game is over
                print(w[o[_W_GAME_OVER]:o[_W_GAME_OVER + 1]])

    def key(self, k):
        """Key ``k`` (0: the Klaxon): what became of it, 0 refused (nothing changed), 1
        taken, 2 something taken back, 3 a position or the QM changed; the Klaxon: 1
        taken, 2 a try before the first question (it counts for nothing). tools/gen/card.py
        says it all for people; what each key does in each phase: the class's table.
        """
        S = self.S
        u = self.u
        ph = S[_PHASE]
        m = u[_WHAT]
        if not k:  # the Klaxon
            k = self.act(_OP_KLAXON)
            if k == _NO_QUESTION and not any(S[_DID:_HOUSE]):  # no question yet: a try
                return _TRY
            if k:
                self.out(_W_REFUSED, k)
                return _REFUSED
            self.out(_W_KLAXON, S[_CHALLENGER], S[_CHALLENGED])
            return _TAKEN
        if k == _KEY_B_HELD and not m and not (ph == _REVEAL and u[_RIGHT] | u[_WRONG]):
            u[_RIGHT] = u[_WRONG] = u[_CHALLENGER_PEN] = u[_CHALLENGED_PEN] = 0
            if self.act(_OP_UNDO):
                return _REFUSED
            self.out(_W_UNDO)
            if u[_RIGHT] | u[_WRONG]:  # a reveal taken back: then its last mark
                self.more(_OV_REVEAL).key(self, k)
            k = _UNDONE
        elif k == _KEY_B_2S and m < _NEW_PLAYERS and ph != _ENDED and (ph or any(S[_DID:_HOUSE])):
            u[_WHAT] = 0  # the end
            self.act(_OP_END)
            self.out(_W_END)
            k = _DONE
        elif m == _PENALTY or not m and ph == _REVEAL:  # the reveal's marks, a penalty
            k = self.more(_OV_REVEAL).key(self, k)
        elif m or k == _KEY_B_2S or k == _KEY_A_2S and not ph:  # entries: a move, a set-up
            if self.n > _FOLD_AT:  # room in the log first: the entry's action never folds
                self.more(_OV_UNDO).fold(self)
            k = self.more(_OV_OVER if m > _BACKWARD or k == _KEY_B_2S else _OV_ENTRY).key(
                self, k)
        elif ph > _ANSWERING or k > _KEY_B or k == _KEY_A_2S or ph and k == _KEY_A_HELD:
            return _REFUSED  # nothing for it now
        elif ph:
            self.out(_W_ANSWER if k == _KEY_A else _W_PASS, S[_TURN])
            self.act(_OP_ANSWER if k == _KEY_A else _OP_PASS)
            k = _TAKEN
            if not S[_PHASE]:  # everyone passed
                self.out(_W_REVEAL)
                k = _DONE
        elif k == _KEY_A:
            a = self.dice(1, 6)
            b = self.dice(1, 6)
            c = self.dice(1, 6)
            self.act(_OP_ROLL, a * 36 + b * 6 + c - 43)
            self.out(_W_ROLL, a, b, c)
            k = _DONE
        elif k == _KEY_B:
            self.act(_OP_ASK)
            u[_RIGHT] = u[_WRONG] = u[_CHALLENGER_PEN] = u[_CHALLENGED_PEN] = 0
            self.out(_W_ASK, S[_QM])
            k = _TAKEN
        else:  # A held: miss a go
            self.out(_W_MISS, S[_QM])
            self.act(_OP_MISS)
            k = _DONE
        self.more()
        return k

    def more(self, k=_OV_TIDY):
        """Overlay ``k`` (layout.py's OV_), loaded, the others dropped first: one at most
        in RAM. ``more()``: drop those the state does not need now."""
        import sys

        S = self.S
        u = self.u[_WHAT]
        for i in range(_OV_TIDY):
            n = ("undo", "reveal", "entry", "over", "save", "seats")[i]
            if i != k and (k < _OV_TIDY or not (
                    i == _OV_REVEAL and S[_PHASE] == _REVEAL or
                    i == _OV_ENTRY and _PENALTY < u < _NEW_PLAYERS or
                    i == _OV_OVER and (S[_PHASE] == _ENDED or u > _BACKWARD))):
                sys.modules.pop("qiklaxon." + n, None)
                if hasattr(sys.modules["qiklaxon"], n):
                    delattr(sys.modules["qiklaxon"], n)
        if k < _OV_TIDY:
            n = "qiklaxon." + ("undo", "reveal", "entry", "over", "save", "seats")[k]
            if n not in sys.modules:
                import gc

                if (not __debug__ or hasattr(gc, "mem_free")) and gc.mem_free() < _OV_ROOM:
                    # (CPython has no mem_free; the Express's -O3 build drops the question)
                    gc.collect()  # a nearly full heap: the garbage first, so the bytecode
                    # gets whole runs of free blocks, not gaps a mid-load collection leaves
            return __import__(n, None, None, ("key",))

    def save(self):
        """The game into nvm as the newest record (qiklaxon/restore.py reads them back):

            0x51 'Q' | seq (2 bytes, big-endian) | length | body | Fletcher-16 (2) | 0x00

        The body: version 3, how many state slots follow (``S_SLOTS``), ``B``, ``Q``
        (little-endian), the log (restore.py also reads version 2, the firmware's before:
        no count, 19 slots). ``j``: layout.py's J_ slots. A record whose check fails (a torn write) is ignored; the newest valid
        one is the saved game. The final 0x00: a record never ends in erased-looking
        bytes. Two layouts, by how the port writes flash:

        log (RP2040: one 4 KB sector; CircuitPython skips the erase when the bytes
        written are still 0xFF): records are appended into erased space, so a save
        erases nothing. A full sector is rewritten with the newest record only (one
        erase): a power cut then (once in ~50 saves) loses the saved game.

        ping-pong (nRF52840: two 4 KB pages, every write erases its page; SAMD21: 256
        bytes): each save goes to the half without the newest record, so a cut leaves
        the other, at worst one save back. The SAMD21's halves share one 256-byte row:
        a cut during its erase can lose both.
        """
        self.more(_OV_SAVE).save(self)


def check(d, n):
    """Fletcher-16 of ``d[0:n]``: two additions a byte (a CRC would block the loop longer)."""
    a = b = 0
    for i in range(n):
        a = (a + d[i]) % 255
        b = (b + a) % 255
    return b << 8 | a
