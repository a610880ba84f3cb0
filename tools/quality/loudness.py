#!/usr/bin/env python3
"""How loud the klaxon is through each build's sound part (host-only quality tool, issue 32).

A model, not a microphone: what the simulated board drives its part with (the firmware's
own plays, rendered by tools/simulated/simboard/_drive.py from a real press), through the part's
typical frequency response and the A-weighting of IEC 61672-1, read as a sound level meter
reads it: the fast (125 ms) time-weighted level's maximum (L_AFmax). Each build's figure is
relative to the loudest tone its part makes at the same drive: a full-swing square on the
same pins (the piezo: 0/1 on one pin, +-1 across two in antiphase) or through the same
path (a speaker: a full-scale square), at the frequency where that part and the ear make
it loudest. 0 dB(A): the klaxon is as loud as the part allows; the budget is >= -3 dB(A).

    .venv/bin/python tools/quality/loudness.py              # each build's row, as the bench has it
    .venv/bin/python tools/quality/loudness.py --listen     # out/klaxon-<build>-{before,after}.wav
    .venv/bin/python tools/quality/loudness.py --before     # tools/quality/loudness_before.json, once

(--listen writes each build's klaxon as heard through its part's model, before (commit
6aa2bcb's firmware, run from git with these tools) and after (the firmware as it is),
for a person to listen to. --before measures that commit's klaxon once into
tools/quality/loudness_before.json, which the bench and the picture read: history does not
change. docs/klaxon-loudness.svg, the spectra before and after, is drawn by
tools/gen/pictures.py from ``spectrum_svg()``.)
"""

import json
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import paths  # noqa: E402  (tools/paths.py: every group of tools/ on the path)
from paths import ROOT  # noqa: E402

RATE = 48000  # the rendering's rate (tools/simulated/sim.py's WAV_RATE): a square's edges kept
FAST_S = 0.125  # a sound level meter's "fast" time weighting (IEC 61672-1: tau = 125 ms)
BUDGET_DB = -3.0  # issue 32: within 3 dB(A) of the part's loudest tone
BEFORE_COMMIT = "6aa2bcb"  # the firmware before issue 32's sound (its klaxon: the "before")
BEFORE_FILE = os.path.join(paths.TOOLS, "quality", "loudness_before.json")

# ---------------------------------------------------------------- the parts' responses
# Each a magnitude response (pressure per volt, 1 in its flat band) as a function of
# frequency, read off a datasheet's curve as straight lines: flat between two corners,
# falling 12 dB an octave (a second-order system's mass or stiffness) below the low one
# and above the high one.
#
# PIEZO: a typical passive piezo transducer (a disc buzzer without a driver, 12 to 27 mm,
# as sold for the Pico build). Typical, from piezo element datasheets: resonance 3.2 kHz
# +-0.3 kHz (Grewus PE series, wire leads), 4 kHz (Murata PKM17EPP-4001); their SPL curves
# are roughly flat from 3 to 6 kHz, fall about 12 dB an octave below 3 kHz, and fall above
# the resonant band. Modelled: flat 3 to 6 kHz, -12 dB an octave either side.
PIEZO = {"name": "a passive piezo", "high_pass_hz": 3000, "low_pass_hz": 6000,
         "source": "typical, from piezo element datasheets (Grewus PE series 3.2 kHz, Murata "
                   "PKM17EPP-4001 4 kHz): flat 3-6 kHz, -12 dB an octave below 3 kHz"}
# SPEAKER20: the Circuit Playground's built-in mini speaker (about 20 mm) behind its class-D
# amplifier. Typical, from 20 mm micro-speaker datasheets: resonance (f0) about 800 Hz,
# below it -12 dB an octave (a sealed cone's second-order fall), usable to about 10 kHz.
SPEAKER20 = {"name": "a 20 mm speaker", "high_pass_hz": 800, "low_pass_hz": 10000,
             "source": "typical, from 20 mm micro-speaker datasheets: f0 ~800 Hz, -12 dB an "
                       "octave below it, to ~10 kHz"}
# AMP40: QK_AUDIO = "amp": a PAM8302 class-D amplifier (Diodes Inc. PAM8302A datasheet:
# flat across the audio band, 2.5 W into 4 ohm at 5 V) and a 3 W, 4 ohm, 40 mm speaker.
# Typical, from 40 mm speaker datasheets: f0 about 400 Hz, -12 dB an octave below, to
# ~12 kHz. The amplifier's input coupling (a high-pass far below 400 Hz) is left out.
AMP40 = {"name": "a PAM8302 and a 40 mm 3 W speaker", "high_pass_hz": 400,
         "low_pass_hz": 12000,
         "source": "PAM8302A datasheet (flat audio band); typical 40 mm 3 W speaker "
                   "datasheets: f0 ~400 Hz, -12 dB an octave below, to ~12 kHz"}


def part_gain(part, f):
    """The part's magnitude response at ``f`` Hz (array): 1 between its corners, falling
    as the square of the frequency's ratio to a corner outside them (12 dB an octave)."""
    f = np.maximum(np.asarray(f, dtype=float), 1e-9)
    return np.minimum(1, (f / part["high_pass_hz"]) ** 2) * np.minimum(
        1, (part["low_pass_hz"] / f) ** 2)


def a_weighting(f):
    """IEC 61672-1:2013 Annex E's A-weighting as a gain (1 at 1 kHz): poles at 20.598997,
    107.65265, 737.86223 and 12194.217 Hz, normalised by A1000 = -2.000 dB."""
    f2 = np.asarray(f, dtype=float) ** 2
    ra = (12194.217 ** 2 * f2 ** 2) / ((f2 + 20.598997 ** 2) * np.sqrt(
        (f2 + 107.65265 ** 2) * (f2 + 737.86223 ** 2)) * (f2 + 12194.217 ** 2))
    return ra * 10 ** (2.0 / 20)


def heard_gain(part, f):
    """The part then the ear's A-weighting, at ``f`` Hz."""
    return part_gain(part, f) * a_weighting(f)


# ---------------------------------------------------------------------- the meter
def weighted(x, part, rate=RATE):
    """``x`` (the drive, full swing) as the part makes it and A-weighting weighs it: a
    zero-phase filter by FFT (the level, not the waveform's shape, is what is measured)."""
    x = np.asarray(x, dtype=float)
    n = 1 << int(np.ceil(np.log2(max(len(x), 2) + rate // 4)))  # room for the ringing
    spec = np.fft.rfft(x - x.mean(), n)
    f = np.fft.rfftfreq(n, 1 / rate)
    return np.fft.irfft(spec * heard_gain(part, f), n)[:len(x) + rate // 4]


def fast_levels(x, part, rate=RATE):
    """The meter's fast (125 ms exponential) mean square of the weighted drive, each
    millisecond (array)."""
    y = weighted(x, part, rate) ** 2
    per = rate // 1000
    ms = y[:len(y) // per * per].reshape(-1, per).mean(axis=1)
    a = 1 / (FAST_S * 1000)  # the exponential's step at 1 ms
    out = np.empty_like(ms)
    acc = 0.0
    for i, v in enumerate(ms):  # (a few thousand steps: the loop is cheap)
        acc += a * (v - acc)
        out[i] = acc
    return out


def level_db(x, part, rate=RATE):
    """L_AFmax of ``x`` through ``part``, in dB re a mean square of 1 (full swing)."""
    return 10 * np.log10(max(fast_levels(x, part, rate).max(), 1e-30))


def square_db(part, f, swing=1.0):
    """The steady A-weighted level (dB) of a square of peak-to-peak ``swing`` at ``f`` Hz
    through ``part``: its odd harmonics (4/(pi k) of its half swing each), summed."""
    k = np.arange(1, 2 * int(40000 / f) + 2, 2)
    amp = swing / 2 * 4 / (np.pi * k)
    power = np.sum((amp * heard_gain(part, k * f)) ** 2 / 2)
    return 10 * np.log10(power)


def best_square(part, swing=1.0):
    """(frequency, dB): the loudest square the part makes at ``swing``, over 100 Hz to
    10 kHz (a twentieth of an octave apart)."""
    freqs = 100 * 2 ** (np.arange(0, 20 * np.log2(100) + 1) / 20)
    levels = [square_db(part, f, swing) for f in freqs]
    i = int(np.argmax(levels))
    return float(freqs[i]), float(levels[i])


def relative_db(x, part, swing, rate=RATE):
    """The klaxon's L_AFmax through ``part`` against the part's loudest square of the same
    ``swing`` (dB(A))."""
    return level_db(x, part, rate) - best_square(part, swing)[1]


# ------------------------------------------------------------------------- builds
# The rows: (key, what the bench calls it, sim board, settings, part, the drive's full
# swing: the square the part's loudest tone is measured with)
BUILDS = (
    ("cpb", "Bluefruit: its speaker (audiopwmio, the WAV)", "cpb", "",
     SPEAKER20, 2.0),
    ("cpx", "Express: its speaker (the DAC's wave)", "cpx", "", SPEAKER20, 2.0),
    ("pico-push-pull", "Pico: a piezo on two pins, push-pull", "pico", "",
     PIEZO, 2.0),
    ("pico-one-pin", "Pico: a piezo on one pin", "pico", "", PIEZO, 1.0),
    ("pico-amp", "Pico: amp (PAM8302, 40 mm speaker)", "pico",
     'QK_AUDIO = "amp"\n', AMP40, 2.0),
)
PART = {b[0]: b[4] for b in BUILDS}
# The Pico's piezo on one pin: a setting (push-pull is the default); a firmware that plays
# the piezo on one pin only (pwmio, before push-pull) plays it so whatever the setting
ONE_PIN_SETTING = 'QK_AUDIO = "piezo-gnd"\n'


def klaxon(board, settings="", volume=10):
    """The klaxon as build ``board`` drives its part, rendered at ``RATE``: the simulated
    board (the firmware, unedited) pressed once, every audio output's ``waveform`` mixed
    from the klaxon's start to the end of its sound. Returns (samples, the outputs' type names)."""
    from harness import Sim

    import _audioout
    import _drive

    here = os.getcwd()
    os.chdir(ROOT)  # (the firmware opens sounds/ from the drive's root: run from anywhere)
    try:
        sim = Sim(board_name=board, klaxon_only=True,
                  settings="QK_VOLUME = %d\n" % volume + settings)
        if sim.device is None:
            raise RuntimeError("the %s build did not start: %r" % (board, sim.events))
        at = sim.now_ms + 100
        sim.press("klaxon", at_ms=at, hold_ms=120)
        sim.run_for_ms(2500)
    finally:
        os.chdir(here)
    now = sim.now_ms * 1000
    outs = [o for o in _audioout.outputs if hasattr(o, "waveform")]
    starts = sim.sound_starts_us()
    if not starts:
        raise RuntimeError("the %s build's klaxon did not sound: %r" % (board, sim.events))
    start = starts[0]  # (the press -> sound latency is the bench's other rows')
    end = max([_drive.busy_until(o, now) for o in outs] + [start])
    x = np.zeros(int((end - start) * RATE // 1_000_000))
    for o in outs:
        x += np.asarray(o.waveform(start, end, RATE), dtype=float)[:len(x)]
    return x, [type(o).__name__ for o in outs]


def after(key):
    """Build ``key``'s klaxon now (samples), or None where this firmware has no such wiring
    (the piezo across two pins before branch pio)."""
    board, settings = {b[0]: (b[2], b[3]) for b in BUILDS}[key]
    if key == "pico-one-pin":
        settings = ONE_PIN_SETTING
    x, kinds = klaxon(board, settings)
    if key == "pico-push-pull" and ("PWMOut" in kinds or x.min() >= 0):
        return None  # one pin (pwmio, or the pin's 0/1 alone): not the push-pull wiring
    return x


# ------------------------------------------------------------ the before, kept
BANDS = 100 * 2 ** (np.arange(0, 6 * np.log2(160) + 1) / 6)  # 1/6-octave, 100 Hz-16 kHz


def band_levels(x, rate=RATE):
    """The drive's power in each 1/6-octave band (``BANDS``, centres), over its whole
    length, in dB re a full-swing sine's (0.5): a spectrum small enough to keep."""
    x = np.asarray(x, dtype=float)
    spec = np.abs(np.fft.rfft(x - x.mean())) ** 2 / len(x) ** 2 * 2
    f = np.fft.rfftfreq(len(x), 1 / rate)
    out = []
    for c in BANDS:
        sel = (f >= c * 2 ** (-1 / 12)) & (f < c * 2 ** (1 / 12))
        out.append(round(float(10 * np.log10(max(spec[sel].sum(), 1e-12) / 0.5)), 1))
    return out


def measure(key, x):
    """Build ``key``'s figures from its rendering: dB(A) re its part's loudest tone, the
    1/6-octave band levels, its length (s)."""
    part = PART[key]
    swing = {b[0]: b[5] for b in BUILDS}[key]
    return {"db": round(float(relative_db(x, part, swing)), 2), "bands": band_levels(x),
            "seconds": round(len(x) / RATE, 3)}


def before():
    """The kept "before" (tools/quality/loudness_before.json): each build's figures as commit
    6aa2bcb's firmware drove its part (``--before`` made it: ``old_klaxon()``)."""
    with open(BEFORE_FILE) as f:
        return json.load(f)


def old_klaxon(key, commit=BEFORE_COMMIT):
    """Build ``key``'s klaxon as the firmware of ``commit`` drove its part (samples, or None
    where it had no such wiring): that commit's device files (git archive) with this
    tree's tools (the simulated board, its stand-ins, this model) run in a folder of their
    own, a process of their own. Needs the repo's history (git); a message if not."""
    import shutil
    import subprocess
    import tempfile

    folder = tempfile.mkdtemp(prefix="qk-before-")
    try:
        files = ["code.py", "boot.py", "hardware", "lib", "sounds", "VERSION"]
        tar = subprocess.run(["git", "-C", ROOT, "archive", commit] + files,
                             capture_output=True)
        if tar.returncode:
            raise RuntimeError("git archive %s: %s" % (commit, tar.stderr.decode().strip()))
        subprocess.run(["tar", "-x", "-C", folder], input=tar.stdout, check=True)
        for name in ("tools", "model"):  # (today's host code, that commit's firmware)
            shutil.copytree(os.path.join(ROOT, name), os.path.join(folder, name),
                            ignore=shutil.ignore_patterns("node_modules", "__pycache__", "pico"))
        out = os.path.join(folder, "klaxon.npy")
        r = subprocess.run([sys.executable, os.path.join(folder, "tools", "quality", "loudness.py"),
                            "--render", key, out], capture_output=True, text=True)
        if r.returncode:
            raise RuntimeError("%s's firmware: %s" % (commit, r.stderr.strip()[-500:]))
        return np.load(out) if os.path.getsize(out) else None
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def write_before():
    """tools/quality/loudness_before.json: every build's figures on commit 6aa2bcb's firmware."""
    out = {"commit": BEFORE_COMMIT, "rate": RATE, "volume": 10,
           "bands_hz": [round(float(c), 1) for c in BANDS], "builds": {}}
    for key, *_ in BUILDS:
        x = old_klaxon(key)
        if x is not None:
            out["builds"][key] = measure(key, x)
    with open(BEFORE_FILE, "w") as f:  # a build a line: small, and its diff readable
        f.write("{\n" + ",\n".join(" %s: %s" % (json.dumps(k), json.dumps(v)) for k, v in
                                    out.items() if k != "builds"))
        f.write(',\n "builds": {\n' + ",\n".join("  %s: %s" % (json.dumps(k), json.dumps(v))
                                                 for k, v in out["builds"].items()))
        f.write("\n }\n}\n")
    return out


def rows():
    """[(key, label, dB(A) now or None, dB(A) before or None)] of every build."""
    kept = before()["builds"]
    out = []
    for key, label, *_ in BUILDS:
        x = after(key)
        now = None if x is None else measure(key, x)["db"]
        out.append((key, label, now, kept.get(key, {}).get("db")))
    return out


def spectrum_svg():
    """docs/klaxon-loudness.svg: each build's klaxon as a spectrum (the drive's power in
    1/6-octave bands over the whole klaxon), before (commit 6aa2bcb, kept) and after (this
    firmware), with its part's response and A-weighting, and the two levels."""
    kept = before()
    bands = np.asarray(kept["bands_hz"])
    w, ph, top = 960, 150, 86
    lo_hz, hi_hz, floor = 100.0, 16000.0, -50.0
    x0, x1 = 70, w - 30
    h = top + len(BUILDS) * (ph + 40) + 20

    def fx(f):
        return x0 + (x1 - x0) * np.log(f / lo_hz) / np.log(hi_hz / lo_hz)

    def line(values, y0, colour, extra=""):
        pts = " ".join("%.1f,%.1f" % (fx(f), y0 + ph * min(1.0, max(0.0, v / floor)))
                       for f, v in zip(bands, values))
        return '<polyline points="%s" fill="none" stroke="%s" stroke-width="2"%s/>' % (
            pts, colour, extra)

    out = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" '
           'font-family="sans-serif" font-size="13">' % (w, h),
           '<rect width="100%" height="100%" fill="#fdfdf8"/>',
           '<text x="20" y="26" font-size="17" font-weight="bold">The klaxon as each build '
           'drives its part: spectrum before and after (tools/quality/loudness.py)</text>',
           '<text x="20" y="46">The drive\'s power in 1/6-octave bands over the whole '
           'klaxon, dB re a full-swing sine: <tspan fill="#888">grey before (%s)</tspan>, '
           '<tspan fill="#0072b2">blue after</tspan>.</text>' % kept["commit"],
           '<text x="20" y="62"><tspan fill="#d55e00">Dashed: the part\'s response and '
           'A-weighting.</tspan> Each figure: the klaxon\'s A-weighted fast maximum '
           'through the part,</text>',
           '<text x="20" y="78">against the part\'s loudest square at the same drive '
           '(budget %g dB(A)).</text>' % BUDGET_DB]
    for i, (key, label, board, settings, part, swing) in enumerate(BUILDS):
        y0 = top + 30 + i * (ph + 40)
        x = after(key)
        now = measure(key, x) if x is not None else None
        was = kept["builds"].get(key)
        words = "%s: before %s, after %s" % (
            label, "%.1f dB(A)" % was["db"] if was else "(not built: one pin only)",
            "%.1f dB(A)" % now["db"] if now else "(not built in this firmware)")
        out.append('<text x="%d" y="%d" font-weight="bold">%s</text>' % (x0, y0 - 8, words))
        out.append('<rect x="%d" y="%d" width="%d" height="%d" fill="none" stroke="#bbb"/>'
                   % (x0, y0, x1 - x0, ph))
        for db in range(0, int(floor) - 1, -10):
            yy = y0 + ph * db / floor
            out.append('<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#eee"/>'
                       % (x0, yy, x1, yy))
            out.append('<text x="%d" y="%.1f" text-anchor="end" fill="#555">%d dB</text>'
                       % (x0 - 6, yy + 4, db))
        for f in (100, 200, 500, 1000, 2000, 5000, 10000):
            out.append('<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#eee"/>'
                       % (fx(f), y0, fx(f), y0 + ph))
            out.append('<text x="%.1f" y="%d" text-anchor="middle" fill="#555">%s</text>'
                           % (fx(f), y0 + ph + 14, "%g kHz" % (f / 1000) if f >= 1000
                              else "%d Hz" % f))
        g = 20 * np.log10(np.maximum(heard_gain(part, bands), 1e-9))
        out.append(line(np.round(g - g.max(), 1), y0, "#d55e00", ' stroke-dasharray="6,4"'))
        if was:
            out.append(line(was["bands"], y0, "#888"))
        if now:
            out.append(line(now["bands"], y0, "#0072b2"))
    out.append("</svg>")
    return "\n".join(out) + "\n"


def heard(x, part, swing):
    """``x`` as the part's model makes it (its response, zero phase), scaled so that the
    part's flat band at full swing is full scale; for a person's ear (no A-weighting)."""
    n = 1 << int(np.ceil(np.log2(len(x) + RATE // 4)))
    f = np.fft.rfftfreq(n, 1 / RATE)
    y = np.fft.irfft(np.fft.rfft(x - x.mean(), n) * part_gain(part, f), n)[:len(x)]
    return np.clip(y / swing, -1, 1)


def listen(folder=os.path.join(ROOT, "out")):
    """out/klaxon-<build>-before.wav and -after.wav: each build's klaxon, before (commit
    6aa2bcb's firmware) and after (this one), as heard through its part's model."""
    import wave

    os.makedirs(folder, exist_ok=True)
    made = []
    for key, label, board, settings, part, swing in BUILDS:
        for when, make in (("before", old_klaxon), ("after", after)):
            x = make(key)
            if x is None:
                continue
            path = os.path.join(folder, "klaxon-%s-%s.wav" % (key, when))
            with wave.open(path, "wb") as w:
                w.setnchannels(1)
                w.setsampwidth(2)
                w.setframerate(RATE)
                w.writeframes((heard(x, part, swing) * 32767).round().astype("<i2").tobytes())
            made.append(path)
    return made


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    keys = [b[0] for b in BUILDS]
    if argv[:1] == ["--render"]:  # (old_klaxon's: this tree's firmware, one build, to a file)
        if len(argv) != 3 or argv[1] not in keys:
            print("loudness: --render BUILD FILE, BUILD one of %s" % ", ".join(keys),
                  file=sys.stderr)
            return 2
        os.chdir(ROOT)
        x = after(argv[1])
        with open(argv[2], "wb") as f:
            if x is not None:
                np.save(f, x)
        return 0
    if argv[:1] in (["-h"], ["--help"]):
        print(__doc__.strip())
        return 0
    if len(argv) > 1 or argv and argv[0] not in ("--listen", "--before"):
        print("loudness: unknown argument %r (use --listen or --before)" % " ".join(argv),
              file=sys.stderr)
        return 2
    os.chdir(ROOT)
    try:
        if argv == ["--before"]:
            out = write_before()
            for key, b in out["builds"].items():
                print("%-15s %6.1f dB(A)" % (key, b["db"]))
            return 0
        if argv == ["--listen"]:
            for path in listen():
                print(path)
            return 0
    except (OSError, RuntimeError) as e:
        print("loudness: %s" % e, file=sys.stderr)
        return 2
    over = 0
    for key, label, now, was in rows():
        print("%-62s %s (before %s)" % (label, "%.1f dB(A)" % now if now is not None else
                                        "not built here", "%.1f" % was if was is not None
                                        else "-"))
        over += now is not None and now < BUDGET_DB
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main())
