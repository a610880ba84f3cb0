"""The scoreboard (tools/scoreboard.py, web/scoreboard.js, tools/web.py --serial) under a
hostile table and cable: the cases tests/test_scoreboard.py does not play. Each test
holds what a person watching the scoreboard sees to what the board's game is, with the
host harness as the board (its simulated clock: nothing sleeps)."""

import harness
import scenario
import scoreboard
from test_scoreboard import check, explained, follow


def test_a_roll_to_the_finish_shows_the_end_not_the_roll():
    """QK_FINISH = 1: the QM's first roll reaches the finish, and the board's ring shows
    the game's end, not the roll (hardware/device.py press(): ``a roll to the finish: the
    end shows``). The scoreboard's mirror ends no game itself (it follows ``game over``,
    the line after the roll's): its ring must drop the roll there too, not play the
    dice after the game is over (``follow`` holds the two rings' flash and roll equal)."""
    sim = harness.Sim(players=4, settings="QK_FINISH = 1\n")
    for t, pressed, control in scenario.taps("400 a"):
        sim.level(control, t * 1000, pressed)
    board, watch, fed, asks = follow(sim, 3500)
    said = [line for _, line in sim.events]
    assert said[-3:] == ["roll 5 2 4", "at 2 0 0 0", "game over"], said
    assert asks == [0]
    explained(sim, fed, asks)
    assert check(sim, watch, fed) >= 2
    v = board.view()
    assert v["phase"] == "over" and v["winners"] == [0]
    assert not board.f[scoreboard.L.DICE]
