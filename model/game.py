"""The rules of the QI-style board game that the Klaxon referees, as a readable API.

``Game`` is the board's rules engine (``core.Referee``) with names, checked
arguments and sentences, for tests, the simulator and any (Micro)Python program. The
board has no room for words, so a deploy leaves this file out.

The rules: ``shared/product/rules.md``. Its **Decisions**, in the core: the Klaxon
challenges the most recent *answer* of this question (passes skipped); with no
answer yet, or outside an answering turn, the press is refused; a refused press
never changes the game.

Seats run clockwise 0..N-1; "the player on the left" of seat s is s+1 mod N.
Every accepted action can be undone, back to at least the current question's start.
"""

from model import layout
from qiklaxon.core import Referee

IDLE = 0
ANSWERING = 1
REVEAL = 2
OVER = 3
PHASES = ("idle", "answering", "reveal", "over")

# What a seat did this question
WAITING = 0  # not asked yet, or the QM
ANSWERED = 1
PASSED = 2  # passed, or deemed to have passed by a Klaxon

MIN_PLAYERS = 2
MAX_PLAYERS = 10
RIGHT_SQUARES = layout.RIGHT_SQUARES  # squares for a right answer (the board's)
POSITION_LIMIT = 32767  # |position| bound (16 bits on the board, which stops there)
FINISH_LIMIT = 9999
PENALTY_LIMIT = 255
VERSION = 1  # first byte of to_bytes(); bump when the layout changes
_NONE = 0xFF  # "no seat"

# The core's op codes and refusal codes
OPS = {"roll": 1, "ask": 2, "answer": 3, "pass": 4, "klaxon": 5, "reveal": 6, "miss_go": 7,
       "move": 8, "end": 9, "new_game": 10}
WHEN, BAD = 1, 7

# Refusal reasons (the board's console words)
NO_QUESTION = "no question running"
NOBODY_TO_CHALLENGE = "nobody has answered yet"
QM_MAY_NOT = "the QM may not hit the Klaxon"
NOT_YOUR_TURN = "not that player's turn"
HAD_ITS_KLAXON = "this question already had its Klaxon"
ALL_ANSWERED = "everyone has answered"
GAME_OVER = "the game is over"
REASONS = (None, None, NOBODY_TO_CHALLENGE, NO_QUESTION, HAD_ITS_KLAXON, ALL_ANSWERED, GAME_OVER)

_WAITING_FOR = (
    "the QM to roll or ask",
    "the answering player to answer, pass or hit the Klaxon",
    "the QM to reveal the answer",
    "a new game",
)


def _check_int(name, value, low, high):
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
        raise ValueError("%s must be a whole number from %d to %d, not %r" % (name, low, high, value))
    return value


def _seat(s):
    return None if s == _NONE else s


class Game:
    """``Game(players, qm=0, finish=None)``: ``players`` 2 to 10, ``qm`` the first
    QM's seat, ``finish`` the square that ends the game (None: the QM ends it with
    ``end()``). Bad values raise ``ValueError``.

    An action that does not apply now raises ``ValueError`` saying what the game
    waits for, and changes nothing; but a refused ``klaxon`` (pressed at any
    moment) returns None and sets ``refusal``.
    """

    def __init__(self, players, qm=0, finish=None):
        _check_int("players", players, MIN_PLAYERS, MAX_PLAYERS)
        _check_int("qm", qm, 0, players - 1)
        if finish is not None:
            _check_int("finish", finish, 1, FINISH_LIMIT)
        self.core = Referee(players, qm, finish or 0)
        self.refusal = None

    # ----------------------------------------------------------- read-only
    @property
    def players(self):
        """Number of players at the table (2 to 10)."""
        return self.core.S[0]

    @property
    def qm(self):
        """Seat of the current Question Master."""
        return self.core.S[1]

    @property
    def phase_code(self):
        """IDLE, ANSWERING, REVEAL or OVER."""
        return self.core.S[2]

    @property
    def phase(self):
        """'idle' between questions, 'answering', 'reveal' or 'over'."""
        return PHASES[self.core.S[2]]

    @property
    def answering(self):
        """Seat whose turn it is to answer, or None."""
        return _seat(self.core.S[3])

    @property
    def challenger(self):
        """Seat that hit the Klaxon this question, or None."""
        return _seat(self.core.S[4])

    @property
    def challenged(self):
        """Seat whose answer the Klaxon challenged, or None."""
        return _seat(self.core.S[5])

    @property
    def question(self):
        """Question number of the last roll (red*100+white*10+blue), 0 if none."""
        d = self.core.S[6]
        return 0 if d == _NONE else (d // 36 + 1) * 100 + (d // 6 % 6 + 1) * 10 + d % 6 + 1

    @property
    def finish(self):
        """The square that ends the game, or None."""
        S = self.core.S
        return (S[7] << 8 | S[8]) or None

    @property
    def positions(self):
        """Each seat's square (a new list; may be negative)."""
        return [self.core.P[s] for s in range(self.players)]

    @property
    def winners(self):
        """Seats with the highest score once the game is over, else []."""
        if self.phase_code != OVER:
            return []
        pos = self.positions
        return [s for s in range(len(pos)) if pos[s] == max(pos)]

    @property
    def can_undo(self):
        """True when ``undo()`` would step back."""
        return self.core.n > 0

    def mark(self, seat):
        """What ``seat`` did this question: WAITING, ANSWERED or PASSED."""
        return self.core.S[9 + _check_int("seat", seat, 0, self.players - 1)]

    def left_of(self, seat):
        """The seat on the left of ``seat`` (clockwise next)."""
        return (_check_int("seat", seat, 0, self.players - 1) + 1) % self.players

    def last_answer(self):
        """Seat of the most recent answer this question (passes skipped), or None."""
        if self.phase_code != ANSWERING:
            return None
        seat = self.answering
        while True:
            seat = (seat - 1) % self.players
            if seat == self.qm:
                return None
            if self.mark(seat) == ANSWERED:
                return seat

    # ------------------------------------------------------------- actions
    def roll(self, red, white, blue):
        """The QM rolls between questions and moves ``white`` squares; returns the
        question number. Each die 1 to 6; a QM may roll again."""
        self._when(IDLE, "roll")
        _check_int("red", red, 1, 6)
        _check_int("white", white, 1, 6)
        _check_int("blue", blue, 1, 6)
        _check_int("the QM's new position", self.core.P[self.qm] + white, -POSITION_LIMIT,
                   POSITION_LIMIT)
        self._act("roll", "roll", (red - 1) * 36 + (white - 1) * 6 + blue - 1)
        return self.question

    def ask(self):
        """The question is read out: answering starts on the QM's left."""
        self._act("ask", "ask")

    def answer(self):
        """The current answerer gives an answer; the turn moves left."""
        self._act("answer", "answer")

    def pass_(self):
        """The current answerer passes; the turn moves left."""
        self._act("pass", "pass")

    def klaxon(self, seat=None):
        """The current answerer hits the Klaxon: ``(challenger, challenged)``; the
        challenger answers, everyone not yet asked has passed, answering ends.
        Refused: None, ``refusal`` says why. ``seat``, if known, must be the answerer's.
        """
        if seat is not None:
            _check_int("seat", seat, 0, self.players - 1)
            if self.phase_code == ANSWERING and seat != self.answering or (
                    self.phase_code == IDLE and seat == self.qm):
                self.refusal = QM_MAY_NOT if seat == self.qm else NOT_YOUR_TURN
                return None
        why = self.core.act(5)
        if why:
            self.refusal = REASONS[why]
            return None
        self.refusal = None
        return (self.challenger, self.challenged)

    def reveal(self, correct, penalties=None):
        """The QM reveals the answer; the outcome applies all or nothing.

        ``correct``: seats right (each must have answered): forward 3. A Klaxon party's
        wrong answer with a penalty goes back: ``penalties`` maps seat to squares (0 to
        255); for other seats it has no effect (rules.md); for a seat named right, a
        ValueError. Then the dice pass left; a piece at ``finish`` ends the game.
        """
        self._when(REVEAL, "reveal")
        n = self.players
        try:
            seats = list(correct)
        except TypeError:
            raise ValueError("the seats that were right must be a list of seats, not %r" % (correct,))
        mask = 0
        for seat in seats:
            _check_int("right seat", seat, 0, n - 1)
            if self.mark(seat) != ANSWERED:
                raise ValueError("seat %d did not answer, so cannot be right" % seat)
            mask |= 1 << seat
        if penalties is None:
            penalties = {}
        if not isinstance(penalties, dict):
            raise ValueError("penalties must map seat to squares, not %r" % (penalties,))
        back = [0, 0]
        for seat in penalties:
            _check_int("penalty seat", seat, 0, n - 1)
            squares = _check_int("penalty for seat %d" % seat, penalties[seat], 0, PENALTY_LIMIT)
            if squares and mask >> seat & 1:
                raise ValueError("seat %d is both right and penalised" % seat)
            if seat == self.challenger:
                back[0] = squares
            elif seat == self.challenged:
                back[1] = squares
        for seat in range(n):
            gain = (RIGHT_SQUARES if mask >> seat & 1 else 0) - (back[0] if seat == self.challenger else 0) \
                - (back[1] if seat == self.challenged else 0)
            if not -POSITION_LIMIT <= self.core.P[seat] + gain <= POSITION_LIMIT:
                raise ValueError("seat %d would move off the board to %d"
                                 % (seat, self.core.P[seat] + gain))
        self._act("reveal", "reveal", mask >> 8, mask & 255, back[0], back[1])

    def miss_go(self):
        """The QM landed on *Miss a go*: the turn ends, the dice pass left."""
        self._act("miss_go", "miss a go")

    def move(self, seat, squares):
        """A move between questions (real dice, a chance card, a correction): ``seat``
        moves ``squares`` (negative: back)."""
        self._when(IDLE, "move")
        _check_int("seat", seat, 0, self.players - 1)
        _check_int("squares", squares, -POSITION_LIMIT, POSITION_LIMIT)
        if not squares:
            raise ValueError("a move of 0 squares changes nothing")
        _check_int("new position", self.core.P[seat] + squares, -POSITION_LIMIT, POSITION_LIMIT)
        v = squares & 0xFFFF
        self._act("move", "move", seat, v >> 8, v & 255)

    def end(self):
        """The QM ends the game by hand; ``winners`` are the highest scores."""
        if self.phase_code == OVER:
            raise ValueError("the game is over already")
        self._act("end", "end")

    def new_game(self, players=None, qm=0):
        """After the end, a new game (``players`` default: the same; the same finish)."""
        self._when(OVER, "new game")
        players = self.players if players is None else players
        _check_int("players", players, MIN_PLAYERS, MAX_PLAYERS)
        _check_int("qm", qm, 0, players - 1)
        f = self.finish or 0
        self._act("new_game", "new game", players, qm, f >> 8, f & 255)

    def undo(self):
        """Step back one accepted action; False when nothing is left to undo."""
        self.refusal = None
        return self.core.act(0) == 0

    def _when(self, phase, what):
        if self.phase_code != phase:
            raise ValueError("%s: not now; the game is waiting for %s"
                             % (what, _WAITING_FOR[self.phase_code]))

    def _act(self, op, what, a=0, b=0, c=0, d=0):
        why = self.core.act(OPS[op], a, b, c, d)
        if why == WHEN:
            raise ValueError("%s: not now; the game is waiting for %s"
                             % (what, _WAITING_FOR[self.phase_code]))
        if why:
            raise ValueError("%s: the rules cannot take that" % what)

    # -------------------------------------------------------------- coding
    def to_bytes(self):
        """The state (not the undo log) as compact, canonical, versioned bytes: version,
        players, qm, phase, answering, challenger, challenged (0xFF: none), question (2
        bytes), 2-bit marks four seats a byte, then finish (0: none) and the positions
        as zigzag varints: 44 bytes at most.
        """
        n = self.players
        S = self.core.S
        q = self.question
        out = bytearray((VERSION, n, S[1], S[2], S[3], S[4], S[5], q >> 8, q & 0xFF))
        packed = 0
        for s in range(n):
            packed |= S[9 + s] << (2 * (s & 3))
            if s & 3 == 3 or s == n - 1:
                out.append(packed)
                packed = 0
        _put_varint(out, self.finish or 0)
        for p in self.positions:
            _put_varint(out, p)
        return bytes(out)

    @classmethod
    def from_bytes(cls, data):
        """The game ``to_bytes`` encoded; ValueError for anything else (unreachable
        states, non-canonical encodings)."""
        n, qm, phase, seats, question, marks, finish, pos = _decode(data)
        game = cls(n, qm, finish)
        c = game.core
        S = c.S
        S[2] = phase
        S[3], S[4], S[5] = seats
        S[6] = _NONE if not question else (
            (question // 100 - 1) * 36 + (question // 10 % 10 - 1) * 6 + question % 10 - 1)
        for s in range(n):
            S[9 + s] = marks[s]
            c.P[s] = pos[s]
        c.B[:] = S
        c.Q[:] = c.P
        return game


def _put_varint(out, value):
    """Append ``value`` zigzag-encoded, 7 bits a byte (low first)."""
    z = value * 2 if value >= 0 else -value * 2 - 1
    while z > 0x7F:
        out.append((z & 0x7F) | 0x80)
        z >>= 7
    out.append(z)


def _bad(why):
    return ValueError("not a saved QI Klaxon game: " + why)


def _get_varint(data, i):
    """Read a zigzag varint at ``data[i]``: (value, next index); minimal encodings only."""
    z = 0
    shift = 0
    while True:
        if i >= len(data):
            raise _bad("truncated")
        b = data[i]
        i += 1
        z |= (b & 0x7F) << shift
        if not b & 0x80:
            if shift and not b:
                raise _bad("number not in its shortest form")
            break
        shift += 7
        if shift > 21:
            raise _bad("number too long")
    value = z >> 1 if not z & 1 else -(z >> 1) - 1
    if not -POSITION_LIMIT <= value <= POSITION_LIMIT:
        raise _bad("number out of range")
    return value, i


def _finished(marks, n, q, challenger, challenged):
    """Whether ``marks`` (and the Klaxon parties) are those of a finished question of QM ``q``."""
    if marks[q] != WAITING:
        return False
    for s in range(n):
        if s != q and marks[s] == WAITING:
            return False
    if challenger is None:
        return challenged is None
    if challenged is None or q in (challenger, challenged) or challenger == challenged or \
            marks[challenger] != ANSWERED:
        return False
    # the challenged is the last answer before the challenger; everyone after the challenger passed
    s = challenged
    while s != challenger:
        s = (s + 1) % n
        if s == q or s != challenger and marks[s] == ANSWERED:
            return False
    if marks[challenged] != ANSWERED:
        return False
    s = (challenger + 1) % n
    while s != q:
        if marks[s] != PASSED:
            return False
        s = (s + 1) % n
    return True


def _asking(marks, n, q, upto):
    """Whether the seats from q's left up to (not including) ``upto`` have answered or
    passed and the rest wait: a question of QM ``q`` under way (``upto`` == q: all asked)."""
    s = (q + 1) % n
    asked = True
    if marks[q] != WAITING:
        return False
    while s != q:
        if s == upto:
            asked = False
        if asked == (marks[s] == WAITING):
            return False
        s = (s + 1) % n
    return True


def _decode(data):
    """Validate and decode ``to_bytes`` output; ValueError on anything else."""
    if not isinstance(data, (bytes, bytearray)):
        raise _bad("expected bytes, not %r" % (type(data).__name__,))
    data = bytes(data)
    if len(data) < 10:
        raise _bad("too short")
    if data[0] != VERSION:
        raise _bad("unknown version %d" % data[0])
    n, qm, phase = data[1], data[2], data[3]
    if not MIN_PLAYERS <= n <= MAX_PLAYERS or qm >= n or phase > OVER:
        raise _bad("bad header")
    seats = []
    for b in data[4:7]:
        if b != _NONE and b >= n:
            raise _bad("bad seat")
        seats.append(b)
    answering, challenger, challenged = [_seat(b) for b in seats]
    question = (data[7] << 8) | data[8]
    if question and not (
        1 <= question // 100 <= 6 and 1 <= question // 10 % 10 <= 6 and 1 <= question % 10 <= 6
    ):
        raise _bad("bad question number")
    i = 9
    nbytes = (n + 3) // 4
    if len(data) < i + nbytes:
        raise _bad("truncated")
    marks = bytearray(n)
    for s in range(n):
        m = (data[i + s // 4] >> (2 * (s & 3))) & 3
        if m > PASSED:
            raise _bad("bad mark")
        marks[s] = m
    if n & 3 and data[i + nbytes - 1] >> (2 * (n & 3)):
        raise _bad("bits set past the last seat")
    i += nbytes
    finish, i = _get_varint(data, i)
    if not 0 <= finish <= FINISH_LIMIT:
        raise _bad("bad finish")
    pos = []
    for _ in range(n):
        p, i = _get_varint(data, i)
        pos.append(p)
    if i != len(data):
        raise _bad("trailing bytes")
    # The state must be one the rules can reach.
    if finish and phase != OVER and max(pos) >= finish:
        raise _bad("a piece is past the finish but the game goes on")
    if (answering is None) != (phase != ANSWERING) or answering == qm:
        raise _bad("bad answering seat")
    if (challenger is None) != (challenged is None):
        raise _bad("bad Klaxon parties")
    none = challenger is None and not any(marks)
    if phase == ANSWERING:
        ok = challenger is None and _asking(marks, n, qm, answering)
    elif phase == REVEAL:  # (a question everyone passed is over at its last pass)
        ok = _finished(marks, n, qm, challenger, challenged) and ANSWERED in marks
    elif phase == IDLE:  # before any question, or after one of an earlier QM
        ok = none or any(_finished(marks, n, q, challenger, challenged) for q in range(n))
    else:  # over: by hand between questions (after any QM's question: a missed go
        # passes the dice), during this QM's question, or at a finish
        ok = none or any(_finished(marks, n, q, challenger, challenged) for q in range(n)) or (
            challenger is None and any(_asking(marks, n, qm, u) for u in range(n)))
    if not ok:
        raise _bad("a state play cannot reach")
    return n, qm, phase, seats, question, marks, finish or None, pos
