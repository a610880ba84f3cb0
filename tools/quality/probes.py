"""Timing probes on the simulated board (host-only), for tools/quality/bench.py and the tests:
glitches and taps at every pass time and phase, and the peers' rows.

Every probe plays pin levels at arbitrary microseconds against a loop whose passes
are ``pass_us`` apart (the board polls back to back; its pass time is what the
benchmark estimates or the Pico lane measures), so a glitch or a tap starts anywhere
within a millisecond and anywhere between two passes: not only on the 1 ms grid.
"""

import statistics

import _audioout
from harness import Sim

# Pass times from the fastest port the loop could see (50 µs) to the slowest (1 ms)
PASS_TIMES_US = (50, 108, 250, 282, 500, 777, 1000)
GLITCH_GAP_US = 60_000  # between two probes: the Klaxon re-arms after 30 ms released


def _phases(n, rng):
    """``n`` start offsets within a millisecond (µs): evenly spread, and jittered."""
    return [(i * 1000 // n + rng.randrange(1000 // n)) % 1000 for i in range(n)]


def glitches(pass_us, widths_us, rng, phases=10):
    """{width: how many of ``phases`` start phases sounded the klaxon} for single
    glitches (a pure Klaxon), at a pass every ``pass_us``."""
    sim = Sim(klaxon_only=True, pass_us=pass_us, phase_us=rng.randrange(pass_us))
    t = 50_000
    probes = []
    for w in widths_us:
        for ph in _phases(phases, rng):
            start = t - t % 1000 + ph
            sim.level("klaxon", start, True)
            sim.level("klaxon", start + w, False)
            probes.append((w, start))
            t += GLITCH_GAP_US
    sim.run_until_us(t)
    starts = [s for s, name, _, _ in _audioout.plays if name.endswith("klaxon.wav")]
    out = {w: 0 for w in widths_us}
    for w, start in probes:
        if any(start <= s <= start + w + 10_000 for s in starts):
            out[w] += 1
    return out


def shortest_glitch_that_sounds(rng, pass_times=PASS_TIMES_US, phases=10, step_us=25):
    """{pass_us: the shortest glitch (µs) that sounded at any phase}, widths 1.0 to 4.0 ms."""
    widths = list(range(1000, 4001, step_us))
    out = {}
    for p in pass_times:
        sounded = glitches(p, widths, rng, phases)
        out[p] = min((w for w in widths if sounded[w]), default=None)
    return out


def taps(pass_us, widths_us, rng, phases=10, gap_us=None, control="a"):
    """{width: how many of ``phases`` taps of ``control`` counted (a blip, or a buzz if
    refused: A between questions rolls, B asks then passes)}; with ``gap_us``
    each probe is two taps of ``widths`` that far apart, and counts when both do."""
    sim = Sim(players=4, pass_us=pass_us, phase_us=rng.randrange(pass_us))
    t = 100_000
    probes = []
    for w in widths_us:
        for ph in _phases(phases, rng):
            start = t - t % 1000 + ph
            sim.level(control, start, True)
            sim.level(control, start + w, False)
            n = 1
            if gap_us is not None:
                second = start + w + gap_us
                sim.level(control, second, True)
                sim.level(control, second + w, False)
                n = 2
            probes.append((w, start, n))
            t += 120_000
    sim.run_until_us(t)
    blips = [s for s, name in sim._sounds if name != "klaxon"]  # a blip, a chime or a buzz
    out = {w: 0 for w in widths_us}
    for w, start, n in probes:
        if len([s for s in blips if start <= s < start + 100_000]) == n:
            out[w] += 1
    return out


def shortest_tap_that_always_counts(rng, pass_times=PASS_TIMES_US, phases=10, gap_us=None):
    """{pass_us: the shortest A press (µs, 0.5 ms steps from 3 ms) that counted at every
    phase}; with ``gap_us``: two such presses ``gap_us`` apart, both counted."""
    widths = list(range(3000, 16001, 500))
    out = {}
    for p in pass_times:
        counted = taps(p, widths, rng, phases, gap_us)
        ok = [w for w in widths if counted[w] == phases]
        # the shortest from which every longer one counts too
        out[p] = next((w for w in widths if all(counted[v] == phases for v in widths
                                                if v >= w)), None) if ok else None
    return out


def bounce(rng):
    """A contact's bounce after an edge: alternate open/closed durations (µs), 5 ms at
    most in all (the benchmark's bouncing presses, on every lane)."""
    out = []
    total = 0
    while rng.random() < 0.75:
        d = rng.randrange(30, 2000)
        if total + d > 5000:
            break
        out.append(d)
        total += d
    return out


# ------------------------------------------------------------------ the peers
def trace(rng, presses, bounce):
    """A table's Klaxon over time: ``presses`` bouncy presses (``bounce(rng)``: open/closed
    durations after each edge, µs), each followed by one glitch (0.1 to 1.99 ms) well
    clear of it. [(t_us, pressed)] in time order, with [(contact_us, release_end_us)] of
    the presses and [(start_us, end_us)] of the glitches."""
    t = 50_000
    levels = []
    windows = []
    glitch = []
    for _ in range(presses):
        down = bounce(rng)
        up = bounce(rng)
        hold = rng.randrange(25, 400) * 1000
        levels += _edge(t, True, down)
        levels += _edge(t + hold, False, up)
        end = t + hold + sum(up)
        windows.append((t, end))
        g = end + rng.randrange(60, 300) * 1000
        width = rng.randrange(100, 1990)
        levels += [(g - 40_000, True), (g - 40_000 + width, False)]
        glitch.append((g - 40_000, g - 40_000 + width))
        t = g
    return sorted(levels), windows, glitch, t + 50_000


def _edge(t, pressed, durations):
    out = [(t, pressed)]
    closed = pressed
    for d in durations:
        t += d
        closed = not closed
        out.append((t, closed))
    if closed != pressed:
        out.append((t, pressed))
    return out


def sampled(levels, end_us, pass_us, phase_us):
    """(t_us, pressed) at every pass of a loop that polls every ``pass_us``."""
    i = 0
    level = False
    t = phase_us
    while t < end_us:
        while i < len(levels) and levels[i][0] <= t:
            level = levels[i][1]
            i += 1
        yield t, level
        t += pass_us


def adafruit_guide(samples):
    """The Adafruit guide's way: ``Debouncer(pin)`` (10 ms), sound on ``fell``. The real
    library, its clock the samples' (ticks in whole ms)."""
    import adafruit_debouncer

    now = [0]
    saved = adafruit_debouncer.ticks_ms
    adafruit_debouncer.ticks_ms = lambda: now[0]
    try:
        level = [True]
        d = adafruit_debouncer.Debouncer(lambda: level[0])  # the pin reads True released
        for t, pressed in samples:
            now[0] = (t // 1000) & 0x1FFFFFFF
            level[0] = not pressed
            d.update()
            if d.state & 5 == 4:  # ``fell``: changed, now low (the firmware's start-up
                yield t  # takes the library's properties out of the class: the bits)
    finally:
        adafruit_debouncer.ticks_ms = saved


def keypad_20ms(samples):
    """CircuitPython's ``keypad.Keys`` at its default ``interval=0.02`` and
    ``debounce_threshold=1``, as shared-module/keypad does it: a scan every
    ``int(0.02 * 1024)`` ticks of 1/1024 s, and a key's state is the last scan's (one
    scan counts with a threshold of 1); the loop sees the event at its next pass."""
    scan_us = int(0.02 * 1024) * 1_000_000 // 1024
    next_scan = 0
    counter = -1
    pending = False
    for t, pressed in samples:
        if t >= next_scan:
            next_scan += scan_us
            if pressed and counter < 1:
                counter += 1
                if counter == 0:
                    counter = 1
                    pending = True
            elif not pressed and counter > -1:
                counter -= 1
                if counter == 0:
                    counter = -1
        if pending:  # events.get() in the loop's pass
            pending = False
            yield t


def first_edge(samples, rearm_us=30_000):
    """No debounce at all: the first pass that reads the Klaxon down sounds, once it
    has read released for ``rearm_us``."""
    up_since = 0
    armed = True
    for t, pressed in samples:
        if pressed:
            if armed:
                armed = False
                yield t
            up_since = None
        else:
            if up_since is None:
                up_since = t
            if not armed and t - up_since >= rearm_us:
                armed = True


def score(triggers, windows, glitch):
    """(latencies µs of the presses that sounded, presses missed, glitches that sounded,
    extra sounds within presses)."""
    triggers = list(triggers)
    lat = []
    missed = extra = 0
    for start, end in windows:
        inside = [x for x in triggers if start <= x <= end]
        if inside:
            lat.append(inside[0] - start)
            extra += len(inside) - 1
        else:
            missed += 1
    sounded = sum(1 for a, b in glitch if any(a <= x <= b + 20_000 for x in triggers))
    return lat, missed, sounded, extra


def firmware(levels, end_us, pass_us, phase_us):
    """The firmware itself (a pure Klaxon on the simulated board) on the same levels."""
    sim = Sim(klaxon_only=True, pass_us=pass_us, phase_us=phase_us)
    for t, pressed in levels:
        sim.level("klaxon", t, pressed)
    sim.run_until_us(end_us)
    return [s for s, name, _, _ in _audioout.plays if name.endswith("klaxon.wav")]


def peers(rng, presses, bounce, pass_us=1000):
    """{name: (median ms, worst ms, glitches that sounded, missed, extra)} on one trace."""
    levels, windows, glitch, end = trace(rng, presses, bounce)
    phase = rng.randrange(pass_us)
    out = {}
    for name, run in (("this firmware", None), ("Adafruit guide: Debouncer, 10 ms", adafruit_guide),
                      ("keypad.Keys, 20 ms", keypad_20ms), ("first edge, no debounce", first_edge)):
        if run is None:
            got = firmware(levels, end, pass_us, phase)
        else:
            got = run(sampled(levels, end, pass_us, phase))
        lat, missed, sounded, extra = score(got, windows, glitch)
        out[name] = (statistics.median(lat) / 1000 if lat else None,
                     max(lat) / 1000 if lat else None, sounded, missed, extra)
    return out, len(glitch)
