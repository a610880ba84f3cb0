"""Holding A or B (issue 26's survivors in Device.button): a hold's length decides its
meaning, to the few ms of the buttons' sampling; the ring previews the meaning a hold
has reached, and only where it means something now; spikes on the buttons' wires are
no presses at any loop speed. Pin levels in, console lines, sounds and the ring out."""

import random

import pytest

from harness import Sim

LONG_MS = 1500  # QK_LONG_MS's default: A held (miss a go), B held (undo); twice: held long


def last_action(sim):
    return sim.events[-1][1].split()[0]


@pytest.mark.parametrize("phase_us", [0, 1, 300, 999])
def test_a_held_for_the_long_time_is_its_held_meaning_and_shorter_a_tap(phase_us):
    """Between questions A is a roll (a tap), A held QK_LONG_MS a miss-a-go, A held
    twice that moves a piece (the seat to move is offered). The hold is timed from the
    press to the release, each taken the same way (two samples agree), so it is
    decided to a sample (4 ms at a 1 ms loop): 1 ms short of each is the meaning before,
    4 ms past it the next."""
    for hold, word in ((LONG_MS - 1, "at"), (LONG_MS + 4, "miss"), (2 * LONG_MS - 1, "miss"),
                       (2 * LONG_MS + 4, "seat")):
        sim = Sim(players=4, phase_us=phase_us)
        sim.press("a", 100, hold)
        sim.run_until_ms(hold + 300)
        assert last_action(sim) == word, (hold, sim.events)


def scenes_while_held(sim, control, at_ms, hold_ms=4800):
    """``control`` held from ``at_ms``: the ring's (colour, pattern)s at 1.0, 1.6, 3.1
    and 4.6 s into the hold, then let go."""
    sim.press(control, at_ms, hold_ms)
    out = []
    for dt in (1000, 1600, 3100, 4600):
        sim.run_until_ms(at_ms + dt)
        out.append(set(sim.scene()))
    sim.run_until_ms(at_ms + hold_ms + 500)
    return out


TABLE = {("white", "steady"), ("off", "steady")}  # four players at 0: the QM's seat lit


def test_the_ring_previews_each_meaning_a_hold_reaches_before_the_first_question():
    """Before the game's first question: A held shows orange (slow), held long sky
    (fast); B held shows blue (slow), held long white (fast): setting up a new game,
    as the game has not begun (not green: ending it)."""
    sim = Sim(players=4)
    assert scenes_while_held(sim, "a", 100) == [TABLE, {("orange", "slow")}, {("sky", "fast")},
                                                 {("sky", "fast")}]
    assert last_action(sim) == "seat"  # moving a piece: the seat offered
    sim = Sim(players=4)
    assert scenes_while_held(sim, "b", 100) == [TABLE, {("blue", "slow")}, {("white", "fast")},
                                                 {("white", "fast")}]
    assert last_action(sim) == "players"  # a new game's count


def test_the_ring_previews_the_end_in_green_once_the_game_has_begun_and_white_once_over():
    """After a question (the game has begun) B held long shows green, fast: letting go
    ends the game. Once it is over, B held long shows white, fast: a new game."""
    sim = Sim(players=4)
    sim.tap("b", 100)  # ask
    sim.tap("a", 500, times=3)  # three answers
    sim.tap("b", 1700, times=3)  # the reveal: all wrong
    sim.run_until_ms(4000)
    assert sim.game.phase == "idle"
    assert scenes_while_held(sim, "b", 4000) == [TABLE, {("blue", "slow")}, {("green", "fast")},
                                                  {("green", "fast")}]
    assert sim.game.phase == "over"
    assert scenes_while_held(sim, "b", 10_000)[2:] == [{("white", "fast")}] * 2


def test_a_held_while_answering_shows_no_preview_and_is_a_slow_answer():
    """During a question A held has no longer meaning: the ring keeps the table (no
    orange, no sky) however long it is held, and letting go is an answer."""
    sim = Sim(players=4)
    sim.tap("b", 100)  # ask: seat 1 answers first
    sim.run_until_ms(500)
    table = set(sim.scene())
    assert all(s <= table for s in scenes_while_held(sim, "a", 500))
    assert last_action(sim) == "answer" and sim.game.answering == 2


def test_a_held_while_counting_a_new_games_players_counts_one_more():
    """Setting up a new game (B held long at the end): A held is still a tap, one more
    player, and shows no preview while held."""
    sim = Sim(players=4)
    sim.press("b", 100, 2 * LONG_MS + 300)  # the game has not begun: a new game
    sim.run_until_ms(3500)
    assert last_action(sim) == "players"
    count = int(sim.events[-1][1].split()[1])
    scenes = scenes_while_held(sim, "a", 4000)
    assert not any(("orange", "slow") in s or ("sky", "fast") in s for s in scenes)
    assert sim.events[-1][1] == "players %d" % (count + 1)


@pytest.mark.parametrize("pass_us", [50, 333, 1000])
@pytest.mark.parametrize("control", ["a", "b"])
def test_spikes_on_a_buttons_wire_are_never_presses(pass_us, control):
    """Crackles on A's or B's wire, each under 2 ms, at any phase and pass time: no
    sound, nothing on the console, the game unchanged."""
    rng = random.Random(pass_us)
    sim = Sim(players=4, pass_us=pass_us, phase_us=rng.randrange(pass_us))
    t = 100_000
    for _ in range(12):
        width = rng.randrange(100, 1990)
        sim.level(control, t, True)
        sim.level(control, t + width, False)
        t += 20_000 + rng.randrange(1000)
    sim.run_until_us(t + 50_000)
    assert sim.sounds() == [] and len(sim.events) == 2, sim.events  # "new", "at 0 0 0 0"


@pytest.mark.parametrize("pass_us", [50, 108])
def test_a_7_ms_tap_always_counts_at_a_fast_loop(pass_us):
    """A fast loop samples the buttons about every 3 ms: a clean 7 ms tap of A (between
    questions: a roll) is always read by two samples, at every phase."""
    rng = random.Random(pass_us + 7)
    sim = Sim(players=4, pass_us=pass_us, phase_us=rng.randrange(pass_us))
    t = 100_000
    for _ in range(16):
        start = t + rng.randrange(1000)
        sim.level("a", start, True)
        sim.level("a", start + 7000, False)
        t += 500_000  # past the roll's flash
    sim.run_until_us(t)
    assert [n for _, n in sim.sounds()] == ["done"] * 16  # each roll's chime
    assert len([line for _, line in sim.events if line.startswith("at ")]) == 1 + 16
