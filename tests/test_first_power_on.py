"""The build guide's first power-on check is true on every build: a new Klaxon, just
deployed with the example settings, slammed as people slam a new Klaxon to try it,
sounds at once and flashes (before a game's first question the Klaxon is a try that
counts for nothing), held it sounds once; then B asks the first question (a blip, the
seat on the QM's left blinks yellow where there are lights), B held takes it back (the
falling chime), and after a power cut the game is where it was."""

import copy

import pytest

import card
from harness import PROFILE_NAMES, Sim
from qiklaxon import layout  # noqa: E402  (the slots' names)


@pytest.mark.parametrize("board", PROFILE_NAMES)
def test_the_first_power_on_check_is_true_on_every_build(board):
    with open("settings.example.toml") as f:
        settings = f.read()
    sim = Sim(settings, board_name=board)
    assert not [line for _, line in sim.events if line.startswith(("QK_", "settings.toml"))]
    # 1. Slam the Klaxon: it sounds within 10 ms, and the lights (or the LED) flash; held
    # a second, it sounds once
    sim.press("klaxon", 500, 1000, bounce_us=(300, 200, 500))
    sim.run_until_ms(503)
    flashes = []  # the whole ring in one colour (vermillion, white, in turn), or the LED
    for t in range(503, 900, 16):
        sim.run_until_ms(t)
        d = sim.device
        if d.p[layout.PX] is not None:
            flashes.append(",".join(sorted(set(sim.ring()))))
        else:
            flashes.append(bool(d.p[layout.LED].value))
    sim.run_until_ms(3000)
    klaxons = [t for t, name in sim.sounds() if name == "klaxon"]
    assert len(klaxons) == 1 and 500 <= klaxons[0] <= 510, sim.sounds()
    if sim.device.p[layout.PX] is not None:
        assert flashes.count("vermillion") >= 2 and flashes.count("white") >= 2, flashes
    else:
        assert flashes.count(True) >= 2 and flashes.count(False) >= 2, flashes
    assert not sim.named("refused") and sim.named("klaxon")
    assert sim.game.phase == "idle" and not any(sim.game.positions)  # it counted nothing
    # 2. Press B: a blip, and the first question is asked: the seat on the QM's left
    # answers first (it blinks yellow where the build has lights)
    sim.tap("b", 3200)
    sim.run_until_ms(3500)
    assert sim.sounds()[-1][1] == "blip" and sim.game.phase == "answering"
    assert sim.game.answering == 1
    if sim.device.p[layout.PX] is not None:
        assert sim.scene()[sim.pixel_of(1, sim.game.players)] == ("yellow", "slow")
    # 3. Hold B (as the card says): the falling chime, and the question is taken back
    hold = card.hold_ms("B held") + 300
    sim.press("b", 4000, hold)
    sim.run_until_ms(4000 + hold + 500)
    assert sim.sounds()[-1][1] == "undone" and sim.game.phase == "idle"
    # 4. Unplug and plug in again: the game is where it was
    sim.tap("b", 7000)
    sim.run_until_ms(9000)  # (saved a second after the last press)
    again = Sim(settings, board_name=board, nvm=copy.deepcopy(sim.nvm))
    assert "resumed" in [line for _, line in again.events]
    assert again.game.phase == "answering" and again.game.answering == 1
