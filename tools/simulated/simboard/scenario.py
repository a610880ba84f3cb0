"""Booting and playing the device on a simulated board, the same on CPython
(Blinka's board) and in the MicroPython VM (tools/lanes/vmboard): host-only."""

import builtins
import sys

import _audioout
import simclock
import simpins
import supervisor
from simprofiles import pin_names, profile  # noqa: F401

_typed = []  # [t_us, bytes] a host typed on the console (Scenario.type_in), not yet read


def _available(runtime):
    """``supervisor.runtime.serial_bytes_available`` once something is typed: the bytes
    typed by now. (The stand-in's own is a plain 0: no more names in the CircuitPython
    lane, whose heap measure counts the stand-ins' qstr pools apart.)"""
    if not _typed:
        return 0
    now = simclock.now_us()
    return sum(len(b) for t, b in _typed if t <= now)


class _Stdin:
    """The console's input as the device reads it: ``read(n)``, n characters."""

    def read(self, n=1):
        now = simclock.now_us()
        out = b""
        while _typed and _typed[0][0] <= now and len(out) < n:
            b = _typed[0][1]
            k = n - len(out)
            out += b[:k]
            if len(b) <= k:
                _typed.pop(0)
            else:
                _typed[0][1] = b[k:]
        return out.decode("utf-8", "replace")


_STDIN = _Stdin()


def dice(seed):
    """A fair, deterministic die with ``random.randint``'s call, so games repeat: a
    seed fixes every roll. Wichmann and Hill's generator (1982: three small
    multiplicative generators, period ~7e12) summed as 15-bit fractions, which
    keeps every number a small int (no heap on the VMs, whose heap is measured);
    each seed's three starts are spread apart, and the die is taken by rejection,
    so each face is equally likely and every one of the 216 rolls of three dice
    comes up. (The board itself uses ``random``; this serves the runtimes that play
    the firmware without it, or need it repeatable: the page, the lanes.)"""
    seed = seed or 0
    state = [seed % 30268 + 1, (seed // 30268 + 7 * seed + 12345) % 30306 + 1,
             (seed // 917 + 11 * seed + 31337) % 30322 + 1]

    def roll(low, high):
        span = high - low + 1
        while True:
            a = state[0] = 171 * state[0] % 30269
            b = state[1] = 172 * state[1] % 30307
            c = state[2] = 170 * state[2] % 30323
            x = (a * 32768 // 30269 + b * 32768 // 30307 + c * 32768 // 30323) & 32767
            if x < 32768 - 32768 % span:  # below the largest multiple of span: unbiased
                return x % span + low

    return roll


class CannotStart(Exception):
    """The firmware said why it cannot start and began blinking its LED."""


class Scenario:
    """One power-on with ``settings`` (settings.toml text): ``controls`` maps a
    control name to (pin id, level when pressed). The device's console lines
    are kept in ``events`` as (t_ms, line)."""

    def __init__(self, board, prof, settings, start_ms=simclock.POWER_ON_MS, seed=1, phase_us=0,
                 held=()):
        simclock.reset(start_ms)
        simclock.advance_us(phase_us)
        simpins.reset()
        _audioout.reset()
        del _typed[:]
        self.events = []
        self._part = []  # a console line being printed in pieces (end="")
        self.controls = {}
        for control in ("klaxon", "a", "b"):
            if prof[control]:
                pin_id = getattr(board, prof[control][0]).id
                self.controls[control] = (pin_id, prof[control][1])
                # idle released; a control in ``held`` is down from power-on
                simpins.set_idle(pin_id, prof[control][1] if control in held else not prof[control][1])
        if prof["switch"]:
            simpins.set_idle(getattr(board, prof["switch"][0]).id, not prof["switch"][1])
        self._boot = (board, settings, dice(seed))
        self.power_on_again()

    def power_on_again(self):
        """The board starts (again, as after a deep sleep): the same settings, pins, clock
        and saved game; the device is new. A build that cannot start blinks its LED for
        ever on a board (hardware/start.py); here ``device`` is None instead."""
        import time

        sleep = time.sleep

        def blinks(seconds):
            raise CannotStart()

        try:
            time.sleep = blinks
        except AttributeError:  # MicroPython's time cannot be patched: it never gets here
            sleep = None
        try:
            self.device = self.call(_start, *self._boot)
        except CannotStart:
            self.device = None
        finally:
            if sleep is not None:
                time.sleep = sleep

    def print(self, *args, sep=" ", end="\n"):
        """``print`` while the device runs: its console lines, timed."""
        self._part.append(sep.join([str(a) for a in args]) + end)
        if end:
            text = "".join(self._part)
            self._part = []
            for line in text.split("\n")[:-1]:
                self.events.append((simclock.now_ms(), line))

    def call(self, f, *args):
        """``f(*args)`` with the device's console going to ``events``, and what a host
        typed on it (``type_in``) coming from ``sys.stdin``, as on a board."""
        old = builtins.print
        builtins.print = self.print
        stdin = sys.stdin if _typed else None
        if stdin is not None:
            sys.stdin = _STDIN
        try:
            return f(*args)
        finally:
            builtins.print = old
            if stdin is not None:
                sys.stdin = stdin

    def type_in(self, t_us, data=b"\n"):
        """A host types ``data`` (bytes) on the console at ``t_us``: one byte asks the device
        for the whole state (hardware/device.py; tools/maker/scoreboard.py reads the line).
        CPython only (MicroPython's sys.stdin stays its own)."""
        _typed.append([t_us, bytes(data)])
        _typed.sort(key=lambda e: e[0])
        type(supervisor.runtime).serial_bytes_available = property(_available)

    def level(self, control, t_us, pressed):
        pin_id, active = self.controls[control]
        simpins.schedule(pin_id, t_us, active if pressed else not active)

    def run_until_us(self, t_us, pass_us=1000):
        self.call(self._run, t_us, pass_us)

    def _run(self, t_us, pass_us):
        if self.device is None:  # it could not start: time passes, nothing runs
            simclock.set_us(t_us)
            return
        poll = self.device.poll
        advance = simclock.advance_us
        now = simclock.now_us
        while now() < t_us:
            poll()
            advance(pass_us)

    def play(self, steps, until_ms):
        """``steps``: (t_ms, pressed, control) pin changes; then run to ``until_ms``."""
        for t, pressed, control in steps:
            self.level(control, t * 1000, pressed)
        self.run_until_us(until_ms * 1000)

    def canonical(self):
        """The console lines with their times, identical on every runtime."""
        return ["%d %s" % (t, line) for t, line in self.events]


def _start(board, settings, roll):
    """What code.py does, with this board, settings text and die."""
    import hardware.settings
    import hardware.start

    p = hardware.start.start(hardware.settings.read(settings.split("\n")), board, roll)
    import hardware.outputs

    p = hardware.outputs.start(p)
    import qiklaxon.restore

    p = qiklaxon.restore.restore(p)
    import hardware.device

    return hardware.device.Device(p)


# Holds a script may name instead of ms: a button held past its second meaning and past
# its third, as the table card says to hold them (tools/gen/card.py's hold_ms + 300 ms; a test
# holds these copies to it: this module also runs in the VM lanes, which have no card)
HOLDS = {"held": 1800, "long": 3300}


def taps(script):
    """'t_ms control [hold_ms | held | long]' lines -> (t_ms, pressed, control) steps."""
    steps = []
    for line in script.split("\n"):
        parts = line.split()
        if len(parts) >= 2:
            t = int(parts[0])
            hold = (HOLDS[parts[2]] if parts[2] in HOLDS else int(parts[2])) if len(parts) > 2 \
                else 80
            steps.append((t, True, parts[1]))
            steps.append((t + hold, False, parts[1]))
    steps.sort()
    return steps


# A question with every kind of press: used by the VM lane and the benchmark.
QUESTION = """\
100 b
700 klaxon
1200 a
1800 b
2400 klaxon 150
2460 klaxon
4200 a
4800 b
5400 a
6000 a
6600 a
7300 b
"""
QUESTION_MS = 9000  # the end of a run of QUESTION


# The benchmark's Express heap budget: start-up, a question (ask, an answer) and a Klaxon.
BUDGET = """\
100 b
700 a
1300 klaxon
"""

# A game's rarer paths after QUESTION: undo (back into the reveal, its penalty count open
# again), a move, the end held long, a new game set up
# at the table, and a question of it (the benchmark's whole-game heap row).
GAME = QUESTION + """\
8000 b held
10300 b
12100 a long
15900 a
16500 b
17100 a held
19400 b
20000 b long
23800 b long
27600 a
28200 b
28800 a
29400 b
30000 b
30600 a
31200 klaxon
"""
GAME_MS = 34000  # the end of a run of GAME
GAME_REST_MS = 8000  # GAME after QUESTION: from here


def random_game(seed, steps):
    """A game driven by ``steps`` seeded random actions, legal or not; one text
    line per step (the action, its outcome, the encoded game) for comparing runtimes."""
    from model.game import Game

    roll = dice(seed)

    def r():
        return roll(1, 6)

    g = Game(2 + (r() + r() * 6) % 9, qm=0, finish=20 + r() * 5)
    out = []
    for _ in range(steps):
        k = (r() * 6 + r()) % 12
        try:
            if k == 0:
                res = g.roll(r(), r(), r())
            elif k == 1:
                res = g.ask()
            elif k in (2, 3):
                res = g.answer()
            elif k == 4:
                res = g.pass_()
            elif k in (5, 6):
                res = g.klaxon()
            elif k == 7:
                seats = [s for s in range(g.players) if r() > 3]
                res = g.reveal(seats, {g.challenger: r()} if g.challenger is not None else None)
            elif k == 8:
                res = g.miss_go()
            elif k == 9:
                res = g.undo()
            elif k == 10:
                res = g.move(r() % g.players, r() - 3)
            else:
                res = g.end() if r() == 6 else None
            if g.phase == "over":
                g = Game(g.players, qm=g.qm)
        except ValueError:
            res = "ValueError"
        out.append("%d %r %r %s %r" % (k, res, g.refusal, g.phase, list(g.to_bytes())))
    return out
