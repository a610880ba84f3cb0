"""Every seat's position read off the ring between questions (issue 31): the Klaxon
between questions (refused, a buzz: nothing changes) shows each seat in turn, its own
light blinking (yellow; vermillion below 0) and, from the light after it, green
hundreds, white tens and orange units. A reader that sees only the ring, sampled every
32 ms as an eye takes it (tools/quality/robot.py's ``positions``), reads every position of a
6-player game in at most 20 s with one press, negative ones and ones over 99 too; the
game is the same after. On every ring build."""

import random

import pytest

from harness import Sim
from model import layout
from robot import Table

RINGS = [("simulated", ""), ("cpb", ""), ("cpx", ""), ("pico", "QK_PIXELS = 10\n"),
         ("pico", "QK_PIXELS = 10\nQK_PIXELS_CCW = 1\n")]
IDS = ["simulated", "cpb", "cpx", "pico-strip", "pico-strip-ccw"]


def table_at(board, settings, positions, seed=1):
    sim = Sim(settings, board_name=board, players=len(positions), seed=seed)
    sim.game.ask()  # a first question, everyone passing: the QM is seat 1 now
    for _ in range(len(positions) - 1):
        sim.game.pass_()
    for seat, v in enumerate(positions):
        if v:
            sim.game.move(seat, v)
    sim.device.render()
    table = Table(sim, board, random.Random(seed), players=len(positions))
    if "QK_PIXELS_CCW = 1" in settings:  # (the table knows how its strip is laid)
        table.cw = False
    return table


@pytest.mark.parametrize("board, settings", RINGS, ids=IDS)
def test_a_table_reads_every_position_of_six_players_in_20_s_with_one_press(board, settings):
    want = [0, 3, -12, 105, 99, 27]  # 99: nine tens and nine units, more than the lights
    table = table_at(board, settings, want)
    before = table.sim.game.to_bytes()
    presses = len(table.presses)
    got, seconds = table.positions()
    assert got == dict(enumerate(want))
    assert seconds <= 20 and len(table.presses) - presses == 1
    assert table.sim.game.to_bytes() == before  # looking changed nothing
    assert table.qm() == 1  # and the ring shows the table again


@pytest.mark.parametrize("positions", [[-1, 1], [-100, 100, 909, -99, 10, 1000, 4321, 0, 7, 90],
                                       [110, -3, 999]])
def test_every_kind_of_position_reads_back(positions):
    table = table_at("cpb", "", positions, seed=len(positions))
    got, _ = table.positions()
    assert got == dict(enumerate(positions))


def test_a_press_meanwhile_ends_it_and_does_what_it_does():
    """B (ask the question) during the positions: asked at once, the ring the question's."""
    table = table_at("cpb", "", [5, 0, 0, 0])
    sim = table.sim
    sim.press("klaxon", sim.now_ms + 100, 120)
    sim.press("b", sim.now_ms + 3000, 120)
    sim.run_until_ms(sim.now_ms + 4500)
    assert [n for _, n, _ in sim.records() if n == "ask"] == ["ask"]
    assert sim.game.phase == "answering" and sim.device.f[layout.DICE] == 0


def test_not_while_answering_nor_before_the_first_question():
    """Only between questions and after the game: the Klaxon's other meanings stay."""
    sim = Sim(players=4)
    sim.press("klaxon", 300, 120)  # before the first question: a try, no positions
    sim.run_until_ms(1000)
    assert sim.device.f[layout.DICE] == 0
    sim.press("b", 1500, 100)
    sim.press("klaxon", 2500, 120)  # nobody has answered: refused, no positions
    sim.run_until_ms(3000)
    assert sim.device.f[layout.DICE] == 0


# ------------------------------------------------------------ the display, step by step
def promised(positions, q, np):
    """What qiklaxon/seats.py's docstring (and the card) promise at step ``q`` (128 ms) of
    the display on ``np`` lights: (its return, [(colour, pattern)] by place clockwise
    from seat 0's light)."""
    n = len(positions)
    s = q // layout.SEAT_STEPS
    if s >= n:
        return -2, None
    dark = [(0, 0)] * np
    at = s * np // n if np >= n else s
    if q % layout.SEAT_STEPS >= layout.SEAT_STEPS - 2 or at >= np:
        return -1, dark
    v = positions[s]
    out = list(dark)
    out[at] = (layout.VERMILLION if v < 0 else layout.YELLOW, layout.FAST)
    v = min(abs(v), 9999)
    kinds = [(colour, v // 10 ** (3 - i) % 10) for i, colour in enumerate(
        (layout.BLUE, layout.GREEN, layout.WHITE, layout.ORANGE)) if v // 10 ** (3 - i) % 10]
    if sum(k for _, k in kinds) > np - 1:  # more than the lights left: one kind at a time
        kinds = [kinds[q % layout.SEAT_STEPS * len(kinds) // (layout.SEAT_STEPS - 2)]]
    lights = [colour for colour, k in kinds for _ in range(k)][:np - 1]
    for j, colour in enumerate(lights):
        out[(at + 1 + j) % np] = (colour, 0)
    return -1, out


@pytest.mark.parametrize("positions, np", [
    ([0, 3, -12, 105, 99, 27], 10), ([12345, -32767, 1000, 90, -9], 10),
    ([1, 2], 10), ([-100, 100, 909, -99, 10, 1000, 4321, 0, 7, 90], 10),
    ([55, -3, 8, 0, 77, 23], 4), ([9, -9, 12], 6)],
    ids=["six", "huge", "two", "ten", "short-strip", "six-lights"])
def test_every_step_of_the_display_is_the_one_promised(positions, np):
    """Step by step for the whole display and past its end: every seat's 18 lit steps and
    2 dark, the marker's colour (0 is not below 0), the kinds each in its turn when they
    are more than the lights left, a short strip's seats past its end dark, and the scene
    cleared of what was there before."""
    from array import array
    from types import SimpleNamespace

    from qiklaxon import seats

    r = SimpleNamespace(S=bytearray(layout.DID + layout.SEATS),
                        P=array("h", positions + [0] * (layout.SEATS - len(positions))))
    r.S[layout.PLAYERS] = len(positions)
    for q in range(layout.SEAT_STEPS * len(positions) + 3):
        c = bytearray([0x77] * (2 * np))  # (something else shown before)
        rendered = []
        dev = SimpleNamespace(r=r, c=c, f=bytearray([layout.SEATS_SHOWN] * layout.F_SLOTS),
                              render=lambda: rendered.append(1))
        got = seats.dice(dev, q, np)
        want, scene = promised(positions, q, np)
        assert got == -1, q
        # once every seat was shown: the game's ring again (drawn by the device's render)
        assert (dev.f[layout.DICE], rendered) == ((0, [1]) if want == -2 else
                                                   (layout.SEATS_SHOWN, [])), q
        if scene is not None:
            assert [(c[i], c[np + i]) for i in range(np)] == scene, (q, positions)


def test_a_klaxon_while_the_dice_show_leaves_them():
    """A player slamming the Klaxon while the QM reads the roll: refused, and the dice
    stay (the breaker's D3: the positions wiped them for good)."""
    table = table_at("cpb", "", [5, 0, 0, 0])
    sim = table.sim
    t = sim.now_ms
    sim.press("a", t + 100, 120)  # the roll
    sim.press("klaxon", t + 1500, 120)
    sim.run_until_ms(t + 1700)
    assert sim.sounds()[-1][1] == "denied" and sim.device.f[layout.DICE] == layout.ROLL_SHOWN
    seen = set()
    for k in range(200):  # the next 6 s: the dice, red, white and blue, still go round
        sim.run_until_ms(t + 1700 + 30 * k)
        seen |= set(sim.ring())
    assert {"red", "blue"} <= seen


def test_a_drawing_that_fails_ends_with_the_fault():
    """The positions' overlay cannot load (a drive missing seats.mpy): a fault, and 5 s
    later the referee is back without the display that failed (the breaker's D6: it
    failed again at every draw and A and B buzzed for good)."""
    import sys

    table = table_at("cpb", "", [5, 0, 0, 0])
    sim = table.sim
    sys.modules["qiklaxon.seats"] = None  # (its import fails)
    try:
        t = sim.now_ms
        sim.press("klaxon", t + 100, 120)
        sim.press("b", t + 7000, 120)
        sim.run_until_ms(t + 8000)
    finally:
        sys.modules.pop("qiklaxon.seats", None)
    said = [line for _, line in sim.events]
    assert any(line.startswith("fault: the referee failed") for line in said)
    assert sum(line.startswith("fault:") for line in said) == 1
    assert sim.game.phase == "answering"  # B asked the question


def test_on_a_short_strip_the_penalty_of_the_seat_at_its_end_draws_nothing_of_it():
    """Six players on a strip of 4: seat 4, the challenged, marked wrong: its light is
    past the strip's end (place 4 = the strip's length), so nothing of it is drawn and
    nothing breaks; its count still shows, from the light after where its own would be
    (round the strip: light 1)."""
    sim = Sim("QK_PIXELS = 4\n", board_name="pico", players=6, qm=3)
    for k, c in enumerate("bak"):  # seat 4 answers, seat 5 challenges it
        sim.press({"k": "klaxon"}.get(c, c), 200 + 600 * k, 80)
    sim.press("b", 2200, 80)  # seat 4 wrong: its penalty
    sim.press("a", 2800, 80)  # 1
    sim.run_until_ms(3600)
    assert not [line for _, line in sim.events if line.startswith("fault")]
    assert sim.device.r.u[layout.WHAT] == layout.PENALTY
    assert [c for c, _ in sim.scene()] == ["off", "orange", "off", "off"]
