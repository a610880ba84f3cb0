"""The referee's keys at the moments where a slip would show (core.py's ``key`` and
``act``): a new game set up before the first question, the end between questions, the
keys once the game is over, a Klaxon between questions, and the dice the referee rolls
for the table. What the table sees: the console lines, the key's result (which sound the
device plays: 0 the denied buzz), the positions, the QM and the phase."""

import random

from model import Game
from table_keys import A, A_HELD, B, B_2S, B_HELD, new_game, said

K = 0  # the Klaxon


def pressed(r, key):
    """Key ``key`` on referee ``r``: (what became of it, the console lines)."""
    result = []
    real = r.key
    r.key = lambda k: result.append(real(k))  # (said() presses it; this keeps its answer)
    try:
        lines = said(r, key)
    finally:
        del r.key
    return result[0], lines


def test_before_the_first_question_the_qm_sets_up_a_new_game_and_it_starts():
    """Switched on with the wrong number of players: before the game's first question
    (a roll is no question) B held 2 sets up a new game, and the game of 3 that the QM
    sets up starts, seat 2 the first QM, every piece on 0."""
    g = Game(5, qm=1)
    g.core.dice = lambda lo, hi: 4
    assert said(g.core, A) == ["roll 4 4 4", "at 0 4 0 0 0"]
    lines = new_game(g.core, 3, first_qm=2)
    assert lines[-2:] == ["new", "at 0 0 0"], lines
    assert (g.phase, g.players, g.qm, g.positions) == ("idle", 3, 2, [0, 0, 0])
    assert said(g.core, B) == ["ask 2"]  # and it plays: seat 2 asks, seat 0 answers first
    assert g.answering == 0


def test_between_questions_b_held_long_ends_the_game_and_the_leader_wins():
    """After a question, between questions: B held 2 ends the game (it does not set up a
    new one); the winner is the seat ahead."""
    g = Game(3)
    said(g.core, B, A, A, A, B)  # seat 1 right, seat 2 wrong
    assert (g.phase, g.qm, g.positions) == ("idle", 1, [0, 3, 0])
    result, lines = pressed(g.core, B_2S)
    assert (result, lines) == (3, ["end", "at 0 3 0", "game over"])
    assert (g.phase, g.winners) == ("over", [1])


def test_once_the_game_is_over_a_and_b_are_refused_and_change_nothing():
    """The game is over: A, A held and B are refused (the buzz; nothing said), the Klaxon
    says the game is over; the positions, the QM and the end stay."""
    g = Game(4)
    g.move(2, 5)
    g.end()
    before = g.to_bytes()
    for key in (A, A_HELD, B, A, B):
        assert pressed(g.core, key) == (0, []), key
    assert pressed(g.core, K) == (0, ["refused the game is over"])
    assert g.to_bytes() == before and (g.phase, g.winners) == ("over", [2])


def test_a_klaxon_between_questions_is_refused_with_no_question_running():
    """Between two questions (not before the game's first: that press is a try) the
    Klaxon is refused: no question running, and nothing changes."""
    g = Game(3)
    said(g.core, B, A, B, A)  # seat 1 answers, seat 2 passes, seat 1 right
    before = g.to_bytes()
    assert pressed(g.core, K) == (0, ["refused no question running"])
    assert g.to_bytes() == before


def test_the_referees_dice_show_every_face_and_only_faces():
    """The referee rolls for the table with the dice it is given (random.randint on the
    board): over many rolls each die shows every face from 1 to 6 and nothing else, and
    the QM moves by the white die each time."""
    g = Game(2)
    g.core.dice = random.Random(26).randint
    faces = [set(), set(), set()]
    moved = 0
    for _ in range(150):
        lines = said(g.core, A)
        red, white, blue = [int(x) for x in lines[0].split()[1:]]
        for die, face in zip(faces, (red, white, blue)):
            die.add(face)
        moved += white
        assert g.positions == [moved, 0] and g.question == red * 100 + white * 10 + blue
    assert faces == [set(range(1, 7))] * 3
    said(g.core, B_HELD)  # (undo: the last roll taken back)
    assert g.positions == [moved - white, 0]
