"""A fresh clone with nothing beside it passes: the lanes that need what a user may not
have (our CircuitPython build and the Pico kit in ../shared, Chromium) skip and say how
to get it, unless CI requires them (QK_REQUIRE_CP, QK_REQUIRE_PICO,
QK_REQUIRE_BROWSER, set by .ci/run), and the benchmark skips their rows instead of
counting them as over.

The clone is of this checkout's HEAD, in a temporary folder with no ``shared`` beside
it; its tests run with this venv (making a venv needs the network: the README's
``python3 tools/dev.py test`` does that part, and a clean machine runs it in CI).
"""

import os
import shutil
import subprocess
import sys

import pytest

from harness import ROOT

LANES = ["tests/test_cp.py", "tests/test_pico.py"]
HIDE = ("QK_CIRCUITPYTHON", "QK_PICO_KIT", "RP2040JS", "QK_REQUIRE_CP", "QK_REQUIRE_PICO",
        "QK_REQUIRE_BROWSER", "QK_FIGURES", "PYTEST_XDIST_WORKER", "PYTEST_CURRENT_TEST")


@pytest.fixture(scope="module")
def clone(tmp_path_factory):
    if shutil.which("git") is None or not os.path.exists(os.path.join(ROOT, ".git")):  # (a worktree: a file)
        pytest.skip("needs git and this checkout's history")
    where = tmp_path_factory.mktemp("fresh") / "qi-klaxon"
    subprocess.run(["git", "clone", "-q", ROOT, str(where)], check=True)
    assert not os.path.exists(where.parent / "shared")
    return str(where)


def env(**more):
    e = {k: v for k, v in os.environ.items() if k not in HIDE}
    e.update(BLINKA_OS_AGNOSTIC="1", PYTHONDONTWRITEBYTECODE="1", **more)
    return e


def pytest_in(clone, args, **more):
    pytest_bin = os.path.join(os.path.dirname(sys.executable), "pytest")
    return subprocess.run([pytest_bin, "-q", "-rs", "-p", "no:cacheprovider"] + args,
                          cwd=clone, env=env(**more), capture_output=True, text=True,
                          timeout=600)


def test_the_lanes_that_need_shared_skip_saying_how_to_get_it(clone):
    r = pytest_in(clone, LANES + ["-rA"])
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    last = r.stdout.splitlines()[-1]
    assert "skipped" in last and "failed" not in last and "error" not in last
    # what ran needs no board: the CircuitPython lane none, the Pico lane only its flash model
    ran = [line.split()[1] for line in r.stdout.splitlines() if line.startswith("PASSED")]
    assert not [t for t in ran if "test_cp.py" in t]
    assert all("cut" in t or "compaction" in t for t in ran), ran
    assert "CircuitPython 10 (unix, 32-bit) not found" in r.stdout
    assert "build-circuitpython.sh" in r.stdout
    assert "build.sh" in r.stdout or "circuitpython.org" in r.stdout  # the Pico kit


def test_the_test_command_prints_why_each_lane_skipped():
    import dev

    assert "-rs" in dev.PYTEST_FLAGS  # the host suite's and the browser lane's runs


@pytest.mark.parametrize("var, lane", [("QK_REQUIRE_CP", "tests/test_cp.py"),
                                       ("QK_REQUIRE_PICO", "tests/test_pico.py")])
def test_where_ci_requires_a_lane_its_absence_fails(clone, var, lane):
    r = pytest_in(clone, [lane], **{var: "1"})
    assert r.returncode not in (0, 5), r.stdout[-2000:]


def test_the_benchmark_skips_the_rows_whose_tool_is_missing(clone):
    code = ("import sys; sys.path.insert(0, 'tools'); import paths, bench, cpvm; "
            "print(cpvm.find(), bench.cp_rows(), bench.missing('QK_REQUIRE_CP'))")
    for extra, verdict in (({}, "None"), ({"QK_REQUIRE_CP": "1"}, "False")):
        r = subprocess.run([sys.executable, "-c", code], cwd=clone, env=env(**extra),
                           capture_output=True, text=True, timeout=300)
        assert r.returncode == 0, r.stderr[-2000:]
        # no build: no rows; the row then printed is skipped, or over where CI requires it
        assert r.stdout.split() == ["None", "None", verdict]


def test_ci_sets_the_requirements_and_installs_what_the_lanes_need():
    run = open(os.path.join(ROOT, ".ci", "run")).read()
    for var in ("QK_REQUIRE_BROWSER", "QK_REQUIRE_CP", "QK_REQUIRE_PICO"):
        assert "export %s=1" % var in run
    for pkg in ("chromium", "chromium-driver", "dosfstools", "mtools"):
        assert pkg in run


def test_a_mistyped_pico_kit_path_is_said_not_passed_over(tmp_path, monkeypatch):
    import pico

    monkeypatch.setenv("QK_PICO_KIT", str(tmp_path / "no-such-kit"))
    assert pico.kit() is None
    assert "QK_PICO_KIT=%s" % (tmp_path / "no-such-kit") in pico.missing()


# ------------------------------------------------------------ a maker's fresh clone
def maker_python():
    """A python3 with nothing installed for this project: the one this venv was made from
    (a maker's), if it has none of the three libraries."""
    py = getattr(sys, "_base_executable", None) or shutil.which("python3")
    r = subprocess.run([py, "-c", "import adafruit_ticks"], capture_output=True)
    if r.returncode == 0:
        pytest.skip("%s has the CircuitPython libraries installed: not a fresh machine" % py)
    return py


def maker_env(tmp_path, **more):
    """No venv, no test tools; pip takes the three libraries from local wheels (no
    network here), and nothing is fetched from the internet (a closed port)."""
    import wheels

    folder = str(tmp_path / "wheels")
    if not os.path.isdir(folder):
        wheels.locked_wheels(folder)
    e = {k: v for k, v in env().items() if k not in ("VIRTUAL_ENV", "PYTHONPATH",
                                                      "QK_MPY_CROSS", "QK_MPY_CROSS_URL")}
    e.update(wheels.pip_env(folder), QK_MPY_CROSS_URL="http://127.0.0.1:9/none", **more)
    return e


def test_a_makers_deploy_and_bundles_need_only_python3(clone, tmp_path):
    """On a fresh clone with no .venv and a python3 with nothing installed: the deploy
    fetches the three libraries (only them) at the locked versions and writes the board's
    files, as .mpy with CircuitPython 10's mpy-cross where it is given, else .py; the
    bundles are made the same (the 10.x ones; the 9.x ones are said not made); nothing
    makes a .venv."""
    import cpvm
    from model import layout

    py = maker_python()
    cp = cpvm.find()
    e = maker_env(tmp_path, **({"QK_MPY_CROSS": os.path.join(cp, "mpy-cross")} if cp else {}))
    drive = tmp_path / "CIRCUITPY"
    drive.mkdir()
    build = "cpx" if cp else "pico"
    (drive / "boot_out.txt").write_text(layout.boot_out(build))
    cmd = [py, "tools/dev.py", "deploy", str(drive)] + ([] if cp else ["--py"])
    r = subprocess.run(cmd, cwd=clone, env=e, capture_output=True, text=True, timeout=900)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:]
    assert "fetching the CircuitPython libraries with pip" in r.stdout
    assert not os.path.exists(os.path.join(clone, ".venv"))
    cached = [n for _, _, names in os.walk(os.path.join(clone, ".cache", "libraries"))
              for n in names if n.endswith(".py")]
    assert sorted(cached) == ["adafruit_debouncer.py", "adafruit_ticks.py", "neopixel.py"]
    ext = ".mpy" if cp else ".py"
    for rel in ("code.py", "version.txt", "hardware/device" + ext, "lib/adafruit_ticks" + ext):
        assert (drive / rel).exists(), rel
    assert (drive / "version.txt").read_text().startswith("QI Klaxon ")
    again = subprocess.run(cmd, cwd=clone, env=e, capture_output=True, text=True, timeout=900)
    assert again.returncode == 0 and "fetching" not in again.stdout  # (kept in .cache)
    if not cp:
        return
    r = subprocess.run([py, "tools/dev.py", "bundle"], cwd=clone, env=e, capture_output=True,
                       text=True, timeout=900)
    assert r.returncode == 1, r.stdout + r.stderr
    made = sorted(os.listdir(os.path.join(clone, "dist")))
    assert len(made) == 3 and all(n.endswith("-10.x.zip") for n in made), made
    assert r.stderr.count("NOT MADE ") == 3 and "-9.x.zip" in r.stderr
    assert not os.path.exists(os.path.join(clone, ".venv"))
