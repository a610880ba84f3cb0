"""The game as a state machine: random legal and illegal actions, invariants after each."""

from hypothesis import given, settings, strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule

from model import Game

seat = st.integers(0, 9)
die = st.integers(1, 6)


class GameMachine(RuleBasedStateMachine):
    @initialize(players=st.integers(2, 10), qm=st.integers(0, 9), finish=st.none() | st.integers(1, 40))
    def start(self, players, qm, finish):
        self.g = Game(players, qm=qm % players, finish=finish)
        self.snapshots = [self.g.to_bytes()]  # state before each accepted action

    def act(self, name, *args):
        """Run an action; a ValueError must leave the game exactly as it was."""
        before = self.g.to_bytes()
        pos = self.g.positions
        try:
            result = getattr(self.g, name)(*args)
        except ValueError:
            assert self.g.to_bytes() == before
            return None
        if name != "klaxon" or result is not None:
            self.snapshots.append(before)
        else:  # a refused Klaxon changes nothing
            assert self.g.to_bytes() == before and self.g.refusal
        if name in ("ask", "answer", "pass_", "klaxon", "miss_go", "end"):
            assert self.g.positions == pos  # only roll, reveal and move change positions
        return result

    @rule(r=die, w=die, b=die)
    def roll(self, r, w, b):
        self.act("roll", r, w, b)

    @rule()
    def ask(self):
        self.act("ask")

    @rule()
    def answer(self):
        self.act("answer")

    @rule()
    def pass_(self):
        self.act("pass_")

    @rule(who=st.none() | seat)
    def klaxon(self, who):
        answering = self.g.answering
        last = self.g.last_answer()
        res = self.act("klaxon", who)
        if res is not None:
            assert res == (answering, last) and last is not None and who in (None, answering)

    @rule(correct=st.lists(seat, max_size=4), pen=st.dictionaries(seat, st.integers(0, 15), max_size=3))
    def reveal(self, correct, pen):
        self.act("reveal", correct, pen)

    @rule()
    def miss_go(self):
        self.act("miss_go")

    @rule(s=seat, d=st.integers(-20, 20))
    def move(self, s, d):
        self.act("move", s, d)

    @rule()
    def end(self):
        self.act("end")

    @rule()
    def undo(self):
        if self.g.undo():
            assert self.g.to_bytes() == self.snapshots.pop()  # exact inverse

    @invariant()
    def round_trips(self):
        data = self.g.to_bytes()
        h = Game.from_bytes(data)
        assert h.to_bytes() == data and len(data) < 64
        assert (h.phase, h.qm, h.answering, h.challenger, h.challenged, h.positions) == (
            self.g.phase, self.g.qm, self.g.answering, self.g.challenger, self.g.challenged,
            self.g.positions)

    @invariant()
    def consistent(self):
        g = self.g
        assert (g.answering is None) == (g.phase != "answering")
        assert g.answering != g.qm
        assert (g.phase == "over") == bool(g.winners)


TestGameMachine = GameMachine.TestCase
TestGameMachine.settings = settings(max_examples=150, stateful_step_count=40, deadline=None)


@settings(max_examples=2000, deadline=None)
@given(st.binary(max_size=40))
def test_random_bytes_only_ever_raise_value_error(data):
    try:
        g = Game.from_bytes(data)
    except ValueError:
        return
    assert Game.from_bytes(g.to_bytes()).to_bytes() == g.to_bytes()


@settings(max_examples=300, deadline=None)
@given(st.integers(2, 10), st.data())
def test_corrupting_a_saved_game_never_raises_anything_else(n, data):
    g = Game(n)
    g.ask()
    g.answer()
    raw = bytearray(g.to_bytes())
    i = data.draw(st.integers(0, len(raw) - 1))
    raw[i] ^= data.draw(st.integers(1, 255))
    try:
        Game.from_bytes(bytes(raw))
    except ValueError:
        pass
