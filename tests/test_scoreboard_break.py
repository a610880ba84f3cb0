"""The scoreboard (tools/scoreboard.py, web/scoreboard.js, tools/web.py --serial) under a
hostile table and cable: the cases tests/test_scoreboard.py does not play. Each test
holds what a person watching the scoreboard sees to what the board's game is, with the
host harness as the board (its simulated clock: nothing sleeps)."""

import events as E
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


def _ring_names(board, now_ms):
    px, scene = board.ring(now_ms)
    return [(E.COLOUR_NAMES[k], E.PATTERN_NAMES[p]) for k, p in scene]


def _board_ring_names(sim):
    return [sim.scene()[-i % 10] for i in range(10)]  # (pixel order, counter-clockwise)


def test_the_klaxon_held_at_power_on_then_let_go_leaves_no_purple_ring():
    """A board powered on with the Klaxon held (a hand on it, a button wedged) says
    ``fault: the Klaxon is held down at power-on; release it`` and rings purple; let go,
    it says ``fault cleared: the Klaxon is released`` and its ring is the game's. The
    scoreboard, listening from power-on (every line), must do the same: it took that
    fault for the referee's (whose end is another line), and its ring stayed purple for
    the rest of the game while the board's showed the seats."""
    sim = harness.Sim(players=4, held=("klaxon",))
    sim.level("klaxon", 1500 * 1000, False)
    sim.type_in(10 * 1000)
    sim.play(scenario.taps("3000 b\n3600 a"), 5000)
    said = [line for _, line in sim.events]
    assert said[0] == "fault: the Klaxon is held down at power-on; release it"
    assert "fault cleared: the Klaxon is released" in said
    board = scoreboard.Scoreboard()
    for t, line in sim.events:
        board.feed(line, t)
    assert board.synced and board.table() == scoreboard.table(sim.device.r)
    assert board.view()["fault"] is None
    assert _ring_names(board, 5000) == _board_ring_names(sim)
