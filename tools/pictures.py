#!/usr/bin/env python3
"""Draw the docs' pictures as SVG from the firmware's own tables (host-only tool).

    python3 tools/pictures.py     # writes docs/ring-legend.svg

The ring legend uses hardware/lights.py's colours, so the picture cannot drift
from what the ring shows.
"""

import math
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from hardware import lights as L  # noqa: E402


def rgb(i):
    """A colour as drawn: the dim grey LED glow is shown lighter, as the eye sees it."""
    if i == L.GREY:
        return "rgb(150,150,150)"
    return "rgb(%d,%d,%d)" % L.COLOURS[i]


# An example moment: 6 players, QM seat 0; seat 1 answered, 2 passed,
# seat 3 hit the Klaxon on seat 1's answer; 4 and 5 are deemed to pass.
EXAMPLE = [(L.WHITE, "QM"), (L.SKY, "challenged"), (L.GREY, "passed"), (L.VERMILLION, "challenger"),
           (L.GREY, "passed"), (L.GREY, "passed")]

LEGEND = [
    (L.WHITE, L.STEADY, "Question Master"),
    (L.YELLOW, L.SLOW, "whose turn it is to answer (slow blink)"),
    (L.GREEN, L.STEADY, "answered (during the reveal: marked right)"),
    (L.GREY, L.STEADY, "passed, or deemed to pass after a Klaxon"),
    (L.VERMILLION, L.FAST, "challenger: hit the Klaxon (fast blink)"),
    (L.SKY, L.SLOW, "challenged: their answer was challenged (slow blink)"),
    (L.YELLOW, L.FAST, "reveal: the answer being marked now (fast blink)"),
    (L.ORANGE, L.STEADY, "reveal: marked wrong; penalty entry: units"),
    (L.PURPLE, L.FAST, "fault: stuck button or bad setting (fast blink)"),
    (L.GREEN, L.FAST, "game over: the winners (fast blink)"),
]


def ring_legend():
    w, h = 830, 360
    out = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" '
           'font-family="sans-serif" font-size="14">' % (w, h),
           '<rect width="100%" height="100%" fill="#fdfdf8"/>',
           '<text x="20" y="28" font-size="18" font-weight="bold">QI Klaxon: the ring of seats</text>',
           '<circle cx="170" cy="190" r="120" fill="#222"/>',
           '<circle cx="170" cy="190" r="70" fill="#fdfdf8"/>',
           '<text x="170" y="186" text-anchor="middle">6 players:</text>',
           '<text x="170" y="204" text-anchor="middle">seat 3 klaxons</text>',
           '<text x="170" y="222" text-anchor="middle">seat 1</text>']
    n = len(EXAMPLE)
    for i in range(10):
        a = -math.pi / 2 + 2 * math.pi * i / 10
        x, y = 170 + 95 * math.cos(a), 190 + 95 * math.sin(a)
        seat = None
        for s in range(n):
            if s * 10 // n == i:
                seat = s
        fill = rgb(EXAMPLE[seat][0]) if seat is not None else "#444"
        out.append('<circle cx="%.1f" cy="%.1f" r="14" fill="%s" stroke="#000"/>' % (x, y, fill))
        if seat is not None:
            out.append('<text x="%.1f" y="%.1f" text-anchor="middle" font-weight="bold">%d</text>'
                       % (x, y + 5, seat))
    y = 62
    for colour, pattern, text in LEGEND:
        out.append('<circle cx="350" cy="%d" r="9" fill="%s" stroke="#000"/>' % (y, rgb(colour)))
        if pattern != L.STEADY:
            out.append('<circle cx="374" cy="%d" r="9" fill="none" stroke="#000" '
                       'stroke-dasharray="%s"/>' % (y, "2,2" if pattern == L.FAST else "6,4"))
        out.append('<text x="392" y="%d">%s</text>' % (y + 5, text))
        y += 29
    out.append('<text x="20" y="%d" fill="#555">Colours: Okabe-Ito palette; every role also has '
               'its own blink pattern. Seat s sits at pixel s*10/N.</text>' % (h - 12))
    out.append("</svg>")
    return "\n".join(out) + "\n"


PICTURES = {"ring-legend.svg": ring_legend}


def main():
    for name, draw in PICTURES.items():
        with open(os.path.join(ROOT, "docs", name), "w") as f:
            f.write(draw())
        print("docs/%s" % name)


if __name__ == "__main__":
    main()
