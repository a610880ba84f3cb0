#!/usr/bin/env python3
"""The project's commands, on a machine with only python3:

    python3 tools/dev.py sim [sim.py flags]   # run the device on the simulated board
    python3 tools/dev.py test                 # run every test, the VM lane and the benchmark
    python3 tools/dev.py web [--port N]       # the device in a browser, on 127.0.0.1
    python3 tools/dev.py mutants [flags]      # mutation testing (docs/mutation.md)
    python3 tools/dev.py deploy [DRIVE]       # put the firmware on a board (a maker's)
    python3 tools/dev.py bundle               # the release zips, one per board, in dist/

sim, test, bench, web and mutants first make ``.venv`` beside this repo and install
requirements-dev.txt into it at the versions requirements.lock pins (again only
when one of them changes), then run inside it. deploy and bundle need none of
that: they run on this python3 and fetch only what they use (the three
CircuitPython libraries, CircuitPython's mpy-cross) into .cache/.
"""

import hashlib
import os
import shutil
import subprocess
import sys
import time
import venv

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
VENV = os.path.join(ROOT, ".venv")
PY = os.path.join(VENV, "bin", "python")
REQS = os.path.join(ROOT, "requirements-dev.txt")
LOCK = os.path.join(ROOT, "requirements.lock")  # exact versions: what CI tested
STAMP = os.path.join(VENV, ".requirements-sha256")
# The host suite: every test but the browser lane's, on every core (pytest-xdist). Work
# stealing: a worker whose queue runs dry takes tests still waiting in another's (the
# lanes' tests take minutes, the rest well under a second; with the default scheduling
# one worker sat idle for the last 9 minutes while the other's queue waited behind a
# Pico lane test)
HOST_SUITE = ["-n", "auto", "--dist", "worksteal", "tests", "--ignore=tests/test_web.py"]
# CI's sample of the mutants: a fixed 40 (tools/mutants.py; the full run is the bench's)
MUTANTS_SAMPLE = 40
# -rs: each lane that skipped says why, and how to get what it needs; the 20 slowest tests
# are listed (CI has 20 minutes)
PYTEST_FLAGS = ["-q", "-rs", "-p", "no:cacheprovider", "--durations=20"]


def _digest():
    h = hashlib.sha256()
    for name in ("requirements-dev.txt", "requirements.txt", "requirements.lock"):
        with open(os.path.join(ROOT, name), "rb") as f:
            h.update(f.read())
    return h.hexdigest()


def ensure_venv():
    if not os.path.exists(PY):
        print("dev: creating %s" % VENV, flush=True)
        venv.EnvBuilder(with_pip=True).create(VENV)
    want = _digest()
    have = open(STAMP).read() if os.path.exists(STAMP) else ""
    if have != want:
        print("dev: installing requirements-dev.txt into .venv", flush=True)
        subprocess.check_call([PY, "-m", "pip", "install", "-q", "--disable-pip-version-check",
                               "-r", REQS, "-c", LOCK], cwd=ROOT)
        with open(STAMP, "w") as f:
            f.write(want)


def _interactive(cmd, env):
    """Run ``cmd`` (sim or web) in the caller's folder until it ends, and return its exit
    code. Ctrl-C goes to it too (the terminal signals the whole job): it ends in its own
    way (the sim writes what it recorded, the server stops), and so this waits for it,
    with no traceback of its own."""
    child = subprocess.Popen(cmd, env=env)
    while True:
        try:
            return child.wait()
        except KeyboardInterrupt:
            continue


# Commands that run on this python3 alone (no .venv): a maker's (tools/<name>.py)
WITHOUT_VENV = ("deploy", "bundle")


def main(argv):
    if argv and argv[0] in ("-h", "--help"):
        print(__doc__)
        return 0
    if argv and argv[0] in WITHOUT_VENV:  # from the caller's folder, as typed
        return _interactive([sys.executable, os.path.join(ROOT, "tools", argv[0] + ".py")] +
                            argv[1:], dict(os.environ, PYTHONDONTWRITEBYTECODE="1"))
    if not argv or argv[0] not in ("sim", "test", "bench", "web", "mutants"):
        print(__doc__)
        return 2
    ensure_venv()
    env = dict(os.environ, BLINKA_OS_AGNOSTIC="1", PYTHONDONTWRITEBYTECODE="1")
    if argv[0] in ("sim", "web"):  # from the caller's folder: their paths are where they typed
        return _interactive([PY, os.path.join(ROOT, "tools", argv[0] + ".py")] + argv[1:], env)
    if argv[0] in ("bench", "mutants"):
        return subprocess.call([PY, os.path.join(ROOT, "tools", argv[0] + ".py")] + argv[1:],
                               cwd=ROOT, env=env)
    # The pytest script, not ``python -m pytest``: -m puts the repo root first on
    # sys.path, where code.py shadows the standard library's ``code`` module.
    # The host suite first (its wall time is reported, never a gate), then the browser lane
    # (tests/test_web.py: a real Chromium; it skips, saying why, where there is none).
    pytest = [os.path.join(VENV, "bin", "pytest")] + PYTEST_FLAGS
    started = time.monotonic()
    # run whole, the host suite also maps which tests run which lines of device code
    # (coverage per test: it runs the simulated board 2 to 5 times slower), for the sample
    # of the mutants below, but only when the sample needs it: each sampled mutant runs
    # first against the test that caught it last (tests/mutants_sample.txt)
    whole = env
    if len(argv) == 1:  # the CircuitPython lane's tests keep their figures for the bench
        figures = os.path.join(ROOT, ".cache", "figures")
        shutil.rmtree(figures, ignore_errors=True)
        env = whole = dict(env, QK_FIGURES=figures)
    if len(argv) == 1:
        rc = subprocess.call([PY, os.path.join(ROOT, "tools", "mutants.py"), "--sample",
                              str(MUTANTS_SAMPLE), "--recorded"], cwd=ROOT, env=env)
        if rc == 2:  # its files are unreadable (it said which): no use running the suite
            return rc
        if rc:
            whole = dict(env, QK_MUTANTS_MAP=os.path.join(ROOT, ".mutation"),
                         QK_MUTANTS_SUITE="1")
    rc = subprocess.call(pytest + HOST_SUITE + argv[1:], cwd=ROOT, env=whole)
    if rc not in (0, 5):  # 5: nothing selected (-k)
        return rc
    suite = time.monotonic() - started
    print("\nbrowser lane (tests/test_web.py):", flush=True)
    started = time.monotonic()
    rc = subprocess.call(pytest + ["-rs", "tests/test_web.py"] + argv[1:], cwd=ROOT, env=env)
    if rc not in (0, 5):
        return rc
    browser = time.monotonic() - started
    if len(argv) == 1:  # the whole suite ran: a sample of the mutants (tools/mutants.py)
        print("\nmutants (tools/mutants.py --sample %d):" % MUTANTS_SAMPLE, flush=True)
        rc = subprocess.call([PY, os.path.join(ROOT, "tools", "mutants.py"), "--sample",
                              str(MUTANTS_SAMPLE)], cwd=ROOT, env=env)
        # 1: a sampled mutant survived that tests/equivalent_mutants.txt does not list: a
        # slip in the firmware the tests would let through (its file:line and diff are
        # above). 2: the tool failed. Either fails the run.
        if rc != 0:
            return rc
    print("\nbenchmark (tools/bench.py --quick):", flush=True)
    return subprocess.call([PY, os.path.join(ROOT, "tools", "bench.py"), "--quick",
                            "--suite-seconds", "%.1f" % suite, "--browser-seconds",
                            "%.1f" % browser], cwd=ROOT, env=env)


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except KeyboardInterrupt:  # (the command it ran said its own word)
        sys.exit(130)
