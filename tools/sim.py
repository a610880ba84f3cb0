#!/usr/bin/env python3
"""Run QI Klaxon on the simulated board (host-only tool).

Interactive, in a terminal: keys press the buttons (k or space: the Klaxon;
a, b: taps; A, B: held 1 s; z, x: A, B held 2.3 s; q: quit).
The ring is drawn in colour with seat numbers and a legend; sounds go to a
WAV file (played too where ``aplay``/``paplay`` exists).

Without a terminal it plays a short built-in demo, prints what happened,
and exits 0.

Headless: ``--script FILE`` where each non-comment line is
``<t_ms> down|up <control>`` (klaxon, a, b; times never decrease, at most
a week). Prints one JSON object a line, ``{"t_ms": ..., "event": ...,
...}``, and last ``{"event": "state", ...}``. The run ends 1.5 s after the
last line, in simulated time. Where the build deep-sleeps, the board sleeps
until the next scripted Klaxon press, which wakes it as on the board.
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
import wave

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from harness import COLOUR_NAMES, PALETTE, PROFILE_NAMES, ROOT, Sim, simclock  # noqa: E402

import events as E  # noqa: E402

CONTROLS = ("klaxon", "a", "b")
MAX_T_MS = 7 * 24 * 3600 * 1000  # a week: any later time in a script is a mistake
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
# Keys in a terminal: (key, control, hold ms); the README's controls table says what
# each press does.
KEYS = (("k", "klaxon", 120), (" ", "klaxon", 120), ("a", "a", 90), ("b", "b", 90),
        ("A", "a", 1000), ("B", "b", 1000), ("z", "a", 2300), ("x", "b", 2300))


class ScriptError(ValueError):
    pass


def parse_script(text):
    """[(t_ms, pressed, control)]; a malformed line raises ScriptError naming its number."""
    out = []
    last = 0
    for n, line in enumerate(text.splitlines(), 1):
        line = line.split("#", 1)[0].strip()
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


def write_wav(sim, path):
    """The sounds as the speaker played them: each cut short by the next."""
    starts = [(t, f["name"]) for t, f in sim.named("sound")]
    clips = {}
    for _, name in starts:
        if name not in clips:
            with wave.open(os.path.join(ROOT, "sounds", name + ".wav")) as w:
                clips[name] = (w.getframerate(), w.readframes(w.getnframes()))
    rate = 16000
    out = bytearray()
    for t, name in starts:
        at = t * rate // 1000 * 2
        if len(out) < at:
            out += bytes(at - len(out))
        del out[at:]
        out += clips[name][1]
    with wave.open(path, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(rate)
        w.writeframes(bytes(out))


def make_sim(args):
    return Sim(players=args.players, qm=args.qm, klaxon_only=args.klaxon_only,
               board_name=args.board, settings=_settings_text(args), coarse=True)


def _settings_text(args):
    """The settings file's text: the one named (which must exist), else settings.toml
    beside code.py if there is one. Bytes that are not UTF-8 pass through as they are
    (surrogateescape), so that the firmware sees and reports them as on the board."""
    if args.settings is not None:
        with open(args.settings, encoding="utf-8", errors="surrogateescape") as f:
            return f.read()
    default = os.path.join(ROOT, "settings.toml")
    if os.path.exists(default):
        with open(default, encoding="utf-8", errors="surrogateescape") as f:
            return f.read()
    return ""


def run_script(sim, steps, out, end_pad_ms=1500):
    """Play ``steps``, then ``end_pad_ms`` more; print the events as JSON lines and the
    state last. The run is bounded: it ends at the last step's time plus the pad."""
    for t, pressed, control in steps:
        if control not in sim.controls:
            raise ScriptError("this build has no %r control" % control)
        sim.level(control, t * 1000, pressed)
    end = (steps[-1][0] if steps else 0) + end_pad_ms
    sim.run_until_ms(end)
    for t, name, fields in sim.records():
        rec = {"t_ms": t, "event": name}
        rec.update(fields)
        out.write(json.dumps(rec) + "\n")
    out.write(json.dumps(state_of(sim)) + "\n")


# ------------------------------------------------------------ interactive
def draw(sim, stream):
    g = sim.game
    cells = []
    for i, name in enumerate(sim.ring()):
        c = PALETTE[COLOUR_NAMES.index(name)] if name in COLOUR_NAMES else 0
        seat = "  "
        if g is not None:
            for s in range(g.players):
                if sim.pixel_of(s, g.players) == i:
                    seat = "%2d" % s
        cells.append("\x1b[48;2;%d;%d;%dm\x1b[38;2;0;0;0m%s\x1b[0m"
                     % (c >> 16, c >> 8 & 255, c & 255, seat))
    status = "klaxon only" if g is None else "%s  QM %d  answering %s  positions %s" % (
        g.phase, g.qm, "-" if g.answering is None else g.answering, g.positions)
    if sim.asleep:
        status = "asleep: press the Klaxon"
    stream.write("\r\x1b[2K" + " ".join(cells) + "   " + status)
    stream.flush()


LEGEND = E.LEGEND + """
keys: k or space the Klaxon; a b tap; A B hold 1 s; z x hold A, B 2.3 s; q quit"""


def interactive(sim, wav):
    import select
    import termios
    import tty

    print(LEGEND)
    fd = sys.stdin.fileno()
    old = termios.tcgetattr(fd)
    tty.setcbreak(fd)
    start = time.monotonic()
    shown = 0
    try:
        while True:
            now_ms = int((time.monotonic() - start) * 1000)
            sim.run_until_ms(now_ms)
            for t, line in sim.events[shown:]:
                sys.stdout.write("\r\x1b[2K%7.3f s  %s\n" % (t / 1000, line))
            shown = len(sim.events)
            draw(sim, sys.stdout)
            if select.select([sys.stdin], [], [], 0.01)[0]:
                ch = sys.stdin.read(1)
                if ch == "q":
                    break
                for key, control, hold in KEYS:
                    if ch == key and control in sim.controls:
                        sim.press(control, sim.now_ms + 5, hold)
    finally:
        termios.tcsetattr(fd, termios.TCSADRAIN, old)
        print()
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
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--script", help="headless: play this pin script, print JSON lines")
    p.add_argument("--players", type=int, default=None)
    p.add_argument("--qm", type=int, default=None)
    p.add_argument("--board", choices=PROFILE_NAMES, default="simulated")
    p.add_argument("--wav", default=os.path.join(ROOT, "out", "klaxon-sim.wav"),
                   help="where the sounds go ('' for nowhere)")
    p.add_argument("--klaxon-only", action="store_true", help="a build with only the Klaxon wired")
    p.add_argument("--settings", default=None,
                   help="settings file (default: settings.toml beside code.py, if any)")
    args = p.parse_args(argv)
    os.chdir(ROOT)
    if args.wav and os.path.dirname(args.wav):
        os.makedirs(os.path.dirname(args.wav), exist_ok=True)
    try:
        if args.script:
            with open(args.script) as f:
                steps = parse_script(f.read())
            sim = make_sim(args)
            if sim.device is None:
                return cannot_start(sim)
            run_script(sim, steps, sys.stdout)
            if args.wav and sim.named("sound"):
                write_wav(sim, args.wav)
            return 0
        sim = make_sim(args)
        if sim.device is None:
            return cannot_start(sim)
        if sys.stdin.isatty() and sys.stdout.isatty():
            interactive(sim, args.wav)
            return 0
        print("No terminal: playing the built-in demo (a question with a Klaxon).")
        run_script(sim, parse_script(DEMO), sys.stdout)
        if args.wav:
            write_wav(sim, args.wav)
            print("sounds written to %s" % args.wav)
        print("simulated time %.1f s" % (simclock.now_ms() / 1000))
        return 0
    except (ScriptError, OSError, ValueError) as e:
        print("sim: %s" % e, file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
