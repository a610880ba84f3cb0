"""The ring as the board has it, in every picture (issue 17, item 2, the drawing side).

The facts, from Adafruit (tools/simulated/events.py cites them): on the Circuit Playground Express
and Bluefruit, seen from the front with the USB connector at 12 o'clock, the ten
NeoPixels sit at the hours of a clock but 12 and 6, numbered COUNTER-clockwise: pixel 0
at 11 o'clock (beside the USB connector, over the GND pad), 4 at 7, 5 at 5, 9 at 1 (over
the 3.3V pad). The terminal sim, the page and docs/ring-legend.svg must draw pixel i
there; and each labels seat s on the pixel the firmware lights for it."""

import math
import os
import re

import pytest

import events as E
import pictures
import sim as S
from harness import ROOT, Sim

# Adafruit's numbering diagram for cp.pixels (Adafruit_CircuitPython_CircuitPlayground,
# docs/_static/neopixel_numbering.jpg), stated as a fact: pixel -> clock hour
CIRCUIT_PLAYGROUND = {0: 11, 1: 10, 2: 9, 3: 8, 4: 7, 5: 5, 6: 4, 7: 3, 8: 2, 9: 1}


def hour_of(dx, dy_up):
    """The clock hour of a point (dx right, dy up from the centre), 0 to 12."""
    return (math.degrees(math.atan2(dx, dy_up)) / 30) % 12


def same_hour(a, b, tol=0.3):
    return min(abs(a - b), 12 - abs(a - b)) <= tol


@pytest.mark.parametrize("board", ["cpx", "cpb", "simulated"])
def test_each_circuit_playground_pixel_sits_where_adafruit_says(board):
    assert E.RING_POSITIONS[board] == tuple(CIRCUIT_PLAYGROUND[i] for i in range(10))
    assert E.ring_hours(board, 10) == [CIRCUIT_PLAYGROUND[i] for i in range(10)]
    hours = set(CIRCUIT_PLAYGROUND.values())
    assert 12 not in hours and 6 not in hours and len(hours) == 10  # USB, battery connector
    assert not E.CLOCKWISE_NUMBERING[board]
    for i in range(9):  # each next pixel is counter-clockwise of the one before
        step = (CIRCUIT_PLAYGROUND[i] - CIRCUIT_PLAYGROUND[i + 1]) % 12
        assert step == (2 if i == 4 else 1)


def clockwise_angles(hours):
    """Cumulative clockwise hours from the first to each next one."""
    out, total = [0], 0
    for a, b in zip(hours, hours[1:]):
        total += (b - a) % 12
        out.append(total)
    return out


@pytest.mark.parametrize("board", ["cpx", "cpb", "simulated", "pico"])
@pytest.mark.parametrize("n", range(2, 11))
def test_seats_go_clockwise_from_pixel_0(board, n):
    np = 10
    cw = E.CLOCKWISE_NUMBERING[board]
    pixels = [E.seat_pixel(s, n, np, cw) for s in range(n)]
    assert pixels[0] == 0 and len(set(pixels)) == n
    hours = E.ring_hours(board, np)
    turns = clockwise_angles([hours[i] for i in pixels])
    assert turns == sorted(turns) and len(set(turns)) == n and turns[-1] < 12


def test_seat_pixel_is_the_formula_the_firmware_uses():
    for n in range(2, 11):
        for s in range(n):
            assert E.seat_pixel(s, n, 10, False) == (-(s * 10 // n)) % 10
            assert E.seat_pixel(s, n, 10, True) == s * 10 // n
    # a short strip: seat s on place s, the same way round (>= np: not shown)
    assert [E.seat_pixel(s, 6, 4, True) for s in range(6)] == [0, 1, 2, 3, 4, 5]
    assert [E.seat_pixel(s, 6, 4, False) for s in range(6)] == [0, 3, 2, 1, 4, 5]
    assert E.seat_labels("pico", 6, 4) == [0, 1, 2, 3]


def test_the_firmware_lights_each_seat_where_seat_pixel_says():
    """The labels stay true: the sim's and the page's seat numbers sit on the pixel the
    device lights for that seat (its QM white, the seat whose turn it is yellow)."""
    import hardware.device as D

    if not hasattr(D, "_CCW"):
        pytest.skip("the firmware does not number its pixels' direction yet (hardware/device.py)")
    for board in ("simulated", "cpx", "cpb"):
        for n in (3, 4, 6, 10):
            sim = Sim(players=n, board_name=board)
            assert bool(sim.device.f[D._CCW]) == (not E.CLOCKWISE_NUMBERING[board]), board
            sim.tap("b", 100)  # the QM asks: seat 1's turn
            sim.run_until_ms(1024 + 200)  # (the slow blink lit)
            lit = sim.ring()  # each pixel's colour, as the NeoPixels show it
            assert lit[E.seat_pixel(0, n, 10, False)] == "white"
            assert lit[E.seat_pixel(1, n, 10, False)] == "yellow"
            assert lit.count("off") == 8


# ------------------------------------------------------------ the terminal sim
def cells_of(lines):
    """{label: (row, column)} of the labelled 3-character cells in the sim's ring."""
    plain = [re.sub(r"\x1b\[[0-9;]*m", "", line) for line in lines]
    out = {}
    for row, line in enumerate(plain):
        for m in re.finditer(r" ?(\d+) ", line):
            out[int(m.group(1))] = (row, m.start())
    return out


def test_the_terminal_ring_draws_pixel_i_where_the_board_has_it():
    hours = E.ring_hours("cpx", 10)
    lines = S.ring_lines([0] * 10, [str(i) for i in range(10)], hours)
    cells = cells_of(lines)
    cy, cx = (S.RING_ROWS - 1) / 2, (S.RING_COLS - 3) / 2
    for i in range(10):
        row, col = cells[i]
        # a terminal cell is about twice as tall as wide: the box is drawn as a circle
        h = hour_of((col - cx) / cx, (cy - row) / cy)
        assert same_hour(h, CIRCUIT_PLAYGROUND[i], 0.5), (i, h)
    assert "USB" in re.sub(r"\x1b\[[0-9;]*m", "", lines[0])  # 12 o'clock is marked


def test_the_sims_ring_labels_each_seat_at_its_pixel():
    sim = Sim(players=6, board_name="cpx", coarse=True)
    sim.run_until_ms(100)
    colours, labels, hours = S.ring_now(sim)
    assert hours == [CIRCUIT_PLAYGROUND[i] for i in range(10)]
    want = E.seat_labels("cpx", 6, 10, S.numbered_clockwise(sim))
    assert labels == ["" if s is None else str(s) for s in want]


# ------------------------------------------------------------ docs/ring-legend.svg
def svg_pixels(text):
    return {int(m.group(3)): (float(m.group(1)), float(m.group(2))) for m in re.finditer(
        r'<circle cx="([\d.]+)" cy="([\d.]+)" r="14" fill="[^"]*" stroke="#000" '
        r'data-pixel="(\d+)"/>', text)}


def test_the_ring_legend_draws_pixel_i_where_the_board_has_it_and_is_up_to_date():
    with open(os.path.join(ROOT, "docs", "ring-legend.svg")) as f:
        text = f.read()
    assert text == pictures.ring_legend(), "docs/ring-legend.svg is stale: python3 tools/dev.py regen"
    where = svg_pixels(text)
    assert sorted(where) == list(range(10))
    cx, cy = pictures.RING_CENTRE
    for i, (x, y) in where.items():
        assert same_hour(hour_of(x - cx, cy - y), CIRCUIT_PLAYGROUND[i]), i
    assert ">USB</text>" in text


def test_the_ring_legend_labels_the_example_seats_clockwise():
    text = pictures.ring_legend()
    where = svg_pixels(text)
    cx, cy = pictures.RING_CENTRE
    seats = E.seat_labels("cpb", len(pictures.EXAMPLE), 10)
    order = sorted((s, hour_of(where[i][0] - cx, cy - where[i][1]))
                   for i, s in enumerate(seats) if s is not None)
    turns = clockwise_angles([h for _, h in order])
    assert turns == sorted(turns) and turns[-1] < 12


# ------------------------------------------------------------ the page
def read(*parts):
    with open(os.path.join(ROOT, *parts)) as f:
        return f.read()


def test_the_page_takes_its_ring_from_the_one_table_and_its_labels_from_seat_pixel():
    app = read("web", "app.js")
    page = read("web", "page.py")
    assert "events.ring_hours(BUILD" in page and "events.seat_labels(BUILD" in page
    assert "hours[i]" in app and "f.seats" in app
    # no geometry or seat mapping of its own to drift from tools/simulated/events.py
    assert "11 - i" not in app and "pixelOf" not in app and "seat * np" not in app


def test_the_wiring_picture_puts_the_pads_where_adafruits_pinout_has_them():
    """Adafruit's Circuit Playground Express pinout photo (the Bluefruit has the same pad
    ring), seen from the front with the USB socket at 12: A1 at about 4 o'clock between a
    GND pad at 3 and A0; 3.3V at 1 and 9; GND also at 11 and 7 (by the battery socket)."""
    import re

    import pictures

    hours = dict()
    for name, hour in pictures.CP_PADS:
        hours.setdefault(name, []).append(hour)
    assert 3.5 < hours["A1"][0] < 4.2 and 4.2 <= hours["A0"][0] < 4.8
    assert sorted(hours["GND"]) == [3.0, 6.9, 11.0] and sorted(hours["3.3V"]) == [1.0, 9.0]
    assert [n for n, _ in sorted(pictures.CP_PADS, key=lambda p: p[1])] == [
        "3.3V", "A3", "A2", "GND", "A1", "A0", "VOUT", "GND", "A7", "A6", "3.3V", "A5", "A4",
        "GND"]
    svg = pictures.wiring_circuit_playground()
    a1 = re.search(r'<circle cx="(\d+)" cy="(\d+)" r="13" fill="#e6b800"[^>]*/>\s*<text[^>]*>A1<',
                   svg)
    assert a1 and int(a1.group(1)) > 230 and int(a1.group(2)) > 220  # right of centre, below it
