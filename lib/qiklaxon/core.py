"""The game and the referee at the table, as the board runs them: what stays in RAM.

Pure Python for CircuitPython, MicroPython and CPython; no hardware. Small on
purpose: the Circuit Playground Express has ~16 KB of heap for the whole
firmware, bytecode and names included. So this module holds every action
and what a question needs while it is answered (asking, answering, passing,
the Klaxon), rolling, ending and saving. Three overlays, loaded when used
and dropped again, one at a time (``more``): qiklaxon/undo.py (undo, and
the log replayed), qiklaxon/reveal.py (marking the answers, the Klaxon
penalty), qiklaxon/entry.py (moving a piece), qiklaxon/over.py (the end on
the ring, setting up a new game). ``game.Game`` is the readable API over all of it for
tests and host tools (the board does not carry that).

The game's state is ``S`` (bytearray) and ``P`` (positions):

  ====== ======================================================
  S[0]   players (2..10)
  S[1]   seat of the Question Master
  S[2]   phase: 0 idle (between questions), 1 answering, 2 reveal, 3 over
  S[3]   seat answering now (255: none)
  S[4]   challenger, S[5] challenged (255: none); kept until the next ask
  S[6]   last roll: (red-1)*36 + (white-1)*6 + (blue-1) (255: none)
  S[7:9] the square that ends the game, big-endian (0: the QM ends it)
  S[9:]  what each seat did this question: 0 not yet, 1 answered, 2 passed
  P      each seat's square (``array('h')``, 10)
  ====== ======================================================

Every accepted action goes into the log ``L`` (``n`` bytes of at most 64) as
an op code and its argument bytes; ``B``/``Q`` is the state before the log's
first action, always between questions. Undo replays ``B`` and the log less
its last action: exact by construction, across an ended game and a new one,
and after a power cut (the log is what ``save()`` writes). When an
action between questions would leave less room than a whole question takes,
the oldest finished questions are folded into ``B``, so a Klaxon, an answer
or a reveal never waits for a fold.

``act(op, a, b, c, d)`` takes an action and its argument bytes and returns 0,
or a refusal code, and then nothing has changed: 1 not now (or nothing to
undo), 2..6 the Klaxon's (see ``out``), 7 an argument the board cannot take.
It checks what the rules decide (the phase, the Klaxon's turn) and what
would break the board (a seat or player count out of range); the arguments
come from this referee or from ``Game``, which checks them for people.
Positions are 16 bits: no game comes near +-32767 (``Game`` refuses a move
past it). Ops: 0 undo, 1 roll (the dice code), 2 ask, 3 answer, 4 pass,
5 Klaxon, 6 reveal (seats right as 16 bits, the challenger's penalty, the
challenged's), 7 miss a go, 8 move (seat, squares as 16 bits), 9 end,
10 new game (players, first QM, finish as 16 bits).
"""

from array import array

_LEN = b"\x00\x02\x01\x01\x01\x01\x05\x01\x04\x01\x05"  # log bytes of each action


class Referee:
    """The game at the table: ``Referee(players, first_qm, finish, dice)``; the first
    three are a new game's defaults too (finish 0: the QM ends the game), and
    ``dice(1, 6)`` rolls a die.

    ``u`` is what is being entered: [what (0 nothing, 1 a Klaxon penalty for seat
    u[2], 2 which seat to move, 3 and 4 how far forward or back, 5 a new game's
    players, 6 its first QM), the count, the seat, seats marked right in the
    reveal (bits), marked wrong, the challenger's penalty, the challenged's].
    ``j`` is where the game is saved (``save``)."""

    def __init__(self, n, q=0, f=0, dice=None):
        self.S = bytearray(19)
        self.P = array("h", [0] * 10)
        self.B = bytearray(19)
        self.Q = array("h", [0] * 10)
        self.L = bytearray(69)
        self.n = 0  # log bytes in use
        self.r = 1  # replaying: nothing is logged
        self.w = 0  # changed since the last save
        self.dice = dice
        self.new = (n, q, f)
        self.j = None
        self.u = [0] * 7
        self.S[2] = 3
        self.act(10, n, q, f >> 8, f & 255)  # the game: as a new game
        self.r = 0
        self.B[:] = self.S

    def act(self, op, a=0, b=0, c=0, d=0):
        """Take an action; 0, or the refusal code (and then nothing has changed)."""
        S = self.S
        if not op:  # undo
            return self.more(0).undo(self)
        if op > 8:  # the end; a new game (players, first QM, finish as 16 bits)
            if (S[2] == 3) != (op == 10):
                return 1
            if op == 10 and not (2 <= a <= 10 and b < a):
                return 7
            self.log(op, a, b, c, d)
            S[2] = 3
            S[3] = 255
            if op == 10:
                for w in range(19):
                    S[w] = 0
                    if w < 10:
                        self.P[w] = 0
                S[0] = a
                S[1] = b
                S[3] = S[4] = S[5] = S[6] = 255
                S[7] = c
                S[8] = d
            return 0
        n = S[0]
        ph = S[2]
        qm = S[1]
        s = S[3]
        if op == 5 and ph != 1:
            return (3, 0, 4 if S[4] < 255 else 5, 6)[ph]  # no question; had it; all in; over
        if ph != (b"\x00\x00\x00\x01\x01\x01\x02\x00\x00"[op]):  # the phase each needs
            return 1
        w = s
        if op == 5:  # the challenged: the most recent answer, passes skipped
            while True:
                w = (w or n) - 1
                if w == qm:
                    return 2  # nobody has answered yet
                if S[9 + w] == 1:
                    break
        elif op == 1 or op == 8:  # the QM moves by the white die; seat a by (b, c) squares
            w = qm
            v = a // 6 % 6 + 1
            if op == 8:
                w = a
                v = b << 8 | c
                v -= (v & 32768) << 1
            if w >= n:
                return 7
        self.log(op, a, b, c, d)
        if op == 2:  # ask: answering starts on the QM's left
            for w in range(n):
                S[9 + w] = 0
            S[4] = S[5] = 255
            S[2] = 1
            S[3] = (qm + 1) % n
        elif op == 6:  # the reveal: right answers forward 3, the Klaxon parties' penalties back
            for w in range(n):  # (positions stop at +-32767: 16 bits)
                v = self.P[w] + (3 if (a << 8 | b) >> w & 1 else 0) - (c if w == S[4] else 0) - (
                    d if w == S[5] else 0)
                self.P[w] = min(32767, max(-32767, v))
            S[1] = (qm + 1) % n  # the QM's turn ends: the dice pass left
            S[2] = 0
        elif op > 2 and op < 6:  # answer, pass, Klaxon: mark the answerer; the turn moves left
            S[9 + s] = 2 if op == 4 else 1
            if op == 5:
                S[4] = s
                S[5] = w
            while True:
                s = (s + 1) % n
                if s == qm:
                    S[3] = 255
                    S[2] = 2
                    break
                if op < 5:
                    S[3] = s
                    break
                S[9 + s] = 2  # a Klaxon: everyone not asked yet has passed
        else:  # roll, miss a go, move
            if op == 7:  # miss a go: the dice pass left
                S[1] = (qm + 1) % n
            else:
                self.P[w] = min(32767, max(-32767, self.P[w] + v))
                if op == 1:
                    S[6] = a
        if op == 1 or op > 5:  # pieces moved: the game is over once one reaches the finish
            for w in range(n):
                if S[7] | S[8] and self.P[w] >= S[7] << 8 | S[8]:
                    S[2] = 3
                    S[3] = 255
        return 0

    def log(self, op, a, b, c, d):
        """Append an action to the log (not while replaying); between questions,
        make room for a whole question first (16 bytes)."""
        if self.r:
            return
        self.w = 1  # the game changed: a save is due
        i = self.n
        if i > 48 and (op < 3 or op > 6):
            i = self.more(0).fold(self)
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
        if i == 5:
            a = (w[o[a[0] - 2]:o[a[0] - 1]],)
        print(w[o[i]:o[i + 1]], *a)
        if i in b"\x07\x08\x09\x0f\x10\x18\x1c":  # then where every seat stands ...
            print(w[o[17]:o[18]], *self.P[:self.S[0]])
            if self.S[2] == 3:  # ... and whether the game is over
                print(w[o[25]:o[26]])

    def key(self, k):
        """Key ``k`` (0: the Klaxon, for whoever's turn it is): True when taken.

        A key is what button A or B did when let go (the device sends it then, or
        when another press lets go of it first, so presses count in the order made):

        =========== ========================= ================== =====================
        key         between questions         answering          reveal
        =========== ========================= ================== =====================
        1 A         roll the dice             answer             this answer right
        2 A held    miss a go                 --                 --
        3 A held 2s move a piece              --                 --
        4 B         ask the question          pass               this answer wrong
        5 B held    undo                      undo               undo one mark
        6 B held 2s end the game              end the game       end the game
        =========== ========================= ================== =====================

        Once the game is over, B held 2 s starts a new one: A counts the players, B
        goes on to the first QM, A walks the seats, B starts. A wrong answer by the
        challenger or the challenged asks for its Klaxon penalty: A adds 1, A held
        adds 10, B is done. Moving a piece: A walks the seats, B picks one to move
        forward (A held: back), A adds 1, A held 10, B moves it. B held steps back one
        step of whatever is being entered. This holds asking, answering, rolling,
        missing a go and the end; the overlays (``more``) hold the rest.
        """
        S = self.S
        u = self.u
        ph = S[2]
        if not k:
            k = self.act(5)
            if k:
                self.out(5, k)  # refused, and why
                return False
            self.out(6, S[4], S[5])
            return True
        if k == 5 and not u[0] and not (ph == 2 and u[3] | u[4]):  # undo
            if self.act(0):
                return False
            u[3] = u[4] = u[5] = u[6] = 0
            self.out(7)
        elif k == 6 and ph != 3:  # the end
            u[0] = 0
            self.act(9)
            self.out(8)
        elif u[0] == 1 or not u[0] and ph == 2:  # the reveal's marks, a penalty
            k = self.more(1).key(self, k)
        elif u[0] or k == 6 or k == 3 and not ph:  # entries: moving a piece, a new game
            if self.n > 48:  # room in the log first, so that the entry's action never folds
                self.more(0).fold(self)
            k = self.more(3 if u[0] > 4 or ph == 3 else 2).key(self, k)
        elif ph > 1 or k > 4 or k == 3 or ph and k == 2:
            return False  # nothing for it now
        elif ph:
            self.out(20 if k == 1 else 21, S[3])
            self.act(3 if k == 1 else 4)
        elif k == 1:
            a = self.dice(1, 6)
            b = self.dice(1, 6)
            c = self.dice(1, 6)
            self.act(1, a * 36 + b * 6 + c - 43)
            self.out(16, a, b, c)
        elif k == 4:
            self.act(2)
            u[3] = u[4] = u[5] = u[6] = 0
            self.out(18, S[1])
        else:
            self.out(19, S[1])
            self.act(7)
        self.more()
        return k

    def more(self, k=4):
        """Overlay ``k`` (0 qiklaxon/undo.py, 1 reveal.py, 2 entry.py, 3 over.py), loaded
        if it is not, the others dropped first: at most one is in RAM. ``more()``: drop
        those the state does not need now (the reveal's while it is under way, entry.py's
        while a move is entered, over.py's while the end is shown or a new game set up),
        so that their RAM is freed."""
        import sys

        S = self.S
        u = self.u[0]
        for i in range(4):
            n = ("undo", "reveal", "entry", "over")[i]
            if i != k and (k < 4 or not (i == 1 and S[2] == 2 or i == 2 and 1 < u < 5 or
                                         i == 3 and (S[2] == 3 or u > 4))):
                sys.modules.pop("qiklaxon." + n, None)
                if hasattr(sys.modules["qiklaxon"], n):
                    delattr(sys.modules["qiklaxon"], n)
        if k < 4:
            return __import__("qiklaxon." + ("undo", "reveal", "entry", "over")[k], None,
                              None, ("key",))

    def save(self):
        """The game into nvm as the newest record (qiklaxon/restore.py reads them back):

            0x51 'Q' | seq (2 bytes, big-endian) | length | body | Fletcher-16 (2) | 0x00

        ``j`` is [nvm, log layout?, seq of the newest record (-1: none), where it
        starts, where a log's erased tail starts]. A record whose check does not
        match (a write cut short) is ignored when read; the newest valid one is the
        saved game. The final 0x00 means a record never ends in erased-looking
        bytes. Two layouts, chosen by how the port writes flash:

        log (RP2040: one 4 KB sector; CircuitPython skips the erase when the bytes
        written are still erased, 0xFF): records are appended into erased space, so
        a save erases nothing; a torn record is skipped. When the sector is full, a
        compaction rewrites it with only the newest record (one erase): a power cut
        during that erase (once in ~50 saves) loses the saved game.

        ping-pong (nRF52840: two 4 KB pages, every write erases its page; SAMD21:
        256 bytes): each save goes to the half not holding the newest record, so a
        cut while writing one half leaves the other, at worst the state one save
        back. On the SAMD21 both halves share one 256-byte row: a cut during its
        erase can lose both.

        The body is: version 2, ``B``, ``Q`` (little-endian), the log.
        """
        j = self.j
        n = 40 + self.n
        size = len(j[0])
        q = (j[2] + 1) & 0xFFFF
        r = bytearray(n + 7)
        r[0] = 0x51
        r[1] = q >> 8
        r[2] = q & 255
        r[3] = n
        r[4] = 2
        r[5:24] = self.B
        for i in range(10):
            r[24 + 2 * i] = self.Q[i] & 255
            r[25 + 2 * i] = self.Q[i] >> 8 & 255
        r[44:n + 4] = self.L[:self.n]
        i = check(r, n + 4)
        r[n + 4] = i >> 8
        r[n + 5] = i & 255
        if not j[1]:  # ping-pong: the half without the newest record
            i = size // 2 if j[3] == 0 and j[2] >= 0 else 0
        elif j[4] + n + 7 <= size:  # log: append in the erased tail
            i = j[4]
        else:  # log full: the sector anew, holding only this record
            i = 0
            r.extend(b"\xff" * (size - n - 7))
        j[0][i:i + len(r)] = r
        self.w = 0
        j[2] = q
        j[3] = i
        j[4] = i + n + 7


def check(d, n):
    """Fletcher-16 of ``d[0:n]``: two additions a byte (a CRC would block the loop far longer)."""
    a = b = 0
    for i in range(n):
        a = (a + d[i]) % 255
        b = (b + a) % 255
    return b << 8 | a
