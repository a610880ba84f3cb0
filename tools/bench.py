#!/usr/bin/env python3
"""QI Klaxon's benchmark: every budget of shared/product/brief.md, measured (host-only).

    python3 tools/dev.py bench            # the full run
    .venv/bin/python tools/bench.py --quick --suite-seconds S

Latency, glitches and false/missed klaxons are measured on the simulated
board in simulated time (exact, repeatable: a seeded random generator);
heap, allocation and cost in the MicroPython VM (exact: gc.mem_alloc() and
wasm fuel). Prints one table; the last line is ``budgets: N ok, M over``.
"""

import argparse
import os
import random
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from harness import ROOT, Sim  # noqa: E402  (sets up the simulated board's paths)

import _audioout  # noqa: E402
import vm  # noqa: E402

# The RP2040 estimate: fuel (wasm instructions) per simple bytecode is measured
# in the VM on an empty for-range loop (~3 bytecodes an iteration); the board's
# speed is an assumption: CircuitPython on an RP2040 at 125 MHz runs about
# 1.5 million simple bytecodes a second (~83 cycles each, code in XIP flash).
RP2040_BYTECODES_PER_US = 1.5
LOOP_BYTECODES = 3


def klaxon_starts_us():
    return [t for t, name, _, _ in _audioout.plays if name.endswith("klaxon.wav")]


def latency(rng, presses, max_bounce_us, pass_us=1000):
    """Contact -> sound start (µs) for bouncing presses, one power-on each batch."""
    out = []
    batch = 50
    for b in range(0, presses, batch):
        sim = Sim(klaxon_only=True, phase_us=rng.randrange(pass_us), pass_us=pass_us)
        t = 50_000
        contacts = []
        for _ in range(min(batch, presses - b)):
            bounce = []
            total = 0
            while rng.random() < 0.8:
                d = rng.randrange(50, 1500)
                if total + d > max_bounce_us:
                    break
                bounce.append(d)
                total += d
            sim.press("klaxon", t / 1000, 120, bounce_us=bounce)
            contacts.append(t)
            t += 400_000
        sim.run_until_us(t)
        starts = klaxon_starts_us()
        if len(starts) != len(contacts):
            raise SystemExit("latency run: %d presses gave %d klaxons" % (len(contacts), len(starts)))
        out += [s - c for s, c in zip(starts, contacts)]
    return out


def shortest_glitch_that_sounds():
    """Scan single glitches from 1.0 ms up, at 20 sampling phases each: µs."""
    for width in range(1000, 4001, 25):
        for phase in range(0, 1000, 50):
            sim = Sim(klaxon_only=True, phase_us=phase)
            sim.level("klaxon", 20_000, True)
            sim.level("klaxon", 20_000 + width, False)
            sim.run_until_us(40_000)
            if klaxon_starts_us():
                return width
    return None


def false_and_missed(rng, presses):
    """Random presses (bounce <= 5 ms on both edges) with glitches (< 2 ms) between them:
    (false klaxons, missed klaxons, glitches)."""
    false = missed = glitches = 0
    batch = 100
    for b in range(0, presses, batch):
        sim = Sim(klaxon_only=True, phase_us=rng.randrange(1000))
        t = 50_000
        n = min(batch, presses - b)
        windows = []
        for _ in range(n):
            down = _bounce(rng)
            up = _bounce(rng)
            hold = rng.randrange(25, 400) * 1000
            sim.press("klaxon", t / 1000, hold / 1000, bounce_us=down, release_bounce_us=up)
            end = t + hold + sum(up)
            windows.append((t, end))
            t = end + rng.randrange(60, 300) * 1000
            if rng.random() < 0.5:  # a glitch well clear of the presses
                width = rng.randrange(100, 1990)
                sim.level("klaxon", t - 40_000, True)
                sim.level("klaxon", t - 40_000 + width, False)
                glitches += 1
        sim.run_until_us(t + 50_000)
        starts = klaxon_starts_us()
        for start, end in windows:
            inside = [s for s in starts if start <= s <= end]
            if not inside:
                missed += 1
            false += max(0, len(inside) - 1)
        false += len([s for s in starts if not any(a <= s <= e for a, e in windows)])
    return false, missed, glitches


def _bounce(rng):
    out = []
    total = 0
    while rng.random() < 0.75:
        d = rng.randrange(30, 2000)
        if total + d > 5000:
            break
        out.append(d)
        total += d
    return out


def vm_rows(folder):
    rows = {}
    for profile, settings, label in (("cpx", "", "cpx referee"), ("cpx", "QK_KLAXON_ONLY = 1",
                                                                  "cpx klaxon-only"),
                                     ("pico", "", "pico referee")):
        base = vm.probe(folder, profile, settings, passes=0)
        idle = vm.probe(folder, profile, settings, passes=2000)
        hit = vm.probe(folder, profile, settings, passes=0, klaxon=True)
        rows[label] = {
            "heap": base["heap_after_start"],
            "code": base["code_heap"],
            "alloc_idle": idle["alloc_idle"] / 2000,
            "alloc_klaxon": hit["alloc_klaxon"],
            "fuel_idle": (idle["fuel"] - base["fuel"]) / 2000,
            "fuel_klaxon": hit["fuel"] - base["fuel"],
        }
    _, f0 = vm.run("def f(n):\n    for i in range(n):\n        pass\nf(0)", folder, raw=True)
    _, f1 = vm.run("def f(n):\n    for i in range(n):\n        pass\nf(200000)", folder, raw=True)
    rows["fuel_per_bytecode"] = (f1 - f0) / 200000 / LOOP_BYTECODES
    return rows


def deploy_bytes():
    total = {"code": 0, "libraries": 0, "sounds": 0}
    for name in ("code.py", "boot.py"):
        total["code"] += os.path.getsize(os.path.join(ROOT, name))
    for folder in ("hardware", os.path.join("lib", "qiklaxon")):
        for name in os.listdir(os.path.join(ROOT, folder)):
            if name.endswith(".py"):
                total["code"] += os.path.getsize(os.path.join(ROOT, folder, name))
    for name in ("adafruit_debouncer", "adafruit_ticks", "neopixel"):
        total["libraries"] += os.path.getsize(vm.library_file(name))
    for name in os.listdir(os.path.join(ROOT, "sounds")):
        total["sounds"] += os.path.getsize(os.path.join(ROOT, "sounds", name))
    return total


def main(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument("--quick", action="store_true", help="the CI run: fewer latency samples")
    p.add_argument("--suite-seconds", type=float, default=None,
                   help="the host suite's wall time, when the caller just ran it")
    p.add_argument("--presses", type=int, default=10_000)
    args = p.parse_args(argv)
    os.chdir(ROOT)
    rng = random.Random(2026)
    rows = []

    def row(what, budget, value, ok):
        rows.append((what, budget, value, "ok" if ok else ("OVER" if ok is False else "info")))

    lat = latency(rng, 300 if args.quick else 2000, 5000)
    med, worst = statistics.median(lat), max(lat)
    row("press -> sound, bounce <= 5 ms (median / worst)", "<= 10 ms",
        "%.2f / %.2f ms (%d presses)" % (med / 1000, worst / 1000, len(lat)), worst <= 10_000)
    long_lat = latency(rng, 100, 20_000)
    row("press -> sound, pathological bounce <= 20 ms (worst)", "(no budget)",
        "%.2f ms" % (max(long_lat) / 1000), None)
    g = shortest_glitch_that_sounds()
    row("shortest glitch that sounds", ">= 2 ms", "%.3f ms" % (g / 1000), g is not None and g >= 2000)
    false, missed, glitches = false_and_missed(rng, args.presses)
    row("false / missed klaxons, randomised bounce + glitches", "0 / 0",
        "%d / %d (%d presses, %d glitches)" % (false, missed, args.presses, glitches),
        false == 0 and missed == 0)

    folder = vm.stage()
    v = vm_rows(folder)
    fpb = v["fuel_per_bytecode"]
    for label in ("cpx referee", "cpx klaxon-only", "pico referee"):
        r = v[label]
        row("heap allocated per idle loop pass, %s (VM)" % label, "0 bytes",
            "%g bytes" % r["alloc_idle"], r["alloc_idle"] == 0)
    cpx = v["cpx referee"]
    row("firmware heap after start-up, CPX profile, modules as .py/.mpy (VM)", "<= 10 KB",
        "%.1f KB" % (cpx["heap"] / 1024), cpx["heap"] <= 10 * 1024)
    row("  of it, the modules' bytecode and names (in flash if frozen)", "(info)",
        "%.1f KB" % (cpx["code"] / 1024), None)
    row("  the rest: objects after start-up (the heap with frozen modules)", "<= 10 KB",
        "%.1f KB" % ((cpx["heap"] - cpx["code"]) / 1024), cpx["heap"] - cpx["code"] <= 10 * 1024)
    row("  same heap, CPX klaxon-only", "(info)", "%.1f KB" % (v["cpx klaxon-only"]["heap"] / 1024),
        None)
    row("heap allocated per Klaxon event, cpx klaxon-only (VM)", "(no budget)",
        "%d bytes" % v["cpx klaxon-only"]["alloc_klaxon"], None)
    for label in ("cpx referee", "cpx klaxon-only"):
        r = v[label]
        est = r["fuel_idle"] / fpb / RP2040_BYTECODES_PER_US
        row("VM fuel per idle pass, %s (RP2040 estimate)" % label, "(info)",
            "%d fuel (~%d us)" % (r["fuel_idle"], est), None)
    r = v["cpx klaxon-only"]
    row("VM fuel, contact -> klaxon (10 passes; pixelbuf in Python, C on boards)", "(info)",
        "%d fuel (~%.1f ms of CPU)" % (r["fuel_klaxon"], r["fuel_klaxon"] / fpb /
                                      RP2040_BYTECODES_PER_US / 1000), None)
    # The same presses with passes as long as the RP2040 estimate for the referee build
    # (the loop polls back to back), and twice that for a slower board.
    for factor, what in ((1, "RP2040 estimate"), (2, "twice the RP2040 estimate")):
        slow_us = factor * int(v["cpx referee"]["fuel_idle"] / fpb / RP2040_BYTECODES_PER_US)
        slow = latency(rng, 100 if args.quick else 500, 5000, pass_us=slow_us)
        row("press -> sound worst, a pass every %.2f ms (%s)" % (slow_us / 1000, what),
            "<= 10 ms", "%.2f ms" % (max(slow) / 1000), max(slow) <= 10_000)
    d = deploy_bytes()
    row("bytes a deploy copies: code / libraries / sounds", "(info)",
        "%d / %d / %d = %.0f KB" % (d["code"], d["libraries"], d["sounds"],
                                   sum(d.values()) / 1024), None)
    suite = args.suite_seconds
    if suite is None and not args.quick:
        t = time.monotonic()
        subprocess.call([os.path.join(os.path.dirname(sys.executable), "pytest"), "-q", "-p",
                         "no:cacheprovider", "tests"], cwd=ROOT, stdout=subprocess.DEVNULL)
        suite = time.monotonic() - t
    if suite is not None:
        row("host test suite wall time (%d cores)" % os.cpu_count(), "<= 60 s", "%.1f s" % suite,
            suite <= 60)

    w0 = max(len(r[0]) for r in rows)
    w1 = max(len(r[1]) for r in rows)
    w2 = max(len(r[2]) for r in rows)
    print("%-*s  %-*s  %-*s  %s" % (w0, "budget", w1, "target", w2, "measured", "holds"))
    for what, budget, value, ok in rows:
        print("%-*s  %-*s  %-*s  %s" % (w0, what, w1, budget, w2, value, ok))
    print("RP2040 estimate: %.0f fuel per bytecode (VM, measured) at an assumed %.1f bytecodes/us"
          % (fpb, RP2040_BYTECODES_PER_US))
    n_ok = sum(1 for r in rows if r[3] == "ok")
    n_over = sum(1 for r in rows if r[3] == "OVER")
    print("budgets: %d ok, %d over" % (n_ok, n_over))
    return 0


if __name__ == "__main__":
    sys.exit(main())
