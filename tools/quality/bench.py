#!/usr/bin/env python3
"""QI Klaxon's benchmark: every budget of shared/product/brief.md, measured (host-only).

    python3 tools/dev.py bench            # the full run
    .venv/bin/python tools/quality/bench.py --quick --suite-seconds S

Latency, glitches and false/missed klaxons are measured on the simulated
board in simulated time (exact, repeatable: a seeded random generator);
heap, allocation and cost in the MicroPython VM (exact: gc.mem_alloc() and
wasm fuel). Prints one table; the last line is ``budgets: N ok, M over``.
"""

import argparse
import os
import random
import shutil
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import paths  # noqa: E402  (tools/paths.py: every group of tools/ on the path)

from harness import ROOT, Sim  # noqa: E402  (sets up the simulated board's paths)

import _audioout  # noqa: E402
import dev  # noqa: E402
import probes  # noqa: E402
import vm  # noqa: E402

# The RP2040 estimate: fuel (wasm instructions) per simple bytecode is measured
# in the VM on an empty for-range loop (~3 bytecodes an iteration); the board's
# speed is an assumption: CircuitPython on an RP2040 at 125 MHz runs about
# 1.5 million simple bytecodes a second (~83 cycles each, code in XIP flash).
RP2040_BYTECODES_PER_US = 1.5
# The SAMD21 (Express) is the same Cortex-M0+ core at 48 MHz, from internal flash with
# one wait state: taken as 125/48 times slower.
SAMD21_BYTECODES_PER_US = RP2040_BYTECODES_PER_US * 48 / 125
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


_bounce = probes.bounce  # (the Pico rows use the same)


def vm_rows(folder):
    """The MicroPython VM's exact measures. Fuel per pass is the difference between
    2000 and 4000 passes, less the same for passes that only move the clock: the
    measuring loop's own cost is not the firmware's, and both runs lay the heap out
    alike."""
    rows = {}
    for profile, settings, label in (("cpx", "", "cpx referee"),
                                     ("cpx", "QK_KLAXON_ONLY = 1", "cpx klaxon-only"),
                                     ("pico", "", "pico referee")):
        f = {}
        for bare in (False, True):
            for n in (2000, 4000):
                f[bare, n] = vm.probe(folder, profile, settings, passes=n, bare=bare)
        hit = vm.probe(folder, profile, settings, passes=0, klaxon=True)
        rows[label] = {
            "heap": f[False, 2000]["heap_after_start"],
            "alloc_idle": f[False, 4000]["alloc_idle"] / 4000,
            "alloc_klaxon": hit["alloc_klaxon"],
            "klaxon_sounded": hit.get("klaxon_sounded"),
            "fuel_idle": ((f[False, 4000]["fuel"] - f[False, 2000]["fuel"])
                          - (f[True, 4000]["fuel"] - f[True, 2000]["fuel"])) / 2000,
        }
    _, f0 = vm.run("def f(n):\n    for i in range(n):\n        pass\nf(0)", folder, raw=True)
    _, f1 = vm.run("def f(n):\n    for i in range(n):\n        pass\nf(200000)", folder, raw=True)
    rows["fuel_per_bytecode"] = (f1 - f0) / 200000 / LOOP_BYTECODES
    return rows


def cp_rows(quick=False, pool=None):
    """The Express firmware's heap on CircuitPython 10 itself (tools/lanes/cpvm.py), or None
    without the build. {scenario: (need bytes, per variant and layout, names)} for
    start-up ("budget") and a whole game ("game") in every call-structure variant
    (``cpvm.VARIANTS``) and layout (``cpvm.LAYOUTS``; ``quick``: ``cpvm.QUICK_VARIANTS``
    in every fourth layout, as the test command's run), a question in the lane's own
    variant; "<scenario> variants":
    {variant: [per layout]}; "retention": ``cpvm.retention`` (16 seeds; quick: 8); the issue's
    first measure (the heap size in 1 KB steps less the stand-ins); "names": a whole
    game's interned names as the Express holds them (``cpvm.express_names``);
    "seconds": the lane's wall time here. ``pool``: an executor that runs the pieces
    (``cp_piece``: a scenario, a variant of the game) at once; None: one after the
    other. ``cp_rows_of`` gives the result of pieces already submitted."""
    import cpvm

    if cpvm.find() is None:
        return None
    started = time.monotonic()
    pieces = [(quick, name, variant) for name, variant in cp_pieces(quick)]
    got = [pool.submit(cp_piece, *x) for x in pieces] if pool else [cp_piece(*x) for x in pieces]
    return cp_rows_of(got, started, quick)


def cp_pieces(quick):
    """The pieces of ``cp_rows`` that can run apart, longest first: [(scenario, a variant's
    name or None)]: the game by variant."""
    import cpvm

    variants = cpvm.QUICK_VARIANTS if quick else cpvm.VARIANTS
    fig = cpvm.shared("game") if quick else None
    lane = cpvm.VARIANTS[0][0]
    return [("game", v[0]) for v in variants if not (fig and v[0] == lane)] + [
        ("budget", None), ("question", None)] + ([("game", None)] if fig else [])


def cp_rows_of(got, started, quick=False):
    """``cp_rows``'s result from its pieces' results (or futures of them); the retention
    test, when the suite kept none, here, after them (it takes the game's names)."""
    import cpvm
    import scenario

    got = [g.result() if hasattr(g, "result") else g for g in got]
    out = {"from the suite": []}
    for name in ("budget", "question", "game"):
        by, per, names = {}, [], 0
        for g in (g for g in got if g["name"] == name):
            if g["fig"]:  # (first: the lane's variant, as tests/test_cp.py kept it)
                out["from the suite"].append(name)
                by = dict([(cpvm.VARIANTS[0][0], g["fig"]["per"])] + list(by.items()))
                per, names = g["fig"]["per"] + per, max(names, g["fig"]["names"])
            by.update(g["by"])
            per += g["per"]
            names = max(names, g["names"])
            for k in ("first measure", "express names"):
                if k in g:
                    out[k] = g[k]
        out[name], out[name + " variants"] = (max(per) + cpvm.samd21_pools(names)[0], per,
                                              names), by
    out["names"] = out.pop("express names")
    kept = cpvm.shared("retention") if quick else None
    if kept:
        out["from the suite"].append("retention")
        out["retention"] = kept
    else:
        d = cpvm.Drive("cpx")
        try:
            steps = scenario.taps(scenario.GAME)
            lines = d.run(steps, scenario.GAME_MS)[0]
            out["retention"] = cpvm.retention(d, steps, scenario.GAME_MS, lines,
                                              names=out["game"][2], seeds=8 if quick else 16)
        finally:
            d.close()
    out["seconds"] = time.monotonic() - started
    return out


def cp_piece(quick, name, variant=None):
    """One piece of ``cp_rows``: scenario ``name`` in the variants it takes here (only
    ``variant`` when given; for the game with variant None, none but the suite's figures),
    the first measure with the budget, the Express's names with the question."""
    import cpvm
    import scenario

    script, end = {"budget": (scenario.BUDGET, 3500),
                   "question": (scenario.QUESTION, scenario.QUESTION_MS),
                   "game": (scenario.GAME, scenario.GAME_MS)}[name]
    pads = cpvm.QUICK_LAYOUTS if quick else cpvm.LAYOUTS
    variants = cpvm.QUICK_VARIANTS if quick else cpvm.VARIANTS
    d = cpvm.Drive("cpx")
    try:
        steps = scenario.taps(script)
        lines, _, text, ok = d.run(steps, end)
        if not ok:
            raise SystemExit("the CircuitPython lane failed:\n" + text[-2000:])
        # --quick after the test command's suite: tests/test_cp.py measured the lane's
        # own call structure in all 16 layouts, and kept it (cpvm.share)
        fig = cpvm.shared(name) if quick else None
        lane = cpvm.VARIANTS[0]
        todo = [lane] if name == "question" else [
            v for v in variants if not (fig and v[0] == lane[0])]
        if name == "game":
            todo = [v for v in todo if v[0] == variant]
        out = {"name": name, "by": {}, "per": [], "names": 0,
               "fig": fig if fig and (name != "game" or variant is None) else None}
        if todo:
            _, out["per"], out["names"] = d.need(steps, end, lines, pads=pads, variants=todo)
            out["by"] = dict(d.per_variant)
        if name == "budget":
            kb, base, _ = d.min_heap(steps, end, lines)
            out["first measure"] = kb * 1024 - base
        if name == "question":  # a whole game's, as the Express would hold them
            out["express names"] = cpvm.express_names(d)
        return out
    finally:
        d.close()


def deploy_bytes():
    """Bytes a deploy copies, per build (tools/maker/deploy.py's plan, as .py)."""
    import deploy

    out = {}
    for board_id, name in deploy.BOARD_PROFILES:
        total = 0
        for src, rel, _ in deploy.plan(ROOT, board_id, ""):
            total += os.path.getsize(src)
        out[name] = total
    return out


def browser_rows(presses=20):
    """The page in headless Chromium (tools/lanes/browser.py): load to ready (3 loads, cold:
    the server forbids caching), press -> sound start for Klaxon presses made with the
    mouse (ms: to the sound's start on the audio clock plus the audio output's buffer),
    and the bytes the page transfers. None without a browser."""
    import browser

    try:
        browser.find()
    except browser.Unavailable:
        return None
    with browser.Browser() as b:
        loads = [b.open("?seed=1&klaxon-only")]
        for _ in range(2):
            loads.append(b.reload())
        for _ in range(presses):
            b.press("klaxon", 0.08, 0.25)
        time.sleep(0.3)
        lat = b.js("return qk.latencies")
        base = b.js("return qk.baseLatencyMs()")
        sizes = b.js("""return performance.getEntriesByType('navigation').concat(
            performance.getEntriesByType('resource')).map(e => [e.name, e.transferSize])""")
    if len(lat) != presses:
        raise SystemExit("browser run: %d Klaxon presses gave %d klaxons" % (presses, len(lat)))
    return {"loads": loads, "latency": lat, "base": base,
            "bytes": sum(n for _, n in sizes),
            "wasm": sum(n for name, n in sizes if name.endswith(".wasm"))}


def scoreboard_rows(lines=40, gap_s=0.15):
    """The page as a real board's scoreboard (tools/dev.py web --serial, a pseudo-terminal
    pair for the USB cable): a game's console lines, as the harness's board prints them,
    written one at a time; for each, from the moment it leaves the port (written into
    the cable) to the scoreboard updated (the animation frame after the page showed it)
    and its sound started (its start on the audio clock plus the output's buffer), in
    ms. None without a browser."""
    import tempfile

    import browser
    import harness
    import scenario

    try:
        browser.find()
    except browser.Unavailable:
        return None
    sim = harness.Sim(players=4)
    sim.type_in(50 * 1000)
    sim.play(scenario.taps(scenario.GAME), scenario.GAME_MS)
    said = [line for _, line in sim.events][:lines]
    folder = tempfile.mkdtemp(prefix="qk-bench-cable-")
    cable = browser.Cable(folder)
    try:
        with browser.Browser(serial=cable.link) as b:
            b.open("")
            end = time.monotonic() + 10
            while not b.js("return qk.board && qk.board.connected") and time.monotonic() < end:
                time.sleep(0.02)
            written = []
            for line in said:
                cable.asks()
                written.append(time.time() * 1000)
                cable.write(line.encode() + b"\r\n")
                time.sleep(gap_s)
            time.sleep(0.3)
            got = b.js("return qk.board.lines")
    finally:
        cable.close()
        shutil.rmtree(folder, ignore_errors=True)
    if len(got) != len(said):
        raise SystemExit("scoreboard run: %d lines written, the page got %d" % (len(said),
                                                                                len(got)))
    out = []
    for w, r in zip(written, got):
        shown = r.get("frame") or r["shown"]
        out.append((max(shown, r["sound"] or 0) - w, r["read"] - w, r["sound"] is not None))
    return out


def table_rows(row):
    """What the table reads (issue 31): every position of a 6-player game off the ring, by
    the robot that reads only the sampled ring as a person does; the printed card's
    smallest type on each side; and the klaxon's loudness through each build's part."""
    import random

    import card
    import robot
    from harness import Sim

    want = (0, 3, -12, 105, 99, 27)
    sim = Sim(players=6, seed=3)
    sim.game.ask()  # a first question everyone passed: the Klaxon is not a try
    for _ in range(5):
        sim.game.pass_()
    for seat, v in enumerate(want):
        if v:
            sim.game.move(seat, v)
    sim.device.render()
    table = robot.Table(sim, "simulated", random.Random(3), players=6)
    before, pressed = sim.game.to_bytes(), len(table.presses)
    try:
        got, seconds = table.positions()
    except robot.Lost as e:
        got, seconds = str(e), 0
    presses = len(table.presses) - pressed
    same = sim.game.to_bytes() == before
    row("every seat's position read off the ring between questions, 6 players (a robot "
        "reading the sampled ring)", "<= 20 s, <= 3 presses, nothing changed",
        "%.1f s, %d press%s, %s, %s" % (seconds, presses, "" if presses == 1 else "es",
                                         "all read right" if got == dict(enumerate(want))
                                         else "read %r" % (got,),
                                         "nothing changed" if same else "THE GAME CHANGED"),
        got == dict(enumerate(want)) and seconds <= 20 and presses <= 3 and same)
    sides = {}
    for side, make in (("front", card.svg_front), ("back", card.svg_back),
                       ("notes", card.svg_notes)):
        sides[side] = card.least_printed_pt(make())
    row("the printed card's smallest type at its printed size (letter, or A4 fit to page)",
        "front >= 10 pt, back >= 8 pt", "front %.1f pt, back %.1f pt (its notes sheet %.1f pt)"
        % (sides["front"], sides["back"], sides["notes"]),
        sides["front"] >= 10 and sides["back"] >= 8 and sides["notes"] >= 8)
    loudness_rows(row)


def loudness_rows(row):
    """The klaxon's loudness, a row a build (issue 32; tools/quality/loudness.py): a real press on
    the simulated board, what the firmware drives its part with through the part's model,
    A-weighted, as a meter's fast maximum, against the part's loudest tone at the same
    drive. A wiring this firmware does not have (the Pico's two-pin piezo before it is
    built) is said, not measured."""
    import loudness

    for key, label, now, was in loudness.rows():
        row("klaxon through its part vs its loudest tone (issue 32): %s" % label,
            ">= %g dB(A)" % loudness.BUDGET_DB,
            "not built in this firmware" if now is None else "%.1f dB(A) (before: %s)" % (
                now, "%.1f" % was if was is not None else "one pin only"),
            None if now is None else now >= loudness.BUDGET_DB)


def pico_lane_row():
    """What the Pico lane's runs cost in the suite the test command just ran (kept by
    tests/test_pico.py in ``QK_FIGURES``): a row, or None."""
    import cpvm

    folder = os.environ.get(cpvm.FIGURES)
    names = sorted(n[len("pico-run-"):-len(".json")] for n in (
        os.listdir(folder) if folder and os.path.isdir(folder) else ())
        if n.startswith("pico-run-") and n.endswith(".json"))
    if not names:
        return None
    runs = {n: cpvm.shared("pico-run-" + n) for n in names}
    total = {k: sum(r[k] for r in runs.values()) for k in ("runs", "emulated", "busy", "cpu")}
    return ("  the Pico lane's runs in the suite just run (tests/test_pico.py)", "(info)",
            "%d runs: %.0f s emulated, %.0f s of it busy; %.0f CPU s (%.1f a busy second); %s"
            % (total["runs"], total["emulated"], total["busy"], total["cpu"],
               total["cpu"] / max(total["busy"], 1e-9), ", ".join(
                   "%s %.0f/%.0f" % (n, runs[n]["busy"], runs[n]["cpu"]) for n in sorted(
                       runs, key=lambda n: -runs[n]["cpu"]))), None)


WALL_OVER = "OVER (wall clock: reported, not a gate here)"


def verdict(ok, wall=False, quick=False):
    """A row's last column: "ok", "info" (``ok`` None) or "OVER", which fails the bench.
    ``wall``: measured in this machine's wall-clock time (a real browser's), which a
    loaded machine stretches: in the test command (--quick) an over is reported, never a
    gate; the full bench gates it."""
    if ok:
        return "ok"
    if ok is None:
        return "info"
    return WALL_OVER if wall and quick else "OVER"


def missing(required):
    """A row whose tool is not here: skipped (None), or over (False) where CI requires
    it (``required``: the environment variable .ci/run sets)."""
    return False if os.environ.get(required) else None


def main(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument("--quick", action="store_true", help="the CI run: fewer latency samples")
    p.add_argument("--suite-seconds", type=float, default=None,
                   help="the host suite's wall time, when the caller just ran it")
    p.add_argument("--browser-seconds", type=float, default=None,
                   help="the browser lane's wall time, when the caller just ran it")
    p.add_argument("--browser-seconds-file", default=None, metavar="FILE",
                   help="the browser lane runs beside this (tools/dev.py test): wait for FILE, "
                   "where it writes its wall time when it ends, before the rows that time a "
                   "browser")
    p.add_argument("--presses", type=int, default=10_000)
    p.add_argument("--suite", action="store_true",
                   help="the full run: also run the host suite and the browser lane to time them "
                   "(info rows, which the test command reports anyway)")
    p.add_argument("--mutants", action="store_true",
                   help="the full run: also run every mutant when the last full run is not of "
                   "this code (about an hour on 2 cores; without it the row reports that run)")
    args = p.parse_args(argv)
    os.chdir(ROOT)
    rng = random.Random(2026)
    rows = []
    # The two long measures, on CircuitPython's unix VM and the Pico's emulated firmware
    # (CPU-bound), start now in processes of their own and run beside the simulated
    # board's rows, which take a core of their own: their rows are printed in their places
    # all the same. (Processes, forked before any Sim: the harness's Sim replaces
    # time.sleep while its device starts, which a thread's subprocess would meet.)
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    import cpvm
    import picobench  # the Pico on CircuitPython's real firmware, emulated (rp2040js)

    early = ProcessPoolExecutor(4, mp_context=multiprocessing.get_context("fork"))
    pico_future = early.submit(picobench.rows, args.quick)
    cp_started = time.monotonic()
    cp_pieces_got = [early.submit(cp_piece, args.quick, name, variant)
                     for name, variant in cp_pieces(args.quick)] if cpvm.find() else None

    def row(what, budget, value, ok, wall=False):
        rows.append((what, budget, value, verdict(ok, wall, args.quick)))

    lat = latency(rng, 300 if args.quick else 2000, 5000)
    med, worst = statistics.median(lat), max(lat)
    row("press -> sound, bounce <= 5 ms (median / worst)", "<= 10 ms",
        "%.2f / %.2f ms (%d presses)" % (med / 1000, worst / 1000, len(lat)), worst <= 10_000)
    long_lat = latency(rng, 100, 20_000)
    row("press -> sound, pathological bounce <= 20 ms (worst)", "(no budget)",
        "%.2f ms" % (max(long_lat) / 1000), None)
    lat_at = {}
    for p_us in (50, 108, 282, 500, 1000):  # the loop polls back to back: any pass time
        lat_at[p_us] = max(latency(rng, 50 if args.quick else 300, 5000, pass_us=p_us))
    row("press -> sound worst at every pass time (50 us .. 1 ms), bounce <= 5 ms", "<= 10 ms",
        ", ".join("%g us %.2f" % (p_us, w / 1000) for p_us, w in sorted(lat_at.items())) + " ms",
        max(lat_at.values()) <= 10_000)
    phases = 6 if args.quick else 20
    g = probes.shortest_glitch_that_sounds(rng, phases=phases, step_us=50 if args.quick else 25)
    row("shortest glitch that sounds, %d phases a pass time" % phases, ">= 2 ms everywhere",
        "%.3f ms (%s)" % (min(g.values()) / 1000, ", ".join(
            "%g us: %.2f" % (p_us, w / 1000) for p_us, w in sorted(g.items()))),
        None not in g.values() and min(g.values()) >= 2000)
    tap = probes.shortest_tap_that_always_counts(rng, phases=phases)
    row("shortest A press that always counts, %d phases a pass time" % phases, "<= 10 ms",
        "%.1f ms (%s)" % (max(tap.values()) / 1000, ", ".join(
            "%g us: %.1f" % (p_us, w / 1000) for p_us, w in sorted(tap.items()))),
        None not in tap.values() and max(tap.values()) <= 10_000)
    two = {p_us: probes.taps(p_us, [10_000], rng, phases, gap_us=10_000)[10_000]
           for p_us in probes.PASS_TIMES_US}
    row("two 10 ms A taps 10 ms apart, both counted", "always", "%d of %d (at %d pass times)"
        % (sum(two.values()), phases * len(two), len(two)), min(two.values()) == phases)
    table, n_glitch = probes.peers(rng, 500 if args.quick else 2000, _bounce)
    ours = table["this firmware"]
    for name, (pmed, pworst, sounded, pmissed, extra) in table.items():
        ratio = "" if name == "this firmware" or pmed is None else " (%.1fx ours)" % (pmed / ours[0])
        row("  peers, same bouncy presses, 1 ms pass: " + name, "(info)",
            "%s / %s ms%s; glitches sounded %d of %d; missed %d; twice %d" % (
                "-" if pmed is None else "%.2f" % pmed, "-" if pworst is None else "%.2f" % pworst,
                ratio, sounded, n_glitch, pmissed, extra), None)
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
    r = v["cpx referee"]
    row("heap allocated per Klaxon event, cpx referee (VM; ask, answer, then the Klaxon)",
        "<= 256 bytes", "%d bytes" % r["alloc_klaxon"],
        r["alloc_klaxon"] <= 256 and r["klaxon_sounded"] == 1)
    row("  same, cpx klaxon-only", "(info)", "%d bytes" % v["cpx klaxon-only"]["alloc_klaxon"],
        None)
    row("VM fuel per idle pass, cpx referee", "<= 40,000", "%d" % r["fuel_idle"],
        r["fuel_idle"] <= 40_000)
    for label in ("cpx klaxon-only", "pico referee"):
        row("  same, %s" % label, "(info)", "%d" % v[label]["fuel_idle"], None)
    pass_us = {}
    for chip, rate in (("RP2040", RP2040_BYTECODES_PER_US), ("SAMD21", SAMD21_BYTECODES_PER_US)):
        pass_us[chip] = v["cpx referee"]["fuel_idle"] / fpb / rate
        row("  idle pass estimate, %s (fuel, an assumed speed%s)" % (
            chip, "; the real firmware's pass is measured below" if chip == "RP2040" else ""),
            "(info)", "~%d us (%.1f bytecodes/us)" % (pass_us[chip], rate), None)
    # The same presses with passes as long as the estimates (the loop polls back to back)
    for chip in ("RP2040", "SAMD21"):
        slow_us = max(1, int(pass_us[chip]))
        slow = latency(rng, 100 if args.quick else 500, 5000, pass_us=slow_us)
        row("press -> sound worst, a pass every %.2f ms (%s estimate)" % (slow_us / 1000, chip),
            "<= 10 ms", "%.2f ms" % (max(slow) / 1000), max(slow) <= 10_000)
    cp = cp_rows_of(cp_pieces_got, cp_started, args.quick) if cp_pieces_got else None
    if cp is None:
        row("firmware peak heap on the Express (CircuitPython 10)", "<= 13.5 KB",
            "not measured: " + cpvm.HOW_TO_GET, missing("QK_REQUIRE_CP"))
    else:
        pads = cpvm.QUICK_LAYOUTS if args.quick else cpvm.LAYOUTS

        def heap(name, what, budget):
            need, per, names = cp[name]
            pools = cpvm.samd21_pools(names)[0]
            by = cp[name + " variants"]
            layouts = "/".join(sorted({str(len(x)) for x in by.values()}))
            worst = max(by, key=lambda v: max(by[v]))
            lay = cpvm.LAYOUTS if len(by[worst]) == len(cpvm.LAYOUTS) else pads
            spread = ""
            if len(by) > 1:  # each variant's worst, and the spread over the layouts
                spread = "variants' worst %.2f..%.2f KB, " % (
                    min(max(x) for x in by.values()) / 1024, max(max(x) for x in by.values())
                    / 1024)
            row("Express heap, CircuitPython 10, worst of %s%s layouts: %s" % (
                "%d call structures x " % len(by) if len(by) > 1 else "", layouts, what),
                "<= %.1f KB" % budget if budget else "(info: the Express has 15.9 KB)",
                "%.2f KB (%s, layout %s; %slayouts %.2f..%.2f KB; + the Express's qstr pools "
                "%d B; %d names)" % (need / 1024, worst, lay[by[worst].index(max(by[worst]))],
                                     spread, min(per) / 1024, max(per) / 1024, pools, names),
                need <= budget * 1024 if budget else None)

        heap("budget", "start-up, ask, answer, a Klaxon", 13.5)
        row("  the first measure: heap size in 1 KB steps less the stand-ins", "(info)",
            "%.2f KB (counts the stand-ins' share of the allocator's tables)"
            % (cp["first measure"] / 1024), None)
        heap("question", "a question, reveal, penalty", None)
        heap("game", "a whole game (+ undo, move, end, new game)", 14.5)
        ret = cp["retention"]
        bad = [r for r in ret if not r[3]]
        row("  a whole game with 1.5 KB of 16-64 B blocks pinned during play, %.1f KB usable "
            "(%d seeds over the call structures and layouts)" % (
                cpvm.EXPRESS_USABLE / 1024, len(ret)), "no restart",
            "%d of %d played through%s" % (len(ret) - len(bad), len(ret), "".join(
                "; seed %d (%s, layout %s): %s" % (r[0], r[1], r[2], r[5] or "other lines")
                for r in bad[:3])), not bad)
        row("  the CircuitPython lane's wall time here, its pieces at once (%s)" % (
            "4 of the 12 variants, every fourth layout, 8 seeds: --quick" if args.quick else
            "every variant and layout"), "(info)",
            "%.0f s%s" % (cp["seconds"], "; kept by tests/test_cp.py in this run (the lane's "
                          "variant in all 16 layouts; 16 seeds): %s" % ", ".join(
                              cp["from the suite"]) if cp["from the suite"] else ""), None)
        n = cp["names"]
        row("the firmware's interned names for a whole game on the Express",
            "<= %d (141st: +832 B)" % n["budget"], "%d names; %d to the 141st; pool %d B"
            % (n["names"], n["to_141st"], n["pool_bytes"]), n["names"] <= n["budget"])
    import robot  # the table card followed literally (tests/test_card_robot.py)

    tables = 1 if args.quick else 10  # 30 questions a table
    done, failed, t0 = 0, None, time.monotonic()
    for seed in range(1, tables + 1):
        try:
            done += len(robot.play_table(seed, 30)[1])
        except AssertionError as e:
            failed = failed or str(e).split("\n")[0]
    row("a card-literal QM (a robot: the ring, the sounds, a person's timing), simulated",
        "every question at the rules' positions (>= 300)",
        "%d of %d questions%s (%.0f s)%s" % (
            done, tables * 30, " (--quick: 1 table; the suite plays 10)" if args.quick else "",
            time.monotonic() - t0, "; " + failed if failed else ""),
        not failed and (args.quick or done >= 300))
    table_rows(row)
    pico_rows = pico_future.result()
    early.shutdown()
    lane = args.browser_seconds
    if args.browser_seconds_file:  # the browser lane is done (or failed) before a browser
        while not os.path.exists(args.browser_seconds_file):  # here is timed
            time.sleep(1)
        with open(args.browser_seconds_file) as f:
            said = f.read().strip()
        lane = float(said) if said != "failed" else None
    if pico_rows is None:
        import pico

        row("press -> sound, pass time, heap: %s" % picobench.LABEL, "<= 10 ms",
            "not measured: " + pico.missing(), missing("QK_REQUIRE_PICO"))
    else:
        for r in pico_rows:
            row(*r)
    lane_row = pico_lane_row()
    if lane_row:
        row(*lane_row)
    w = browser_rows()
    if w is None:
        import browser

        row("the page in headless Chromium (load, press -> sound, bytes)", "<= 2 s, <= 20 ms",
            "not measured: " + browser.HOW_TO_GET, missing("QK_REQUIRE_BROWSER"))
    else:
        row("web page: load to ready, headless Chromium (cold; worst of 3)", "<= 2 s",
            "%.0f ms (%s)" % (max(w["loads"]), ", ".join("%.0f" % x for x in w["loads"])),
            max(w["loads"]) <= 2000, wall=True)
        m = statistics.median(w["latency"])
        row("web page: press -> sound start, headless Chromium (median / worst)",
            "<= 20 ms (median)", "%.1f / %.1f ms (%d mouse presses; %.0f ms of it the audio "
            "buffer; the board: %.2f ms)" % (m, max(w["latency"]), len(w["latency"]), w["base"],
                                             med / 1000), m <= 20, wall=True)
        row("web page: bytes transferred (uncompressed, uncached)", "(info)",
            "%.0f KB (the WebAssembly VM %.0f KB)" % (w["bytes"] / 1024, w["wasm"] / 1024), None)
    sb = scoreboard_rows()
    if sb is None:
        import browser

        row("a board's console line -> the page's scoreboard and sound (serial, median)",
            "<= 50 ms", "not measured: " + browser.HOW_TO_GET, missing("QK_REQUIRE_BROWSER"))
    else:
        m = statistics.median(x for x, _, _ in sb)
        row("a board's console line -> the page's scoreboard and sound (serial, median)",
            "<= 50 ms", "%.1f ms median, %.1f worst (%d lines, %d with a sound; the port to "
            "the server's read %.1f ms; --serial, headless Chromium)" % (
                m, max(x for x, _, _ in sb), len(sb), sum(1 for _, _, s in sb if s),
                statistics.median(x for _, x, _ in sb)), m <= 50, wall=True)
    d = deploy_bytes()
    row("bytes a deploy copies, per build (as .py)", "<= 200 KB",
        ", ".join("%s %.0f KB" % (k, n / 1024) for k, n in sorted(d.items())),
        max(d.values()) <= 200 * 1024)
    suite = args.suite_seconds
    if suite is None and args.suite:  # as the test command runs them (tools/dev.py)
        pytest = [os.path.join(os.path.dirname(sys.executable), "pytest"), "-q", "-p",
                  "no:cacheprovider"]
        t = time.monotonic()
        subprocess.call(pytest + dev.HOST_SUITE, cwd=ROOT, stdout=subprocess.DEVNULL)
        suite = time.monotonic() - t
        subprocess.call(pytest + ["tests/test_web.py"], cwd=ROOT, stdout=subprocess.DEVNULL)
        lane = time.monotonic() - t - suite
    if suite is not None:  # machines are noisy: reported, never a gate
        row("host test suite wall time (%d cores, load %.1f)" % (os.cpu_count(), os.getloadavg()[0]),
            "(info: ~60 s quiet)", "%.1f s" % suite, None)
    elif not args.quick:
        row("host test suite wall time", "(info)", "reported by the test command; bench "
            "--suite runs the suite and the browser lane again only to time them", None)
    if lane is not None:
        row("  the browser lane's wall time (tests/test_web.py, a real Chromium)", "(info)",
            "%.1f s" % lane, None)
    if not args.quick:  # the full mutation run's row (CI runs a sample: tools/dev.py)
        import mutants

        m = mutants.full_run_summary(run=args.mutants)
        if m is None:  # never run here: its own command, about an hour on 2 cores
            row("mutants of the device code caught (tools/quality/mutants.py)",
                ">= %d%%" % (100 * mutants.BUDGET),
                "not measured: no full run here yet; run python3 tools/dev.py mutants "
                "(about an hour on 2 cores)", None)
        else:
            row("mutants of the device code caught (tools/quality/mutants.py, %s)" % (
                "a full run now" if m["fresh"] is None else "its last full run: " + (
                    "the same code" if m["fresh"] else "older code; run python3 tools/dev.py "
                    "mutants for this one")), ">= %d%%" % (100 * mutants.BUDGET),
                "%.1f%% of %d (%d survived, %d equivalent), %d min" % (
                    100 * m["rate"], m["counted"], m["survived"], m["equivalent"],
                    round(m["seconds"] / 60)),
                m["rate"] >= mutants.BUDGET if m["fresh"] is not False else None)

    w0 = max(len(r[0]) for r in rows)
    w1 = max(len(r[1]) for r in rows)
    w2 = max(len(r[2]) for r in rows)
    print("%-*s  %-*s  %-*s  %s" % (w0, "budget", w1, "target", w2, "measured", "holds"))
    for what, budget, value, ok in rows:
        print("%-*s  %-*s  %-*s  %s" % (w0, what, w1, budget, w2, value, ok))
    print("estimates: %.0f fuel per bytecode (VM, measured); an assumed %.1f bytecodes/us on "
          "the RP2040, %.2f on the SAMD21" % (fpb, RP2040_BYTECODES_PER_US,
                                           SAMD21_BYTECODES_PER_US))
    n_ok = sum(1 for r in rows if r[3] == "ok")
    n_over = sum(1 for r in rows if r[3] == "OVER")
    skipped = [r[0] for r in rows if r[2].startswith("not measured")]
    for what in skipped:
        print("skipped: %s (its tool is missing here; the row says how to get it)" % what)
    n_wall = sum(1 for r in rows if r[3] == WALL_OVER)
    print("budgets: %d ok, %d over, %d skipped%s" % (
        n_ok, n_over, len(skipped), "; %d over in wall-clock time on this machine (load "
        "%.1f): reported, not a gate in the test command" % (n_wall, os.getloadavg()[0])
        if n_wall else ""))
    return 1 if n_over else 0


if __name__ == "__main__":
    sys.exit(main())
