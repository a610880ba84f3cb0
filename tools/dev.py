#!/usr/bin/env python3
"""The project's commands, on a machine with only python3:

    python3 tools/dev.py sim [sim.py flags]   # run the device on the simulated board
    python3 tools/dev.py test                 # run every test, the VM lane and the benchmark
    python3 tools/dev.py web [--port N]       # the device in a browser, on 127.0.0.1
    python3 tools/dev.py mutants [flags]      # mutation testing (docs/mutation.md)
    python3 tools/dev.py regen [--check]      # remake what is derived (tools/gen/regen.py)
    python3 tools/dev.py deploy [DRIVE]       # put the firmware on a board (a maker's)
    python3 tools/dev.py bundle               # the release zips, one per board, in dist/

sim, test, bench, web, mutants and regen first make ``.venv`` beside this repo and install
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
# CI's sample of the mutants: a fixed 40 (tools/quality/mutants.py; the full run is the bench's)
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
    with no traceback of its own: this one ignores Ctrl-C while it waits (a Ctrl-C that
    came between the child's end and its status being read lost the status: exit 0 after
    a stopped deploy). A child ended by a signal exits 128 + its number, as a shell says
    it (Ctrl-C twice: 130, not 254)."""
    import signal

    child = subprocess.Popen(cmd, env=env)
    old = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        rc = child.wait()
    finally:
        signal.signal(signal.SIGINT, old)
    return 128 - rc if rc < 0 else rc


# Each command's script, in its group of tools/ (tools/README.md)
COMMANDS = {"deploy": "maker/deploy.py", "bundle": "maker/bundle.py", "web": "maker/web.py",
            "sim": "simulated/sim.py", "bench": "quality/bench.py",
            "mutants": "quality/mutants.py", "regen": "gen/regen.py"}
# Commands that run on this python3 alone (no .venv): a maker's (tools/maker/)
WITHOUT_VENV = ("deploy", "bundle")


def script(name):
    """The path of command ``name``'s script."""
    return os.path.join(ROOT, "tools", *COMMANDS[name].split("/"))


def main(argv):
    if argv and argv[0] in ("-h", "--help"):
        print(__doc__)
        return 0
    if argv and argv[0] in WITHOUT_VENV:  # from the caller's folder, as typed
        return _interactive([sys.executable, script(argv[0])] +
                            argv[1:], dict(os.environ, PYTHONDONTWRITEBYTECODE="1"))
    if not argv or argv[0] not in ("sim", "test", "bench", "web", "mutants", "regen"):
        print(__doc__)
        return 2
    ensure_venv()
    env = dict(os.environ, BLINKA_OS_AGNOSTIC="1", PYTHONDONTWRITEBYTECODE="1")
    if argv[0] in ("sim", "web"):  # from the caller's folder: their paths are where they typed
        return _interactive([PY, script(argv[0])] + argv[1:], env)
    if argv[0] in ("bench", "mutants", "regen"):
        return subprocess.call([PY, script(argv[0])] + argv[1:],
                               cwd=ROOT, env=env)
    # The pytest script, not ``python -m pytest``: -m puts the repo root first on
    # sys.path, where code.py shadows the standard library's ``code`` module.
    # The host suite first (its wall time is reported, never a gate), then the browser lane
    # (tests/test_web.py: a real Chromium; it skips, saying why, where there is none).
    pytest = [os.path.join(VENV, "bin", "pytest")] + PYTEST_FLAGS
    steps = Steps()
    # run whole, the host suite also maps which tests run which lines of device code
    # (coverage per test: it runs the simulated board 2 to 5 times slower), for the sample
    # of the mutants below, but only when the sample needs it: each sampled mutant runs
    # first against the test that caught it last (tests/mutants_sample.txt)
    whole = env
    if len(argv) == 1:  # the lanes' tests keep their figures for the bench
        figures = os.path.join(ROOT, ".cache", "figures")
        shutil.rmtree(figures, ignore_errors=True)
        env = whole = dict(env, QK_FIGURES=figures)
    started = time.monotonic()
    if len(argv) == 1:
        rc = steps.call("mutants' record", [PY, script("mutants"),
                                            "--sample", str(MUTANTS_SAMPLE), "--recorded"],
                        cwd=ROOT, env=env)
        if rc == 2:  # its files are unreadable (it said which): no use running the suite
            return rc
        if rc:
            whole = dict(env, QK_MUTANTS_MAP=os.path.join(ROOT, ".mutation"),
                         QK_MUTANTS_SUITE="1")
    rc = steps.call("host suite (the VM, CircuitPython and Pico lanes in it)",
                    pytest + HOST_SUITE + argv[1:], cwd=ROOT, env=whole)
    if rc not in (0, 5):  # 5: nothing selected (-k)
        steps.table(time.monotonic() - steps.t0)
        return rc
    suite = time.monotonic() - started
    # The browser lane times a real Chromium's pages, and the sample of the mutants and the
    # benchmark are CPU-bound, so they run beside it, and beside each other, at a lower
    # priority (NICE), their output kept until the lane is done; the bench takes its
    # browser's rows only once the lane has ended (--browser-seconds-file), on a machine
    # it no longer shares
    done = os.path.join(ROOT, ".cache", "browser-lane-seconds")
    os.makedirs(os.path.dirname(done), exist_ok=True)
    if os.path.exists(done):
        os.remove(done)
    later = []
    if len(argv) == 1:  # the whole suite ran: a sample of the mutants (tools/quality/mutants.py)
        later.append(("mutants (tools/quality/mutants.py --sample %d)" % MUTANTS_SAMPLE,
                      [PY, script("mutants"), "--sample",
                       str(MUTANTS_SAMPLE)]))
        # 1: a sampled mutant survived that tests/equivalent_mutants.txt does not list: a
        # slip in the firmware the tests would let through (its file:line and diff are
        # above). 2: the tool failed. Either fails the run.
    later.append(("benchmark (tools/quality/bench.py --quick)",
                  [PY, script("bench"), "--quick", "--suite-seconds",
                   "%.1f" % suite, "--browser-seconds-file", done]))
    beside = steps.beside(later, cwd=ROOT, env=env)
    print("\nbrowser lane (tests/test_web.py):", flush=True)
    started = time.monotonic()
    rc_web = None
    try:
        rc_web = steps.call("browser lane", pytest + ["-rs", "tests/test_web.py"] + argv[1:],
                            cwd=ROOT, env=env)
    finally:  # (the bench waits for this file, whatever happened)
        with open(done + ".tmp", "w") as f:
            f.write("%.1f" % (time.monotonic() - started) if rc_web in (0, 5) else "failed")
        os.replace(done + ".tmp", done)
    rc = beside.join()
    steps.table(time.monotonic() - steps.t0)
    return rc_web if rc_web not in (0, 5) else rc


# the steps of ``test`` beside the browser lane: this much lower a priority
NICE = 10


class Steps:
    """The test command's steps, each timed: wall seconds and the CPU seconds of its
    process and of what it waited for (os.wait4), printed as a table at the end."""

    def __init__(self):
        self.t0 = time.monotonic()
        self.rows = []

    def call(self, name, cmd, nice=0, stdout=None, **kw):
        started = time.monotonic()
        child = subprocess.Popen(cmd, stdout=stdout, stderr=subprocess.STDOUT if stdout
                                 else None, preexec_fn=(lambda: os.nice(nice)) if nice
                                 else None, **kw)
        while True:
            try:
                _, status, usage = os.wait4(child.pid, 0)
                break
            except KeyboardInterrupt:  # (the child was signalled too: it ends its own way)
                continue
        child.returncode = os.waitstatus_to_exitcode(status)
        self.rows.append((name, time.monotonic() - started, usage.ru_utime + usage.ru_stime,
                          started - self.t0))
        return child.returncode

    def beside(self, steps, **kw):
        """Run ``steps`` [(name, cmd)] at once, each in a thread at ``NICE``, its output
        to a file; ``join()`` prints their outputs in order and returns the first
        non-zero exit status of them (0: all passed)."""
        import tempfile
        import threading

        outs = [tempfile.TemporaryFile("w+") for _ in steps]
        result = [None] * len(steps)

        def go(i, name, cmd):
            outs[i].write("\n%s:\n" % name)
            outs[i].flush()
            result[i] = self.call(name, cmd, nice=NICE, stdout=outs[i], **kw)

        threads = [threading.Thread(target=go, args=(i,) + step, daemon=True)
                   for i, step in enumerate(steps)]
        for thread in threads:
            thread.start()

        class Beside:
            def join(_):
                for thread, out in zip(threads, outs):
                    while thread.is_alive():
                        thread.join(1)
                    out.seek(0)
                    sys.stdout.write(out.read())
                    sys.stdout.flush()
                return next((rc for rc in result if rc), 0)

        return Beside()

    def table(self, total):
        print("\ntest command's steps (wall: seconds; CPU: seconds of user and system time "
              "of the step and what it waited for; %d cores; load %.1f):" % (
                  os.cpu_count(), os.getloadavg()[0]))
        print("  %-58s %8s %8s %8s" % ("step", "start", "wall", "CPU"))
        for name, wall, cpu, at in self.rows:
            print("  %-58s %8.0f %8.0f %8.0f" % (name, at, wall, cpu))
        print("  %-58s %8s %8.0f %8.0f" % ("the whole test command", "", total,
                                            sum(r[2] for r in self.rows)), flush=True)

if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except KeyboardInterrupt:  # (the command it ran said its own word)
        sys.exit(130)
