"""The Pico lane: the deployed firmware on CircuitPython 10.2.1's real firmware for the
Raspberry Pi Pico, in the rp2040js emulator (host-only).

``../shared/circuitpython/pico/`` (or ``$QK_PICO_KIT``) is the kit: the firmware
(``.uf2`` with its ``.elf``), the RP2040 boot ROM and its runner ``run.mjs``, used
where it is (never copied: it may be read-only). rp2040js is the npm package pinned
in tools/lanes/pico/package-lock.json, installed into tools/lanes/pico/node_modules with
``npm ci`` (``install()``), or the folder in ``$RP2040JS``.

``Drive`` deploys the Pico build into a temporary folder exactly as tools/maker/deploy.py
does for a board (``.mpy`` from CircuitPython's mpy-cross where the CircuitPython
lane's build is, see tools/lanes/cpvm.py), with the scenario's settings.toml, and makes
the CIRCUITPY image of it (as run.mjs makes one, but labelled QIKLAXON, as boot.py
leaves the drive after the board's first start: see ``Drive.image``). ``run()``
plays the harness's pin scripts (``scenario.taps()`` steps: GP16 the Klaxon, GP17 A,
GP18 B, to GND, released to the pull-up) through ``run.mjs --json`` and returns what
it printed (``Run``): console lines, PWM, GPIO, WS2812 frames, flash operations,
resets and sleeps, each at its emulated time.

Time: run.mjs counts from the chip's reset; CircuitPython starts ``code.py`` about
1.31 s later and the device's loop runs some 40 ms after that. The harness's device
starts at 0 (its power-on). A script is played ``OFFSET`` ms late, and a run's
times are given back less ``OFFSET``, so they read as the harness's.

``harness_lines()`` is the harness's console for the same settings and script
(tools/simulated/harness.py ``Sim`` on the Pico profile), to compare with.
"""

import contextlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
from concurrent.futures import ThreadPoolExecutor

import cpvm  # noqa: E402
import deploy  # noqa: E402
import paths  # noqa: E402
from paths import ROOT  # noqa: E402
HERE = os.path.join(paths.TOOLS, "lanes", "pico")  # package.json, package-lock.json, node_modules
PACKAGE = "rp2040js"
FIRMWARE = "firmware/circuitpython-10.2.1-raspberry_pi_pico-uart-console.uf2"
PINS = {"klaxon": 16, "a": 17, "b": 18}  # hardware/profile_pico.py: to GND, pull-ups
SPEAKER = 15
SPEAKER_B = 14  # the piezo's other pin, push-pull (hardware/profile_pico.py)
LED = 25
PIXELS = 22
OFFSET = 1500  # ms from the chip's reset to the harness's power-on (code.py ~1311 + start-up)
NVM = 0x0FF000  # the 4 KB nvm sector in flash (after the 1020 KB firmware)
FS_OFFSET = 0x100000  # CIRCUITPY in flash, 1 MiB (run.mjs)
FS_SIZE = 0x100000
POOL = 2  # emulator processes at once (each is one busy core)
NICE = 0  # run()'s niceness by default (tests/test_pico.py: 10, but for its long pole)
HOW_TO_GET = (
    "the Pico lane needs CircuitPython 10.2.1's firmware for raspberry_pi_pico with run.mjs "
    "(the kit: ../shared/circuitpython/pico, or QK_PICO_KIT=folder; outside this workplace "
    "make it with the kit's build.sh, or use circuitpython.org's stock UF2 for the Pico, "
    "console on USB), Node >= 18 with npm, rp2040js@1.4.1 ('npm ci' in tools/lanes/pico, or "
    "RP2040JS=folder), and mkfs.fat + mcopy ('apt-get install dosfstools mtools')")
# CircuitPython's own console lines, not the device's
SUPERVISOR = ("Adafruit CircuitPython", "Board ID:", "UID:", "boot.py output:", "code.py output:",
              "Auto-reload is on", "Serial console setup", "Press any key", "Code done running",
              "soft reboot", "safemode.py output:")


def is_version(line):
    """Whether a console line is code.py's first, the firmware's version."""
    return bool(deploy.VERSION_LINE.match(line))


def kit():
    """The kit's folder (run.mjs and the firmware), or None: ``$QK_PICO_KIT`` when it is
    set (then only that one: a mistyped path is said, not passed over), else
    ../shared/circuitpython/pico beside the repo."""
    folder = os.environ.get("QK_PICO_KIT") or os.path.join(
        os.path.dirname(ROOT), "shared", "circuitpython", "pico")
    if all(os.path.exists(os.path.join(folder, p)) for p in ("run.mjs", FIRMWARE)):
        return folder
    return None


def rp2040js():
    """The folder run.mjs imports rp2040js from (``$RP2040JS``, else tools/lanes/pico), or None."""
    env = os.environ.get("RP2040JS")
    if env:
        for pkg in (env, os.path.join(env, "node_modules", PACKAGE)):
            if installed_version(pkg):
                return env
        return None
    with _npm_lock(False):  # (not while another process's npm ci is writing it)
        return HERE if installed_version(os.path.join(HERE, "node_modules", PACKAGE)) else None


@contextlib.contextmanager
def _npm_lock(exclusive):
    """tools/lanes/pico's install lock: ``npm ci`` holds it alone, a look at what is installed
    shares it. The suite's workers each install and run the lane at once: without it
    one saw a half-written rp2040js (its package.json, not yet its modules) and ran it,
    or a second npm ci emptied node_modules under a running emulator."""
    try:
        import fcntl
    except ImportError:  # (no flock: one process at a time is the caller's)
        yield
        return
    with open(os.path.join(HERE, ".npm-ci.lock"), "a") as f:
        fcntl.flock(f, fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH)
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


def locked():
    """(version, resolved address, integrity) of the pinned package."""
    with open(os.path.join(HERE, "package-lock.json")) as f:
        entry = json.load(f)["packages"]["node_modules/" + PACKAGE]
    return entry["version"], entry["resolved"], entry["integrity"]


def installed_version(pkg=None):
    try:
        with open(os.path.join(pkg or os.path.join(HERE, "node_modules", PACKAGE),
                               "package.json")) as f:
            meta = json.load(f)
    except (OSError, ValueError):
        return None
    return meta.get("version") if meta.get("name") == PACKAGE else None


def install(out=print):
    """tools/lanes/pico/node_modules holds the pinned rp2040js (``npm ci``, as web/ installs its
    package with tools/maker/web.py). Returns None when done, else why not."""
    version = locked()[0]
    npm = shutil.which("npm")
    with _npm_lock(True):  # (one install at a time, and nobody looking meanwhile)
        if installed_version() == version:
            return None
        if not npm:
            return "no npm: install it (apt-get install npm) and run 'npm ci' in tools/lanes/pico"
        out("pico: npm ci (%s@%s into tools/lanes/pico/node_modules)" % (PACKAGE, version))
        r = subprocess.run([npm, "ci", "--no-audit", "--no-fund", "--silent"], cwd=HERE,
                           capture_output=True, text=True)
        if r.returncode or installed_version() != version:
            return "npm ci in tools/lanes/pico failed: %s" % (r.stderr.strip()[-300:] or r.returncode)
    return None


def missing():
    """What the lane lacks here, in words (None: it can run)."""
    lack = []
    if kit() is None:
        lack.append("the kit (run.mjs and %s) in %s" % (
            FIRMWARE, "QK_PICO_KIT=" + os.environ["QK_PICO_KIT"] if os.environ.get("QK_PICO_KIT")
            else os.path.join(os.path.dirname(ROOT), "shared", "circuitpython", "pico")))
    if not shutil.which("node"):
        lack.append("node")
    for tool, pkg in (("mkfs.fat", "dosfstools"), ("mcopy", "mtools"), ("mtype", "mtools")):
        if not shutil.which(tool) and not os.path.exists("/usr/sbin/" + tool) and not \
                os.path.exists("/sbin/" + tool):
            lack.append("%s (apt-get install %s)" % (tool, pkg))
    if rp2040js() is None and not os.environ.get("RP2040JS") and shutil.which("node"):
        why = install(out=lambda *a: None)
        if why:
            lack.append("rp2040js@%s (%s)" % (locked()[0], why))
    elif rp2040js() is None:
        lack.append("rp2040js@%s in $RP2040JS" % locked()[0])
    if lack:
        return "missing: %s. %s" % (", ".join(lack), HOW_TO_GET)
    return None


def _tool(name):
    return shutil.which(name) or next(p for p in ("/usr/sbin/" + name, "/sbin/" + name)
                                      if os.path.exists(p))


def settings_text(settings="", players=None, qm=None, klaxon_only=False, brightness=100):
    """The settings.toml both lanes get: the harness's own (tools/simulated/harness.py)."""
    import harness

    return harness.settings_text(settings, players, qm, klaxon_only, brightness)


class Drive:
    """A temporary CIRCUITPY folder after ``tools/maker/deploy.py`` for the Pico, and its image.

    ``settings``: settings.toml's text (or bytes as they are on the drive); ``extra``:
    {relative path: text or bytes} written after the deploy (a test's own code.py or
    boot.py; the deploy itself is untouched). ``files``: a folder whose files the drive
    holds instead of a deploy's (a release bundle unzipped: tests/test_bundle.py)."""

    def __init__(self, settings="", extra=None, mpy=True, files=None):
        self.kit = kit()
        if self.kit is None:
            raise RuntimeError(HOW_TO_GET)
        self.path = tempfile.mkdtemp(prefix="qk-pico-")
        with open(os.path.join(self.kit, FIRMWARE[:-4] + ".boot_out.txt"), "rb") as f:
            boot_out = f.read()
        # what the firmware writes there, boot.py's (empty) output included: else it
        # rewrites the file a second after boot.py, and code.py starts 1 s later
        boot_out += b"boot.py output:\r\n"
        with open(os.path.join(self.path, "boot_out.txt"), "wb") as f:
            f.write(boot_out)
        if files is not None:  # a drive's files as they are (a release bundle, unzipped)
            shutil.copytree(files, self.path, dirs_exist_ok=True)
            self.files = sorted(os.path.relpath(os.path.join(p, n), files)
                                for p, _, names in os.walk(files) for n in names)
        else:
            with open(os.path.join(self.path, "settings.toml"),
                      "wb" if isinstance(settings, bytes) else "w") as f:
                f.write(settings)
            cp = cpvm.find() if mpy else None
            self.files = deploy.deploy(self.path, cp and os.path.join(cp, "mpy-cross"),
                                       out=lambda *a: None)
        for rel, data in (extra or {}).items():
            path = os.path.join(self.path, *rel.split("/"))
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "wb" if isinstance(data, bytes) else "w") as f:
                f.write(data)
        self._images = {}

    def image(self, label="QIKLAXON"):
        """The drive as a 1 MiB FAT12 image, made as run.mjs makes one (mkfs.fat, mcopy),
        but labelled ``label``: boot.py names the drive QIKLAXON at the board's first start
        (erases and programs of the drive's sectors). The lane starts as a board does
        after that; ``label="CIRCUITPY"`` is a board's very first start."""
        if label not in self._images:
            img = os.path.join(self.path + "-%s.img" % label)
            if os.path.exists(img):
                os.remove(img)
            subprocess.run([_tool("mkfs.fat"), "-C", "-F", "12", "-S", "512", "-s", "1", "-n",
                            label, "-i", "12345678", img, str(FS_SIZE // 1024)], check=True,
                           capture_output=True)
            entries = [os.path.join(self.path, e) for e in sorted(os.listdir(self.path))]
            subprocess.run([_tool("mcopy"), "-s", "-o", "-i", img] + entries + ["::/"],
                           check=True, capture_output=True)
            self._images[label] = img
        return self._images[label]

    def flash(self, nvm=None, label="QIKLAXON"):
        """A flash image (``--flash-in``) as a board holds it after this drive's deploy and
        the firmware: the UF2's blocks, the CIRCUITPY image and ``nvm`` (bytes: a saved game,
        as the harness's flash model holds it; None: erased). It ends at the drive's end
        (2 MiB): run.mjs fills the rest of its 16 MiB with erased bytes."""
        flash = bytearray(b"\xff" * (FS_OFFSET + FS_SIZE))
        with open(os.path.join(self.kit, FIRMWARE), "rb") as f:
            uf2 = f.read()
        for off in range(0, len(uf2), 512):
            addr = int.from_bytes(uf2[off + 12:off + 16], "little") - 0x10000000
            size = int.from_bytes(uf2[off + 16:off + 20], "little")
            flash[addr:addr + size] = uf2[off + 32:off + 32 + size]
        with open(self.image(label), "rb") as f:
            flash[FS_OFFSET:FS_OFFSET + FS_SIZE] = f.read()
        if nvm is not None:
            flash[NVM:NVM + len(nvm)] = bytes(nvm)
        fd, path = tempfile.mkstemp(prefix="qk-pico-flash-", suffix=".bin")
        with os.fdopen(fd, "wb") as f:
            f.write(flash)
        self._images["flash-%s" % path] = path
        return path

    def __enter__(self):  # (``with Drive(settings) as d:``: closed however the run ends)
        return self

    def __exit__(self, *exc):
        self.close()

    def close(self):
        for img in self._images.values():
            if os.path.exists(img):
                os.remove(img)
        shutil.rmtree(self.path, ignore_errors=True)


def nvm_of(flash_path):
    """The 4 KB nvm sector of a saved flash image (``flash_out``)."""
    with open(flash_path, "rb") as f:
        f.seek(NVM)
        return f.read(4096)


def events(steps, offset=OFFSET, typed=()):
    """run.mjs ``--events`` for harness steps [(t_ms, pressed, control)]: a press drives
    the pin low (the buttons go to GND), a release lets go of it (``null``: the pull-up
    decides, as with a real contact). ``t_ms`` may have fractions (bounce). ``typed``:
    [(t_ms, text)] a host types on the console (as ``Sim.type_in``: one byte asks the
    board for its whole state)."""
    out = []
    for t, pressed, control in steps:
        out.append({"t": round(t + offset, 6), "pin": PINS[control],
                    "value": 0 if pressed else None})
    for t, text in typed:
        out.append({"t": round(t + offset, 6), "serial": text})
    out.sort(key=lambda e: e["t"])
    return out


def bounce(control, at_ms, hold_ms, bounce_us=(), release_bounce_us=()):
    """Steps of one press with contact bounce, as tools/simulated/harness.py ``Sim.press`` makes them
    (bounce lists alternate open/closed durations in µs after the first contact and after
    the release)."""
    steps = []
    for t0, pressed, durations in ((at_ms, True, bounce_us),
                                   (at_ms + hold_ms, False, release_bounce_us)):
        t = t0 * 1000.0
        steps.append((t / 1000, pressed, control))
        closed = pressed
        for d in durations:
            t += d
            closed = not closed
            steps.append((t / 1000, closed, control))
        if closed != pressed:
            steps.append((t / 1000, pressed, control))
    return steps


class Run:
    """What one run.mjs process printed (``records``: its JSON lines, times in the
    harness's ms: the emulator's less ``offset``), and what it cost: ``wall`` seconds,
    ``cpu`` seconds of the emulator's process, ``emulated`` seconds of the board's time,
    ``busy`` seconds of them its CPU ran (the rest it slept or waited: skipped at once)."""

    cpu = emulated = busy = None  # (run() sets them)

    def __init__(self, records, offset, wall, cmd, stderr=""):
        self.records = records
        self.offset = offset
        self.wall = wall
        self.cmd = cmd
        self.stderr = stderr
        # the console's bytes as the firmware wrote them (run(raw=True)): [(t_ms, bytes)]
        self.raw = []
        for line in stderr.splitlines():
            if line.startswith("RAW "):
                _, source, t, text = line.split(" ", 3)
                if source in ("uart0", "usb"):
                    self.raw.append((float(t) - offset, source,
                                     json.loads(text).encode("latin1")))

    def kind(self, *kinds):
        return [r for r in self.records if r["kind"] in kinds]

    def console(self):
        """[(t_ms, line)] of everything on the console (CircuitPython's own lines too)."""
        return [(r["t"], r["text"]) for r in self.records
                if r["kind"] in ("uart0", "usb", "tap") and not r.get("partial")
                and not (r["kind"] == "usb" and r["text"].startswith("("))]

    def lines(self):
        """[(t_ms, line)] the device printed: the console less CircuitPython's own lines and
        code.py's first, the firmware's version (version.txt: the harness has no drive)."""
        return [(t, s) for t, s in self.console() if s and not s.startswith(SUPERVISOR)
                and not is_version(s)]

    def canonical(self):
        """The device's lines as ``Scenario.canonical()`` has them: "t_ms line"."""
        return ["%d %s" % (round(t), s) for t, s in self.lines()]

    def pwm(self, pin=SPEAKER):
        """[(t_ms, Hz, duty %)] of each PWM configuration of ``pin`` (from its registers)."""
        return [(r["t"], r["freq"], r["duty"]) for r in self.records
                if r["kind"] == "pwm" and r.get("pin") == pin and "freq" in r
                and r["text"].split()[1] == "config"]

    def piezo(self, a=SPEAKER, b=SPEAKER_B):
        """What the piezo between pins ``a`` and ``b`` is driven with, from every edge of the
        two (``--edges``): [(t_ms, Hz, on %, voice, antiphase)], one record per period of
        the pitch (RASP: 8 short pulses of ``a`` and a long one, 3 times as long, the period
        f0 = the carrier / 11) or per cycle (SQUARE: pulses all alike; one pin: its
        pulses, the other silent), and (t_ms, 0, 0, None, None) where both pins stop
        toggling (5 ms and more: a rest, the sound's end). Hz: the pitch as the tone
        tables give it (RASP's f0, the SQUARE's note); on %: the pulse's share of its half
        cycle; antiphase: ``b`` pulsed between each two pulses of ``a``, its pulses as
        long, half a carrier cycle later (False with one pin)."""
        pulses = {}
        for pin in (a, b):
            rises, out = None, []
            for t, v in self.gpio(pin):
                if v == 1:
                    rises = t
                elif rises is not None:
                    out.append((rises, t - rises))
                    rises = None
            pulses[pin] = out
        pa, pb = pulses[a], pulses[b]
        final = max([r["t"] for r in self.records] or [0])  # the run's last record
        bursts, cur = [], []
        for r, w in pa:
            if cur and r - (cur[-1][0] + cur[-1][1]) > 5:
                bursts.append(cur)
                cur = []
            cur.append((r, w))
        if cur:
            bursts.append(cur)
        out = []
        for burst in bursts:
            n = len(burst)
            # (long: twice as long as the pulse before it; the pitch moves, so only locally)
            longs = {i for i in range(1, n) if burst[i][1] > 2 * burst[i - 1][1]}
            i, kind = 0, None
            while i < n:
                if i + 8 < n and i + 8 in longs and not longs & set(range(i, i + 8)):
                    fast = burst[i:i + 8]  # a RASP period: 8 short pulses, then the long one
                    # (medians: the pitch may step within the period, changing the clock)
                    cycles = sorted(b[0] - a[0] for a, b in zip(fast, fast[1:]))
                    shares = sorted(a[1] / (b[0] - a[0]) for a, b in zip(fast, fast[1:]))
                    spacing = cycles[3]
                    out.append((burst[i][0], 1000 / (11 * spacing), 200 * shares[3], "rasp",
                                _antiphase(fast, pb, spacing)))
                    i, kind = i + 9, "rasp"
                    continue
                spacing = (burst[i + 1][0] - burst[i][0] if i + 1 < n else
                           burst[i][0] - burst[i - 1][0] if i else 1)
                if longs & set(range(i - 9, i + 10)):  # a RASP period cut short: its pitch
                    out.append((burst[i][0], 1000 / (11 * spacing),
                                100 * burst[i][1] / (spacing / 2), "?", None))
                    kind = "?"
                elif i + 1 < n:  # SQUARE: a record per cycle
                    if kind in ("rasp", "?"):  # (a RASP sound ended, a SQUARE one began)
                        out.append((burst[i - 1][0] + burst[i - 1][1], 0, 0, None, None))
                    out.append((burst[i][0], 1000 / spacing, 100 * burst[i][1] / (spacing / 2),
                                "square", _antiphase(burst[i:i + 1], pb, spacing)))
                    kind = "square"
                i += 1
            last = burst[-1][0] + burst[-1][1]
            end = max([last] + [r + w for r, w in pb if burst[0][0] <= r <= last + 5])
            if end < final - 5:  # (else the run ended while it sounded)
                out.append((end, 0, 0, None, None))
        return out

    def sound(self):
        """[(t_ms, Hz, on %, voice)] of the piezo (``piezo()``): what check_sound reads."""
        return [x[:4] for x in self.piezo()]

    def gpio(self, pin):
        """[(t_ms, level)] of an output pin's changes."""
        return [(r["t"], r["value"]) for r in self.records
                if r["kind"] == "gpio" and r.get("pin") == pin and "value" in r]

    def frames(self, pin=PIXELS):
        """[(t_ms, [0xRRGGBB per pixel])] of the WS2812 frames decoded on ``pin``."""
        out = []
        for r in self.records:
            if r["kind"] == "ws2812" and r["text"].startswith("GP%d " % pin):
                px = []
                for grb in r["text"].split(" px ", 1)[1].split(" (")[0].split():
                    g, rr, b = int(grb[0:2], 16), int(grb[2:4], 16), int(grb[4:6], 16)
                    px.append(rr << 16 | g << 8 | b)
                out.append((r["t"], px))
        return out

    def flash(self):
        """[(t_ms, op number, "erase"|"program", address, bytes)]."""
        return [(r["t"], r["op"], r["what"], r["addr"], r["count"]) for r in self.records
                if r["kind"] == "flash"]

    def resets(self):
        return [(r["t"], r["reason"]) for r in self.kind("reset")]

    def sleeps(self):
        return [(r["t"], r["text"]) for r in self.kind("sleep")]

    def console_bytes(self, source="uart0"):
        """[(t_ms, bytes)]: the console's bytes as the firmware wrote them, a line at a time
        (status-bar and colour escapes, carriage returns and all), each at the time of its
        last byte, as a serial port hands them to a host (``run(raw=True)``)."""
        out = []
        buf = b""
        for t, src, data in self.raw:
            if src != source:
                continue
            for i in range(len(data)):
                buf += data[i:i + 1]
                if data[i:i + 1] == b"\n":
                    out.append((t, buf))
                    buf = b""
        if buf:
            out.append((self.raw[-1][0], buf))
        return out

    def code_starts(self):
        """Times code.py (or safemode.py) started: one per boot."""
        return [t for t, s in self.console() if s.startswith(("code.py output:",
                                                               "safemode.py output:"))]


def command(drive=None, steps=(), ms=5000, flash_in=None, flash_out=None, label="QIKLAXON",
            offset=OFFSET, until=None, cut=None, no_usb=False, ws2812=False, log_flash=False,
            pins=(SPEAKER, SPEAKER_B, LED), max_resets=None, events_path=None, edges=True):
    """The run.mjs command line for a run (see ``run``). ``edges``: every edge of the
    PIO-driven piezo pins (``--edges``; of the ``pins`` only: keep GP22's NeoPixel bits
    out of them, ``ws2812`` decodes those)."""
    k = kit()
    cmd = ["node", os.path.join(k, "run.mjs"), "--json", "--ms", "%g" % (ms + offset),
           "--firmware", os.path.join(k, FIRMWARE)]
    if flash_in:
        cmd += ["--flash-in", flash_in]
    else:
        cmd += ["--fs-image", drive.image(label)]
    if events_path:
        cmd += ["--events", events_path]
    if pins is not None:
        cmd += ["--pins", ",".join(str(p) for p in pins)]
    if flash_out:
        cmd += ["--flash-out", flash_out]
    if until:
        cmd += ["--until", until]
    if cut is not None:
        cmd += ["--cut-after-flash-ops", str(cut)]
    if no_usb:
        cmd.append("--no-usb")
    if ws2812:
        cmd += ["--ws2812", str(PIXELS)]
    if log_flash:
        cmd.append("--log-flash")
    if edges:
        cmd.append("--edges")
    if max_resets is not None:
        cmd += ["--max-resets", str(max_resets)]
    return cmd


# The emulator's wall-time limit for one run: a hang's guard, not a speed budget. Busy
# emulation runs at 0.25-0.35x real time on a quiet 2-core machine, but was measured at
# under 0.12x on a slow one (a 69.5 s sleep run past 600 s, alone): tests/conftest.py
# gives test_pico.py 1800 s a test.
RUN_LIMIT_S = 1200


def run(drive=None, steps=(), ms=5000, offset=OFFSET, timeout=RUN_LIMIT_S, nice=None, typed=(),
        raw=False, **kw):
    """Boot the firmware on ``drive``'s image (or ``flash_in``, a whole flash saved by an
    earlier run's ``flash_out``), play ``steps`` (harness steps, in the harness's ms),
    run until ``ms`` harness ms (``until``: a console text that ends it sooner; ``cut``:
    a power cut after that flash operation; ``nice``: the emulator's niceness, so that a
    long run started first keeps its core). Other options: ``no_usb`` (no USB host:
    deep sleep is real), ``ws2812`` (decode GP22), ``log_flash``, ``pins`` (the pins
    whose gpio/pwm lines to keep; None: all), ``max_resets``, ``typed`` ([(t_ms, text)]
    typed on the console), ``raw`` (keep the console's bytes: ``Run.console_bytes``).
    Returns a ``Run``."""
    import time

    nice = NICE if nice is None else nice
    tmp = tempfile.mkdtemp(prefix="qk-pico-run-")
    try:
        ev = os.path.join(tmp, "events.json")
        with open(ev, "w") as f:
            json.dump(events(steps, offset, typed), f)
        cmd = command(drive, steps, ms, offset=offset, events_path=ev, **kw)
        env = dict(os.environ)
        if raw:
            env["RAW_CONSOLE"] = "1"  # (run.mjs: every console write, on stderr)
        lib = rp2040js()
        if lib:
            env["RP2040JS"] = lib
        cmd.append("--stats")  # (its last line on stderr: emulated time, CPU cycles run)
        t0 = time.monotonic()
        # (output to files, and os.wait4: the CPU time of this emulator, not of all the
        # children of this process, which may run others at once in other threads; the
        # time limit by a timer, not by polling with time.sleep, which the harness's Sim
        # replaces while its device starts, in whatever thread)
        with open(os.path.join(tmp, "out"), "w+") as out, \
                open(os.path.join(tmp, "err"), "w+") as err:
            child = subprocess.Popen(cmd, cwd=tmp, env=env, stdout=out, stderr=err,
                                     preexec_fn=(lambda: os.nice(nice)) if nice else None)
            late = []
            timer = threading.Timer(timeout, lambda: late.append(child.kill()))
            timer.start()
            try:
                _, status, usage = os.wait4(child.pid, 0)
            finally:
                timer.cancel()
            child.returncode = os.waitstatus_to_exitcode(status)
            if late:
                raise subprocess.TimeoutExpired(cmd, timeout)
            wall = time.monotonic() - t0
            out.seek(0)
            stdout = out.read()
            err.seek(0)
            stderr = err.read()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    records = []
    for line in stdout.splitlines():
        if line.startswith("{"):
            rec = json.loads(line)
            rec["t"] = rec["t_ms"] - offset
            records.append(rec)
    if child.returncode and not records:
        raise RuntimeError("run.mjs failed (%d): %s" % (child.returncode, stderr[-2000:]))
    r = Run(records, offset, wall, cmd, stderr)
    r.cpu = usage.ru_utime + usage.ru_stime
    for line in stderr.splitlines():
        if line.startswith('{"emulated_ms"'):
            stats = json.loads(line)
            r.emulated = stats["emulated_ms"] / 1000
            r.busy = stats["cpu_cycles_executed"] / stats["clk_sys"]
    return r


def _antiphase(pulses, other, spacing):
    """Whether ``other`` has a pulse as long as each of ``pulses`` (within 5 %), starting
    half a cycle after it (within 5 % of the cycle: the pitch may step between the two;
    the cycle: to the next of ``pulses``, ``spacing`` ms after the last)."""
    import bisect

    starts = [r for r, _ in other]
    for k, (r, w) in enumerate(pulses):
        cycle = pulses[k + 1][0] - r if k + 1 < len(pulses) else spacing
        i = bisect.bisect_left(starts, r)
        if i >= len(other):
            return False
        r2, w2 = other[i]
        if abs(r2 - r - cycle / 2) > 0.05 * cycle or abs(w2 - w) > 0.05 * w:
            return False
    return True


def cost(value):
    """What the runs in ``value`` cost (Runs, a Run's ``restart``, lists, tuples and dicts
    of them): {"runs", "emulated", "busy", "cpu", "wall"} (seconds; see ``Run``)."""
    out = dict.fromkeys(("runs", "emulated", "busy", "cpu", "wall"), 0)

    def walk(v):
        if isinstance(v, Run):
            out["runs"] += 1
            for k in ("emulated", "busy", "cpu", "wall"):
                out[k] += getattr(v, k) or 0
            walk(getattr(v, "restart", None))
        elif isinstance(v, (list, tuple)):
            for x in v:
                walk(x)
        elif isinstance(v, dict):
            for x in v.values():
                walk(x)

    walk(value)
    return out


def run_many(jobs, pool=POOL, **kw):
    """``run(**job, **kw)`` for each job, ``pool`` emulators at a time; the Runs in order."""
    with ThreadPoolExecutor(pool) as ex:
        return list(ex.map(lambda job: run(**dict(kw, **job)), jobs))


def _tone(i, d):
    """The pitch (Hz) sound ``i`` has ``d`` ms after it starts, as hardware/device.py
    step() computes it from TONES (0: a rest), None once it is over."""
    import synth

    s = synth.tones()[i]
    for k in range(0, len(s), 3):
        if d < s[k + 2] * 10:
            return 10 * s[k] + 10 * (s[k + 1] - s[k]) * d // (10 * s[k + 2]) if s[k] else 0
        d -= s[k + 2] * 10
    return None


def on_percent(volume):
    """The piezo's driven share of each half of its drive at QK_VOLUME ``volume`` (%), as
    hardware/profile_pico.py defines it: 32 x volume // 10 ticks of 32, at most 29."""
    return 100 * min(32 * volume // 10, 29) / 32


def check_sound(pwm, name, t0, t1, duty):
    """The piezo's drive (``Run.sound()``: per period of the pitch, its Hz, its driven
    share of a half and its voice) in [t0, t1) follows sound ``name`` from its start:
    each pitch is the sweep's within 2% (the divider's rounding) at most 30 ms behind
    (the sweep steps every 20 ms, on a pass that does the sound) or 10 ms ahead,
    ``duty`` % driven while it sounds, in its voice (the klaxon and the buzz RASP, the
    chimes SQUARE; a RASP's period cut short by a rest or the end excepted), 0 in its
    rests and after its end."""
    import synth

    i = synth.NAMES.index(name)
    TONES = synth.tones()
    total = sum(TONES[i][2::3]) * 10
    voice = "rasp" if i < 2 else "square"
    seen = [r for r in pwm if t0 <= r[0] < t1]
    # (a period cut short by a stop, a rest or a stuck Klaxon's hush: the last record before
    # the silence, read as whatever its few edges make, and any "?" before it)
    cut, tail = set(), True
    for r in reversed(seen):
        if not r[1]:
            tail = True
        elif tail:
            cut.add(r[0])
            tail = r[3] == "?"
        else:
            tail = False
    bad = [r for r in seen if r[1] and r[3] != voice and r[0] not in cut]
    assert not bad, "%s: not %s: %s" % (name, voice, bad[:5])
    seen = [r[:3] for r in seen]
    starts = [t for t, f, du in seen if du > 0]
    assert starts, "no sound in [%d, %d)" % (t0, t1)
    start = starts[0]
    problems = []
    for t, f, du in seen:
        if t < start:
            continue
        d = t - start
        # (up to 10 ms ahead: the sweep counts from the tick of the pass that started
        # it, not from the PWM write, which may come some ms later: the button sampling,
        # the console line, a collection of the garbage in that pass; seen: 6 ms)
        want = [_tone(i, x) for x in range(max(0, int(d) - 30), int(d) + 11)]
        if du > 0:
            ok = t in cut or abs(du - duty) < 0.01 and any(  # (a period cut short by the
                w and abs(f - w) / w < 0.02 for w in want)  # stop: its pitch is not one)
        else:
            ok = any(not w for w in want)
        if not ok:
            problems.append("%.1f ms in: %.1f Hz duty %.2f%%, the sweep says %s" % (
                d, f, du, sorted(set(want), key=str)))
    assert not problems, "%s at %.1f:\n" % (name, start) + "\n".join(problems)
    if start + total + 30 < t1:
        assert [du for t, f, du in seen if t >= start][-1] == 0, "%s does not end" % name
        # silent from its last sounding segment's end (a rest at the end changes nothing)
        quiet = total
        for k in range(len(TONES[i]) - 3, -1, -3):
            if TONES[i][k]:
                break
            quiet -= TONES[i][k + 2] * 10
        assert any(start + quiet - 10 <= t <= start + quiet + 30 and du == 0
                   for t, f, du in seen), "%s ends late" % name
    return start


def harness(settings, steps, ms, nvm=None, **kw):
    """The harness (tools/simulated/harness.py ``Sim``, the Pico profile) after ``steps`` until
    ``ms``: the Sim itself (its ``canonical()``, ``scene()``, ``nvm``)."""
    import harness as H

    sim = H.Sim(settings=settings, board_name="pico", nvm=nvm, **kw)
    sim.play(steps, ms)
    return sim


def harness_lines(settings, steps, ms, **kw):
    """[(t_ms, line)] the harness's device prints for the same settings and script."""
    return list(harness(settings, steps, ms, **kw).events)


def compare(pico, sim, tolerance_ms, start_ms=0, start_tolerance_ms=250):
    """Differences between two [(t_ms, line)] consoles: the lines must be the same in the
    same order, each within ``tolerance_ms`` of the other's time (the start-up's lines,
    before ``start_ms``, within ``start_tolerance_ms``: the harness's device starts at
    once, the board's when code.py's imports are done). [] when they agree."""
    diffs = []
    a = [s for _, s in pico]
    b = [s for _, s in sim]
    if a != b:
        import difflib

        diffs += ["lines differ (- pico, + harness):"] + [
            d for d in difflib.unified_diff(a, b, lineterm="", n=1)][2:]
        return diffs
    for (tp, s), (ts, _) in zip(pico, sim):
        if abs(tp - ts) > (tolerance_ms if ts >= start_ms else start_tolerance_ms):
            diffs.append("%r at %.1f ms on the Pico, %d ms in the harness (%.1f ms > %d)"
                         % (s, tp, ts, abs(tp - ts), tolerance_ms))
    return diffs


# ------------------------------------------------------------------ the saved game's flash
PAGE = 256  # the RP2040's flash page: CircuitPython programs nvm a page at a time
SECTOR = 4096  # its erase unit, and all of the nvm


def nvm_ops(before, start, data):
    """The flash operations CircuitPython 10.2.1 does on the RP2040 for
    ``microcontroller.nvm[start:start + len(data)] = data`` over nvm bytes ``before``
    (ports/raspberrypi/common-hal/nvm/ByteArray.c, as the kit's self-test and this lane's
    runs show it): when every byte written over is erased (0xFF), one program of each
    256-byte page the bytes touch, nothing erased; otherwise an erase of the whole 4 KB
    sector, then one program of all of it. [("program" | "erase", offset, bytes)]."""
    if all(b == 0xFF for b in before[start:start + len(data)]):
        ops = []
        at, end = start, start + len(data)
        while at < end:
            page_end = (at // PAGE + 1) * PAGE
            ops.append(("program", at // PAGE * PAGE, PAGE))
            at = page_end
        return ops
    return [("erase", 0, SECTOR), ("program", 0, SECTOR)]


def save_kind(ops):
    """"program" (one page), "pages" (a record across a page boundary: two programs),
    "compaction" (erase and program: the sector anew)."""
    if ops[0][0] == "erase":
        return "compaction"
    return "program" if len(ops) == 1 else "pages"


def questions_steps(n, gap=1400, t0=100):
    """Harness steps of ``n`` questions at a table (tests/test_reliability.py's flash-wear
    table): ask, two answers, the Klaxon challenging the second, the first right, the
    challenged wrong, its penalty none, the challenger right. ``gap`` ms between presses:
    1400, a save after every change (5 a question, the worst case); 500, one a question.
    Returns (steps, the end in ms)."""
    steps = []
    t = t0

    def press(c, hold=80):
        nonlocal t
        steps.extend([(t, True, c), (t + hold, False, c)])
        t += hold + gap

    for _ in range(n):
        press("b")
        press("a")
        press("a")
        steps.extend([(t, True, "klaxon"), (t + 120, False, "klaxon")])
        t += gap + 80
        for c in "abba":
            press(c)
        t += 1500
    return sorted(steps), t


def saves(settings, steps, ms, nvm=None):
    """Every save the harness's device makes playing ``steps`` (its RP2040 flash model
    recording each nvm write): [Save], in order; and the Sim."""
    import harness as H
    import simclock
    from flashsim import FlashSim

    out = []

    class Recording(FlashSim):
        def __setitem__(self, key, data):
            start = key.start or 0
            before = bytes(self.mem)
            super().__setitem__(key, data)
            out.append(Save(simclock.now_us() / 1000, before, bytes(self.mem), start,
                            bytes(data)))

    flash = Recording("rp2040")
    if nvm is not None:
        flash.mem[:] = nvm
    sim = H.Sim(settings=settings, board_name="pico", nvm=flash)
    sim.play(steps, ms)
    return out, sim


class Save:
    """One nvm write of the game: when (harness ms), the nvm before and after, where the
    bytes went, and the operations the real firmware makes of it (``ops``, ``kind``)."""

    def __init__(self, t, before, after, start, data):
        self.t, self.before, self.after, self.start, self.data = t, before, after, start, data
        self.ops = nvm_ops(before, start, data)
        self.kind = save_kind(self.ops)

    def __repr__(self):
        return "<save at %.0f ms: %s at %d, %d bytes>" % (self.t, self.kind, self.start,
                                                          len(self.data))


def resumed_lines(settings, nvm):
    """What the harness's device says as it starts on nvm bytes ``nvm`` (a board's
    restart after a power cut): its console lines up to its first ``at`` line."""
    import harness as H
    from flashsim import FlashSim

    flash = FlashSim("rp2040")
    flash.mem[:] = nvm
    sim = H.Sim(settings=settings, board_name="pico", nvm=flash)
    sim.run_until_ms(10)
    said = [s for _, s in sim.events]
    at = [i for i, s in enumerate(said) if s.startswith("at ")]
    return said[:at[0] + 1] if at else said


def replay(steps, game_saves, k, lead=300):
    """The presses of a game (``steps``) after its save k-1 up to its save k, moved to
    start ``lead`` ms after a power-on: played on a board holding the nvm as save k-1
    left it (``game_saves[k].before``) they make save k again. (steps, ms: a little after
    that save)."""
    t_prev = game_saves[k - 1].t if k else 0
    first = min(t for t, p, c in steps if t > t_prev)
    shift = first - lead
    out = [(t - shift, p, c) for t, p, c in steps if t_prev < t <= game_saves[k].t]
    return out, int(game_saves[k].t - shift) + 150


# ------------------------------------------------------------------ a run kept for the session
def cache_folder():
    """Where ``run_cached`` keeps runs: ``$QK_PICO_CACHE``, else a folder of this user's in
    the temporary folder (the host suite and the browser lane are two pytest processes)."""
    import tempfile as _t

    return os.environ.get("QK_PICO_CACHE") or os.path.join(
        _t.gettempdir(), "qk-pico-cache-%d" % os.getuid())


def run_cached(settings, steps, ms, **kw):
    """``run(Drive(settings), steps, ms, **kw)``, made once and kept (``cache_folder``),
    named by everything that decides it: the deployed files' bytes, the firmware, the
    runner, rp2040js's version, the script and the options. The emulator is
    deterministic, so a run kept is the run made again; a test process that finds it
    (the browser lane, after the Pico lane made it) saves minutes. Processes that want
    it at once wait for the one making it (a file lock)."""
    import fcntl
    import hashlib
    import pickle

    d = Drive(settings)
    try:
        h = hashlib.sha256()
        for folder, _, files in sorted(os.walk(d.path)):
            for name in sorted(files):
                path = os.path.join(folder, name)
                h.update(os.path.relpath(path, d.path).encode() + b"\0")
                with open(path, "rb") as f:
                    h.update(f.read())
        for path in (os.path.join(d.kit, FIRMWARE), os.path.join(d.kit, "run.mjs")):
            with open(path, "rb") as f:
                h.update(f.read())
        h.update(repr((installed_version(os.path.join(rp2040js() or HERE, "node_modules",
                                                        PACKAGE)) or installed_version(),
                       list(steps), ms, sorted(kw.items()))).encode())
        folder = cache_folder()
        os.makedirs(folder, exist_ok=True)
        path = os.path.join(folder, h.hexdigest()[:32] + ".pickle")
        with open(path + ".lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            if os.path.exists(path):
                with open(path, "rb") as f:
                    return pickle.load(f)
            r = run(d, steps, ms, **kw)
            with open(path + ".tmp", "wb") as f:
                pickle.dump(r, f)
            os.replace(path + ".tmp", path)
            return r
    finally:
        d.close()


# ------------------------------------------------------------------ the scoreboard's game
# A game for the scoreboard of a real board (tools/maker/scoreboard.py; tests/test_pico.py and
# tests/test_web.py): a roll of the dice, a question (scenario.QUESTION: a refused Klaxon,
# the Klaxon, the marks, a Klaxon penalty counted) and the game ended at the table (B held
# 3 s: game over, the winners). A host asks twice for the whole state (one byte typed): as
# a page connecting at power-on would, and one joining during the reveal. Short on
# purpose (12 s emulated, under a minute of wall): the rest of scenario.GAME (undo, a move
# entered, a new game set up) is held to the harness's lines on this firmware by the Pico
# lane's test_undo_a_move_the_end_and_a_new_game_at_the_table, and the scoreboard follows
# the harness's lines through all of it (tests/test_scoreboard.py).
SB_PLAYERS = 4
SB_SHIFT = 600
SB_END = 7800 + SB_SHIFT  # B held 3 s from here (half a second after the question's last
SB_MS = SB_END + 3300 + 400  # press): the end, when it is let go; its lines are the last


def _sb_script():
    import scenario

    shifted = ["%d %s" % (int(x.split()[0]) + SB_SHIFT, " ".join(x.split()[1:]))
               for x in scenario.QUESTION.strip().split("\n")]
    return "100 a\n" + "\n".join(shifted) + "\n%d b long\n" % SB_END


SB_TYPED = ((300, "\n"), (3000 + SB_SHIFT, "\n"))


def scoreboard_run():
    """The scoreboard's game on the real firmware, its console's bytes kept (cached)."""
    import scenario

    return run_cached(settings_text("", players=SB_PLAYERS), scenario.taps(_sb_script()),
                      SB_MS, typed=SB_TYPED, raw=True, pins=())


def scoreboard_harness(r):
    """The harness (the Pico profile) playing the scoreboard's game with the dice the
    board rolled in run ``r`` (its ``roll`` lines: the board's own random numbers), the
    same bytes typed, watched (tools/maker/scoreboard.py ``Watch``): (sim, watch)."""
    import harness as H
    import scenario
    import scoreboard

    sim = H.Sim(settings=settings_text("", players=SB_PLAYERS), board_name="pico")
    dice = iter([int(x) for _, s in r.lines() if s.startswith("roll ") for x in s.split()[1:]])
    sim.device.r.dice = lambda low, high: next(dice)
    for t, text in SB_TYPED:
        sim.type_in(int(t * 1000), text.encode())
    watch = scoreboard.Watch(sim)
    with watch:
        sim.play(scenario.taps(_sb_script()), SB_MS)
    return sim, watch
