#!/usr/bin/env python3
"""Synthesise QI Klaxon's own sounds into sounds/*.wav (host-only tool).

No recording is used: every sample is computed here. Format for every
build: mono, 16-bit signed, 16 kHz (PWMAudioOut and the SAMD21's DAC both
play it), starting and ending on the quiescent level (0) with short fades,
so the speaker does not click.

    python3 tools/synth.py            # writes sounds/
    python3 tools/synth.py --check    # exit 1 if sounds/ differs from what it makes
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


def sweep(f0, f1, seconds, voice, level=1.0, attack_ms=4, release_ms=15, phase=0.0):
    """Samples (floats -1..1) of a tone gliding from f0 to f1 Hz; returns (samples, phase)."""
    n = int(seconds * RATE)
    out = []
    a = max(1, attack_ms * RATE // 1000)
    r = max(1, release_ms * RATE // 1000)
    for i in range(n):
        f = f0 + (f1 - f0) * (i / n) ** 0.7  # a fast rise that settles, like a motor horn
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


def klaxon():
    """Two rising "ah-OO-gah" blasts, about 1.3 s in all."""
    out = []
    for _ in range(2):
        rise, ph = sweep(190, 430, 0.38, horn, attack_ms=6, release_ms=2)
        hold, _ = sweep(430, 415, 0.20, horn, attack_ms=1, release_ms=25, phase=ph)
        out += rise + hold + silence(0.06)
    return out


def denied():
    """A low double buzz, plainly not the klaxon: ~0.4 s."""
    a, _ = sweep(150, 150, 0.12, horn, level=0.7)
    b, _ = sweep(110, 105, 0.22, horn, level=0.7)
    return a + silence(0.05) + b


def blip():
    """A short, quiet confirmation tick: 40 ms at 1.8 kHz."""
    s, _ = sweep(1800, 1800, 0.04, sine, level=0.35, attack_ms=3, release_ms=20)
    return s


SOUNDS = {"klaxon": klaxon, "denied": denied, "blip": blip}


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
