"""Which pin is which button, as hardware/start.py decides at power-on (issue 26's mutation
run found these untested): boards the firmware does not know and the built-in buttons
it then falls back on, buttons moved or unwired in settings.toml, two buttons named on one
pin, each pin pulled the way its button is wired, a crackling Klaxon wire, and what
start-up leaves in RAM. Each mistake is one console line, and counted."""

import sys
import types

import pytest

import harness
import scenario
from adafruit_blinka.microcontroller.generic_agnostic_board import pin as agnostic
from harness import Sim
import hardware.start as start_module
from hardware.settings import read
from test_settings import errors, question_with_a_klaxon

UNKNOWN = "board some_board is not one of the builds: using the Pico's pin names (set QK_BOARD " \
          "or the QK_PIN_ keys)"
KLAXON_PIN = "Dx_INPUT_TRUE_PULL_UP"  # the simulated build's Klaxon


def board_with(board_id, *names):
    """A ``board`` module with these pins only."""
    b = types.SimpleNamespace(board_id=board_id)
    for i, name in enumerate(names):
        setattr(b, name, agnostic.Pin(300 + i))
        if name[:2] == "GP":  # (its GPIO number: rp2pio's side-set pins are consecutive)
            getattr(b, name).gpio = int(name[2:])
    return b


def sim_on(monkeypatch, b, settings="", klaxon=None, a=None, b_button=None):
    """A Sim of board ``b`` (its own pins, the Pico's build's nvm and watchdog), whose
    controls are these (pin name, level when pressed)."""
    prof = dict(scenario.profile("pico"))
    prof.update(klaxon=klaxon, a=a, b=b_button, switch=None)
    monkeypatch.setattr(harness, "ProfileBoard", lambda name: b)
    monkeypatch.setattr(scenario, "profile", lambda name: prof)
    return Sim(settings, board_name="pico")


def klaxon_sounds_once(sim, at_ms=300):
    sim.press("klaxon", at_ms, 100)
    sim.run_until_ms(at_ms + 400)
    (t, _), = sim.named("klaxon")
    return at_ms <= t <= at_ms + 10


def console(sim):
    return [line for _, line in sim.events]


# ------------------------------------------------------------ which build, which board
@pytest.mark.parametrize("board_name", ["pico", "cpb", "cpx"])
def test_the_builds_boards_are_known_by_their_board_ids(board_name):
    sim = Sim(board_name=board_name)
    assert not any("not one of the builds" in line for line in console(sim))
    assert errors(sim) == []


def test_an_unknown_board_says_so_once_and_runs_the_picos_build_without_a_fault(monkeypatch):
    monkeypatch.setitem(harness.BOARD_IDS, "pico", "some_board")
    sim = Sim(board_name="pico")
    assert [line for line in console(sim) if "build" in line] == [UNKNOWN]
    assert errors(sim) == []  # (not a mistake in the settings: the ring shows the game)
    assert question_with_a_klaxon(sim, 500) == [{"challenger": 2, "challenged": 1}]


def test_an_unknown_board_told_a_build_it_has_not_runs_the_picos(monkeypatch):
    monkeypatch.setitem(harness.BOARD_IDS, "pico", "some_board")
    sim = Sim('QK_BOARD = "nonsense"\n', board_name="pico")
    assert errors(sim) == ["QK_BOARD = 'nonsense': not a build that board some_board can run "
                           "from this drive; using its own"]
    assert question_with_a_klaxon(sim, 2500) == [{"challenger": 2, "challenged": 1}]


# ------------------------------------------------------------ the Klaxon's fallbacks
@pytest.mark.parametrize("name, pressed", [("BUTTON", False), ("BUTTON_A", True),
                                           ("BOOT", False), ("USER_SW", False), ("D0", False)])
def test_a_board_without_the_builds_klaxon_pin_uses_its_own_button(monkeypatch, name, pressed):
    # an unknown board (the Pico's pin names, none of which it has) with one button: that
    # is the Klaxon, read the way it is wired (a Circuit Playground's button A to +V)
    sim = sim_on(monkeypatch, board_with("some_board", name), klaxon=(name, pressed))
    assert sim.device is not None and sim.game is None  # a pure Klaxon: no other button
    assert console(sim)[0] == UNKNOWN
    assert sim.named("fault") == []  # released at power-on: not "held down"
    assert klaxon_sounds_once(sim)


def test_a_klaxon_named_in_the_settings_on_a_board_without_the_builds_pin(monkeypatch):
    b = board_with("some_board", "D5", "D6")
    sim = sim_on(monkeypatch, b, 'QK_PIN_KLAXON = "D5"\nQK_PIN_A = "D6"\n', klaxon=("D5", False),
                 a=("D6", False))
    assert errors(sim) == []
    assert klaxon_sounds_once(sim)


@pytest.mark.parametrize("board_name", ["cpb", "cpx"])
def test_klaxon_moved_to_button_b_reads_it_the_right_way_round_and_b_is_not_wired(board_name):
    import simpins

    sim = Sim('QK_PIN_KLAXON = "BUTTON_B"\n', board_name=board_name)
    assert errors(sim) == ["QK_PIN_B = 'BUTTON_B': that pin is another button's; button B is "
                           "not wired"]
    pin = sim.board.BUTTON_B.id  # pulls to +V: pressed reads True
    sim.run_until_ms(90)
    assert sim.named("fault") == [] and sim.named("klaxon") == []
    simpins.schedule(pin, 100_000, True)
    simpins.schedule(pin, 250_000, False)
    sim.run_until_ms(400)
    (t, _), = sim.named("klaxon")
    assert 100 <= t <= 110


def test_klaxon_moved_to_another_pico_pin_is_read_pulled_up():
    import simpins

    sim = Sim('QK_PIN_KLAXON = "GP17"\nQK_PIN_A = "none"\n', board_name="pico")
    assert errors(sim) == []
    pin = sim.board.GP17.id
    simpins.set_idle(pin, True)
    sim.run_until_ms(90)
    assert sim.named("fault") == []
    simpins.schedule(pin, 100_000, False)  # to GND: pressed reads False
    simpins.schedule(pin, 250_000, True)
    sim.run_until_ms(400)
    (t, _), = sim.named("klaxon")
    assert 100 <= t <= 110


# ------------------------------------------------------------ A and B
def b_alone_does_everything(sim):
    """B is the one button: a tap is A's (between questions: roll), held past
    QK_LONG_MS (1,200 ms here) it is B's (ask)."""
    sim.press("b", 100, 200)
    sim.run_until_ms(500)
    assert [e for e in ("roll", "ask") if sim.named(e)] == ["roll"]
    sim.press("b", 600, 1400)
    sim.run_until_ms(2200)
    return len(sim.named("ask")) == 1 and sim.game.phase == "answering"


def test_pin_a_none_leaves_b_as_the_one_button():
    sim = Sim('QK_PIN_A = "none"\nQK_LONG_MS = 1200\n')
    assert errors(sim) == []
    assert b_alone_does_everything(sim)


def test_a_named_on_the_klaxons_pin_is_not_wired_and_b_is_the_one_button():
    sim = Sim('QK_PIN_A = "%s"\nQK_LONG_MS = 1200\n' % KLAXON_PIN)
    assert errors(sim) == ["QK_PIN_A = '%s': that pin is another button's; button A is not "
                           "wired" % KLAXON_PIN]
    assert b_alone_does_everything(sim)


def test_a_board_without_as_pin_has_b_as_the_one_button(monkeypatch):
    b = board_with("raspberry_pi_pico", "GP16", "GP18", "GP14", "GP15", "LED")
    sim = sim_on(monkeypatch, b, "QK_LONG_MS = 1200\n", klaxon=("GP16", False),
                 b_button=("GP18", False))
    assert errors(sim) == []
    assert b_alone_does_everything(sim)


# ------------------------------------------------------------ every mistake counted
def test_each_wiring_mistake_is_one_console_line_and_counted_with_the_settings(capsys):
    import board

    lines = ["QK_VOLUME = 11", 'QK_BOARD = "nonsense"', "QK_PLAYERS = 3", "QK_FIRST_QM = 5",
             'QK_PIN_KLAXON = "none"', 'QK_PIN_A = "D99"', 'QK_PIN_B = "%s"' % KLAXON_PIN]
    capsys.readouterr()
    parts = start_module.start(read(lines), board)
    out = capsys.readouterr().out.splitlines()
    assert out == [
        "settings.toml line 1: QK_VOLUME = 11 is not a whole number from 0 to 10; using 8",
        "QK_BOARD = 'nonsense': not a build that board OS_AGNOSTIC_BOARD can run from this "
        "drive; using its own",
        "QK_FIRST_QM = 5 but there are 3 players; using 0",
        "QK_PIN_KLAXON = \"none\": the Klaxon is the one button that must be wired; using the "
        "build's own pin",
        "QK_PIN_A = 'D99': no such pin on this board",
        "QK_PIN_B = '%s': that pin is another button's; button B is not wired" % KLAXON_PIN]
    assert parts[3] == len(out)  # (board, build, values, how many lines reported, ...)


def test_an_unknown_pin_for_b_names_b():
    sim = Sim('QK_PIN_B = "D99"\n')
    assert errors(sim) == ["QK_PIN_B = 'D99': no such pin on this board"]


# ------------------------------------------------------------ pulls
@pytest.mark.parametrize("board_name, settings, pulls", [
    ("simulated", "", {"klaxon": "UP", "a": "UP", "b": "UP"}),
    ("pico", "", {"klaxon": "UP", "a": "UP", "b": "UP"}),
    ("cpb", "", {"klaxon": "UP", "a": "DOWN", "b": "DOWN"}),  # the built-in buttons to +V
    ("cpx", 'QK_PIN_KLAXON = "BUTTON_A"\nQK_PIN_A = "none"\n', {"klaxon": "DOWN", "b": "DOWN"}),
])
def test_each_button_is_pulled_away_from_the_level_its_press_makes(monkeypatch, board_name,
                                                                    settings, pulls):
    # a button to GND is pulled up, one to +V down: never a floating pin that sounds itself
    import digitalio

    made = {}  # id(io): its pin
    pulled = {}  # pin: the pull asked for
    init, switch = digitalio.DigitalInOut.__init__, digitalio.DigitalInOut.switch_to_input

    def making(self, pin):
        made[id(self)] = pin
        init(self, pin)

    def switching(self, pull=None):
        pulled[made[id(self)]] = pull
        switch(self, pull=pull)

    monkeypatch.setattr(digitalio.DigitalInOut, "__init__", making)
    monkeypatch.setattr(digitalio.DigitalInOut, "switch_to_input", switching)
    sim = Sim(settings, board_name=board_name)
    names = {"klaxon": settings and "BUTTON_A"}
    prof = scenario.profile(board_name)
    got = {}
    for control in pulls:
        pin = getattr(sim.board, names.get(control) or prof[control][0])
        got[control] = {digitalio.Pull.UP: "UP", digitalio.Pull.DOWN: "DOWN"}.get(pulled[pin])
    assert got == pulls


# ------------------------------------------------------------ a crackling wire
@pytest.mark.parametrize("glitch", [1, 2, 5])
def test_a_stuck_klaxons_wire_that_opens_briefly_is_still_stuck_and_a_longer_open_is_a_release(
        glitch):
    """The Klaxon held down, its wire opening now and then: an open of up to QK_GLITCH_MS
    + 1 ms is a crackle (the fault comes QK_STUCK_S after it went down); one ms more and
    it was let go, so the count starts again when it is down once more."""
    for extra, fault_ms in ((1, 2101 + glitch), (2, 3000 + (glitch + 2) + (glitch + 1) + 2000)):
        sim = Sim("QK_GLITCH_MS = %d\nQK_STUCK_S = 2\n" % glitch)
        sim.level("klaxon", 100_000, True)
        for at in (1000, 2000, 3000):
            sim.level("klaxon", at * 1000, False)
            sim.level("klaxon", (at + glitch + extra) * 1000, True)
        sim.run_until_ms(6000)
        assert [t for t, _ in sim.named("fault")] == [fault_ms], (glitch, extra)
        assert len(sim.named("klaxon")) == 1


# ------------------------------------------------------------ what start-up leaves in RAM
def test_start_up_frees_what_the_loop_never_uses_of_the_debouncer_library(monkeypatch):
    # (the loop uses Debouncer's update() and state: the rest, ~0.9 KB on the Express, goes)
    monkeypatch.delitem(sys.modules, "adafruit_debouncer", raising=False)  # a fresh copy, whole
    sim = Sim()
    assert klaxon_sounds_once(sim)
    library = sys.modules["adafruit_debouncer"]
    assert not hasattr(library, "Button")
    assert [n for n in ("rose", "fell", "last_duration", "current_duration", "value", "interval")
            if hasattr(library.Debouncer, n)] == []
