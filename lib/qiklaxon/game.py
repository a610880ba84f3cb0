"""The rules of the QI-style board game that the Klaxon referees.

Pure Python for CPython and CircuitPython/MicroPython alike: no hardware
imports, no dataclasses or enum, small allocations (one short ``bytes``
snapshot per accepted action, for undo). The rules are restated in
``shared/product/rules.md``; the **Decisions** there are implemented here:

* the Klaxon challenges the most recent *answer* of this question (passes
  are skipped); with no answer yet there is nobody to challenge and the
  press is refused;
* a press while it is not an answering turn (no question running, the QM's
  own press, after the answering ended) is refused the same way;
* a refused press never changes the game.

Seats run clockwise 0..N-1; "the player on the left" of seat s is s+1 mod N.
"""

from micropython import const

# Phase codes; ``Game.phase`` gives them as strings.
IDLE = const(0)
ANSWERING = const(1)
REVEAL = const(2)
OVER = const(3)
PHASES = ("idle", "answering", "reveal", "over")

# What a seat did in the current (or just-resolved) question.
WAITING = const(0)  # not asked yet, or the QM
ANSWERED = const(1)
PASSED = const(2)  # passed, or deemed to have passed by a Klaxon

MIN_PLAYERS = const(2)
MAX_PLAYERS = const(10)
FORWARD = const(3)  # squares for a right answer
POSITION_LIMIT = const(1 << 24)  # |position| bound, so no board needs long ints

VERSION = const(1)  # first byte of to_bytes(); bump when the layout changes
_NONE = const(0xFF)  # "no seat" in the encoding

# Refusal reasons (short, for the console and the simulator's event stream).
NO_QUESTION = "no question running"
NOBODY_TO_CHALLENGE = "nobody has answered yet"
QM_MAY_NOT = "the QM may not hit the Klaxon"
NOT_YOUR_TURN = "not that player's turn"
GAME_OVER = "the game is over"


def _check_int(name, value, low, high):
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
        raise ValueError("%s must be a whole number from %d to %d, not %r" % (name, low, high, value))
    return value


class Game:
    """One game at the table.

    ``Game(players, qm=0, finish=None)``: ``players`` 2 to 10, ``qm`` the
    first Question Master's seat, ``finish`` the square that ends the game
    when a piece reaches it (None: the QM ends the game by hand with
    ``end()``). Bad values raise ``ValueError`` naming the value.

    Actions: ``roll``, ``ask``, ``answer``, ``pass_``, ``klaxon``,
    ``reveal``, ``miss_go``, ``move``, ``end``, ``undo``. An action called in
    a phase where it does not apply raises ``ValueError`` saying what the
    game was waiting for, except ``klaxon``, which players press at any
    moment: a refused Klaxon returns None and sets ``refusal``.
    """

    def __init__(self, players, qm=0, finish=None):
        _check_int("players", players, MIN_PLAYERS, MAX_PLAYERS)
        _check_int("qm", qm, 0, players - 1)
        if finish is not None:
            _check_int("finish", finish, 1, POSITION_LIMIT)
        self._n = players
        self._qm = qm
        self._finish = finish
        self._pos = [0] * players
        self._marks = bytearray(players)
        self._phase = IDLE
        self._answering = None
        self._challenger = None
        self._challenged = None
        self._question = 0
        self._history = []
        self.refusal = None

    # ----------------------------------------------------------- read-only
    @property
    def players(self):
        """Number of players at the table (2 to 10)."""
        return self._n

    @property
    def qm(self):
        """Seat of the current Question Master."""
        return self._qm

    @property
    def finish(self):
        """The square that ends the game, or None."""
        return self._finish

    @property
    def positions(self):
        """Each seat's square (a copy; may be negative)."""
        return list(self._pos)

    @property
    def phase(self):
        """'idle' between questions, 'answering', 'reveal' or 'over'."""
        return PHASES[self._phase]

    @property
    def phase_code(self):
        """The phase as one of IDLE, ANSWERING, REVEAL, OVER (no allocation)."""
        return self._phase

    @property
    def answering(self):
        """Seat whose turn it is to answer, or None."""
        return self._answering

    @property
    def challenger(self):
        """Seat that hit the Klaxon in the current or just-resolved question."""
        return self._challenger

    @property
    def challenged(self):
        """Seat whose answer the Klaxon challenged, or None."""
        return self._challenged

    @property
    def question(self):
        """Question number of the last roll (red*100+white*10+blue), 0 if none."""
        return self._question

    @property
    def winners(self):
        """Seats with the highest score once the game is over, else []."""
        if self._phase != OVER:
            return []
        best = max(self._pos)
        return [s for s in range(self._n) if self._pos[s] == best]

    def mark(self, seat):
        """What ``seat`` did this question: WAITING, ANSWERED or PASSED."""
        return self._marks[seat]

    def left_of(self, seat):
        """The seat on the left of ``seat`` (clockwise next)."""
        return (seat + 1) % self._n

    def last_answer(self):
        """Seat of the most recent answer this question (passes skipped), or None."""
        if self._phase != ANSWERING:
            return None
        seat = self._answering
        while True:
            seat = (seat - 1) % self._n
            if seat == self._qm:
                return None
            if self._marks[seat] == ANSWERED:
                return seat

    # ------------------------------------------------------------- actions
    def roll(self, red, white, blue):
        """The QM rolls: moves forward ``white`` squares; returns the question number.

        Only between questions (phase 'idle'); a QM who rolls again just rolls
        again. Each die is 1 to 6.
        """
        self._expect(IDLE, "a roll")
        _check_int("red", red, 1, 6)
        _check_int("white", white, 1, 6)
        _check_int("blue", blue, 1, 6)
        self._save()
        self._question = red * 100 + white * 10 + blue
        self._shift(self._qm, white)
        self._check_finish()
        return self._question

    def ask(self):
        """The question is read out: answering starts on the QM's left."""
        self._expect(IDLE, "a question")
        self._save()
        marks = self._marks
        for s in range(self._n):
            marks[s] = WAITING
        self._challenger = None
        self._challenged = None
        self._phase = ANSWERING
        self._answering = self.left_of(self._qm)

    def answer(self):
        """The current answerer gives an answer; the turn moves left."""
        self._expect(ANSWERING, "an answer or pass")
        self._save()
        self._marks[self._answering] = ANSWERED
        self._next_answerer()

    def pass_(self):
        """The current answerer passes; the turn moves left."""
        self._expect(ANSWERING, "an answer or pass")
        self._save()
        self._marks[self._answering] = PASSED
        self._next_answerer()

    def klaxon(self, seat=None):
        """The current answerer hits the Klaxon.

        Accepted: returns ``(challenger, challenged)``; the challenger gives
        their own answer, everyone not yet asked is deemed to have passed,
        and answering ends. Refused: returns None, sets ``refusal`` to a
        short reason, and nothing else changes. ``seat``, when the caller
        knows who pressed, must be the answering seat.
        """
        reason = self._klaxon_refusal(seat)
        if reason is not None:
            self.refusal = reason
            return None
        self.refusal = None
        self._save()
        challenged = self.last_answer()
        challenger = self._answering
        self._marks[challenger] = ANSWERED
        self._challenger = challenger
        self._challenged = challenged
        seat = self.left_of(challenger)
        while seat != self._qm:
            self._marks[seat] = PASSED
            seat = self.left_of(seat)
        self._answering = None
        self._phase = REVEAL
        return (challenger, challenged)

    def reveal(self, correct, penalties=None):
        """The QM reveals the answer and the outcome is applied.

        ``correct``: seats whose answer was right (each must have answered);
        they move forward 3. Wrong answers stay put, except that a Klaxon
        party (challenger or challenged) whose wrong answer carries a Klaxon
        penalty moves back that many squares: ``penalties`` maps seat to
        squares. A penalty for any other seat has no effect (rules.md); one
        for a seat also named correct is a ValueError. Then the QM's turn
        ends and the dice pass left; if a piece reached ``finish`` the game
        is over.
        """
        self._expect(REVEAL, "the reveal")
        right = []
        for seat in correct:
            _check_int("correct seat", seat, 0, self._n - 1)
            if self._marks[seat] != ANSWERED:
                raise ValueError("seat %d did not answer, so cannot be right" % seat)
            if seat not in right:
                right.append(seat)
        back = []
        if penalties:
            for seat in penalties:
                _check_int("penalty seat", seat, 0, self._n - 1)
                squares = _check_int("penalty for seat %d" % seat, penalties[seat], 0, POSITION_LIMIT)
                if seat in right:
                    raise ValueError("seat %d is both right and penalised" % seat)
                if squares and (seat == self._challenger or seat == self._challenged):
                    back.append((seat, squares))
        self._save()
        for seat in right:
            self._shift(seat, FORWARD)
        for seat, squares in back:
            self._shift(seat, -squares)
        self._end_turn()

    def miss_go(self):
        """The QM landed on *Miss a go*: the turn ends, the dice pass left."""
        self._expect(IDLE, "a roll or question")
        self._save()
        self._end_turn()

    def move(self, seat, squares):
        """A manual correction: ``seat`` moves ``squares`` (negative: back)."""
        if self._phase == OVER:
            raise ValueError("the game is over; waiting for a new game")
        _check_int("seat", seat, 0, self._n - 1)
        _check_int("squares", squares, -POSITION_LIMIT, POSITION_LIMIT)
        _check_int("new position", self._pos[seat] + squares, -POSITION_LIMIT, POSITION_LIMIT)
        self._save()
        self._shift(seat, squares)
        self._check_finish()

    def end(self):
        """The QM ends the game by hand; ``winners`` are the highest scores."""
        if self._phase == OVER:
            raise ValueError("the game is over already")
        self._save()
        self._over()

    def undo(self):
        """Step back one accepted action; False when nothing is left to undo.

        History holds ``players + 8`` actions: always back to the start of
        the current question and through the last reveal (a wrong reveal can
        be mended before the next question is asked).
        """
        if not self._history:
            return False
        self._load(self._history.pop())
        self.refusal = None
        return True

    @property
    def can_undo(self):
        """True when ``undo()`` would step back."""
        return bool(self._history)

    # -------------------------------------------------------------- coding
    def to_bytes(self):
        """The whole game (mid-question included) as compact, versioned bytes.

        Layout: version, players, qm, phase, answering, challenger,
        challenged (0xFF for none), question (2 bytes), 2-bit marks packed
        four seats to a byte, then finish and each position as zigzag
        varints (finish 0 = none): at most 9 + 3 + 4 + 10*4 = 56 bytes for
        10 players, about 23 in a real game.
        """
        n = self._n
        out = bytearray(
            (
                VERSION,
                n,
                self._qm,
                self._phase,
                _seat_byte(self._answering),
                _seat_byte(self._challenger),
                _seat_byte(self._challenged),
                self._question >> 8,
                self._question & 0xFF,
            )
        )
        packed = 0
        for s in range(n):
            packed |= self._marks[s] << (2 * (s & 3))
            if s & 3 == 3 or s == n - 1:
                out.append(packed)
                packed = 0
        _put_varint(out, 0 if self._finish is None else self._finish)
        for p in self._pos:
            _put_varint(out, p)
        return bytes(out)

    @classmethod
    def from_bytes(cls, data):
        """The game that ``to_bytes`` encoded; ValueError for anything else."""
        game = cls(MIN_PLAYERS)
        game._load(data)
        return game

    # ------------------------------------------------------------ internal
    def _expect(self, phase, what):
        if self._phase != phase:
            raise ValueError(
                "no %s now: the game is waiting for %s" % (what, _WAITING_FOR[self._phase])
            )

    def _klaxon_refusal(self, seat):
        if self._phase == OVER:
            return GAME_OVER
        if self._phase != ANSWERING:
            if seat is not None and seat == self._qm:
                return QM_MAY_NOT
            return NO_QUESTION
        if seat is not None and seat != self._answering:
            return QM_MAY_NOT if seat == self._qm else NOT_YOUR_TURN
        if self.last_answer() is None:
            return NOBODY_TO_CHALLENGE
        return None

    def _next_answerer(self):
        nxt = self.left_of(self._answering)
        if nxt == self._qm:
            self._answering = None
            self._phase = REVEAL
        else:
            self._answering = nxt

    def _end_turn(self):
        self._qm = self.left_of(self._qm)
        self._answering = None
        self._phase = IDLE
        self._check_finish()

    def _shift(self, seat, squares):
        pos = self._pos[seat] + squares
        if not -POSITION_LIMIT <= pos <= POSITION_LIMIT:
            raise ValueError("seat %d would move off the board to %d" % (seat, pos))
        self._pos[seat] = pos

    def _check_finish(self):
        if self._finish is not None and max(self._pos) >= self._finish:
            self._over()

    def _over(self):
        self._phase = OVER
        self._answering = None

    def _save(self):
        history = self._history
        if len(history) >= self._n + 8:
            history.pop(0)
        history.append(self.to_bytes())

    def _load(self, data):
        """Replace this game's state with the decoded ``data`` (validated first)."""
        state = _decode(data)
        (self._n, self._qm, self._phase, self._answering, self._challenger,
         self._challenged, self._question, self._marks, self._finish, self._pos) = state
        if len(self._history) > self._n + 8:
            self._history = self._history[-(self._n + 8):]


_WAITING_FOR = (
    "the QM to roll or ask",
    "the answering player to answer, pass or hit the Klaxon",
    "the QM to reveal the answer",
    "a new game",
)


def _seat_byte(seat):
    return _NONE if seat is None else seat


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
    """Read a zigzag varint at ``data[i]``: (value, next index)."""
    z = 0
    shift = 0
    while True:
        if i >= len(data):
            raise _bad("truncated")
        b = data[i]
        i += 1
        z |= (b & 0x7F) << shift
        if not b & 0x80:
            break
        shift += 7
        if shift > 28:
            raise _bad("number too long")
    value = z >> 1 if not z & 1 else -(z >> 1) - 1
    if not -POSITION_LIMIT <= value <= POSITION_LIMIT:
        raise _bad("number out of range")
    return value, i


def _decode(data):
    """Validate and decode ``to_bytes`` output; ValueError on anything else."""
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise _bad("expected bytes")
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
        if b == _NONE:
            seats.append(None)
        elif b < n:
            seats.append(b)
        else:
            raise _bad("bad seat")
    answering, challenger, challenged = seats
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
    i += nbytes
    finish, i = _get_varint(data, i)
    if finish < 0:
        raise _bad("bad finish")
    pos = []
    for _ in range(n):
        p, i = _get_varint(data, i)
        pos.append(p)
    if i != len(data):
        raise _bad("trailing bytes")
    # The state must be one the rules can reach.
    if (answering is None) != (phase != ANSWERING) or answering == qm:
        raise _bad("bad answering seat")
    if (challenger is None) != (challenged is None) or (
        challenger is not None
        and (challenger == challenged or qm in (challenger, challenged) and phase == REVEAL)
    ):
        raise _bad("bad Klaxon parties")
    if phase == ANSWERING or phase == REVEAL:
        if marks[qm] != WAITING:
            raise _bad("the QM has a mark")
        seat = (qm + 1) % n
        asked = True  # seats before the answerer have answered or passed
        while seat != qm:
            if seat == answering:
                asked = False
            if asked == (marks[seat] == WAITING):
                raise _bad("marks out of turn order")
            seat = (seat + 1) % n
        if phase == ANSWERING and challenger is not None:
            raise _bad("a Klaxon while answering")
    return (n, qm, phase, answering, challenger, challenged, question, marks,
            finish or None, pos)
