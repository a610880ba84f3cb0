"""One outcome formula, played both ways: the reveal's outcome (right answers forward 3, the
Klaxon parties' penalties back) is written in the core (lib/qiklaxon/core.py, ``act`` op 6,
which the board runs) and checked beforehand in ``Game.reveal`` (model/game.py,
which refuses a reveal that would move a piece off the board). Every outcome is played
through both, and through the rules as rules.md states them: every combination of
challenger and challenged right or wrong, their penalties 0, 1, 12 and 99, the other
answers right or wrong, 2 to 10 players, positions in mid-board and at +-32767."""

import itertools
from array import array

import pytest

from qiklaxon.core import Referee
from model.game import RIGHT_SQUARES, OPS, POSITION_LIMIT, Game
from model import layout  # noqa: E402  (the slots' names)

PENALTIES = (0, 1, 12, 99)
LIMIT = POSITION_LIMIT


def questions(n):
    """For ``n`` players, QM 0: the questions up to the reveal, as the answering seats'
    actions in turn ("answer", "pass", "klaxon"): no Klaxon (all answer; answers and
    passes), and a Klaxon at every place it can come, after all answers or after a pass."""
    order = list(range(1, n))
    out = [["answer"] * len(order), [("answer", "pass")[i & 1] for i in range(len(order))]]
    for j in range(1, len(order)):  # the Klaxon by the j-th seat asked
        out.append(["answer"] * j + ["klaxon"])
        if j >= 2:  # the one before it passed: the challenged is two seats back
            out.append(["answer"] * (j - 1) + ["pass", "klaxon"])
        if j >= 3:
            out.append([("pass", "answer")[i & 1] for i in range(j - 1)] + ["answer", "klaxon"])
    return out


def _reveal_state(n, acts):
    g = Game(n, 0)
    g.ask()
    for a in acts:
        if a == "klaxon":
            assert g.klaxon() is not None
            break
        getattr(g, "pass_" if a == "pass" else a)()
    assert g.phase == "reveal", (n, acts)
    return g


def rules(n, right, challenger, challenged, back):
    """Each seat's move at the reveal, as rules.md says it."""
    out = []
    for s in range(n):
        if s in right:
            out.append(RIGHT_SQUARES)
        elif s == challenger:
            out.append(-back[0])
        elif s == challenged:
            out.append(-back[1])
        else:
            out.append(0)
    return out


def _core(r):
    """A copy of referee ``r`` (its state, log and entry)."""
    c = Referee.__new__(Referee)
    c.__dict__.update(r.__dict__)
    c.S, c.B, c.L = bytearray(r.S), bytearray(r.B), bytearray(r.L)
    c.P, c.Q = array("h", r.P), array("h", r.Q)
    c.u = list(r.u)
    return c


def _game(g):
    """A copy of game ``g``."""
    c = Game.__new__(Game)
    c.core = _core(g.core)
    c.refusal = None
    return c


def core_moves(g, mask, back, at):
    """The core on its own: positions ``at`` before, act(6) after (clamped at +-32767)."""
    r = _core(g.core)
    n = r.S[layout.PLAYERS]
    r.P[:n] = array("h", at)
    assert r.act(OPS["reveal"], mask >> 8, mask & 255, back[0], back[1]) == 0
    return list(r.P[:n]), r


def positions(move, parties):
    """Positions to try for moves ``move``: mid-board; every seat at its edge (the move
    takes it exactly to +-32767); and one square past it in turn each of the Klaxon
    ``parties`` and the first and last other seats of each move."""
    n = len(move)
    others = [s for s in range(n) if s not in parties]
    firsts = {move[s]: s for s in reversed(others)}
    lasts = {move[s]: s for s in others}
    mid = [(-1) ** s * (37 * s + 5) for s in range(n)]
    edge = [LIMIT - m if m > 0 else -LIMIT - m if m < 0 else (LIMIT if s & 1 else -LIMIT)
            for s, m in enumerate(move)]
    out = [mid, edge]
    for s, m in enumerate(move):
        if m and (s in parties or s in (firsts.get(m), lasts.get(m))):
            past = list(edge)
            past[s] += 1 if m > 0 else -1
            out.append(past)
    return out


def cases(n):
    """Every reveal to try with ``n`` players: (n, the actions, the game at its reveal,
    the seats right, the challenger's penalty, the challenged's)."""
    if n:
        for acts in questions(n):
            base = _reveal_state(n, acts)
            answered = [s for s in range(n) if base.mark(s) == 1]
            ch, cd = base.challenger, base.challenged
            others = [s for s in answered if s not in (ch, cd)]
            for ch_right, cd_right in itertools.product((False, True), repeat=2):
                if ch is None and (ch_right or cd_right):
                    continue
                for pattern in ("all wrong", "all right", "alternate")[:2 + (len(others) > 1)]:
                    right = {s for i, s in enumerate(others)
                             if pattern == "all right" or pattern == "alternate" and i & 1}
                    if ch is not None:
                        right |= {ch} if ch_right else set()
                        right |= {cd} if cd_right else set()
                    for c, d in itertools.product(PENALTIES, repeat=2):
                        if ch is None and (c or d):
                            continue
                        yield n, acts, base, right, c, d


@pytest.mark.parametrize("players", range(2, 11))
def test_every_outcome_agrees_between_the_game_the_core_and_the_rules(players):
    played = refused_off = refused_both = 0
    for n, acts, base, right, c, d in cases(players):
        ch, cd = base.challenger, base.challenged
        penalties = {}
        if ch is not None:
            penalties = {ch: c, cd: d}
        mask = sum(1 << s for s in right)
        if (c and ch in right) or (d and cd in right):
            # a right answer carries no penalty: Game refuses to take both, changing nothing
            g = _game(base)
            before = list(g.positions)
            try:
                g.reveal(sorted(right), penalties)
            except ValueError as e:
                assert "both right and penalised" in str(e)
            else:
                raise AssertionError("a right answer was penalised: %r" % ((n, acts, right, c, d),))
            assert list(g.positions) == before and g.phase == "reveal"
            refused_both += 1
            continue
        back = (c if ch not in right else 0, d if cd not in right else 0)
        move = rules(n, right, ch, cd, back)
        # the core's own move, where nothing clamps, is the rules'
        assert [p - q for p, q in zip(core_moves(base, mask, back, [0] * n)[0], [0] * n)] == move
        for at in positions(move, (ch, cd)):
            after, r = core_moves(base, mask, back, at)
            off = any(not -LIMIT <= p + m <= LIMIT for p, m in zip(at, move))
            assert after == [max(-LIMIT, min(LIMIT, p + m)) for p, m in zip(at, move)]
            g = _game(base)
            g.core.P[:n] = array("h", at)
            try:
                g.reveal(sorted(right), penalties)
            except ValueError as e:
                # Game refuses exactly the reveals the core would have to clamp
                assert off and "off the board" in str(e), (n, acts, right, c, d, at, str(e))
                assert list(g.positions) == at and g.phase == "reveal"
                refused_off += 1
                continue
            assert not off, (n, acts, right, c, d, at)
            assert list(g.positions) == after  # ... and takes the others as the core moves
            assert bytes(g.core.S) == bytes(r.S)  # the same turn and phase after it
            played += 1
    # every kind of case came up, many times (two players: no Klaxon, so no penalty)
    assert played >= 8 and refused_off >= 2, (played, refused_off)
    assert refused_both >= 50 or players == 2, refused_both


def test_the_cases_cover_every_party_outcome_and_table_size():
    seen = set()
    for n, acts, base, right, c, d in itertools.chain(*(cases(n) for n in range(2, 11))):
        ch, cd = base.challenger, base.challenged
        seen.add((n, ch is not None, ch in right, cd in right, c, d))
    for n in range(3, 11):  # (two players: nobody can have answered before a Klaxon)
        for ch_right, cd_right, c, d in itertools.product((False, True), (False, True),
                                                          PENALTIES, PENALTIES):
            assert (n, True, ch_right, cd_right, c, d) in seen
    assert (2, False, False, False, 0, 0) in seen


def test_a_penalty_for_anyone_else_moves_nobody():
    g = _reveal_state(5, ["answer", "answer", "klaxon"])  # seat 3 challenges seat 2
    g.reveal([1], {1: 0, 4: 12})
    assert list(g.positions) == [0, 3, 0, 0, 0]
