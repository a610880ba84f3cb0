#!/usr/bin/env python3
"""The table card: what a Question Master holds at the table (host-only): a sheet's front
(one question step by step, the ring's colours, the sounds: type 10 pt and more printed)
and back (every press at every moment, which light is whose: 8 pt and more), and a
second sheet of notes.

    python3 tools/gen/card.py            # writes docs/card-front.svg, card-back.svg,
                                     # card-notes.svg, card.md and the README's copy
    python3 tools/gen/card.py --check    # exit 1 if any differs from what it makes

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

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import paths  # noqa: E402  (tools/paths.py: every group of tools/ on the path)
from paths import ROOT  # noqa: E402

from model import layout  # noqa: E402

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
# What a press sounds like (tools/gen/synth.py's sounds): the card's word for each
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
POSITIONS_CELL = "every position, in turn"  # (a buzz: the game does not change)
AS_TAP = "(as a tap)"
AS_HELD = "(as A held)"
MOMENTS = (
    ("Between questions", "the QM white; nothing blinks (a roll: the dice, blinking)", {
        "Klaxon": (POSITIONS_CELL, "denied"),
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
    ("A Klaxon penalty", "the party's light blinks its colour; the count after it", {
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
    ("How far", "the piece's light blinks; the count after it", {
        "Klaxon": ("refused", "denied"),
        "A": ("+1", "blip"),
        "A held": ("+10", "blip"),
        "A held long": ("+10 " + AS_HELD, "blip"),
        "B": ("move it", "done"),
        "B held": ("one less (at 0: the seat again)", "undone"),
        "B held long": ("end the game", "done"),
    }),
    ("A game's players", "that many sky-blue lights: the new game's seats", {
        "Klaxon": ("refused", "denied"),
        "A": ("one more", "blip"),
        "A held": ("one more " + AS_TAP, "blip"),
        "A held long": ("one more " + AS_TAP, "blip"),
        "B": ("next: its first QM", "blip"),
        "B held": ("one fewer (at 2: leave)", "undone"),
        "B held long": ("leave the set-up", "undone"),
    }),
    ("Its first QM", "that seat blinks white fast, the new game's others grey", {
        "Klaxon": ("refused", "denied"),
        "A": ("next seat", "blip"),
        "A held": ("next seat " + AS_TAP, "blip"),
        "A held long": ("next seat " + AS_TAP, "blip"),
        "B": ("start the game", "done"),
        "B held": ("back to the players", "undone"),
        "B held long": ("leave the set-up", "undone"),
    }),
    ("Game over", "the winners blink green, the others grey", {
        "Klaxon": (POSITIONS_CELL, "denied"),
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
         "socket (11 o'clock, the socket at the top; on a strip, its first light). Fewer "
         "players than lights: the pictures show which light is whose; setting up a game, "
         "the ring shows the new game's seats. Seats past a short strip's end are not shown.")
KLAXON = ("Slamming the Klaxon on your turn challenges the last answer given (passes "
          "skipped) and is your answer: the answering ends there (the rest have passed) and "
          "the reveal begins. Do not press A for it.")
REVEAL = ("The reveal marks the answers in the order they were given, from the QM's left "
          "(so the challenged comes before the challenger). Right answers go forward "
          + str(layout.RIGHT_SQUARES) + ". "
          "Marking the challenger or the challenged wrong opens their Klaxon penalty: "
          "tap A once a square, %(A held)s for ten, then tap B; no penalty in the booklet: "
          "just tap B. A piece may go below 0. When everyone passed there is nothing to "
          "mark: the question ends at the last pass and the dice pass left. %(B held)s: one "
          "step back (the last mark off, a party's penalty back into its count; none marked: "
          "the Klaxon undone). Undo after a reveal reopens it.")
COUNTS = ("Whose count it is keeps blinking: a penalty's party in its colour (the challenger "
          "vermillion, the challenged sky blue), a piece to move orange (forward) or blue "
          "(back). From the light after it, clockwise: white lights for tens, then orange "
          "units (moving back: blue). More than the lights: tens and units blink in turn. "
          "Up to 99; past that, a buzz. %(B held)s takes one off; at 0, a step back.")
POSITIONS = ("Between questions or after the game, slam the Klaxon (a buzz: nothing "
             "changes; not while the dice show): each seat in turn from seat 0, 2½ s each. "
             "Its light blinks yellow (vermillion: below 0); after it, green lights are "
             "hundreds, white tens, orange units (blue thousands; 9999 at most): yellow, 2 "
             "white, 7 orange is 27; vermillion, 1 white, 2 orange, -12; none, 0. Too many "
             "for the ring: each colour in turn. Wrong on the board? %(A held long)s. Needs "
             "10 lights; a Pico's LED alone shows none.")
ROLL = ("A roll shows the dice one at a time, red, then white, then blue, as that many "
        "lights clockwise from seat 0, blinking, a second each, round again until the next "
        "press: red 5, white 6, blue 1 is question 561. The QM's piece moves forward by the "
        "white die at the roll. A roll-again square: tap A again. Real dice or a chance "
        "card's move: %(A held long)s, move a piece.")
BUZZ = ("A buzz changes nothing. The Klaxon buzzes when nobody has answered yet (you may "
        "still answer or pass), when it is not an answering turn, once a question has had "
        "its Klaxon, and after the game. A or B buzz when the press means nothing now, past "
        "a count's end, and for 5 s after the referee fails (purple).")
FAULTS = ("Purple while the Klaxon is held down (%(stuck)s s or more): it is stuck (its "
          "wiring, or something on it); A and B still work, and the ring comes back when "
          "it is let go. Purple 2 s at power-on: a setting was wrong or the saved game "
          "lost (docs/troubleshooting.md says what to check); the game goes on. Purple "
          "while A and B buzz: the referee failed; in 5 s the game is back as it was.")
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
END = ("A piece on GAME ENDS: %(B held long)s, end the game: the winners blink green. "
       "Then %(B held long)s again sets up a new one.")
NOTES = (("Before the first question", FIRST), ("The Klaxon", KLAXON), ("The reveal", REVEAL),
         ("Counts", COUNTS), ("Every position", POSITIONS), ("The roll", ROLL),
         ("A buzz", BUZZ), ("Faults", FAULTS), ("One button", ONE),
         ("Only an LED (a Pico)", LED), ("Sleep", SLEEP), ("The end", END))
# The front: one question in a few big steps (who presses what), each (head, text)
WHO = "The Question Master (QM) presses A and B; the players press the Klaxon."
STEPS = (
    ("Roll", "The QM taps A. The dice show one at a time, blinking: red, white, blue, as "
             "that many lights from seat 0 (red 5, white 6, blue 1: question 561). The "
             "QM's piece moves by the white die. Roll again: tap A again. Miss a go: "
             "%(A held)s. A chance card or real dice: %(A held long)s, move a piece."),
    ("Ask", "The QM taps B and reads the question. The player on the QM's left blinks "
            "yellow: their turn."),
    ("Answer, pass or Klaxon", "Each in turn, clockwise: an answer, the QM taps A; a pass, "
                               "B. Think the last answer was wrong? Slam the Klaxon on "
                               "your turn and give yours: the answering ends."),
    ("Mark", "The answer to mark blinks yellow fast: the QM taps A if right (forward "
             + str(layout.RIGHT_SQUARES) + "), "
             "B if wrong. The challenger blinks vermillion, the challenged sky blue (yellow "
             "while its own answer is the one to mark)."),
    ("Klaxon penalty", "The challenger or the challenged wrong: their light keeps "
                       "blinking; tap A once a square (%(A held)s: ten), then B. No "
                       "penalty in the booklet: just B."),
    ("Pass the dice", "The white light moves one seat left: the next QM rolls. A piece on "
                      "GAME ENDS: %(B held long)s, end the game; again, a new game (A counts "
                      "the players, B goes on)."),
)
FRONT_NOTES = (
    ("Check the board", "Before the roll, slam the Klaxon: each seat's light blinks in "
                        "turn (vermillion: below 0), its square beside it: green 100s, "
                        "white 10s, orange 1s. Wrong? %(A held long)s: move a piece."),
    ("A mistake", "%(B held)s: undo, one step at a time. Hold a button and the ring shows "
                  "what letting go will do."),
)
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
def place(s, n, np=10):
    """The place round the ring (clockwise from seat 0's light) of seat ``s`` of ``n``:
    hardware/device.py's render() (tests/test_card.py holds the pictures to the device)."""
    return s * np // n if np >= n else s


def whose(n, np=10):
    """Which light is whose for ``n`` players: one entry a light, the seat or None."""
    out = [None] * np
    for s in range(n):
        if place(s, n, np) < np:
            out[place(s, n, np)] = s
    return out


def markdown(long_ms=LONG_MS):
    """The card as Markdown (docs/card.md, and the README's Play section)."""
    out = ["<!-- made by tools/gen/card.py from the firmware's tables: edit there, not here -->",
           "", "### One question, step by step", "", WHO, ""]
    for i, (head, text) in enumerate(STEPS):
        out.append("%d. **%s.** %s" % (i + 1, head, note(text, long_ms)))
    out.append("")
    for head, text in FRONT_NOTES:
        out += ["**%s.** %s" % (head, note(text, long_ms)), ""]
    out += ["### The ring", ""]
    for colour, pattern, text in LEGEND:
        out.append("- **%s**%s: %s" % (COLOURS[colour], " " + PATTERNS[pattern] if pattern
                                       else "", text))
    out += ["", SEATS, "", "### Which light is whose", "",
            "Lights clockwise from seat 0's (0 to 9); the seat each shows (· none):", "",
            "| players | " + " | ".join(str(i) for i in range(10)) + " |",
            "| --- " * 11 + "|"]
    for n in range(2, 11):
        out.append("| %d | " % n + " | ".join("·" if w is None else str(w)
                                              for w in whose(n)) + " |")
    out += ["", "### Every press, at every moment", ""]
    heads = ["the ring shows"] + [press_label(p, long_ms) for p in PRESSES]
    out.append("| moment | " + " | ".join(heads) + " |")
    out.append("| --- " * (len(heads) + 1) + "|")
    for name, shows, cells in MOMENTS:
        out.append("| **%s** | %s | " % (name, shows) + " | ".join(
            "%s%s" % (cells[p][0], _sound_mark(cells[p][1])) for p in PRESSES) + " |")
    out += ["", "Sounds: " + "; ".join("%s = %s" % (_sound_mark(k).strip(), v)
                                       for k, v in SOUNDS.items() if _sound_mark(k)) +
            "; no mark: %s." % SOUNDS["blip"],
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
# Two sides, each a US letter page at 96 px an inch (A4 prints it scaled to fit, 0.973):
# the front portrait, the back landscape. Type in px; printed, a px is 0.75 pt (on A4
# 0.73 pt): the front's smallest 14 px is 10.2 pt on A4, the back's 11 px 8.03 pt.
PAGE_IN = (8.5, 11)
FRONT_SIZE = 14  # the front's smallest type (px)
BACK_SIZE = 11  # the back's
NOTES_SIZE = 12.5  # the notes' sheet's (9.1 pt on A4)
INK, FAINT, PAPER = "#000", "#444", "#fff"


def _esc(text):
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _wrap(text, width, size):
    """``text`` in lines of at most ``width`` px at font ``size`` (a sans-serif's mean
    letter is about 0.53 em wide, DejaVu Sans's 0.55: a safe guess for the printed page)."""
    most = max(4, int(width / (size * 0.55)))
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
    """A light's colour as printed: the firmware's (tools/simulated/events.py's PALETTE), but its dim
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


def _sound_glyph(out, x, y, sound, big=False):
    """The sound's mark, drawn (not a font's glyph): a cross for the buzz, an arrow up for
    the rising chime, down for the falling one, a dot for the blip, a horn for the klaxon
    (``big``: half as big again)."""
    if big:
        out.append('<g transform="translate(%.1f %.1f) scale(1.5) translate(%.1f %.1f)">'
                   % (x, y, -x, -y))
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
    if big:
        out.append("</g>")


def _page(landscape=False):
    w, h = PAGE_IN[::-1] if landscape else PAGE_IN
    return ['<svg xmlns="http://www.w3.org/2000/svg" width="%gin" height="%gin" '
            'viewBox="0 0 %d %d" font-family="Helvetica, Arial, sans-serif">' % (
                w, h, w * 96, h * 96), '<rect width="100%%" height="100%%" fill="%s"/>' % PAPER
            ], w * 96, h * 96


def _fits(bottom, h, side):
    if bottom > h - 14:  # (tests/test_card.py: each side is one page)
        raise ValueError("the card's %s runs %d px past its page: shorten it" % (
            side, bottom - h + 14))


def svg_front(long_ms=LONG_MS):
    """The card's front (docs/card-front.svg): one question in a few big steps, who presses
    what, checking the board, a mistake, and the ring's colours and the sounds."""
    out, W, H = _page()
    m = 34
    size = FRONT_SIZE
    _text(out, m, m + 20, "QI Klaxon: one question, step by step", size=26, bold=True)
    y = _text(out, m, m + 48, WHO, size=17, bold=True) + 4
    for i, (head, text) in enumerate(STEPS):
        out.append('<circle cx="%d" cy="%.1f" r="13" fill="%s"/>' % (m + 13, y - 1, INK))
        _text(out, m + 13, y + 5, str(i + 1), size=17, bold=True, colour=PAPER,
              anchor="middle")
        _text(out, m + 36, y + 5, head, size=18, bold=True)
        y = _text(out, m + 36, y + 22, note(text, long_ms), size=size + 1,
                  width=W - 2 * m - 36) + 6
    for head, text in FRONT_NOTES:
        _text(out, m, y + 8, head, size=17, bold=True)
        y = _text(out, m, y + 28, note(text, long_ms), size=size + 1, width=W - 2 * m) + 6
    y += 4
    out.append('<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="%s"/>' % (m, y, W - m, y,
                                                                          FAINT))
    y0 = y + 26
    _text(out, m, y0, "The ring: one light a seat", size=17, bold=True)
    y = y0 + 24
    half = W / 2 + 20
    for colour, pattern, text in LEGEND:
        _swatch(out, m + 9, y - 5, colour, pattern, r=7)
        name = COLOURS[colour] + (", " + PATTERNS[pattern] if pattern else "")
        y = _text(out, m + 26, y, "%s: %s" % (name, text.replace(" (below)", "")), size=size,
                  width=half - m - 46) + 3
    left = y
    _text(out, half, y0, "The sounds", size=17, bold=True)
    y = y0 + 24
    for sound in ("klaxon", "denied", "blip", "done", "undone"):
        _sound_glyph(out, half + 8, y - 5, sound, big=True)
        flash = FLASHES.get(sound)
        words = SOUNDS[sound] + ("; the ring flashes %s" % COLOURS[flash[0]] if flash and
                                 sound != "klaxon" else "")
        y = _text(out, half + 26, y, words, size=size, width=W - m - half - 26) + 4
    y = _text(out, half, y + 10, "Every press, which light is whose, faults: over the page.",
              size=size, width=W - m - half, colour=FAINT)
    _fits(max(y, left), H, "front")
    out.append("</svg>")
    return "\n".join(out) + "\n"


def _ring_picture(out, cx, cy, n, r=26):
    """A ring of 10 lights seen face up, seat 0's light at 11 o'clock, the seats of ``n``
    players numbered on their lights, the other lights hollow."""
    import math

    _text(out, cx, cy - r - 12, "%d players" % n, size=BACK_SIZE, bold=True, anchor="middle")
    for i, w in enumerate(whose(n)):
        a = math.radians(-108 + 36 * i)  # 11 o'clock first, clockwise (the card's legend)
        x, y = cx + r * math.cos(a), cy + r * math.sin(a)
        out.append('<circle cx="%.1f" cy="%.1f" r="8" fill="%s" stroke="%s" stroke-width="1"/>'
                   % (x, y, INK if w is not None else PAPER, INK))
        if w is not None:
            _text(out, x, y + 4, str(w), size=BACK_SIZE, bold=True, colour=PAPER,
                  anchor="middle")


def svg_back(long_ms=LONG_MS):
    """The card's back (docs/card-back.svg): every press at every moment, which light is
    whose for 2 to 10 players, and the notes."""
    out, W, H = _page(landscape=True)
    m = 24
    size = BACK_SIZE
    _text(out, m, m + 12, "QI Klaxon: every press, at every moment", size=18, bold=True)
    room = W - 2 * m - 420
    screen = "%s: %s, then Connect a board" % (SCREEN, SCREEN_RUN)
    if len(_wrap(screen, room, size)) > 1:
        raise ValueError("the scoreboard's line is longer than the room beside the title")
    _text(out, W - m, m + 12, screen, size=size, anchor="end", colour=FAINT)
    y = m + 24
    cols = [150] + [(W - 2 * m - 150) / len(PRESSES)] * len(PRESSES)
    xs = [m]
    for c in cols[:-1]:
        xs.append(xs[-1] + c)
    out.append('<rect x="%d" y="%.1f" width="%d" height="19" fill="#ddd"/>' % (m, y, W - 2 * m))
    for i, head in enumerate(["moment: the ring"] + [press_label(p, long_ms)
                                                    for p in PRESSES]):
        _text(out, xs[i] + 4, y + 14, head, size=size, bold=True)
    y += 19
    lead = size * 1.15
    for name, shows, cells in MOMENTS:
        lines = [_wrap(name, cols[0] - 8, size) + _wrap(shows, cols[0] - 8, size)]
        for p in PRESSES:
            lines.append(_wrap(cells[p][0], cols[1] - 18, size))
        h = max(len(c) for c in lines) * lead + 5
        out.append('<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="%s" stroke-width="0.6"/>'
                   % (m, y, W - m, y, FAINT))
        yy = _text(out, xs[0] + 4, y + size, name, size=size, bold=True, width=cols[0] - 8,
                   leading=1.15)
        _text(out, xs[0] + 4, yy, shows, size=size, width=cols[0] - 8, colour=FAINT,
              leading=1.15)
        for i, p in enumerate(PRESSES):
            words, sound = cells[p]
            _sound_glyph(out, xs[i + 1] + 7, y + size - 4, sound)
            _text(out, xs[i + 1] + 16, y + size, words, size=size, width=cols[i + 1] - 18,
                  colour=FAINT if words == "refused" or words.startswith("refused ") else INK,
                  leading=1.15)
        y += h
    out.append('<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="%s" stroke-width="0.6"/>'
               % (m, y, W - m, y, FAINT))
    y = _text(out, m, y + size + 2, "Sounds: " + "; ".join(
        "%s %s" % (_sound_mark(k).strip(), v) for k, v in SOUNDS.items() if _sound_mark(k)) +
        "; no mark: %s. While held: " % SOUNDS["blip"] + "; ".join(
            "%s %s" % (press_label(p, long_ms), COLOURS[c]) for p, c, _ in PREVIEWS) +
        " (white where it sets up or leaves a game). Every note: the card's second sheet.",
        size=size, width=W - 2 * m,
        leading=1.15)
    # which light is whose: a ring a player count
    y += 26
    step = (W - 2 * m) / 9
    for k, n in enumerate(range(2, 11)):
        _ring_picture(out, m + step * (k + 0.5), y + 26, n)
    y += 72
    # the notes a table needs most, in three columns; every note: the second sheet
    notes = [(head, note(text, long_ms)) for head, text in (
        ("Holding a button", HOLDS), ("Counts", COUNTS), ("Every position", POSITIONS))]
    gap = 14
    room = W - 2 * m - 2 * gap  # one note a column, each as wide as its length asks
    widths = [room * len(text) / sum(len(t) for _, t in notes) for _, text in notes]
    bottom = y
    x = m
    for (head, text), colw in zip(notes, widths):
        _text(out, x, y, head, size=size + 0.5, bold=True)
        yy = _text(out, x, y + size * 1.3, text, size=size, width=colw, leading=1.15) + 4
        bottom = max(bottom, yy)
        x += colw + gap
    _fits(bottom, H, "back")
    out.append("</svg>")
    return "\n".join(out) + "\n"


def svg_notes(long_ms=LONG_MS):
    """The card's second sheet (docs/card-notes.svg): every note, in two columns."""
    out, W, H = _page()
    m = 30
    size = NOTES_SIZE
    _text(out, m, m + 14, "QI Klaxon: the card's notes", size=20, bold=True)
    y = m + 40
    notes = [(head, note(text, long_ms)) for head, text in
             [("Holding a button", HOLDS), ("Seats", SEATS)] + list(NOTES)]
    gap = 20
    colw = (W - 2 * m - gap) / 2

    def height(chunk):
        return sum(size * 1.4 + len(_wrap(text, colw, size)) * size * 1.2 + 8
                   for _, text in chunk)

    half = min(range(1, len(notes)), key=lambda i: max(height(notes[:i]), height(notes[i:])))
    bottom = y
    for col, chunk in enumerate((notes[:half], notes[half:])):
        x = m + col * (colw + gap)
        yy = y
        for head, text in chunk:
            _text(out, x, yy, head, size=size + 2, bold=True)
            yy = _text(out, x, yy + size * 1.4, text, size=size, width=colw) + 8
        bottom = max(bottom, yy)
    _fits(bottom, H, "notes")
    out.append("</svg>")
    return "\n".join(out) + "\n"


def least_printed_pt(svg):
    """The smallest type of a card's side ``svg``, in points as printed: its font sizes
    (user units) times the page's scale (the width in inches x 72 over the viewBox's),
    on letter and on A4 ("fit to page": the letter page scaled down to A4's)."""
    import re

    w_in, h_in = (float(x) for x in re.search(r'width="([\d.]+)in" height="([\d.]+)in"',
                                              svg).groups())
    vb_w = float(re.search(r'viewBox="0 0 ([\d.]+) ', svg).group(1))
    a4 = (8.27, 11.69) if h_in > w_in else (11.69, 8.27)
    scale = min(1, a4[0] / w_in, a4[1] / h_in)
    return min(float(x) for x in re.findall(r'font-size="([\d.]+)"', svg)) * w_in * 72 / vb_w * scale


README_START = "<!-- the card: made by tools/gen/card.py, held to it by tests/test_card.py -->\n"
README_END = "<!-- end of the card -->"


def readme(text):
    """README.md's ``text`` with the card as text between its markers."""
    a = text.index(README_START) + len(README_START)
    return text[:a] + markdown() + text[text.index(README_END, a):]


def files(readme_text=None):
    """{path in the repo: its text} of everything the card makes: its sides, docs/card.md,
    and the README (``readme_text``, default the file's) with its copy of the card."""
    made = {"docs/card-front.svg": svg_front(), "docs/card-back.svg": svg_back(),
            "docs/card-notes.svg": svg_notes(), "docs/card.md": markdown()}
    if readme_text is None:
        with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as f:
            readme_text = f.read()
    made["README.md"] = readme(readme_text)
    return made


def main(argv):
    """Write the card's sides, docs/card.md and the README's copy (--check: exit 1 if any
    differs from what the tables make)."""
    if "-h" in argv or "--help" in argv:
        print(__doc__.split("\n\n")[1].strip("\n"))
        return 0
    unknown = sorted(set(argv) - {"--check"})
    if unknown:
        print("card.py: unknown argument %s (see --help)" % " ".join(unknown), file=sys.stderr)
        return 2
    made = files()
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
        print("differ from tools/gen/card.py: %s" % bad if bad else "the card matches")
        return 1 if bad else 0
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
