#!/usr/bin/env python3
"""The table card: what a Question Master holds at the table, as one page (host-only).

    python3 tools/card.py            # writes docs/card.svg and docs/card.md
    python3 tools/card.py --check    # exit 1 if either differs from what it makes

Everything a table needs and nothing about a console: how to read the ring,
every press in every moment of the game with its hold time and the sound it
makes, the reveal's order, what a buzz means, the roll, the counts, the
one-button and LED-only builds. It is made from the tables here, and those
are held to the firmware by the tests: tests/test_card.py plays every cell
on the simulated board (and the one-button build) and checks the event, the
sound and the ring; the hold times are hardware/settings.py's QK_LONG_MS and
hardware/start.py's ladder; the colours are hardware/device.py's. The robot
Question Master of tests/test_card_robot.py reads its presses from here too,
so a changed card is a changed robot.
"""

import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
for _p in (os.path.join(ROOT, "lib"), ROOT):
    if _p not in sys.path:
        sys.path.append(_p)

from qiklaxon import layout  # noqa: E402

# ------------------------------------------------------------------------------ holds
# QK_LONG_MS's default (hardware/settings.py; a test holds it): A or B held this long takes
# its second meaning, twice as long its third. Over a second, so that a slow tap is a tap.
LONG_MS = 1500
TAP_MOST_MS = 1000  # a press held up to this is a tap, whatever the setting (1200 at least)
STUCK_S = 10  # QK_STUCK_S's default (a test holds it): the Klaxon held this long is stuck
# The presses, in the card's order, and the key each is (layout's KEY_*; 0 the Klaxon)
PRESSES = ("Klaxon", "A", "A held", "A held long", "B", "B held", "B held long")
KEY = {"Klaxon": layout.KEY_KLAXON, "A": layout.KEY_A, "A held": layout.KEY_A_HELD,
       "A held long": layout.KEY_A_2S, "B": layout.KEY_B, "B held": layout.KEY_B_HELD,
       "B held long": layout.KEY_B_2S}
# How long each press is held (ms from, to): a tap is let go before the first step
HOLD_STEPS = {"A": 0, "B": 0, "A held": 1, "B held": 1, "A held long": 2, "B held long": 2}
# One button (a Pico with one extra button): it is A, B and their holds in turn, a step
# every QK_LONG_MS (hardware/start.py's one-button ladder), and so held for
ONE_BUTTON = ("A", "B", "B held", "A held", "B held long", "A held long")


def hold_ms(press, long_ms=LONG_MS, one_button=False):
    """The ms from which ``press`` is taken, held (0: a tap)."""
    step = ONE_BUTTON.index(press) if one_button else HOLD_STEPS[press]
    return step * long_ms


def seconds(ms):
    """ms as a person reads it: 1500 -> "1½ s", 3000 -> "3 s", 4500 -> "4½ s"."""
    whole, half = divmod(int(ms) // 500, 2)
    if ms % 500:
        return "%.1f s" % (ms / 1000)
    return ("%d" % whole if whole or not half else "") + ("½" if half else "") + " s"


# ------------------------------------------------------------------------- sounds
# What a press sounds like (tools/synth.py's sounds): the card's word for each
SOUNDS = {"klaxon": "the klaxon", "denied": "a low buzz: refused, nothing changed",
          "blip": "a short tick: taken",
          "done": "two notes up: a piece moved, the QM changed, the game ended or began",
          "undone": "two notes down: something taken back"}
# ... and the ring's flash that comes with the two chimes (hardware/device.py press())
FLASHES = {"done": (layout.GREEN, layout.WHITE), "undone": (layout.BLUE, layout.WHITE),
           "klaxon": (layout.VERMILLION, layout.WHITE)}

# ------------------------------------------------------------------------ the ring
# Colours and patterns by the firmware's numbers (layout's); the card prints the words
COLOURS = {layout.WHITE: "white", layout.YELLOW: "yellow", layout.GREEN: "green",
           layout.GREY: "grey", layout.VERMILLION: "vermillion", layout.SKY: "sky blue",
           layout.ORANGE: "orange", layout.PURPLE: "purple", layout.BLUE: "blue",
           layout.RED: "red"}
PATTERNS = {0: "", layout.SLOW: "blinking slowly", layout.FAST: "blinking fast"}
LEGEND = (
    (layout.WHITE, 0, "the Question Master (QM)"),
    (layout.YELLOW, layout.SLOW, "whose turn it is to answer"),
    (layout.GREEN, 0, "answered (in the reveal: right)"),
    (layout.GREY, 0, "passed, or passed by the Klaxon"),
    (layout.VERMILLION, layout.FAST, "the challenger: hit the Klaxon"),
    (layout.SKY, layout.SLOW, "the challenged: their answer was challenged"),
    (layout.YELLOW, layout.FAST, "the reveal: the answer to mark now"),
    (layout.ORANGE, 0, "the reveal: marked wrong"),
    (layout.GREEN, layout.FAST, "game over: the winners"),
    (layout.PURPLE, layout.FAST, "a fault: a stuck Klaxon, a bad setting (below)"),
)
# What the ring shows while a button is held, and so what letting go will do
# (hardware/device.py button(): the preview by key)
PREVIEWS = (
    ("A held", layout.ORANGE, layout.SLOW),
    ("A held long", layout.SKY, layout.FAST),
    ("B held", layout.BLUE, layout.SLOW),
    ("B held long", layout.GREEN, layout.FAST),
)
PREVIEW_SET_UP = (layout.WHITE, layout.FAST)  # B held long where it sets up or leaves a game

# ------------------------------------------------------------------------ the moments
# Each moment of the game: (its name, what the ring shows then, {press: (what the press
# does, its sound)}). Sounds: klaxon, denied (a buzz), blip, done, undone.
AS_TAP = "(as a tap)"
AS_HELD = "(as A held)"
MOMENTS = (
    ("Between questions", "the QM white; nothing blinks (a roll: the dice)", {
        "Klaxon": ("refused", "denied"),
        "A": ("roll the dice", "done"),
        "A held": ("miss a go", "done"),
        "A held long": ("move a piece", "blip"),
        "B": ("ask the question", "blip"),
        "B held": ("undo", "undone"),
        "B held long": ("end the game", "done"),
    }),
    ("Answering", "whose turn it is blinks yellow", {
        "Klaxon": ("challenge the last answer", "klaxon"),
        "A": ("answer", "blip"),
        "A held": ("answer " + AS_TAP, "blip"),
        "A held long": ("answer " + AS_TAP, "blip"),
        "B": ("pass", "blip"),
        "B held": ("undo", "undone"),
        "B held long": ("end the game", "done"),
    }),
    ("The reveal", "the answer to mark blinks yellow fast", {
        "Klaxon": ("refused", "denied"),
        "A": ("right", "blip"),
        "A held": ("right " + AS_TAP, "blip"),
        "A held long": ("right " + AS_TAP, "blip"),
        "B": ("wrong", "blip"),
        "B held": ("undo a mark", "undone"),
        "B held long": ("end the game", "done"),
    }),
    ("A Klaxon penalty", "the count; at 0 the wrong party's light blinks orange", {
         "Klaxon": ("refused", "denied"),
         "A": ("+1", "blip"),
         "A held": ("+10", "blip"),
         "A held long": ("+10 " + AS_HELD, "blip"),
         "B": ("done (no penalty: B at once)", "blip"),
         "B held": ("one less (at 0: unmark)", "undone"),
         "B held long": ("end the game", "done"),
     }),
    ("A piece to move", "the chosen seat blinks blue fast", {
        "Klaxon": ("refused", "denied"),
        "A": ("next seat", "blip"),
        "A held": ("this one, back", "blip"),
        "A held long": ("this one, back " + AS_HELD, "blip"),
        "B": ("this one, forward", "blip"),
        "B held": ("no move", "undone"),
        "B held long": ("end the game", "done"),
    }),
    ("How far", "the count; at 0 the seat blinks", {
        "Klaxon": ("refused", "denied"),
        "A": ("+1", "blip"),
        "A held": ("+10", "blip"),
        "A held long": ("+10 " + AS_HELD, "blip"),
        "B": ("move it", "done"),
        "B held": ("one less (at 0: the seat again)", "undone"),
        "B held long": ("end the game", "done"),
    }),
    ("A game's players", "that many sky-blue lights", {
        "Klaxon": ("refused", "denied"),
        "A": ("one more", "blip"),
        "A held": ("one more " + AS_TAP, "blip"),
        "A held long": ("one more " + AS_TAP, "blip"),
        "B": ("next: its first QM", "blip"),
        "B held": ("one fewer (at 2: leave)", "undone"),
        "B held long": ("leave the set-up", "undone"),
    }),
    ("Its first QM", "that seat blinks white fast, the others grey", {
        "Klaxon": ("refused", "denied"),
        "A": ("next seat", "blip"),
        "A held": ("next seat " + AS_TAP, "blip"),
        "A held long": ("next seat " + AS_TAP, "blip"),
        "B": ("start the game", "done"),
        "B held": ("back to the players", "undone"),
        "B held long": ("leave the set-up", "undone"),
    }),
    ("Game over", "the winners blink green, the others grey", {
        "Klaxon": ("refused", "denied"),
        "A": ("refused", "denied"),
        "A held": ("refused " + AS_TAP, "denied"),
        "A held long": ("refused " + AS_TAP, "denied"),
        "B": ("refused", "denied"),
        "B held": ("undo the end", "undone"),
        "B held long": ("set up a new game", "blip"),
    }),
)
MOMENT_NAMES = tuple(m[0] for m in MOMENTS)

# The notes beside the table, each a short paragraph; %(A held long)s and the like are the
# presses as the table heads them (with their hold times)
FIRST = ("Before a game's first question the Klaxon is a try: it sounds and flashes and "
         "counts for nothing; %(B held long)s sets up the game (players, first QM) "
         "instead of ending it.")
SEATS = ("Seats go clockwise, as the lights do: seat 0 is the light just left of the USB "
         "socket (11 o'clock, the socket at the top; on a strip, its first light). Fewer players than lights spread out: seat s is "
         "light s × lights ÷ players, rounded down (4 players on 10 lights: 0, 2, 5, 7); "
         "seats past the last light are not shown.")
KLAXON = ("Slamming the Klaxon on your turn challenges the last answer given (passes "
          "skipped) and is your answer: the answering ends there (the rest have passed) and "
          "the reveal begins. Do not press A for it.")
REVEAL = ("The reveal marks the answers in the order they were given, from the QM's left "
          "(so the challenged comes before the challenger). Right answers go forward 3. "
          "Marking the challenger or the challenged wrong opens their Klaxon penalty: "
          "tap A once a square, %(A held)s for ten, then tap B; no penalty in the booklet: "
          "just tap B. A piece may go below 0. When everyone passed there is nothing to "
          "mark: the question ends at the last pass and the dice pass left. %(B held)s: one "
          "step back (the last mark off, a party's penalty back into its count; none marked: "
          "the Klaxon undone). Undo after a reveal reopens it.")
COUNTS = ("A count shows white lights for tens, then orange for units (moving a piece back: blue "
          "units), from seat 0's light clockwise; the seats are not shown meanwhile (one "
          "white light is 10, not the QM). When tens and units are more than the lights, "
          "they blink in turn. It goes up to 99 (players: 10); past that, a buzz. "
          "%(B held)s takes one off; at its least, it goes back a step. Choosing a game's "
          "first QM, count seats clockwise from seat 0.")
ROLL = ("A roll shows the dice one at a time, red, then white, then blue, as that many "
        "lights clockwise from seat 0, a second each, round again until the next press: "
        "red 5, white 6, blue 1 is question 561. The QM's piece moves forward by the white "
        "die at the roll, whatever the question brings. Real dice: %(A held long)s, move a "
        "piece.")
BUZZ = ("A buzz changes nothing. The Klaxon buzzes when nobody has answered yet (you may "
        "still answer or pass), when it is not an answering turn, once a question has had "
        "its Klaxon, and after the game. A or B buzz when the press means nothing now, past "
        "a count's end, and for 5 s after the referee fails (purple).")
FAULTS = ("Purple while the Klaxon is held down (%(stuck)s s or more): it is stuck (its "
          "wiring, or something on it); A and B still work, and the ring comes back when "
          "it is let go. Purple 2 s at power-on: a setting was wrong or the saved game "
          "lost (the console says which); every button works. Purple while A and B buzz: "
          "the referee failed; in 5 s the game is back as it was.")
HOLDS = ("Hold a button and the ring shows what letting go will do; let go when it shows "
         "what you want. A press let go before the ring changes (%(step)s) is a tap. "
         "Another press while you hold (the Klaxon too) calls the hold off: it does "
         "nothing, unless the ring had not changed yet (then it counts as a tap first).")
ONE = ("One button (a Pico with one extra button): hold it; the ring shows each step in "
       "turn: A under %(step)s, then B, B held, A held, B held long, A held long, a step "
       "every %(step)s. A step that means nothing at that moment is skipped.")
LED = ("The Pico's LED alone flashes with the klaxon and each chime and blinks the roll "
       "(red, white, blue: a die's value in blinks). It shows no seats: answering goes "
       "clockwise from the QM's left, a seat a press; the reveal marks in that order. "
       "Held: slow blinks from %(step)s, fast from twice that.")
SLEEP = ("Untouched for 15 minutes a Bluefruit or a Pico sleeps, dark: only the Klaxon "
         "wakes it, and that slam counts. The game is kept.")
NOTES = (("Before the first question", FIRST), ("The Klaxon", KLAXON), ("The reveal", REVEAL),
         ("Counts", COUNTS), ("The roll", ROLL), ("A buzz", BUZZ), ("Faults", FAULTS), ("One button", ONE),
         ("Only an LED (a Pico)", LED), ("Sleep", SLEEP))
# How to open the scoreboard (docs/scoreboard.md), any build: one line, beside the card's title
# (the notes fill the page)
SCREEN, SCREEN_RUN = "The whole game on a screen", "python3 tools/dev.py web"


def note(text, long_ms=LONG_MS):
    """A note with its presses named as the table heads them."""
    names = {p: press_label(p, long_ms) for p in PRESSES}
    names["step"] = seconds(long_ms)
    names["stuck"] = STUCK_S
    return text % names


def press_label(press, long_ms=LONG_MS):
    """"A held 1½ s" and so on: the press as the card heads it."""
    if press in ("Klaxon", "A", "B"):
        return press if press == "Klaxon" else press + " tap"
    return "%s held %s" % (press.split()[0], seconds(hold_ms(press, long_ms)))


def rows(long_ms=LONG_MS):
    """The card's table with a row a press (the page's help, web/app.js): [["press", each
    moment...], [the press as headed, what it does at each moment...], ...]."""
    return [["press"] + list(MOMENT_NAMES)] + [
        [press_label(p, long_ms)] + [cells[p][0] for _, _, cells in MOMENTS] for p in PRESSES]


# --------------------------------------------------------------------- the card as text
def markdown(long_ms=LONG_MS):
    """The card as Markdown (docs/card.md, and the README's Play section)."""
    out = ["<!-- made by tools/card.py from the firmware's tables: edit there, not here -->",
           "", "### The ring", ""]
    for colour, pattern, text in LEGEND:
        out.append("- **%s**%s: %s" % (COLOURS[colour], " " + PATTERNS[pattern] if pattern
                                       else "", text))
    out += ["", SEATS, "", "### Every press, at every moment", ""]
    heads = ["the ring shows"] + [press_label(p, long_ms) for p in PRESSES]
    out.append("| moment | " + " | ".join(heads) + " |")
    out.append("| --- " * (len(heads) + 1) + "|")
    for name, shows, cells in MOMENTS:
        out.append("| **%s** | %s | " % (name, shows) + " | ".join(
            "%s%s" % (cells[p][0], _sound_mark(cells[p][1])) for p in PRESSES) + " |")
    out += ["", "Sounds: " + "; ".join("%s%s = %s" % (_sound_mark(k).strip() or "(tick)", "", v)
                                       for k, v in SOUNDS.items() if k != "klaxon") + ".",
            "", note(HOLDS, long_ms) + " While held: " + "; ".join(
                "%s %s%s" % (press_label(p, long_ms), COLOURS[c], " (white where it sets up a "
                                                                 "game or leaves its set-up)"
                                                                 if p == "B held long" else "")
                for p, c, _ in PREVIEWS) + ".", ""]
    for head, text in NOTES:
        out += ["**%s.** %s" % (head, note(text, long_ms)), ""]
    # (the path as words, not a link: this text is the README's and docs/card.md's alike)
    out += ["**%s.** `%s`, then Connect a board (docs/scoreboard.md)." % (SCREEN, SCREEN_RUN),
            ""]
    return "\n".join(out)


_MARKS = {"klaxon": "", "denied": " ✗", "blip": "", "done": " ↑", "undone": " ↓"}


def _sound_mark(sound):
    """The card's mark for a press's sound: ✗ a buzz, ↑ the chime up, ↓ down."""
    return _MARKS[sound]


# ----------------------------------------------------------------------- the card as SVG
W, H = 816, 1056  # US letter at 96 px an inch (prints on A4 too, scaled to fit)
NOTE_SIZE = 9  # the notes' type (px): legible printed, and the card stays one page
INK, FAINT, PAPER = "#000", "#555", "#fff"


def _esc(text):
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _wrap(text, width, size):
    """``text`` in lines of at most ``width`` px at font ``size`` (a sans-serif's mean
    letter is about 0.53 em wide: a safe guess for the printed page)."""
    most = max(4, int(width / (size * 0.53)))
    lines = []
    for word in text.split():
        if lines and len(lines[-1]) + 1 + len(word) <= most:
            lines[-1] += " " + word
        else:
            lines.append(word)
    return lines


def _text(out, x, y, text, size=10, width=None, bold=False, colour=INK, anchor="start",
          leading=1.2):
    """Write ``text`` (wrapped to ``width``) at x, y; returns the y below it."""
    lines = _wrap(text, width, size) if width else [text]
    for line in lines:
        out.append('<text x="%.1f" y="%.1f" font-size="%.1f"%s fill="%s"%s>%s</text>' % (
            x, y, size, ' font-weight="bold"' if bold else "", colour,
            ' text-anchor="%s"' % anchor if anchor != "start" else "", _esc(line)))
        y += size * leading
    return y


def _rgb(colour):
    """A light's colour as printed: the firmware's (tools/events.py's PALETTE), but its dim
    grey, which would print black, as the eye sees it lit."""
    import events

    return "#969696" if colour == layout.GREY else "#%06x" % events.PALETTE[colour]


def _swatch(out, x, y, colour, pattern, r=6):
    """A light: its colour, outlined; a blinking one with a dashed ring round it (slow:
    long dashes, fast: short), so that the pattern reads in grey too."""
    out.append('<circle cx="%.1f" cy="%.1f" r="%d" fill="%s" stroke="%s" stroke-width="1"/>'
               % (x, y, r, _rgb(colour), INK))
    if pattern:
        out.append('<circle cx="%.1f" cy="%.1f" r="%d" fill="none" stroke="%s" '
                   'stroke-width="1.2" stroke-dasharray="%s"/>' % (
                       x, y, r + 3, INK, "2,2" if pattern == layout.FAST else "5,3"))


def _sound_glyph(out, x, y, sound):
    """The sound's mark, drawn (not a font's glyph): a cross for the buzz, an arrow up for
    the rising chime, down for the falling one, a dot for the blip, a horn for the klaxon."""
    if sound == "denied":
        out.append('<path d="M%.1f %.1fl6 6m0 -6l-6 6" stroke="%s" stroke-width="1.6"/>'
                   % (x - 3, y - 3, INK))
    elif sound in ("done", "undone"):
        d = -1 if sound == "done" else 1
        out.append('<path d="M%.1f %.1fv%d m-3 %d l3 %d l3 %d" fill="none" stroke="%s" '
                   'stroke-width="1.6"/>' % (x, y - 4 * d, 8 * d, -3 * d, 3 * d, -3 * d, INK))
    elif sound == "blip":
        out.append('<circle cx="%.1f" cy="%.1f" r="1.8" fill="%s"/>' % (x, y, INK))
    else:  # the klaxon
        out.append('<path d="M%.1f %.1fh3l5 -3v8l-5 -3h-3z" fill="%s"/>' % (x - 4, y - 1, INK))


def svg(long_ms=LONG_MS):
    """The card as one printable page (docs/card.svg)."""
    out = ['<svg xmlns="http://www.w3.org/2000/svg" width="8.5in" height="11in" '
           'viewBox="0 0 %d %d" font-family="Helvetica, Arial, sans-serif">' % (W, H),
           '<rect width="100%%" height="100%%" fill="%s"/>' % PAPER]
    m = 30  # the margin
    title = "QI Klaxon: the table card"
    _text(out, m, m + 16, title, size=20, bold=True)
    _text(out, W - m, m + 3, "keep it by the Question Master", size=10, colour=FAINT,
          anchor="end")
    room = W - 2 * m - len(title) * 20 * 0.6 - 20  # beside the title (bold: 0.6 em a letter)
    screen = "%s: %s, then Connect a board" % (SCREEN, SCREEN_RUN)
    if len(_wrap(screen, room, 10.5)) > 1:
        raise ValueError("the scoreboard's line is longer than the room beside the title")
    _text(out, W - m, m + 16, screen, size=10.5, anchor="end")
    # the ring, left; the sounds and holds, right
    y0 = m + 40
    _text(out, m, y0, "The ring: one light a seat", size=12, bold=True)
    y = y0 + 18
    for colour, pattern, text in LEGEND:
        _swatch(out, m + 10, y - 4, colour, pattern)
        name = COLOURS[colour] + (", " + PATTERNS[pattern] if pattern else "")
        y = _text(out, m + 26, y, "%s: %s" % (name, text), size=10.5,
                  width=W / 2 - m - 40) + 3
    y = _text(out, m, y + 4, SEATS, size=10, width=W / 2 - m - 20, colour=FAINT)
    left_end = y
    x1 = W / 2 + 10
    _text(out, x1, y0, "The sounds", size=12, bold=True)
    y = y0 + 18
    for sound in ("klaxon", "denied", "blip", "done", "undone"):
        _sound_glyph(out, x1 + 8, y - 4, sound)
        flash = FLASHES.get(sound)
        words = SOUNDS[sound] + ("; the ring flashes %s" % COLOURS[flash[0]] if flash and
                                 sound != "klaxon" else "")
        y = _text(out, x1 + 22, y, words, size=10.5, width=W - m - x1 - 22) + 3
    y += 6
    _text(out, x1, y, "Holding a button", size=12, bold=True)
    y = _text(out, x1, y + 16, note(HOLDS, long_ms), size=10, width=W - m - x1,
              colour=FAINT) + 4
    for press, colour, pattern in PREVIEWS:
        _swatch(out, x1 + 10, y, colour, pattern, r=5)
        _text(out, x1 + 26, y + 4, "%s: %s" % (press_label(press, long_ms),
                                               COLOURS[colour]) + (
            "; white where it sets up a game or leaves its set-up" if press == "B held long"
            else ""), size=10)
        y += 16
    # the table: every press at every moment
    y = max(left_end, y) + 14
    _text(out, m, y, "Every press, at every moment", size=12, bold=True)
    y += 8
    cols = [148] + [(W - 2 * m - 148) / len(PRESSES)] * len(PRESSES)
    xs = [m]
    for c in cols[:-1]:
        xs.append(xs[-1] + c)
    out.append('<rect x="%d" y="%.1f" width="%d" height="20" fill="#ddd"/>' % (m, y, W - 2 * m))
    for i, head in enumerate(["moment: the ring shows"] + [press_label(p, long_ms)
                                                          for p in PRESSES]):
        _text(out, xs[i] + 4, y + 14, head, size=10, bold=True)
    y += 20
    for name, shows, cells in MOMENTS:
        lines = [_wrap(name, cols[0] - 8, 10) + _wrap(shows, cols[0] - 8, 9)]
        for p in PRESSES:
            lines.append(_wrap(cells[p][0], cols[1] - 16, 9.5))
        h = max(len(lines[0]) * 11, max(len(c) for c in lines[1:]) * 11.4) + 6
        out.append('<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="%s" stroke-width="0.6"/>'
                   % (m, y, W - m, y, FAINT))
        yy = _text(out, xs[0] + 4, y + 12, name, size=10, bold=True, width=cols[0] - 8)
        _text(out, xs[0] + 4, yy, shows, size=9, width=cols[0] - 8, colour=FAINT)
        for i, p in enumerate(PRESSES):
            words, sound = cells[p]
            _sound_glyph(out, xs[i + 1] + 7, y + 9, sound)
            _text(out, xs[i + 1] + 15, y + 12, words, size=9.5, width=cols[i + 1] - 16,
                  colour=FAINT if words == "refused" or words.startswith("refused ") else INK)
        y += h
    out.append('<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="%s" stroke-width="0.6"/>'
               % (m, y, W - m, y, FAINT))
    # the notes, in two columns
    y += 16
    notes = [(head, note(text, long_ms)) for head, text in NOTES]
    colw = (W - 2 * m - 20) / 2

    def height(chunk):
        return sum(14 + len(_wrap(text, colw, NOTE_SIZE)) * NOTE_SIZE * 1.2 + 6
                   for _, text in chunk)

    half = min(range(1, len(notes)), key=lambda i: max(height(notes[:i]), height(notes[i:])))
    bottom = y
    for col, chunk in enumerate((notes[:half], notes[half:])):
        x = m + col * (colw + 20)
        yy = y
        for head, text in chunk:
            _text(out, x, yy, head, size=11, bold=True)
            yy = _text(out, x, yy + 14, text, size=NOTE_SIZE, width=colw) + 6
        bottom = max(bottom, yy)
    if bottom > H - m / 2:  # (tests/test_card.py: the card is one page)
        raise ValueError("the card runs %d px past its page: shorten its notes" % (bottom - H))
    out.append("</svg>")
    return "\n".join(out) + "\n"


README_START = "<!-- the card: made by tools/card.py, held to it by tests/test_card.py -->\n"
README_END = "<!-- end of the card -->"


def readme(text):
    """README.md's ``text`` with the card as text between its markers."""
    a = text.index(README_START) + len(README_START)
    return text[:a] + markdown() + text[text.index(README_END, a):]


def main(argv):
    """Write docs/card.svg, docs/card.md and the README's copy (--check: exit 1 if any
    differs from what the tables make)."""
    if "-h" in argv or "--help" in argv:
        print(__doc__.split("\n\n")[1].strip("\n"))
        return 0
    unknown = sorted(set(argv) - {"--check"})
    if unknown:
        print("card.py: unknown argument %s (see --help)" % " ".join(unknown), file=sys.stderr)
        return 2
    made = {"docs/card.svg": svg(), "docs/card.md": markdown()}
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as f:
        made["README.md"] = readme(f.read())
    bad = []
    for name, text in made.items():
        path = os.path.join(ROOT, name)
        if os.path.exists(path) and open(path, encoding="utf-8").read() == text:
            continue
        bad.append(name)
        if "--check" not in argv:
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)
            print(name)
    if "--check" in argv:
        print("differ from tools/card.py: %s" % bad if bad else "the card matches")
        return 1 if bad else 0
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
