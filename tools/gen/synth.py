#!/usr/bin/env python3
"""Synthesise QI Klaxon's own sounds into sounds/*.wav (host-only tool).

No recording is used: every sample is computed here. Format for every
build: mono, 16-bit signed, 16 kHz (PWMAudioOut and the SAMD21's DAC both
play it), starting and ending on the quiescent level (0) with short fades,
so the speaker does not click.

    python3 tools/gen/synth.py            # writes sounds/
    python3 tools/gen/synth.py --check    # exit 1 if sounds/ differs from what it makes
    python3 tools/gen/synth.py --tones    # the tone sweeps for hardware/outputs.py's TONES

Each sound is one table of segments (``SEGMENTS``), and both forms come from it:
the WAV files (each segment a glide through the RASP or sine voice) and the tone
sweeps the piezo and the Express's DAC play (``tones()``: each segment's start and
end pitch in tens of Hz, its length in tens of ms; tests hold hardware/outputs.py's
``TONES`` equal to it). The voices' waveforms are here too (``PIEZO``, ``SPEAKER``,
``SQUARE``: one period of the pitch each), and the firmware plays them (tests hold its
copies to these). What the tone builds play differs from the WAV by:

* pitch: each end rounded to the nearest 10 Hz (at most 5 Hz off);
* time: each segment's length rounded to the nearest 10 ms (at most 5 ms a segment);
* the voice: the WAV's RASP is band-limited (``BAND``) and soft-limited (``DRIVE``), the
  tone builds' is the pattern itself; the WAV's chimes are sines, the tone builds' squares;
* the glide: the WAV rises as ``t ** 0.7`` (fast, then settling, like a motor horn),
  the tones linearly, re-pitched every 20 ms: mid-glide the tone is below the WAV
  by at most 0.131 of the segment's span (31 Hz on the klaxon's 190 -> 430 Hz rise,
  30% of the way through), plus the 20 ms step's share of the slope.
"""

import math
import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import paths  # noqa: E402  (tools/paths.py: every group of tools/ on the path)
from paths import ROOT  # noqa: E402

RATE = 16000
FOLDER = os.path.join(ROOT, "sounds")


def _envelope(i, n, attack, release):
    if i < attack:
        return i / attack
    if i >= n - release:
        return (n - 1 - i) / release
    return 1.0


def glide(f0, f1, x):
    """The pitch (Hz) a fraction ``x`` (0..1) of the way through a glide from f0 to f1."""
    return f0 + (f1 - f0) * x ** 0.7  # a fast rise that settles, like a motor horn


# The klaxon's voice, a RASP: a real klaxon is a diaphragm struck by a toothed wheel, the
# tooth rate its pitch, the diaphragm ringing far higher. One period of the pitch f0 is 22
# units of +1 or -1 (full swing all the time: no silent unit costs loudness): a fast
# carrier, then one slow cycle, so the period still repeats at f0 (the pitch heard) while
# the energy sits where the part is loud and the ear most sensitive. Each part gets its own:
PIEZO = (1, -1) * 8 + (1, 1, 1, -1, -1, -1)  # the Pico's piezo: 8 cycles at 11 x f0 (the
# klaxon's 190 -> 430 Hz rise puts them at 2.1 -> 4.7 kHz, the piezo's resonance), then one
# at 3.7 x f0
SPEAKER = (1, 1, -1, -1) * 4 + (1, 1, 1, -1, -1, -1)  # a speaker (the Express's DAC wave,
# and these WAVs): 4 cycles at 5.5 x f0 (1 -> 2.4 kHz, above a small speaker's bass roll-off
# and low enough that a 16 kHz WAV still carries them as squares), then one at 3.7 x f0
SQUARE = (1, -1)  # the chimes on the tone builds: a 50 % square at the note
RASP = SPEAKER  # what the WAVs play
OVER = 4  # the WAVs are made at 4 x RATE, shaped, then filtered down to RATE (no aliasing)
BAND = 7600  # Hz: the harmonics kept (below the WAV's 8 kHz Nyquist, with room to fall)
DRIVE = 2.5  # the soft limiter's drive: tanh(DRIVE x): a low crest factor, no hard clipping
_TABLE = 1024  # points in a period's table
_tables = {}


def _rasp_table(k):
    """One period of RASP band-limited to its first ``k`` harmonics, peak 1 (``_TABLE``
    points): the pattern's Fourier series."""
    if k not in _tables:
        n = len(RASP)
        co = []
        for h in range(1, k + 1):  # the pattern's complex coefficient at harmonic h
            re_ = im = 0.0
            for u, v in enumerate(RASP):
                if v:  # the unit's integral of exp(-2 pi i h x) over [u/n, (u+1)/n)
                    a, b = 2 * math.pi * h * u / n, 2 * math.pi * h * (u + 1) / n
                    re_ += v * (math.sin(b) - math.sin(a)) / (2 * math.pi * h)
                    im += v * (math.cos(b) - math.cos(a)) / (2 * math.pi * h)
            co.append((h, 2 * re_, 2 * im))
        t = []
        for i in range(_TABLE):
            x = i / _TABLE
            t.append(sum(c * math.cos(2 * math.pi * h * x) - s * math.sin(2 * math.pi * h * x)
                         for h, c, s in co))
        top = max(abs(v) for v in t)
        _tables[k] = [v / top for v in t]
    return _tables[k]


def rasp(p, f):
    """The RASP voice at phase ``p`` (0..1) and pitch ``f`` Hz: band-limited to ``BAND``,
    then soft-limited (at OVER x RATE; samples() filters what that adds above BAND)."""
    t = _rasp_table(max(1, int(BAND // f)))
    x = p * _TABLE
    i = int(x)
    v = t[i] + (t[(i + 1) % _TABLE] - t[i]) * (x - i)
    return math.tanh(DRIVE * v) / math.tanh(DRIVE)


def sine(p, f):
    return math.sin(2 * math.pi * p)


def _lowpass():
    """A windowed-sinc low-pass (Blackman) at ``BAND`` for the OVER x rate, gain 1."""
    n = 32 * OVER + 1
    fc = BAND / (RATE * OVER)
    h = []
    for i in range(n):
        m = i - (n - 1) / 2
        s = 2 * fc if m == 0 else math.sin(2 * math.pi * fc * m) / (math.pi * m)
        w = 0.42 - 0.5 * math.cos(2 * math.pi * i / (n - 1)) + 0.08 * math.cos(4 * math.pi * i / (n - 1))
        h.append(s * w)
    g = sum(h)
    return [v / g for v in h]


def sweep(f0, f1, seconds, voice, level=1.0, attack_ms=4, release_ms=15, phase=0.0):
    """Samples (floats -1..1, at OVER x RATE) of a tone gliding from f0 to f1 Hz; returns
    (samples, phase)."""
    r = RATE * OVER
    n = int(seconds * RATE) * OVER
    out = []
    a = max(1, attack_ms * r // 1000)
    e = max(1, release_ms * r // 1000)
    for i in range(n):
        f = glide(f0, f1, i / n)
        phase += f / r
        out.append(level * voice(phase % 1.0, f) * _envelope(i, n, a, e))
    return out, phase


def silence(seconds):
    return [0.0] * (int(seconds * RATE) * OVER)


# Every sound, as segments: (start Hz, end Hz, seconds, voice, level, attack ms,
# release ms), or a rest: (0, 0, seconds). A tone goes on from the phase the one before
# it ended at (one voice gliding on); after a rest it starts afresh.
_KLAXON_BLAST = ((190, 430, 0.38, rasp, 1.0, 6, 2),  # the rise ("ah-OO-")
                 (430, 415, 0.20, rasp, 1.0, 1, 25),  # held, sagging ("-gah")
                 (0, 0, 0.06))
SEGMENTS = {
    # Two rising "ah-OO-gah" blasts, about 1.3 s in all
    "klaxon": _KLAXON_BLAST * 2,
    # A low double buzz, plainly not the klaxon: ~0.4 s
    "denied": ((150, 150, 0.12, rasp, 0.7, 4, 15), (0, 0, 0.05),
               (110, 105, 0.22, rasp, 0.7, 4, 15)),
    # A short, quiet confirmation tick: 40 ms at 1.8 kHz
    "blip": ((1800, 1800, 0.04, sine, 0.35, 3, 20),),
    # A position changed (a reveal, a roll, a move, the end, a new game): two rising notes,
    # a fifth apart, ~0.3 s: plainly not the blip
    "done": ((880, 880, 0.09, sine, 0.6, 4, 20), (0, 0, 0.03),
             (1320, 1320, 0.16, sine, 0.6, 4, 60)),
    # Something was taken back (undo, a mark, a step of an entry): two falling notes, ~0.3 s
    "undone": ((990, 990, 0.09, sine, 0.6, 4, 20), (0, 0, 0.03),
               (660, 660, 0.16, sine, 0.6, 4, 60)),
}
NAMES = ("klaxon", "denied", "blip", "done", "undone")  # the firmware's order (its sound
# numbers 0 to 4)


_made = {}


def samples(name):
    """The samples (floats -1..1, at RATE) of sound ``name``: its segments made at OVER x
    RATE, filtered to ``BAND`` and taken every OVER-th, the peak its loudest segment's level."""
    segs = SEGMENTS[name]
    if segs not in _made:  # (made once a run: the tests ask often)
        out = []
        phase = 0.0
        for seg in segs:
            if not seg[0]:  # a rest
                out += silence(seg[2])
                phase = 0.0
                continue
            s, phase = sweep(seg[0], seg[1], seg[2], *seg[3:], phase=phase)
            out += s
        h = _lowpass()
        m = len(h) // 2
        n = len(out)
        down = []
        for j in range(0, n, OVER):
            lo, hi = max(0, j - m), min(n, j + m + 1)
            down.append(sum(h[i - j + m] * out[i] for i in range(lo, hi)))
        top = max(abs(v) for v in down) or 1.0
        want = max(seg[4] for seg in segs if seg[0])
        _made[segs] = [v * want / top for v in down]
    return list(_made[segs])


def pitch(name, t):
    """The pitch (Hz) of sound ``name`` ``t`` seconds in, as its WAV glides (0: a rest
    or after the end)."""
    for seg in SEGMENTS[name]:
        if t < seg[2]:
            return glide(seg[0], seg[1], t / seg[2]) if seg[0] else 0
        t -= seg[2]
    return 0


def _tens(x):
    """``x`` in tens, to the nearest (halves up), as a byte of a tone sweep."""
    v = int(x / 10 + 0.5)
    if not 0 <= v <= 255:
        raise ValueError("%r does not fit a tone sweep's byte (tens, 0 to 2550)" % x)
    return v


def tones():
    """(klaxon, denied, blip, done, undone) as the tone builds play them (hardware/outputs.py's TONES):
    three bytes a segment, its start and end pitch in tens of Hz (0: a rest) and its
    length in tens of ms; the WAV's ``t ** 0.7`` glide becomes a linear sweep."""
    out = []
    for name in NAMES:
        b = bytearray()
        for seg in SEGMENTS[name]:
            b += bytes((_tens(seg[0]), _tens(seg[1]), _tens(seg[2] * 1000)))
            if not b[-1] or (seg[0] and not (b[-3] and b[-2])):
                raise ValueError("%s: a segment shorter than 10 ms or below 5 Hz: %r" % (name, seg))
        out.append(bytes(b))
    return tuple(out)


def tones_source():
    """hardware/outputs.py's TONES, as Python source."""
    lines = ["TONES = ("]
    for name, b in zip(NAMES, tones()):
        lines.append('    b"%s",  # %s' % ("".join("\\x%02x" % c for c in b), name))
    lines.append(")")
    return "\n".join(lines)


def klaxon():
    """Two rising "ah-OO-gah" blasts, about 1.3 s in all."""
    return samples("klaxon")


SOUNDS = {name: (lambda name=name: samples(name)) for name in NAMES}


def wav_bytes(samples):
    """A 16-bit mono PCM WAV file of ``samples`` (floats, clipped to -1..1)."""
    pcm = bytearray()
    for s in samples:
        v = int(round(max(-1.0, min(1.0, s)) * 32000))
        pcm += struct.pack("<h", v)
    head = b"RIFF" + struct.pack("<I", 36 + len(pcm)) + b"WAVE"
    head += b"fmt " + struct.pack("<IHHIIHH", 16, 1, 1, RATE, RATE * 2, 2, 16)
    head += b"data" + struct.pack("<I", len(pcm))
    return head + bytes(pcm)


def render():
    """{name: WAV bytes} of every sound."""
    return {name: wav_bytes(make()) for name, make in SOUNDS.items()}


def main(argv):
    if "--tones" in argv:
        print(tones_source())
        return 0
    made = render()
    if "--check" in argv:
        bad = [n for n, data in made.items()
               if not os.path.exists(os.path.join(FOLDER, n + ".wav"))
               or open(os.path.join(FOLDER, n + ".wav"), "rb").read() != data]
        print("sounds differ from tools/gen/synth.py: %s" % bad if bad else "sounds match tools/gen/synth.py")
        return 1 if bad else 0
    os.makedirs(FOLDER, exist_ok=True)
    for name, data in made.items():
        with open(os.path.join(FOLDER, name + ".wav"), "wb") as f:
            f.write(data)
        print("%s.wav: %d bytes, %.2f s" % (name, len(data), (len(data) - 44) / 2 / RATE))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
