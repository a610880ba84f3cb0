"""The CircuitPython lane: the deployed firmware on CircuitPython 10's own VM (host-only).

``../shared/circuitpython/`` (or ``$QK_CIRCUITPYTHON``) holds a static,
32-bit CircuitPython 10 unix build and CircuitPython's ``mpy-cross``. For a
build profile, ``Drive`` deploys the firmware into a folder exactly as
tools/maker/deploy.py does for a board (``.mpy`` from that ``mpy-cross``), then
runs the unedited ``code.py`` there, with that folder as the current
directory, stand-ins for the board's C modules (tools/lanes/vmboard,
tools/simulated/simboard), the modules that port lacks made absent (no
``audiomixer``, ``alarm`` or ``watchdog`` on the Express), and a pin script
played in simulated time. It returns the console lines with their times,
the same lines the CPython harness gives for the same script.

The runner keeps the VM as a board has it while the firmware runs: ``print``
and ``__import__`` are the VM's own (C, as on a board), not Python wrappers.
Each pass prints its time first (``@T``), so a console line is timed by the
pass that printed it. (A Python ``print`` wrapper made garbage on every line,
its ``*args`` tuples, and held more of it through its frames: it moved the
whole game's need between 14.3 and 18.2 KB with a few bytes of the runner's
own code, the lane's artefact, not the firmware's.) The import hook that makes
the port's missing modules absent and times the passes is taken off once
hardware/device.py is imported: the overlays load through the VM's own.

``min_heap`` finds the smallest ``-X heapsize`` (1 KB steps) in which the
script plays through with no MemoryError, and what the stand-ins held
before ``code.py`` ran: the firmware's own need is the difference. On the
Express ``neopixel`` is frozen into CircuitPython (its bytecode stays in
flash), so the runner imports it before that baseline.

The collector scans the C stack conservatively, so what the stack holds decides what
a collection keeps (issue 24, docs/express-heap.md): ``VARIANTS`` vary the call
structure around the firmware (the clock's and the pins' stand-ins as Python frames,
code.py run deeper, the stack written over before the loop, the runner's own length),
``Drive.run(pinned=)`` keeps small blocks from random moments on as stale words would
(``retention``), and ``Drive.run(probe=, heap_map=)`` pauses the VM to copy its stack,
heap and static data out for tools/lanes/cpheap.py.

Without the build, ``find()`` returns None and ``HOW_TO_GET`` says how to
make one (tools/lanes/build-circuitpython.sh fetches and builds CircuitPython).
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import paths  # noqa: E402  (tools/paths.py: every group of tools/ on the path)
from paths import ROOT  # noqa: E402
import deploy  # noqa: E402
from model import layout  # noqa: E402
HOW_TO_GET = (
    "CircuitPython 10 (unix, 32-bit) not found in ../shared/circuitpython beside the repo: "
    "set QK_CIRCUITPYTHON to a folder holding "
    "'circuitpython' and 'mpy-cross', or build them (internet, git, gcc-multilib, "
    "pip install huffman polib) with tools/lanes/build-circuitpython.sh [DEST], then "
    "export QK_CIRCUITPYTHON=DEST")
# The boards, from model/layout.py's BUILDS
BOOT_OUT = {p: layout.boot_out(p) for p in layout.BOARDS}
NVM_SIZE = layout.table("nvm")
# The board's C modules, stood in for: imported before the baseline, as on a board
# they cost no heap (their names are in its firmware, not in RAM)
C_MODULES = layout.table("has")
ABSENT = layout.table("lacks")
FROZEN = layout.table("frozen")
PASS_US = 1000
# Drive.need's layouts: (bytes held before code.py, bytes freed before it). Each shifts
# where the firmware's blocks land; a freed one leaves a hole below them, as a board's
# start-up can. Odd sizes from 0 to 2 KB, held alone and with holes: 16 layouts.
LAYOUTS = tuple((held, 0) for held in (0, 13, 47, 111, 229, 487, 1021, 2039)) + (
    (16, 31), (48, 95), (32, 237), (64, 499), (16, 1013), (112, 2031), (0, 733), (256, 1531))
STANDINS = (paths.VMBOARD, paths.SIMBOARD)
# Call-structure variants (issue 24): what the C stack holds when the collector scans it
# (conservatively: a stale word that looks like a pointer keeps its block). The layouts
# move where blocks land, never what the stack holds; these move the stack. Each is
# (name, clock frames, pin frames, code.py depth, scrub, runner bytes):
# ``supervisor.ticks_ms`` one Python function deep (the stand-in's own) or two; a
# ``DigitalInOut.value`` read a plain attribute (as cheap as a board's C property: 0) or
# a Python property one or two frames deep; ``code.py`` run at the runner's top level or
# that many Python calls deeper; the C stack below code.py's frame written over before
# the loop runs (a recursion ``SCRUB_CALLS`` deep) or left as start-up left it; and the
# runner's own code that many bytes longer (a constant: as a longer folder name moved the
# issue's check, it moves what the frames above code.py hold and where code.py's compile
# left its words). The first is the lane as it was; the last two are runner lengths that
# put the firmware as it was into the mode (start-up's garbage kept).
VARIANTS = (
    ("lane", 1, 0, 0, 0, 0),
    ("clock2", 2, 0, 0, 0, 0),
    ("pin1", 1, 1, 0, 0, 0),
    ("clock2-pin1", 2, 1, 0, 0, 0),
    ("clock2-pin2", 2, 2, 0, 0, 0),
    ("deep3", 1, 0, 3, 0, 0),
    ("clock2-pin1-deep3", 2, 1, 3, 0, 0),
    ("scrub", 1, 0, 0, 1, 0),
    ("clock2-pin1-scrub", 2, 1, 0, 1, 0),
    ("clock2-pin2-deep5-scrub", 2, 2, 5, 1, 0),
    ("runner+3", 1, 0, 0, 0, 3),
    ("clock2-pin1-runner+11", 2, 1, 0, 0, 11),
)
VARIANT = dict((v[0], v) for v in VARIANTS)
# The quick run (bench --quick, in the test command): every fourth layout, in a third of
# the variants (the lane's own, the deepest of each kind, the one that put the firmware as
# it was into the mode), and 8 of the retention test's 16 seeds (tests/test_cp.py
# runs all 16); the full bench runs them all
QUICK_LAYOUTS = LAYOUTS[::4]
QUICK_VARIANTS = tuple(VARIANT[n] for n in (
    "lane", "clock2-pin2", "clock2-pin2-deep5-scrub", "clock2-pin1-runner+11"))
# The Express: usable heap at code.py on a real 10.2.1 build (../shared/circuitpython/README.md)
EXPRESS_USABLE = int(15.9 * 1024)
PROBES = 32  # Drive.run(probe=...): at most so many
PINS = 96  # Drive.run(pinned=...): at most so many
SCRUB_CALLS = 48  # the scrub's depth: past the deepest the loop goes (an overlay's import)
# Stand-ins for what a board's firmware has frozen or in C: tools/lanes/cpboard (a frozen
# neopixel: the Express) or, elsewhere, the real library on the drive over a Python pixelbuf
CP_BOARD = {p: (paths.CPBOARD,) for p in layout.BOARDS if "neopixel" in FROZEN[p]}


def fixed_addresses(binary):
    """The command prefix that runs ``binary`` with its addresses fixed, as a board's are:
    ``setarch -R`` (no address randomisation). The collector scans the stack
    conservatively, so with the heap somewhere new each run a stale word sometimes
    matches a block and keeps it: the need moved by up to ~1 KB from one run to the next
    of the same script. [] where setarch is missing or not allowed (then it may)."""
    if binary not in _FIXED:
        _FIXED[binary] = []
        setarch = shutil.which("setarch")
        if setarch:
            try:
                r = subprocess.run([setarch, "-R", binary, "-c", "print(1)"],
                                   capture_output=True, text=True, timeout=30)
                if r.returncode == 0 and r.stdout.strip() == "1":
                    _FIXED[binary] = [setarch, "-R"]
            except (OSError, subprocess.SubprocessError):
                pass
    return _FIXED[binary]


_FIXED = {}


def find():
    """The folder with CircuitPython's ``circuitpython`` and ``mpy-cross``, or None."""
    for folder in (os.environ.get("QK_CIRCUITPYTHON"),
                   os.path.join(os.path.dirname(ROOT), "shared", "circuitpython")):
        if folder and all(os.access(os.path.join(folder, p), os.X_OK)
                          for p in ("circuitpython", "mpy-cross")):
            return folder
    return None


# The program the VM runs: stand-ins, the pin script, then code.py itself.
# What every program run on the VM starts with: the stand-ins as the build has them (its
# C modules, what it lacks absent), its nvm, the pins' idle levels and script.
PRELUDE = """\
import sys, gc, builtins
import simclock, simpins, board, microcontroller, _audioout, _wavefile, _quittime
if 'audiomixer' not in %(absent)r:
    import _mixer
board.use(%(profile)r, %(board_id)r)
_audioout.record = False
sys.modules['audiocore'] = _wavefile
if 'audiomixer' not in %(absent)r:
    sys.modules['audiomixer'] = _mixer
sys.modules['time'] = _quittime
microcontroller.nvm = bytearray(%(nvm)r)
for pin_name, level in %(idle)r:
    simpins.set_idle(getattr(board, pin_name).id, level)
for t_us, pin_name, level in %(steps)r:
    simpins.schedule(getattr(board, pin_name).id, t_us, level)
for name in %(frozen)r + %(cmods)r:
    __import__(name)
_ABSENT = %(absent)r
_import = builtins.__import__
"""
RUNNER = PRELUDE + """\
_print = builtins.print
_END_US = %(end_us)d
_state = [None, None]  # Device.poll and Device.crash, the firmware's own
e = None  # (bound now: binding it in the handler below would grow the globals, on a full heap)


def _poll(self):  # one pass, its time first: the console lines after it are of this pass
    global _MAP
    _print('@T', simclock.now_us() // 1000)
    try:
        _state[0](self)
    finally:
        simclock.advance_us(%(pass_us)d)
    if simclock.now_us() >= _END_US:
        raise SystemExit
    while simclock.now_us() >= _PIN_T[_pin[0]]:  # a block kept from now on (Drive.run(pinned=))
        _PINNED[_pin[0]] = (None,) * _PIN_N[_pin[0]]
        _pin[0] += 1
    if simclock.now_us() >= _PROBE[0]:  # (diagnosis only: Drive.run(probe=))
        _PROBE.pop(0)
        _PROBE.append(0x3FFFFFFF)
        if _MAP:  # the C stack before the collection, below where it scans from here too
            _stack(0)
        gc.collect()
        _print('@LIVE', simclock.now_us() // 1000, gc.mem_alloc())
        if _MAP:
            micropython.mem_info(1)
            _stack(0x1234567)
            _MAP = 0


def _crash(self, e):
    global _MAP
    if _MAP:
        _MAP = 0
        _print('@LIVE', simclock.now_us() // 1000, gc.mem_alloc())
        micropython.mem_info(1)
        _stack(0x1234567)
    if self:
        _state[1](self, e)


def _stack(mark):  # the runner pauses; the host copies the C stack, the heap and static
    _print('@DUMP', mark << 1 | 1)  # data out of this process (mark: 0 the stack alone)
    _STDIN.readinto(_BUF)  # (allocates nothing: it works on a full heap too)


def _imp(name, *args):
    if name in _ABSENT:
        raise ImportError("no module named '%%s'" %% name)
    m = _import(name, *args)
    if name == 'hardware.device' and _state[0] is None:
        cls = sys.modules['hardware.device'].Device
        _state[0] = cls.poll
        cls.poll = _poll
        _state[1] = cls.crash
        if _MAP == 2:  # the heap as the first fault finds it (diagnosis: heap_map='fault')
            cls.crash = _crash
        builtins.__import__ = _import  # from here on the VM's own import, as on a board
        if _SCRUB:  # the C stack below code.py's frame overwritten before the loop runs
            _scrub(_SCRUB)
    return m


def _nvm():  # the nvm as the run leaves it, in pieces: the heap may be nearly full
    _print('@NVM', end=' ')
    for i in range(0, len(microcontroller.nvm), 16):
        _print(bytes(microcontroller.nvm[i:i + 16]).hex(), end='')
    _print()


builtins.__import__ = _imp
import micropython
_PROBE = %(probe)r
_PIN_T = %(pin_t)r
_NOISE = %(noise)r  # (the runner's own bytes longer: VARIANTS; Drive.run(noise=))
_MAP = %(heap_map)r
_BUF = bytearray(1)
_STDIN = sys.stdin
_PIN_N = %(pin_n)r
_PINNED = [None] * len(_PIN_T)
_pin = [0]
_MAP = %(heap_map)r
_V = %(variant)r  # (clock frames, pin frames, code.py depth, scrub): VARIANTS, numbers only
# (a name would be one more qstr in some variants: Drive.fill counts them once)
import supervisor, digitalio  # (every variant makes the same objects: the same layout)


def _tick2():  # the clock two Python frames deep
    return _tick1()


_tick1 = supervisor.ticks_ms
supervisor.ticks_ms = _tick2 if _V[0] == 2 else _tick1


def _pin0(self):  # a pin read one Python frame deep (a property)
    return self._v


def _pin1(self):  # ... or two
    return _pin0(self)


def _pinset(self, v):
    self._v = v


class _IO(digitalio.DigitalInOut):
    value = property(_pin1 if _V[1] == 2 else _pin0, _pinset)


digitalio.DigitalInOut = _IO if _V[1] else _IO.__bases__[0]


def _code(n):  # code.py run n Python calls deeper
    if n > 1:
        return _code(n - 1)
    execfile('code.py')


def _scrub(n, a=0, b=0, c=0, d=0):  # each call's frames overwrite the C stack below
    if n > 1:
        _scrub(n - 1, 0, 0, 0, 0)


_SCRUB = _V[3] and %(scrub_calls)d
_Q = type('_Q', (), {})
for i in range(%(fill)d):  # the stand-ins fill their qstr pools and start one more (fill())
    setattr(_Q, '_q%%d' %% i, 0)
_Q = None
_hole = bytearray(%(hole)d)  # freed before code.py: a hole the firmware's blocks fill
_pad = bytearray(%(pad)d)  # held: shifts where the firmware's blocks land (Drive.need)
_hole = None
import micropython
_print('@QSTR', end=' ')
micropython.qstr_info(%(verbose)s)
gc.collect()
_print('@BASE', gc.mem_alloc(), gc.mem_alloc() + gc.mem_free())
try:
    %(code_py)s
except SystemExit:
    pass
except BaseException as e:  # supervisor.reload(): a board runs code.py again (Drive.run)
    if type(e).__name__ != 'ReloadRequested':
        if _MAP == 2:  # (a fault out of code.py itself: start-up's)
            _crash(None, e)
        raise
    _print('@RELOAD', simclock.now_us() // 1000)
gc.collect()
_nvm()
gc.collect()
_print('@END', gc.mem_alloc())
_print('@QSTR', end=' ')
micropython.qstr_info(%(verbose)s)
"""


class Drive:
    """A folder laid out like the build's CIRCUITPY drive after a deploy."""

    def __init__(self, profile, folder=None, settings=""):
        self.cp = find()
        if self.cp is None:
            raise RuntimeError(HOW_TO_GET)
        self.profile = profile
        self._fill = None
        self._heaps = {}
        self.path = folder or tempfile.mkdtemp(prefix="qk-cp-%s-" % profile)
        with open(os.path.join(self.path, "boot_out.txt"), "w") as f:
            f.write(BOOT_OUT[profile])
        if settings:  # text, or bytes as they are on the drive
            with open(os.path.join(self.path, "settings.toml"),
                      "wb" if isinstance(settings, bytes) else "w") as f:
                f.write(settings)
        deploy.deploy(self.path, os.path.join(self.cp, "mpy-cross"), out=lambda *a: None)
        self.standins = tempfile.mkdtemp(prefix="qk-cp-standins-")
        for src in STANDINS:
            for f in os.listdir(src):
                if f.endswith(".py") and f not in ("audiocore.py", "audiomixer.py", "time.py"):
                    shutil.copy(os.path.join(src, f), self.standins)
        for src in CP_BOARD.get(profile, ()):
            for f in os.listdir(src):
                if f.endswith(".py"):
                    shutil.copy(os.path.join(src, f), self.standins)
        if profile not in CP_BOARD:  # the board's pixelbuf is C: a Python one stands in
            shutil.copy(deploy.library_source("adafruit_pixelbuf"), self.standins)
        for f in os.listdir(self.standins):  # as .mpy: less of the heap, fragmented less
            src = os.path.join(self.standins, f)
            subprocess.run([os.path.join(self.cp, "mpy-cross"), "-s", f, "-o", src[:-3] + ".mpy",
                            src], check=True, capture_output=True)
            os.remove(src)

    def fill(self):
        """How many names the runner makes before ``code.py`` to fill the stand-ins'
        qstr pools and start one more. MicroPython's qstr pools double (20, 40, 80, ...
        entries: its mpy-tool and qstr.c make the first one a board allocates 20). On a
        board the firmware's names start in those first pools; here the stand-ins'
        names come first, so the firmware's would land wherever they happen to end.
        So the stand-ins pay for the lane's pools, and ``samd21_pools`` adds what the
        firmware's own names take on the Express."""
        if self._fill is None:
            self._fill = 0
            self._fill = _fill_for(self.run([], 1)[2]) + 1
        return self._fill

    def run(self, steps, end_ms, heap_kb=None, nvm=None, timeout=120, heap=None, pad=(0, 0),
            verbose=False, variant=VARIANTS[0], probe=(), heap_map=False, pinned=(), noise=0):
        """Play ``steps`` [(t_ms, pressed, control)] until ``end_ms``: (lines, base, output,
        ok), ``lines`` as "t_ms line" like ``Scenario.canonical()``; base: the stand-ins'
        bytes. The heap: ``heap_kb`` KB or ``heap`` bytes (default: the VM's); ``pad``: the
        layout, (bytes held, bytes freed) before code.py runs (``LAYOUTS``).
        ``self.usable``: the heap less the allocator's tables. ``self.reload_ms``: when the
        firmware called ``supervisor.reload()`` (the run ends there; None if it did not).
        ``self.nvm``: the nvm as the run left it (a board's next run starts with it).
        ``verbose``: also ``self.new_names``, the names (qstrs) the VM interned while
        code.py ran, in order. ``variant``: the call structure (``VARIANTS``). ``probe``:
        simulated times (ms) after whose pass the runner collects and records the live
        bytes in ``self.live`` [(t_ms, bytes)] (and with ``heap_map`` the heap's block map
        in ``self.maps``, the C stack and the heap's bytes in ``self.memory``; "fault": at
        the first fault instead, before its report allocates): a diagnosis, which changes
        what it measures. ``pinned``: [(t_ms,
        bytes)], at most ``PINS``: after the pass at t_ms the runner allocates a block of
        that many bytes (16 to 64: a tuple of Nones) and keeps it to the end, as a stale
        word on the stack keeps a dead block (``pin_schedule``). ``noise``: the runner
        that many bytes longer again (as ``VARIANTS``' last field)."""
        import simprofiles

        prof = simprofiles.profile(self.profile)
        idle = []
        pins = {}
        for control in ("klaxon", "a", "b"):
            if prof[control]:
                pins[control] = prof[control]
                idle.append((prof[control][0], not prof[control][1]))
        if prof["switch"]:
            idle.append((prof["switch"][0], not prof["switch"][1]))
        script = [(t * 1000, pins[c][0], pins[c][1] if down else not pins[c][1])
                  for t, down, c in steps if c in pins]
        code = RUNNER % {
            "profile": self.profile, "board_id": layout.BY_PROFILE[self.profile]["board_id"],
            "idle": idle, "steps": script, "end_us": end_ms * 1000,
            "pass_us": PASS_US, "absent": ABSENT[self.profile],
            "frozen": FROZEN.get(self.profile, ()), "cmods": C_MODULES[self.profile],
            "fill": self.fill(), "pad": pad[0], "hole": pad[1],
            "verbose": "1" if verbose else "",  # (with any argument, qstr_info lists them)
            "variant": tuple(variant[1:5]), "scrub_calls": SCRUB_CALLS,
            "code_py": "_code(%d)" % variant[3] if variant[3] else "execfile('code.py')",
            # (always PROBES long and the same code: a probe changes no layout before it)
            "probe": [t * 1000 for t in probe][:PROBES] + [0x3FFFFFFF] * (PROBES - len(probe)),
            "heap_map": 2 if heap_map == "fault" else int(bool(heap_map)),
            "noise": "x" * (noise + variant[5]),
            "pin_t": [t * 1000 for t, _ in pinned] + [0x3FFFFFFF] * (PINS + 1 - len(pinned)),
            "pin_n": [(n - 8) // 4 for _, n in pinned] + [0] * (PINS + 1 - len(pinned)),
            "nvm": bytes(nvm) if nvm is not None else b"\xff" * NVM_SIZE[self.profile]}
        if len(pinned) > PINS or len(probe) > PROBES or any(
                not 16 <= n <= 64 for _, n in pinned):
            raise ValueError("at most %d pins of 16 to 64 bytes and %d probes" % (PINS, PROBES))
        runner = os.path.join(self.standins, "_runner.py")
        with open(runner, "w") as f:
            f.write(code)
        cmd = fixed_addresses(os.path.join(self.cp, "circuitpython")) + [
            os.path.join(self.cp, "circuitpython")]
        if heap_kb or heap:
            cmd += ["-X", "heapsize=%d" % (heap or heap_kb * 1024)]
        cmd.append(runner)
        # the drive is the current folder, as on a board: modules' names are relative
        env = dict(os.environ, MICROPYPATH=":".join((".", "lib", self.standins)))
        self.memory = {}  # {address: bytes}: the C stack, heap and static data at the dump
        self.before = {}  # {address: bytes}: the C stack before the first probe's collection
        self.regions = []  # where the copies start: the C stack, the heap, static data
        self.mark = None
        if heap_map:
            r = self._paused(cmd, env, timeout)
        else:
            r = subprocess.run(cmd, cwd=self.path, env=env, capture_output=True, text=True,
                               timeout=timeout)
        lines = []
        base = None
        t = None  # the time of the pass printing now (ms), None outside code.py
        self.reload_ms = None  # when the firmware asked for supervisor.reload(), if it did
        self.nvm = None  # microcontroller.nvm at the end, to start the next run with
        self.live = []  # (t_ms, live bytes) at each probe
        self.maps = []  # the heap's block map at each probe (heap_map)
        in_map = False
        self.banner = None  # code.py's version line (version.txt), if it printed one
        for line in r.stdout.splitlines():
            in_map = in_map and not line.startswith("@")
            if line.startswith("@BASE "):
                base = int(line.split()[1])
                self.usable = int(line.split()[2])
                t = "0"  # start-up's lines come before the first pass
            elif line.startswith("@T "):
                t = line[3:]
            elif line.startswith("@RELOAD "):
                self.reload_ms = int(line.split()[1])
            elif line.startswith("@NVM "):
                self.nvm = bytes.fromhex(line[5:])
                t = None
            elif line.startswith("@LIVE "):
                self.live.append(tuple(int(x) for x in line.split()[1:]))
                if heap_map:
                    self.maps.append([])  # the map's lines, until the next pass's
                    in_map = True
            elif self.maps and in_map:
                self.maps[-1].append(line)
            elif line.startswith("@END"):
                t = None
            elif t == "0" and not lines and deploy.VERSION_LINE.match(line):
                self.banner = line  # code.py's first line, the version: not the device's
            elif t is not None:
                lines.append("%s %s" % (t, line))
        ok = r.returncode == 0 and base is not None and "@END" in r.stdout and \
            "MemoryError" not in r.stdout + r.stderr
        self.names = None  # the firmware's own names (qstrs): the pool's count at the end, less at the start
        if ok:
            q = [int(x.split(",")[0]) for x in r.stdout.split("n_qstr=")[1:]]
            self.names = q[-1] - q[0]
        if ok and verbose:  # qstr_info(1): every dynamic qstr, a "Q(name)" line
            dumps = r.stdout.split("\n@QSTR qstr pool:")  # (the names "@QSTR" and "@BASE"
            had = set(_dumped(dumps[0].split("\n@BASE ")[0]))  # are in the dumps too)
            self.new_names = [n for n in _dumped(dumps[-1]) if n not in had]
        return lines, base, r.stdout + r.stderr, ok

    def _paused(self, cmd, env, timeout):
        """Run ``cmd`` as ``run`` does, and at each ``@DUMP`` line (the runner waits on its
        stdin) copy the VM's C stack (its last 16 KB), its heap and its static data out of
        the process (/proc/PID/mem: the VM itself reads and allocates nothing), then let
        it go on. A CompletedProcess, stderr in stdout."""
        import time

        p = subprocess.Popen(cmd, cwd=self.path, env=env, stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        out = []
        heap = None
        end = time.monotonic() + timeout
        try:
            for line in p.stdout:
                out.append(line)
                if line.startswith("GC memory layout; from "):
                    heap = int(line.split("from ")[1].rstrip(":\n"), 16)
                elif line.startswith("GC: total: "):
                    total = int(line.split()[2].rstrip(","))
                elif line.startswith("@DUMP "):
                    mark = int(line.split()[1])
                    self._copy(p.pid, mark, heap, total if heap else 0)
                    p.stdin.write("\n")
                    p.stdin.flush()
                if time.monotonic() > end:
                    raise subprocess.TimeoutExpired(cmd, timeout)
            p.wait(timeout=max(1, end - time.monotonic()))
        finally:
            if p.poll() is None:
                p.kill()
                p.wait()
        return subprocess.CompletedProcess(cmd, p.returncode, "".join(out), "")

    def _copy(self, pid, mark, heap, total):
        """Copy process ``pid``'s memory for ``run(heap_map=...)`` (see ``_paused``)."""
        with open("/proc/%d/maps" % pid) as f:
            maps = [line.split() for line in f]
        stack, heaps, statics = [], [], []
        for i, m in enumerate(maps):
            lo, hi = (int(x, 16) for x in m[0].split("-"))
            if m[-1] == "[stack]":
                stack = [(hi - 16384, hi)]
            elif mark > 1 and heap and lo <= heap < hi:
                heaps = [(heap, heap + total)]
            elif mark > 1 and "rw-p" in m[1] and (
                    m[-1].endswith("circuitpython") or len(m) == 5 and i and
                    maps[i - 1][-1].endswith("circuitpython")):
                statics.append((lo, hi))  # static data: .data, then .bss
        spans = stack + heaps + statics
        with open("/proc/%d/mem" % pid, "rb") as f:
            for lo, hi in spans:
                f.seek(lo)
                data = f.read(hi - lo)
                (self.memory if mark > 1 else self.before)[lo] = data
        if mark > 1:
            self.mark = mark
            self.regions = [lo for lo, _ in spans]

    def heap_for(self, room, steps=(), pad=(0, 0), variant=VARIANTS[0], pinned=()):
        """The ``-X heapsize`` that leaves the firmware ``room`` usable bytes above what
        the stand-ins hold before code.py (the allocator's tables off), for a run with
        these arguments (the script and the pins are the runner's: its baseline): what
        a board with ``room`` bytes free at code.py is, here."""
        base = self.run(steps, 1, pad=pad, variant=variant, pinned=pinned)[1]
        if base is None:
            raise RuntimeError("the runner does not start")
        want = base + room
        # the usable heap grows with -X heapsize (less the tables), the same for any script
        low, high = want, want * 11 // 10
        while self._usable(high) < want:
            high *= 2
        while high - low > 1:
            mid = (low + high) // 2
            low, high = (mid, high) if self._usable(mid) < want else (low, mid)
        return high

    def _usable(self, heap):
        if heap not in self._heaps:
            self.run([], 1, heap=heap)
            self._heaps[heap] = self.usable
        return self._heaps[heap]

    def min_heap(self, steps, end_ms, expect, span=48):
        """(smallest heap in KB where the script gives the console lines ``expect``, the
        stand-ins' bytes before code.py, the firmware's names); None for the KB when even
        the stand-ins and ``span`` KB more fail. The issue's measure, as it was first
        stated: ``need`` is the finer one."""
        base = self.run([], 1)[1]
        low = base // 1024 + 1
        high = low + span
        found = names = None
        while low <= high:
            mid = (low + high) // 2
            lines, b, _, ok = self.run(steps, end_ms, heap_kb=mid)
            if ok and lines == expect:
                found, base, names = mid, b, self.names
                high = mid - 1
            else:
                low = mid + 1
        return found, base, names

    def need(self, steps, end_ms, expect, pads=LAYOUTS, step=64, nvm=None,
             variants=VARIANTS[:1], pinned=()):
        """The firmware's peak heap need in bytes: the worst over ``variants`` (call
        structures, ``VARIANTS``) and ``pads`` (layouts) of the smallest usable heap (the
        heap less the allocator's tables, in ``step`` bytes) in which, and in each of the
        next 512 B, the script gives the console lines ``expect`` (bisected, then that
        window checked), less what the stand-ins hold before code.py; plus the qstr pools
        the Express allocates for the firmware's names (``samd21_pools``). Returns (need,
        [per variant and layout, layouts first], names); ``self.per_variant``: {variant's
        name: [per layout]}. ``nvm``: the board's nvm at power-on (a saved game to
        resume), as ``run`` takes it; ``pinned``: blocks kept during play, as ``run``.

        Why not the heap size in 1 KB steps: the stand-ins hold ~20 KB, whose share of
        the allocator's tables (3%%: ~0.6 KB) is not the firmware's, and 1 KB steps round
        up by as much again. Where blocks land decides what fits (fragmentation), and a
        board lays them out otherwise: each layout shifts them, and the worst counts; what
        the C stack holds decides what a collection keeps: each variant moves that."""
        per = []
        names = 0
        self.per_variant = {}
        for variant in variants:
            self.per_variant[variant[0]] = []
            for pad in pads:
                n, used = self._need_one(steps, end_ms, expect, pad, step, nvm, variant, pinned)
                names = max(names, n)
                self.per_variant[variant[0]].append(used)
                per.append(used)
        return max(per) + samd21_pools(names)[0], per, names

    def _need_one(self, steps, end_ms, expect, pad, step, nvm, variant, pinned):
        """(names, bytes) of ``need`` in one layout and variant."""
        def plays(h):
            lines, b, _, ok = self.run(steps, end_ms, heap=h, pad=pad, nvm=nvm,
                                       variant=variant, pinned=pinned)
            return (b, self.usable, self.names) if ok and lines == expect else None

        # the bisection's bounds from what the stand-ins hold: the firmware needs over
        # 8 KB and (here) under 32 KB, the tables ~3%% more
        b0 = self.run(steps, 1, pad=pad, variant=variant, pinned=pinned)[1]
        low, high = (b0 + 8192) * 103 // 100, (b0 + 32768) * 105 // 100
        got = plays(high)
        while got is None and high < 512 * 1024:
            low, high = high, high * 2
            got = plays(high)
        if got is None:
            raise RuntimeError("the script fails even in %d bytes of heap" % high)
        while high - low > step:
            mid = (low + high) // 2
            r = plays(mid)
            if r:
                high, got = mid, r
            else:
                low = mid
        # More heap does not always help (where blocks land): the need is the smallest
        # heap from which the next 512 B all play too, so a lucky size is not the measure
        h = high
        names = got[2]
        while h < high + 512:
            h += step
            r = plays(h)
            if r is None:
                high = h + step  # (a candidate: it is run next, as the window's first)
                h = high - step
            else:
                names = max(names, r[2])
                if h == high:
                    got = r
        return max(names, got[2]), got[1] - got[0]

    def close(self):
        shutil.rmtree(self.path, ignore_errors=True)
        shutil.rmtree(self.standins, ignore_errors=True)


# The firmware's heap, part by part: what each module holds once imported (bytecode,
# names, its objects), then what start-up leaves (the parts), then a Klaxon.
BREAKDOWN = PRELUDE + """\
_print = builtins.print


def _imp(name, *args):
    if name in _ABSENT:
        raise ImportError(name)
    return _import(name, *args)


builtins.__import__ = _imp
builtins.print = lambda *a, **k: None
_last = [0]
_Q = type('_Q', (), {})
for i in range(%(fill)d):  # as in RUNNER
    setattr(_Q, '_q%%d' %% i, 0)
_Q = None


import micropython


def _step(what):
    gc.collect()
    now = gc.mem_alloc()
    _print('@QSTR', end=' ')
    micropython.qstr_info()
    _print('@PART', what, now - _last[0])
    _last[0] = now


_step('stand-ins')
for name in %(modules)r:
    __import__(name)
    _step(name)
import hardware.settings
p = hardware.settings.read()
sys.modules.pop('hardware.settings')  # as code.py's settings() frees it
del sys.modules['hardware'].settings
_step('hardware.settings (what it read)')
import hardware.start
p = hardware.start.start(p)
_step('hardware.start (objects after it)')
import hardware.outputs
p = hardware.outputs.start(p)
_step('hardware.outputs (objects after it)')
import qiklaxon.restore
p = qiklaxon.restore.restore(p)
_step('qiklaxon.restore (objects after it)')
import hardware.device
_step('hardware.device')
d = hardware.device.Device(p)
del p
_step('the Device')
simpins.schedule(getattr(board, %(klaxon)r).id, simclock.now_us() + 100, %(pressed)r)
for i in range(20):
    d.poll()
    simclock.advance_us(1000)
_step('the first Klaxon (audio buffers)')
"""
BREAKDOWN_MODULES = ("adafruit_ticks", "adafruit_debouncer", "qiklaxon", "qiklaxon.core",
                     "hardware")


FIGURES = "QK_FIGURES"  # a folder: what the lane's tests measured, for the bench after them


def share(name, value):
    """Keep what a test of this lane measured (JSON) where tools/quality/bench.py --quick, run
    next by the test command (tools/dev.py sets QK_FIGURES), reads it instead of
    measuring it again."""
    folder = os.environ.get(FIGURES)
    if folder:
        os.makedirs(folder, exist_ok=True)
        with open(os.path.join(folder, name + ".json"), "w") as f:
            json.dump(value, f)


def shared(name):
    """What ``share`` kept in this run, or None."""
    folder = os.environ.get(FIGURES)
    path = os.path.join(folder, name + ".json") if folder else None
    if path and os.path.exists(path):
        with open(path) as f:
            return json.load(f)
    return None


def retention(drive, steps, end_ms, expect, seeds=16, total=1536, names=None):
    """Issue 24's retention test: for each seed, a call-structure variant and a layout
    (taken in turn) and ``total`` bytes of 16-64 B blocks pinned at random moments
    (``pin_schedule``), in a heap that leaves the firmware the Express's usable heap
    less the qstr pools its ``names`` take there. [(seed, variant's name, layout,
    played: the console lines ``expect`` with no restart, when it restarted (ms) or
    None, the first fault line or None)]."""
    if names is None:
        drive.run(steps, end_ms)
        names = drive.names
    room = EXPRESS_USABLE - samd21_pools(names)[0]
    out = []
    for seed in range(seeds):
        variant = VARIANTS[seed % len(VARIANTS)]
        pad = LAYOUTS[seed % len(LAYOUTS)]
        pins = pin_schedule(seed, end_ms, total)
        heap = drive.heap_for(room, steps, pad=pad, variant=variant, pinned=pins)
        lines, _, _, ok = drive.run(steps, end_ms, heap=heap, pad=pad, variant=variant,
                                    pinned=pins)
        fault = [line for line in lines if " fault: " in line or " out of memory" in line]
        out.append((seed, variant[0], pad, ok and lines == expect and drive.reload_ms is None,
                    drive.reload_ms, fault[0] if fault else None))
    return out


def pin_schedule(seed, end_ms, total=1536, start_ms=100):
    """[(t_ms, bytes)] for ``Drive.run(pinned=)``: blocks of 16 to 64 bytes at seeded random
    moments from ``start_ms`` to ``end_ms``, up to ``total`` bytes in all (issue 24's
    retention test: what stale words on the stack could keep)."""
    import random

    rng = random.Random(seed)
    out = []
    left = total
    while left >= 16 and len(out) < PINS:
        n = rng.choice((16, 32, 48, 64))
        if n > left:
            n = left // 16 * 16
        out.append((rng.randrange(start_ms, end_ms), n))
        left -= n
    return sorted(out)


def _fill_for(out):
    """How many more names fill the qstr pools that ``out``'s first qstr_info shows."""
    line = out[out.index("@QSTR"):]
    q = int(line.split("n_qstr=")[1].split(",")[0])
    n = int(line.split("n_pool=")[1].split(",")[0])
    return 20 * (2 ** n - 1) - q


def breakdown(drive, fill=None):
    """[(part, bytes, qstr pool bytes after it)] of the firmware's heap on ``drive``'s build
    (see BREAKDOWN)."""
    import simprofiles

    prof = simprofiles.profile(drive.profile)
    idle = [(prof[c][0], not prof[c][1]) for c in ("klaxon", "a", "b") if prof[c]]
    if prof["switch"]:
        idle.append((prof["switch"][0], not prof["switch"][1]))
    code = BREAKDOWN % {
        "profile": drive.profile, "board_id": layout.BY_PROFILE[drive.profile]["board_id"],
        "nvm": b"\xff" * NVM_SIZE[drive.profile], "idle": idle,
        "steps": [],
        "frozen": FROZEN.get(drive.profile, ()), "cmods": C_MODULES[drive.profile],
        "fill": fill or 0,
        "absent": ABSENT[drive.profile],
        "modules": BREAKDOWN_MODULES, "klaxon": prof["klaxon"][0], "pressed": prof["klaxon"][1]}
    path = os.path.join(drive.standins, "_breakdown.py")
    with open(path, "w") as f:
        f.write(code)
    env = dict(os.environ, MICROPYPATH=":".join((".", "lib", drive.standins)))
    vm = os.path.join(drive.cp, "circuitpython")
    r = subprocess.run(fixed_addresses(vm) + [vm, path], cwd=drive.path, env=env,
                       capture_output=True, text=True, timeout=120)
    out = []
    q = None
    for line in r.stdout.splitlines():
        if line.startswith("@QSTR "):
            q = (int(line.rsplit("n_total_bytes=", 1)[1]), int(line.split("n_qstr=")[1].split(",")[0]), int(line.split("n_pool=")[1].split(",")[0]))
        if line.startswith("@PART "):
            what, n = line[6:].rsplit(" ", 1)
            out.append((what, int(n), q))
    if r.returncode:
        raise RuntimeError(r.stdout + r.stderr)
    if fill is None:  # again, with the stand-ins' pools filled as RUNNER fills them
        return breakdown(drive, _fill_for(r.stdout) + 1)
    return out


def _dumped(text):
    """The names a ``micropython.qstr_info(1)`` dump in ``text`` lists."""
    return [line[2:-1] for line in text.splitlines() if line.startswith("Q(") and
            line.endswith(")")]


# ---------------------------------------------------------------- names as a budget
# The Express's qstr pools (CircuitPython 10 on the SAMD21, 32-bit): a pool is a 20-byte
# header (prev, total_prev_len, alloc, len, the hashes' and lengths' pointers) and 5 bytes
# an entry (its pointer, a 1-byte hash, a 1-byte length), in the heap's 16-byte blocks.
# The first a board allocates has 20 entries, each next one twice the last: 20, 40, 80,
# 160, so 140 names fit in the first three and the 141st allocates 160 entries (+832 B).
# (The unix build's are 7 bytes an entry and a 24-byte header: the lane's own pools are
# the stand-ins', ``Drive.fill``.)
SAMD21_POOL = (20, 5, 16)  # header bytes, bytes an entry, block bytes
NAMES_BUDGET = 130  # the brief: a whole game's names, ten short of the 141st
# Names of the firmware whose place in the Express's ROM was read from a real
# CircuitPython 10.2.1 build for the board (issue 18): in it, and not.
EXPRESS_ROM_IN = ("SPEAKER", "duty_cycle", "monotonic", "Optional", "typing")
EXPRESS_ROM_OUT = ("interval", "rose", "fell", "Union", "Callable")
# Names of the Express's own C modules the firmware uses that the Pico lacks (audioio's
# output: the SAMD21's DAC), in its ROM as the module's API is
EXPRESS_API = ("AudioOut",)
PICO_ELF = os.path.join("pico", "firmware", "circuitpython-10.2.1-raspberry_pi_pico.elf")


def samd21_pools(names):
    """(bytes, entries) of the qstr pools the Express allocates for ``names`` names."""
    head, entry, block = SAMD21_POOL
    total = cap = 0
    size = 20
    while cap < names:
        total += (head + entry * size + block - 1) // block * block
        cap += size
        size *= 2
    return total, cap


def mpy_names(path):
    """The names a CircuitPython ``.mpy`` (v6) interns when it loads: its qstr table's
    strings (the static qstrs, in every port's ROM, come as numbers and are left out)."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:2] != b"C\x06":
        raise ValueError("%s is not a CircuitPython 10 .mpy" % path)
    i = 4

    def uint():
        nonlocal i
        v = 0
        while True:
            b = data[i]
            i += 1
            v = v << 7 | b & 0x7F
            if not b & 0x80:
                return v

    n_qstr = uint()
    uint()  # n_obj
    out = []
    for _ in range(n_qstr):
        n = uint()
        if n & 1:
            continue  # a static qstr
        n >>= 1
        out.append(data[i:i + n].decode())
        i += n + 1
    return out


def rom_names(elf):
    """Every qstr in a CircuitPython firmware's ROM pools (an ARM ELF with symbols): the
    const pool and those before it (the static qstrs). None when ``elf`` is absent."""
    import struct

    if not os.path.exists(elf):
        return None
    with open(elf, "rb") as f:
        data = f.read()
    phoff, = struct.unpack_from("<I", data, 28)
    phsize, phnum = struct.unpack_from("<HH", data, 42)
    segs = []
    for k in range(phnum):
        typ, off, vaddr, paddr, filesz = struct.unpack_from("<5I", data, phoff + k * phsize)
        if typ == 1:
            segs += [(vaddr, off, filesz), (paddr, off, filesz)]

    def at(addr):
        for base, off, n in segs:
            if base <= addr < base + n:
                return off + addr - base
        raise ValueError("address %#x is not in %s" % (addr, elf))

    # the symbol table: the pool's address
    shoff, = struct.unpack_from("<I", data, 32)
    shsize, shnum = struct.unpack_from("<HH", data, 46)
    secs = [struct.unpack_from("<10I", data, shoff + k * shsize) for k in range(shnum)]
    pool = None
    for sec in secs:
        if sec[1] == 2:  # SHT_SYMTAB
            strtab = secs[sec[6]]
            for k in range(sec[5] // 16):
                name, value = struct.unpack_from("<II", data, sec[4] + k * 16)
                o = strtab[4] + name
                if data[o:data.index(b"\0", o)] == b"mp_qstr_const_pool":
                    pool = value
    if pool is None:
        raise ValueError("%s has no mp_qstr_const_pool" % elf)
    out = []
    while pool:
        o = at(pool)
        prev, _, _, n = struct.unpack_from("<4I", data, o)
        for p in struct.unpack_from("<%dI" % n, data, o + 24):
            q = at(p)
            out.append(data[q:data.index(b"\0", q)].decode("utf-8", "replace"))
        pool = prev
    return out


def express_names(drive=None, steps=None, end_ms=None):
    """The firmware's names (interned strings) for a whole game (scenario.GAME) on the
    Express, as its RAM would hold them: {"names": count, "pool_bytes", "pools" (entries
    allocated), "headroom" (names left before the next pool), "budget", "ok",
    "listed": {how each was judged: [names]}}.

    What the lane knows, and how each name is judged:
    * the names the VM interned while code.py ran (``Drive.run(verbose=True)``), and the
      names of every deployed ``.mpy`` (their qstr tables: what a load interns): the
      firmware's names, those in the unix build's ROM included (there they cost nothing,
      on the Express maybe not);
    * in the Express's ROM, so free: the static qstrs (every port's: they come as
      numbers in a .mpy), ``EXPRESS_ROM_IN`` (read from a real Express build), the
      board's pin names and C modules (BUILDS' pins and has, as its ``board`` module and
      firmware have them; ``EXPRESS_API``), and the names of what its firmware has
      frozen (``neopixel``, its name and its own, compiled here: a frozen module's
      qstrs are in ROM);
    * not in it: ``EXPRESS_ROM_OUT``;
    * the rest is judged by the Pico's real 10.2.1 firmware's ROM (its ELF): a name in
      it is counted as in the Express's too ("rom by the Pico"; the ports share the
      core and digitalio, time, supervisor, microcontroller, audiocore); else counted.
      That is a guess for names only a module the Express lacks gives the Pico (keypad's
      ``interval`` was one: hence EXPRESS_ROM_OUT) and for names the Express's own
      frozen libraries give it; ``listed`` shows each so they can be checked. Without
      the Pico's ELF every such name counts (the safe side).

    ``steps``: the script (default: scenario.GAME's taps)."""
    import glob

    import scenario

    own = drive is None
    drive = drive or Drive("cpx")
    try:
        if steps is None:
            steps = scenario.taps(scenario.GAME)
        _, _, text, ok = drive.run(steps, end_ms or scenario.GAME_MS, verbose=True)
        if not ok:
            raise RuntimeError("the whole game fails on the lane:\n" + text[-2000:])
        made = list(drive.new_names)
        loaded = []
        for path in sorted(glob.glob(os.path.join(drive.path, "**", "*.mpy"), recursive=True)):
            loaded += mpy_names(path)
        frozen = set()
        for lib in layout.BY_PROFILE[drive.profile]["frozen"]:
            out = os.path.join(drive.standins, "_frozen_%s.mpy" % lib)
            subprocess.run([os.path.join(drive.cp, "mpy-cross"), "-o", out,
                            deploy.library_source(lib)], check=True, capture_output=True)
            frozen |= set(mpy_names(out))
        pico = rom_names(os.path.join(drive.cp, PICO_ELF))
    finally:
        if own:
            drive.close()
    names = []
    for n in made + loaded:
        if n not in names and not n.startswith("_q"):  # (the runner's pool fill)
            names.append(n)
    b = layout.BY_PROFILE[drive.profile]
    known = set(EXPRESS_ROM_IN) | set(EXPRESS_API) | set(b["pins"]) | set(b["has"]) | \
        set(b["frozen"]) | frozen
    listed = {"rom (known)": [], "rom by the Pico": [], "counted": [], "counted (known)": []}
    for n in names:
        if n in EXPRESS_ROM_OUT:
            listed["counted (known)"].append(n)
        elif n in known:
            listed["rom (known)"].append(n)
        elif pico is not None and n in pico:
            listed["rom by the Pico"].append(n)
        else:
            listed["counted"].append(n)
    count = len(listed["counted"]) + len(listed["counted (known)"])
    pool_bytes, cap = samd21_pools(count)
    return {"names": count, "pool_bytes": pool_bytes, "pools": cap, "headroom": cap - count,
            "to_141st": 140 - count, "budget": NAMES_BUDGET, "ok": count <= NAMES_BUDGET,
            "pico_rom": pico is not None, "listed": listed}


def where(name="budget", variant=VARIANTS[0], pads=QUICK_LAYOUTS, step=64):
    """What runs out first: for scenario ``name`` ("budget": start-up and a Klaxon; "game"),
    in each layout, the need (as ``Drive.need`` finds it) and the console's last line one
    ``step`` below it (the allocation that failed, and where). [(layout, need, line)]."""
    import scenario

    script, end = {"budget": (scenario.BUDGET, 3500),
                   "game": (scenario.GAME, scenario.GAME_MS)}[name]
    steps = scenario.taps(script)
    out = []
    d = Drive("cpx")
    try:
        expect = d.run(steps, end)[0]
        for pad in pads:
            used = d._need_one(steps, end, expect, pad, step, None, variant, ())[1]
            h = d.heap_for(used - step, steps, pad, variant)
            lines = d.run(steps, end, heap=h, pad=pad, variant=variant)[0]
            wrong = [x for x in lines if x not in expect] or ["(it plays: a lucky size)"]
            out.append((pad, used, wrong[-1]))
    finally:
        d.close()
    return out


if __name__ == "__main__":
    import argparse

    ap = argparse.ArgumentParser(prog="cpvm.py", description="The Express firmware on "
                                 "CircuitPython 10's unix VM: its names for a whole game (the "
                                 "default), or --where the heap runs out first.")
    ap.add_argument("--where", nargs="*", metavar="WHAT", help="[budget|game] [variant: %s]: "
                    "each quick layout's need and the allocation that failed 64 B below it"
                    % ", ".join(VARIANT))
    a = ap.parse_args()
    if a.where is not None:
        args = a.where + ["budget", "lane"][len(a.where):]
        if len(args) > 2 or args[0] not in ("budget", "game") or args[1] not in VARIANT:
            ap.error("--where [budget|game] [%s]" % "|".join(VARIANT))
        for pad, used, line in where(args[0], VARIANT[args[1]]):
            print("layout %s: needs %d B; 64 B less: %s" % (pad, used, line))
        sys.exit(0)
    r = express_names()
    for k, v in r["listed"].items():
        print("%s (%d): %s" % (k, len(v), " ".join(v)))
    print("names for a whole game on the Express: %(names)d (budget <= %(budget)d); pools "
          "%(pools)d entries, %(pool_bytes)d B; %(to_141st)d to the 141st" % r)
