"""tools/lanes/cpvm.py's breakdown(): the Express heap, part by part, runs as shipped (it
crashed: ``module 'hardware' has no attribute 'settings'``, reading the settings before
importing them). Needs the CircuitPython build, as the CP lane does."""

import os

import pytest

import cpvm

if cpvm.find() is None:
    if os.environ.get("QK_REQUIRE_CP"):
        raise RuntimeError("QK_REQUIRE_CP is set: " + cpvm.HOW_TO_GET)
    pytest.skip(cpvm.HOW_TO_GET, allow_module_level=True)


def test_the_heap_breakdown_runs_and_names_each_start_up_step():
    drive = cpvm.Drive("cpx")
    try:
        rows = cpvm.breakdown(drive)
    finally:
        drive.close()
    parts = [what for what, _, _ in rows]
    for step in ("hardware.settings (what it read)", "hardware.start (objects after it)",
                 "hardware.outputs (objects after it)", "hardware.device", "the Device"):
        assert step in parts, step
    assert all(isinstance(n, int) for _, n, _ in rows)
    assert sum(n for what, n, _ in rows if what != "stand-ins") < 14 * 1024  # the firmware's


def test_where_names_the_allocation_that_runs_out_first_below_each_layouts_need():
    """``cpvm.py --where`` (docs/develop.md: how a split is measured): one step below a
    layout's need, the run fails, and the console says which allocation failed."""
    rows = cpvm.where("budget", pads=cpvm.QUICK_LAYOUTS[:2])
    assert [pad for pad, _, _ in rows] == list(cpvm.QUICK_LAYOUTS[:2])
    for pad, need, line in rows:
        assert 8 * 1024 < need < 14 * 1024, (pad, need)
        assert "MemoryError" in line or "lucky" in line, (pad, line)


def test_where_with_a_bad_argument_says_how_and_exits_2():
    import subprocess
    import sys

    r = subprocess.run([sys.executable, os.path.join(cpvm.ROOT, "tools", "lanes", "cpvm.py"),
                        "--where", "everything"], capture_output=True, text=True, timeout=60)
    assert r.returncode == 2 and r.stderr.startswith("usage: cpvm.py") and "--where" in \
        r.stderr and "Traceback" not in r.stderr, r
    r = subprocess.run([sys.executable, os.path.join(cpvm.ROOT, "tools", "lanes", "cpvm.py"),
                        "--help"], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0 and "--where" in r.stdout, r  # (the help, not a measurement)
