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
    (layout.PURPLE, layout.FAST, "a fault: a stuck Klaxon, a bad setting"),
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
    ("Between questions", "the QM white, no light blinking (after a roll: the dice)", {
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
    ("A Klaxon penalty", "after marking the challenger or the challenged wrong: "
     "the count, or at 0 their light blinking orange", {
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
    ("How far", "the count, or at 0 the seat blinking", {
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

# The notes beside the table, each a short paragraph
FIRST = ("Before a game's first question the Klaxon is a try: it sounds and flashes and "
         "counts for nothing. So is B held long: it sets up the game (players, first QM) "
         "instead of ending it.")
SEATS = ("Seats go clockwise round the table, as the lights do: seat 0 is the light beside "
         "the USB socket (on a strip, its first light). With fewer players than lights the "
         "seats spread out: seat s is light s × lights ÷ players, rounded down "
         "(4 players on 10 lights: 0, 2, 5, 7). With more players than lights, the seats "
         "past the last light are not shown.")
REVEAL = ("The reveal marks the answers in the order they were given, from the QM's left "
          "(so the challenged comes before the challenger). Right answers go forward 3. "
          "Marking the challenger or the challenged wrong opens their Klaxon penalty: "
          "tap A once a square, hold A for ten, then tap B; no penalty in the booklet: "
          "just tap B. When everyone passed there is nothing to mark: the question ends at "
          "the last pass and the dice pass left.")
COUNTS = ("A count shows white lights for tens and orange for units (a move back: blue "
          "units); when they are more than the lights, tens and units blink in turn. It "
          "goes up to 99; past that, or past 10 players, a buzz. B held takes one off; at "
          "its least it goes back a step.")
ROLL = ("A roll shows the dice one at a time, always red, then white, then blue, as that "
        "many lights clockwise from seat 0, a second each, until the next press. "
        "Red 5, white 6, blue 1 is question 561; the QM's piece moves forward by the white "
        "die. Real dice? A held long: move a piece.")
BUZZ = ("A buzz changes nothing. The Klaxon buzzes when nobody has answered yet (you may "
        "still answer or pass), when it is not an answering turn, once a question has had "
        "its Klaxon, and after the game. A or B buzz when the press means nothing now, past "
        "a count's end, and while the ring blinks purple (a fault: the Klaxon still works; "
        "the rest is back in 5 s).")
HOLDS = ("Hold a button and the ring shows what letting go will do: orange A held, sky blue "
         "A held long, blue B held (take back), green B held long (end), white (set up). "
         "Let go when it shows what you want. A press let go within a second is a tap.")
ONE = ("One button (a Pico with one extra button): hold it; the ring shows each step in "
       "turn: A under %s, then B, B held, A held, B held long, A held long, a step every "
       "%s. A step that means nothing at that moment is skipped.")
LED = ("Only the Pico's LED: it flashes with the klaxon and with each chime, and blinks the "
       "roll (red, white, blue: that many blinks each, a pause between). It does not show "
       "seats: answering starts on the QM's left and goes clockwise, one seat a press; the "
       "reveal marks the answers in that order.")


def one_button_note(long_ms=LONG_MS):
    return ONE % (seconds(long_ms), seconds(long_ms))


def press_label(press, long_ms=LONG_MS):
    """"A held 1½ s" and so on: the press as the card heads it."""
    if press in ("Klaxon", "A", "B"):
        return press if press == "Klaxon" else press + " tap"
    return "%s %s" % (press.split()[0], seconds(hold_ms(press, long_ms)))


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
            "", HOLDS, "", FIRST, "", REVEAL, "", COUNTS, "", ROLL, "", BUZZ, "",
            one_button_note(long_ms), "", LED, ""]
    return "\n".join(out)


_MARKS = {"klaxon": "", "denied": " ✗", "blip": "", "done": " ↑", "undone": " ↓"}


def _sound_mark(sound):
    """The card's mark for a press's sound: ✗ a buzz, ↑ the chime up, ↓ down."""
    return _MARKS[sound]
