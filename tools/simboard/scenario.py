"""Booting and playing the device on a simulated board, the same on CPython
(Blinka's board) and in the MicroPython VM (tools/vmboard): host-only."""

import _audioout
import simclock
import simpins
from hardware.device import start
from simprofiles import pin_names, profile  # noqa: F401


def dice(seed):
    """A deterministic die (a small LCG), so that games repeat exactly."""
    state = [seed or 1]

    def roll():
        state[0] = (state[0] * 1103515245 + 12345) & 0x7FFFFFFF
        return state[0] % 6 + 1

    return roll


class Scenario:
    """One power-on with ``settings`` (settings.toml text): ``controls`` maps a
    control name to (pin id, level when pressed)."""

    def __init__(self, board, prof, settings, start_ms=simclock.POWER_ON_MS, seed=1, phase_us=0,
                 on_event=None, held=()):
        simclock.reset(start_ms)
        simclock.advance_us(phase_us)
        simpins.reset()
        _audioout.reset()
        self.events = []
        self.controls = {}
        for control in ("klaxon", "a", "b"):
            if prof[control]:
                pin_id = getattr(board, prof[control][0]).id
                self.controls[control] = (pin_id, prof[control][1])
                # idle released; a control in ``held`` is down from power-on
                simpins.set_idle(pin_id, prof[control][1] if control in held else not prof[control][1])
        if prof["switch"]:
            simpins.set_idle(getattr(board, prof["switch"][0]).id, not prof["switch"][1])
        self.device = start(board, settings, on_event or self._event, dice(seed))

    def _event(self, name, fields):
        self.events.append((simclock.now_ms(), name, fields))

    def level(self, control, t_us, pressed):
        pin_id, active = self.controls[control]
        simpins.schedule(pin_id, t_us, active if pressed else not active)

    def run_until_us(self, t_us, pass_us=1000):
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
        """The events as text lines, identical on CPython and MicroPython."""
        out = []
        for t, name, fields in self.events:
            keys = sorted(fields)
            out.append("%d %s %s" % (t, name, " ".join("%s=%r" % (k, fields[k]) for k in keys)))
        return out


def taps(script):
    """'t_ms control [hold_ms]' lines -> (t_ms, pressed, control) steps."""
    steps = []
    for line in script.split("\n"):
        parts = line.split()
        if len(parts) >= 2:
            t = int(parts[0])
            hold = int(parts[2]) if len(parts) > 2 else 80
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


def random_game(seed, steps):
    """A game driven by ``steps`` seeded random actions, legal or not; one text
    line per step (the action, its outcome, the encoded game) for comparing runtimes."""
    from qiklaxon import Game

    r = dice(seed)
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
