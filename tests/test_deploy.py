"""tools/maker/deploy.py against folders that stand in for CIRCUITPY drives: each build gets
only what it runs, written safely (space checked first, temporary names, code.py last,
never the user's settings.toml, everything read back)."""

import collections
import os
import re
import stat

import pytest

import cpvm
import deploy
from harness import ROOT
from model import layout

BOOT_OUT = {
    "cpb": "Adafruit CircuitPython 9.2.1 on 2024-11-20; Adafruit Circuit Playground Bluefruit "
           "with nRF52840\nBoard ID:circuitplayground_bluefruit\nUID:ABCDEF\n",
    "cpx": "Adafruit CircuitPython 10.0.3 on 2025-10-17; Adafruit CircuitPlayground Express "
           "with samd21g18\nBoard ID:circuitplayground_express\n",
    "pico": "Adafruit CircuitPython 9.1.4 on 2024-09-17; Raspberry Pi Pico with rp2040\n"
            "Board ID:raspberry_pi_pico\n",
    "old": "Adafruit CircuitPython 8.2.10 on 2024-02-14; Raspberry Pi Pico with rp2040\n"
           "Board ID:raspberry_pi_pico\n",
}
# What every build runs (no __init__.py: hardware/ and qiklaxon/ are namespace packages),
# and version.txt, the firmware's version, which start-up (hardware/steps.py) prints first
EVERY_BUILD = {"code.py", "boot.py", "safemode.py", "settings.example.toml", "version.txt",
               "hardware/steps.py", "hardware/settings.py", "hardware/start.py", "hardware/outputs.py",
               "hardware/device.py",
               "lib/qiklaxon/core.py", "lib/qiklaxon/restore.py", "lib/qiklaxon/undo.py",
               "lib/qiklaxon/reveal.py", "lib/qiklaxon/entry.py", "lib/qiklaxon/over.py",
               "lib/qiklaxon/save.py", "lib/qiklaxon/seats.py", "lib/state.py",
               "lib/adafruit_debouncer.py",
               "lib/adafruit_ticks.py"}
SOUNDS = {"sounds/%s.wav" % name for name in ("klaxon", "denied", "blip", "done", "undone")}
# Each build's own additions: its profile; power.py where it can sleep or has a watchdog;
# mixer.py and the WAV files for WAV sound; neopixel unless frozen into the firmware
EXPECTED = {
    # the Bluefruit: WAV sounds through audiopwmio, sleep and a watchdog
    ("cpb", ""): EVERY_BUILD | SOUNDS | {"hardware/profile_cpb.py", "hardware/power.py",
                                         "hardware/mixer.py", "lib/neopixel.py"},
    # the Express: DAC tones (no WAV files, no mixer), no alarm or watchdog, neopixel frozen
    ("cpx", ""): EVERY_BUILD | {"hardware/profile_cpx.py"},
    # a Pico with its piezo: rp2pio tones, sleep and a watchdog
    ("pico", ""): EVERY_BUILD | {"hardware/profile_pico.py", "hardware/power.py",
                                 "lib/neopixel.py"},
    # a Pico with a small amplifier (QK_AUDIO = "amp"): WAV sounds through the mixer
    ("pico", 'QK_AUDIO = "amp"\n'): EVERY_BUILD | SOUNDS | {
        "hardware/profile_pico.py", "hardware/power.py", "hardware/mixer.py",
        "lib/neopixel.py"},
}
MAX_DEPLOY_BYTES = 200 * 1024  # what a build's deploy may copy in all


def drive(tmp_path, board, settings=None):
    d = tmp_path / "CIRCUITPY"
    d.mkdir()
    (d / "boot_out.txt").write_text(BOOT_OUT[board])
    if settings is not None:
        (d / "settings.toml").write_text(settings)
    return str(d)


def quiet(*a):
    pass


def source_of(rel):
    """The file in this repo (or environment) that ``rel`` on the drive is a copy of."""
    if rel.startswith("lib/") and "/" not in rel[4:]:  # a CircuitPython library
        return deploy.library_source(rel[4:-3])
    return os.path.join(ROOT, *rel.split("/"))


def content_of(rel, board=None):
    """What a deploy writes for ``rel``: a copy of its source; a library without its type
    hints (deploy.lean_library: test_the_libraries_go_without_their_type_hints); the
    version line for ``board`` (a key of BOOT_OUT)."""
    if rel == "version.txt":
        major = int(BOOT_OUT[board].split("CircuitPython ")[1].split(".")[0])
        title = [b["title"] for b in layout.BUILDS if b["profile"] == board][0]
        with open(os.path.join(ROOT, "VERSION")) as f:  # (9's and 10's files are the same)
            return ("QI Klaxon %s for %s, CircuitPython %s\n" % (
                f.read().strip(), title, "9 and 10" if major in (9, 10) else major)).encode()
    if deploy.is_library(rel):
        return deploy.lean_library(source_of(rel)).encode()
    with open(source_of(rel), "rb") as f:
        return f.read()


@pytest.mark.parametrize("board, settings", sorted(EXPECTED))
def test_deploys_exactly_what_the_build_runs_and_verifies_it(tmp_path, board, settings):
    d = drive(tmp_path, board, settings or None)
    written = dict(deploy.deploy(d, out=quiet))
    assert set(written) == EXPECTED[board, settings]
    assert "model/game.py" not in written  # the host's API, never on a board
    assert not any(n.endswith("__init__.py") for n in written)
    on_drive = {os.path.relpath(os.path.join(p, n), d).replace(os.sep, "/")
                for p, _, fs in os.walk(d) for n in fs}
    assert on_drive == set(written) | {"boot_out.txt"} | ({"settings.toml"} if settings else set())
    for rel, size in written.items():
        with open(os.path.join(d, rel), "rb") as f:
            data = f.read()
        assert len(data) == size
        assert data == content_of(rel, board), rel
    # the list of files and their total, for the closing note
    print(board, len(written), "files", sum(written.values()), "bytes")


def test_the_express_gets_no_other_boards_profile(tmp_path):
    d = drive(tmp_path, "cpx")
    written = dict(deploy.deploy(d, out=quiet))
    assert [n for n in written if "profile_" in n] == ["hardware/profile_cpx.py"]
    # nothing on the drive holds another build's pin table (the Pico's GP pins,
    # the simulated board's Dx_ pins) or names another build's profile module
    for rel in written:
        with open(os.path.join(d, rel), "rb") as f:
            data = f.read()
        for other in (b"'GP16'", b"Dx_INPUT", b"profile_cpb", b"profile_pico",
                      b"profile_simulated"):
            assert other not in data, (rel, other)


@pytest.mark.parametrize("board, settings", sorted(EXPECTED))
def test_each_deploy_copies_at_most_200_kb(tmp_path, board, settings):
    planned = deploy.deploy(drive(tmp_path, board, settings or None), dry_run=True, out=quiet)
    total = sum(size for _, size in planned)
    assert total <= MAX_DEPLOY_BYTES, (board, total)
    cp = cpvm.find()  # as .mpy, with CircuitPython 10's own mpy-cross when it is here
    if cp:
        (tmp_path / "CIRCUITPY" / "boot_out.txt").write_text(layout.boot_out(board))
        planned = deploy.deploy(str(tmp_path / "CIRCUITPY"), os.path.join(cp, "mpy-cross"),
                                dry_run=True, out=quiet)
        assert sum(size for _, size in planned) <= min(total, MAX_DEPLOY_BYTES)


def test_code_py_is_written_last(tmp_path, monkeypatch):
    d = drive(tmp_path, "cpb")
    order = []
    real = deploy._write_verified
    monkeypatch.setattr(deploy, "_write_verified", lambda p, data: (order.append(p), real(p, data)))
    deploy.deploy(d, out=quiet)
    assert order[-1].endswith("code.py")


class DriveFile:
    """A file the deploy opened on a stand-in drive: as the real one, but for what a
    subclass's ``write`` does to the bytes."""

    def __init__(self, f):
        self.f = f

    def __getattr__(self, name):
        return getattr(self.f, name)

    def __enter__(self):
        return self

    def __exit__(self, *a):
        return self.f.__exit__(*a)


def temporaries(d):
    """Every ``*.qk-new`` on drive ``d`` (a deploy's temporary names)."""
    return sorted(os.path.relpath(os.path.join(p, n), d) for p, _, fs in os.walk(d)
                  for n in fs if n.endswith(".qk-new"))


def test_a_yank_mid_copy_leaves_a_board_that_runs_nothing_rather_than_a_mix(tmp_path,
                                                                          monkeypatch):
    """Over an existing install, the old code.py goes first and the new one last: a
    deploy stopped half-way leaves new modules and no code.py (the board runs nothing),
    never the old code.py over new modules; no temporary is left; the next try completes."""
    d = drive(tmp_path, "cpb")
    (tmp_path / "CIRCUITPY" / "code.py").write_text("print('the old firmware')\n")
    calls = collections.Counter()
    real = deploy._write_verified

    def yank(path, data):
        calls["n"] += 1
        if calls["n"] == 6:
            with open(path + ".qk-new", "wb") as f:  # half of it, then the cable is pulled
                f.write(data[:len(data) // 2])
            raise OSError(5, "Input/output error")
        real(path, data)

    monkeypatch.setattr(deploy, "_write_verified", yank)
    with pytest.raises(deploy.DeployError, match="has no code.py, so the board runs nothing.*"
                                                 "run the deploy again"):
        deploy.deploy(d, out=quiet)
    assert not (tmp_path / "CIRCUITPY" / "code.py").exists()
    assert (tmp_path / "CIRCUITPY" / "boot.py").exists()  # (new files were written)
    assert temporaries(d) == []
    monkeypatch.setattr(deploy, "_write_verified", real)
    deploy.deploy(d, out=quiet)  # the next try completes
    assert (tmp_path / "CIRCUITPY" / "code.py").read_bytes() == open(ROOT + "/code.py", "rb").read()


def test_every_file_goes_through_a_temporary_name(tmp_path, monkeypatch):
    d = drive(tmp_path, "pico")
    renames = []
    real = deploy.os.replace
    monkeypatch.setattr(deploy.os, "replace", lambda a, b: (renames.append((a, b)), real(a, b)))
    written = deploy.deploy(d, out=quiet)
    assert len(renames) == len(written)
    assert all(a == b + ".qk-new" for a, b in renames)


def test_a_file_that_reads_back_wrong_stops_the_deploy(tmp_path, monkeypatch):
    d = drive(tmp_path, "cpb")
    (tmp_path / "CIRCUITPY" / "code.py").write_text("print('the old firmware')\n")
    real_open = open

    class Failing(DriveFile):  # a drive that drops the last byte of what it is given
        def write(self, data):
            return self.f.write(data[:-1])

    def flaky_open(path, mode="r", *a, **k):
        f = real_open(path, mode, *a, **k)
        return Failing(f) if "w" in mode and path.endswith("device.py.qk-new") else f

    monkeypatch.setattr(deploy, "open", flaky_open, raising=False)
    with pytest.raises(deploy.DeployError, match="did not read back as written.*run the deploy "
                                                 "again"):
        deploy.deploy(d, out=quiet)
    assert not (tmp_path / "CIRCUITPY" / "hardware" / "device.py").exists()
    assert not (tmp_path / "CIRCUITPY" / "code.py").exists()  # (never old code over new files)
    assert temporaries(d) == []


def test_never_overwrites_the_users_settings(tmp_path):
    d = drive(tmp_path, "cpx")
    (tmp_path / "CIRCUITPY" / "settings.toml").write_text("QK_PLAYERS = 7\n")
    written = dict(deploy.deploy(d, out=quiet))
    assert "settings.toml" not in written
    assert (tmp_path / "CIRCUITPY" / "settings.toml").read_text() == "QK_PLAYERS = 7\n"


@pytest.mark.parametrize("empty", ["", "\n\n  \r\n", "# my notes\n\n  # QK_PLAYERS = 6\n",
                                   "\ufeff# saved by Notepad\r\n"])
def test_an_empty_or_comments_only_settings_file_is_kept_and_the_deploy_says_how_to_set_one(
        tmp_path, empty):
    """CircuitPython puts an empty settings.toml on a fresh Bluefruit's or Pico's drive: it
    is kept as it is (a maker may have begun it), the documented settings go beside it as
    settings.example.toml, and the deploy says the board uses the defaults and how to
    change one."""
    d = drive(tmp_path, "pico")
    (tmp_path / "CIRCUITPY" / "settings.toml").write_bytes(empty.encode())
    said = []
    written = dict(deploy.deploy(d, out=said.append))
    assert "settings.toml" not in written and "settings.example.toml" in written
    assert (tmp_path / "CIRCUITPY" / "settings.toml").read_bytes() == empty.encode()
    assert [line for line in said if line.startswith("settings.toml: ")] == [
        "settings.toml: sets nothing yet (as CircuitPython makes it), so the board uses the "
        "defaults; to change one, copy its lines from settings.example.toml (every setting, "
        "explained) into settings.toml"]
    assert sorted(n for n in os.listdir(d) if n.startswith("settings")) == [
        "settings.example.toml", "settings.toml"]


def test_a_settings_file_with_one_setting_is_kept_byte_for_byte(tmp_path):
    mine = b"# mine\r\n\r\nQK_PLAYERS = 6   \r\n# the rest: defaults"
    d = drive(tmp_path, "cpb")
    (tmp_path / "CIRCUITPY" / "settings.toml").write_bytes(mine)
    said = []
    written = dict(deploy.deploy(d, out=said.append))
    assert "settings.toml" not in written
    assert (tmp_path / "CIRCUITPY" / "settings.toml").read_bytes() == mine
    assert "settings.toml: yours, kept as it is (a deploy never writes it)" in said


def test_a_drive_without_settings_gets_none_the_example_beside_and_says_so(tmp_path):
    """No settings.toml: the board runs on the defaults (the firmware's, for every key
    settings.toml does not set); the deploy writes none (an update must never replace a
    maker's), only settings.example.toml, and says how to make one."""
    said = []
    d = drive(tmp_path, "cpx")
    written = dict(deploy.deploy(d, out=said.append))
    assert "settings.toml" not in written and not os.path.exists(os.path.join(d, "settings.toml"))
    assert "settings.toml: none on the drive, so the board uses the defaults; to change one, " \
           "copy its lines from settings.example.toml (every setting, explained) into " \
           "settings.toml (a new file)" in said


def test_dry_run_writes_nothing(tmp_path):
    d = drive(tmp_path, "cpb")
    planned = deploy.deploy(d, dry_run=True, out=quiet)
    assert planned and sorted(os.listdir(d)) == ["boot_out.txt"]


def test_refuses_unsupported_circuitpython_and_non_drives(tmp_path):
    d = drive(tmp_path, "old")
    with pytest.raises(deploy.DeployError, match="CircuitPython 8.2.10 is not supported"):
        deploy.deploy(d, out=quiet)
    with pytest.raises(deploy.DeployError, match="no boot_out.txt"):
        deploy.deploy(str(tmp_path), out=quiet)


def test_a_full_drive_is_refused_before_anything_is_written(tmp_path, monkeypatch):
    d = drive(tmp_path, "cpb")
    usage = collections.namedtuple("usage", "total used free")
    monkeypatch.setattr(deploy.shutil, "disk_usage", lambda p: usage(2_000_000, 1_990_000, 10_000))
    with pytest.raises(deploy.DeployError, match="not enough space"):
        deploy.deploy(d, out=quiet)
    assert sorted(os.listdir(d)) == ["boot_out.txt"]


@pytest.mark.parametrize("error", [OSError(30, "Read-only file system"),
                                   PermissionError(13, "Permission denied")])
def test_a_read_only_drive_says_the_one_way_out_troubleshooting_md_gives(tmp_path, monkeypatch,
                                                                        capsys, error):
    """A drive the computer may only read (an old project's boot.py gave it to the board;
    QI Klaxon's never does): the first change fails, nothing on the drive changed, exit 1,
    and the way out is one that works on every board (the serial console's prompt renames
    boot.py: the drive itself cannot be changed, and a Pico has no reset button for safe
    mode), in the same words as docs/troubleshooting.md's row."""
    d = drive(tmp_path, "pico")
    (tmp_path / "CIRCUITPY" / "code.py").write_text("print('an old project')\n")

    def read_only(path):
        raise error

    monkeypatch.setattr(deploy.os, "remove", read_only)
    assert deploy.main([d, "--py", "--offline"]) == 1
    err = capsys.readouterr().err
    assert "Traceback" not in err and "is read-only for this computer" in err
    assert "nothing on the drive was changed" in err and deploy.READ_ONLY in err
    assert (tmp_path / "CIRCUITPY" / "code.py").read_text() == "print('an old project')\n"
    with open(os.path.join(ROOT, "docs", "troubleshooting.md"), encoding="utf-8") as f:
        page = " ".join(re.sub(r"\[([^]]*)\]\([^)]*\)", r"\1", f.read()).replace("`", "").split())
    assert deploy.READ_ONLY in page
    with open(os.path.join(ROOT, "boot.py"), encoding="utf-8") as f:  # QI Klaxon's: never
        boot = f.read()
    assert 'remount("/", readonly=True)' in boot.split("m.label")[-1]  # (the computer's to write)


def fake_mpy_cross(tmp_path, first, major=10):
    """A stand-in mpy-cross: ``TOOL --version`` says it is CircuitPython ``major``'s (or
    MicroPython's, for ``first`` "M"), and ``TOOL [-s NAME] [flags] -o OUT SRC`` writes
    ``first``, the mpy version 6, then the source to OUT, and logs its arguments (one line
    a call) to ``TOOL.log``."""
    tool = tmp_path / ("mpy-cross-%s-%d" % (first, major))
    said = ("MicroPython v1.22.0 on 2023-12-27; mpy-cross emitting mpy v6.2" if first == "M"
            else "CircuitPython %d.1.0 on 2025-01-01; mpy-cross emitting mpy v6.3" % major)
    tool.write_text("#!/bin/sh\nif [ \"$1\" = --version ]; then echo '%s'; exit 0; fi\n"
                    "echo \"$*\" >> \"$0.log\"\nout=\nsrc=\n"
                    "while [ $# -gt 0 ]; do\n"
                    "  case \"$1\" in -o) out=$2; shift 2;; -s) shift 2;; -*) shift;;"
                    " *) src=$1; shift;; esac\n"
                    "done\nprintf '%s\\006' > \"$out\"\ncat \"$src\" >> \"$out\"\n" % (said, first))
    tool.chmod(tool.stat().st_mode | stat.S_IEXEC)
    return str(tool)


def test_mpy_with_circuitpythons_mpy_cross_and_refusal_of_micropythons(tmp_path):
    d = drive(tmp_path, "cpx")
    tool = fake_mpy_cross(tmp_path, "C")
    written = dict(deploy.deploy(d, mpy_cross=tool, out=quiet))
    assert "hardware/device.mpy" in written and "lib/adafruit_debouncer.mpy" in written
    assert "hardware/device.py" not in written
    assert "code.py" in written and "code.mpy" not in written  # the entry points stay .py
    assert (tmp_path / "CIRCUITPY" / "hardware" / "device.mpy").read_bytes()[:1] == b"C"
    # the Express's modules go without line numbers and with one short source name
    calls = open(tool + ".log").read().splitlines()
    device = [c for c in calls if c.endswith("hardware/device.py")]
    assert device and "-O3" in device[0].split() and " -s q " in " %s " % device[0]
    with pytest.raises(deploy.DeployError, match="CircuitPython refuses"):
        deploy.deploy(d, mpy_cross=fake_mpy_cross(tmp_path, "M"), out=quiet)


def test_mpy_elsewhere_keeps_line_numbers_and_source_names(tmp_path):
    d = drive(tmp_path, "cpb")
    tool = fake_mpy_cross(tmp_path, "C")
    with pytest.raises(deploy.DeployError, match="CircuitPython 10's mpy-cross"):
        deploy.deploy(d, mpy_cross=tool, out=quiet)  # the board runs CircuitPython 9
    tool = fake_mpy_cross(tmp_path, "C", 9)
    written = dict(deploy.deploy(d, mpy_cross=tool, out=quiet))
    assert "hardware/device.mpy" in written and "hardware/power.mpy" in written
    calls = [c.split() for c in open(tool + ".log").read().splitlines()
             if "probe.py" not in c]
    device = [c for c in calls if c[-1].endswith("hardware/device.py")]
    assert device and "-O3" not in device[0]
    assert device[0][device[0].index("-s") + 1] == "hardware/device.py"


def test_a_stale_py_beside_a_new_mpy_is_removed(tmp_path):
    d = drive(tmp_path, "cpx")
    (tmp_path / "CIRCUITPY" / "hardware").mkdir()
    (tmp_path / "CIRCUITPY" / "hardware" / "device.py").write_text("old = 1\n")
    deploy.deploy(d, mpy_cross=fake_mpy_cross(tmp_path, "C"), out=quiet)
    assert not (tmp_path / "CIRCUITPY" / "hardware" / "device.py").exists()
    assert (tmp_path / "CIRCUITPY" / "hardware" / "device.mpy").exists()


def test_command_line_reports_errors_without_a_traceback(tmp_path, capsys):
    assert deploy.main([str(tmp_path)]) == 2  # (a folder that is no board's drive: bad input)
    assert "no boot_out.txt" in capsys.readouterr().err


def _lean_modules(tmp_path):
    """{library: (the installed module, the module as a deploy copies it)}, both loaded here."""
    import importlib.util

    mods = {}
    for name in ("adafruit_ticks", "adafruit_debouncer"):
        pair = []
        for tag, text in (("installed", open(deploy.library_source(name)).read()),
                          ("lean", deploy.lean_library(deploy.library_source(name)))):
            path = tmp_path / ("%s_%s.py" % (tag, name))
            path.write_text(text)
            spec = importlib.util.spec_from_file_location("%s_%s" % (tag, name), path)
            mod = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(mod)
            pair.append(mod)
        mods[name] = pair
    return mods


def test_the_libraries_go_without_their_type_hints(tmp_path):
    import ast

    d = drive(tmp_path, "pico")  # as .py: the three libraries
    written = dict(deploy.deploy(d, out=quiet))
    libs = [rel for rel in written if deploy.is_library(rel)]
    assert sorted(libs) == ["lib/%s.py" % n for n in sorted(deploy.LIBRARIES)]
    for rel in libs:
        with open(os.path.join(d, rel), encoding="utf-8") as f:
            text = f.read()
        with open(source_of(rel), encoding="utf-8") as f:
            original = f.read()
        tree = ast.parse(text)
        compile(tree, rel, "exec")
        assert not [n for n in ast.walk(tree) if isinstance(n, ast.AnnAssign)], rel
        for n in ast.walk(tree):
            if isinstance(n, ast.FunctionDef):
                assert n.returns is None, (rel, n.name)
                a = n.args
                assert not [x for x in a.posonlyargs + a.args + a.kwonlyargs + [a.vararg, a.kwarg]
                            if x is not None and x.annotation is not None], (rel, n.name)
            if isinstance(n, (ast.Import, ast.ImportFrom)):
                mods = [n.module] if isinstance(n, ast.ImportFrom) else [x.name for x in n.names]
                assert not {m.split(".")[0] for m in mods} & {
                    "typing", "circuitpython_typing", "types"}, (rel, mods)
        # the licence header as it was; the version; every private const, now free
        header = original[:original.index('"""')]
        assert text.startswith(header.rstrip() + "\n") and "SPDX-License-Identifier" in header
        version = [ast.literal_eval(n.value) for n in ast.parse(original).body
                   if isinstance(n, ast.Assign) and n.targets[0].id == "__version__"]
        assert "__version__ = %r" % version[0] in text.splitlines()
        for n in ast.parse(original).body:
            if isinstance(n, ast.AnnAssign) and ast.unparse(n.value).startswith("const("):
                assert "%s = %s" % (n.target.id, ast.unparse(n.value)) in text.splitlines()
    # neopixel keeps what it runs: only its type-hint block goes
    with open(os.path.join(d, "lib/neopixel.py")) as f:
        neo = f.read()
    assert "microcontroller" not in neo.split('"""', 2)[2].split("class ")[0]
    assert "import adafruit_pixelbuf" in neo and "from neopixel_write import neopixel_write" in neo
    # the debouncer's four flags were globals; they are consts now, and nothing else is lost
    lean = ast.parse(deploy.lean_library(deploy.library_source("adafruit_debouncer")))
    names = {n.targets[0].id for n in lean.body if isinstance(n, ast.Assign)}
    assert {"_DEBOUNCED_STATE", "_UNSTABLE_STATE", "_CHANGED_STATE", "_TICKS_PER_SEC"} <= names
    # and what the firmware never uses goes (layout.LIBRARY_UNUSED): Button, the properties
    classes = {n.name: [m.name for m in n.body if isinstance(m, ast.FunctionDef)]
               for n in lean.body if isinstance(n, ast.ClassDef)}
    assert classes == {"Debouncer": ["__init__", "_set_state", "_unset_state", "_toggle_state",
                                     "_get_state", "update"]}


def test_start_up_deletes_what_a_deploy_leaves_out():
    """A library copied whole (circup) loses at start-up what a deploy leaves out:
    hardware/start.py's list is layout.LIBRARY_UNUSED's, and nothing the firmware runs
    names any of it."""
    import ast

    tree = ast.parse(open(os.path.join(ROOT, "hardware", "start.py")).read())
    fn = next(n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == "buttons")
    deleted = {"Button"} if any(isinstance(n, ast.Delete) and ast.unparse(n.targets[0]) ==
                                "adafruit_debouncer.Button" for n in ast.walk(fn)) else set()
    for n in ast.walk(fn):
        if isinstance(n, ast.For) and isinstance(n.iter, ast.Tuple) and all(
                isinstance(e, ast.Constant) and isinstance(e.value, str) for e in n.iter.elts):
            deleted |= {"Debouncer." + ast.literal_eval(e) for e in n.iter.elts}
    assert deleted == set(layout.LIBRARY_UNUSED["adafruit_debouncer"])
    members = {u.split(".")[-1] for u in deleted} - {"value"}  # (every pin has a value:
    for rel in deploy.DEVICE:  # the debouncer's is never read, its state is)
        if rel != "hardware/start.py":  # (whose only mention of them is the deletion)
            t = ast.parse(open(os.path.join(ROOT, *rel.split("/"))).read())
            assert not {n.attr for n in ast.walk(t) if isinstance(n, ast.Attribute)} & members, rel


def test_the_lean_libraries_behave_as_the_installed_ones(tmp_path):
    """The same bouncing trace through the installed debouncer and the deployed one, on
    one clock: after every update the state and every tick it keeps are the same, and
    the installed one's properties follow from them; and ticks' arithmetic, its
    overflow included."""
    import random

    mods = _lean_modules(tmp_path)
    rng = random.Random(18)
    old_t, new_t = mods["adafruit_ticks"]
    for _ in range(2000):
        a, b = rng.randrange(1 << 29), rng.randrange(-(1 << 29), 1 << 29)
        assert old_t.ticks_diff(a, b % (1 << 29)) == new_t.ticks_diff(a, b % (1 << 29))
        try:
            want = old_t.ticks_add(a, b)
        except OverflowError:
            with pytest.raises(OverflowError):
                new_t.ticks_add(a, b)
        else:
            assert new_t.ticks_add(a, b) == want
    now = [(1 << 29) - 3000]  # wraps during the trace
    level = [True]
    clock = lambda: now[0] % (1 << 29)  # noqa: E731
    seen = []
    for mod in mods["adafruit_debouncer"]:
        mod.ticks_ms = clock
        now[0], level[0] = (1 << 29) - 3000, True
        trace_rng = random.Random(5)
        d = mod.Debouncer(lambda: level[0], interval=0.005)
        out = []
        for i in range(6000):  # bouncy stretches, and long holds
            now[0] += trace_rng.choice((1, 1, 2, 3))
            if trace_rng.random() < (0.03 if (i // 1000) % 2 else 0.002):
                level[0] = not level[0]
            d.update()
            out.append((d.state, d._last_bounce_ticks, d._last_duration_ticks,
                        d._state_changed_ticks, d._interval_ticks))
            if mod is mods["adafruit_debouncer"][0]:  # the properties, from the state
                assert (d.value, d.rose, d.fell) == (bool(d.state & 1), d.state & 5 == 5,
                                                     d.state & 5 == 4)
        d.update(0)
        out.append(d.state)
        seen.append(out)
    assert seen[0] == seen[1]
    assert any(o[0] & 5 == 5 for o in seen[0][:-1]) and any(o[0] & 5 == 4 for o in seen[0][:-1])
    assert not hasattr(new_t, "ticks_less")  # (layout.LIBRARY_UNUSED: the firmware has no use)
    lean = mods["adafruit_debouncer"][1]
    assert not hasattr(lean, "Button") and not [
        n for n in ("rose", "fell", "value", "interval") if hasattr(lean.Debouncer, n)]


# ------------------------------------------------------------ finding the drive
def test_the_drive_is_found_on_linux_macos_and_windows_by_its_name():
    """The same logic as on each computer, with its probes given: Linux's mount folders,
    macOS's /Volumes, Windows's drive letters by volume label; CIRCUITPY or QIKLAXON,
    and only with a boot_out.txt (a USB stick so named is not a board)."""
    tree = {"/media/me": ["CIRCUITPY", "USBSTICK", "QIKLAXON"], "/media": ["me"],
            "/run/media/me": [], "/mnt": ["QIKLAXON1"], "/Volumes": ["Macintosh HD", "CIRCUITPY 1",
                                                                    "QIKLAXON"]}
    files = {"/media/me/CIRCUITPY/boot_out.txt", "/mnt/QIKLAXON1/boot_out.txt",
             "/Volumes/QIKLAXON/boot_out.txt", "/Volumes/CIRCUITPY 1/boot_out.txt",
             "E:\\boot_out.txt", "G:\\boot_out.txt"}
    listdir = lambda p: tree.get(p, [])  # noqa: E731
    assert deploy.find_drives("Linux", {"USER": "me"}, listdir, files.__contains__) == [
        "/media/me/CIRCUITPY", "/mnt/QIKLAXON1"]  # (/media/me/QIKLAXON has no boot_out.txt)
    # with USER unset (or root, or sudo): any user's folder, one level down
    assert deploy.find_drives("Linux", {}, listdir, files.__contains__) == [
        "/media/me/CIRCUITPY", "/mnt/QIKLAXON1"]
    assert deploy.find_drives("Darwin", {"USER": "me"}, listdir, files.__contains__) == [
        "/Volumes/CIRCUITPY 1", "/Volumes/QIKLAXON"]
    volumes = lambda: [("C:\\", "Windows"), ("D:\\", ""), ("E:\\", "QIKLAXON"),  # noqa: E731
                       ("F:\\", "CIRCUITPY"), ("G:\\", "circuitpy")]
    assert deploy.find_drives("Windows", {}, listdir, files.__contains__, volumes) == [
        "E:\\", "G:\\"]  # (F: has no boot_out.txt; labels are case-blind)
    assert deploy.find_drives("Windows", {}, listdir, lambda p: False, volumes) == []
    assert deploy.drive_places("Windows") == ["the drive letters"]
    assert deploy.drive_places("Darwin") == ["/Volumes"]
    assert "/run/media/me" in deploy.drive_places("Linux", {"LOGNAME": "me"})


def test_the_command_line_says_where_it_looked_or_which_drives(monkeypatch, capsys):
    monkeypatch.setattr(deploy, "find_drives", lambda: [])
    assert deploy.main(["--dry-run"]) == 2
    err = capsys.readouterr().err
    assert "no CircuitPython drive found" in err and "CIRCUITPY or QIKLAXON" in err
    monkeypatch.setattr(deploy, "find_drives", lambda: ["/media/me/CIRCUITPY", "/mnt/QIKLAXON"])
    assert deploy.main(["--dry-run"]) == 2
    assert "several CircuitPython drives: /media/me/CIRCUITPY, /mnt/QIKLAXON" in \
        capsys.readouterr().err


def test_the_found_drive_is_deployed_to(tmp_path, monkeypatch, capsys):
    d = drive(tmp_path, "pico")
    monkeypatch.setattr(deploy, "find_drives", lambda: [d])
    assert deploy.main(["--py", "--offline"]) == 0
    assert os.path.exists(os.path.join(d, "code.py"))
    assert "board: raspberry_pi_pico (CircuitPython 9.1.4) -> build pico" in capsys.readouterr().out


# ------------------------------------------------------------ the libraries, fetched
def test_the_libraries_are_fetched_at_the_locked_versions_when_not_here(tmp_path, monkeypatch):
    """With none of them in this environment (a maker's python3), the deploy fetches the
    three with pip, at requirements.lock's versions and nothing else, into .cache; then
    they are the same files as the developers' .venv has, and the deploy copies them."""
    import wheels

    have = wheels.locked_wheels(str(tmp_path / "wheels"))
    monkeypatch.setattr(deploy, "LIBRARY_CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr(deploy, "_from_environment", lambda name: None)
    for k, v in wheels.pip_env(str(tmp_path / "wheels")).items():
        monkeypatch.setenv(k, v)
    said = []
    folder = deploy.fetch_libraries(out=said.append)
    assert said and "adafruit-circuitpython-ticks==%s" % deploy.locked(
        "adafruit-circuitpython-ticks") in said[0]
    for name in deploy.LIBRARIES:
        path = deploy.library_source(name)
        assert path == os.path.join(folder, name + ".py")
        assert open(path, "rb").read() == have[name]
    assert sorted(n for n in os.listdir(folder) if n.endswith(".py")) == sorted(
        n + ".py" for n in deploy.LIBRARIES)  # only them: no blinka, no typing packages
    d = drive(tmp_path, "cpb")
    written = dict(deploy.deploy(d, out=quiet))
    assert open(os.path.join(d, "lib", "adafruit_ticks.py"), "rb").read() == \
        deploy.lean_library(os.path.join(folder, "adafruit_ticks.py")).encode()
    assert "lib/neopixel.py" in written
    said.clear()
    deploy.fetch_libraries(out=said.append)  # the next time: nothing to fetch
    assert said == []


def test_libraries_of_other_versions_are_not_taken(tmp_path, monkeypatch):
    import wheels

    wheels.locked_wheels(str(tmp_path / "wheels"), version="0.0.1")
    monkeypatch.setattr(deploy, "LIBRARY_CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr(deploy, "_from_environment", lambda name: None)
    for k, v in wheels.pip_env(str(tmp_path / "wheels")).items():
        monkeypatch.setenv(k, v)
    with pytest.raises(deploy.DeployError, match="pip could not fetch .*offline\\? Use the "
                                                 "bundle"):
        deploy.fetch_libraries(out=quiet)
    monkeypatch.setattr(deploy, "FETCH", False)
    with pytest.raises(deploy.DeployError, match="--offline fetches nothing"):
        deploy.library_source("adafruit_ticks")


# ------------------------------------------------------------ a drive that fills up
class FatDrive:
    """A stand-in CIRCUITPY folder that fills up as a FAT drive does: every file takes
    whole ``block``s (an empty one none), every folder one; ``capacity`` bytes in all.
    A write past it fails with ENOSPC (as the real drive's does), and the drive reports
    its free space (``disk_usage``, or ``says_free`` when it lies) and its block size
    (``statvfs``) as a computer sees them."""

    def __init__(self, monkeypatch, path, capacity, block=512, says_free=None):
        self.path, self.capacity, self.block, self.says_free = path, capacity, block, says_free
        real_open, real_statvfs = open, os.statvfs
        usage = collections.namedtuple("usage", "total used free")
        drive = self

        class Filling(DriveFile):
            def write(self, data):
                at = self.f.tell()
                grows = drive.blocks(at + len(data)) - drive.blocks(at)
                if drive.used() + grows > drive.capacity:
                    raise OSError(28, "No space left on device")
                return self.f.write(data)

        def filling_open(file, mode="r", *a, **k):
            f = real_open(file, mode, *a, **k)
            inside = os.path.abspath(str(file)).startswith(os.path.abspath(path) + os.sep)
            return Filling(f) if inside and ("w" in mode or "a" in mode) else f

        def statvfs(p):
            if os.path.abspath(p) == os.path.abspath(path):
                st = collections.namedtuple("st", "f_frsize f_bsize")
                return st(block, block)
            return real_statvfs(p)

        monkeypatch.setattr(deploy, "open", filling_open, raising=False)
        monkeypatch.setattr(deploy.os, "statvfs", statvfs)
        monkeypatch.setattr(deploy.shutil, "disk_usage", lambda p: usage(
            self.capacity, self.used(),
            self.capacity - self.used() if self.says_free is None else self.says_free))

    def blocks(self, size):
        return -(-size // self.block) * self.block

    def used(self):
        total = 0
        for folder, dirs, names in os.walk(self.path):
            total += len(dirs) * self.block
            total += sum(self.blocks(os.path.getsize(os.path.join(folder, n))) for n in names)
        return total

    def files(self):
        return {os.path.relpath(os.path.join(p, n), self.path).replace(os.sep, "/"):
                open(os.path.join(p, n), "rb").read()
                for p, _, fs in os.walk(self.path) for n in fs}


HELLO = b'print("Hello World!")\n'  # CircuitPython's own code.py on a fresh drive


def needs(said):
    """The bytes free a deploy said it needs (its plan's line)."""
    import re

    line = [s for s in said if "writing them needs" in s][0]
    return int(re.search(r"needs (\d+) bytes free", line).group(1))


def test_a_nearly_full_drive_is_refused_in_whole_blocks_before_anything_is_written(
        tmp_path, monkeypatch):
    """The files' bytes fit with room to spare, their 512-byte blocks (and the folders'
    blocks) do not: refused, nothing written, the drive as it was. (Counting bytes, the
    deploy started and the drive filled up half-way: new modules under the old code.py.)
    With exactly the room the deploy says it needs, it completes on that drive."""
    d = drive(tmp_path, "pico")
    (tmp_path / "CIRCUITPY" / "code.py").write_bytes(HELLO)
    planned = dict(deploy.deploy(d, dry_run=True, out=quiet))
    size = sum(planned.values())
    fat = FatDrive(monkeypatch, d, 0)
    fat.capacity = fat.used() + size + 4096 + 512  # the bytes and more than 4 KB spare
    before = fat.files()
    said = []
    with pytest.raises(deploy.DeployError, match="not enough space.*512-byte blocks.*nothing was "
                                                 "written"):
        deploy.deploy(d, out=said.append)
    assert fat.files() == before
    need = needs(said)
    assert need > size + 4096 + 512  # (its blocks: more than the bytes and the old margin)
    for room, fits in ((need - 1, False), (need, True)):
        fat.capacity = fat.used() + room
        if not fits:
            with pytest.raises(deploy.DeployError, match="not enough space"):
                deploy.deploy(d, out=quiet)
            assert fat.files() == before
        else:
            written = dict(deploy.deploy(d, out=quiet))
            assert written == planned and fat.used() <= fat.capacity
            assert fat.files()["code.py"] == content_of("code.py")
    assert temporaries(d) == []


def test_a_drive_that_fills_up_mid_write_leaves_no_temporaries_and_no_old_code_py(
        tmp_path, monkeypatch):
    """A drive that says it has more room than it has (or fills up from elsewhere): the
    write that does not fit fails; every temporary goes; the old code.py went first, so
    the board runs nothing rather than the old firmware over new modules; the message
    says so and to run the deploy again, which, with room, completes."""
    d = drive(tmp_path, "cpb")
    (tmp_path / "CIRCUITPY" / "code.py").write_text("print('the old firmware')\n")
    fat = FatDrive(monkeypatch, d, 0, says_free=10_000_000)
    fat.capacity = fat.used() + 40_000  # a part of what the Bluefruit's deploy writes
    with pytest.raises(deploy.DeployError, match="the drive is full.*has no code.py.*run the "
                                                 "deploy again"):
        deploy.deploy(d, out=quiet)
    on_drive = fat.files()
    assert "code.py" not in on_drive and "boot.py" in on_drive
    assert temporaries(d) == []
    fat.capacity, fat.says_free = 10_000_000, None
    written = dict(deploy.deploy(d, out=quiet))
    assert fat.files()["code.py"] == content_of("code.py") and temporaries(d) == []
    assert set(fat.files()) == set(written) | {"boot_out.txt"}


def test_temporaries_an_older_deploy_left_are_removed(tmp_path):
    d = drive(tmp_path, "pico")
    left = ["code.py.qk-new", "hardware/device.py.qk-new", "lib/qiklaxon/core.mpy.qk-new",
            "settings.toml.qk-new"]
    for rel in left:
        path = tmp_path / "CIRCUITPY" / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(b"half a file")
    said = []
    deploy.deploy(d, dry_run=True, out=said.append)
    assert temporaries(d) == sorted(os.path.normpath(r) for r in left)  # (a dry run: untouched)
    assert len([s for s in said if s.strip().startswith("would remove")]) == 4
    said.clear()
    deploy.deploy(d, out=said.append)
    assert temporaries(d) == []
    assert len([s for s in said if "left by a deploy that did not finish" in s]) == 4


def test_ctrl_c_while_writing_removes_the_temporaries_and_says_to_run_it_again(
        tmp_path, monkeypatch, capsys):
    d = drive(tmp_path, "pico")
    (tmp_path / "CIRCUITPY" / "code.py").write_text("print('the old firmware')\n")
    calls = collections.Counter()
    real = deploy._write_verified

    def interrupted(path, data):
        calls["n"] += 1
        if calls["n"] == 5:
            with open(path + ".qk-new", "wb") as f:
                f.write(data[:100])
            raise KeyboardInterrupt
        real(path, data)

    monkeypatch.setattr(deploy, "_write_verified", interrupted)
    monkeypatch.setattr(deploy, "find_drives", lambda: [d])
    assert deploy.main(["--py", "--offline"]) == 130
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    assert err.strip().startswith("deploy: stopped (Ctrl-C) while writing") and \
        "run the deploy again" in err
    assert temporaries(d) == [] and not (tmp_path / "CIRCUITPY" / "code.py").exists()
    # Ctrl-C before the drive is touched (fetching, compiling): it says nothing was written
    monkeypatch.setattr(deploy, "fetch_libraries", lambda: (_ for _ in ()).throw(
        KeyboardInterrupt))
    assert deploy.main(["--py", "--offline"]) == 130
    assert capsys.readouterr().err == \
        "deploy: stopped (Ctrl-C) before anything was written to the drive\n"


# ------------------------------------------------------------ what fails, in words
def failing_mpy_cross(tmp_path, how):
    """A stand-in CircuitPython 10 mpy-cross that passes the deploy's check (its version,
    the probe) and then, on a real module, fails (``how`` "fails") or hangs ("hangs")."""
    tool = fake_mpy_cross(tmp_path, "C")
    text = open(tool).read()
    bad = ("echo 'hardware/device.py:3: SyntaxError: invalid syntax' >&2; exit 1" if how == "fails"
           else "exec sleep 5")
    text = text.replace("echo \"$*\" >> \"$0.log\"\n",
                        "case \"$*\" in *probe.py*) ;; *) %s;; esac\n" % bad)
    path = tmp_path / ("mpy-cross-%s" % how)
    path.write_text(text)
    path.chmod(0o755)
    return str(path)


@pytest.mark.parametrize("how", ["fails", "hangs"])
def test_an_mpy_cross_that_fails_on_a_real_module_is_said_and_nothing_written(
        tmp_path, monkeypatch, capsys, how):
    d = drive(tmp_path, "cpx")
    monkeypatch.setattr(deploy, "COMPILE_TIMEOUT_S", 1)
    tool = failing_mpy_cross(tmp_path, how)
    rc = deploy.main([d, "--mpy-cross", tool, "--offline"])
    err = capsys.readouterr().err
    assert rc == 1 and "Traceback" not in err
    assert ("could not compile hardware/steps.py (hardware/device.py:3: SyntaxError" in err
            if how == "fails" else "did not finish compiling hardware/steps.py in 1 s" in err)
    assert "--py" in err and "Nothing was written" in err
    assert sorted(os.listdir(d)) == ["boot_out.txt"]


def test_a_settings_toml_that_is_a_folder_is_said_and_nothing_written(tmp_path, capsys):
    d = drive(tmp_path, "pico")
    (tmp_path / "CIRCUITPY" / "settings.toml").mkdir()
    (tmp_path / "CIRCUITPY" / "settings.toml" / "mine.txt").write_text("notes\n")
    assert deploy.main([d, "--py", "--offline"]) == 1
    err = capsys.readouterr().err
    assert "settings.toml is a folder" in err and "nothing was written" in err
    assert sorted(os.listdir(d)) == ["boot_out.txt", "settings.toml"]


@pytest.mark.parametrize("what", ["code.py a folder", "lib a file", "hardware/device.py a folder"])
def test_something_in_the_way_on_the_drive_is_said_before_anything_is_written(tmp_path, capsys,
                                                                              what):
    """A folder where a file goes, a file where a folder goes: the deploy would fail the
    same way every time, so it says, before writing anything, what to move off the drive;
    exit 1 (the drive); and once that is done it completes."""
    d = drive(tmp_path, "pico")
    root = tmp_path / "CIRCUITPY"
    name = what.split()[0]
    if what.endswith("a folder"):
        (root / name).mkdir(parents=True)
        (root / name / "mine.txt").write_text("notes\n")
    else:
        (root / name).write_text("not a folder\n")
    before = sorted(str(p.relative_to(root)) for p in root.rglob("*"))
    assert deploy.main([d, "--py", "--offline"]) == 1
    err = capsys.readouterr().err
    assert "Traceback" not in err and err.count("\n") == 1
    kind = "folder" if what.endswith("a folder") else "file"
    assert err.startswith("deploy: %s on the drive is a %s, and QI Klaxon needs a %s of that "
                          "name" % (name, kind, "file" if kind == "folder" else "folder"))
    assert "delete" in err and "then run the deploy again (nothing was written)" in err
    assert sorted(str(p.relative_to(root)) for p in root.rglob("*")) == before
    import shutil  # as the message says: moved off the drive, then again

    shutil.rmtree(root / name) if kind == "folder" else (root / name).unlink()
    assert deploy.main([d, "--py", "--offline"]) == 0
    assert (root / "code.py").is_file() and (root / "lib").is_dir()


def test_a_deploy_that_is_done_says_to_press_reset(tmp_path, capsys):
    """CircuitPython restarts code.py by itself after the copy, but only a reset runs boot.py
    (the drive's name): the last thing a deploy says is to press it, and how on a Pico."""
    assert deploy.main([drive(tmp_path, "pico"), "--py", "--offline"]) == 0
    last = capsys.readouterr().out.splitlines()[-1]
    assert last == deploy.RESET
    assert "press its reset button once" in last and "unplug it and plug it back in" in last


@pytest.mark.parametrize("where", ["libraries", "the whole cache"])
def test_a_cache_another_user_made_is_said_with_what_to_do(tmp_path, monkeypatch, capsys, where):
    """A deploy once run with sudo leaves .cache/ owned by root, its folders readable by
    their owner only: the next deploy, as the maker, cannot fetch into it. It says so and
    how to give it back (or delete it), exit 1, no traceback, nothing written. (The test
    runs as any user: the folder refuses this one as the kernel would.)"""
    cache = tmp_path / "repo" / ".cache"
    monkeypatch.setattr(deploy, "CACHE", str(cache))
    monkeypatch.setattr(deploy, "LIBRARY_CACHE", str(cache / "libraries"))
    monkeypatch.setattr(deploy, "_from_environment", lambda name: None)
    refused = str(cache / "libraries") if where == "libraries" else str(cache)

    def mkdtemp(prefix=None, dir=None, **kw):
        raise PermissionError(13, "Permission denied", refused)

    def makedirs(path, exist_ok=False, **kw):
        if str(path).startswith(refused):
            raise PermissionError(13, "Permission denied", refused)

    monkeypatch.setattr(deploy.tempfile, "mkdtemp", mkdtemp)
    monkeypatch.setattr(deploy.os, "makedirs", makedirs)
    d = drive(tmp_path, "pico")
    assert deploy.main([d, "--py"]) == 1
    err = capsys.readouterr().err
    assert "Traceback" not in err and err.count("\n") == 1
    assert err.startswith("deploy: cannot use %s, where the deploy keeps what it fetched" % cache)
    assert "sudo chown -R $USER %s" % cache in err and "delete it" in err
    assert "nothing was written" in err
    assert os.listdir(d) == ["boot_out.txt"]


# ------------------------------------------------------------ bad input: exit 2
def _bad_drives(tmp_path):
    (tmp_path / "a-file").write_text("not a drive\n")
    (tmp_path / "no-boot-out").mkdir()
    made = {}
    for name, text in (("cp8", BOOT_OUT["old"]),
                       ("cp11", BOOT_OUT["pico"].replace("9.1.4", "11.0.0"))):
        (tmp_path / name).mkdir()
        (tmp_path / name / "boot_out.txt").write_text(text)
        made[name] = str(tmp_path / name)
    (tmp_path / "binary").mkdir()
    (tmp_path / "binary" / "boot_out.txt").write_bytes(bytes(range(256)) * 8)
    return {"missing": (str(tmp_path / "nowhere"), "nowhere does not exist"),
            "file": (str(tmp_path / "a-file"), "a-file is not a folder"),
            "no boot_out": (str(tmp_path / "no-boot-out"), "has no boot_out.txt"),
            "cp8": (made["cp8"], "CircuitPython 8.2.10 is not supported"),
            "cp11": (made["cp11"], "CircuitPython 11.0.0 is not supported"),
            "binary": (str(tmp_path / "binary"), "does not name a CircuitPython version "
                                                 "(it is not text")}


@pytest.mark.parametrize("case", ["missing", "file", "no boot_out", "cp8", "cp11", "binary"])
def test_a_path_that_is_no_supported_boards_drive_exits_2_and_says_what_it_is(tmp_path, capsys,
                                                                              case):
    path, says = _bad_drives(tmp_path)[case]
    assert deploy.main([path, "--py", "--offline"]) == 2
    err = capsys.readouterr().err
    assert says in err and "Traceback" not in err
    line = err.rstrip("\n")
    assert len(line) < 400 and line.isprintable() and "\ufffd" not in line, err  # (no raw bytes)


def test_a_wrong_mpy_cross_given_exits_2_before_anything_is_fetched(tmp_path, monkeypatch,
                                                                    capsys):
    d = drive(tmp_path, "cpx")
    fetched = []
    monkeypatch.setattr(deploy, "fetch_libraries", lambda: fetched.append(1))
    for tool, says in ((fake_mpy_cross(tmp_path, "M"), "MicroPython's mpy-cross"),
                       (fake_mpy_cross(tmp_path, "C", 9), "CircuitPython 9's mpy-cross"),
                       (str(tmp_path / "no-such-tool"), "does not run")):
        assert deploy.main([d, "--mpy-cross", tool]) == 2
        assert says in capsys.readouterr().err
    assert fetched == []


@pytest.mark.parametrize("argv", [["--py", "--mpy-cross", "/usr/bin/mpy-cross"],
                                  ["--mpy-cross="], ["--mpy-cross", " "]])
def test_flags_that_do_not_go_together_are_a_usage_error(tmp_path, capsys, argv):
    with pytest.raises(SystemExit) as e:
        deploy.main([drive(tmp_path, "pico")] + argv)
    assert e.value.code == 2 and "--mpy-cross" in capsys.readouterr().err


def test_what_was_said_comes_before_the_error_in_one_stream(tmp_path):
    """stdout flushed before the error goes to stderr: in a log of both (a pipe, a file),
    the board's line comes first, then why it stopped."""
    import subprocess
    import sys

    d = drive(tmp_path, "pico")
    (tmp_path / "CIRCUITPY" / "settings.toml").mkdir()
    r = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "maker", "deploy.py"), d, "--py",
                        "--offline"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True, timeout=120)
    assert r.returncode == 1
    lines = r.stdout.splitlines()
    assert lines[0].startswith("board: raspberry_pi_pico") and \
        lines[-1].startswith("deploy: ") and "is a folder" in lines[-1]


def test_offline_with_nothing_fetched_stops_on_every_build_as_install_md_says(
        tmp_path, monkeypatch, capsys):
    """Without the libraries here, --offline stops before anything is written, on the
    Pico as on the Express (only a missing mpy-cross falls back to .py); install.md says
    so rather than that the others copy .py files."""
    monkeypatch.setattr(deploy, "LIBRARY_CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr(deploy, "_from_environment", lambda name: None)
    for board in ("pico", "cpb"):
        d = tmp_path / board
        d.mkdir()
        (d / "boot_out.txt").write_text(BOOT_OUT[board])
        assert deploy.main([str(d), "--offline"]) == 1
        assert "--offline fetches nothing" in capsys.readouterr().err
        assert os.listdir(d) == ["boot_out.txt"]
    with open(os.path.join(ROOT, "docs", "install.md"), encoding="utf-8") as f:
        text = " ".join(f.read().split())
    assert "on the others it copies `.py` files" not in text
    assert "Offline, with nothing fetched yet, it stops" in text


def test_the_drive_is_found_under_any_users_folder_with_user_unset_or_root():
    """A desktop mounts the drive under the logged-in user's folder; run with USER unset
    (a service, some shells) or as root (sudo), that is not $USER's, and it was missed."""
    tree = {"/media": ["alice"], "/media/alice": ["CIRCUITPY"], "/run/media": ["bob"],
            "/run/media/bob": ["QIKLAXON"]}
    files = {"/media/alice/CIRCUITPY/boot_out.txt", "/run/media/bob/QIKLAXON/boot_out.txt"}
    listdir = lambda p: tree.get(p, [])  # noqa: E731
    for env in ({}, {"USER": "root"}, {"USER": "alice"}):
        assert deploy.find_drives("Linux", env, listdir, files.__contains__) == [
            "/media/alice/CIRCUITPY", "/run/media/bob/QIKLAXON"]
    tree = {"/media": ["CIRCUITPY"]}  # mounted at /media itself
    assert deploy.find_drives("Linux", {}, lambda p: tree.get(p, []),
                              {"/media/CIRCUITPY/boot_out.txt"}.__contains__) == [
        "/media/CIRCUITPY"]
    assert {"/media/*", "/run/media/*", "/media"} <= set(deploy.drive_places("Linux", {}))


def test_one_locked_file_is_named_with_how_to_unlock_it_not_a_read_only_drive(
        tmp_path, monkeypatch, capsys):
    """A file the computer may not replace on a drive it may write (Windows' Read-only,
    macOS' Locked; the breaker's chattr +i): the deploy names that file and says how to
    unlock it, exit 1, not "the drive is read-only" with a boot.py fix that cannot help."""
    d = drive(tmp_path, "pico")
    real = deploy._write_verified

    def locked(path, data):
        if path.endswith("neopixel.py"):
            raise PermissionError(1, "Operation not permitted", path)
        return real(path, data)

    monkeypatch.setattr(deploy, "_write_verified", locked)
    assert deploy.main([d, "--py", "--offline"]) == 1
    err = capsys.readouterr().err
    assert "Traceback" not in err and "is read-only for this computer" not in err
    assert "may not replace" in err and "neopixel.py" in err and "untick Locked" in err
    assert not [n for n in os.listdir(d) if n.endswith(deploy.TEMP)]


def test_dev_py_says_a_child_ended_by_ctrl_c_as_a_shell_does():
    """A command dev.py runs that Ctrl-C ends (the signal, not its own exit): dev.py exits
    130, as the docs say for Ctrl-C (the breaker saw 254 after two quick Ctrl-Cs)."""
    import sys

    import dev

    cmd = [sys.executable, "-c", "import os, signal; signal.signal(signal.SIGINT, "
           "signal.SIG_DFL); os.kill(os.getpid(), signal.SIGINT)"]
    assert dev._interactive(cmd, dict(os.environ)) == 130
