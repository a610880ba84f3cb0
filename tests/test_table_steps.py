"""What a hostile table found after the card was redesigned (issue 22), played at the pin
level on the simulated board: a hold cut short by another press, the sound after the
klaxon, one step back in and after a reveal, and the LED-only Pico's holds."""

from harness import Sim
from model import layout  # noqa: E402  (the slots' names)

import card

HELD = card.hold_ms("B held")  # 1.5 s: the second meaning
LONG = card.hold_ms("B held long")  # 3 s


def question(sim, t=100):
    """Ask, seat 1 answers, seat 2 slams the Klaxon (4 players, QM 0): the reveal."""
    sim.press("b", t, 80)
    sim.press("a", t + 600, 80)
    sim.press("klaxon", t + 1200, 120)
    return t + 1200


def lines(sim, t0=0):
    return [line for t, line in sim.events if t >= t0]


def test_a_slam_during_a_deliberate_hold_calls_the_hold_off():
    """B held past 1½ s (the ring shows undo) after a reveal, and the Klaxon slams at 2 s:
    nothing is undone (the Klaxon buzzes: no question), and letting go of B later does
    nothing either; the reveal's positions stand."""
    sim = Sim(players=4)
    t = question(sim)
    sim.press("a", t + 3000, 80)  # seat 1 right: forward 3
    sim.press("a", t + 3600, 80)  # seat 2 (the challenger) right
    sim.run_until_ms(t + 4500)
    assert sim.game.positions == [0, 3, 3, 0] and sim.game.phase == "idle"
    t0 = t + 5000
    sim.press("b", t0, LONG + 500)  # held towards "end the game": the ring shows undo at 1.5 s
    sim.press("klaxon", t0 + 2000, 120)
    sim.run_until_ms(t0 + LONG + 2000)
    assert sim.game.positions == [0, 3, 3, 0] and sim.game.phase == "idle"
    said = lines(sim, t0)
    assert not [s for s in said if s.startswith(("undo", "end", "miss"))], said
    assert [s for s in said if s.startswith("refused")], said  # the slam: a buzz


def test_a_tap_still_down_when_the_klaxon_slams_counts_first():
    """The answer's button is still down (a slow tap, 0.4 s) when the Klaxon slams: the
    answer counts first and the Klaxon challenges it."""
    sim = Sim(players=4)
    sim.press("b", 100, 80)
    sim.press("a", 700, 400)
    sim.press("klaxon", 900, 120)
    sim.run_until_ms(2000)
    said = lines(sim)
    assert "answer 1" in said and "klaxon 2 1" in said, said
    assert said.index("answer 1") < said.index("klaxon 2 1")


def test_after_the_klaxon_a_finished_reveal_is_heard_as_its_chime():
    """Marks made while the klaxon still sounds: their sounds wait for it, and the one that
    follows says the most: the reveal's two notes up, not the tick."""
    sim = Sim(players=4)
    t = question(sim)
    sim.press("a", t + 300, 60)  # seat 1 right
    sim.press("a", t + 600, 60)  # seat 2 right: the reveal is done, the dice pass left
    sim.run_until_ms(t + 4000)
    assert sim.game.positions == [0, 3, 3, 0]
    after = [name for at, name in sim.sounds() if at > t + 10]
    assert after == ["done"], sim.sounds()


def test_one_step_back_in_the_reveal_reopens_a_penalty_at_its_count():
    """Challenged marked wrong, penalty 2, done; challenger marked wrong (no penalty); B held:
    the challenger's mark comes off; B held again: back into the challenged's count, at 2
    (not thrown away); B: that penalty again, and the reveal ends as before."""
    sim = Sim(players=4)
    t = question(sim)
    for i, c in enumerate(("b", "a", "a", "b", "b", "b")):  # wrong, +1, +1, done, wrong, none
        sim.press(c, t + 2000 + 500 * i, 80)
    sim.run_until_ms(t + 5500)
    assert sim.game.positions == [0, -2, 0, 0]
    t0 = t + 6000
    sim.press("b", t0, HELD + 300)  # back one step: into the reveal, the challenger's
    sim.press("b", t0 + 2500, HELD + 300)  # penalty count (0) open again; its mark off;
    sim.press("b", t0 + 5000, HELD + 300)  # the challenged's count, at 2
    sim.run_until_ms(t0 + 9800)
    said = lines(sim, t0)
    assert said[:2] == ["undo", "at 0 0 0 0"] and said[2:] == [
        "count 0", "unmark 2", "count 2"], said
    assert sim.game.phase == "reveal" and sim.game.positions == [0, 0, 0, 0]
    sim.press("b", t0 + 10000, 80)  # done: 2 again
    sim.press("a", t0 + 10600, 80)  # the challenger right this time
    sim.run_until_ms(t0 + 11500)
    assert sim.game.positions == [0, -2, 3, 0], lines(sim, t0)


def test_the_led_only_pico_shows_a_hold_reaching_its_steps():
    """A Pico with only its LED: nothing lights while B is held under 1½ s; from 1½ s it
    blinks slowly, from 3 s fast (the card's LED note); letting go ends it."""
    sim = Sim(players=4, board_name="pico")
    assert sim.device.p[layout.PX] is None and sim.device.p[layout.LED] is not None
    sim.press("b", 100, 80)  # ask
    sim.run_until_ms(1500)
    t0 = 2000
    sim.press("b", t0, LONG + 1100)

    def seen(a, b):
        out = []
        for t in range(a, b, 8):
            sim.run_until_ms(t)
            out.append(bool(sim.device.p[layout.LED].value))
        return out

    before = seen(t0 + 100, t0 + HELD - 20)
    slow = seen(t0 + HELD + 50, t0 + LONG - 20)
    fast = seen(t0 + LONG + 50, t0 + LONG + 1050)
    assert not any(before)
    edges = [sum(a != b for a, b in zip(x, x[1:])) for x in (slow, fast)]
    assert 1 <= edges[0] <= 3 and edges[1] >= 6, edges  # 1 s a blink slowly; 128 ms fast
    sim.run_until_ms(t0 + LONG + 1100 + 500)  # the end's chime flash over
    assert "end" in lines(sim, t0) and not sim.device.p[layout.LED].value
