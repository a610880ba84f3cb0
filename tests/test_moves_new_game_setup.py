"""Setting up a new game at the table, step by step (lib/qiklaxon/over.py): every step
back the QM can take, what the console says at each, the settings a new game keeps,
and what the ring shows while the QM sets it up. The keys are tests/table_keys.py's."""

import pytest

from harness import Sim
from model import Game
from table_keys import A, B, B_2S, B_HELD, new_game, said


def _over(players=4, qm=2, finish=None):
    g = Game(players, qm=qm, finish=finish)
    g.end()
    return g


def test_counting_the_players_down_stops_at_2_and_the_next_step_back_leaves_the_set_up():
    """B held counts a new game's players down one at a time to 2, never fewer; held
    once more it leaves the set-up: the game stays over as it was, A and B do nothing,
    and B held long starts a set-up afresh from the game's own count."""
    g = _over(players=4)
    lines = said(g.core, B_2S, A, B_HELD, B_HELD, B_HELD, B_HELD)
    assert lines == ["players 4", "players 5", "players 4", "players 3", "players 2", "back"]
    assert said(g.core, A, B, A) == []  # the game is over: nothing for them
    assert (g.phase, g.players, g.qm) == ("over", 4, 2)
    assert said(g.core, B_2S) == ["players 4"]


@pytest.mark.parametrize("step", ["players", "first QM"])
def test_a_long_hold_leaves_the_set_up_at_any_step_and_another_starts_it_afresh(step):
    """B held long in the set-up, while counting the players or choosing the first QM,
    leaves it: A and B then do nothing, the game stays over, and the next long hold
    sets up a game again, from the game's own count."""
    g = _over(players=4)
    keys = [B_2S, A, A] + ([B, A] if step == "first QM" else []) + [B_2S]
    lines = said(g.core, *keys)
    assert lines[-1] == "back", lines
    assert said(g.core, A, B, A) == []
    assert (g.phase, g.players) == ("over", 4)
    assert said(g.core, B_2S, A) == ["players 4", "players 5"]


def test_one_step_back_from_the_first_qm_is_the_count_again():
    """Choosing a new game's first QM, B held goes back to the players' count, where A
    still counts on; the game then starts with the count and the first QM chosen after."""
    g = _over(players=4, qm=2)
    lines = said(g.core, B_2S, A, B, A, B_HELD, A, B, A, A)
    assert lines == ["players 4", "players 5", "first 2", "first 3", "back", "players 6",
                     "first 2", "first 3", "first 4"]
    said(g.core, B)
    assert (g.phase, g.players, g.qm, g.positions) == ("idle", 6, 4, [0] * 6)


@pytest.mark.parametrize("first_qm, players, offered", [(2, 4, 2), (3, 4, 3), (5, 4, 0), (0, 2, 0),
                                                        (9, 10, 9)])
def test_a_new_game_offers_the_first_qm_setting_when_it_has_that_seat(first_qm, players,
                                                                       offered):
    """The first QM offered in a new game is QK_FIRST_QM's seat, when the new game has
    it (else seat 0); B at once starts the game with that QM."""
    g = Game(10, qm=first_qm)
    g.end()
    lines = new_game(g.core, players)
    assert [x for x in lines if x.startswith("first")] == ["first %d" % offered]
    assert (g.phase, g.players, g.qm) == ("idle", players, offered)


@pytest.mark.parametrize("finish", [300, 9999, 255, 256])
def test_a_new_game_keeps_the_finish_setting(finish):
    """QK_FINISH holds for every game set up at the table: the new game ends when a piece
    reaches that square, not a square before."""
    g = _over(players=3, finish=finish)
    new_game(g.core, 3)
    assert (g.phase, g.finish) == ("idle", finish)
    g.move(1, finish - 1)
    assert g.phase == "idle"
    g.move(1, 1)
    assert (g.phase, g.winners) == ("over", [1])


# ------------------------------------------------------------------ on the ring
def _shown(sim, *keys):
    """Keys pressed on the device's referee, as its buttons send them; then what each
    pixel shows (colour, pattern)."""
    lines = said(sim.device.r, *keys)
    sim.device.render()  # (the device draws after every key)
    sim.run_for_ms(50)
    return lines, sim.scene()


def test_the_ring_counts_a_new_games_players_in_sky_then_blinks_the_first_qm_white():
    """Setting up: the ring shows the players counted as that many sky pixels, each on the
    light its seat will have in the new game (issue 31: set-up shows what the game will
    use); choosing the first QM, that seat of the new game blinks white, fast, the
    others' seats grey."""
    sim = Sim(players=4, qm=2)
    sim.run_until_ms(200)
    sim.game.move(1, 5)
    sim.game.end()
    off = ("off", "steady")
    for keys, count in (((B_2S,), 4), ((A,), 5), ((B_HELD, B_HELD), 3)):
        lines, scene = _shown(sim, *keys)
        assert lines[-1] == "players %d" % count
        want = [off] * 10
        for s in range(count):
            want[sim.pixel_of(s, count)] = ("sky", "steady")
        assert scene == want, lines
    lines, scene = _shown(sim, A, A, B)  # 5 players; the first QM offered: seat 2
    for qm in (2, 3, 4, 0):
        assert lines[-1] == "first %d" % qm
        want = [off] * 10
        for s in range(5):
            want[sim.pixel_of(s, 5)] = ("white", "fast") if s == qm else ("grey", "steady")
        assert scene == want, (qm, scene)
        lines, scene = _shown(sim, A)
    lines, scene = _shown(sim, B_HELD)  # back to the count
    assert lines == ["back"] and scene == [
        ("sky", "steady") if i in (0, 2, 4, 6, 8) else off for i in range(10)]


def test_at_the_end_a_short_strip_shows_the_first_seats_and_their_winner():
    """Six players and a 4-pixel strip (QK_PIXELS = 4): at the end each pixel is one of
    the first four seats, the winner's blinking green, the rest grey."""
    sim = Sim("QK_PIXELS = 4\n", board_name="pico", players=6)
    sim.run_until_ms(200)
    for winner in (1, 3):
        sim.game.move(winner, 5)
        sim.game.end()
        _, scene = _shown(sim)
        want = [("grey", "steady")] * 4
        want[winner] = ("green", "fast")
        assert scene == want, (winner, scene)
        sim.game.undo()
        sim.game.move(winner, -5)
