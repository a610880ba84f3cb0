"""The README's controls table is the single source: every cell is played on the
simulated board (two buttons) and, through its hold times, on the one-button build,
and must do what the cell says."""

import re

import pytest

import web
from harness import Sim
from qiklaxon import layout  # noqa: E402  (the slots' names)

PHASES = ("between questions", "answering", "reveal", "a number being entered")
# What a cell says -> (the event it makes, its fields that must match) or None: refused
WORDS = {
    "refused": None, "—": None,
    "the Klaxon": ("klaxon", {}),
    "roll the dice": ("roll", {}), "answer": ("answer", {}), "right": ("mark", {"right": True}),
    "+1": ("count", {"count": 1}), "miss a go": ("miss_go", {}), "+10": ("count", {"count": 10}),
    "move a piece": ("seat", {}), "ask": ("ask", {}), "pass": ("pass", {}),
    "wrong": ("mark", {"right": False}), "done": ("penalty", {"squares": 0}),
    "undo": ("undo", {}), "undo one mark": ("unmark", {}), "back one step": ("back", {}),
    "end the game": ("end", {}),
}
HOLDS = {"tap": 80, "held": 900, "held 2 s": 2300}


def table():
    """The README's controls table: {press: [cells..., one-button hold]}."""
    rows = web.readme_table("## Controls")
    assert rows[0] == ["press"] + list(PHASES) + ["one-button builds: hold A for"]
    return {cells[0]: cells[1:] for cells in rows[1:]}


ROWS = table()


def setup(press_at, phase, press):
    """Bring a 4-player table to ``phase`` through ``press_at(control, t)`` (which returns
    the ms it held): seat 2 challenges seat 1 in the reveal; seat 1's penalty is being
    entered for a number; what an undo (or a Klaxon) needs is done first. Returns the time
    after."""
    t = 100

    def go(control):
        nonlocal t
        t += press_at(control, t) + 500

    if phase == "between questions":
        if press == "B held":
            go("a")  # a roll, to undo
    else:
        go("b")  # ask
        if phase != "answering":
            go("a")  # seat 1 answers
            go("klaxon")  # seat 2 challenges it: the reveal
            if phase == "reveal" and press == "B held":
                go("a")  # seat 1 right: a mark to undo
            if phase == "a number being entered":
                go("b")  # seat 1 wrong: its Klaxon penalty is entered
        elif press in ("B held", "Klaxon"):
            go("a")  # an answer, to undo or to challenge
    return t + 1500  # the klaxon and any blip it held back are over


def play(sim, press, t, one_button=None):
    control, hold = ("klaxon", 120) if press == "Klaxon" else (press[0].lower(), 0)
    if press != "Klaxon":
        hold = HOLDS[press[2:]]
    if one_button is not None and press != "Klaxon":  # the one button: A, held as the table says
        control = "a"
        hold = held(one_button)
    sim.run_until_ms(t)
    sim.press(control, t, hold)
    sim.run_until_ms(t + hold + 600)
    return [r for r in sim.records() if r[0] >= t]


def held(cell):
    """How long to hold A for a one-button cell ("a tap", "0.7 s", ...)."""
    return 80 if cell == "a tap" else int(float(cell[:-2]) * 1000) + 200


def check(cell, new):
    events = [(n, f) for _, n, f in new if n != "sound"]
    sounds = [f["name"] for _, n, f in new if n == "sound"]
    want = WORDS[cell]
    if want is None:
        assert [n for n, _ in events] in ([], ["refused"]), events
        assert sounds == ["denied"], (cell, new)
        return
    name, fields = want
    assert events, (cell, new)
    assert events[0][0] == name, (cell, events)
    for k, v in fields.items():
        assert events[0][1][k] == v, (cell, events)
    assert "denied" not in sounds


CELLS = [(press, i) for press in ROWS for i in range(len(PHASES))]


@pytest.mark.parametrize("press, i", CELLS, ids=["%s|%s" % (p, PHASES[i]) for p, i in CELLS])
def test_two_button_builds_do_what_the_table_says(press, i):
    sim = Sim(players=4)

    def press_at(control, t):
        sim.press(control, t, 80)
        return 80

    t = setup(press_at, PHASES[i], press)
    check(ROWS[press][i], play(sim, press, t))


@pytest.mark.parametrize("press, i", CELLS, ids=["%s|%s" % (p, PHASES[i]) for p, i in CELLS])
def test_one_button_builds_do_the_same_with_the_hold_the_table_gives(press, i):
    sim = Sim('QK_PIN_B = "none"\n', players=4)

    def press_at(control, t):  # B's tap is A held as the table says
        hold = held(ROWS["B tap"][-1]) if control == "b" else 80
        sim.press("a" if control == "b" else control, t, hold)
        return hold

    t = setup(press_at, PHASES[i], press)
    check(ROWS[press][i], play(sim, press, t, one_button=ROWS[press][-1]))


def test_the_one_button_holds_are_the_firmware_ladder():
    """The table's hold times are hardware/start.py's ladder at QK_LONG_MS = 700."""
    sim = Sim('QK_PIN_B = "none"\n', players=4)
    (io, up, keys, ms), = sim.device.p[layout.BUT]
    key_of = {"A tap": 1, "A held": 2, "A held 2 s": 3, "B tap": 4, "B held": 5,
              "B held 2 s": 6}
    for press, k in key_of.items():
        hold = ROWS[press][-1]
        want = 0 if hold == "a tap" else float(hold[:-2]) * 1000
        assert ms[keys.index(k)] == want, press


def test_a_held_button_shows_what_letting_go_will_do():
    sim = Sim(players=4)
    sim.press("b", 100, 2600)
    seen = []
    for t in range(150, 2700, 50):
        sim.run_until_ms(t)
        seen.append(sim.scene()[0])
    # the table as it was while a tap; from 0.7 s blue blinking slowly (undo); from 2 s
    # green blinking fast (the end)
    names = [c for c, p in seen]
    assert names[0] == "white" and "blue" in names and names[-1] == "green"
    assert names.index("blue") < names.index("green")
    assert seen[names.index("blue")] == ("blue", "slow") and seen[-1] == ("green", "fast")
    sim.run_until_ms(3000)
    assert "end" in [n for _, n, _ in sim.records()]
