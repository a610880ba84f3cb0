"""The outcome at the edges of what the referee stores (core.py's ``act``): the seats
past the eighth (the reveal's right answers are 16 bits, two bytes) and a finish past
square 255 (two bytes too)."""

import pytest

from model import Game
from table_keys import A, B, said


@pytest.mark.parametrize("qm", [0, 8])
def test_a_table_of_ten_every_answer_right_moves_all_nine_forward_3(qm):
    """Ten players, every answer marked right at the table: all nine answerers, seats 8
    and 9 among them, move forward 3; the QM stays; the dice pass left."""
    g = Game(10, qm=qm)
    said(g.core, B, *[A] * 9)  # ask; nine answers
    lines = said(g.core, *[A] * 9)  # nine marked right
    want = [0 if s == qm else 3 for s in range(10)]
    assert lines[-2:] == ["reveal", "at " + " ".join(str(p) for p in want)], lines
    assert (g.positions, g.qm) == (want, (qm + 1) % 10)


def test_a_klaxon_between_seats_8_and_9_moves_the_right_one_and_penalises_the_wrong_one():
    """Ten players: seat 9 challenges seat 8's answer; seat 8 was right (forward 3), seat 9
    wrong with a Klaxon penalty of 2 (back 2); seat 1 right too."""
    g = Game(10)
    g.ask()
    for _ in range(8):
        g.answer()  # seats 1 to 8
    assert g.klaxon() == (9, 8)
    g.reveal([1, 8], {9: 2})
    assert g.positions == [0, 3, 0, 0, 0, 0, 0, 0, 3, -2]


@pytest.mark.parametrize("finish", [256, 300, 9999])
def test_a_finish_past_square_255_ends_the_game_when_a_piece_reaches_it_not_before(finish):
    """QK_FINISH past 255: one square short goes on; a right answer onto the finish ends
    the game, and its seat wins."""
    g = Game(3, finish=finish)
    g.move(1, finish - 3)
    g.move(2, finish - 1)
    assert g.phase == "idle"
    lines = said(g.core, B, A, A, A, B)  # both answer; seat 1 right, seat 2 wrong
    assert lines[-3:] == ["reveal", "at 0 %d %d" % (finish, finish - 1), "game over"], lines
    assert (g.phase, g.winners) == ("over", [1])
    g.undo()
    g.undo()
    g.undo()
    g.undo()  # back to before the question
    g.move(2, 1)  # seat 2 onto the finish by a move
    assert (g.phase, g.winners) == ("over", [2])
