"""The ring at the pin level, on every build: the seats go round it the way play goes
round the table, and after a roll it shows the three dice for the QM to read.

Facts about the boards, from Adafruit's pinouts: on the Circuit Playground Express and
Bluefruit the ten NeoPixels are numbered counter-clockwise seen from the front, the
board face up (pixel 0 by the USB socket's left, 0 to 4 down the left, 5 to 9 up the
right). A Pico strip or ring is numbered as it is wired: clockwise unless
``QK_PIXELS_CCW = 1`` says otherwise. Seats are numbered clockwise (the dice pass to
the left). So on every build the next seat is the next pixel clockwise: on a
Circuit Playground that is the pixel numbered one lower.
"""

import pytest

import scenario
from harness import Sim
from model import layout  # noqa: E402  (the slots' names)

TEN = "QK_PIXELS = 10\n"
# build, settings, whether its pixel numbers run counter-clockwise
RINGS = [("simulated", "", True), ("cpb", "", True), ("cpx", "", True), ("pico", TEN, False),
         ("pico", TEN + "QK_PIXELS_CCW = 1\n", True), ("cpb", "QK_PIXELS_CCW = 0\n", False)]
RING_IDS = ["simulated", "cpb", "cpx", "pico-strip-cw", "pico-strip-ccw", "cpb-flipped"]


def lit(sim, colour):
    return [i for i, c in enumerate(sim.ring()) if c == colour]


@pytest.mark.parametrize("board, settings, ccw", RINGS, ids=RING_IDS)
def test_the_answering_seat_walks_clockwise_round_the_ring(board, settings, ccw):
    sim = Sim(settings, board_name=board, players=4)
    sim.run_until_ms(200)
    assert lit(sim, "white") == [0]  # seat 0, the QM, on pixel 0
    sim.tap("b", 300)  # ask: seat 1 answers first, then 2, then 3
    walk = []
    t = 300
    for _ in range(3):
        sim.run_until_ms(t + 250)
        walk.append(lit(sim, "yellow") or lit(sim, "off"))  # (yellow blinks: lit half the time)
        sim.run_until_ms(t + 250 + 512)  # the other half of the slow blink
        yellow = lit(sim, "yellow")
        walk[-1] = yellow if yellow else walk[-1]
        sim.tap("a", t + 800)  # this seat answers; the turn moves left
        t += 800
    # 4 seats on 10 pixels: places 2, 5, 7 clockwise from pixel 0
    want = [[8], [5], [3]] if ccw else [[2], [5], [7]]
    assert walk == want


def frames(sim, until_ms, step_ms=32):
    """(pixels as colour initials, LED) every ``step_ms`` up to ``until_ms``."""
    out = []
    t = max(sim.events[-1][0] if sim.events else 0, sim.now_ms)
    while t < until_ms:
        t += step_ms
        sim.run_until_ms(t)
        led = sim.device.p[layout.LED]
        px = "".join(c[0] if c != "off" else "." for c in sim.ring()) if sim.device.p[layout.PX] else ""
        out.append((px,
                    bool(led.value) if led is not None else None))
    return out


def shows(fs):
    """The frames as runs: [(pixels, LED, frames)] with the repeats folded."""
    runs = []
    for f in fs:
        if runs and tuple(runs[-1][:2]) == f:
            runs[-1][2] += 1
        else:
            runs.append([f[0], f[1], 1])
    return runs


def roll(sim, at_ms=300):
    """A roll; returns (when, the dice) once its flash (the chime's) is over."""
    sim.tap("a", at_ms)
    sim.run_until_ms(at_ms + 150)
    while sim.device.f[layout.FL]:
        sim.run_for_ms(1)
    (t, f), = sim.named("roll")
    return t, f["dice"]


@pytest.mark.parametrize("board, settings, ccw", RINGS, ids=RING_IDS)
def test_the_ring_shows_red_white_blue_one_die_at_a_time_as_many_pixels_as_each(
        board, settings, ccw):
    sim = Sim(settings, board_name=board, players=4, seed=11)
    t, dice = roll(sim)
    np = 10
    places = [(-i % np if ccw else i) for i in range(np)]  # clockwise from pixel 0
    seen = []  # each die as the eye takes it: [colour, lights, first frame, last, re-lit]
    dark = 99
    for k, (pixels, _) in enumerate(frames(sim, sim.now_ms + 5000)):
        on = [i for i, c in enumerate(pixels) if c != "."]
        if not on:
            dark += 1
            continue
        colour = {pixels[i] for i in on}
        assert len(colour) == 1, pixels
        assert sorted(on) == sorted(places[:len(on)])  # counted clockwise from pixel 0
        if dark * 32 > 200 or not seen:  # dark for more than a blink: the next die
            seen.append([colour.pop(), len(on), k, k, 0])
        else:
            assert seen[-1][:2] == [colour.pop(), len(on)], seen
            seen[-1][4] += dark > 0
        seen[-1][3] = k
        dark = 0
    assert [(c, n) for c, n, _, _, _ in seen[:3]] == list(zip("rwb", dice))
    for _, _, first, last, relit in seen[:3]:  # each die for a second (4 blinks of 128 ms
        assert 26 <= last - first + 1 <= 30  # lit in 7 steps), sampled every 32 ms ...
        assert relit == 3  # ... blinking: never the QM's steady white, even a white 1
    assert seen[3][0] == "r"  # and round again, red first


@pytest.mark.parametrize("settings, np", [("QK_PIXELS = 4\n", 4), ("", 0)],
                         ids=["pico-short-strip", "pico-led-only"])
def test_with_few_pixels_or_only_the_led_each_die_is_that_many_blinks(settings, np):
    sim = Sim(settings, board_name="pico", players=4, seed=5)
    t, dice = roll(sim)
    fs = frames(sim, t + 14_000)
    # each blink: the LED on (and every pixel of a short strip in the die's colour)
    blinks = []  # [colour, count] per die, split where it is dark for over 0.6 s
    dark = 99
    for pixels, led, n in shows(fs):
        on = led if not np else pixels != "." * np
        if on:
            assert led  # the LED blinks with the strip
            colour = pixels[0] if np else "?"
            assert not np or pixels == colour * np
            if dark > 18 or not blinks:  # over 0.6 s dark: the next die
                blinks.append([colour, 0])
            blinks[-1][1] += 1
            dark = 0
        else:
            dark = n
    counts = [k for _, k in blinks]
    assert counts[:3] == dice
    if np:
        assert [c for c, _ in blinks[:3]] == list("rwb")


@pytest.mark.parametrize("board, settings", [("cpx", ""), ("pico", "")], ids=["cpx", "pico-led"])
def test_the_roll_shows_until_the_question_is_asked(board, settings):
    sim = Sim(settings, board_name=board, players=4, seed=3)
    t, dice = roll(sim)
    fs = frames(sim, t + 6000)
    assert any(p.strip(".") or led for p, led in fs)
    sim.tap("b", t + 6100)  # the QM asks
    sim.run_until_ms(t + 6400)
    assert sim.named("ask")
    after = frames(sim, t + 12_000)
    if board == "cpx":  # the question's scene: the QM white, seat 1 answering yellow
        assert {p for p, _ in after} <= {"w.......y.", "w........."}
    assert not any(led for _, led in after if led is not None)  # no blinking roll


def test_the_roll_stops_at_any_other_action_and_a_new_roll_shows_anew():
    sim = Sim(players=4, seed=9)
    t, dice = roll(sim)
    sim.press("a", t + 500, scenario.HOLDS["held"])  # A held: miss a go (the QM's turn ends)
    sim.run_until_ms(t + 2800)
    assert sim.named("miss_go")
    assert "r" not in "".join(p for p, _ in frames(sim, t + 6000))
    sim.tap("a", t + 6100)  # the next QM rolls
    sim.run_until_ms(t + 6300)
    while sim.device.f[layout.FL]:  # (its chime's flash first)
        sim.run_for_ms(1)
    (_, f) = sim.named("roll")[-1]
    first = [p for p, _ in frames(sim, t + 7200) if p.strip(".")]
    assert first and first[0].count("r") == f["dice"][0]


@pytest.mark.parametrize("board, settings, ccw", [("pico", "QK_PIXELS = 4\n", False),
                                                   ("pico", "QK_PIXELS = 4\nQK_PIXELS_CCW = 1\n",
                                                    True),
                                                   ("cpb", "QK_PIXELS = 3\n", True)],
                         ids=["short-cw", "short-ccw", "cpb-3-pixels"])
def test_a_short_strip_shows_the_first_seats_where_the_host_pictures_put_them(board, settings,
                                                                             ccw):
    """Fewer pixels than seats: seat s on place s, the same way round as a ring; the
    terminal sim and the page label the pixels with events.seat_pixel, which must agree."""
    import events as E

    sim = Sim(settings, board_name=board, players=6)
    sim.tap("b", 300)  # ask: seat 1 answers first
    np = len(sim.device.p[layout.PX])
    for seat in (1, 2):
        seen = set()
        for t in range(0, 1100, 100):  # the slow yellow blink: lit half of each second
            sim.run_until_ms(600 + (seat - 1) * 1200 + t)
            seen |= set(lit(sim, "yellow"))
        assert seen == {E.seat_pixel(seat, 6, np, not ccw)}, (seat, seen)
        sim.tap("a", 600 + (seat - 1) * 1200 + 1100)
    assert lit(sim, "white") == [E.seat_pixel(0, 6, np, not ccw)] == [0]
