#!/usr/bin/env python3
"""Synthesise QI Klaxon's own sounds into sounds/*.wav (host-only tool).

No recording is used: every sample is computed here. Format for every
build: mono, 16-bit signed, 16 kHz (PWMAudioOut and the SAMD21's DAC both
play it), starting and ending on the quiescent level (0) with short fades,
so the speaker does not click.

    python3 tools/synth.py            # writes sounds/
    python3 tools/synth.py --check    # exit 1 if sounds/ differs from what it makes
    python3 tools/synth.py --tones    # the tone sweeps for hardware/outputs.py's TONES

Each sound is one table of segments (``SEGMENTS``), and both forms come from it:
the WAV files (each segment a glide through the horn or sine voice) and the tone
sweeps the piezo and the Express's DAC play (``tones()``: each segment's start and
end pitch in tens of Hz, its length in tens of ms; tests hold hardware/outputs.py's
``TONES`` equal to it). What the tone builds play differs from the WAV by:

* pitch: each end rounded to the nearest 10 Hz (at most 5 Hz off);
* time: each segment's length rounded to the nearest 10 ms (at most 5 ms a segment);
* the glide: the WAV rises as ``t ** 0.7`` (fast, then settling, like a motor horn),
  the tones linearly, re-pitched every 20 ms: mid-glide the tone is below the WAV
  by at most 0.131 of the segment's span (31 Hz on the klaxon's 190 -> 430 Hz rise,
  30% of the way through), plus the 20 ms step's share of the slope.
"""

import math
import os
import struct
import sys

RATE = 16000
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
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


def sweep(f0, f1, seconds, voice, level=1.0, attack_ms=4, release_ms=15, phase=0.0):
    """Samples (floats -1..1) of a tone gliding from f0 to f1 Hz; returns (samples, phase)."""
    n = int(seconds * RATE)
    out = []
    a = max(1, attack_ms * RATE // 1000)
    r = max(1, release_ms * RATE // 1000)
    for i in range(n):
        f = glide(f0, f1, i / n)
        phase += f / RATE
        out.append(level * voice(phase % 1.0) * _envelope(i, n, a, r))
    return out, phase


def horn(p):
    """A bright, buzzy horn voice: square-ish fundamental plus a rasp of odd harmonics."""
    s = 0.0
    for k, amp in ((1, 1.0), (3, 0.45), (5, 0.28), (7, 0.16), (9, 0.1)):
        s += amp * math.sin(2 * math.pi * k * p)
    return math.tanh(1.6 * s) / math.tanh(1.6 * 2.0)


def sine(p):
    return math.sin(2 * math.pi * p)


def silence(seconds):
    return [0.0] * int(seconds * RATE)


# Every sound, as segments: (start Hz, end Hz, seconds, voice, level, attack ms,
# release ms), or a rest: (0, 0, seconds). A tone goes on from the phase the one before
# it ended at (one voice gliding on); after a rest it starts afresh.
_KLAXON_BLAST = ((190, 430, 0.38, horn, 1.0, 6, 2),  # the rise ("ah-OO-")
                 (430, 415, 0.20, horn, 1.0, 1, 25),  # held, sagging ("-gah")
                 (0, 0, 0.06))
SEGMENTS = {
    # Two rising "ah-OO-gah" blasts, about 1.3 s in all
    "klaxon": _KLAXON_BLAST * 2,
    # A low double buzz, plainly not the klaxon: ~0.4 s
    "denied": ((150, 150, 0.12, horn, 0.7, 4, 15), (0, 0, 0.05),
               (110, 105, 0.22, horn, 0.7, 4, 15)),
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


def samples(name):
    """The samples (floats -1..1) of sound ``name``, segment by segment."""
    out = []
    phase = 0.0
    for seg in SEGMENTS[name]:
        if not seg[0]:  # a rest
            out += silence(seg[2])
            phase = 0.0
            continue
        s, phase = sweep(seg[0], seg[1], seg[2], *seg[3:], phase=phase)
        out += s
    return out


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
        print("sounds differ from tools/synth.py: %s" % bad if bad else "sounds match tools/synth.py")
        return 1 if bad else 0
    os.makedirs(FOLDER, exist_ok=True)
    for name, data in made.items():
        with open(os.path.join(FOLDER, name + ".wav"), "wb") as f:
            f.write(data)
        print("%s.wav: %d bytes, %.2f s" % (name, len(data), (len(data) - 44) / 2 / RATE))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
