"""The bench's rows measured on CircuitPython 10.2.1's real firmware for the Raspberry Pi
Pico, emulated by rp2040js (tools/lanes/pico.py; docs/pico-lane.md): press -> sound, the loop's
pass time and the heap. ``rows(quick)`` gives tools/quality/bench.py its rows, or None when the
kit is not here (``pico.missing()`` says what is missing).

* press -> sound: from the GP16 edge (the first contact of a bouncy press) to the first
  edge of the piezo's pins (GP15, GP14: its PIO program), at emulated µs. QK_KLAXON_ONLY = 1
  (every press sounds), presses at random µs phases against the loop, contact bounce
  <= 5 ms as tools/quality/bench.py makes it (``_bounce``), many a boot, two boots at once.
  The klaxon lasts about 1.3 s, so that a press comes in silence every 150 ms (else 200
  presses would take 4 minutes of wall time) the probe's code.py gives the klaxon a
  50 ms table (its first segment's pitches, from the firmware's own table); the path
  from the pin to the PWM (debounce, ``press``, ``play``, ``step``, ``hush``) is the
  firmware's own.
* the pass time: a probe's code.py runs the real ``Device`` over a whole game
  (scenario.GAME a second late, 4 players, QK_PIXELS = 10), counting passes with
  ``supervisor.ticks_ms()``: 2048 idle passes first, then the mean pass over the game
  and the slowest 256 passes (one round of the chores). Its loop adds a counter to
  ``run()``'s bare ``poll()`` (a few µs).
* the heap: ``gc.mem_free()`` in the same probe, after start-up (collected), the
  lowest seen every 4096 passes, and after the game (collected).

The emulator has no XIP cache and no flash wait states: see docs/pico-lane.md for
which way that cuts.
"""

import os
import random
import re
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import paths  # noqa: E402  (tools/paths.py: every group of tools/ on the path)
import pico  # noqa: E402
from probes import bounce  # noqa: E402  (the bench's bouncing contact, the same)

LABEL = "RP2040, real firmware (emulated)"
GAP_MS = 150  # between presses: the 50 ms sound, a 40 ms hold, bounce, the 30 ms re-arm
HOLD_MS = 40
BOOTS = 2  # press runs, at once (pico.POOL)
LOOP = "hardware.device.Device(p).run()"
IDLE_MS = 1000  # the game probe's idle start (2048 passes timed) before scenario.GAME


def code(tail):
    """code.py as deployed, its last line (the loop) replaced by ``tail``."""
    with open(os.path.join(pico.ROOT, "code.py")) as f:
        text = f.read().rstrip()
    assert text.endswith(LOOP), "code.py no longer ends with %r" % LOOP
    return text[:-len(LOOP)] + tail


PRESS_CODE = code("""k = p[4][0][:2] + b"\\x05"  # the klaxon's first sweep, over 50 ms
p = p[:4] + ((k,) + p[4][1:],) + p[5:]
hardware.device.Device(p).run()
""")

GAME_CODE = code("""import supervisor
d = hardware.device.Device(p)
gc.collect()
m0 = lo = gc.mem_free()
T = supervisor.ticks_ms
t0 = T()
for i in range(2048):  # idle: the game's first press is a second away
    d.poll()
idle = (T() - t0) & 0x1FFFFFFF
b0 = tg = T()
n = worst = 0
while True:
    d.poll()
    n += 1
    if not n & 255:
        t = T()
        w = (t - b0) & 0x1FFFFFFF
        if w > worst:
            worst = w
        b0 = t
        if not n & 4095:
            m = gc.mem_free()
            if m < lo:
                lo = m
            if (t - t0) & 0x1FFFFFFF >= END_MS:
                break
ms = (T() - tg) & 0x1FFFFFFF
gc.collect()
print("probe: mem_free start %d lowest %d after %d; %d passes in %d ms; slowest 256 in %d ms; "
      "2048 idle in %d ms" % (m0, lo, gc.mem_free(), n, ms, worst, idle))
""")




def press_steps(rng, n, t0=300):
    """(harness steps, the first-contact times in ms) of ``n`` bouncy Klaxon presses,
    ``GAP_MS`` apart plus a random phase of 0-1000 µs each."""
    steps, edges = [], []
    for i in range(n):
        at = t0 + i * GAP_MS + rng.randrange(1000) / 1000
        steps += pico.bounce("klaxon", at, HOLD_MS, bounce(rng), bounce(rng))
        edges.append(at)
    return steps, edges


def latencies(run, edges):
    """ms from each edge to the piezo's first edge after it (GP15 or GP14, driven by its
    PIO program; None: no sound before the next press)."""
    on = sorted(t for pin in (pico.SPEAKER, pico.SPEAKER_B) for t, v in run.gpio(pin) if v)
    out = []
    for i, e in enumerate(edges):
        nxt = edges[i + 1] if i + 1 < len(edges) else e + GAP_MS
        first = next((t for t in on if t >= e), None)
        out.append(first - e if first is not None and first < nxt else None)
    return out


def measure(quick=True, seed=2026):
    """The figures: {"latency": [ms], "missed": n, "probe": {...} or None, "wall": s}.
    ``quick`` (CI): the press runs only. The probe's rows are information, and its whole
    game is the longest emulator run here (the suite's Pico lane plays that game already),
    so only the full bench runs it."""
    rng = random.Random(seed)
    per_boot = 100 if quick else 300
    t = time.monotonic()
    settings_k = pico.settings_text("", players=4, klaxon_only=True)
    drives, jobs = [], []
    if not quick:
        import scenario

        settings_g = pico.settings_text("QK_PIXELS = 10\n", players=4)
        game = [(t + IDLE_MS, p, c) for t, p, c in scenario.taps(scenario.GAME)]
        game_ms = max(t for t, _, _ in game) + 1500
        drives.append(pico.Drive(settings_g, extra={
            "code.py": GAME_CODE.replace("END_MS", str(game_ms))}))
        jobs.append(dict(drive=drives[0], steps=game, ms=game_ms + 1500,
                         until="probe: mem_free", pins=()))
    presses = []
    for _ in range(BOOTS):
        steps, edges = press_steps(rng, per_boot)
        d = pico.Drive(settings_k, extra={"code.py": PRESS_CODE})
        drives.append(d)
        presses.append(edges)
        jobs.append(dict(drive=d, steps=steps, ms=edges[-1] + GAP_MS, pins=(pico.SPEAKER, pico.SPEAKER_B)))
    try:
        runs = pico.run_many(jobs)
    finally:
        for d in drives:
            d.close()
    lat = []
    for r, edges in zip(runs[len(runs) - BOOTS:], presses):
        lat += latencies(r, edges)
    probe = None
    if not quick:
        said = [s for _, s in runs[0].lines() if s.startswith("probe: mem_free")]
        if not said:
            raise RuntimeError("the game probe said nothing: %s" % runs[0].stderr[-1000:])
        w = [int(x) for x in re.findall(r"\d+", said[0])]  # (256 and 2048 are words)
        probe = dict(zip(("start", "lowest", "after", "passes", "ms", "", "slowest256", "",
                          "idle2048"), w))
    return {"latency": [x for x in lat if x is not None],
            "missed": sum(1 for x in lat if x is None), "presses": len(lat), "probe": probe,
            "wall": time.monotonic() - t}


def rows(quick=True):
    """The bench rows [(what, budget, value, ok)] (ok None: information), or None when
    the kit is not here (``pico.missing()``)."""
    if pico.missing():
        return None
    m = measure(quick)
    lat = sorted(m["latency"])
    med = statistics.median(lat)
    p99 = lat[min(len(lat) - 1, int(0.99 * len(lat)))]
    worst = lat[-1]
    pr = m["probe"]
    out = [
        ("press -> sound, %s, bounce <= 5 ms (median / p99 / worst)" % LABEL, "<= 10 ms",
         "%.2f / %.2f / %.2f ms (%d presses at random phases, %d missed; GP16 edge to the "
         "piezo's first edge)" % (med, p99, worst, m["presses"], m["missed"]),
         worst <= 10 and not m["missed"]),
    ]
    if pr is None:
        out.append(("  loop pass time and gc.mem_free() in a whole game, %s" % LABEL, "(info)",
                    "the full bench (python3 tools/dev.py bench); the suite's Pico lane plays "
                    "the game", None))
    else:
        out += [
            ("  loop pass time, %s (a whole game)" % LABEL, "(info)",
             "%.0f us mean (%d passes in %d ms, ticks_ms); slowest 256 passes %.0f us each; "
             "idle %.0f us (2048 passes)" % (1000.0 * pr["ms"] / pr["passes"], pr["passes"],
                                             pr["ms"], 1000.0 * pr["slowest256"] / 256,
                                             1000.0 * pr["idle2048"] / 2048), None),
            ("  gc.mem_free(), %s: start / lowest in a game / after it" % LABEL, "(info)",
             "%.1f / %.1f / %.1f KB" % (pr["start"] / 1024, pr["lowest"] / 1024,
                                        pr["after"] / 1024), None),
        ]
    out.append(("  the Pico rows' wall time (%d emulators at once)" % pico.POOL,
                "(info: <= 180 s)", "%.0f s" % m["wall"], None))
    if quick:
        out.append(("a card-literal QM's questions, %s" % LABEL, "(full bench: >= 20)",
                    "the suite replays %d (tests/test_pico.py); the full bench 20"
                    % ROBOT_CI, None))
    else:
        out.append(robot_row(20))
    return out


ROBOT_CI = 3  # the robot's questions tests/test_pico.py replays (its QK_PICO_ROBOT default)


def robot_row(questions):
    """The card-literal table's questions (tools/quality/robot.py) replayed on the real firmware
    from each one's saved game: a bench row."""
    import time

    import robot

    t0 = time.monotonic()
    settings, qs, runs = robot.pico_runs(7, questions)
    bad = [(k, robot.pico_check(settings, q, r)) for k, (q, r) in enumerate(zip(qs, runs))]
    bad = [(k, p) for k, p in bad if p]
    return ("a card-literal QM's questions, %s" % LABEL, ">= 20, each as the simulated board",
            "%d of %d the same, at the rules' positions (%.0f s)%s" % (
                questions - len(bad), questions, time.monotonic() - t0,
                "; question %d: %s" % (bad[0][0], bad[0][1][0]) if bad else ""),
            not bad and questions >= 20)


if __name__ == "__main__":
    why = pico.missing()
    if why:
        print(why)
        sys.exit(0)
    for row in rows("--full" not in sys.argv):
        print(" | ".join(str(x) for x in row))
