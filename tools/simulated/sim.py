#!/usr/bin/env python3
"""Run QI Klaxon on the simulated board (host-only tool).

Interactive, in a terminal: keys press the buttons (k, K or space: the
Klaxon; a, b: taps; A, B: held 1.8 s; z, x: A, B held 3.3 s (past the card's 1½ s and 3 s); q or Ctrl-C:
quit). The ring is drawn in colour, each pixel where it sits on the board
(tools/simulated/events.py RING_POSITIONS), with seat numbers and a legend. The sounds
are recorded and written to a WAV file when you quit (then played where
``aplay`` or ``paplay`` exists); nothing sounds while you play.

Without a terminal it plays a short built-in demo, prints what happened,
and exits 0.

Headless: ``--script FILE`` where each non-comment line is
``<t_ms> down|up <control>`` (klaxon, a, b; times never decrease, at most
a week; a line at most 200 characters; read a line at a time). Prints one
JSON object a line, ``{"t_ms": ..., "event": ...}``, and last ``{"event":
"state", ...}``. The run ends 1.5 s after the last line, in simulated time;
idle hours take moments (the clock jumps while nothing is held or due). Where
the build deep-sleeps, the board sleeps until the next scripted Klaxon press,
which wakes it as on the board. Paths are the caller's (from the folder the
command was typed in). A bad flag or path exits 2 with a message naming it,
before anything is written; Ctrl-C stops the run, prints what happened so far
and writes the WAV (exit 130).
"""

import argparse
import contextlib
import io
import json
import math
import os
import random
import shutil
import subprocess
import sys
import time
import wave

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import paths  # noqa: E402  (tools/paths.py: every group of tools/ on the path)

from harness import COLOUR_NAMES, NVM_CHIPS, PALETTE, PROFILE_NAMES, ROOT, Sim, layout, simclock  # noqa: E402
from flashsim import FlashSim  # noqa: E402

import _audioout  # noqa: E402
import events as E  # noqa: E402
import scenario  # noqa: E402

CONTROLS = ("klaxon", "a", "b")
MAX_T_MS = 7 * 24 * 3600 * 1000  # a week: any later time in a script is a mistake
MAX_LINE = 200  # characters in a script line: longer is not a script
MAX_STEPS = 100_000  # pin changes in a script: a long evening is a few thousand
DEMO = """\
# a question at a four-player table: ask, answer, pass, Klaxon, reveal
200 down b
280 up b
800 down klaxon
900 up klaxon
1400 down a
1480 up a
2000 down b
2080 up b
2600 down klaxon
2610 up klaxon
2612 down klaxon
2700 up klaxon
5000 down a
5080 up a
5600 down b
5680 up b
6300 down b
6380 up b
"""
# Keys in a terminal: (key, control, hold ms): a tap, held (A, B) and held long (z, x) as
# the table card (tools/gen/card.py) says to hold them; the card says what each press does.
KEYS = (("k", "klaxon", 120), ("K", "klaxon", 120), (" ", "klaxon", 120), ("a", "a", 90),
        ("b", "b", 90), ("A", "a", scenario.HOLDS["held"]), ("B", "b", scenario.HOLDS["held"]),
        ("z", "a", scenario.HOLDS["long"]), ("x", "b", scenario.HOLDS["long"]))


class ScriptError(ValueError):
    pass


def parse_script(text):
    """[(t_ms, pressed, control)] from a script's text; see ``read_script``."""
    return read_script(io.StringIO(text))


def read_script(f):
    """[(t_ms, pressed, control)] from an open script, read a line at a time (text or
    bytes); a malformed line, a line over MAX_LINE characters or more than MAX_STEPS
    pin changes raise ScriptError naming the line."""
    out = []
    last = 0
    n = 0
    while True:
        raw = f.readline(MAX_LINE + 1)
        if not raw:
            break
        n += 1
        if len(raw) > MAX_LINE and raw[-1:] not in ("\n", b"\n"):
            raise ScriptError("line %d is longer than %d characters: not a pin script"
                              % (n, MAX_LINE))
        if isinstance(raw, bytes):
            try:
                raw = raw.decode("utf-8")
            except UnicodeDecodeError:
                raise ScriptError("line %d is not UTF-8 text: not a pin script" % n)
        if n == 1 and raw[:1] == "\ufeff":  # a byte order mark (Notepad's UTF-8): not text
            raw = raw[1:]
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        parts = line.split()
        try:
            if len(parts) != 3 or parts[1] not in ("down", "up") or parts[2] not in CONTROLS \
                    or not (parts[0].isascii() and parts[0].isdigit()):
                raise ValueError
            t = int(parts[0])
            if t < 0:
                raise ValueError
        except ValueError:
            raise ScriptError("line %d: expected '<t_ms> down|up <klaxon|a|b>', got %r"
                              % (n, line[:80]))
        if t > MAX_T_MS:
            raise ScriptError("line %d: time %d ms is more than a week (%d ms): not a game"
                              % (n, t, MAX_T_MS))
        if t < last:
            raise ScriptError("line %d: time %d ms is before the line above (%d ms)" % (n, t, last))
        if len(out) >= MAX_STEPS:
            raise ScriptError("line %d: more than %d pin changes: not a game" % (n, MAX_STEPS))
        last = t
        out.append((t, parts[1] == "down", parts[2]))
    return out


def state_of(sim):
    g = sim.game
    out = {"t_ms": sim.now_ms, "event": "state", "mode": "klaxon" if g is None else "referee"}
    if g is not None:
        out.update(qm=g.qm, phase=g.phase, positions=g.positions, answering=g.answering,
                   challenger=g.challenger, challenged=g.challenged, winners=g.winners)
    return out


WAV_RATE = 48000  # the rendering's rate: a piezo's square edges and a DAC's steps at up to
# ~10 kHz keep their shape (each output sample is the drive's mean over its 1/48 ms)
WAV_CHUNK_US = 10_000_000  # rendered and written 10 s at a time: a long game's memory stays small
WAV_MAX_US = 10 * 60_000_000  # the most a WAV holds: 10 minutes (57 MB at 48 kHz)


def sound_outputs():
    """The simulated board's audio outputs (every one made since power-on: a DAC, a PWM
    audio out, a piezo's pin, ...): each has ``waveform(t0_us, t1_us, rate)``."""
    return [o for o in _audioout.outputs if hasattr(o, "waveform")]


def write_wav(sim, path):
    """What the build drives its sound part with, rendered (tools/simulated/simboard/_drive.py): every
    output's ``waveform`` mixed, from power-on to the end of the last sound, 16-bit mono at
    ``WAV_RATE``, clipped to full scale: one pin's swing (0 to 1), or a DAC's or a WAV's
    half range, is full scale (a piezo push-pull, pin A less pin B, -1 to +1). So the
    Pico's piezo is what its PIO program drives at the tone steps, the Express its DAC's
    wave, the WAV builds their files at the voice's level. The file is opened first (a folder or a read-only
    place is an OSError, never a half-made ``wave`` object's complaint)."""
    import numpy as np

    import _drive

    now = simclock.now_us()
    outs = sound_outputs()
    end = int(min(now, max([_drive.busy_until(o, now) for o in outs] + [0]) + 100_000))
    start = max(0, end - WAV_MAX_US)  # a long run (an evening at the table): its end only
    if start:
        print("sim: the WAV holds the run's last %d minutes" % (WAV_MAX_US // 60_000_000),
              file=sys.stderr)
    with open(path, "wb") as f:
        with wave.open(f, "wb") as w:
            w.setnchannels(1)
            w.setsampwidth(2)
            w.setframerate(WAV_RATE)
            for t0 in range(start, end, WAV_CHUNK_US):
                t1 = min(end, t0 + WAV_CHUNK_US)
                x = np.zeros(int((t1 - t0) * WAV_RATE // 1_000_000))
                for o in outs:
                    x += np.asarray(o.waveform(t0, t1, WAV_RATE), dtype=float)[:len(x)]
                w.writeframes((np.clip(x, -1, 1) * 32767).round().astype("<i2").tobytes())


def make_sim(args, seed=1):
    """The simulated board; ``seed``: its dice (a real board's come from its own noise)."""
    nvm = None
    if getattr(args, "nvm_bytes", None) is not None:  # --nvm: the board's flash as it was left
        nvm = FlashSim(NVM_CHIPS[args.board])
        nvm.mem[:] = args.nvm_bytes
    return Sim(players=args.players, qm=args.qm, klaxon_only=args.klaxon_only,
               board_name=args.board, settings=args.settings_text, coarse=True,
               seed=args.seed if args.seed is not None else seed, nvm=nvm)


def keep_nvm(sim, args):
    """--nvm: the board's flash into the file as the run leaves it (the power cut at its
    end), so the next run with the same file resumes the saved game."""
    if args.nvm and sim is not None and sim.device is not None:
        with open(args.nvm, "wb") as f:
            f.write(bytes(sim.nvm.mem))


def _settings_text(path):
    """The settings file's text: the one named (which must exist), else settings.toml
    beside code.py if there is one. Bytes that are not UTF-8 pass through as they are
    (surrogateescape), so that the firmware sees and reports them as on the board."""
    if path is None:
        path = os.path.join(ROOT, "settings.toml")
        if not os.path.exists(path):
            return ""
    if os.path.isdir(path):
        raise UsageError("--settings %s: is a folder, not a settings file" % path)
    try:
        with open(path, "rb") as f:
            data = f.read(1 << 20)
            if f.read(1):
                raise UsageError("--settings %s: over 1 MB: not a settings file" % path)
    except OSError as e:
        raise UsageError("--settings %s: %s" % (path, e.strerror or e))
    return data.decode("utf-8", "surrogateescape")


class UsageError(ValueError):
    """A flag the sim cannot take: exit 2 with this message, before anything is written."""


# The firmware's own ranges (hardware/settings.py KEYS): name -> (lowest, highest)
def _range(key):
    from hardware.settings import KEYS

    for name, _, low, high in KEYS:
        if name == key:
            return low, high
    raise KeyError(key)


def _players_in(settings_text):
    """QK_PLAYERS as the firmware reads it from the settings text (its messages unprinted)."""
    from hardware.settings import KEYS, read

    with contextlib.redirect_stdout(io.StringIO()):
        values, _ = read(settings_text.split("\n"))
    return values[[k[0] for k in KEYS].index("QK_PLAYERS")]


def check_args(args):
    """Every flag and path checked, before any folder or file is made: paths become the
    caller's absolute ones (the sim then runs from the repo, where the firmware finds its
    sounds); a bad one raises UsageError naming its flag."""
    low, high = _range("QK_PLAYERS")
    if args.players is not None and not low <= args.players <= high:
        raise UsageError("--players %d: the firmware takes %d to %d players"
                         % (args.players, low, high))
    args.settings = None if args.settings is None else os.path.abspath(args.settings)
    args.settings_text = _settings_text(args.settings)
    players = args.players if args.players is not None else _players_in(args.settings_text)
    qlow, qhigh = _range("QK_FIRST_QM")
    if args.qm is not None and not (qlow <= args.qm <= min(qhigh, players - 1)):
        raise UsageError("--qm %d: the first QM is a seat from 0 to %d (%d players)"
                         % (args.qm, min(qhigh, players - 1), players))
    if args.seed is not None and not 0 <= args.seed < 1 << 31:
        raise UsageError("--seed %d: a seed is a whole number from 0 to %d" % (
            args.seed, (1 << 31) - 1))
    if args.scoreboard is not None:
        if not 0 < args.scoreboard < 65536:
            raise UsageError("--scoreboard %d: a port is a number from 1 to 65535"
                             % args.scoreboard)
        if args.script is not None or not (sys.stdin.isatty() and sys.stdout.isatty()):
            raise UsageError("--scoreboard: play in a terminal (its keys press the buttons "
                             "and the page follows); not with --script or without a terminal")
    if args.script is not None:
        args.script = os.path.abspath(args.script)
        if os.path.isdir(args.script):
            raise UsageError("--script %s: is a folder, not a pin script" % args.script)
        try:
            args.script_file = open(args.script, "rb")
        except OSError as e:
            raise UsageError("--script %s: %s" % (args.script, e.strerror or e))
    args.nvm_bytes = None
    if args.nvm is not None:
        args.nvm = os.path.abspath(args.nvm)
        folder = os.path.dirname(args.nvm)
        size = len(FlashSim(NVM_CHIPS[args.board]))
        if os.path.isdir(args.nvm):
            raise UsageError("--nvm %s: is a folder; name a file in it" % args.nvm)
        if not os.path.isdir(folder) or not os.access(folder, os.W_OK) or (
                os.path.exists(args.nvm) and not os.access(args.nvm, os.W_OK)):
            raise UsageError("--nvm %s: cannot write there" % args.nvm)
        if os.path.exists(args.nvm):
            with open(args.nvm, "rb") as f:
                args.nvm_bytes = f.read(size + 1)
            if len(args.nvm_bytes) != size:
                raise UsageError("--nvm %s: holds %d bytes, not the %d of a %s's flash (another "
                                 "board's? name a new file to start afresh)" % (
                                     args.nvm, len(args.nvm_bytes), size, args.board))
    if args.wav is None:  # the default: out/ in the repo, made if need be
        args.wav = os.path.join(ROOT, "out", "klaxon-sim.wav")
        args.wav_folder = os.path.dirname(args.wav)
    elif args.wav:
        args.wav = os.path.abspath(args.wav)
        folder = os.path.dirname(args.wav)
        if os.path.isdir(args.wav):
            raise UsageError("--wav %s: is a folder; name a file in it" % args.wav)
        if not os.path.isdir(folder):
            raise UsageError("--wav %s: there is no folder %s" % (args.wav, folder))
        if not os.access(folder, os.W_OK) or os.path.exists(args.wav) and \
                not os.access(args.wav, os.W_OK):
            raise UsageError("--wav %s: cannot write there" % args.wav)
        args.wav_folder = None
    return args


def run_script(sim, steps, out, end_pad_ms=1500):
    """Play ``steps``, then ``end_pad_ms`` more; print the events as JSON lines and the
    state last. The run is bounded: it ends at the last step's time plus the pad. Ctrl-C
    stops it: what happened until then is printed, and KeyboardInterrupt raised again."""
    for t, pressed, control in steps:
        if control not in sim.controls:
            raise ScriptError("this build has no %r control" % control)
    for t, pressed, control in steps:
        sim.level(control, t * 1000, pressed)
    end = (steps[-1][0] if steps else 0) + end_pad_ms
    stopped = None
    try:
        sim.run_until_ms(end)
    except KeyboardInterrupt as e:
        stopped = e
    for t, name, fields in sim.records():
        rec = {"t_ms": t, "event": name}
        rec.update(fields)
        out.write(json.dumps(rec) + "\n")
    out.write(json.dumps(state_of(sim)) + "\n")
    out.flush()
    if stopped is not None:
        raise stopped


# ------------------------------------------------------------ interactive
def _luminance(c):
    """WCAG relative luminance of 0xRRGGBB."""
    def channel(v):
        v /= 255
        return v / 12.92 if v <= 0.03928 else ((v + 0.055) / 1.055) ** 2.4

    return 0.2126 * channel(c >> 16) + 0.7152 * channel(c >> 8 & 255) + 0.0722 * channel(c & 255)


def contrast(a, b):
    la, lb = sorted((_luminance(a), _luminance(b)))
    return (lb + 0.05) / (la + 0.05)


def label_colour(c):
    """The text colour that reads best on a pixel lit ``c``: black or white (an unlit or
    dim pixel gets white, so every seat's number stays readable)."""
    return 0x000000 if contrast(c, 0x000000) >= contrast(c, 0xFFFFFF) else 0xFFFFFF


# A light as a person sees it lit, where the firmware's colour would not read so on a
# screen: the dim grey (0x181818, a passed seat) is plainly lit on the board, but drawn
# as it is it looks like a light that is off
SEEN = {"grey": 0x8C8C8C}
RING_ROWS = 9  # the ring drawn in a terminal: 9 rows (cells are about twice as tall as wide)
RING_COLS = 33


def ring_cells(hours):
    """(row, column) of each pixel's 3-character cell in a RING_ROWS x RING_COLS box, at
    its clock hour (12 at the top, clockwise as seen from above)."""
    cy, cx = (RING_ROWS - 1) / 2, (RING_COLS - 3) / 2
    out = []
    for h in hours:
        a = math.radians(h * 30)
        out.append((round(cy - cy * math.cos(a)), round(cx + cx * math.sin(a))))
    return out


def ring_lines(colours, labels, hours, top="USB", middle="Klaxon"):
    """The ring as terminal lines: pixel i (lit ``colours[i]``, 0xRRGGBB) drawn at
    ``hours[i]`` with ``labels[i]`` (a seat number or "") in it; ``top`` marks 12 o'clock
    (the Circuit Playground's USB connector)."""
    grid = [[" "] * RING_COLS for _ in range(RING_ROWS)]
    cells = {}
    for i, (row, col) in enumerate(ring_cells(hours)):
        cells[(row, col)] = i
    if top:
        for j, ch in enumerate(top):
            grid[0][(RING_COLS - len(top)) // 2 + j] = "\x1b[2m%s\x1b[0m" % ch
    if middle:
        for j, ch in enumerate(middle):
            grid[RING_ROWS // 2][(RING_COLS - len(middle)) // 2 + j] = ch
    for (row, col), i in cells.items():
        c = colours[i]
        fg = label_colour(c)
        text = ("%2s " % labels[i])[:3] if labels[i] != "" else " \u00b7 "
        cell = "\x1b[48;2;%d;%d;%dm\x1b[38;2;%d;%d;%dm%s\x1b[0m" % (
            c >> 16, c >> 8 & 255, c & 255, fg >> 16, fg >> 8 & 255, fg & 255, text)
        grid[row][col] = cell
        grid[row][col + 1] = grid[row][col + 2] = ""
    return ["".join(r).rstrip() for r in grid]


def has_pixels(sim):
    """Whether the build has lights to draw (a Pico may have its one LED alone)."""
    import hardware.device as D

    return sim.device is not None and sim.device.p[D._PX] is not None


def led_words(sim):
    """The board's LED, for a build with no pixels: "the LED: on" or "off"."""
    import hardware.device as D

    d = sim.device
    return "the LED: %s" % ("on" if d is not None and d.p[D._LED] and d.p[D._LED].value
                             else "off")


def ring_now(sim):
    """(colours, labels, hours) of the simulated board's ring now (all empty: no ring)."""
    if not has_pixels(sim):
        return [], [], []
    g = sim.game
    names = sim.ring()
    np = len(names)
    colours = [SEEN.get(n, PALETTE[COLOUR_NAMES.index(n)]) if n in COLOUR_NAMES else 0
               for n in names]
    labels = [""] * np
    if g is not None:
        n = g.players
        u = sim.device.r.u
        if u[layout.WHAT] in (layout.NEW_PLAYERS, layout.NEW_QM):  # a game set up: its seats
            n = u[layout.COUNT]
        for i, s in enumerate(E.seat_labels(sim.board_name, n, np,
                                            numbered_clockwise(sim))):
            labels[i] = "" if s is None else str(s)
    return colours, labels, E.ring_hours(sim.board_name, np, numbered_clockwise(sim))


def ring_picture(sim):
    """The ring's lines now: drawn round as on the board (its USB connector at the top on
    a Circuit Playground), or in a row for a long strip."""
    colours, labels, hours = ring_now(sim)
    if not hours:
        return []
    if len(hours) > 12:  # a long strip: in a row, pixel 0 first
        return [" ".join("\x1b[48;2;%d;%d;%dm\x1b[38;2;%d;%d;%dm%2s\x1b[0m" % (
            c >> 16, c >> 8 & 255, c & 255, f >> 16, f >> 8 & 255, f & 255, lab or "\u00b7")
            for c, lab, f in zip(colours, labels, map(label_colour, colours)))]
    return ring_lines(colours, labels, hours,
                      top="USB" if sim.board_name in E.RING_POSITIONS else "")


def numbered_clockwise(sim):
    """Whether the build's pixels are numbered clockwise seen from above: the device's
    own flag where its firmware has one, else tools/simulated/events.py's table."""
    import hardware.device as D

    ccw = getattr(D, "_CCW", None)
    if ccw is not None and sim.device is not None and len(sim.device.f) > ccw:
        return not sim.device.f[ccw]
    return E.CLOCKWISE_NUMBERING.get(sim.board_name, True)


def status_of(sim):
    """The game's state in a line (and, on a build with no ring, its LED)."""
    g = sim.game
    if sim.asleep:
        return "asleep: press the Klaxon"
    led = "" if has_pixels(sim) else "  " + led_words(sim)
    if g is None:
        return "klaxon only" + led
    return "%s  QM %d  answering %s  positions %s%s" % (
        g.phase, g.qm, "-" if g.answering is None else g.answering, g.positions, led)


def ring_words(sim):
    """--table's line under the ring: what its lights show, in words, as a person reads
    them over a second (a colour, and whether it blinks), each by the seat whose light it
    is; a flash, or the dice of a roll, as such."""
    import hardware.device as D

    d = sim.device
    if not has_pixels(sim):
        return led_words(sim)
    ring = sim.ring()
    n = sim.game.players if sim.game is not None else len(ring)
    seats = E.seat_labels(sim.board_name, n, len(ring), True)  # (the scene's places go
    # clockwise from pixel 0, whichever way the pixels are numbered)
    if d.r is not None and d.r.u[layout.WHAT]:  # a count or a seat being chosen: its lights
        seats = [None] * len(ring)  # are not the game's seats (light 0 is seat 0's)
    if d.f[D._FL]:
        return "the whole ring flashes %s and %s" % (
            E.COLOUR_NAMES[d.f[D._FL] & 15], E.COLOUR_NAMES[d.f[D._FL] >> 4])
    if d.f[D._DICE] == layout.SEATS_SHOWN:  # every position: a seat's light and its square
        scene = sim.scene()
        out = []
        for i, (colour, pattern) in enumerate(scene):
            if pattern == "fast":
                out.append("seat %s's light %s blinking fast" % (
                    "?" if seats[i] is None else seats[i], colour))
        lit = [c for c, p in scene if c != "off" and p == "steady"]
        kinds = ["%d %s" % (lit.count(c), c) for c in ("blue", "green", "white", "orange")
                 if c in lit]
        return "positions: " + ("; ".join(out) + (", after it " + ", ".join(kinds) if kinds
                                                    else ", nothing after it")
                                if out else "dark between seats")
    if set(ring) - {"off"} and set(ring) - {"off"} <= {"red", "white", "blue"} and d.f[D._DICE]:
        lit = [c for c in ring if c != "off"]
        return "a die: %d %s lights" % (len(lit), lit[0])
    out = []
    for i, (colour, pattern) in enumerate(sim.scene()):
        if colour != "off":
            where = "seat %d's light" % seats[i] if seats[i] is not None else \
                "light %d clockwise from seat 0's" % i
            out.append("%s %s%s" % (where, colour, "" if pattern == "steady" else
                                    " blinking " + pattern))
    return "; ".join(out) or "all dark"


def clip(line, width):
    """``line`` cut to ``width`` columns as the terminal shows it (its colour codes take
    none): a line that wrapped would take two rows, and the redraw's cursor would then go
    back one row too few, leaving an old drawing's line behind."""
    import re

    out, seen = [], 0
    for part in re.split(r"(\x1b\[[0-9;]*[A-Za-z])", line):
        if part.startswith("\x1b["):
            out.append(part)
        elif seen < width:
            out.append(part[:width - seen])
            seen += len(part[:width - seen])
    return "".join(out) + ("\x1b[0m" if "\x1b[" in line else "")


class Screen:
    """The bottom of the terminal: the ring and a status line, redrawn in place; the
    event lines scroll above it. Every line is cut to the terminal's width, and the ring
    loses its top rows where the pane is shorter than it (``size``: (columns, rows), or
    the terminal's own, asked at every drawing: a pane can be resized), so that nothing
    wraps or scrolls out of the cursor's reach and the redraw clears the whole of the
    last one."""

    def __init__(self, stream, size=None):
        self.stream = stream
        self.size = size
        self.height = 0
        self.last = None  # the ring and status as last drawn

    def show(self, sim, new_lines=(), status=True):
        import shutil

        cols, rows = self.size or shutil.get_terminal_size((80, 24))
        lines = ring_picture(sim) + [status_of(sim) if status else ring_words(sim)]
        lines = [clip(line, max(cols - 1, 1)) for line in lines[-max(rows - 1, 1):]]
        if not new_lines and lines == self.last:
            return  # (nothing new: redrawn every pass, an idle sim wrote ~58 KB a second)
        self.last = lines
        out = []
        if self.height:  # back to the ring's first line (the cursor is on the status line)
            out.append("\r\x1b[%dA\x1b[J" % (self.height - 1) if self.height > 1 else "\r\x1b[J")
        out += [line + "\n" for line in new_lines]
        out.append("\n".join(lines))
        self.height = len(lines)
        self.stream.write("".join(out))
        self.stream.flush()


def draw(sim, stream):
    """One drawing of the ring and the status (for a screenshot, or a test)."""
    Screen(stream).show(sim)
    stream.write("\n")


KEYS_HELP = ("keys: k, K or space the Klaxon; a b tap; A B hold 1.8 s; z x hold A, B 3.3 s; "
             "q or Ctrl-C quit")
LEGEND = E.LEGEND + "\n" + KEYS_HELP + """
the ring is drawn as on the board, USB connector at the top; the sounds are written to
a WAV file when you quit"""
# --table: each sound as a person at the table hears it (the card's words)
HEARD = {"klaxon": "KLAXON!", "denied": "a low buzz", "blip": "a tick",
         "done": "two notes up", "undone": "two notes down"}


def scoreboard(port):
    """The page, as the scoreboard of this simulated board (``--scoreboard``), served on
    127.0.0.1:``port``: (the bridge the sim's console goes to, the server's address).
    UsageError when it cannot be (the page's files, the port)."""
    import deploy
    import threading
    import web

    bridge = web.SimBridge()
    try:
        web.install()
        web.stage()
        httpd = web.serve(port, bridge=bridge, flag="--scoreboard")
    except (web.WebError, deploy.DeployError) as e:
        raise UsageError("--scoreboard: %s" % e)
    threading.Thread(target=httpd.serve_forever, name="scoreboard", daemon=True).start()
    return bridge, web.address("127.0.0.1", httpd.server_port)


def to_scoreboard(sim, bridge, sent):
    """The console lines after the first ``sent`` to the scoreboard's pages, and their
    asks typed in (one byte: the board prints its whole state). Returns how many are sent."""
    for _, line in sim.events[sent:]:
        bridge.line(line)
    # One byte waiting answers every ask made before the board reads it: a byte an ask
    # (a page asking 100 times a second) queued them up, and the board, reading one a
    # chores pass, printed its whole state for minutes after the asks stopped.
    if bridge.asks() and not scenario._typed:
        sim.type_in((sim.now_ms + 1) * 1000)
    return len(sim.events)


def interactive(sim, wav, table=False, bridge=None):
    """Play in the terminal until q or Ctrl-C; then write the WAV (and play it where a
    player exists). ``table``: show only what a table sees and hears (the ring, and each
    sound in words), not the console or the game's state: play it with the table card.
    ``bridge``: the console also goes to the scoreboard's pages (``scoreboard``)."""
    import select
    import signal
    import termios
    import tty

    def killed(signum, frame):  # kill (SIGTERM): quit as Ctrl-C does, the terminal restored
        raise KeyboardInterrupt()

    print(KEYS_HELP if table else LEGEND)
    fd = sys.stdin.fileno()
    old = termios.tcgetattr(fd)
    old_term = signal.signal(signal.SIGTERM, killed)
    tty.setcbreak(fd)
    start = time.monotonic()
    shown = 0
    sent = 0
    up_at = {}  # control -> when its last press lets go (ms): a button down is not pressed
    screen = Screen(sys.stdout)
    try:
        while True:
            now_ms = int((time.monotonic() - start) * 1000)
            sim.run_until_ms(now_ms)
            if bridge is not None:
                sent = to_scoreboard(sim, bridge, sent)
            if table:  # what the table hears, not what the console says
                lines = ["%7.3f s  you hear %s" % (t / 1000, HEARD[name])
                         for t, name in sim.sounds()[shown:]]
                shown = len(sim.sounds())
            else:
                lines = ["%7.3f s  %s" % (t / 1000, line) for t, line in sim.events[shown:]]
                shown = len(sim.events)
            screen.show(sim, lines, status=not table)
            if select.select([sys.stdin], [], [], 0.01)[0]:
                ch = sys.stdin.read(1)
                if ch in ("q", ""):
                    break
                for key, control, hold in KEYS:
                    # (a key repeating as it is held, or a tap while a hold is still down:
                    # the button is down already; pressing it again ended the sim with
                    # "pin changes must come in time order")
                    if ch == key and control in sim.controls and \
                            sim.now_ms + 5 > up_at.get(control, -1):
                        sim.press(control, sim.now_ms + 5, hold)
                        up_at[control] = sim.now_ms + 5 + hold
    except KeyboardInterrupt:  # Ctrl-C (or kill): quit, as q does
        pass
    finally:
        termios.tcsetattr(fd, termios.TCSADRAIN, old)
        signal.signal(signal.SIGTERM, old_term)
        print()
    if table and sim.game is not None:  # afterwards, the score, to check the game by
        for _, f in sim.named("end"):
            print("a game ended at: positions %s" % f.get("positions"))
        print("at the end: %s" % status_of(sim))
    if sim.named("sound") and wav:
        write_wav(sim, wav)
        print("sounds written to %s" % wav)
        player = shutil.which("aplay") or shutil.which("paplay")
        if player:
            subprocess.Popen([player, wav], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def cannot_start(sim):
    """The firmware could not start (it says why): exit 2 with its words."""
    for _, line in sim.events:
        print("sim: %s" % line, file=sys.stderr)
    return 2


def main(argv=None):
    p = argparse.ArgumentParser(prog="sim", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--script", help="headless: play this pin script, print JSON lines")
    p.add_argument("--players", type=int, default=None, help="players (2 to 10)")
    p.add_argument("--qm", type=int, default=None, help="the first QM's seat (0 to players - 1)")
    p.add_argument("--board", choices=PROFILE_NAMES, default="simulated")
    p.add_argument("--wav", default=None,
                   help="where the sounds are written when the run ends (default: "
                        "out/klaxon-sim.wav in the repo; '' for nowhere)")
    p.add_argument("--klaxon-only", action="store_true", help="a build with only the Klaxon wired")
    p.add_argument("--table", action="store_true",
                   help="in a terminal: show only the ring and the sounds, as a table has them "
                        "(no console, no game state): play it with the table card")
    p.add_argument("--settings", default=None,
                   help="settings file (default: settings.toml beside code.py, if any)")
    p.add_argument("--nvm", default=None, metavar="FILE",
                   help="the board's flash, where it saves the game: read at power-on if FILE "
                   "exists, written when the run ends (a power cut), so the next run with it "
                   "resumes the game")
    p.add_argument("--seed", type=int, default=None,
                   help="the dice's seed (default: new each run in a terminal, 1 with --script "
                        "or without a terminal, so a script replays the same game)")
    p.add_argument("--scoreboard", type=int, nargs="?", const=8008, default=None, metavar="PORT",
                   help="in a terminal: also show this board's game on the scoreboard page "
                        "(a real board's: docs/scoreboard.md), served on 127.0.0.1:PORT "
                        "(default 8008); open the address it prints in a browser")
    args = p.parse_args(argv)
    sim = None
    try:
        check_args(args)  # nothing is made or written before this
        steps = None
        if args.script:
            with args.script_file as f:
                steps = read_script(f)
        os.chdir(ROOT)  # the firmware opens sounds/ as the board's drive has them
        if args.wav and args.wav_folder:
            os.makedirs(args.wav_folder, exist_ok=True)
        # played in a terminal, new dice each run, as a board's; a script (or the demo)
        # replays the same game every time unless --seed says otherwise
        live = steps is None and sys.stdin.isatty() and sys.stdout.isatty()
        sim = make_sim(args, seed=random.randrange(1, 1 << 31) if live else 1)
        if sim.device is None:
            return cannot_start(sim)
        if steps is not None:
            run_script(sim, steps, sys.stdout)
            if args.wav and sim.named("sound"):
                write_wav(sim, args.wav)
            return 0
        if sys.stdin.isatty() and sys.stdout.isatty():
            bridge = None
            if args.scoreboard is not None:
                bridge, where = scoreboard(args.scoreboard)
                print("The scoreboard of this simulated board: %s  (open it in a browser; "
                      "it shows the game as the keys below play it)" % where, flush=True)
            interactive(sim, args.wav, table=args.table, bridge=bridge)
            return 0
        print("No terminal: playing the built-in demo (a question with a Klaxon).")
        run_script(sim, parse_script(DEMO), sys.stdout)
        if args.wav:
            write_wav(sim, args.wav)
            print("sounds written to %s" % args.wav)
        print("simulated time %.1f s" % (simclock.now_ms() / 1000))
        return 0
    except KeyboardInterrupt:  # Ctrl-C in a run: what was recorded is kept
        if sim is not None and sim.device is not None and args.wav and sim.named("sound"):
            try:
                write_wav(sim, args.wav)
                print("sim: interrupted; sounds so far written to %s" % args.wav, file=sys.stderr)
            except OSError as e:
                print("sim: interrupted; %s: %s" % (args.wav, e.strerror or e), file=sys.stderr)
        else:
            print("sim: interrupted", file=sys.stderr)
        return 130
    except UsageError as e:
        print("sim: %s" % e, file=sys.stderr)
        return 2
    except ScriptError as e:
        print("sim: --script %s: %s" % (args.script, e), file=sys.stderr)
        return 2
    except (OSError, ValueError) as e:
        print("sim: %s" % e, file=sys.stderr)
        return 2
    finally:
        try:
            keep_nvm(sim, args)
        except OSError as e:
            print("sim: --nvm %s: %s" % (args.nvm, e.strerror or e), file=sys.stderr)


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:  # Ctrl-C before main() could catch it (at start-up)
        sys.exit(130)
