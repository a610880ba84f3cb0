#!/usr/bin/env python3
"""Draw the docs' pictures as SVG from the firmware's own tables (host-only tool).

    .venv/bin/python tools/gen/pictures.py     # writes docs/*.svg

(the .venv that ``python3 tools/dev.py test`` makes: the tables come through
tools/simulated/harness.py, which needs its simulated ``board``; a bare python3 fails on it.)

The ring legend uses the colours hardware/device.py draws (tools/simulated/harness.py's
PALETTE, checked against the device by the tests) and the sound picture is
computed from tools/gen/synth.py's klaxon, so neither can drift from the firmware.
"""

import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import paths  # noqa: E402  (tools/paths.py: every group of tools/ on the path)
from paths import ROOT  # noqa: E402

from harness import COLOUR_NAMES, PALETTE  # noqa: E402

import card  # noqa: E402
import events as E  # noqa: E402


class L:
    """The device's colours and blink patterns by name (hardware/device.py's numbers)."""

    OFF, WHITE, YELLOW, GREEN, GREY, VERMILLION, SKY, ORANGE, PURPLE, BLUE = range(10)
    STEADY, SLOW, FAST = range(3)
    COLOURS = [(c >> 16, c >> 8 & 255, c & 255) for c in PALETTE]
    NAMES = COLOUR_NAMES


def rgb(i):
    """A colour as drawn: the dim grey LED glow is shown lighter, as the eye sees it."""
    if i == L.GREY:
        return "rgb(150,150,150)"
    return "rgb(%d,%d,%d)" % L.COLOURS[i]


# An example moment: 6 players, QM seat 0; seat 1 answered, 2 passed,
# seat 3 hit the Klaxon on seat 1's answer; 4 and 5 are deemed to pass.
EXAMPLE = [(L.WHITE, "QM"), (L.SKY, "challenged"), (L.GREY, "passed"), (L.VERMILLION, "challenger"),
           (L.GREY, "passed"), (L.GREY, "passed")]

LEGEND = card.LEGEND  # the table card's: one legend for the card and this picture


def _svg(w, h, title, size=14):
    """The opening of a picture: canvas, background and title."""
    return ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" '
            'font-family="sans-serif" font-size="%d">' % (w, h, size),
            '<rect width="100%" height="100%" fill="#fdfdf8"/>',
            '<text x="20" y="26" font-size="17" font-weight="bold">%s</text>' % title]


RING_CENTRE = (170, 190)  # the ring legend's board: its centre and the pixels' radius
RING_RADIUS = 95


def ring_point(hour, radius=RING_RADIUS):
    """Where a clock hour is on the legend's board (12 at the top, clockwise)."""
    a = math.radians(hour * 30)
    return RING_CENTRE[0] + radius * math.sin(a), RING_CENTRE[1] - radius * math.cos(a)


def ring_legend(board="cpb"):
    """The ring as a Circuit Playground has it, face up, USB connector at the top: pixel
    i at tools/simulated/events.py's RING_POSITIONS hour, each seat at the pixel the firmware
    lights for it (events.seat_labels), the pixel numbers outside."""
    w, h = 830, 360
    cx, cy = RING_CENTRE
    out = _svg(w, h, "QI Klaxon: the ring of seats") + [
           '<circle cx="%d" cy="%d" r="120" fill="#222"/>' % (cx, cy),
           '<rect x="%d" y="%d" width="40" height="16" rx="3" fill="#999"/>' % (cx - 20, cy - 126),
           '<text x="%d" y="%d" text-anchor="middle" font-size="10">USB</text>' % (cx, cy - 114),
           '<circle cx="%d" cy="%d" r="70" fill="#fdfdf8"/>' % (cx, cy),
           '<text x="%d" y="%d" text-anchor="middle">6 players:</text>' % (cx, cy - 4),
           '<text x="%d" y="%d" text-anchor="middle">seat 3 klaxons</text>' % (cx, cy + 14),
           '<text x="%d" y="%d" text-anchor="middle">seat 1</text>' % (cx, cy + 32)]
    n = len(EXAMPLE)
    hours = E.ring_hours(board, 10)
    seats = E.seat_labels(board, n, 10)
    for i, hour in enumerate(hours):
        x, y = ring_point(hour)
        seat = seats[i]
        fill = rgb(EXAMPLE[seat][0]) if seat is not None else "#444"
        out.append('<circle cx="%.1f" cy="%.1f" r="14" fill="%s" stroke="#000" '
                   'data-pixel="%d"/>' % (x, y, fill, i))
        if seat is not None:
            out.append('<text x="%.1f" y="%.1f" text-anchor="middle" font-weight="bold">%d</text>'
                       % (x, y + 5, seat))
        px, py = ring_point(hour, 134)
        out.append('<text x="%.1f" y="%.1f" text-anchor="middle" font-size="10" fill="#777">'
                   'px %d</text>' % (px, py + 4, i))
    y = 62
    for colour, pattern, text in LEGEND:
        out.append('<circle cx="350" cy="%d" r="9" fill="%s" stroke="#000"/>' % (y, rgb(colour)))
        if pattern != L.STEADY:
            out.append('<circle cx="374" cy="%d" r="9" fill="none" stroke="#000" '
                       'stroke-dasharray="%s"/>' % (y, "2,2" if pattern == L.FAST else "6,4"))
        out.append('<text x="392" y="%d">%s</text>' % (y + 5, text))
        y += 29
    out.append('<text x="20" y="%d" fill="#555">The board face up, USB at the top; its pixels '
               'count counter-clockwise from px 0; seats go clockwise, as play does.</text>'
               % (h - 12))
    out.append("</svg>")
    return "\n".join(out) + "\n"


def klaxon_sound():
    """The klaxon's waveform (1.3 s) and the spectrum of its first blast's loud part."""
    import struct

    import synth

    data = synth.wav_bytes(synth.klaxon())[44:]
    x = [v / 32768 for (v,) in struct.iter_unpack("<h", data)]
    w, h = 830, 420
    out = _svg(w, h, "The klaxon (tools/gen/synth.py): waveform and spectrum", 13)
    # waveform: min/max per column
    x0, y0, ww, hh = 40, 40, 760, 150
    cols = ww
    per = len(x) / cols
    pts_hi, pts_lo = [], []
    for c in range(cols):
        seg = x[int(c * per):int((c + 1) * per)] or [0]
        pts_hi.append("%d,%.1f" % (x0 + c, y0 + hh / 2 - max(seg) * hh / 2))
        pts_lo.append("%d,%.1f" % (x0 + c, y0 + hh / 2 - min(seg) * hh / 2))
    out.append('<polygon points="%s" fill="#d55e00" stroke="none"/>'
               % " ".join(pts_hi + pts_lo[::-1]))
    out.append('<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="#888"/>' % (x0, y0 + hh / 2, x0 + ww,
                                                                      y0 + hh / 2))
    secs = len(x) / synth.RATE
    for t in range(0, int(secs * 10) + 1, 2):
        px = x0 + t / 10 / secs * ww
        out.append('<text x="%.0f" y="%d" text-anchor="middle">%.1f s</text>' % (px, y0 + hh + 16,
                                                                              t / 10))
    # spectrum: DFT of 2048 samples in the first blast's held tone, 0-8 kHz
    n = 2048
    start = int(0.40 * synth.RATE)
    seg = x[start:start + n]
    import math

    win = [seg[i] * (0.5 - 0.5 * math.cos(2 * math.pi * i / (n - 1))) for i in range(n)]
    bins = 256
    fmax = 8000
    mags = []
    for b in range(1, bins):
        f = b * fmax / bins
        k = f * n / synth.RATE
        re_ = sum(win[i] * math.cos(2 * math.pi * k * i / n) for i in range(n))
        im = sum(win[i] * math.sin(2 * math.pi * k * i / n) for i in range(n))
        mags.append(math.hypot(re_, im))
    top = max(mags)
    sx0, sy0, sh = 40, 235, 140
    pts = ["%d,%d" % (sx0, sy0 + sh)]
    for b, m in enumerate(mags, 1):
        db = max(-60.0, 20 * math.log10(m / top + 1e-12))
        pts.append("%.1f,%.1f" % (sx0 + b * ww / bins, sy0 + sh * (-db / 60)))
    pts.append("%d,%d" % (sx0 + ww, sy0 + sh))
    out.append('<polygon points="%s" fill="#0072b2" opacity="0.85"/>' % " ".join(pts))
    for f in range(0, fmax + 1, 1000):
        out.append('<text x="%.0f" y="%d" text-anchor="middle">%d Hz</text>'
                   % (sx0 + f / fmax * ww, sy0 + sh + 16, f))
    out.append('<text x="%d" y="%d">spectrum at 0.40 s, dB (0 to -60)</text>' % (sx0 + 4, sy0 - 6))
    out.append('<text x="%d" y="%d" fill="#555">Two rising blasts, pitch 190 to 430 Hz, each period '
               'a rasp (a carrier at 5.5 times the pitch, then a slow cycle), 16-bit 16 kHz mono.'
               '</text>' % (20, h - 10))
    out.append("</svg>")
    return "\n".join(out) + "\n"


# The Circuit Playground's pads: (label, clock hour seen from the front, USB at 12)
CP_PADS = (("3.3V", 1.0), ("A3", 1.7), ("A2", 2.3), ("GND", 3.0), ("A1", 3.7), ("A0", 4.3),
           ("VOUT", 5.1), ("GND", 6.9), ("A7", 7.7), ("A6", 8.3), ("3.3V", 9.0), ("A5", 9.7),
           ("A4", 10.3), ("GND", 11.0))


def _wire(points, colour="#000"):
    return '<polyline points="%s" fill="none" stroke="%s" stroke-width="3"/>' % (
        " ".join("%d,%d" % p for p in points), colour)


def _text(x, y, words, size=14, anchor="start", fill="#000", bold=False):
    return '<text x="%d" y="%d" font-size="%d"%s%s fill="%s">%s</text>' % (
        x, y, size, ' text-anchor="%s"' % anchor if anchor != "start" else "",
        ' font-weight="bold"' if bold else "", fill, words)


def _arcade(x, y):
    """A big arcade button seen from the side as it sits in the lid (``y``: the lid's top):
    the cap, the threaded body and its nut, the microswitch clipped underneath, its three
    tabs marked on its side as on a real one. Returns (the SVG, {tab: (x, y) of its end})."""
    out = ['<path d="M%d %d Q%d %d %d %d Z" fill="#d55e00" stroke="#000" stroke-width="2"/>'
           % (x - 60, y, x, y - 55, x + 60, y),  # the cap
           '<rect x="%d" y="%d" width="150" height="8" fill="#c8b48c" stroke="#000"/>'
           % (x - 75, y),  # the lid
           '<rect x="%d" y="%d" width="44" height="40" fill="#eee" stroke="#000"/>'
           % (x - 22, y + 8),  # the threaded body
           '<rect x="%d" y="%d" width="64" height="10" rx="2" fill="#bbb" stroke="#000"/>'
           % (x - 32, y + 14),  # its nut
           '<rect x="%d" y="%d" width="116" height="46" rx="3" fill="#444" stroke="#000"/>'
           % (x - 58, y + 48),  # the microswitch
           _text(x, y + 63, "microswitch", 12, "middle", "#fff")]
    tabs = {}
    for name, dx in (("COM", -36), ("NO", 0), ("NC", 36)):
        out.append(_text(x + dx, y + 87, name, 13, "middle", "#fff", True))
        out.append('<rect x="%d" y="%d" width="8" height="16" fill="#e6b800" stroke="#000"/>'
                   % (x + dx - 4, y + 94))
        tabs[name] = (x + dx, y + 110)
    return out, tabs


CP_KLAXON = (640, 120)  # where each wiring picture draws the Klaxon (its lid's top, centre)
PICO_KLAXON = (866, 430)


def _dot(x, y):
    """Wires joined here."""
    return '<circle cx="%d" cy="%d" r="5" fill="#000"/>' % (x, y)


def wiring_circuit_playground():
    """Circuit Playground Bluefruit or Express as the maker holds it, face up with the USB
    socket at the top: its pads where they are on the board (labelled outside it), the
    big button from the side with its microswitch's COM, NO and NC tabs, NO to pad A1 and
    COM to the GND pad beside it, the battery pack's JST plug into the board's battery
    socket at the bottom."""
    w, h = 820, 560
    cx, cy = 230, 250
    out = _svg(w, h, "Circuit Playground (Bluefruit or Express): wiring, seen from above") + [
        '<circle cx="%d" cy="%d" r="150" fill="#1a1a1a"/>' % (cx, cy),
        _text(cx, cy - 4, "Circuit Playground", 15, "middle", "#fff", True),
        _text(cx, cy + 16, "face up", 13, "middle", "#fff")]
    # The pads where they are on the board, as clock hours seen from the front with the USB
    # socket at 12 (Adafruit's Circuit Playground Express pinout photo, the same pad ring on
    # the Bluefruit): A1 at about 4 o'clock, between the GND at 3 and A0
    out.append('<rect x="%d" y="%d" width="40" height="22" rx="3" fill="#999" stroke="#000"/>'
               % (cx - 20, cy - 160))
    out.append(_text(cx, cy - 172, "USB socket", 13, "middle"))
    where = {}
    for name, hour in CP_PADS:
        a = math.radians(hour * 30 - 90)
        px, py = cx + 135 * math.cos(a), cy + 135 * math.sin(a)
        used = name == "A1" or (name, hour) == ("GND", 3.0)
        where.setdefault(name, (px, py))
        out.append('<circle cx="%.0f" cy="%.0f" r="13" fill="%s" stroke="#000"/>'
                   % (px, py, "#e6b800" if used else "#8a8a8a"))
        lx, ly = cx + 172 * math.cos(a), cy + 172 * math.sin(a) + 5
        if used and name == "GND":  # (above its wire)
            lx, ly = lx + 4, ly - 16
        out.append('<text x="%.0f" y="%.0f" font-size="13" text-anchor="middle"%s fill="#000">'
                   '%s</text>' % (lx, ly, ' font-weight="bold"' if used else "", name))
    # the battery socket (JST) at the bottom edge, between VOUT and the GND at 7 o'clock
    out.append('<rect x="%d" y="%d" width="34" height="18" rx="2" fill="#f4f4f4" stroke="#000"/>'
               % (cx - 17, cy + 128))
    out.append(_text(cx, cy + 200, "battery socket (JST)", 13, "middle"))
    button, tabs = _arcade(*CP_KLAXON)
    out += button
    out.append(_text(640, 48, "the Klaxon, from the side", 14, "middle",
                     bold=True))
    out.append(_text(690, 250, "NC: leave it empty", 13))
    ax, ay = where["A1"]
    gx, gy = where["GND"]  # the GND pad at 3 o'clock, next to A1
    nx, ny = tabs["NO"]
    mx, my = tabs["COM"]
    out.append(_wire([(mx, my), (mx, my + 40), (450, my + 40), (450, gy), (gx + 13, gy)], "#000"))
    out.append(_wire([(nx, ny), (nx, ny + 70), (470, ny + 70), (470, ay), (ax + 13, ay)],
                     "#0072b2"))
    out.append('<rect x="%d" y="%d" width="%d" height="9" rx="2" fill="#fff" stroke="#000"/>'
               % (mx - 10, my + 6, nx - mx + 20))  # a cable tie round both wires
    out.append(_text(mx - 14, my + 15, "cable tie", 12, "end"))
    out.append(_text(480, my + 32, "COM to GND", 13, bold=True))
    out.append(_text(480, ny + 92, "NO to pad A1", 13, bold=True, fill="#0072b2"))
    # the battery pack: three cells, its switch, and red and black leads to a JST plug
    bx, by = 470, 430
    out.append('<rect x="%d" y="%d" width="250" height="70" rx="6" fill="#ddd" stroke="#000"/>'
               % (bx, by))
    for i in range(3):
        out.append('<rect x="%d" y="%d" width="62" height="18" rx="8" fill="#fff" stroke="#000"/>'
                   % (bx + 12 + i * 68, by + 12))
        out.append(_text(bx + 43 + i * 68, by + 26, "AAA", 12, "middle"))
    out.append('<rect x="%d" y="%d" width="28" height="14" rx="3" fill="#555" stroke="#000"/>'
               % (bx + 12, by + 44))
    out.append(_text(bx + 48, by + 56, "on/off switch", 12))
    out.append(_wire([(bx, by + 30), (360, by + 30), (360, cy + 160), (cx + 6, cy + 160),
                      (cx + 6, cy + 146)], "#cc0000"))
    out.append(_wire([(bx, by + 40), (350, by + 40), (350, cy + 170), (cx - 6, cy + 170),
                      (cx - 6, cy + 146)], "#000"))
    out.append(_text(bx + 125, by + 90, "3×AAA pack: its JST plug into the battery socket",
                     13, "middle"))
    out.append(_text(20, h - 14, "Buttons A and B are on the board; the slide switch mutes. "
                     "No resistors: the firmware turns on A1's pull-up.", 13, fill="#333"))
    out.append("</svg>")
    return "\n".join(out) + "\n"


def _diode(x, y, stripe_left=True):
    """A 1N5817 as it looks in the hand: a black body on the wire with a grey stripe at its
    cathode end (the end the current leaves by)."""
    sx = x + 3 if stripe_left else x + 41
    return ('<rect x="%d" y="%d" width="50" height="16" rx="4" fill="#222" stroke="#000"/>'
            '<rect x="%d" y="%d" width="6" height="16" fill="#ccc"/>' % (x, y - 8, sx, y - 8))


# The Pico's 40 pins, numbered as on its underside: 1 to 20 down the left edge seen from
# above with the USB socket at the top, 21 to 40 up the right edge (Raspberry Pi's pinout)
PICO_PINS = ("GP0", "GP1", "GND", "GP2", "GP3", "GP4", "GP5", "GND", "GP6", "GP7", "GP8", "GP9",
             "GND", "GP10", "GP11", "GP12", "GP13", "GND", "GP14", "GP15",  # 1-20
             "GP16", "GP17", "GND", "GP18", "GP19", "GP20", "GP21", "GND", "GP22", "RUN",
             "GP26", "GP27", "GND", "GP28", "ADC_VREF", "3V3", "3V3_EN", "GND", "VSYS", "VBUS")


def pico_pin(n, top=84, pitch=24, left=330, width=170):
    """Where pin ``n`` (1 to 40) is drawn: (x, y) of its hole, and its side (-1 left)."""
    if n <= 20:
        return left, top + (n - 1) * pitch, -1
    return left + width, top + (40 - n) * pitch, 1


def _small_button(x, y, label):
    """A 12 mm push button from above: four legs, wired by two diagonally opposite ones.
    Returns (the SVG, (x, y) of its top-left leg, (x, y) of its bottom-right leg)."""
    out = ['<rect x="%d" y="%d" width="34" height="34" rx="3" fill="#ccc" stroke="#000"/>'
           % (x - 17, y - 17),
           '<circle cx="%d" cy="%d" r="10" fill="#222"/>' % (x, y),
           _text(x + 26, y + 5, label, 13, bold=True)]
    for dx, dy in ((-20, -20), (20, -20), (-20, 20), (20, 20)):
        out.append('<rect x="%d" y="%d" width="6" height="6" fill="#e6b800" stroke="#000"/>'
                   % (x + dx - 3, y + dy - 3))
    return out, (x - 20, y - 20), (x + 20, y + 20)


def wiring_pico():
    """The Raspberry Pi Pico (or Pico 2) from above, USB at the top, all 40 pins where they
    are (numbered as on its underside), every part as it looks in the hand: the arcade
    button's COM, NO and NC tabs, the two small buttons' diagonal legs, the passive
    piezo's two legs (no polarity), the optional strip's three pads, the battery pack's
    (+) through the diode, its stripe toward VSYS (docs/build-guide.md's table). A hop is
    a crossing; a dot, wires joined."""
    w, h = 980, 660
    out = _svg(w, h, "Raspberry Pi Pico (or Pico 2): wiring, seen from above") + [
        '<rect x="330" y="62" width="170" height="500" rx="8" fill="#1b5e20" stroke="#000"/>',
        '<rect x="393" y="52" width="44" height="26" rx="3" fill="#999" stroke="#000"/>',
        _text(415, 46, "USB", 13, "middle"),
        _text(415, 584, "Raspberry Pi Pico, from above", 14, "middle", bold=True)]
    used = {20: "#d55e00", 19: "#d55e00", 21: "#0072b2", 22: "#0072b2", 23: "#000", 24: "#0072b2",
            28: "#000", 29: "#009e73", 38: "#000", 39: "#cc0000"}
    for n, name in enumerate(PICO_PINS, 1):
        x, y, side = pico_pin(n)
        out.append('<circle cx="%d" cy="%d" r="6" fill="%s" stroke="#000"/>'
                   % (x, y, "#e6b800" if n in used else "#c9c9c9"))
        words = "%d %s" % (n, name) if side < 0 else "%s %d" % (name, n)  # (number outermost)
        out.append(_text(x - 12 * side, y + 4, words, 12, "start" if side < 0 else "end", "#fff",
                         n in used))
    # the battery pack (+) through the diode, its stripe toward VSYS; (−) to GND (pin 38)
    vx, vy, _ = pico_pin(39)
    gx, gy, _ = pico_pin(38)
    out.append(_wire([(vx + 6, vy), (570, vy)], "#cc0000"))
    out.append(_diode(570, vy))
    out.append(_wire([(620, vy), (700, vy)], "#cc0000"))
    out.append(_wire([(gx + 6, gy), (700, gy)], "#000"))
    out.append('<rect x="700" y="%d" width="200" height="52" rx="6" fill="#ddd" stroke="#000"/>'
               % (vy - 14))
    out.append(_text(710, vy + 5, "(+)  3×AAA pack", 13, bold=True))
    out.append(_text(710, gy + 5, "(−)  with its switch", 13, bold=True))
    out.append(_text(560, vy - 16, "diode 1N5817: its stripe toward VSYS", 13))
    # the strip (optional): +5V to VSYS on the Pico's side of the diode, DIN, GND
    dx, dy, _ = pico_pin(29)
    sx, sy, _ = pico_pin(28)
    out.append(_wire([(dx + 6, dy), (640, dy)], "#009e73"))
    out.append(_wire([(sx + 6, sy), (640, sy)], "#000"))
    out.append('<path d="M540 %d V%d A6 6 0 0 1 540 %d V%d H640" fill="none" stroke="#cc0000" '
               'stroke-width="3"/>' % (vy, gy - 6, gy + 6, dy - 24))  # (a hop over GND)
    out.append(_dot(540, vy))
    out.append('<rect x="640" y="%d" width="80" height="72" rx="3" fill="#f4f4f4" stroke="#000"/>'
               % (dy - 36))
    for label, yy in (("+5V", dy - 24), ("DIN", dy), ("GND", sy)):
        out.append(_text(650, yy + 5, label, 13, bold=True))
    out.append(_text(730, dy - 18, "NeoPixel strip,", 13))
    out.append(_text(730, dy, "its input end", 13))
    out.append(_text(730, dy + 18, "(optional; QK_PIXELS)", 12))
    # the Klaxon: NO to GP16 (pin 21), COM to GND (pin 23); B on GP18 (24), A on GP17 (22)
    button, tabs = _arcade(*PICO_KLAXON)
    out += button
    out.append(_text(866, 394, "the Klaxon, from the side", 14, "middle", bold=True))
    k16, g23, a17, b18 = pico_pin(21), pico_pin(23), pico_pin(22), pico_pin(24)
    nx, ny = tabs["NO"]
    mx, my = tabs["COM"]
    bpart, b_sig, b_gnd = _small_button(660, b18[1] - 6, "button B")
    apart, a_sig, a_gnd = _small_button(660, a17[1] + 20, "button A")
    out += bpart + apart
    out.append(_wire([(b18[0] + 6, b18[1]), (620, b18[1]), (620, b_sig[1]), b_sig], "#0072b2"))
    out.append(_wire([(a17[0] + 6, a17[1]), a_sig], "#0072b2"))
    out.append(_wire([(g23[0] + 6, g23[1]), (760, g23[1]), (760, a_gnd[1])], "#000"))
    out.append(_wire([b_gnd, (b_gnd[0], g23[1])], "#000"))
    out.append(_dot(b_gnd[0], g23[1]))
    out.append(_wire([a_gnd, (mx, a_gnd[1]), (mx, my)], "#000"))
    out.append(_dot(760, a_gnd[1]))
    out.append(_wire([(k16[0] + 6, k16[1]), (590, k16[1]), (590, 610), (nx, 610), (nx, ny)],
                     "#0072b2"))
    out.append(_text(nx + 36, ny + 18, "NC: empty", 13, "middle"))
    out.append(_text(840, 604, "NO to GP16", 13, "end", "#0072b2", True))
    out.append(_text(790, a_gnd[1] + 18, "COM to GND", 13, bold=True))
    # the piezo on the left: GP15 (pin 20) and GP14 (pin 19), either leg to either: the
    # two driven in antiphase (push-pull); QK_AUDIO = "piezo-gnd": GND (pin 18) for GP14
    p15 = pico_pin(20)
    p14 = pico_pin(19)
    out.append('<rect x="150" y="%d" width="56" height="%d" rx="10" fill="#333" stroke="#000"/>'
               % (p14[1] - 12, p15[1] - p14[1] + 24))
    out.append(_wire([(p15[0] - 6, p15[1]), (206, p15[1])], "#d55e00"))
    out.append(_wire([(p14[0] - 6, p14[1]), (206, p14[1])], "#d55e00"))
    out.append(_text(190, p15[1] + 40, "passive piezo: either leg", 13, "middle", bold=True))
    out.append(_text(190, p15[1] + 58, "to either pin (no polarity)", 13, "middle"))
    out.append(_text(190, p14[1] - 52, "GP15 and GP14, push-pull;", 13, "middle"))
    out.append(_text(190, p14[1] - 34, 'or GP15 and GND (pin 18)', 13, "middle"))
    out.append(_text(190, p14[1] - 16, 'with QK_AUDIO = "piezo-gnd"', 13, "middle"))
    out.append(_text(20, h - 14, "Every button from its pin to GND, no resistors. An amplifier "
                     'instead of the piezo: its input on GP15, and QK_AUDIO = "amp".', 13,
                     fill="#333"))
    out.append("</svg>")
    return "\n".join(out) + "\n"


# ---------------------------------------------------------------- the finished device
# (issue 23: the README's picture of a build, for makers: the lid from above, and a cut
# through the button showing its microswitch's three tabs)
DEVICE_MOMENT = [(L.WHITE, "QM"), (L.SKY, "challenged"), (L.GREY, "passed"),
                 (L.VERMILLION, "challenger")]  # docs/rules.md's worked example, mid-Klaxon


def finished_device():
    """A Circuit Playground build as a maker finishes it: the board under a window in
    the lid with its ring lit as the firmware lights it (4 players, seat 3 has just
    challenged seat 1), the big button beside it; and a cut through the lid at the
    button: the hole, the nut, and the microswitch's COM and NO tabs wired (NC not)."""
    w, h = 760, 300
    out = _svg(w, h, "QI Klaxon, built: a Circuit Playground and a big button on a box")
    out.append('<rect x="20" y="44" width="420" height="236" rx="20" fill="#d9b77e" '
               'stroke="#6b4f1d" stroke-width="3"/>')  # the lid, from above
    cx, cy = 130, 162
    out.append('<circle cx="%d" cy="%d" r="100" fill="#f4ecd9" stroke="#6b4f1d" '
               'stroke-dasharray="6,4"/>' % (cx, cy))  # the window cut in the lid
    out.append('<circle cx="%d" cy="%d" r="86" fill="#1a1a1a"/>' % (cx, cy))
    out.append('<rect x="%d" y="%d" width="30" height="12" rx="3" fill="#999"/>'
               % (cx - 15, cy - 93))
    out.append('<text x="%d" y="%d" text-anchor="middle" font-size="8">USB</text>'
               % (cx, cy - 84))
    hours = E.ring_hours("cpb", 10)
    seats = E.seat_labels("cpb", len(DEVICE_MOMENT), 10)
    for i, hour in enumerate(hours):
        a = math.radians(hour * 30)
        x, y = cx + 66 * math.sin(a), cy - 66 * math.cos(a)
        seat = seats[i]
        fill = rgb(DEVICE_MOMENT[seat][0]) if seat is not None else "#3a3a3a"
        out.append('<circle cx="%.1f" cy="%.1f" r="9" fill="%s" stroke="#000"/>' % (x, y, fill))
        if seat is not None:
            out.append('<text x="%.1f" y="%.1f" text-anchor="middle" font-size="10" '
                       'font-weight="bold">%d</text>' % (x, y + 4, seat))
    for label, dx in (("A", -38), ("B", 38)):  # the board's own buttons, left and right
        out.append('<circle cx="%d" cy="%d" r="10" fill="#bbb" stroke="#000"/>' % (cx + dx, cy))
        out.append('<text x="%d" y="%d" text-anchor="middle" font-size="10" fill="#fff">%s'
                   '</text>' % (cx + dx, cy - 15, label))
    bx, by = 330, 162  # the Klaxon
    out.append('<circle cx="%d" cy="%d" r="86" fill="#8a2c00"/>' % (bx, by))
    out.append('<circle cx="%d" cy="%d" r="77" fill="#d55e00"/>' % (bx, by))
    out.append('<circle cx="%d" cy="%d" r="48" fill="#e8844a" opacity="0.7"/>'
               % (bx - 12, by - 14))
    out.append('<text x="%d" y="%d" text-anchor="middle" font-weight="bold" fill="#fff">'
               'KLAXON</text>' % (bx, by + 5))
    # a cut through the lid at the button
    x0, lid = 480, 92
    out.append('<text x="%d" y="62" font-weight="bold">Cut through the button</text>' % x0)
    out.append('<rect x="%d" y="%d" width="270" height="10" fill="#d9b77e" stroke="#6b4f1d"/>'
               % (x0 - 10, lid))
    out.append('<rect x="%d" y="%d" width="34" height="10" fill="#f4ecd9"/>' % (x0 + 68, lid))
    out.append('<path d="M %d %d A 80 34 0 0 1 %d %d Z" fill="#d55e00" stroke="#000"/>'
               % (x0 + 22, lid, x0 + 148, lid))  # the dome, on the lid
    out.append('<rect x="%d" y="%d" width="28" height="56" fill="#999" stroke="#000"/>'
               % (x0 + 71, lid + 10))  # the threaded body through the hole
    out.append('<rect x="%d" y="%d" width="54" height="8" fill="#555"/>'
               % (x0 + 58, lid + 12))  # its nut, under the lid
    out.append('<text x="%d" y="%d" font-size="12">hole: the thread + 1 mm</text>'
               % (x0 + 118, lid + 32))
    sx, sy = x0 + 50, lid + 66  # the microswitch, clipped under the body
    out.append('<rect x="%d" y="%d" width="74" height="32" rx="3" fill="#222"/>' % (sx, sy))
    out.append('<text x="%d" y="%d" text-anchor="middle" font-size="10" fill="#fff">'
               'microswitch</text>' % (sx + 37, sy + 13))
    tabs = (("COM", "#000", "to GND"), ("NO", "#0072b2", "to A1 (Pico: GP16)"),
            ("NC", "#bbb", "not used"))
    for k, (label, colour, text) in enumerate(tabs):
        tx = sx + 10 + 25 * k
        out.append('<text x="%d" y="%d" text-anchor="middle" font-size="8" fill="#fff">%s'
                   '</text>' % (tx + 4, sy + 27, label))
        out.append('<rect x="%d" y="%d" width="8" height="14" fill="#c9a227" stroke="#000"/>'
                   % (tx, sy + 32))
        ty = sy + 66 + 22 * k
        if label != "NC":
            out.append(_wire([(tx + 4, sy + 46), (tx + 4, ty), (x0 + 128, ty)], colour))
        out.append('<text x="%d" y="%d" font-size="12">%s: %s</text>' % (x0 + 133, ty + 4,
                                                                           label, text))
    out.append("</svg>")
    return "\n".join(out) + "\n"


# The drilling template (docs/drilling-template.svg), printed at 1:1: sizes in mm.
# The button's hole is its thread + 1 mm (docs/build-guide.md, The box): most 60 mm
# buttons' threads are 24 to 28 mm, most 100 mm ones' 30 to 35.
BUTTON_HOLES = (25, 28, 30, 32, 36)
BUTTON_CAPS = (60, 100)  # the caps, dashed: the room a button takes on the lid
WINDOW = 55  # the Circuit Playground's window (the board is 51 mm across)
BOARD = 51
LEAD_HOLE = 10  # the leads from the button to a board on top of the lid, and the battery's
SCALE_MM = 100  # the bar a maker measures to check the print is 1:1
PAGE_MM = (200, 260)  # drawn within this: fits A4 (210 x 297) and US letter (216 x 279)


def drilling_template():
    """A page to print at 100 %, tape to the lid and drill through: the button's holes
    (concentric, the thread + 1 mm), a 60 and a 100 mm cap's room, the Circuit
    Playground's window with its board, the leads' hole, and a 100 mm bar to check the
    scale. Units are millimetres (width and height in mm, the viewBox in mm)."""
    w, h = PAGE_MM
    bx, by = 60, 95  # the button's centre
    wx, wy = 150, 95  # the window's centre (90 mm away: a 100 mm cap clears the window)
    lx, ly = 150, 150  # the leads' hole
    out = ['<svg xmlns="http://www.w3.org/2000/svg" width="%dmm" height="%dmm" '
           'viewBox="0 0 %d %d" font-family="sans-serif" font-size="3.5">' % (w, h, w, h),
           '<rect width="100%" height="100%" fill="#ffffff"/>',
           '<text x="8" y="12" font-size="6" font-weight="bold">QI Klaxon: drilling '
           'template (print at 100 %, actual size)</text>',
           '<text x="8" y="19">Print with no "fit to page" scaling, check the bar below '
           'measures %d mm, tape the page to the lid and</text>' % SCALE_MM,
           '<text x="8" y="24">punch each centre through. Drill the button\'s hole its '
           'thread across + 1 mm: the circle that size.</text>']

    def cross(x, y, r=4):
        return ('<path d="M%g %gH%gM%g %gV%g" stroke="#000" stroke-width="0.3"/>'
                % (x - r, y, x + r, x, y - r, y + r))

    for cap in BUTTON_CAPS:  # the room each cap takes
        out.append('<circle cx="%g" cy="%g" r="%g" fill="none" stroke="#555" stroke-width="0.3" '
                   'stroke-dasharray="2 2"/>' % (bx, by, cap / 2))
        out.append('<text x="%g" y="%g" text-anchor="middle" fill="#333">%d mm button\'s '
                   'cap</text>' % (bx, by - cap / 2 - 1.5, cap))
    for i, d in enumerate(BUTTON_HOLES):
        out.append('<circle cx="%g" cy="%g" r="%g" fill="none" stroke="#000" '
                   'stroke-width="0.35"/>' % (bx, by, d / 2))
        a = math.radians(-60 + 30 * i)  # each circle's label on a leader, fanned out
        x1, y1 = bx + d / 2 * math.cos(a), by + d / 2 * math.sin(a)
        x2, y2 = bx + 22 * math.cos(a), by + 22 * math.sin(a)
        out.append('<path d="M%.2f %.2fL%.2f %.2f" stroke="#000" stroke-width="0.2"/>'
                   % (x1, y1, x2, y2))
        out.append('<text x="%.1f" y="%.1f" font-size="3.2" text-anchor="middle">%d</text>'
                   % (bx + 24.5 * math.cos(a), by + 24.5 * math.sin(a) + 1.1, d))
    out.append(cross(bx, by))
    out.append('<text x="%g" y="%g" text-anchor="middle">the Klaxon: hole diameters in mm '
               '(%s)</text>' % (bx, by + BUTTON_CAPS[-1] / 2 + 6,
                                ", ".join(str(d) for d in BUTTON_HOLES)))
    out.append('<circle cx="%g" cy="%g" r="%g" fill="none" stroke="#000" stroke-width="0.5"/>'
               % (wx, wy, WINDOW / 2))
    out.append('<circle cx="%g" cy="%g" r="%g" fill="none" stroke="#777" stroke-width="0.3" '
               'stroke-dasharray="1 1.5"/>' % (wx, wy, BOARD / 2))
    out.append(cross(wx, wy))
    out.append('<text x="%g" y="%g" text-anchor="middle">Circuit Playground window: %d mm</text>'
               % (wx, wy - WINDOW / 2 - 3, WINDOW))
    out.append('<text x="%g" y="%g" text-anchor="middle" fill="#333">(dotted: the board, %d mm)'
               '</text>' % (wx, wy + WINDOW / 2 + 5, BOARD))
    out.append('<circle cx="%g" cy="%g" r="%g" fill="none" stroke="#000" stroke-width="0.5"/>'
               % (lx, ly, LEAD_HOLE / 2))
    out.append(cross(lx, ly, 3))
    out.append('<text x="%g" y="%g" text-anchor="middle">the leads\' hole: %d mm</text>'
               % (lx, ly + LEAD_HOLE / 2 + 5, LEAD_HOLE))
    out.append('<text x="%g" y="%g" text-anchor="middle" fill="#333">(only for a board on top '
               'of the lid)</text>' % (lx, ly + LEAD_HOLE / 2 + 10))
    y0 = 205
    out.append('<path d="M10 %gH%g" stroke="#000" stroke-width="0.6"/>' % (y0, 10 + SCALE_MM))
    for mm in range(0, SCALE_MM + 1, 10):
        out.append('<path d="M%g %gV%g" stroke="#000" stroke-width="0.4"/>'
                   % (10 + mm, y0 - (4 if mm % 50 == 0 else 2), y0))
        if mm % 50 == 0:
            out.append('<text x="%g" y="%g" text-anchor="middle">%d</text>' % (10 + mm, y0 + 5, mm))
    out.append('<text x="%g" y="%g">this bar is %d mm: measure it before you drill</text>'
               % (15 + SCALE_MM, y0 + 1, SCALE_MM))
    for i, line in enumerate((
            "Up to 32 mm a step drill does it; 36 mm is past most step drills: use a hole saw,",
            "35 mm filed wider, or 38 mm (the cap's rim and the nut cover the gap). The window:",
            "a 54 or 57 mm hole saw. Drill slowly into a scrap of wood held under the lid, and",
            "file the edges smooth.")):
        out.append('<text x="10" y="%g">%s</text>' % (y0 + 16 + 5 * i, line))
    out.append("</svg>")
    return "\n".join(out) + "\n"


# ---------------------------------------------------------------- the amplifier option
# (issue 32: louder by a part) Adafruit's PAM8302 board (product 2130) as it comes: its
# five header pins top to bottom as printed beside them (Adafruit's board files), the
# screw terminal for the speaker on the far edge, the Vol screw between them
AMP_PINS = ("A+", "A-", "SD", "Vin", "Gnd")
# where each pin goes, for each build (docs/build-guide.md's table "The amplifier's wiring")
AMP_WIRING = (
    ("A+", "GP15 (pin 20)", "pad A0", "pad A0"),
    ("A-", "GND (pin 18)", "a GND pad", "a GND pad"),
    ("SD", "GP14 (pin 19)", "pad A2", "nothing"),
    ("Vin", "VSYS (pin 39)", "pad VOUT", "pad VOUT"),
    ("Gnd", "GND (pin 33)", "a GND pad", "a GND pad"),
)
AMP_RESISTOR = 470  # ohms, the amplifier's SD to its Gnd (the Pico and the Bluefruit)


def amp_pin(i, top=170, pitch=64, x=430):
    """Where the amplifier's header pin ``i`` (0: A+) is drawn."""
    return x, top + i * pitch


def wiring_amp():
    """The amplifier option for every build: the PAM8302 board from above, its header pins
    in their order, each wired to the pin or pad the build guide's table names (the Pico;
    the Bluefruit; the Express), the 470 ohm resistor from SD to Gnd that holds it off
    while a board sleeps, and the speaker on its screw terminal."""
    w, h = 980, 600
    out = _svg(w, h, "Louder: an amplifier (PAM8302) and a speaker, for every build") + [
        '<rect x="418" y="130" width="230" height="330" rx="8" fill="#1c2f6b" stroke="#000"/>',
        _text(533, 490, "PAM8302 amplifier board, from above", 14, "middle", bold=True)]
    cols = ((20, "Raspberry Pi Pico"), (160, "Bluefruit"), (262, "Express"))
    for x, name in cols:
        out.append(_text(x, 78, name, 13, bold=True))
    out.append(_text(20, 58, "wire each pin to:", 13))
    for i, (pin, pico, cpb, cpx) in enumerate(AMP_WIRING):
        x, y = amp_pin(i)
        out.append('<circle cx="%d" cy="%d" r="8" fill="#e6b800" stroke="#000"/>' % (x, y))
        out.append(_text(x + 16, y + 5, pin, 14, fill="#fff", bold=True))
        colour = {"A+": "#d55e00", "SD": "#0072b2", "Vin": "#cc0000"}.get(pin, "#000")
        if pin == "Vin":  # (a hop over the resistor's lead)
            out.append('<path d="M%d %d H381 A6 6 0 0 0 369 %d H345" fill="none" stroke="%s" '
                       'stroke-width="3"/>' % (x - 8, y, y, colour))
        else:
            out.append(_wire([(x - 8, y), (345, y)], colour))
        for (cx, _), words in zip(cols, (pico, cpb, cpx)):
            out.append(_text(cx, y + 5, words, 13))
    # the resistor from SD to Gnd, beside the header: a beige body with its bands
    sx, sy = amp_pin(2)
    vx, vy = amp_pin(3)
    gx, gy = amp_pin(4)
    out.append(_wire([(375, sy), (375, vy + 12)], "#555"))
    out.append('<rect x="367" y="%d" width="16" height="%d" rx="5" fill="#e8d4a2" stroke="#000"/>'
               % (vy + 12, gy - vy - 22))
    for k, band in enumerate(("#ffd700", "#8b00ff", "#8b4513")):  # yellow violet brown: 470
        out.append('<rect x="367" y="%d" width="16" height="5" fill="%s"/>'
                   % (vy + 18 + 9 * k, band))
    out.append(_wire([(375, gy - 10), (375, gy)], "#555"))
    out.append(_dot(375, sy))
    out.append(_dot(375, gy))
    out.append(_text(20, gy + 100, "%d Ω resistor from SD to Gnd (the Pico and the Bluefruit): "
                     "it holds the amplifier off while the board sleeps" % AMP_RESISTOR, 13))
    # its Vol screw and the screw terminal, the speaker on it
    out.append('<circle cx="560" cy="190" r="16" fill="#ddd" stroke="#000"/>')
    out.append('<rect x="552" y="188" width="16" height="4" fill="#333"/>')
    out.append(_text(560, 228, "Vol", 13, "middle", "#fff", True))
    out.append(_text(560, 112, "Vol: its loudness screw", 13, "middle"))
    out.append('<rect x="612" y="240" width="32" height="90" rx="3" fill="#2e7d32" stroke="#000"/>')
    for k, (label, yy) in enumerate((("+", 262), ("-", 308))):
        out.append('<circle cx="628" cy="%d" r="8" fill="#bbb" stroke="#000"/>' % yy)
        out.append(_wire([(636, yy), (760, yy)], "#cc0000" if not k else "#000"))
        out.append(_text(700, yy - 8, "speaker " + label, 13, "middle", bold=True))
    out.append('<path d="M760 236 H800 L860 196 V374 L800 334 H760 Z" fill="#444" stroke="#000"/>')
    out.append(_text(810, 408, "3 W 4 Ω speaker,", 13, "middle", bold=True))
    out.append(_text(810, 426, "facing a hole in the box", 13, "middle"))
    for i, line in enumerate((
            'Settings: the Pico and the Bluefruit QK_AUDIO = "amp" (the Bluefruit\'s own speaker '
            'then stays off); the Express none.',
            "The firmware turns SD on only while a sound plays. Vin: the batteries' side "
            "(VSYS, VOUT), not 3.3 V.")):
        out.append(_text(20, h - 40 + 20 * i, line, 13, fill="#333"))
    out.append("</svg>")
    return "\n".join(out) + "\n"


PICTURES = {"ring-legend.svg": ring_legend, "klaxon-sound.svg": klaxon_sound,
            "wiring-circuit-playground.svg": wiring_circuit_playground,
            "wiring-pico.svg": wiring_pico,
            "klaxon-device.svg": finished_device, "drilling-template.svg": drilling_template,
            "wiring-amp.svg": wiring_amp}
PICTURES["klaxon-loudness.svg"] = __import__("loudness").spectrum_svg  # (issue 32: its own tool)


def main():
    for name, draw in PICTURES.items():
        made = draw()  # (drawn first: a drawing that fails leaves the picture as it was)
        with open(os.path.join(ROOT, "docs", name), "w") as f:
            f.write(made)
        print("docs/%s" % name)


if __name__ == "__main__":
    main()
