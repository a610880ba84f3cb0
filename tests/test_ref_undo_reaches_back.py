"""How far back the QM's undo reaches (core.py's ``log``: the log of 64 bytes is folded
only between questions, and only once it is past 48 bytes, so that a whole question of
ten players still fits; an answer, a Klaxon or a reveal never folds it). Until then every
action of the game can be taken back, back to the game as it started."""

import pytest

from model import Game
from table_keys import move_chosen_forward, start_moving_a_piece


def _to_48_bytes(g):
    """Five questions of four players, a roll and a miss: the log holds 48 bytes (ask 1,
    an answer 1, a reveal 5, a roll 2, a miss 1), the most it holds unfolded. Returns
    how many actions that was."""
    for q in range(5):
        g.ask()
        for _ in range(3):
            g.answer()
        g.reveal([(g.qm + 1 + q) % 4] if (g.qm + 1 + q) % 4 != g.qm else [])
    g.roll(2, 3, 4)
    g.miss_go()
    return 5 * 5 + 2


def _question(g):
    g.ask()
    for _ in range(3):
        g.answer()
    g.reveal([(g.qm + 1) % 4])
    return 5


def _move(g):
    start_moving_a_piece(g.core)
    move_chosen_forward(g.core, 2)
    return 1


@pytest.mark.parametrize("then", [_question, _move], ids=["a question", "a piece moved"])
def test_with_48_bytes_logged_the_next_question_or_move_can_still_be_undone_to_the_start(then):
    """48 bytes logged: a whole question (ask, answers, reveal) or a piece moved at the
    table still folds nothing, so the QM can undo every action back to the new game."""
    g = Game(4)
    start = g.to_bytes()
    actions = _to_48_bytes(g) + then(g)
    assert g.positions != [0, 0, 0, 0]
    undone = 0
    while g.undo():
        undone += 1
    assert (undone, g.to_bytes()) == (actions, start)
