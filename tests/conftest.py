"""Test set-up: the simulated board's import paths come first, so that
adafruit_ticks runs on the simulated clock (tools/simulated/harness.py); then the
board's lib/, each group of tools/, and the root last (tools/paths.py). Which test holds
which behaviour: tests/README.md."""

import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tools"))
# (the root goes last: its code.py would shadow the standard library's ``code``, which
# pdb imports)
import paths  # noqa: E402,F401
os.environ["BLINKA_OS_AGNOSTIC"] = "1"
os.chdir(ROOT)  # the firmware opens sounds/ relative to the drive's root, as on the board

# Per-test timeouts (pytest-timeout): a test that hangs (a firmware loop that never ends)
# fails in its own time, never the whole run. The lanes that run another VM take minutes
# a test; the host suite's slowest take seconds (a loaded CI machine: tens of seconds).
# ``--timeout`` on the command line overrides them all; a test's own mark overrides this.
TIMEOUT_S = 120
LANE_TIMEOUT_S = {"test_vm.py": 900, "test_cp.py": 900, "test_pico.py": 1800,
                  "test_web.py": 900, "test_fresh_clone.py": 900, "test_deploy.py": 600,
                  "test_bundle.py": 1800,  # (its bundles boot on the Pico and CircuitPython lanes)
                  "test_amp_lanes.py": 900}  # (the amplifier on both lanes)


# The lanes whose tests take minutes: collected first. pytest-xdist (--dist worksteal)
# hands each worker one half of the collection, so these all go to the first worker, in
# this order, and the other worker takes the short tests, then steals from the first's
# queue from its end: the lanes start at once, and the host suite's thousand short tests
# fill the other core round them, not a lane's last minutes on one core at the end (CI:
# 2 cores). The CircuitPython lane goes before the Pico lane, whose runs every worker
# makes ahead in the background from its first test (tests/test_pico.py ``ahead``): its
# tests mostly wait for runs, and by then most are made
FIRST = ("test_cp.py", "test_pico.py", "test_bundle.py", "test_amp_lanes.py",
         "test_fresh_clone.py", "test_mutants_tool.py", "test_card_robot.py")


def pytest_collection_modifyitems(config, items):
    import pytest

    rank = {name: i for i, name in enumerate(FIRST)}
    items.sort(key=lambda item: rank.get(os.path.basename(str(item.fspath)), len(FIRST)))
    if config.getoption("timeout", None):
        return
    for item in items:
        if item.get_closest_marker("timeout") is None:
            item.add_marker(pytest.mark.timeout(
                LANE_TIMEOUT_S.get(os.path.basename(str(item.fspath)), TIMEOUT_S)))


def pytest_configure(config):
    """tools/quality/mutants.py's map (coverage per test) or its run of the mutants, when it asks."""
    if os.environ.get("QK_MUTANTS_MAP") or os.environ.get("QK_MUTANTS_JOB"):
        import mutants

        mutants.configure(config)



# Runs made ahead (tests/test_pico.py ``ahead``): a module of the collection that defines
# ``ahead(request, tmp_path_factory)`` has it called once per session on every worker,
# from the worker's first test, whatever tests the worker has; the processes it starts
# are waited for at the session's end, outside any test's timeout
import pytest  # noqa: E402  (after the paths above)

_AHEAD = []


@pytest.fixture(scope="session", autouse=True)
def made_ahead(request, tmp_path_factory):
    modules = {id(item.module): item.module for item in request.session.items
               if getattr(item, "module", None) is not None}
    for module in modules.values():
        if callable(getattr(module, "ahead", None)):
            _AHEAD.extend(module.ahead(request, tmp_path_factory))


def pytest_sessionfinish(session, exitstatus):
    for process in _AHEAD:
        process.wait()  # (a worker does not leave while its emulators run)
