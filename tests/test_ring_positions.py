"""Every seat's position read off the ring between questions (issue 31): the Klaxon
between questions (refused, a buzz: nothing changes) shows each seat in turn, its own
light blinking (yellow; vermillion below 0) and, from the light after it, green
hundreds, white tens and orange units. A reader that sees only the ring, sampled every
32 ms as an eye takes it (tools/robot.py's ``positions``), reads every position of a
6-player game in at most 20 s with one press, negative ones and ones over 99 too; the
game is the same after. On every ring build."""

import random

import pytest

from harness import Sim
from qiklaxon import layout
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
