"""tools/deploy.py against folders that stand in for CIRCUITPY drives."""

import collections
import os
import stat

import pytest

import deploy
from harness import ROOT

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


def drive(tmp_path, board):
    d = tmp_path / "CIRCUITPY"
    d.mkdir()
    (d / "boot_out.txt").write_text(BOOT_OUT[board])
    return str(d)


def quiet(*a):
    pass


@pytest.mark.parametrize("board", ["cpb", "cpx", "pico"])
def test_deploys_what_the_board_needs_and_verifies_it(tmp_path, board):
    d = drive(tmp_path, board)
    written = dict(deploy.deploy(d, out=quiet))
    names = set(written)
    assert {"code.py", "boot.py", "safemode.py", "settings.toml", "hardware/device.py",
            "lib/qiklaxon/game.py", "lib/adafruit_debouncer.py", "lib/adafruit_ticks.py",
            "lib/neopixel.py"} <= names
    assert ("sounds/klaxon.wav" in names) == (board != "pico")  # the Pico's piezo plays tones
    assert not any(n.startswith(("tools/", "tests/")) for n in names)
    for rel, size in written.items():
        src = os.path.join(ROOT, rel) if not rel.startswith("lib/adafruit") and \
            rel != "lib/neopixel.py" and rel != "settings.toml" else None
        with open(os.path.join(d, rel), "rb") as f:
            data = f.read()
        assert len(data) == size
        if src:
            assert data == open(src, "rb").read()
    assert not any(n.endswith(".qk-new") for _, _, fs in os.walk(d) for n in fs)
    # the list of files and their total, for the closing note
    print(board, len(written), "files", sum(written.values()), "bytes")


def test_code_py_is_written_last(tmp_path, monkeypatch):
    d = drive(tmp_path, "cpb")
    order = []
    real = deploy._write_verified
    monkeypatch.setattr(deploy, "_write_verified", lambda p, data: (order.append(p), real(p, data)))
    deploy.deploy(d, out=quiet)
    assert order[-1].endswith("code.py")


def test_a_yank_mid_copy_leaves_no_half_written_code_py(tmp_path, monkeypatch):
    d = drive(tmp_path, "cpb")
    (tmp_path / "CIRCUITPY" / "code.py").write_text("print('the old firmware')\n")
    calls = collections.Counter()
    real = deploy._write_verified

    def yank(path, data):
        calls["n"] += 1
        if calls["n"] == 6:
            raise OSError(5, "Input/output error")  # the cable is pulled
        real(path, data)

    monkeypatch.setattr(deploy, "_write_verified", yank)
    with pytest.raises(deploy.DeployError, match="run the deploy again"):
        deploy.deploy(d, out=quiet)
    assert (tmp_path / "CIRCUITPY" / "code.py").read_text() == "print('the old firmware')\n"
    monkeypatch.setattr(deploy, "_write_verified", real)
    deploy.deploy(d, out=quiet)  # the next try completes
    assert (tmp_path / "CIRCUITPY" / "code.py").read_bytes() == open(ROOT + "/code.py", "rb").read()


def test_never_overwrites_the_users_settings(tmp_path):
    d = drive(tmp_path, "cpx")
    (tmp_path / "CIRCUITPY" / "settings.toml").write_text("QK_PLAYERS = 7\n")
    written = dict(deploy.deploy(d, out=quiet))
    assert "settings.toml" not in written
    assert (tmp_path / "CIRCUITPY" / "settings.toml").read_text() == "QK_PLAYERS = 7\n"


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


def test_a_read_only_drive_says_so(tmp_path, monkeypatch):
    d = drive(tmp_path, "pico")

    def read_only(path, data):
        raise OSError(30, "Read-only file system")

    monkeypatch.setattr(deploy, "_write_verified", read_only)
    with pytest.raises(deploy.DeployError, match="read-only"):
        deploy.deploy(d, out=quiet)


def fake_mpy_cross(tmp_path, first):
    tool = tmp_path / ("mpy-cross-" + first)
    tool.write_text("#!/bin/sh\n# usage: TOOL src -o out\nprintf '%s' > \"$3\"\ncat \"$1\" >> \"$3\"\n"
                    % first)
    tool.chmod(tool.stat().st_mode | stat.S_IEXEC)
    return str(tool)


def test_mpy_with_circuitpythons_mpy_cross_and_refusal_of_micropythons(tmp_path):
    d = drive(tmp_path, "cpx")
    written = dict(deploy.deploy(d, mpy_cross=fake_mpy_cross(tmp_path, "C"), out=quiet))
    assert "hardware/device.mpy" in written and "lib/adafruit_debouncer.mpy" in written
    assert "code.py" in written and "code.mpy" not in written  # the entry points stay .py
    assert (tmp_path / "CIRCUITPY" / "hardware" / "device.mpy").read_bytes()[:1] == b"C"
    with pytest.raises(deploy.DeployError, match="CircuitPython refuses"):
        deploy.deploy(d, mpy_cross=fake_mpy_cross(tmp_path, "M"), out=quiet)


def test_command_line_reports_errors_without_a_traceback(tmp_path, capsys):
    assert deploy.main([str(tmp_path)]) == 1
    assert "no boot_out.txt" in capsys.readouterr().err
