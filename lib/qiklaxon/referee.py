"""The referee at the table: button gestures in, game actions and feedback out.

Pure Python like ``game``: the hardware layer turns pins into the keys below
and renders ``Referee`` state to sound and light.

Keys (what each build's buttons produce; see the README's controls table):

=========  ==================  ==============  ===============  ==============
phase      A short             A long          B short          B long
=========  ==================  ==============  ===============  ==============
idle       roll the dice       miss a go       ask the question undo
answering  answer              --              pass             undo
reveal     this answer right   --              this one wrong   undo one mark
penalty    +1 square (A2: +5)  --              done             undo one mark
over       new game            --              --               undo
=========  ==================  ==============  ===============  ==============

B double in any phase but "over" ends the game (the QM's "game over").
The Klaxon button is ``klaxon()``: instant, never delayed by a gesture.

During the reveal the referee walks the seats that answered, from the QM's
left: A marks the highlighted answer right, B wrong. A wrong answer by the
challenger or the challenged then asks for its Klaxon penalty (0 for none):
A adds 1, A double adds 5, B confirms. After the last seat the outcome is
applied.
"""

from micropython import const

from qiklaxon.game import ANSWERED, ANSWERING, IDLE, OVER, REVEAL, Game

A1 = const(1)  # A, short
A2 = const(2)  # A, double
AL = const(3)  # A, long
B1 = const(4)  # B, short
B2 = const(5)  # B, double
BL = const(6)  # B, long
KEY_NAMES = ("", "A", "A double", "A long", "B", "B double", "B long")

# What a key press did (the device plays a blip, the denied sound, or nothing).
DONE = const(1)
REFUSED = const(2)

_MARKING = const(0)
_PENALTY = const(1)


class Referee:
    """Holds the ``Game`` and the reveal being entered; ``event`` describes the last change."""

    def __init__(self, game, dice):
        """``dice``: function returning a die roll 1..6 (``random.randint``-like, no args)."""
        self.game = game
        self._dice = dice
        self.roll = None  # (red, white, blue) of the last roll
        self._marks = []  # reveal entry: [(seat, right, penalty)]
        self._mode = _MARKING
        self.count = 0  # penalty being entered
        self.event = None  # (name, dict) of the last change, for reports
        self.first_qm = game.qm  # a new game starts with this QM

    # ----------------------------------------------------------- queries
    def answerers(self):
        """Seats that answered this question, in answering order."""
        g = self.game
        out = []
        seat = g.left_of(g.qm)
        while seat != g.qm:
            if g.mark(seat) == ANSWERED:
                out.append(seat)
            seat = g.left_of(seat)
        return out

    @property
    def cursor(self):
        """Seat whose result is being entered during the reveal, or None."""
        if self.game.phase_code != REVEAL:
            return None
        seats = self.answerers()
        n = len(self._marks)
        if self._mode == _PENALTY:
            return self._marks[-1][0]
        return seats[n] if n < len(seats) else None

    @property
    def entering_penalty(self):
        return self.game.phase_code == REVEAL and self._mode == _PENALTY

    def marked(self, seat):
        """During the reveal: True/False if ``seat`` is marked right/wrong, None if not yet."""
        for s, right, _ in self._marks:
            if s == seat:
                return right
        return None

    # ----------------------------------------------------------- actions
    def klaxon(self):
        """The Klaxon button: ``(challenger, challenged)``, or None if refused."""
        result = self.game.klaxon()
        if result is None:
            self.event = ("refused", {"reason": self.game.refusal})
        else:
            self.event = ("klaxon", {"challenger": result[0], "challenged": result[1]})
        return result

    def key(self, k):
        """A gesture on A/B: DONE (blip), REFUSED (denied) or 0 (meant nothing here)."""
        g = self.game
        phase = g.phase_code
        self.event = None
        if k == BL:
            return self._undo()
        if k == B2 and phase != OVER:
            g.end()
            return self._did("end", winners=g.winners)
        if phase == IDLE:
            if k == A1:
                d = self._dice
                self.roll = (d(), d(), d())
                q = g.roll(self.roll[0], self.roll[1], self.roll[2])
                return self._did("roll", qm=g.qm, dice=list(self.roll), question=q)
            if k == AL:
                qm = g.qm
                g.miss_go()
                return self._did("miss_go", seat=qm)
            if k == B1:
                g.ask()
                self._marks = []
                self._mode = _MARKING
                return self._did("ask", qm=g.qm, first=g.answering)
        elif phase == ANSWERING:
            seat = g.answering
            if k == A1:
                g.answer()
                return self._did("answer", seat=seat)
            if k == B1:
                g.pass_()
                return self._did("pass", seat=seat)
        elif phase == REVEAL:
            return self._reveal_key(k)
        elif phase == OVER and k == A1:
            self.game = Game(g.players, qm=self.first_qm, finish=g.finish)
            self.roll = None
            return self._did("new_game", players=g.players)
        return 0

    def _reveal_key(self, k):
        if self._mode == _PENALTY:
            if k == A1 or k == A2:
                self.count = min(self.count + (1 if k == A1 else 5), 99)
                return self._did("penalty_count", seat=self._marks[-1][0], squares=self.count)
            if k == B1:
                seat = self._marks[-1][0]
                self._marks[-1] = (seat, False, self.count)
                self._mode = _MARKING
                self._did("penalty", seat=seat, squares=self.count)
                return self._maybe_apply()
            return 0
        if k != A1 and k != B1:
            return 0
        seat = self.cursor
        if seat is None:  # nobody answered: either key reveals
            return self._maybe_apply()
        right = k == A1
        self._marks.append((seat, right, 0))
        g = self.game
        if not right and (seat == g.challenger or seat == g.challenged):
            self._mode = _PENALTY
            self.count = 0
            return self._did("mark", seat=seat, right=False, penalty_entry=True)
        self._did("mark", seat=seat, right=right)
        return self._maybe_apply()

    def _maybe_apply(self):
        if len(self._marks) < len(self.answerers()):
            return DONE
        g = self.game
        right = [s for s, r, _ in self._marks if r]
        pen = {}
        for s, r, p in self._marks:
            if p:
                pen[s] = p
        qm = g.qm
        g.reveal(right, pen)
        self._marks = []
        return self._did("reveal", qm=qm, right=right, penalties=pen, positions=g.positions,
                         next_qm=g.qm, phase=g.phase, winners=g.winners)

    def _undo(self):
        if self.game.phase_code == REVEAL and self._marks:
            seat = self._marks.pop()[0]
            self._mode = _MARKING
            return self._did("undo", what="mark", seat=seat)
        if not self.game.undo():
            self.event = ("refused", {"reason": "nothing to undo"})
            return REFUSED
        self._marks = []
        self._mode = _MARKING
        g = self.game
        return self._did("undo", phase=g.phase, qm=g.qm, answering=g.answering,
                         positions=g.positions)

    def _did(self, name, **fields):
        self.event = (name, fields)
        return DONE


def describe(name, f):
    """One readable console line for a referee event."""
    if name == "klaxon":
        return "KLAXON! seat %d challenges seat %d" % (f["challenger"], f["challenged"])
    if name == "refused":
        return "Klaxon refused: %s" % f["reason"]
    if name == "roll":
        d = f["dice"]
        return "QM seat %d rolled red %d, white %d, blue %d: forward %d, question %d" % (
            f["qm"], d[0], d[1], d[2], d[1], f["question"])
    if name == "ask":
        return "question asked by QM seat %d; seat %d answers first" % (f["qm"], f["first"])
    if name == "answer" or name == "pass":
        return "seat %d %s" % (f["seat"], "answers" if name == "answer" else "passes")
    if name == "mark":
        return "seat %d: %s%s" % (f["seat"], "right" if f["right"] else "wrong",
                                  ", enter the Klaxon penalty" if f.get("penalty_entry") else "")
    if name == "penalty_count":
        return "seat %d penalty: %d" % (f["seat"], f["squares"])
    if name == "penalty":
        return "seat %d Klaxon penalty: back %d" % (f["seat"], f["squares"])
    if name == "reveal":
        return "revealed: right %s; positions %s; QM is now seat %d" % (
            f["right"], f["positions"], f["next_qm"])
    if name == "miss_go":
        return "QM seat %d misses a go" % f["seat"]
    if name == "end":
        return "game over: winners %s" % f["winners"]
    if name == "new_game":
        return "new game for %d players" % f["players"]
    if name == "resumed":
        return "saved game resumed: QM seat %d, %s, positions %s" % (f["qm"], f["phase"],
                                                                   f["positions"])
    if name == "undo":
        return "undone (%s)" % (f.get("what") or f.get("phase"))
    return name
