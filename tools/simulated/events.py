"""The board's console lines, in words and as JSON (host-only).

The firmware prints short lines (``klaxon 3 1``, ``answer 2``, ``reveal``
then ``at 0 3 0 -12``): the board has no room for sentences. ``parse(line)``
turns one line into ``(event, fields)``; ``merge`` folds the ``at`` line
(where every seat stands) and ``game over`` into the event they follow, for
the simulator's JSON and the tests; ``sentence`` says an event the way a
person at the table would.
"""

# Lines of a word and numbers: word -> (event, field names)
_NUMBERS = {
    "answer": ("answer", ("seat",)),
    "pass": ("pass", ("seat",)),
    "ask": ("ask", ("qm",)),
    "miss": ("miss_go", ("seat",)),
    "right": ("mark", ("seat",)),
    "wrong": ("mark", ("seat",)),
    "unmark": ("unmark", ("seat",)),
    "penalty": ("penalty", ("seat", "squares")),
    "count": ("count", ("count",)),
    "seat": ("seat", ("seat",)),
    "players": ("players", ("players",)),
    "first": ("first_qm", ("seat",)),
    "roll": ("roll", ("red", "white", "blue")),
}
# Lines of one word; the ``at`` line after them says where every seat stands
_WORDS = {"reveal": "reveal", "move": "move", "end": "end", "new": "new_game",
          "resumed": "resumed", "undo": "undo", "back": "back"}
# The events an ``at`` line belongs to (otherwise it is an event of its own: positions)
_WITH_POSITIONS = ("reveal", "move", "end", "new_game", "resumed", "undo", "roll")

# The device's colours (hardware/device.py: Device.draw), by number, and its patterns
PALETTE = (0, 0xFFFFFF, 0xF0E442, 0x009E73, 0x181818, 0xD55E00, 0x56B4E9, 0xE69F00, 0xCC79A7,
           0x0072B2, 0xFF0000)
COLOUR_NAMES = ("off", "white", "yellow", "green", "grey", "vermillion", "sky", "orange", "purple",
                "blue", "red")
PATTERN_NAMES = ("steady", "slow", "fast")

# Where each NeoPixel is on the board, as an hour of a clock face, seen from above with
# the board face up (the Circuit Playground's USB connector at 12 o'clock): pixel i is at
# RING_POSITIONS[board][i]. The terminal sim, the page (web/page.py's words()) and
# docs/ring-legend.svg (tools/gen/pictures.py) all draw from this one table, so a pixel the
# firmware lights shows where it would on the board; tests/test_ring_geometry.py states it.
# Circuit Playground Express and Bluefruit (one layout, one numbering): ten pixels at the
# hours of a clock but 12 (the USB connector) and 6 (the battery connector), numbered
# COUNTER-clockwise from the front: pixel 0 at 11 o'clock beside the USB connector's GND
# pad, pixel 4 at 7, pixel 5 at 5, pixel 9 at 1 beside the 3.3V pad. Source: Adafruit's
# numbering diagram for ``cp.pixels`` (both boards), docs/_static/neopixel_numbering.jpg in
# github.com/adafruit/Adafruit_CircuitPython_CircuitPlayground (commit 852e720), agreeing
# with that library's examples/circuitplayground_advanced_examples/
# circuitplayground_tilting_arpeggios.py ("clockwise from 1 o'clock with the USB connector
# on the bottom": pixel (4 - k) % 10) and circuitplayground_gravity_pulls_pixel.py (pixels
# 30 degrees apart, "positions 6 and 12 are empty"), and with Adafruit_Circuit_Playground.h
# in github.com/adafruit/Adafruit_CircuitPlayground ("Pixel 0 is above the pad labeled 'GND'
# right next to the USB connector, while pixel 9 is above the pad labeled '3.3V' on the
# other side").
CIRCUIT_PLAYGROUND_HOURS = (11, 10, 9, 8, 7, 5, 4, 3, 2, 1)
RING_POSITIONS = {"cpx": CIRCUIT_PLAYGROUND_HOURS, "cpb": CIRCUIT_PLAYGROUND_HOURS,
                  # the simulated build (host, page) is drawn as a Circuit Playground
                  "simulated": CIRCUIT_PLAYGROUND_HOURS}
# The builds whose pixels are numbered clockwise seen from above (a Pico's strip or ring,
# wired as hardware/profile_pico.py and build-guide.md say); the others count the other way.
CLOCKWISE_NUMBERING = {"simulated": False, "cpx": False, "cpb": False, "pico": True}


def ring_hours(board, np, clockwise=None):
    """The clock hour (0 to 12, fractions allowed) of each of ``np`` pixels on ``board``:
    the table above for a Circuit Playground's ten, else ``np`` pixels evenly round a
    circle from 12 o'clock in the order the build numbers them (``clockwise``: seen from
    above; default CLOCKWISE_NUMBERING's)."""
    if np == len(RING_POSITIONS.get(board, ())):
        return list(RING_POSITIONS[board])
    if clockwise is None:
        clockwise = CLOCKWISE_NUMBERING.get(board, True)
    step = 12 / np if np else 0
    return [((i if clockwise else -i) * step) % 12 for i in range(np)]


def seat_pixel(s, n, np, clockwise_numbering):
    """The pixel that shows seat ``s`` of ``n`` on ``np`` pixels, as hardware/device.py's
    render() places it: seat 0 on pixel 0 and the seats clockwise round the table seen
    from above (seat s + 1, the player on the left, is the next pixel clockwise), so on
    pixels numbered counter-clockwise (the Circuit Playgrounds) seat s is pixel
    ``-(s * np // n) % np``; numbered clockwise, ``s * np // n``. With fewer pixels than
    seats (a short strip) seat s takes place s, the same way round, and the seats past its
    end are not shown (the result is then >= np). (hardware/device.py draw(): place i is
    pixel -i mod np where the numbering runs counter-clockwise.)"""
    i = s * np // n if np >= n else s
    if i >= np:
        return i
    return i if clockwise_numbering else -i % np


def seat_labels(board, n, np, clockwise=None):
    """Per pixel, the seat it shows (None: no seat), for ``n`` players on ``board``
    (``clockwise``: whether its pixels are numbered clockwise; default the table's)."""
    if clockwise is None:
        clockwise = CLOCKWISE_NUMBERING.get(board, True)
    out = [None] * np
    for s in range(n):
        i = seat_pixel(s, n, np, clockwise)
        if i < np:
            out[i] = s
    return out


LEGEND = """\
ring: one pixel a seat
  white: QM   yellow slow blink: answering   green: answered   grey: passed
  vermillion fast blink: challenger   sky slow blink: challenged
  reveal: yellow fast = the answer being marked; green right, orange wrong
  counts (penalty, move): its seat's light blinks; from the next, white tens, orange units
    (blue: backwards)
  a roll: red, white, blue, one die at a time, that many lights clockwise, blinking
  Klaxon between questions: every seat in turn, its light blinking yellow (vermillion:
    below 0), from the next green hundreds, white tens, orange units
  held button: orange = A held, sky = A held long, blue = B held (take back),
    green = B held long (end) / white = set up a game; a flash: green done, blue undone
  purple fast: a fault, a stuck Klaxon, or a bad setting"""


def _ints(words):
    try:
        return [int(w) for w in words]
    except ValueError:
        return None


def parse(line):
    """``(event, fields)`` for one console line of the board."""
    words = line.split()
    if not words:
        return "console", {"line": line}
    word, rest = words[0], words[1:]
    nums = _ints(rest)
    if word == "klaxon":
        if rest == ["sounded"]:
            return "klaxon", {}
        if nums and len(nums) == 2:
            return "klaxon", {"challenger": nums[0], "challenged": nums[1]}
    if word == "refused" and rest:
        return "refused", {"reason": " ".join(rest)}
    if word in _NUMBERS and nums is not None and len(nums) == len(_NUMBERS[word][1]):
        name, keys = _NUMBERS[word]
        fields = dict(zip(keys, nums))
        if word in ("right", "wrong"):
            fields["right"] = word == "right"
        if word == "roll":
            fields = {"dice": nums, "question": nums[0] * 100 + nums[1] * 10 + nums[2]}
        return name, fields
    if word in _WORDS and not rest:
        return _WORDS[word], {}
    if word == "at" and nums:
        return "positions", {"positions": nums}
    # --- issue 25: the whole state, which the board prints when a host asks (one byte on
    # its console; hardware/device.py): the referee's S, u, then each seat's square, as
    # numbers (tools/maker/scoreboard.py reads them); none: a pure Klaxon
    if word == "state" and nums is not None:
        return "state", {"numbers": nums}
    # --- end of issue 25's hunk
    if line == "game over":
        return "over", {}
    if line.startswith("fault cleared:"):
        return "fault_cleared", {"what": line[len("fault cleared:"):].strip()}
    if word in ("fault:", "fault"):
        return "fault", {"what": line.split(" ", 1)[1] if rest else ""}
    if line.startswith("sleeping"):
        return "sleep", {}
    if line.startswith("settings.toml") or line.startswith("QK_"):
        return "error", {"message": line}
    return "console", {"line": line}


def merge(records):
    """[(t_ms, event, fields)] with each ``at`` line and ``game over`` folded into the
    event they follow (its ``positions``, ``over`` and ``winners``)."""
    out = []
    for t, name, fields in records:
        last = out[-1] if out else None
        if name == "positions" and last and last[1] in _WITH_POSITIONS and \
                "positions" not in last[2]:
            last[2]["positions"] = fields["positions"]
            last[2]["over"] = False
            continue
        if name == "over" and last and "positions" in last[2]:
            last[2]["over"] = True
            best = max(last[2]["positions"])
            last[2]["winners"] = [s for s, p in enumerate(last[2]["positions"]) if p == best]
            continue
        out.append((t, name, dict(fields)))
    return out


def sentence(name, f):
    """One readable line for an event."""
    if name == "klaxon":
        if "challenger" in f:
            return "KLAXON! seat %d challenges seat %d" % (f["challenger"], f["challenged"])
        return "KLAXON!"
    if name == "refused":
        return "refused: %s" % f["reason"]
    if name == "roll":
        d = f["dice"]
        return "rolled red %d, white %d, blue %d: forward %d, question %d" % (
            d[0], d[1], d[2], d[1], f["question"])
    if name == "ask":
        return "QM seat %d asks the question" % f["qm"]
    if name in ("answer", "pass"):
        return "seat %d %s" % (f["seat"], "answers" if name == "answer" else "passes")
    if name == "mark":
        return "seat %d: %s" % (f["seat"], "right" if f["right"] else "wrong")
    if name == "unmark":
        return "seat %d: mark taken back" % f["seat"]
    if name == "penalty":
        return "seat %d Klaxon penalty: back %d" % (f["seat"], f["squares"])
    if name == "back":
        return "entry: one step back"
    if name in _WITH_POSITIONS or name == "positions":
        what = {"reveal": "revealed", "move": "moved", "end": "game ended",
                "new_game": "new game", "resumed": "saved game resumed", "undo": "undone",
                "positions": "now"}.get(name)
        if what is None:  # a roll
            return sentence("roll", f) if "dice" in f else name
        text = what
        if "positions" in f:
            text += ": positions %s" % f["positions"]
        if f.get("over"):
            text += "; game over, winners %s" % f["winners"]
        return text
    if name == "miss_go":
        return "QM seat %d misses a go" % f["seat"]
    if name == "count":
        return "count: %d" % f["count"]
    if name == "seat":
        return "seat %d chosen" % f["seat"]
    if name == "players":
        return "new game: %d players" % f["players"]
    if name == "first_qm":
        return "new game: first QM seat %d" % f["seat"]
    if name in ("fault", "fault_cleared"):
        return "%s: %s" % (name.upper().replace("_", " "), f["what"])
    if name == "sleep":
        return "asleep: press the Klaxon to wake"
    if name == "over":
        return "game over"
    if name == "error":
        return f["message"]
    if name == "state":  # (issue 25: the board's whole state, asked for)
        return "the board's whole state%s" % ("" if f["numbers"] else ": a pure Klaxon")
    if name == "console":
        return f["line"]
    return name
