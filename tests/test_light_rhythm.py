"""The ring's rhythm, as the table sees it: a slow blink is half a second on, half off; a
fast one an eighth of a second on, an eighth off; a flash alternates its colour with
white every eighth of a second. All keep time with the board's clock (128 ms steps of
``ticks_ms``), so every blinking pixel blinks together. The card says "blinking slowly"
and "blinking fast" (tools/gen/card.py); these are what it means."""

import pytest

import hardware.device as D
from harness import Sim
from test_table import LONG, Table


def lit(sim, seat, players):
    """The NeoPixel seat ``seat`` lights (the Circuit Playground numbers its ring the
    other way round from the seats)."""
    i, np = sim.pixel_of(seat, players), len(sim.device.c) // 2
    return -i % np if sim.device.f[D._CCW] else i


def watch(sim, pixel, ms, every=8):
    """[(ticks_ms, colour)] of ``pixel`` every ``every`` ms for ``ms`` ms."""
    out = []
    for _ in range(ms // every):
        sim.run_for_ms(every)
        out.append((D.ticks_ms(), sim.ring()[pixel]))
    return out


def step(ticks):
    return ticks >> 7 & 7  # the board's 128 ms step, 0..7


def settled(ticks):
    """Not in a step's first 8 ms: the ring is redrawn on the 8th pass, so up to 8 ms
    after the step turns (at 1 ms passes) it may still show the step before."""
    return ticks & 127 >= 8


@pytest.mark.parametrize("board", ["simulated", "cpx"])
def test_the_answering_seat_blinks_slowly_half_a_second_on_half_off(board):
    t = Table(board, players=4)
    t.ask()  # seat 1 to answer: yellow, blinking slowly
    seen = watch(t.sim, lit(t.sim, 1, 4), 3000)
    for ticks, colour in seen:
        if settled(ticks):
            assert colour == ("yellow" if step(ticks) < 4 else "off"), (ticks, colour)


@pytest.mark.parametrize("board", ["simulated", "cpx"])
def test_the_reveal_blinks_fast_an_eighth_on_an_eighth_off_and_the_challenged_slowly(board):
    t = Table(board, players=4)
    t.ask()
    t.answer()  # seat 1
    t.klaxon()  # seat 2 challenges seat 1: the reveal
    sim = t.sim
    t.wait(500)  # (the klaxon's flash over)
    one, two = lit(sim, 1, 4), lit(sim, 2, 4)
    for _ in range(300):
        sim.run_for_ms(8)
        ticks, ring = D.ticks_ms(), sim.ring()
        if not settled(ticks):
            continue
        # seat 1's answer, the one to mark: fast; seat 2 the challenger: fast; seat 1 is also
        # the challenged, but marking comes first
        assert ring[one] == ("yellow" if not step(ticks) & 1 else "off"), ticks
        assert ring[two] == ("vermillion" if not step(ticks) & 1 else "off"), ticks


def test_the_challenged_blinks_sky_slowly_while_the_others_are_marked():
    t = Table(players=5)
    t.ask()
    t.answer()  # 1
    t.answer()  # 2
    t.klaxon()  # 3 challenges 2; seat 1's answer is marked first
    sim = t.sim
    t.wait(500)
    for ticks, colour in watch(sim, lit(sim, 2, 5), 2000):
        if settled(ticks):
            assert colour == ("sky" if step(ticks) < 4 else "off"), (ticks, colour)
    t.t = sim.now_ms + 10  # (the table's next press comes after the watching)
    t.wrong()  # seat 1 wrong: orange, steady, and never blinks
    assert {c for _, c in watch(sim, lit(sim, 1, 5), 1200)} == {"orange"}


@pytest.mark.parametrize("control, colour", [("a", "green"), ("b_held", "blue")])
def test_a_change_the_table_must_see_flashes_its_colour_with_white(control, colour):
    """A roll (A between questions: done) flashes green and white, a question taken back
    (B held: undone) blue and white, every eighth of a second, on every pixel at once."""
    t = Table(players=4)
    hold = 80
    if control == "b_held":
        t.ask()
        hold = LONG  # B held: undo the question
    start = t.t
    t.sim.press(control[0], start, hold)
    t.sim.run_until_ms(start + hold + 20)  # (it acts when let go)
    seen = []
    while t.sim.device.f[D._FL] or not seen:
        t.sim.run_for_ms(4)
        ring = t.sim.ring()
        if t.sim.device.f[D._FL] and settled(D.ticks_ms()):
            assert len(set(ring)) == 1, ring  # the whole ring at once
            assert ring[0] == (colour if not step(D.ticks_ms()) & 1 else "white"), ring
            seen.append(ring[0])
        assert t.sim.now_ms < start + 3000
    assert {colour, "white"} == set(seen)
