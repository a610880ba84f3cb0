"""A fault does what the card says (issue 35), each kind a table can meet, at the pin
level on every build. The card's "Faults" note (tools/gen/card.py's FAULTS):

- the Klaxon held down (at power-on, or jammed in play): purple while it is down, the ring
  back when it is let go, and A and B work meanwhile (a Klaxon that cannot be freed must
  not stop the game); the Klaxon counts again once let go;
- a bad setting at power-on: 2 s of purple, and every button works;
- the referee failing: A and B buzz for 5 s (the Klaxon only sounds), then the game is
  back as it was.

The ring is read as a person reads it: sampled every 50 ms for half a second."""

import pytest

import card
from harness import Sim
from model import layout

BUILDS = ("simulated", "cpx", "cpb", "pico")
PHASES_US = (0, 377, 999)
REFEREE_WAIT_MS = 5000  # the card: "for 5 s after the referee fails"
GAME = ("roll", "ask", "answer", "pass", "klaxon", "miss", "undo", "end", "right", "wrong")


def game_events(sim, start_ms, end_ms):
    """The game's events between two times (names only)."""
    return [n for t, n, _ in sim.records() if start_ms <= t < end_ms and n in GAME]


def heard(sim, start_ms, end_ms):
    return [name for t, name in sim.sounds() if start_ms <= t < end_ms]


def seen(sim, ms=500):
    """Every colour the ring showed over ``ms`` from now, sampled every 50 ms (a fast
    blink is dark half the time)."""
    out = set()
    for _ in range(ms // 50):
        sim.run_for_ms(50)
        out.update(sim.ring())
    return out


def test_the_card_says_it():
    text = card.note(card.FAULTS)
    assert "A and B still work" in text and "the game goes on" in text
    assert "%d s or more" % card.STUCK_S in text
    assert "for 5 s after the referee fails" in card.note(card.BUZZ)


@pytest.mark.parametrize("board", BUILDS)
@pytest.mark.parametrize("phase_us", PHASES_US)
def test_klaxon_held_at_power_on_purple_and_a_and_b_still_work(board, phase_us):
    """The issue's first script: power on with the Klaxon held: purple (where there is a
    ring); A at 2 s rolls the dice (two notes up); let go at 3 s: the ring shows the game
    again; B at 3.5 s asks the question; an answer, then the Klaxon challenges it."""
    sim = Sim(players=4, board_name=board, phase_us=phase_us, held=("klaxon",))
    sim.level("klaxon", 3_000_000, False)
    sim.press("a", 2000, 80)
    sim.press("b", 3500, 80)
    sim.press("a", 4300, 80)  # seat 1 answers
    sim.press("klaxon", 5000, 120)  # seat 2 challenges it
    ring = bool(sim.device.p[layout.PX])
    sim.run_until_ms(1400)
    assert not ring or "purple" in seen(sim)
    sim.run_until_ms(3300)
    assert not ring or "purple" not in seen(sim)
    sim.run_until_ms(6500)
    assert heard(sim, 1900, 4000) == ["done", "blip"]  # the roll's chime, the ask's blip
    assert game_events(sim, 1, 6500) == ["roll", "ask", "answer", "klaxon"]
    assert "klaxon" in heard(sim, 5000, 5020)


@pytest.mark.parametrize("board", BUILDS)
@pytest.mark.parametrize("phase_us", PHASES_US)
def test_a_klaxon_jammed_in_play_purple_while_down_and_the_game_goes_on(board, phase_us):
    """In play: the Klaxon held 12 s (QK_STUCK_S = 10: purple from 10 s of it). A tapped
    during the purple rolls; let go at 13 s, B asks at 14.6 s; the Klaxon counts again."""
    sim = Sim(players=4, board_name=board, phase_us=phase_us)
    sim.press("klaxon", 1000, 12000)  # before the first question: a try, then stuck
    sim.press("a", 12000, 80)
    sim.press("b", 14600, 80)
    sim.press("a", 15300, 80)  # seat 1 answers
    sim.press("klaxon", 16000, 120)  # seat 2 challenges it
    ring = bool(sim.device.p[layout.PX])
    sim.run_until_ms(11300)
    assert not ring or "purple" in seen(sim)
    sim.run_until_ms(13300)
    assert not ring or "purple" not in seen(sim)
    sim.run_until_ms(17500)
    assert heard(sim, 11900, 14700) == ["done", "blip"]
    assert game_events(sim, 1500, 17500) == ["roll", "ask", "answer", "klaxon"]


@pytest.mark.parametrize("board", BUILDS)
def test_a_bad_setting_2_s_of_purple_and_every_button_works(board):
    """QK_BRIGHTNESS = 900: the ring flashes purple for 2 s from power-on; B at 1 s asks."""
    sim = Sim(players=4, board_name=board, settings="QK_BRIGHTNESS = 900\n")
    sim.press("b", 1000, 80)
    ring = bool(sim.device.p[layout.PX])
    sim.run_until_ms(300)
    assert not ring or "purple" in seen(sim)
    sim.run_until_ms(2600)
    assert not ring or "purple" not in seen(sim)
    assert heard(sim, 0, 2600) == ["blip"] and game_events(sim, 0, 2600) == ["ask"]


@pytest.mark.parametrize("board", BUILDS)
def test_the_referee_failing_a_and_b_buzz_for_5_s_then_the_game_is_back(board):
    """The referee raises once (as a fault anywhere in it would): purple, A and B buzz and
    change nothing for 5 s (the Klaxon still sounds), then A rolls the dice."""
    sim = Sim(players=4, board_name=board)
    r = sim.device.r
    key = r.key

    def fails_once(k):
        r.key = key
        raise ValueError("a fault")

    r.key = fails_once
    sim.press("b", 1000, 80)  # the fault (the ask is lost: asked again below)
    sim.press("a", 2000, 80)
    sim.press("klaxon", 3000, 120)
    sim.press("b", 5800, 80)
    sim.press("b", 6300, 80)  # 5.3 s after: asked
    ring = bool(sim.device.p[layout.PX])
    sim.run_until_ms(1300)
    assert not ring or "purple" in seen(sim)
    sim.run_until_ms(7000)
    assert heard(sim, 1900, 6000) == ["denied", "klaxon", "denied"]
    assert game_events(sim, 1, 6300) == ["klaxon"]  # only sounded, no challenge:
    assert [f for _, f in sim.named("klaxon")] == [{}]  # (no challenger, no challenged)
    assert game_events(sim, 6300, 7000) == ["ask"]
    assert [line for _, line in sim.events if line.startswith("fault")][0].startswith(
        "fault: the referee failed")


def test_a_hold_shows_its_meaning_over_a_stuck_klaxon():
    """The card: with the Klaxon stuck, A and B still work, and a held button shows what
    letting go will do (the breaker's D4: the purple covered the preview, and B held
    3.5 s ended the game unseen). B held 3.5 s while stuck: blue, then green, then let
    go: the game ends; the purple comes back."""
    sim = Sim(players=4)
    sim.tap("b", 200)  # a first question, then everyone passes: between questions
    for k in range(3):
        sim.tap("b", 700 + 500 * k)
    sim.press("klaxon", 3000, 30000)  # refused (between questions), then stuck at 13 s
    sim.press("b", 14000, 3500)
    sim.run_until_ms(13800)
    assert "purple" in seen(sim)
    sim.run_until_ms(15600)
    assert "blue" in seen(sim, 300)
    sim.run_until_ms(17200)
    assert "green" in seen(sim, 300)
    sim.run_until_ms(18500)
    assert sim.game.phase == "over" and "purple" in seen(sim)
