"""Start-up as code.py runs it on a board (hardware/steps.py), from a CIRCUITPY drive:
version.txt's line first on the console, then settings.toml read from the drive as bytes,
the build, the outputs, the saved game; and each step's module gone when start-up is
done, as the Express's RAM needs. The other host tests start the device through
tools/simulated/simboard/scenario.py, which hands it the settings as text and skips these steps.
"""

import os
import sys

import pytest

import hardware
import scenario
from harness import ROOT, Sim
from test_settings import errors, question_with_a_klaxon, ring_colours

VERSION = "QI Klaxon 1.0.0 for the simulated board, CircuitPython 10\n"
STEP_MODULES = ("settings", "start", "outputs", "steps", "profile_simulated")


def from_the_drive(board, settings, roll):
    """What code.py does on the board (the settings and dice come from the drive and
    ``random``: ``settings`` and ``roll`` are not used)."""
    import hardware.steps

    p = hardware.steps.parts()
    import hardware.device

    return hardware.device.Device(p)


@pytest.fixture
def drive(tmp_path, monkeypatch):
    """An empty CIRCUITPY drive but for the sounds, as the current folder; the simulated
    board starts from it (the Sim's own settings are not used)."""
    os.symlink(os.path.join(ROOT, "sounds"), str(tmp_path / "sounds"))
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(scenario, "_start", from_the_drive)
    return tmp_path


def console(sim):
    return [line for _, line in sim.events]


def test_start_up_says_the_firmwares_version_first_then_reads_the_drives_settings(drive):
    (drive / "version.txt").write_text(VERSION + "a second line, never shown\n")
    # a comment with a byte that is not UTF-8 (an old editor's "café"), a bad value
    (drive / "settings.toml").write_bytes(b"# caf\xe9\nQK_PLAYERS = 5\nQK_VOLUME = 11\n")
    sim = Sim()
    assert console(sim)[:2] == [
        VERSION.strip(),
        "settings.toml line 3: QK_VOLUME = 11 is not a whole number from 0 to 10; using 8"]
    assert errors(sim) == console(sim)[1:2]
    assert sim.game.players == 5
    assert "purple" in ring_colours(sim, 10, 400)
    assert question_with_a_klaxon(sim, 500) == [{"challenger": 2, "challenged": 1}]
    assert "klaxon" in [name for _, name in sim.sounds()]


def test_a_drive_with_neither_version_txt_nor_settings_toml_starts_with_the_defaults(drive):
    sim = Sim()
    assert errors(sim) == [] and sim.game.players == 4
    assert not any("QI Klaxon" in line or "settings" in line for line in console(sim))
    assert "purple" not in ring_colours(sim, 10, 400)
    assert question_with_a_klaxon(sim, 500) == [{"challenger": 2, "challenged": 1}]


def test_a_utf16_settings_file_on_the_drive_is_reported_and_the_device_starts(drive):
    (drive / "version.txt").write_text(VERSION)
    (drive / "settings.toml").write_bytes("\ufeffQK_PLAYERS = 6\n".encode("utf-16-le"))
    sim = Sim()
    assert console(sim)[:2] == [
        VERSION.strip(), "settings.toml is UTF-16 text: save it as UTF-8; using the defaults"]
    assert sim.game.players == 4
    assert "purple" in ring_colours(sim, 10, 400)


def test_start_up_leaves_none_of_its_steps_modules_behind(drive):
    # each step's module is dropped when it is done, so that its RAM is freed before the
    # next step and the loop (the Express has ~16 KB for everything); the build's profile
    # too, once the outputs have what they need of it
    (drive / "settings.toml").write_text("QK_PLAYERS = 3\n")
    for name in STEP_MODULES:
        sys.modules.pop("hardware." + name, None)
    sim = Sim()  # (the simulated build sleeps: hardware/power.py is a step too)
    assert sim.device is not None and sim.game.players == 3
    left = [n for n in STEP_MODULES if "hardware." + n in sys.modules or hasattr(hardware, n)]
    assert left == []
