#!/usr/bin/env python3
"""The release bundles: one zip per build, for CircuitPython 9 and 10 (host-only).

    python3 tools/dev.py bundle                # every build, CircuitPython 9 and 10, in dist/
    python3 tools/dev.py bundle --cp 10 --build cpx    # the Express's, for 10 alone

A bundle is what ``python3 tools/dev.py deploy`` writes onto a board of that build
and CircuitPython, no more and no less (tools/maker/deploy.py ``build``: the one list),
laid out to be unzipped onto the CIRCUITPY drive: code.py, boot.py, safemode.py,
the firmware and the three libraries as ``.mpy`` for that CircuitPython, the sounds
where the build plays them, settings.example.toml (never settings.toml: unzipped over
the drive, an update keeps the maker's settings) and version.txt;
and ``QI-KLAXON-README.txt``, a short page of its own. Its name carries the
version, the board as circuitpython.org names it, and the CircuitPython versions it
runs on: ``qi-klaxon-<version>-<board id>-9.x-10.x.zip``. CircuitPython 9.2.9's and
10's mpy-cross make the same files (``deploy.SAME_MPY``), so one zip a board serves
both: the bundle compiles with each and compares, and makes one zip a version the
day they differ.

The ``.mpy`` files need CircuitPython's own mpy-cross of that major version (tools/
mpycross.py: found here, or fetched from Adafruit's published builds and checked).
A bundle whose compiler cannot be had is not made: the command says which and why,
and exits 1 (the release workflow, online, makes all of them). The zips are the same
bytes each time for the same files (fixed dates, fixed order).
"""

import argparse
import os
import sys
import zipfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import paths  # noqa: E402  (tools/paths.py: every group of tools/ on the path)
from paths import ROOT  # noqa: E402
import deploy  # noqa: E402
import mpycross  # noqa: E402
from model import layout  # noqa: E402
DIST = os.path.join(ROOT, "dist")
README_NAME = "QI-KLAXON-README.txt"
DATE = (2020, 1, 1, 0, 0, 0)  # every member's date: the same zip for the same files

README = """\
QI Klaxon {version} for the {title}, CircuitPython {cp}
{rule}

This zip is the firmware, ready to copy: nothing to install, no Python.

1. Install CircuitPython {install} on the board first, from its page:
{pages}
   (the project's docs/install.md shows how). A drive called CIRCUITPY appears.
2. Copy everything in this zip onto that drive, folders included (replace the
   files already there). The zip holds no settings.toml, so an update never
   touches yours: your players, volume and pins stay as you set them.
3. When the copy is done, the board starts QI Klaxon by itself, but that restart
   does not run boot.py: press the board's reset button once (or unplug it and
   plug it back). Then boot.py renames the drive QIKLAXON, and the serial
   console's first line, and version.txt on the drive, say "QI Klaxon {version} ...".

Upgrading from files copied as .py (hardware/*.py, lib/qiklaxon/*.py): delete those
first, or the board keeps running the old ones.

What is here: code.py, boot.py, safemode.py (always .py); hardware/ and lib/qiklaxon/,
the firmware, and lib/, the CircuitPython libraries, as .mpy files for CircuitPython
{cp}{sounds}; version.txt, which QI Klaxon this is; settings.example.toml,
every setting explained. The board reads only settings.toml (a key it does not set
keeps its default): to change one, copy its lines from settings.example.toml into
settings.toml on the drive (a new file if there is none) and edit them there.

Wiring, playing and what to do when something is wrong: the project's README.md and
docs/ (docs/first-power-on.md, docs/troubleshooting.md).
"""


# Other boards a build's zip is for, each with its own CircuitPython (its page on
# circuitpython.org): the Pico's firmware runs on the Pico 2 (board id
# raspberry_pi_pico2, which starts as the Pico's: model/layout.py profile_for)
ALSO = {"pico": (("Raspberry Pi Pico 2", "raspberry_pi_pico2"),
                 ("Raspberry Pi Pico W", "raspberry_pi_pico_w"),
                 ("Raspberry Pi Pico 2 W", "raspberry_pi_pico2_w"))}


def _majors(majors):
    return (majors,) if isinstance(majors, int) else tuple(sorted(majors))


def name(build, majors):
    """The zip's file name for a build whose files run on CircuitPython ``majors`` (a
    number, or the numbers): ``qi-klaxon-1.0.0-circuitplayground_express-9.x-10.x.zip``."""
    return "qi-klaxon-%s-%s-%s.zip" % (deploy.version(), layout.BY_PROFILE[build]["board_id"],
                                       "-".join("%d.x" % m for m in _majors(majors)))


def readme(build, majors, files):
    majors = _majors(majors)
    b = layout.BY_PROFILE[build]
    cp = " and ".join(str(m) for m in majors)
    title = "QI Klaxon %s for the %s, CircuitPython %s" % (deploy.version(), b["title"], cp)
    install = "%d.x" % majors[-1] + ("" if len(majors) == 1 else " (or %s: this zip runs on "
                                     "each)" % " or ".join("%d.x" % m for m in majors[:-1]))
    sounds = ", sounds/, the WAV sounds" if any(f.startswith("sounds/") for f in files) else ""
    boards = ((b["title"], b["board_id"]),) + ALSO.get(build, ())
    if len(boards) == 1:
        pages = "   https://circuitpython.org/board/%s/" % b["board_id"]
    else:  # one CircuitPython each: the page for the board in hand
        pages = "\n".join("   %s: https://circuitpython.org/board/%s/" % board
                          for board in boards)
    return README.format(version=deploy.version(), title=b["title"], cp=cp, install=install,
                         pages=pages, rule="=" * len(title), sounds=sounds)


def contents(build, major, mpy_cross, majors=None):
    """[(path in the zip, bytes)]: the bundle's README, then exactly what a deploy writes
    for that build on CircuitPython ``major`` onto a drive with no settings.toml, for a
    zip that serves CircuitPython ``majors`` (default: the deploy's ``serves(major)``)."""
    majors = _majors(majors or deploy.serves(major))
    files = deploy.build(layout.BY_PROFILE[build]["board_id"], major, None, mpy_cross, majors)
    text = readme(build, majors, [rel for rel, _ in files])
    return [(README_NAME, text.replace("\n", "\r\n").encode())] + files


def write_zip(path, members):
    """``members`` [(name, bytes)] as a zip at ``path``, in that order (code.py last, as a
    deploy writes it), with fixed dates and modes."""
    tmp = path + ".part"
    try:
        with zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED) as z:
            for rel, data in members:
                info = zipfile.ZipInfo(rel, DATE)
                info.compress_type = zipfile.ZIP_DEFLATED
                info.external_attr = 0o644 << 16
                z.writestr(info, data)
        os.replace(tmp, path)
    except BaseException:  # (a full disk, Ctrl-C: no half zip left behind)
        if os.path.exists(tmp):
            os.remove(tmp)
        raise


def bundle(builds=deploy.layout.BOARDS, majors=mpycross.SUPPORTED, out_dir=DIST, given=(),
           fetch=True, out=print):
    """Make the bundles; returns ({(build, majors): zip path}, {major: why not made}).

    One zip a build serves every CircuitPython of ``deploy.SAME_MPY`` asked for, when each
    one's mpy-cross is here and all make the same files (compiled with each, compared
    byte for byte); else one zip a version: where they differ (said), or where a
    version's compiler cannot be had (that version's zips are said not made)."""
    made, missing, tools = {}, {}, {}
    os.makedirs(out_dir, exist_ok=True)
    for major in majors:
        try:
            tools[major] = mpycross.find(major, [g for g in given if _is_for(g, major)], fetch,
                                         out)
        except mpycross.MpyCrossError as e:
            missing[major] = "%s The zips need CircuitPython's own compiler, which the first " \
                "run fetches from the internet: run it again online, or download the zips " \
                "from the project's Releases page (docs/install.md); with CircuitPython %d's " \
                "mpy-cross on this computer, give it with --mpy-cross PATH" % (
                    deploy._sentence(e), major)
    shared = tuple(m for m in deploy.SAME_MPY if m in tools)
    together = shared if len(shared) > 1 and len(shared) == len(
        [m for m in deploy.SAME_MPY if m in majors]) else ()
    for build in builds:
        groups = [(m,) for m in sorted(tools) if m not in together]
        if together:
            each = [contents(build, m, tools[m], together) for m in together]
            if all(c == each[0] for c in each):
                groups.append(together)
            else:
                differ = sorted({n for c in each[1:] for (n, d) in c if d != dict(each[0]).get(n)})
                out("%s: CircuitPython %s's mpy-cross make different files (%s): one zip each"
                    % (build, " and ".join(str(m) for m in together), ", ".join(differ[:5])))
                groups += [(m,) for m in together]
        for group in sorted(groups):
            path = os.path.join(out_dir, name(build, group))
            members = contents(build, group[-1], tools[group[-1]], group)
            write_zip(path, members)
            made[build, group] = path
            out("%s: %d files, %d bytes unpacked" % (os.path.relpath(path), len(members),
                                                     sum(len(d) for _, d in members)))
    return made, missing


def _is_for(tool, major):
    """Is the mpy-cross given as ``tool`` CircuitPython ``major``'s? (Each --mpy-cross is
    asked; one that does not run is kept, so that find() says what is wrong with it.)"""
    try:
        return mpycross.version_of(tool)[0] == major
    except mpycross.MpyCrossError:
        return True


def _fail(message):
    sys.stdout.flush()  # (what was said so far first, when both go to one place)
    print("bundle: %s" % message, file=sys.stderr)


def out_folder(path):
    """Make the folder ``path`` for the zips, or say in words why it cannot be."""
    if os.path.exists(path) and not os.path.isdir(path):
        raise deploy.BadInput("%s is not a folder: give --out a folder for the zips" % path)
    try:
        os.makedirs(path, exist_ok=True)
    except OSError as e:
        raise deploy.BadInput("cannot make the folder %s for the zips: %s" % (
            path, e.strerror or e))


def main(argv=None):
    """The command; exits 0 when every bundle was made, 2 for what the user typed (an --out
    that is no folder, an --mpy-cross that is not CircuitPython's), 1 when a bundle could
    not be made (no compiler, offline), 130 on Ctrl-C."""
    p = argparse.ArgumentParser(
        prog="python3 tools/dev.py bundle",
        description="Make the release bundles: one zip per build, serving CircuitPython 9 "
                    "and 10 while their compilers make the same files (else one a version), "
                    "each exactly what the deploy writes for that board, to unzip onto its "
                    "CIRCUITPY drive.")
    p.add_argument("--build", action="append", choices=layout.BOARDS,
                   help="only this build (any number; default: all)")
    p.add_argument("--cp", action="append", type=int, choices=mpycross.SUPPORTED,
                   help="only this CircuitPython major version (any number; default: all)")
    p.add_argument("--out", default=DIST, help="the folder for the zips (default: dist/)")
    p.add_argument("--mpy-cross", action="append", default=[], metavar="PATH",
                   help="CircuitPython's own mpy-cross (any number, one per version)")
    p.add_argument("--offline", action="store_true",
                   help="fetch nothing (no mpy-cross, no libraries from the network)")
    args = p.parse_args(argv)
    if [g for g in args.mpy_cross if not g.strip()]:
        p.error("--mpy-cross needs the path of CircuitPython's own mpy-cross")
    deploy.FETCH = not args.offline
    try:
        for tool in args.mpy_cross:  # what was given is CircuitPython's, before any work
            try:
                mpycross.version_of(tool)
            except mpycross.MpyCrossError as e:
                raise deploy.BadInput("--mpy-cross %s" % e)
        out_folder(args.out)
        deploy.fetch_libraries()
        made, missing = bundle(args.build or layout.BOARDS, args.cp or mpycross.SUPPORTED,
                               args.out, args.mpy_cross, not args.offline)
    except deploy.DeployError as e:
        _fail(e)
        return e.code
    except KeyboardInterrupt:
        _fail("stopped (Ctrl-C); the zips made so far are whole, the one being made was "
              "removed")
        return 130
    except OSError as e:  # (a .cache another user made: deploy's words; else what failed)
        trouble = deploy.cache_trouble(e) or deploy.DeployError(
            "%s; the zips made so far are whole" % e)
        _fail(str(trouble).replace("run the deploy again; nothing was written",
                                   "run the bundle again"))
        return trouble.code
    finally:
        deploy.FETCH = True
    sys.stdout.flush()
    for major, why in sorted(missing.items()):
        for build in args.build or layout.BOARDS:
            print("bundle: NOT MADE %s: %s" % (name(build, major), why), file=sys.stderr)
    if missing:
        print("bundle: %d made, %d not made (above: each one and why)" % (
            len(made), len(missing) * len(args.build or layout.BOARDS)), file=sys.stderr)
        return 1
    print("bundle: %d made in %s" % (len(made), args.out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
