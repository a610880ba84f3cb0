"""Undo and the game's log (lib/qiklaxon/undo.py): a reveal undone comes back with its
marks as the QM made them, however many seats; a long game's log, folded, still lets the
QM undo a new game back to the game that ended; and a saved log that no play makes is
refused at power-up. The keys are tests/table_keys.py's."""

from harness import Sim
from model import Game
from table_keys import A, B, B_HELD, said


def test_a_reveal_undone_keeps_every_mark_and_marked_again_gives_the_same_outcome():
    """Ten players all answered; the QM marks them (A right, B wrong) and the outcome
    moves the pieces. Undone, the reveal comes back with every mark as it was but its
    last (seat 9's, at the far end with seat 8 of the marks); marking seat 9 again as
    before gives exactly the same outcome."""
    for right in ({1, 8, 9}, {9}, {8}, {2, 8}, {1, 2, 3, 4, 5, 6, 7}, {8, 9}):
        g = Game(10)
        said(g.core, B, *[A] * 9)  # ask; seats 1 to 9 answer
        marks = [A if s in right else B for s in range(1, 10)]
        lines = said(g.core, *marks)
        assert lines[-2] == "reveal"
        after = g.positions
        assert after == [3 if s in right else 0 for s in range(10)]
        assert said(g.core, B_HELD) == ["undo", "at" + " 0" * 10, "unmark 9"]
        assert g.phase == "reveal"
        lines = said(g.core, marks[-1])
        assert lines[0] == "%s 9" % ("right" if 9 in right else "wrong")
        assert g.positions == after, (right, lines)


def _question(g, right):
    g.ask()
    for _ in range(g.players - 1):
        g.answer()
    g.reveal(right)


def test_a_new_game_in_a_long_log_is_undone_back_to_the_end_of_the_game_before():
    """Two questions, the end, a new game, six rolls and a question fill the log; the
    next roll folds its oldest part away. The QM undoing everything since still gets back
    through the new game to the old game's end, its pieces where they were: the fold
    keeps the end, as it keeps the start of a question."""
    g = Game(10)
    _question(g, [1])
    _question(g, [3, 4])
    g.end()
    ended = g.positions
    g.new_game()
    for _ in range(6):
        g.roll(1, 2, 3)
    _question(g, [5])
    g.roll(2, 2, 2)  # (the log folds here)
    steps = []
    while g.undo():
        steps.append((g.phase, g.positions))
    assert steps[-2] == ("idle", [0] * 10)  # the new game as it started
    assert steps[-1] == ("over", ended)  # and before it, the old game's end
    assert len(steps) == 19  # every action since the end


# ------------------------------------------------------------------ saved logs at power-up
def _powered_up_with(log, asked=False):
    """A game of 4 saved with ``log`` as its log (after an ask if ``asked``): the device
    that powers up from it, and its console lines."""
    sim = Sim(players=4)
    sim.run_until_ms(300)
    r = sim.device.r
    if asked:
        sim.game.ask()
    n = r.n
    r.L[n:n + len(log)] = bytes(log)
    r.n = n + len(log)
    r.save()
    after = Sim(players=4, nvm=sim.nvm)
    after.run_until_ms(300)
    return after, [x for _, x in after.events]


def test_a_saved_log_with_a_reveal_no_question_reached_is_damaged():
    """A saved log that checks but holds a reveal where no question was waiting for one
    (between questions, with seats marked or a penalty; or while still answering) is
    damaged: power-up says so and starts a new game."""
    for what, log, asked in (
            ("seats 8, 9 right", [6, 1, 0, 0, 0], False),
            ("seats 0 to 7 right", [6, 0, 1, 0, 0], False),
            ("a challenger's penalty", [6, 0, 0, 3, 0], False),
            ("a challenged's penalty", [6, 0, 0, 0, 3], False),
            ("while answering", [6, 0, 0, 0, 0], True)):
        after, lines = _powered_up_with(log, asked)
        assert "the saved game is damaged: a new game starts" in lines, (what, lines)
        assert (after.game.phase, after.game.positions) == ("idle", [0, 0, 0, 0]), what


def test_an_older_firmwares_reveal_of_a_question_everyone_passed_still_resumes():
    """Older firmware logged a reveal (nothing right, no penalty) after a question that
    everyone passed; today that question is over at its last pass. Such a saved game
    resumes: the dice have passed left, and the game plays on."""
    after, lines = _powered_up_with([2, 4, 4, 4, 6, 0, 0, 0, 0])  # ask, 3 passes, reveal
    assert not any("damaged" in x for x in lines), lines
    g = after.game
    assert (g.phase, g.qm, g.positions) == ("idle", 1, [0, 0, 0, 0])
    g.ask()
    assert g.answering == 2
