"""The saved game's log replayed through the referee's own rules at power-up (core.py's
``act`` refuses an action with an argument the board cannot take, and then the record is
damaged), and what a save costs the flash: nothing, when the game did not change."""

import pytest

from harness import Sim


def _resumed(sim):
    """The game on ``sim`` saved and the power cycled: the Sim after, and whether it said
    the saved game is damaged."""
    sim.device.r.save()
    after = Sim(players=4, nvm=sim.nvm)
    after.run_until_ms(300)
    return after, "the saved game is damaged: a new game starts" in [x for _, x in after.events]


def _a_move_of_seat_4(g):
    g.move(3, 2)  # the log: MOVE seat 3, +2 ...
    return 1, 4  # ... its seat byte made 4: a seat the game of 4 has not got


def _a_new_game_whose_first_qm_is_seat_4(g):
    g.end()
    g.new_game(4, 3)  # the log: END, NEW 4 players, first QM 3 ...
    return 3, 4  # ... its QM byte made 4


@pytest.mark.parametrize("action", [_a_move_of_seat_4, _a_new_game_whose_first_qm_is_seat_4])
def test_a_saved_log_with_an_action_for_a_seat_the_game_has_not_got_is_not_resumed(action):
    """A record that checks but whose log holds an action no table makes (a seat past the
    game's last) is damaged: power-up says so and a new game starts that plays."""
    sim = Sim(players=4)
    sim.run_until_ms(300)
    at, value = action(sim.game)
    sim.device.r.L[at] = value
    after, damaged = _resumed(sim)
    assert damaged
    g = after.game
    assert (g.players, g.qm, g.phase, g.positions) == (4, 0, "idle", [0, 0, 0, 0])
    after.tap("b", 400)  # ask: seat 1's turn
    after.run_until_ms(800)
    assert g.answering == 1


def test_the_same_record_unchanged_resumes():
    """(The records above, their bytes as play made them, resume: it is the seat alone
    that makes them damaged.)"""
    for action in (_a_move_of_seat_4, _a_new_game_whose_first_qm_is_seat_4):
        sim = Sim(players=4)
        sim.run_until_ms(300)
        action(sim.game)
        want = sim.game.to_bytes()
        after, damaged = _resumed(sim)
        assert not damaged and after.game.to_bytes() == want


def test_a_klaxon_try_before_the_first_question_writes_nothing_to_the_flash():
    """Switched on, the Klaxon slammed before the first question (a try: it sounds and
    counts for nothing): the game did not change, so nothing is saved, where an ask is
    saved a second after it (each save wears the flash)."""
    sim = Sim(players=4)
    before = bytes(sim.nvm.mem)
    sim.press("klaxon", 300, 100)
    sim.run_until_ms(2700)
    assert [n for _, n in sim.sounds()] == ["klaxon"]
    assert bytes(sim.nvm.mem) == before
    sim.tap("b", 2700)  # the first question asked: the game changed
    sim.run_until_ms(4100)
    assert bytes(sim.nvm.mem) != before
