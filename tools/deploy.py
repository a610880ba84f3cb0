#!/usr/bin/env python3
"""Put QI Klaxon on a board's CIRCUITPY drive, offline (host-only tool).

    python3 tools/deploy.py                 # find the mounted CIRCUITPY drive
    python3 tools/deploy.py /media/me/CIRCUITPY --dry-run
    python3 tools/deploy.py PATH --mpy-cross ~/bin/mpy-cross-9   # CircuitPython's mpy-cross

It reads ``boot_out.txt`` to tell the board and the CircuitPython version
(9 and 10 are supported), then copies only what that board runs: code.py,
boot.py, safemode.py, the firmware's modules (``DEVICE``), that build's own
profile (no other board's tables), power.py only where the port can sleep
or has a watchdog, mixer.py only for WAV sounds, the sounds (not for tones),
and the CircuitPython libraries from this environment (no download; not
``neopixel`` on the Express, whose firmware has it frozen), each without its type
hints (``lean_library``: a temporary copy, the same code, fewer interned names). With
CircuitPython's own ``mpy-cross`` the libraries and the project's modules
go as .mpy (less RAM at import; for the Express with ``-O3``, no line
numbers, as it has no traceback module to show them); otherwise as .py,
and it says so.

Safe by construction: it checks the free space before writing anything;
every file is written to a temporary name, checked, then renamed; code.py
goes last, so a yank mid-copy never leaves a half-written code.py running;
everything written is read back and compared. It never overwrites the
user's settings.toml (it writes the documented example only when there is
none).
"""

import argparse
import hashlib
import importlib.util
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if os.path.join(ROOT, "lib") not in sys.path:
    sys.path.insert(0, os.path.join(ROOT, "lib"))
from qiklaxon import layout  # noqa: E402  (the builds: lib/qiklaxon/layout.py)

SUPPORTED = (9, 10)
LIBRARIES = ("adafruit_debouncer", "adafruit_ticks", "neopixel")
FROZEN = layout.table("frozen")  # libraries in the board's own firmware
# (board id prefix, build) of the real boards, as the firmware tries them
BOARD_PROFILES = tuple(p for p in layout.BOARD_PROFILES if p[1] in layout.BOARDS)
ENTRY = ("boot.py", "safemode.py", "code.py")  # always .py; code.py is written last
# Host-only files beside the firmware's, never copied: the names of the builds and of
# the state (tools read it; each device module holds its own const copies), the
# readable Game API
HOST_ONLY = ("lib/qiklaxon/layout.py", "lib/qiklaxon/game.py", "lib/qiklaxon/__init__.py")
# What every build runs; hardware/settings.py, start.py, outputs.py and
# qiklaxon/restore.py are freed after start-up.
# No __init__ files: hardware/ and qiklaxon/ import as namespace packages, one module
# (its path and bytecode) less in RAM each.
DEVICE = ("hardware/settings.py", "hardware/start.py", "hardware/outputs.py",
          "hardware/device.py", "lib/qiklaxon/core.py", "lib/qiklaxon/restore.py", "lib/qiklaxon/undo.py",
          "lib/qiklaxon/reveal.py", "lib/qiklaxon/entry.py", "lib/qiklaxon/over.py",
          "lib/qiklaxon/save.py")
SOUNDS = ("klaxon", "denied", "blip", "done", "undone")  # tools/synth.py NAMES (a test holds it)
# The Express has no traceback module to show where an error was, so its .mpy files
# carry no line numbers (-O3) and one source name for all ("-s q"): every name a
# module holds stays in its RAM, and these would be names nobody reads.
MPY_FLAGS = {"cpx": ("-O3", "-s", "q")}


class DeployError(Exception):
    """What stops a deploy, in words for the user."""


def find_drive():
    """The mounted CIRCUITPY drive, or None."""
    user = os.environ.get("USER", "")
    for base in ("/media/%s" % user, "/run/media/%s" % user, "/media", "/Volumes", "/mnt"):
        for name in ("CIRCUITPY", "QIKLAXON"):
            path = os.path.join(base, name)
            if os.path.exists(os.path.join(path, "boot_out.txt")):
                return path
    return None


def board_info(drive):
    """(CircuitPython major version, version text, board id) from boot_out.txt."""
    path = os.path.join(drive, "boot_out.txt")
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            text = f.read(2000)
    except OSError:
        raise DeployError("%s has no boot_out.txt: is it a CIRCUITPY drive?" % drive)
    m = re.search(r"CircuitPython (\d+)\.(\d+)\.(\S+)", text) or re.search(
        r"CircuitPython (\d+)\.(\d+)", text)
    if not m:
        raise DeployError("boot_out.txt does not name a CircuitPython version:\n%s" % text[:200])
    major = int(m.group(1))
    version = m.group(0).split(" ", 1)[1]
    b = re.search(r"Board ID:\s*(\S+)", text)
    return major, version, b.group(1) if b else "unknown"


def profile_for(board_id):
    """The build a real board with ``board_id`` runs (lib/qiklaxon/layout.py), or None."""
    name = layout.profile_for(board_id)
    return name if name in layout.BOARDS else None


def library_source(name):
    spec = importlib.util.find_spec(name)
    if spec is None or not spec.origin:
        raise DeployError("library %s is not installed here: run 'python3 tools/dev.py test' "
                          "once, or pip install -r requirements.txt" % name)
    return spec.origin


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
    """[(source path, destination relative path, compile to .mpy?)] for this board."""
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
    assert not {rel for _, rel, _ in files} & set(HOST_ONLY), "a host-only file in a deploy"
    return files


def _setting(text, key):
    """What the firmware reads for ``key`` from a settings.toml's ``text`` (its own reader)."""
    import contextlib
    import io

    sys.path.insert(0, ROOT)
    from hardware.settings import KEYS, read

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
            sys.path.insert(0, os.path.join(ROOT, "tools", "simboard"))
            import simprofiles

            return simprofiles.named(ast.literal_eval(node.value))
    raise DeployError("hardware/profile_%s.py has no PROFILE" % name)


def check_mpy_cross(tool):
    """CircuitPython's mpy-cross writes files starting with 'C'; MicroPython's with 'M'."""
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, "probe.py")
        with open(src, "w") as f:
            f.write("x = 1\n")
        out = os.path.join(tmp, "probe.mpy")
        try:
            subprocess.run([tool, src, "-o", out], check=True, capture_output=True, timeout=60)
        except (OSError, subprocess.CalledProcessError, subprocess.TimeoutExpired) as e:
            raise DeployError("mpy-cross %s did not run: %s" % (tool, e))
        with open(out, "rb") as f:
            first = f.read(1)
    if first != b"C":
        raise DeployError("%s makes MicroPython .mpy files (first byte %r), which CircuitPython "
                          "refuses: use CircuitPython's own mpy-cross" % (tool, first))


def compile_mpy(tool, src, tmp, rel, flags=()):
    """``src`` compiled by ``tool``; the source name inside is ``rel`` unless ``flags`` say."""
    out = os.path.join(tmp, os.path.basename(src)[:-3] + ".mpy")
    subprocess.run([tool, "-s", rel] + list(flags) + ["-o", out, src], check=True,
                   capture_output=True, timeout=60)
    with open(out, "rb") as f:
        return f.read()


def _write_verified(path, data):
    """Write ``data`` to ``path`` through a temporary name, read it back, then rename."""
    os.makedirs(os.path.dirname(path), exist_ok=True)
    tmp = path + ".qk-new"
    with open(tmp, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())
    with open(tmp, "rb") as f:
        if hashlib.sha256(f.read()).digest() != hashlib.sha256(data).digest():
            raise DeployError("%s did not read back as written: the drive may be failing" % path)
    os.replace(tmp, path)


def deploy(drive, mpy_cross=None, dry_run=False, out=print):
    """Deploy to ``drive``; returns the list of (relative path, bytes) written (or planned)."""
    if not os.path.isdir(drive):
        raise DeployError("%s is not a folder" % drive)
    major, version, board_id = board_info(drive)
    if major not in SUPPORTED:
        raise DeployError("CircuitPython %s is not supported: install CircuitPython %s"
                          % (version, " or ".join(str(v) for v in SUPPORTED)))
    profile = profile_for(board_id)
    out("board: %s (CircuitPython %s) -> build %s" % (
        board_id, version, profile or "unknown: set QK_BOARD and the QK_PIN_ settings"))
    settings_path = os.path.join(drive, "settings.toml")
    has_settings = os.path.exists(settings_path)
    settings_text = ""
    if has_settings:
        with open(settings_path, encoding="utf-8", errors="replace") as f:
            settings_text = f.read()
    if mpy_cross:
        check_mpy_cross(mpy_cross)
        out("modules and libraries as .mpy (compiled by %s)" % mpy_cross)
    else:
        out("modules and libraries as .py (give --mpy-cross with CircuitPython's mpy-cross "
            "for .mpy: less RAM at import, which the Express needs)")
    contents = []
    with tempfile.TemporaryDirectory() as tmp:
        for src, rel, compilable in plan(drive, board_id, settings_text):
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
            contents.append((rel, data))
    if not has_settings:
        with open(os.path.join(ROOT, "settings.example.toml"), "rb") as f:
            contents.insert(0, ("settings.toml", f.read()))
    else:
        out("settings.toml: kept as it is")
    need = sum(len(d) for _, d in contents)
    # what the drive gets back by replacing files already there
    have = sum(os.path.getsize(os.path.join(drive, rel)) for rel, _ in contents
               if os.path.exists(os.path.join(drive, rel)))
    free = shutil.disk_usage(drive).free
    out("%d files, %d bytes; the drive has %d bytes free (%d reused)" % (len(contents), need,
                                                                          free, have))
    if need - have > free - 4096:
        raise DeployError("not enough space on %s: %d bytes needed, %d free; remove old files "
                          "(nothing was written)" % (drive, need - have, free))
    if dry_run:
        for rel, data in contents:
            out("  would write %-34s %7d bytes" % (rel, len(data)))
        return [(rel, len(data)) for rel, data in contents]
    for rel, data in contents:
        try:
            _write_verified(os.path.join(drive, *rel.split("/")), data)
        except PermissionError as e:
            raise DeployError("%s is read-only (%s); if boot.py remounted it for the board, "
                              "hold a button at reset or edit boot.py" % (drive, e))
        except OSError as e:
            if e.errno == 30:  # EROFS
                raise DeployError("%s is read-only: %s" % (drive, e))
            raise DeployError("writing %s failed: %s (files already written are complete; "
                              "run the deploy again)" % (rel, e))
        out("  wrote %-34s %7d bytes" % (rel, len(data)))
        if rel.endswith(".mpy"):  # a stale .py beside the .mpy would be imported instead
            stale = os.path.join(drive, *rel[:-4].split("/")) + ".py"
            if os.path.exists(stale):
                os.remove(stale)
    out("done: %d bytes on %s, %d bytes free" % (need, drive, shutil.disk_usage(drive).free))
    return [(rel, len(data)) for rel, data in contents]


def main(argv=None):
    p = argparse.ArgumentParser(description="Put QI Klaxon on a CIRCUITPY drive.")
    p.add_argument("path", nargs="?", help="the CIRCUITPY drive (default: find it)")
    p.add_argument("--mpy-cross", help="CircuitPython's mpy-cross, to copy .mpy files")
    p.add_argument("--dry-run", action="store_true", help="say what would be written, write nothing")
    args = p.parse_args(argv)
    drive = args.path or find_drive()
    if not drive:
        print("deploy: no CIRCUITPY drive found; plug the board in or give its path",
              file=sys.stderr)
        return 2
    try:
        deploy(drive, args.mpy_cross, args.dry_run)
    except DeployError as e:
        print("deploy: %s" % e, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
