"""The release bundles (tools/maker/bundle.py): one zip per build and CircuitPython major version,
each exactly what the deploy writes for that board, laid out to be unzipped onto its
CIRCUITPY drive; a bundle whose compiler cannot be had is said, not made; the Pico's
boots and plays on the real CircuitPython firmware (the Pico lane), the Express's plays
a whole game on CircuitPython's own VM (the CircuitPython lane).

CircuitPython 9.2.9's and 10's mpy-cross are at hand (../shared/circuitpython: mpy-cross-9
and mpy-cross): every build is compiled with both and its one zip held to both deploys,
so one zip a board serves CircuitPython 9 and 10 only while they make the same files."""

import os
import zipfile

import pytest

import bundle
import cpvm
import deploy
import mpycross
import pico
import scenario
from harness import ROOT, Sim
from model import layout

CP = cpvm.find()
BOTH = deploy.SAME_MPY


def need_cp():
    if CP is None:
        if os.environ.get("QK_REQUIRE_CP"):
            pytest.fail("QK_REQUIRE_CP is set: " + cpvm.HOW_TO_GET)
        pytest.skip(cpvm.HOW_TO_GET)
    return os.path.join(CP, "mpy-cross")


def need_cp9():
    """CircuitPython 9.2.9's mpy-cross (../shared/circuitpython/mpy-cross-9, built from that
    tag), or a skip that says where it goes."""
    need_cp()
    try:
        return mpycross.find(9, fetch=False, out=lambda *a: None)
    except mpycross.MpyCrossError as e:
        if os.environ.get("QK_REQUIRE_CP"):
            pytest.fail("QK_REQUIRE_CP is set: %s" % e)
        pytest.skip("%s: put CircuitPython 9.2.9's as mpy-cross-9 beside 10's" % e)


@pytest.fixture(scope="module")
def made(tmp_path_factory):
    """The three bundles, one a board for CircuitPython 9 and 10, made once for the module
    with both compilers: {build: zip path}."""
    tools = [need_cp(), need_cp9()]
    out = tmp_path_factory.mktemp("dist")
    paths, missing = bundle.bundle(layout.BOARDS, BOTH, str(out), tools, fetch=False,
                                   out=lambda *a: None)
    assert missing == {} and sorted(paths) == sorted((b, BOTH) for b in layout.BOARDS)
    assert sorted(os.listdir(out)) == sorted(bundle.name(b, BOTH) for b in layout.BOARDS)
    return {build: paths[build, BOTH] for build in layout.BOARDS}


def members(path):
    with zipfile.ZipFile(path) as z:
        return [(i.filename, z.read(i.filename), i) for i in z.infolist()]


def deployed(tmp_path, build, major, tool):
    """{path: bytes} a deploy writes onto a fresh drive of that build and CircuitPython."""
    d = tmp_path / ("CIRCUITPY-%s" % build)
    d.mkdir()
    b = layout.BY_PROFILE[build]
    (d / "boot_out.txt").write_text("Adafruit CircuitPython %d.2.1 on 2025-11-01; %s\nBoard ID:%s\n"
                                    % (major, b["title"], b["board_id"]))
    written = dict(deploy.deploy(str(d), tool, out=lambda *a: None))
    on_drive = {}
    for folder, _, names in os.walk(d):
        for n in names:
            rel = os.path.relpath(os.path.join(folder, n), d).replace(os.sep, "/")
            if rel != "boot_out.txt":
                with open(os.path.join(folder, n), "rb") as f:
                    on_drive[rel] = f.read()
    assert set(on_drive) == set(written)
    return on_drive


@pytest.mark.parametrize("build", layout.BOARDS)
def test_each_bundle_is_exactly_what_the_deploy_writes_for_that_board(made, tmp_path, build):
    """One zip a board: what the deploy writes onto a CircuitPython 10 board with 10's
    mpy-cross, and onto a CircuitPython 9 board with 9.2.9's, byte for byte: every
    module, library and -O level compiles the same with both (else the zips split)."""
    path = made[build]
    with open(os.path.join(ROOT, "VERSION")) as f:
        version = f.read().strip()
    assert os.path.basename(path) == "qi-klaxon-%s-%s-9.x-10.x.zip" % (
        version, layout.BY_PROFILE[build]["board_id"])
    got = members(path)
    names = [n for n, _, _ in got]
    assert names[0] == bundle.README_NAME and names[-1] == "code.py"  # code.py last, as written
    files = {n: data for n, data, _ in got[1:]}
    assert files == deployed(tmp_path, build, 10, need_cp())
    nine = tmp_path / "nine"
    nine.mkdir()
    assert files == deployed(nine, build, 9, need_cp9())
    # laid out for the drive's root: the firmware, the libraries, compiled for CircuitPython 10
    assert {"code.py", "boot.py", "safemode.py", "settings.example.toml", "version.txt",
            "hardware/device.mpy", "lib/qiklaxon/core.mpy", "lib/adafruit_ticks.mpy",
            "lib/adafruit_debouncer.mpy"} <= set(files)
    assert not [n for n in files if n.endswith(".py") and n not in deploy.ENTRY]
    for n, data in files.items():
        if n.endswith(".mpy"):
            assert data[:2] == b"C\x06", n
    assert ("sounds/klaxon.wav" in files) == (build == "cpb")  # WAV sounds: the Bluefruit's
    assert ("lib/neopixel.mpy" in files) == (build != "cpx")  # frozen into the Express
    with open(os.path.join(ROOT, "settings.example.toml"), "rb") as f:
        assert files["settings.example.toml"] == f.read()
    assert "settings.toml" not in files  # (unzipped over a drive, it would replace the maker's)
    line = files["version.txt"].decode()
    assert line == "QI Klaxon %s for %s, CircuitPython 9 and 10\n" % (
        version, layout.BY_PROFILE[build]["title"])
    assert deploy.VERSION_LINE.match(line.strip())
    readme = dict((n, d) for n, d, _ in got)[bundle.README_NAME].decode()
    assert readme.startswith("QI Klaxon %s for the %s, CircuitPython 9 and 10\r\n" % (
        version, layout.BY_PROFILE[build]["title"]))
    assert "circuitpython.org/board/%s/" % layout.BY_PROFILE[build]["board_id"] in readme
    assert "The zip holds no settings.toml, so an update never touches yours" in " ".join(
        readme.split())


@pytest.mark.parametrize("build", layout.BOARDS)
def test_an_update_unzipped_over_the_drive_keeps_the_makers_settings(made, tmp_path, build):
    """The documented update: everything in the zip copied onto the drive, replacing what
    is there. A drive that runs QI Klaxon with the maker's settings.toml (six players, the
    Klaxon and button A moved to other pins, a quieter volume) keeps that file byte for
    byte, and the firmware still reads the maker's values from it; the new
    settings.example.toml lands beside it. And a drive with no settings.toml gets none:
    the firmware starts with its defaults, nothing reported."""
    import contextlib
    import io

    from hardware.settings import KEYS, read

    mine = (b'# our table\r\nQK_PLAYERS = 6\r\nQK_PIN_KLAXON = "A2"\r\nQK_PIN_A = "A3"\r\n'
            b"QK_VOLUME = 3\r\n")
    drive = tmp_path / "CIRCUITPY"
    drive.mkdir()
    (drive / "boot_out.txt").write_text("Adafruit CircuitPython 10.2.1 on 2025-11-01\n")
    with zipfile.ZipFile(made[build]) as z:
        z.extractall(drive)  # the first install
        (drive / "settings.toml").write_bytes(mine)  # the maker's settings
        (drive / "code.py").write_text("print('the old version')\n")  # an older firmware
        z.extractall(drive)  # the update: everything, replacing what is there
        for n in z.namelist():
            assert (drive / n).read_bytes() == z.read(n), n
    assert (drive / "settings.toml").read_bytes() == mine
    said = io.StringIO()
    with contextlib.redirect_stdout(said), open(drive / "settings.toml", "rb") as f:
        values, bad = read(f)  # the firmware's own reader, on the drive's file
    got = dict(zip([k[0] for k in KEYS], values))
    assert (bad, said.getvalue()) == (0, "")
    assert (got["QK_PLAYERS"], got["QK_PIN_KLAXON"], got["QK_PIN_A"], got["QK_VOLUME"]) == (
        6, "A2", "A3", 3)
    sim = Sim((drive / "settings.toml").read_text(), board_name="cpx")  # the six seats
    sim.play([], 500)
    assert [line for _, line in sim.events if line.startswith("at ")] == ["at 0 0 0 0 0 0"]
    fresh = tmp_path / "fresh"
    with zipfile.ZipFile(made[build]) as z:
        z.extractall(fresh)
    assert not (fresh / "settings.toml").exists()
    with contextlib.redirect_stdout(said):
        values, bad = read([])  # no settings.toml: every key its default
    assert bad == 0 and values == [k[1] for k in KEYS]


def test_bundles_are_the_same_bytes_each_time(made, tmp_path):
    again, _ = bundle.bundle(("cpx",), BOTH, str(tmp_path), [need_cp(), need_cp9()],
                             fetch=False, out=lambda *a: None)
    with open(made["cpx"], "rb") as a, open(again["cpx", BOTH], "rb") as b:
        assert a.read() == b.read()
    assert {i.date_time for _, _, i in members(made["cpx"])} == {bundle.DATE}


def _offline(tmp_path, monkeypatch):
    """No mpy-cross on this computer but what a test gives (none beside the repo, none
    fetched earlier) and none to fetch (a closed port stands for being offline)."""
    monkeypatch.setattr(mpycross, "CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr(mpycross, "ROOT", str(tmp_path / "repo"))
    monkeypatch.delenv("QK_MPY_CROSS", raising=False)
    monkeypatch.delenv("QK_CIRCUITPYTHON", raising=False)
    monkeypatch.setenv("QK_MPY_CROSS_URL", "http://127.0.0.1:9/nothing")


def test_a_bundle_whose_compiler_cannot_be_had_is_said_and_not_made(tmp_path, monkeypatch,
                                                                   capsys):
    """CircuitPython 9's mpy-cross is not here and cannot be fetched: each 9.x bundle is
    named as not made, with why and what a maker can do (online again, or the Releases
    page; --mpy-cross last, for whoever has one); the 10.x ones are made, for 10 alone
    (nothing checked them against 9's compiler); exit 1. Never a zip for 9 made with
    CircuitPython 10's compiler."""
    tool = need_cp()
    _offline(tmp_path, monkeypatch)
    out = tmp_path / "dist"
    rc = bundle.main(["--out", str(out), "--mpy-cross", tool])
    err = capsys.readouterr().err
    assert rc == 1
    for build in layout.BOARDS:
        assert "NOT MADE %s: could not fetch CircuitPython 9's mpy-cross" % bundle.name(build, 9) \
            in err
    assert "3 made, 3 not made" in err
    assert "run it again online, or download the zips from the project's Releases page" in err
    assert sorted(os.listdir(out)) == sorted(bundle.name(b, 10) for b in layout.BOARDS)
    with zipfile.ZipFile(out / bundle.name("cpx", 10)) as z:
        assert z.read("version.txt").decode().endswith(", CircuitPython 10\n")


def test_offline_with_no_compiler_at_all_says_what_a_maker_can_do(tmp_path, monkeypatch,
                                                                  capsys):
    """A maker offline, with nothing fetched yet: no zip, exit 1, and the words lead with
    what they can do (run it online once, or download the zips), not with a path to a
    compiler they do not have."""
    _offline(tmp_path, monkeypatch)
    out = tmp_path / "dist"
    assert bundle.main(["--out", str(out)]) == 1
    err = capsys.readouterr().err
    assert "Traceback" not in err and "0 made, 6 not made" in err
    for line in err.splitlines()[:-1]:
        assert line.startswith("bundle: NOT MADE ")
        assert line.index("run it again online") < line.index("--mpy-cross PATH")
    assert os.listdir(out) == []


def test_the_zips_split_the_day_9s_and_10s_files_differ(tmp_path, monkeypatch):
    """Were CircuitPython 9's mpy-cross to compile one module differently, the bundle says
    so and makes one zip a version, each naming its own CircuitPython, rather than one zip
    that is wrong for one of them."""
    tools = [need_cp(), need_cp9()]
    compile_mpy = deploy.compile_mpy

    def compiled(tool, src, tmp, rel, flags):
        data = compile_mpy(tool, src, tmp, rel, flags)
        return data + b"9" if tool == tools[1] and rel == "hardware/device.py" else data

    monkeypatch.setattr(deploy, "compile_mpy", compiled)
    said = []
    paths, missing = bundle.bundle(("cpx",), BOTH, str(tmp_path), tools, fetch=False,
                                   out=said.append)
    assert missing == {} and sorted(paths) == [("cpx", (9,)), ("cpx", (10,))]
    assert "cpx: CircuitPython 9 and 10's mpy-cross make different files " \
           "(hardware/device.mpy): one zip each" in said
    for major in (9, 10):
        with zipfile.ZipFile(paths["cpx", (major,)]) as z:
            assert z.read("version.txt").decode().endswith(", CircuitPython %d\n" % major)
            assert z.read("hardware/device.mpy").endswith(b"9") == (major == 9)


def test_the_pico_bundle_unzipped_onto_circuitpy_boots_and_plays_on_the_real_firmware(made,
                                                                                   tmp_path):
    """The 10.x Pico bundle, unzipped as it is onto a CIRCUITPY image, on CircuitPython
    10.2.1's own firmware (rp2040js): the console's first line is version.txt's, and a
    question (ask, an answer, a Klaxon) gives the harness's lines with no settings.toml
    (the bundle has none: the defaults)."""
    why = pico.missing()
    if why:
        if os.environ.get("QK_REQUIRE_PICO") == "1":
            pytest.fail(why)
        pytest.skip(why)
    folder = tmp_path / "unzipped"
    with zipfile.ZipFile(made["pico"]) as z:
        z.extractall(folder)
    d = pico.Drive(files=str(folder))
    try:
        steps = scenario.taps(scenario.BUDGET)
        r = pico.run(d, steps, 3500)
    finally:
        d.close()
    console = [s for _, s in r.console() if s]
    first = console[console.index("code.py output:") + 1]
    assert first == (folder / "version.txt").read_text().strip()
    assert not (folder / "settings.toml").exists()
    sim = pico.harness("", steps, 3500)
    diffs = pico.compare(r.lines(), list(sim.events), 25, 1)
    assert not diffs, "\n".join(diffs)
    assert [s for _, s in r.lines()] == ["new", "at 0 0 0 0", "ask 0", "answer 1", "klaxon 2 1"]


def test_the_express_bundle_plays_a_whole_game_on_circuitpython(made, tmp_path):
    """The 10.x Express bundle's files on CircuitPython 10's own 32-bit VM (the lane's
    stand-ins for the board's C modules): the first line is the version, and a whole game
    (reveal, penalty, undo, a move, the end, a new game set up at the table, a Klaxon in
    it) gives the harness's lines, also in a heap the size of the Express's."""
    need_cp()
    folder = tmp_path / "drive"
    with zipfile.ZipFile(made["cpx"]) as z:
        z.extractall(folder)
        files = {n: z.read(n) for n in z.namelist()}
    d = cpvm.Drive("cpx", folder=str(folder))  # (its deploy rewrites the same bytes: checked)
    try:
        for n, data in files.items():
            with open(folder / n, "rb") as f:
                assert f.read() == data, n
        steps = scenario.taps(scenario.GAME)
        lines, base, out, ok = d.run(steps, scenario.GAME_MS)
        assert ok, out[-2000:]
        sim = Sim(board_name="cpx")  # no settings.toml: the defaults
        sim.play(steps, scenario.GAME_MS)
        assert lines == sim.canonical()
        assert d.banner == files["version.txt"].decode().strip()
        assert {"klaxon", "penalty", "undo", "move", "end", "new"} <= {
            line.split()[1] for line in lines}
        express = int((base + 15.9 * 1024) * 1.035)  # its ~15.9 KB usable, tables and all
        again, _, out, ok = d.run(steps, scenario.GAME_MS, heap=express)
        assert ok and again == lines, out[-2000:]
    finally:
        d.close()


# ------------------------------------------------------------ its README, its command line
def test_the_pico_bundles_readme_names_the_pico_2s_circuitpython_too():
    """The Pico's zip is for the Pico 2 as well (install.md says so), and each has its own
    CircuitPython: the README names both pages; the other builds name their own only."""
    text = bundle.readme("pico", 10, [])
    assert "https://circuitpython.org/board/raspberry_pi_pico/" in text
    assert "https://circuitpython.org/board/raspberry_pi_pico2/" in text
    for build in ("cpb", "cpx"):
        pages = [w for w in bundle.readme(build, 9, []).split() if "circuitpython.org/board/" in w]
        assert pages == ["https://circuitpython.org/board/%s/" % layout.BY_PROFILE[build][
            "board_id"]]


def test_the_readme_says_a_reset_renames_the_drive_not_the_reload_after_copying():
    """CircuitPython reloads code.py by itself after a copy, but only a reset (or unplug
    and replug) runs boot.py, which names the drive QIKLAXON (as install.md says)."""
    for build in layout.BOARDS:
        text = " ".join(bundle.readme(build, 10, []).split())
        assert "restarts by itself. Its drive is then called QIKLAXON" not in text
        assert "does not run boot.py: press the board's reset button once (or unplug it and " \
               "plug it back). Then boot.py renames the drive QIKLAXON" in text


@pytest.mark.parametrize("where", ["a file", "under a file"])
def test_an_out_that_is_no_folder_is_a_clear_exit_2(tmp_path, capsys, where):
    (tmp_path / "dist.zip").write_text("mine\n")
    out = tmp_path / "dist.zip" if where == "a file" else tmp_path / "dist.zip" / "sub"
    assert bundle.main(["--out", str(out), "--offline"]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and err.startswith("bundle: ")
    assert ("is not a folder" if where == "a file" else "cannot make the folder") in err
    assert (tmp_path / "dist.zip").read_text() == "mine\n"


def test_a_wrong_or_empty_mpy_cross_is_a_clear_exit_2(tmp_path, capsys):
    assert bundle.main(["--out", str(tmp_path), "--mpy-cross", str(tmp_path / "none"),
                        "--offline"]) == 2
    assert "--mpy-cross" in capsys.readouterr().err
    with pytest.raises(SystemExit) as e:
        bundle.main(["--out", str(tmp_path), "--mpy-cross="])
    assert e.value.code == 2
    assert os.listdir(tmp_path) == []


def test_ctrl_c_leaves_no_half_zip_and_exits_130(tmp_path, monkeypatch, capsys):
    def members():
        yield "code.py", b"print(1)\n"
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        bundle.write_zip(str(tmp_path / "a.zip"), members())
    assert os.listdir(tmp_path) == []
    monkeypatch.setattr(bundle, "bundle", lambda *a, **k: (_ for _ in ()).throw(
        KeyboardInterrupt))
    assert bundle.main(["--out", str(tmp_path), "--offline"]) == 130
    assert capsys.readouterr().err.startswith("bundle: stopped (Ctrl-C)")


def test_a_cache_another_user_made_is_said_with_what_to_do_not_a_traceback(tmp_path, monkeypatch,
                                                                          capsys):
    """The bundle fetches into .cache/ as the deploy does: a .cache a sudo run left to root
    is a message with what to do (tools/maker/deploy.py cache_trouble), exit 1, no zip."""
    cache = tmp_path / "repo" / ".cache"
    monkeypatch.setattr(deploy, "CACHE", str(cache))
    monkeypatch.setattr(deploy, "LIBRARY_CACHE", str(cache / "libraries"))
    monkeypatch.setattr(deploy, "_from_environment", lambda name: None)

    def refused(*a, **k):
        raise PermissionError(13, "Permission denied", str(cache / "libraries"))

    monkeypatch.setattr(deploy.tempfile, "mkdtemp", refused)
    out = tmp_path / "dist"
    assert bundle.main(["--out", str(out)]) == 1
    err = capsys.readouterr().err
    assert "Traceback" not in err and err.startswith("bundle: cannot use %s" % cache)
    assert "sudo chown -R $USER" in err and err.rstrip().endswith("run the bundle again")
    assert os.listdir(out) == []
