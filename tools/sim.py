#!/usr/bin/env python3
"""Run QI Klaxon on the simulated board (host-only tool).

Interactive, in a terminal: keys press the buttons (k or space: the Klaxon;
a, b: short presses; A, B: long presses; d, D: double presses; q: quit).
The ring is drawn in colour with seat numbers and a legend; sounds go to a
WAV file (played too where ``aplay``/``paplay`` exists).

Without a terminal it plays a short built-in demo, prints what happened,
and exits 0.

Headless: ``--script FILE`` where each non-comment line is
``<t_ms> down|up <control>`` (klaxon, a, b; times never decrease). Prints
one JSON object a line, ``{"t_ms": ..., "event": ..., ...}``, and last
``{"event": "state", ...}``.
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

from harness import PROFILE_NAMES, ROOT, Sim, simclock  # noqa: E402

from hardware import lights as L  # noqa: E402

CONTROLS = ("klaxon", "a", "b")
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
            if len(parts) != 3 or parts[1] not in ("down", "up") or parts[2] not in CONTROLS:
                raise ValueError
            t = int(parts[0])
            if t < 0:
                raise ValueError
        except ValueError:
            raise ScriptError("line %d: expected '<t_ms> down|up <klaxon|a|b>', got %r" % (n, line))
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
    for i, (t, name) in enumerate(starts):
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
               board_name=args.board, settings=_settings_text(args))


def _settings_text(args):
    if args.settings and os.path.exists(args.settings):
        with open(args.settings) as f:
            return f.read()
    return ""


def run_script(sim, steps, out, end_pad_ms=1500):
    for t, pressed, control in steps:
        if control not in sim.controls:
            raise ScriptError("this build has no %r control" % control)
        sim.level(control, t * 1000, pressed)
    end = (steps[-1][0] if steps else 0) + end_pad_ms
    printed = 0
    while sim.now_ms < end:
        sim.run_for_ms(10)
        for t, name, fields in sim.events[printed:]:
            rec = {"t_ms": t, "event": name}
            rec.update(fields)
            out.write(json.dumps(rec) + "\n")
        printed = len(sim.events)
    out.write(json.dumps(state_of(sim)) + "\n")


# ------------------------------------------------------------ interactive
def console_line(name, fields):
    """What the board's serial console prints for an event ('' for none)."""
    import contextlib
    import io

    from hardware.device import console

    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        console(name, fields)
    return buf.getvalue().strip()


def draw(sim, stream):
    lt = sim.device.lights
    g = sim.game
    cells = []
    for i, name in enumerate(sim.ring()):
        rgb = L.COLOURS[L.COLOUR_NAMES.index(name)] if name in L.COLOUR_NAMES else (0, 0, 0)
        seat = "  "
        if g is not None:
            for s in range(g.players):
                if lt.pixel_of(s, g.players) == i:
                    seat = "%2d" % s
        cells.append("\x1b[48;2;%d;%d;%dm\x1b[38;2;0;0;0m%s\x1b[0m" % (rgb + (seat,)))
    status = "klaxon only" if g is None else "%s  QM %d  answering %s  positions %s" % (
        g.phase, g.qm, "-" if g.answering is None else g.answering, g.positions)
    stream.write("\r\x1b[2K" + " ".join(cells) + "   " + status)
    stream.flush()


LEGEND = """ring: one pixel a seat (seat numbers on it)
  white: QM   yellow slow blink: answering   green: answered   grey: passed
  vermillion fast blink: challenger   sky slow blink: challenged
  reveal: yellow fast = result being entered; green right, orange wrong
  purple fast: fault or bad setting
keys: k/space Klaxon, a b short, A B long, d D double, q quit"""


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
            for t, name, fields in sim.events[shown:]:
                line = console_line(name, fields)
                if line:
                    sys.stdout.write("\r\x1b[2K%7.3f s  %s\n" % (t / 1000, line))
            shown = len(sim.events)
            draw(sim, sys.stdout)
            if select.select([sys.stdin], [], [], 0.01)[0]:
                ch = sys.stdin.read(1)
                t = sim.now_ms + 5
                if ch == "q":
                    break
                if ch in "k ":
                    sim.press("klaxon", t, 120)
                elif ch in "ab" and ch in sim.controls:
                    sim.press(ch, t, 90)
                elif ch in "AB" and ch.lower() in sim.controls:
                    sim.press(ch.lower(), t, 900)
                elif ch in "dD":
                    c = "a" if ch == "d" else "b"
                    if c in sim.controls:
                        sim.tap(c, t, times=2)
                played = len(sim.named("sound"))
                if played:
                    write_wav(sim, wav)
    finally:
        termios.tcsetattr(fd, termios.TCSADRAIN, old)
        print()
    if sim.named("sound"):
        write_wav(sim, wav)
        print("sounds written to %s" % wav)
        player = shutil.which("aplay") or shutil.which("paplay")
        if player:
            subprocess.Popen([player, wav], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--script", help="headless: play this pin script, print JSON lines")
    p.add_argument("--players", type=int, default=None)
    p.add_argument("--qm", type=int, default=None)
    p.add_argument("--board", choices=PROFILE_NAMES, default="simulated")
    p.add_argument("--wav", default=os.path.join(ROOT, "out", "klaxon-sim.wav"))
    p.add_argument("--klaxon-only", action="store_true", help="a build with only the Klaxon wired")
    p.add_argument("--settings", default=os.path.join(ROOT, "settings.toml"),
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
            run_script(sim, steps, sys.stdout)
            if args.wav and sim.named("sound"):
                write_wav(sim, args.wav)
            return 0
        sim = make_sim(args)
        if sys.stdin.isatty() and sys.stdout.isatty():
            interactive(sim, args.wav)
            return 0
        print("No terminal: playing the built-in demo (a question with a Klaxon).")
        run_script(sim, parse_script(DEMO), sys.stdout)
        write_wav(sim, args.wav)
        print("sounds written to %s (simulated time %.1f s)" % (args.wav, simclock.now_ms() / 1000))
        return 0
    except (ScriptError, OSError) as e:
        print("sim: %s" % e, file=sys.stderr)
        return 2
    except ValueError as e:
        print("sim: %s" % e, file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
