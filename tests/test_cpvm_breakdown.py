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
