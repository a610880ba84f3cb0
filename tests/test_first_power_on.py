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
from model import layout  # noqa: E402  (the slots' names)


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


def looked_at(sim, seconds=2.0, every_ms=(45, 110), seed=0):
    """Each light as a person takes it in, looking for ``seconds`` at a person's pace (a
    glance every 45 to 110 ms): (colour, "steady" | "slow" | "fast"), the colour being the
    one lit when it blinks."""
    import random

    rng = random.Random(seed)
    seen = []
    t = sim.now_ms
    end = t + seconds * 1000
    while t < end:
        t += rng.uniform(*every_ms)
        sim.run_until_us(int(t * 1000))
        seen.append((t, sim.ring()))
    out = []
    for i in range(len(seen[0][1])):
        run = [(t, f[i]) for t, f in seen]
        lit = sorted({c for _, c in run} - {"off"})
        if len(lit) > 1 or not lit:
            out.append(("/".join(lit) or "off", "steady"))
            continue
        ons = [t for (t, c), (_, c0) in zip(run[1:], run) if c != "off" and c0 == "off"]
        if not ons and all(c != "off" for _, c in run):
            out.append((lit[0], "steady"))
        else:  # a fast blink (128 ms each) lights up several times a second, slow ~once
            out.append((lit[0], "fast" if len(ons) / seconds > 1.5 else "slow"))
    return out


@pytest.mark.parametrize("board, settings", [("cpb", ""), ("cpx", ""),
                                             ("pico", "QK_PIXELS = 10\n")])
@pytest.mark.parametrize("seed", range(3))
def test_step_6_the_reveal_looks_as_the_page_says(board, settings, seed):
    """Steps 4 to 6 as a new maker does them (B, A, the Klaxon), then the ring looked at
    for 2 s at a person's pace, three times over: seat 0 white, seat 1 yellow blinking
    fast (the challenged answer, first to mark), seat 2 vermillion blinking fast (the
    challenger), seat 3 grey; and no sky blue anywhere (the page says when it shows)."""
    with open("settings.example.toml") as f:
        text = settings + f.read()  # (a key is read once: the first line of it)
    sim = Sim(text, board_name=board)
    sim.tap("b", 1000)
    sim.tap("a", 2000)
    sim.press("klaxon", 3000, 200)
    sim.run_until_ms(5000)  # the klaxon and its flash over
    pixel = {s: events_pixel(sim, board, s) for s in range(4)}
    for look in range(3):
        seen = looked_at(sim, seed=seed * 10 + look)
        assert seen[pixel[0]] == ("white", "steady"), seen
        assert seen[pixel[1]] == ("yellow", "fast"), seen
        assert seen[pixel[2]] == ("vermillion", "fast"), seen
        assert seen[pixel[3]] == ("grey", "steady"), seen
        assert not any("sky" in c for c, _ in seen)


def events_pixel(sim, board, seat):
    import events

    return events.seat_pixel(seat, 4, 10, events.CLOCKWISE_NUMBERING[board])
