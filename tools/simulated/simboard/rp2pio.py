"""Stand-in for ``rp2pio`` on the simulated board (host-only): the Pico's piezo.

Its checks are CircuitPython 10's (ports/raspberrypi/bindings/rp2pio/StateMachine.c and
common-hal/rp2pio/StateMachine.c): a program of 1 to 32 instructions, side-set pins
that exist (consecutive GPIO numbers, ``Pin count too large`` past GP29) and are free
(``GP14 in use``: a button's pin, or another state machine's), a wrap inside the
program, a frequency from clk_sys / 65536 to clk_sys (0: clk_sys), and what the
methods do: ``restart()`` jumps to the program's start, clears the ISR and the shift
counts, runs ``init`` and enables; ``stop()`` disables; ``run()`` executes each
instruction at once (X, Y, the side-set pins), ``frequency`` sets the divider.

The program is interpreted (the instructions the piezo's program uses: jmp with its
conditions, mov between X, Y, ISR, OSR and null with ~, set X/Y, side-set and delay),
timed by the simulated clock (simclock.py), so that ``waveform()`` is what the
firmware's program makes. Only while ``_audioout.record`` (the CircuitPython lane keeps
no history: its heap is the firmware's), and on the host's CPython (not in a MicroPython
VM lane), is the program run and its pin levels kept; ``tone()`` works everywhere.
"""

import sys

import _audioout
import simclock

_CPYTHON = sys.implementation.name == "cpython"

CLK_SYS = 125_000_000
KEEP = 1_000_000  # pin changes kept (about a minute and a half of the klaxon; then the newest)
CLAIMED = set()  # ids of the pins in use (the harness adds each DigitalInOut's; a new board
# clears it)


def _id(n):
    """The id of GPIO ``n``'s pin (``microcontroller.pin``'s, as the harness makes it)."""
    import microcontroller

    p = getattr(getattr(microcontroller, "pin", None), "GPIO%d" % n, None)
    return getattr(p, "id", n)


def _gpio(pin):
    """A pin's GPIO number: the simulated board's (``gpio``), else its id."""
    n = getattr(pin, "gpio", None)
    return n if n is not None else getattr(pin, "id", None)


class StateMachine:
    def __init__(self, program, frequency, *, init=None, first_sideset_pin=None,
                 sideset_pin_count=1, sideset_enable=False, wrap_target=0, wrap=-1,
                 initial_sideset_pin_state=0, **kwargs):
        prog = list(program)  # (an array("H") of the words)
        if not 1 <= len(prog) <= 32:
            raise ValueError("program length must be 2-64")
        self._init = list(init) if init is not None else []
        if not 1 <= sideset_pin_count <= 5:
            raise ValueError("set_pin_count must be 1-5")
        if sideset_enable:
            raise NotImplementedError("sideset_enable: not in the stand-in")
        if first_sideset_pin is not None and not hasattr(first_sideset_pin, "id"):
            raise TypeError("first_sideset_pin must be of type Pin, not %s"
                            % type(first_sideset_pin).__name__)
        pins = []
        if first_sideset_pin is not None:
            base = _gpio(first_sideset_pin)
            for i in range(sideset_pin_count):
                n = base + i
                if n >= 30:
                    raise ValueError("Pin count too large")
                if _id(n) in CLAIMED:  # each of them, as CircuitPython checks
                    raise ValueError("GP%d in use" % n)  # (a button's, another machine's)
                pins.append(n)
        if wrap == -1:
            wrap = len(prog) - 1
        if not 0 <= wrap <= len(prog) - 1:
            raise ValueError("wrap must be %d-%d" % (0, len(prog) - 1))
        if not 0 <= wrap_target <= len(prog) - 1:
            raise ValueError("wrap_target must be %d-%d" % (0, len(prog) - 1))
        CLAIMED.update(_id(n) for n in pins)
        self._first = first_sideset_pin
        self.pins = pins
        self.program = prog
        self.wrap_target = wrap_target
        self.wrap = wrap
        self._sides = sideset_pin_count
        self.offset = 0
        self._x = self._y = self._isr = self._osr = 0
        self._pc = 0
        self._side = initial_sideset_pin_state
        self._enabled = False
        self._t = simclock.now_us()  # the time the interpreter has reached
        self._next = self._t  # when the next instruction starts (µs)
        # (kept on the host's CPython only: a MicroPython VM lane's heap is small, and its
        # tests read the firmware's events, not the drive)
        self.changes = [(self._t, self._side)] if _audioout.record and _CPYTHON else None
        _audioout.made(self)  # (recording: one of the board's sound outputs, for the sim's WAV)
        self._voice = None
        self._freq = 0
        self.frequency = frequency
        self._run_words(self._init)
        self._enabled = True
        self._next = self._t

    # ---------------------------------------------------------------- the API
    @property
    def frequency(self):
        return self._freq

    @frequency.setter
    def frequency(self, value):
        if not isinstance(value, int) or isinstance(value, bool):
            raise TypeError("can't convert %s to int" % type(value).__name__)
        self._sync()
        if value == 0:
            value = CLK_SYS
        if self.changes is None:  # (kept nothing: no arithmetic that allocates, as in C)
            if not 1908 <= value <= CLK_SYS:
                raise ValueError("frequency out of range")
            self._freq = self._asked = value
            return
        div256 = CLK_SYS * 256 // value if value > 0 else 0
        if div256 and CLK_SYS * 256 % div256:
            div256 += 1
        if not div256 or div256 // 256 > 0x10000 or value > CLK_SYS:
            raise ValueError("frequency out of range")
        old = self._freq
        self._freq = CLK_SYS * 256 // div256
        self._asked = value
        if old and self._next > self._t:  # the instruction under way ends at the new rate
            self._next = self._t + (self._next - self._t) * old / self._freq

    def restart(self):
        self._sync()
        self._enabled = False
        self._pc = 0
        self._isr = 0
        self._next = self._t
        self._run_words(self._init)
        self._enabled = True

    def stop(self):
        self._sync()
        self._enabled = False

    def run(self, instructions):
        self._sync()
        self._run_words(instructions)

    def deinit(self):
        self._sync()
        self._enabled = False
        CLAIMED.difference_update(_id(n) for n in self.pins)

    # ---------------------------------------------------------------- what it made
    def tone(self):
        """(Hz, voice) it plays now, as the program and its clock make them: "rasp" (X counts
        the fast cycles, at most 7), a period of 22 halves; "square" (X from 2**32 - 1), 2
        halves; a half of ISR + OSR + 5 ticks (hardware/profile_pico.py). (0, None): still."""
        self._sync()
        if not self._enabled:
            return 0, None
        ticks = (2 if self._voice == "square" else 22) * (self._isr + self._osr + 5)
        return self._asked / ticks, self._voice

    def waveform(self, t0_us, t1_us, rate):
        """The drive across the piezo from ``t0_us`` to ``t1_us`` (simulated time), sampled
        at ``rate`` Hz, in units of one pin's swing: push-pull, pin A (the upper, side-set
        bit 1) less pin B, in {-1, 0, +1}; one pin, its level, in {0, 1}."""
        self._sync()
        ch = self.changes or [(0, 0)]
        out = []
        n = int((t1_us - t0_us) * rate // 1_000_000)
        k = 0
        for i in range(n):
            t = t0_us + i * 1_000_000 / rate
            while k + 1 < len(ch) and ch[k + 1][0] <= t:
                k += 1
            s = ch[k][1] if ch[k][0] <= t else 0
            out.append(float((s >> 1 & 1) - (s & 1)) if self._sides == 2 else float(s & 1))
        return out

    # ---------------------------------------------------------------- the interpreter
    def _set_side(self, side, t):
        if side != self._side:
            self._side = side
            if self.changes is not None:
                self.changes.append((t, side))
                if len(self.changes) > KEEP:  # (a long run: the oldest half let go)
                    del self.changes[:KEEP // 2]

    def _run_words(self, words):
        for w in words:
            self._exec(w, self._t, True)
        self._voice = "square" if self._x > 7 else "rasp"  # (what run() chose: X's start)

    def _exec(self, w, t, exec_=False):
        """Execute instruction ``w`` at time ``t`` (µs): its side-set at once; returns the
        ticks it takes (1 + delay; a jump to itself on y-- counts every pass)."""
        bits = 5 - self._sides
        side = (w >> 8 & 0x1F) >> bits
        delay = w >> 8 & ((1 << bits) - 1)
        self._set_side(side, t)
        op = w >> 13
        nxt = self._pc + 1 if self._pc != self.wrap else self.wrap_target
        if op == 0:  # jmp
            cond = w >> 5 & 7
            target = (w & 0x1F) + self.offset
            if cond == 4 and target == self._pc and not exec_:  # jmp y-- to itself: a loop
                n = self._y + 1  # passes: y, y-1, ..., 0
                self._y = 0xFFFFFFFF
                self._pc = nxt
                return n * (1 + delay)
            take = {0: True, 1: self._x == 0, 3: self._y == 0}.get(cond)
            if cond == 2:
                take = self._x != 0
                self._x = (self._x - 1) & 0xFFFFFFFF
            elif cond == 4:
                take = self._y != 0
                self._y = (self._y - 1) & 0xFFFFFFFF
            elif cond == 5:
                take = self._x != self._y
            elif take is None:
                raise NotImplementedError("jmp condition %d: not in the stand-in" % cond)
            nxt = target if take else nxt
        elif op == 5:  # mov
            src = w & 7
            v = {1: self._x, 2: self._y, 3: 0, 6: self._isr, 7: self._osr}.get(src)
            if v is None:
                raise NotImplementedError("mov source %d: not in the stand-in" % src)
            if w >> 3 & 3 == 1:
                v = ~v & 0xFFFFFFFF
            dst = w >> 5 & 7
            if dst == 1:
                self._x = v
            elif dst == 2:
                self._y = v
            elif dst == 6:
                self._isr = v
            elif dst == 7:
                self._osr = v
            else:
                raise NotImplementedError("mov destination %d: not in the stand-in" % dst)
        elif op == 7:  # set
            dst = w >> 5 & 7
            if dst == 1:
                self._x = w & 0x1F
            elif dst == 2:
                self._y = w & 0x1F
            else:
                raise NotImplementedError("set destination %d: not in the stand-in" % dst)
        else:
            raise NotImplementedError("instruction %04x: not in the stand-in" % w)
        if not exec_:
            self._pc = nxt
        elif op == 0 and nxt != self._pc + 1:  # an executed jump moves the program counter
            self._pc = nxt
        return 1 + delay

    def _sync(self):
        """Run the program up to the simulated clock's now (while kept: ``changes``)."""
        now = simclock.now_us()
        if self._enabled and self.changes is not None:
            tick = 1_000_000 / self._freq  # µs
            while self._next <= now:
                self._next += self._exec(self.program[self._pc], self._next) * tick
        self._t = now
