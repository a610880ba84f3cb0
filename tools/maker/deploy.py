#!/usr/bin/env python3
"""Put QI Klaxon on a board's CIRCUITPY drive, with nothing but python3 (host-only tool).

    python3 tools/dev.py deploy              # find the board's drive (CIRCUITPY or QIKLAXON)
    python3 tools/dev.py deploy E:\\ --dry-run # say what would be written, write nothing
    python3 tools/maker/deploy.py PATH --mpy-cross ~/bin/mpy-cross-9   # CircuitPython's mpy-cross

It reads ``boot_out.txt`` to tell the board and the CircuitPython version
(9 and 10 are supported), then copies only what that board runs (``build``):
code.py, boot.py, safemode.py, the firmware's modules (``DEVICE``), that build's own
profile (no other board's tables), power.py only where the port can sleep or has a
watchdog, mixer.py only for WAV sounds, the sounds (not for tones), the three
CircuitPython libraries (not ``neopixel`` on the Express, whose firmware has it
frozen), each without its type hints (``lean_library``: the same code, fewer
interned names), and ``version.txt`` (the firmware's version: code.py prints it as
its first line). The same files, zipped, are the release bundles (tools/maker/bundle.py).

What it needs, it sets up itself, beside the repo (``.cache/``, never the test tools):
* the three libraries at the versions requirements.lock pins: from this Python's
  own environment when they are installed there at those versions (the developers'
  .venv), else fetched once with pip (``pip install --no-deps --target``) into
  ``.cache/libraries/`` (``library_source``);
* CircuitPython's own ``mpy-cross`` for the board's CircuitPython, to copy the
  modules and libraries as ``.mpy`` (less RAM at import; for the Express with
  ``-O3``, no line numbers, as it has no traceback module to show them): found on
  this computer or fetched from Adafruit's published builds and checked
  (tools/maker/mpycross.py). Without one it copies ``.py`` and says so; the Express needs
  ``.mpy``, so there it stops and says to use the bundle.

Safe by construction: it checks the free space before writing anything, in the
drive's whole blocks (``space_needed``); every file is written to a temporary name
(``*.qk-new``), read back and compared, then renamed; the old code.py goes first and
the new one last, so a deploy stopped half-way (a pulled cable, a full drive, Ctrl-C)
leaves a board that runs nothing, never a mix of old and new files, and its
temporaries are removed (a later deploy removes any an older one left). It never
writes settings.toml, so the maker's settings survive every update by construction (as
they do a copy of a whole bundle over the drive): the documented settings go as
settings.example.toml, and the firmware takes its default for any key settings.toml
does not set.

Exit status (``main``): 0 done; 2 what the user typed or chose is wrong; 1 the
computer or the drive failed; 130 Ctrl-C.
"""

import argparse
import errno
import hashlib
import importlib.util
import ntpath
import os
import platform
import posixpath
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import paths  # noqa: E402  (tools/paths.py: every group of tools/ on the path)
from paths import ROOT  # noqa: E402
from model import layout  # noqa: E402  (the builds: model/layout.py)
import mpycross  # noqa: E402  (CircuitPython's mpy-cross: found, or fetched and checked)

SUPPORTED = mpycross.SUPPORTED
LIBRARIES = ("adafruit_debouncer", "adafruit_ticks", "neopixel")
# Each library's distribution on PyPI (its version: requirements.lock)
DISTRIBUTIONS = {"adafruit_debouncer": "adafruit-circuitpython-debouncer",
                 "adafruit_ticks": "adafruit-circuitpython-ticks",
                 "neopixel": "adafruit-circuitpython-neopixel"}
LOCK = os.path.join(ROOT, "requirements.lock")
LIBRARY_CACHE = os.path.join(ROOT, ".cache", "libraries")
VERSION_FILE = os.path.join(ROOT, "VERSION")  # the firmware's version (a release's tag: v<it>)
# What a drive is called: CircuitPython names it CIRCUITPY, and boot.py QIKLAXON
LABELS = ("CIRCUITPY", "QIKLAXON")
FROZEN = layout.table("frozen")  # libraries in the board's own firmware
# (board id prefix, build) of the real boards, as the firmware tries them
BOARD_PROFILES = tuple(p for p in layout.BOARD_PROFILES if p[1] in layout.BOARDS)
ENTRY = ("boot.py", "safemode.py", "code.py")  # always .py; code.py is written last
VERSION_TXT = "version.txt"  # on the drive: code.py prints its line first
# The documented settings, on the drive beside the maker's settings.toml (never read by
# the firmware, never named settings.toml: an update cannot replace the maker's)
EXAMPLE = "settings.example.toml"
# That line, as the console shows it: the lanes tell it from the device's own lines by this
VERSION_LINE = re.compile(r"^QI Klaxon \S+ for [^,]+, CircuitPython \d+( and \d+)*$")
# CircuitPython major versions whose mpy-cross (mpycross.TAGS' versions: 9.2.9, 10.0.0)
# make byte-identical .mpy files of everything a deploy compiles, at the flags it uses
# (-O3 and one source name for the Express, the defaults elsewhere): both emit mpy v6.3,
# and the qstrs these files name are numbered alike. So one set of files, and one zip a
# board, serves both, and version.txt names both. tests/test_bundle.py compiles every
# build with both and fails the day they differ; then this becomes () and the zips split
# (tools/maker/bundle.py makes one per version whenever the files differ).
SAME_MPY = (9, 10)
# The host's model of the game, never copied: the names of the builds and of the state
# (tools read them; each device module holds its own const copies), the readable Game
# API. lib/ and hardware/ hold the board's files only (hardware/__init__.py and
# profile_simulated.py aside: the host's)
HOST_ONLY = "model/"
# What every build runs; hardware/settings.py, start.py, outputs.py and
# qiklaxon/restore.py are freed after start-up.
# No __init__ files: hardware/ and qiklaxon/ import as namespace packages, one module
# (its path and bytecode) less in RAM each.
DEVICE = ("hardware/steps.py", "hardware/settings.py", "hardware/start.py", "hardware/outputs.py",
          "hardware/device.py", "lib/qiklaxon/core.py", "lib/qiklaxon/restore.py", "lib/qiklaxon/undo.py",
          "lib/qiklaxon/reveal.py", "lib/qiklaxon/entry.py", "lib/qiklaxon/over.py",
          "lib/qiklaxon/save.py", "lib/qiklaxon/seats.py", "lib/state.py")
SOUNDS = ("klaxon", "denied", "blip", "done", "undone")  # tools/gen/synth.py NAMES (a test holds it)
# The Express has no traceback module to show where an error was, so its .mpy files
# carry no line numbers (-O3) and one source name for all ("-s q"): every name a
# module holds stays in its RAM, and these would be names nobody reads.
MPY_FLAGS = {"cpx": ("-O3", "-s", "q")}


class DeployError(Exception):
    """What stops a deploy, in words for the user: the computer or the drive failed
    (no space, a write failed, offline). The command exits ``code``."""

    code = 1


class BadInput(DeployError):
    """What the user typed or chose is wrong (a path that is no board's drive, a
    CircuitPython the firmware does not run on, an mpy-cross that is not that
    CircuitPython's): exit 2, as every bad input in the project."""

    code = 2


class Stopped(DeployError):
    """Ctrl-C while the drive was being written: exit 130, as a shell's Ctrl-C."""

    code = 130


def version():
    """The firmware's version (the file VERSION: a release is tagged v<it>)."""
    with open(VERSION_FILE, encoding="utf-8") as f:
        v = f.read().strip()
    if not re.match(r"^\d+\.\d+\.\d+([.+-][0-9A-Za-z.+-]+)?$", v):
        raise DeployError("VERSION holds %r, not a version like 1.2.3" % v)
    return v


def serves(major):
    """The CircuitPython majors the files made for ``major`` run on (``SAME_MPY``)."""
    return SAME_MPY if major in SAME_MPY else (major,)


def version_line(profile, majors):
    """version.txt's one line for a build whose files run on CircuitPython ``majors`` (a
    number, or the numbers: "CircuitPython 9 and 10")."""
    majors = (majors,) if isinstance(majors, int) else tuple(majors)
    return "QI Klaxon %s for %s, CircuitPython %s\n" % (
        version(), layout.BY_PROFILE[profile]["title"], " and ".join(str(m) for m in majors))


def _windows_volumes():
    """[(root, volume label)] of the mounted drives (Windows: its own calls, no package)."""
    import ctypes
    import string

    kernel = ctypes.windll.kernel32
    kernel.SetErrorMode(1)  # SEM_FAILCRITICALERRORS: an empty card reader asks nothing
    mask = kernel.GetLogicalDrives()
    out = []
    for i, letter in enumerate(string.ascii_uppercase):
        if mask >> i & 1:
            root = letter + ":\\"
            label = ctypes.create_unicode_buffer(261)
            if kernel.GetVolumeInformationW(ctypes.c_wchar_p(root), label, 261, None, None, None,
                                            None, 0):
                out.append((root, label.value))
    return out


def _listdir(path):
    try:
        return sorted(os.listdir(path))
    except OSError:
        return []


def _is_label(name):
    """A drive name CircuitPython or boot.py gives (a second board: "CIRCUITPY1",
    "CIRCUITPY 1")."""
    return re.match(r"^(%s)( ?\d+)?$" % "|".join(LABELS), name.upper()) is not None


def drive_places(system=None, env=None):
    """Where mounted drives show up on this computer (for the messages)."""
    system = system or platform.system()
    env = os.environ if env is None else env
    if system == "Windows":
        return ["the drive letters"]
    if system == "Darwin":
        return ["/Volumes"]
    user = env.get("USER") or env.get("LOGNAME") or ""
    # the user's own folders first; then any user's (USER unset, root, sudo: the desktop
    # mounts the drive under the logged-in user's name, not this process's)
    own = ["/media/%s" % user, "/run/media/%s" % user] if user else []
    return own + ["/media/*", "/run/media/*", "/media", "/run/media", "/mnt"]


def find_drives(system=None, env=None, listdir=_listdir, exists=os.path.exists, volumes=None):
    """The mounted CircuitPython drives: named CIRCUITPY (or QIKLAXON, as boot.py names
    it) and holding boot_out.txt. Windows: the drive letters, by volume label; macOS:
    /Volumes; Linux and the rest: the usual mount folders (``drive_places``).

    The probes (``system`` as ``platform.system()``, ``env``, ``listdir``, ``exists``,
    ``volumes``: [(root, label)]) are arguments, so that each computer's logic runs,
    and is tested, on any other."""
    system = system or platform.system()
    found = []
    if system == "Windows":
        for root, label in (volumes or _windows_volumes)():
            if _is_label(label or "") and exists(ntpath.join(root, "boot_out.txt")):
                found.append(root)
        return found
    bases = []
    for place in drive_places(system, env):
        if place.endswith("/*"):  # each folder in it (one level down: /media/alice)
            bases += [posixpath.join(place[:-2], n) for n in listdir(place[:-2])]
        else:
            bases.append(place)
    for base in bases:
        for name in listdir(base):
            path = posixpath.join(base, name)
            if _is_label(name) and exists(posixpath.join(path, "boot_out.txt")) \
                    and path not in found:
                found.append(path)
    return found


def find_drive():
    """The one mounted CircuitPython drive, or None (none, or several: main says which)."""
    found = find_drives()
    return found[0] if len(found) == 1 else None


def excerpt(text, limit=80):
    """At most ``limit`` characters of ``text`` to show the user: its first line, with
    anything unprintable as "?", or a note that it is not text at all (a damaged file)."""
    line = text.lstrip("\ufeff").strip().split("\n", 1)[0][:limit]
    shown = "".join(c if c.isprintable() and c != "\ufffd" else "?" for c in line)
    if not shown or shown.count("?") > len(shown) // 4:
        return "(it is not text: a damaged file?)"
    return "(it starts: %r)" % shown


def check_drive(drive):
    """A clear BadInput unless ``drive`` is a folder holding boot_out.txt."""
    if not os.path.exists(drive):
        raise BadInput("%s does not exist: give the board's drive (CIRCUITPY, or QIKLAXON once "
                       "QI Klaxon has run), or nothing to let the deploy find it" % drive)
    if not os.path.isdir(drive):
        raise BadInput("%s is not a folder: give the board's drive (CIRCUITPY, or QIKLAXON once "
                       "QI Klaxon has run), not a file on it" % drive)
    if not os.path.isfile(os.path.join(drive, "boot_out.txt")):
        raise BadInput("%s has no boot_out.txt: is it a CIRCUITPY drive? (CircuitPython writes "
                       "that file at every start)" % drive)


def board_info(drive):
    """(CircuitPython major version, version text, board id) from boot_out.txt."""
    check_drive(drive)
    path = os.path.join(drive, "boot_out.txt")
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            text = f.read(2000)
    except OSError as e:
        raise DeployError("could not read %s: %s" % (path, e))
    m = re.search(r"CircuitPython (\d+)\.(\d+)\.(\S+)", text) or re.search(
        r"CircuitPython (\d+)\.(\d+)", text)
    if not m:
        raise BadInput("%s does not name a CircuitPython version %s: is it a CIRCUITPY drive? "
                       "Reset the board and CircuitPython writes it again" % (path, excerpt(text)))
    major = int(m.group(1))
    version = m.group(0).split(" ", 1)[1]
    b = re.search(r"Board ID:\s*(\S+)", text)
    return major, version, b.group(1) if b else "unknown"


def supported_board(drive):
    """board_info(drive), and a BadInput if the firmware does not run on its CircuitPython."""
    major, version_text, board_id = board_info(drive)
    if major not in SUPPORTED:
        raise BadInput("CircuitPython %s is not supported: install CircuitPython %s "
                       "(docs/install.md)" % (version_text,
                                              " or ".join(str(v) for v in SUPPORTED)))
    return major, version_text, board_id


def profile_for(board_id):
    """The build a real board with ``board_id`` runs (model/layout.py), or None."""
    name = layout.profile_for(board_id)
    return name if name in layout.BOARDS else None


def locked(dist):
    """The version requirements.lock pins for distribution ``dist``."""
    def norm(name):
        return re.sub(r"[-_.]+", "-", name).lower()

    with open(LOCK, encoding="utf-8") as f:
        for line in f:
            m = re.match(r"^\s*([A-Za-z0-9_.-]+)==(\S+)", line)
            if m and norm(m.group(1)) == norm(dist):
                return m.group(2)
    raise DeployError("requirements.lock pins no version of %s" % dist)


def _installed_version(dist):
    try:
        from importlib import metadata
    except ImportError:  # (Python 3.7)
        return None
    try:
        return metadata.version(dist)
    except Exception:
        return None


def library_cache():
    """The folder of the three libraries at their locked versions (fetched by pip)."""
    pins = "-".join("%s-%s" % (DISTRIBUTIONS[n], locked(DISTRIBUTIONS[n])) for n in LIBRARIES)
    return os.path.join(LIBRARY_CACHE, hashlib.sha256(pins.encode()).hexdigest()[:12])


def _cached(name):
    """The cached copy of library ``name`` when it is there at the locked version."""
    folder = library_cache()
    dist = DISTRIBUTIONS[name]
    info = "%s-%s.dist-info" % (dist.replace("-", "_"), locked(dist))
    path = os.path.join(folder, name + ".py")
    if os.path.isfile(path) and info.lower() in [n.lower() for n in _listdir(folder)]:
        return path
    return None


def _pip():
    """A command that runs pip: this Python's own, else a small venv's beside the repo
    (.cache/pip-venv, made with the standard library's venv and ensurepip)."""
    def works(py):
        try:
            return subprocess.run([py, "-m", "pip", "--version"], capture_output=True,
                                  timeout=120).returncode == 0
        except (OSError, subprocess.SubprocessError):
            return False

    if works(sys.executable):
        return [sys.executable, "-m", "pip"]
    folder = os.path.join(ROOT, ".cache", "pip-venv")
    py = os.path.join(folder, "Scripts" if os.name == "nt" else "bin",
                      "python.exe" if os.name == "nt" else "python")
    if not works(py):
        try:
            import venv

            venv.EnvBuilder(with_pip=True, clear=True).create(folder)
        except Exception as e:  # (Debian's python3 without python3-venv: no ensurepip)
            raise DeployError("this python3 has no pip and cannot make a venv with one (%s): "
                              "install pip (Debian, Ubuntu: sudo apt install python3-pip "
                              "python3-venv), or use the bundle for your board from the "
                              "Releases page (docs/install.md)" % e)
    return [py, "-m", "pip"]


def _from_environment(name):
    """Library ``name``'s file in this Python's environment, if it is there at the locked
    version (the developers' .venv), else None."""
    spec = importlib.util.find_spec(name)
    dist = DISTRIBUTIONS[name]
    if spec is not None and spec.origin and _installed_version(dist) == locked(dist):
        return spec.origin
    return None


FETCH = True  # may library_source fetch what is missing (main's --offline: no)


def fetch_libraries(out=print):
    """Put the three libraries, at the versions requirements.lock pins, into
    ``library_cache()`` with pip (only them: ``--no-deps``), unless they are here already
    (there or in this environment)."""
    if all(_from_environment(n) or _cached(n) for n in LIBRARIES):
        return library_cache()
    if not FETCH:
        raise DeployError("the CircuitPython libraries are not here and --offline fetches "
                          "nothing: run once online, or use the bundle for your board "
                          "(docs/install.md)")
    wanted = ["%s==%s" % (DISTRIBUTIONS[n], locked(DISTRIBUTIONS[n])) for n in LIBRARIES]
    out("fetching the CircuitPython libraries with pip: %s" % " ".join(wanted))
    folder = library_cache()
    os.makedirs(os.path.dirname(folder), exist_ok=True)
    tmp = tempfile.mkdtemp(prefix=".fetching-", dir=os.path.dirname(folder))
    try:
        r = subprocess.run(_pip() + ["install", "--no-deps", "--no-compile", "--no-input",
                                     "--disable-pip-version-check", "--target", tmp] + wanted,
                           capture_output=True, text=True, timeout=900)
        if r.returncode:
            said = [line for line in (r.stderr + r.stdout).splitlines()
                    if line.strip() and not line.startswith("WARNING")]
            raise DeployError("pip could not fetch %s (%s): offline? Use the bundle for your "
                              "board from the Releases page (docs/install.md)"
                              % (" ".join(wanted), " / ".join(said[-3:]) or r.returncode))
        if os.path.exists(folder):
            shutil.rmtree(folder)
        os.replace(tmp, folder)
    finally:
        if os.path.exists(tmp):
            shutil.rmtree(tmp, ignore_errors=True)
    missing = [n for n in LIBRARIES if not _cached(n)]
    if missing:
        raise DeployError("pip installed no %s at the locked version into %s"
                          % (", ".join(missing), folder))
    return folder


def library_source(name):
    """The file of CircuitPython library ``name``. One of the three a deploy copies: at the
    version requirements.lock pins, from this Python's environment when it has that
    version (the developers' .venv), else from ``library_cache()``, fetched with pip the
    first time. Any other (the CircuitPython lane's stand-ins): from this environment."""
    if name not in DISTRIBUTIONS:
        spec = importlib.util.find_spec(name)
        if spec is None or not spec.origin:
            raise DeployError("library %s is not installed here: run 'python3 tools/dev.py "
                              "test' once" % name)
        return spec.origin
    found = _from_environment(name) or _cached(name)
    if not found:
        fetch_libraries(out=lambda *a: None)
        found = _cached(name)
    return found


# Modules a library imports only for its type hints, in ``try: ... except ImportError: pass``
# (neopixel's ``microcontroller`` too: for ``microcontroller.Pin`` in an annotation)
TYPING = ("typing", "typing_extensions", "circuitpython_typing", "types", "microcontroller")


def is_library(rel):
    """Is ``rel`` (a path on the drive) one of the CircuitPython libraries a deploy copies?"""
    return rel.startswith("lib/") and rel.count("/") == 1 and rel[4:-3] in LIBRARIES


def _hint_import(node):
    """Does ``node`` import (only) from the type-hint modules?"""
    import ast

    if isinstance(node, ast.ImportFrom):
        mods = [node.module or ""]
    elif isinstance(node, ast.Import):
        mods = [a.name for a in node.names]
    else:
        return False
    return all(m.split(".")[0] in TYPING for m in mods)


def lean_library(src):
    """The text of library ``src`` as a deploy copies it: the same code without what costs the
    board names and RAM and does nothing there (the library's own file is not changed).

    * ``_X: int = const(n)`` becomes ``_X = const(n)``: an annotated assignment is not
      folded by the compiler, so each such const stays a global (a name, a dict entry, a
      lookup at every use); the plain form is free;
    * every other annotation goes (parameters, returns, variables): none does anything on
      the board, and a variable's annotation turns nothing into a const;
    * ``try:`` blocks that import only from the type-hint modules (``TYPING``), whose
      ``except ImportError:`` is ``pass`` and none of whose names the code left uses, go:
      the library already runs without those names, as it does on every board that
      lacks them, but each name they list is interned when the module loads;
    * what the firmware never uses of it (``layout.LIBRARY_UNUSED``: a top-level class or
      function, ``Class.member`` a method or property, its setter too) goes: loaded, it
      would be bytecode and names in RAM that start-up deletes again, leaving holes.

    The licence header (the comments before the code) and every statement else stay,
    ``__version__`` too; comments inside the code do not (Python's ast keeps none)."""
    import ast

    with open(src, encoding="utf-8") as f:
        text = f.read()
    tree = ast.parse(text, src)

    class Lean(ast.NodeTransformer):
        def visit_AnnAssign(self, node):
            if node.value is None:  # a bare declaration (``x: int``) does nothing at run time
                return None
            return ast.copy_location(ast.Assign(targets=[node.target], value=node.value), node)

        def visit_FunctionDef(self, node):
            node.returns = None
            a = node.args
            for arg in a.posonlyargs + a.args + a.kwonlyargs + [a.vararg, a.kwarg]:
                if arg is not None:
                    arg.annotation = None
            return self.generic_visit(node)

        visit_AsyncFunctionDef = visit_FunctionDef

        def visit_Try(self, node):
            quiet = node.handlers and all(
                len(h.body) == 1 and isinstance(h.body[0], ast.Pass) and h.type is not None
                and ast.unparse(h.type) in ("ImportError", "(ImportError,)")
                for h in node.handlers)
            if quiet and all(_hint_import(n) for n in node.body) and not node.orelse \
                    and not node.finalbody:
                hints.append(node)
            return self.generic_visit(node)

    hints = []
    tree = Lean().visit(tree)
    unused = layout.LIBRARY_UNUSED.get(os.path.basename(src)[:-3], ())
    tree.body = [n for n in tree.body if getattr(n, "name", None) not in unused]
    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            node.body = [n for n in node.body
                         if "%s.%s" % (node.name, getattr(n, "name", "")) not in unused]
    # a hint block goes if, its annotations gone, nothing uses a name it imports
    used = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
    for node in ast.walk(tree):
        for field in ("body", "orelse", "finalbody"):
            stmts = getattr(node, field, None)
            if isinstance(stmts, list):
                setattr(node, field, [s for s in stmts if not (s in hints and not used & {
                    (a.asname or a.name).split(".")[0] for i in s.body for a in i.names})])
    for node in ast.walk(tree):  # a body emptied of declarations still needs a statement
        if not isinstance(node, ast.Module) and getattr(node, "body", None) == []:
            node.body = [ast.Pass()]
    tree = ast.fix_missing_locations(tree)
    header = []
    for line in text.splitlines():
        if not line.startswith("#") and line.strip():
            break
        header.append(line)
    while header and not header[-1].strip():
        header.pop()
    return "\n".join(header) + "\n\n" + ast.unparse(tree) + "\n"


def plan(drive, board_id, settings_text):
    """[(source path, destination relative path, compile to .mpy?)] for this board (``drive``
    is not read: the board id and its settings.toml's text say it all)."""
    files = [(os.path.join(ROOT, name), name, False) for name in ENTRY]
    profile = profile_for(board_id) or "pico"  # an unknown board starts with the Pico's names
    prof = profile_dict(profile)
    # tone sweeps (the Express's DAC, a Pico's piezo) need no WAV files
    piezo = prof["audio"] != 1 and not (prof["audio"] == 2 and _setting(settings_text,
                                                                         "QK_AUDIO") == "amp")
    device = list(DEVICE) + ["hardware/profile_%s.py" % profile]
    if prof["sleep"] or prof["watchdog"]:
        device.append("hardware/power.py")
    if not piezo:  # audiopwmio, with an audiomixer voice for the volume
        device.append("hardware/mixer.py")
    for rel in device:
        files.append((os.path.join(ROOT, *rel.split("/")), rel, True))
    if not piezo:
        for name in SOUNDS:
            files.append((os.path.join(ROOT, "sounds", name + ".wav"), "sounds/%s.wav" % name, False))
    for name in LIBRARIES:
        if name not in FROZEN.get(profile, ()):
            files.append((library_source(name), "lib/%s.py" % name, True))
    # code.py last: nothing runs the new firmware until everything else is in place
    files.sort(key=lambda f: f[1] == "code.py")
    assert not [rel for _, rel, _ in files if rel.startswith(HOST_ONLY)], "a host-only file in a deploy"
    return files


def _setting(text, key):
    """What the firmware reads for ``key`` from a settings.toml's ``text`` (its own reader)."""
    import contextlib
    import io

    from hardware.settings import KEYS, read  # (the root: on the path by tools/paths.py)

    with contextlib.redirect_stdout(io.StringIO()):  # its reports are the board's to print
        values, _ = read(text.splitlines())
    return values[[k[0] for k in KEYS].index(key)]


def profile_dict(name):
    """The PROFILE of build ``name`` (hardware/profile_<name>.py) by field name, read as text."""
    import ast

    with open(os.path.join(ROOT, "hardware", "profile_%s.py" % name)) as f:
        tree = ast.parse(f.read())
    for node in tree.body:
        if isinstance(node, ast.Assign) and node.targets[0].id == "PROFILE":
            import simprofiles  # (tools/simulated/simboard: on the path, tools/paths.py)

            return simprofiles.named(ast.literal_eval(node.value))
    raise DeployError("hardware/profile_%s.py has no PROFILE" % name)


def check_mpy_cross(tool, major):
    """``tool`` is CircuitPython ``major``'s own mpy-cross (tools/maker/mpycross.py ``check``):
    MicroPython's writes .mpy files CircuitPython refuses, and the other CircuitPython's
    numbers the firmware's names differently."""
    try:
        mpycross.check(tool, major)
    except mpycross.MpyCrossError as e:  # (the one the user gave, or chose by QK_MPY_CROSS)
        raise BadInput(str(e))


COMPILE_TIMEOUT_S = 60  # one module; CircuitPython's mpy-cross takes well under a second


def compile_mpy(tool, src, tmp, rel, flags=()):
    """``src`` compiled by ``tool``; the source name inside is ``rel`` unless ``flags`` say.
    A compiler that passed its check (``mpycross.check``: its version, a probe) can still
    fail on a real module (a damaged or odd build): a DeployError, before anything is
    written, never a traceback."""
    out = os.path.join(tmp, os.path.basename(src)[:-3] + ".mpy")
    hint = ("it passed its check, so it may be damaged or not the build its version says: "
            "give another with --mpy-cross PATH, copy .py files with --py (not for the "
            "Express), or use the bundle for your board (docs/install.md). Nothing was written")
    try:
        r = subprocess.run([tool, "-s", rel] + list(flags) + ["-o", out, src],
                           capture_output=True, timeout=COMPILE_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        raise DeployError("%s did not finish compiling %s in %d s; %s" % (
            tool, rel, COMPILE_TIMEOUT_S, hint))
    except (OSError, subprocess.SubprocessError) as e:
        raise DeployError("%s did not run to compile %s (%s); %s" % (tool, rel, e, hint))
    if r.returncode or not os.path.isfile(out):
        said = [line.strip() for line in (r.stderr + r.stdout).decode("utf-8", "replace")
                .splitlines() if line.strip()]
        raise DeployError("%s could not compile %s (%s); %s" % (
            tool, rel, " / ".join(said[-2:])[:200] or "exit %d" % r.returncode, hint))
    with open(out, "rb") as f:
        return f.read()


TEMP = ".qk-new"  # a file being written: renamed to its name once read back whole


def _write_verified(path, data):
    """Write ``data`` to ``path`` through a temporary name, read it back, then rename. On
    any failure (Ctrl-C too) the temporary goes, and the file at ``path`` is as it was."""
    os.makedirs(os.path.dirname(path), exist_ok=True)
    tmp = path + TEMP
    try:
        with open(tmp, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        with open(tmp, "rb") as f:
            if hashlib.sha256(f.read()).digest() != hashlib.sha256(data).digest():
                raise DeployError("%s did not read back as written: the drive may be failing"
                                  % path)
        os.replace(tmp, path)
    except BaseException:
        _remove_quietly(tmp)
        raise


def _remove_quietly(path):
    try:
        if os.path.isfile(path):
            os.remove(path)
    except OSError:
        pass


def stale_temporaries(drive):
    """The ``*.qk-new`` files on ``drive``: what a deploy that did not finish (an older
    one, or one whose cable was pulled) left behind. Never anyone's data."""
    found = []
    for folder, dirs, names in os.walk(drive):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))  # (.Trashes, .fseventsd)
        found += [os.path.join(folder, n) for n in sorted(names) if n.endswith(TEMP)]
    return found


def block_size(drive):
    """The drive's allocation unit in bytes: every file takes whole blocks (a FAT drive's
    clusters, 512 bytes or more). ``os.statvfs`` where the computer has it; else 4096
    (Windows: more than a CIRCUITPY drive's clusters, so never too little)."""
    try:
        st = os.statvfs(drive)
        size = st.f_frsize or st.f_bsize
    except (AttributeError, OSError):
        return 4096
    return max(size, 512) if size else 4096


def _blocks(size, block):
    return -(-size // block) * block  # (an empty file takes none)


def space_needed(drive, contents, block, removed=()):
    """Bytes of free space writing ``contents`` [(relative path, bytes)] onto ``drive``
    needs at its fullest, with every file in whole ``block``s: in order, each file's
    temporary sits beside the old file it replaces until it is renamed over it; a block
    for each folder it makes, and one for the folders' growing lists of names.
    ``removed``: the drive's paths removed before writing (stale temporaries, the old
    code.py), whose blocks come free first."""
    def on_drive(rel):
        path = os.path.join(drive, *rel.split("/"))
        return _blocks(os.path.getsize(path), block) if os.path.isfile(path) else 0

    folders = set()
    for rel, _ in contents:
        parts = rel.split("/")[:-1]
        folders |= {"/".join(parts[:i + 1]) for i in range(len(parts))
                    if not os.path.isdir(os.path.join(drive, *parts[:i + 1]))}
    used = (len(folders) + 1) * block - sum(_blocks(os.path.getsize(p), block) for p in removed
                                            if os.path.isfile(p))
    gone = {os.path.relpath(p, drive).replace(os.sep, "/") for p in removed}
    peak = used
    for rel, data in contents:
        new = _blocks(len(data), block)
        peak = max(peak, used + new)
        used += new - (0 if rel in gone else on_drive(rel))
    return peak


def build(board_id, major, settings_text=None, mpy_cross=None, majors=None):
    """[(relative path, bytes)] a deploy writes for a board with ``board_id`` on
    CircuitPython ``major``, in the order it writes them (code.py last). ``settings_text``:
    the drive's settings.toml (None: it has none), read only for what it changes in the
    list (``QK_AUDIO = "amp"``: the WAV sounds); ``mpy_cross``: CircuitPython ``major``'s
    mpy-cross, checked by the caller (None: .py). Never ``settings.toml`` itself: the
    maker's, kept by construction (a copy of a whole zip over the drive cannot replace
    it); the documented settings go as ``settings.example.toml``, which the firmware never
    reads, and a key missing from settings.toml takes its default. ``majors``: the
    CircuitPython versions version.txt names (default ``serves(major)``).
    The one list of what a build gets: tools/maker/bundle.py zips exactly this."""
    profile = profile_for(board_id)
    contents = []
    with tempfile.TemporaryDirectory() as tmp:
        for src, rel, compilable in plan(None, board_id, settings_text or ""):
            if is_library(rel):  # as .mpy or .py, without the names the board does not need
                lean = os.path.join(tmp, "lean", os.path.basename(src))
                os.makedirs(os.path.dirname(lean), exist_ok=True)
                with open(lean, "w", encoding="utf-8") as f:
                    f.write(lean_library(src))
                src = lean
            if mpy_cross and compilable:
                data = compile_mpy(mpy_cross, src, tmp, rel, MPY_FLAGS.get(profile, ()))
                rel = rel[:-3] + ".mpy"
            else:
                with open(src, "rb") as f:
                    data = f.read()
            if rel == "code.py":  # the version first: code.py prints it as its first line
                contents.append((VERSION_TXT, version_line(profile or "pico",
                                                           majors or serves(major)).encode()))
            contents.append((rel, data))
    with open(os.path.join(ROOT, EXAMPLE), "rb") as f:  # every setting explained, never read
        contents.insert(0, (EXAMPLE, f.read()))
    return contents


def holds_settings(text):
    """Does a settings.toml's ``text`` set anything: a line that is not blank and not a
    comment? CircuitPython itself puts an empty settings.toml on a fresh drive (wherever
    it has ``os.getenv``: the Bluefruit, the Pico): that one sets nothing yet."""
    for line in text.lstrip("\ufeff").splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            return True
    return False


# How a maker changes a setting (the deploy says it; install.md and the zip's README too)
HOW_TO_SET = ("to change one, copy its lines from %s (every setting, explained) into "
              "settings.toml" % EXAMPLE)


def settings_said(text):
    """What the deploy says of the drive's settings.toml (``text``; None: there is none).
    It never writes that file: whatever is there stays, byte for byte."""
    if text is None:
        return ("settings.toml: none on the drive, so the board uses the defaults; " + HOW_TO_SET
                + " (a new file)")
    if not holds_settings(text):
        return ("settings.toml: sets nothing yet (as CircuitPython makes it), so the board uses "
                "the defaults; " + HOW_TO_SET)
    return "settings.toml: yours, kept as it is (a deploy never writes it)"


def in_the_way(drive, contents):
    """A DeployError (nothing written yet) when something on ``drive`` stands where a file
    of ``contents`` goes and a deploy cannot move it: a folder where a file goes (a
    folder ``code.py``), a file where a folder goes (a file ``lib``), a folder where a
    ``.py`` a new ``.mpy`` replaces is. Run again, the deploy would fail the same way, so
    it says what to move first."""
    rels = [rel for rel, _ in contents]
    rels += [rel[:-4] + ".py" for rel in rels if rel.endswith(".mpy")]
    for rel in rels:
        parts = rel.split("/")
        for i in range(1, len(parts)):
            folder = "/".join(parts[:i])
            if os.path.isfile(os.path.join(drive, *parts[:i])):
                raise DeployError(
                    "%s on the drive is a file, and QI Klaxon needs a folder of that name (for "
                    "%s): copy that file to your computer if you want it, delete it from the "
                    "drive, then run the deploy again (nothing was written)" % (folder, rel))
        if os.path.isdir(os.path.join(drive, *parts)):
            raise DeployError(
                "%s on the drive is a folder, and QI Klaxon needs a file of that name there: "
                "copy what is in that folder to your computer if you want it, delete the folder "
                "from the drive, then run the deploy again (nothing was written)" % rel)


# A drive the computer may only read: a boot.py gave it to the board (storage.remount("/",
# readonly=False); QI Klaxon's boot.py never does). Deleting that boot.py from the drive is
# what cannot be done; the serial console's prompt runs on the board, which may write, on
# every board (a Pico has no reset button for safe mode). docs/troubleshooting.md says
# these words (a test holds them together).
def _writable(drive):
    """Whether the computer can make a file on ``drive`` now (a probe, removed again)."""
    probe = os.path.join(drive, ".qk-probe" + TEMP)
    try:
        with open(probe, "wb") as f:
            f.write(b"")
        os.remove(probe)
        return True
    except OSError:
        return False


READ_ONLY = ("A boot.py (an old project's: QI Klaxon's leaves the drive to the computer) "
             "gave the drive to the board. The way out, on every board: open the board's "
             "serial console (docs/install.md, The serial console), press Ctrl-C, then at the "
             ">>> prompt type import os; os.rename(\"/boot.py\", \"/boot.bak\") and press Enter; "
             "then press the board's reset button once (a Pico has none: unplug it and plug it "
             "back in), and run the deploy again. If the prompt answers Read-only filesystem, "
             "boot.py is not the cause: the computer found an error on the drive; unplug the "
             "board, plug it back in, and let the computer check the drive if it offers to.")
# What a successful deploy says last: CircuitPython restarts code.py by itself after the
# copy, but only a reset runs boot.py (which names the drive QIKLAXON)
RESET = ("The board starts QI Klaxon by itself; press its reset button once (a Pico has none: "
         "unplug it and plug it back in) so that boot.py runs too and names the drive "
         "QIKLAXON. Then check it: docs/first-power-on.md")
# Where the deploy keeps what it fetched (the libraries, a pip venv, mpy-cross)
CACHE = os.path.join(ROOT, ".cache")


def cache_trouble(e):
    """A DeployError with what to do when OSError ``e`` was about ``CACHE`` (made by another
    user: a deploy once run with sudo; its folders are its owner's only), else None."""
    name = getattr(e, "filename", None)
    if not name or not os.path.abspath(str(name)).startswith(CACHE):
        return None
    return DeployError(
        "cannot use %s, where the deploy keeps what it fetched (%s: %s): another user made it "
        "(a deploy once run with sudo?). Give it back to yourself (Linux, macOS: sudo chown -R "
        "$USER %s), or delete it (it is only a cache: it is fetched again), then run the "
        "deploy again; nothing was written" % (CACHE, name, e.strerror or e, CACHE))


# What a deploy stopped while writing leaves: its temporaries are removed, and code.py,
# written last, is not there yet (the old one went first)
HALF_WRITTEN = ("the drive is half-written and has no code.py, so the board runs nothing (never "
                "a mix of old and new files): run the deploy again")


def deploy(drive, mpy_cross=None, dry_run=False, out=print):
    """Deploy to ``drive``; returns the list of (relative path, bytes) written (or planned).
    ``mpy_cross``: CircuitPython's own mpy-cross for the board's CircuitPython (checked
    here), for .mpy files; None: .py (main() finds or fetches one).

    Over an existing install the old code.py is removed before anything else is written
    (the new one goes last), so that a deploy stopped half-way (a pulled cable, a full
    drive, Ctrl-C) leaves a board that runs nothing, never new modules under the old
    code.py or the other way round; its temporaries are removed, and the error says to
    run the deploy again. A later deploy removes any ``*.qk-new`` an older one left."""
    major, version_text, board_id = supported_board(drive)
    profile = profile_for(board_id)
    out("board: %s (CircuitPython %s) -> build %s" % (
        board_id, version_text, profile or "unknown: set QK_BOARD and the QK_PIN_ settings"))
    settings_path = os.path.join(drive, "settings.toml")
    settings_raw = None
    if os.path.isdir(settings_path):
        raise DeployError("%s is a folder, not CircuitPython's settings file: move what is in it "
                          "off the drive and remove it, then run the deploy again (nothing was "
                          "written)" % settings_path)
    if os.path.exists(settings_path):
        try:
            with open(settings_path, "rb") as f:
                settings_raw = f.read()
        except OSError as e:
            raise DeployError("could not read %s: %s (nothing was written)" % (settings_path, e))
    settings_text = None if settings_raw is None else settings_raw.decode("utf-8", "replace")
    if mpy_cross:
        check_mpy_cross(mpy_cross, major)
        out("modules and libraries as .mpy (compiled by %s)" % mpy_cross)
    else:
        out("modules and libraries as .py (CircuitPython's mpy-cross makes them .mpy: less "
            "RAM at import, which the Express needs)")
    contents = build(board_id, major, settings_text, mpy_cross)
    out(settings_said(settings_text))
    in_the_way(drive, contents)
    need = sum(len(d) for _, d in contents)
    block = block_size(drive)
    stale = stale_temporaries(drive)
    old_code = os.path.join(drive, "code.py")
    removed = stale + ([old_code] if os.path.isfile(old_code) else [])
    peak = space_needed(drive, contents, block, removed)
    free = shutil.disk_usage(drive).free
    out("%d files, %d bytes; in the drive's %d-byte blocks, writing them needs %d bytes free "
        "at most; it has %d" % (len(contents), need, block, peak, free))
    if peak > free:
        raise DeployError("not enough space on %s: writing needs %d bytes free (the files in "
                          "whole %d-byte blocks, each written beside the file it replaces), it "
                          "has %d; remove old files (nothing was written)"
                          % (drive, peak, block, free))

    def shown(path):
        return os.path.relpath(path, drive).replace(os.sep, "/")

    if dry_run:
        for path in stale:
            out("  would remove %-33s (left by a deploy that did not finish)" % shown(path))
        for rel, data in contents:
            out("  would write %-34s %7d bytes" % (rel, len(data)))
        return [(rel, len(data)) for rel, data in contents]
    changed = False  # has anything of the board's firmware changed yet?
    doing = "the drive"
    try:
        for path in stale:
            doing = shown(path)
            os.remove(path)
            out("  removed %-34s (left by a deploy that did not finish)" % doing)
        if os.path.isfile(old_code):
            doing = "code.py"
            os.remove(old_code)
            changed = True
            out("  removed the old code.py first (the new one goes last): until then the board "
                "runs nothing, never a mix of old and new files")
        for rel, data in contents:
            doing = rel
            _write_verified(os.path.join(drive, *rel.split("/")), data)
            changed = True
            out("  wrote %-34s %7d bytes" % (rel, len(data)))
            if rel.endswith(".mpy"):  # a stale .py beside the .mpy would be imported instead
                stale_py = os.path.join(drive, *rel[:-4].split("/")) + ".py"
                if os.path.exists(stale_py):
                    os.remove(stale_py)
    except BaseException as e:
        for rel, _ in contents:  # every temporary this deploy made
            _remove_quietly(os.path.join(drive, *rel.split("/")) + TEMP)
        then = HALF_WRITTEN if changed else "nothing on the drive was changed"
        if isinstance(e, KeyboardInterrupt):
            raise Stopped("stopped (Ctrl-C) while writing %s; its temporary files are removed, "
                          "and %s" % (drive, then))
        if isinstance(e, DeployError):
            raise DeployError("%s; %s" % (e, then))
        if isinstance(e, PermissionError) and getattr(e, "errno", None) != errno.EROFS and \
                _writable(drive):  # one file the computer may not replace, not the drive
            raise DeployError("the computer may not replace %s on %s (%s): it is locked "
                              "(Windows: its Properties, untick Read-only; macOS: Get Info, "
                              "untick Locked; Linux: chmod u+w, or chattr -i), then run the "
                              "deploy again; %s" % (
                                  getattr(e, "filename", None) or doing, drive,
                                  e.strerror or e, then))
        if isinstance(e, PermissionError) or getattr(e, "errno", None) == errno.EROFS:
            raise DeployError("%s is read-only for this computer (%s), and %s. %s" % (
                drive, e.strerror or e, then, READ_ONLY))
        if getattr(e, "errno", None) == errno.ENOSPC:
            raise DeployError("writing %s failed: the drive is full (%s); remove old files, "
                              "and %s" % (doing, e, then))
        if isinstance(e, OSError):
            raise DeployError("writing %s failed: %s; %s" % (doing, e, then))
        raise
    out("done: %d bytes on %s, %d bytes free" % (need, drive, shutil.disk_usage(drive).free))
    out(RESET)
    return [(rel, len(data)) for rel, data in contents]


def _sentence(text):
    """``text`` as a sentence: a full stop added only where it has no end mark yet."""
    text = str(text).rstrip()
    return text if text.endswith((".", "?", "!")) else text + "."


def choose_mpy_cross(drive, given=None, py=False, offline=False, out=print):
    """The mpy-cross a deploy to ``drive`` uses (None: .py), or a DeployError. The Express
    needs .mpy (its RAM): without a compiler it stops and points at the bundle; the
    other builds run .py too, and it says so. A compiler the user gave that is not the
    board's CircuitPython's is a BadInput."""
    major, _, board_id = board_info(drive)
    if major not in SUPPORTED or py:
        if py and profile_for(board_id) == "cpx":
            out("note: --py on the Express: its RAM may not hold the firmware as .py")
        return None
    try:
        return mpycross.find(major, [given] if given else [], fetch=not offline, out=out)
    except mpycross.MpyCrossError as e:
        if given:
            raise BadInput(str(e))
        if profile_for(board_id) == "cpx":  # .py does not fit its RAM
            raise DeployError("%s; the Express needs .mpy files: %s" % (
                e, mpycross.BUNDLE_HINT % major))
        out("note: %s Copying .py files, which run too (the bundle has .mpy)." % _sentence(e))
        return None


def _fail(message):
    """``message`` on stderr, after everything said on stdout so far (in that order when
    both go to one terminal or file)."""
    sys.stdout.flush()
    print("deploy: %s" % message, file=sys.stderr)


def main(argv=None):
    """The command; exits 0 when done, 2 for what the user typed or chose (a path that is
    no board's drive, a CircuitPython the firmware does not run on, an mpy-cross that is
    not that CircuitPython's, flags that do not go together), 1 when the computer or the
    drive failed (no space, a write failed, offline), 130 on Ctrl-C."""
    p = argparse.ArgumentParser(
        prog="python3 tools/dev.py deploy",
        description="Put QI Klaxon on a board's drive (CIRCUITPY, or QIKLAXON once QI Klaxon "
                    "has started there). Needs only python3: the three CircuitPython libraries "
                    "and CircuitPython's mpy-cross are fetched into .cache/ the first time.",
        epilog="Exit status: 0 done; 2 what was given is wrong (no such drive, not a "
               "CircuitPython drive, CircuitPython other than 9 or 10, a wrong mpy-cross); "
               "1 the computer or the drive failed (offline, no space, a write failed); "
               "130 stopped by Ctrl-C.")
    p.add_argument("path", nargs="?", help="the drive (default: find it; Windows: its letter, "
                   "such as E:\\)")
    p.add_argument("--dry-run", action="store_true", help="say what would be written, write "
                   "nothing")
    p.add_argument("--mpy-cross", metavar="PATH", help="CircuitPython's own mpy-cross for the "
                   "board's CircuitPython version (default: found or fetched)")
    p.add_argument("--py", action="store_true", help="copy .py files, no mpy-cross (not for "
                   "the Express)")
    p.add_argument("--offline", action="store_true", help="fetch nothing (the libraries and "
                   "mpy-cross must be here already)")
    args = p.parse_args(argv)
    if args.mpy_cross is not None and not args.mpy_cross.strip():
        p.error("--mpy-cross needs the path of CircuitPython's own mpy-cross")
    if args.py and args.mpy_cross:
        p.error("--py copies .py files and --mpy-cross compiles .mpy files: give one of them")
    drive = args.path
    if not drive:
        found = find_drives()
        if len(found) > 1:
            _fail("several CircuitPython drives: %s; give one of them" % ", ".join(found))
            return 2
        if not found:
            _fail("no CircuitPython drive found (looked in %s for one named %s with a "
                  "boot_out.txt); plug the board in, or give the drive's path"
                  % (", ".join(drive_places()), " or ".join(LABELS)))
            return 2
        drive = found[0]
    global FETCH
    FETCH = not args.offline
    try:
        major = supported_board(drive)[0]  # (clear messages before anything is fetched)
        if args.mpy_cross:
            check_mpy_cross(args.mpy_cross, major)
        fetch_libraries()
        tool = choose_mpy_cross(drive, args.mpy_cross, args.py, args.offline)
        deploy(drive, tool, args.dry_run)
    except DeployError as e:
        _fail(e)
        return e.code
    except KeyboardInterrupt:  # (while fetching or compiling: deploy() says its own)
        _fail("stopped (Ctrl-C) before anything was written to the drive")
        return 130
    except OSError as e:  # (before the drive is written: deploy() says its own)
        trouble = cache_trouble(e) or DeployError("%s; nothing was written to the drive" % e)
        _fail(trouble)
        return trouble.code
    finally:
        FETCH = True
    return 0


if __name__ == "__main__":
    sys.exit(main())
