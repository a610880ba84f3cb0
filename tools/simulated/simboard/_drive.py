"""What the stand-in audio outputs were driven with, rendered (host-only: CPython + numpy).

Each stand-in output (``_audioout.AudioOut``: the DAC or PWM audio out; ``_mixer``'s
voice; ``pwmio.PWMOut``: the piezo's pin) keeps, while ``_audioout.record`` is set, a
``drive`` list of what it was told and when; its ``waveform(t0_us, t1_us, rate)`` comes
here. Every drive is a level held between instants (a DAC's sample, a PWM pin's 0/1, a
WAV sample at its rate), so it is rendered exactly as a held level: each output sample is
the level's mean over its 1/rate span (a box filter: edges between two output samples land
as a value between, never jittered to the nearer one). Units: full swing, as the part sees
it (a DAC's or a WAV's full scale is +-1 about its middle; a pin 0 or 1).

The sample rates are the board's as the firmware set them: a ``RawSample``'s rate is taken
at each ``play()`` (the SAMD21's DAC timer is set there: a ``sample_rate`` set during a
play is heard from the next play), a ``WaveFile``'s from its header.
"""

import os
import struct

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
_PCM = {}  # a WAV file's samples (floats, full scale 1), by path, size and time written


def held(t0_us, t1_us, rate, edges_s, values):
    """A level ``values[k]`` from ``edges_s[k]`` (seconds since power-on, increasing) to the
    next edge (the last to the end; 0 before the first), as ``rate`` samples a second from
    ``t0_us`` to ``t1_us``, each the mean over its span (numpy array)."""
    n = max(0, int((t1_us - t0_us) * rate // 1_000_000))
    if not n:
        return np.zeros(0)
    t0 = t0_us / 1e6
    grid = t0 + np.arange(n + 1) / rate
    edges = np.asarray(edges_s, dtype=float)
    values = np.asarray(values, dtype=float)
    if not len(edges):
        return np.zeros(n)
    # the integral of the held level, exact at every edge, linear between: interpolated at
    # the grid, then differenced
    ends = np.append(edges[1:], max(edges[-1], grid[-1]) + 1.0)
    cum = np.concatenate(([0.0], np.cumsum(values * (ends - edges))))
    knots = np.append(edges, ends[-1])
    area = np.interp(grid, knots, cum, left=0.0, right=cum[-1])
    return np.diff(area) * rate


def pcm(sample):
    """A ``WaveFile``'s samples as floats (full scale 1) and its rate, read by its path
    (the firmware's, from the drive's folder: the repo's root)."""
    name = sample.name
    path = name if os.path.isabs(name) or os.path.exists(name) else os.path.join(ROOT, name)
    st = os.stat(path)
    key = (path, st.st_size, st.st_mtime_ns)  # (a file remade in this run: read again)
    if key not in _PCM:
        with open(path, "rb") as f:
            data = f.read()
        bits = data[34] | data[35] << 8
        channels = data[22] | data[23] << 8
        rate = data[24] | data[25] << 8 | data[26] << 16
        i = 12
        while data[i:i + 4] != b"data":  # (the stand-in reads a 44-byte header; be kind)
            i += 8 + struct.unpack("<I", data[i + 4:i + 8])[0]
        size = struct.unpack("<I", data[i + 4:i + 8])[0]
        raw = data[i + 8:i + 8 + size]
        if bits == 16:
            x = np.frombuffer(raw, dtype="<i2").astype(float) / 32768
        else:
            x = (np.frombuffer(raw, dtype=np.uint8).astype(float) - 128) / 128
        _PCM[key] = (x.reshape(-1, channels).mean(axis=1), rate)
    return _PCM[key]


def raw_values(sample, snapshot):
    """A ``RawSample``'s buffer as it was at a play, as floats about its middle (full scale 1)."""
    code, values = snapshot
    x = np.asarray(values, dtype=float)
    if code in "HIL":  # unsigned 16-bit (an "L" is the stand-in's: 16 bits, as the DAC's)
        return (x - 32768) / 32768
    if code == "B":
        return (x - 128) / 128
    if code == "b":
        return x / 128
    return x / 32768


def plays(drive, t1_us):
    """A drive list's plays as (start_us, end_us, entry): each until the next entry or
    its own end (``entry`` (t_us, "play", ..., duration_us or -1 looped))."""
    out = []
    for i, e in enumerate(drive):
        if e[1] != "play":
            continue
        end = drive[i + 1][0] if i + 1 < len(drive) else t1_us
        if e[-1] >= 0:
            end = min(end, e[0] + e[-1])
        out.append((e[0], end, e))
    return out


def _sampled(from_us, end_us, values, rate, loop, start_us):
    """(edges in seconds, levels) of ``values`` played from ``start_us`` at ``rate``
    (looped or once), from about ``from_us`` (a whole number of samples after the start)
    until ``end_us``, then the middle (0)."""
    n = len(values)
    k0 = int((from_us - start_us) * rate // 1_000_000)
    count = int((end_us - start_us) * rate // 1_000_000) + 1
    if not loop:
        count = min(count, n)
    k = np.arange(k0, count)
    edges = start_us / 1e6 + k / rate
    levels = values[k % n]
    stop = min(end_us, start_us + count * 1e6 / rate)
    keep = edges < stop / 1e6
    return np.append(edges[keep], stop / 1e6), np.append(levels[keep], 0.0)


def audio_out(out, t0_us, t1_us, rate):
    """An ``AudioOut``'s level over time: its RawSample looped at the rate set at each play,
    a WaveFile's samples, or a mixer's voices summed (clipped to full scale, as the mixer)."""
    total = np.zeros(max(0, int((t1_us - t0_us) * rate // 1_000_000)))
    edges, levels = [], []  # the plays of samples, one after another (each ends the last)
    for start, end, e in plays(getattr(out, "drive", ()), t1_us):
        _, _, sample, snapshot, sample_rate, loop, _ = e
        if end <= t0_us or start >= t1_us:
            continue
        if hasattr(sample, "voice"):  # a mixer: its voices, each at its level
            mix = np.zeros_like(total)
            for v in sample.voice:
                mix += np.asarray(voice(v, t0_us, t1_us, rate))[:len(total)]
            lo = int(max(0, start - t0_us) * rate // 1_000_000)
            hi = int(min(t1_us, end) - t0_us) * rate // 1_000_000
            total[lo:hi] += np.clip(mix[lo:hi], -1, 1)
            continue
        if snapshot is not None:
            values = raw_values(sample, snapshot)
        else:
            values, sample_rate = pcm(sample)
        e, lv = _sampled(max(start, t0_us - 1e6 * len(values) / sample_rate if loop else start),
                         min(end, t1_us), values, sample_rate, loop, start)
        edges.append(e)
        levels.append(lv)
    if edges:
        total += held(t0_us, t1_us, rate, np.concatenate(edges), np.concatenate(levels))
    return total


def voice(v, t0_us, t1_us, rate):
    """A mixer voice's WAV samples times its level at each play, until stopped or over."""
    total = np.zeros(max(0, int((t1_us - t0_us) * rate // 1_000_000)))
    edges, levels = [], []
    for start, end, e in plays(getattr(v, "drive", ()), t1_us):
        _, _, sample, level, _ = e
        if end <= t0_us or start >= t1_us:
            continue
        values, sample_rate = pcm(sample)
        e, lv = _sampled(start, end, values * level, sample_rate, False, start)
        edges.append(e)
        levels.append(lv)
    if edges:
        total += held(t0_us, t1_us, rate, np.concatenate(edges), np.concatenate(levels))
    return total


def pwm(out, t0_us, t1_us, rate):
    """A ``PWMOut`` pin's level (0 or 1): a square at the frequency and duty cycle set at
    each change, its phase running on through a change of frequency (the counter runs on)."""
    drive = getattr(out, "drive", ())
    edges, levels = [], []
    phase = 0.0
    for i, (t, f, duty) in enumerate(drive):
        end = drive[i + 1][0] if i + 1 < len(drive) else max(t1_us, t)
        if end <= t:
            continue
        d = duty / 65536
        if end <= t0_us or t >= t1_us:  # outside the span: only its phase matters
            phase += f * (end - t) / 1e6
            if t >= t1_us:
                break
            continue
        if d <= 0 or d >= 1:
            edges.append(np.array([t / 1e6]))
            levels.append(np.array([1.0 if d >= 1 else 0.0]))
        else:
            # the pin rises at each whole phase and falls at each whole + d, while
            # phase = phase0 + f (t - t_start)
            span = (end - t) / 1e6
            k0 = np.floor(phase)
            ks = np.arange(k0, np.ceil(phase + f * span) + 1)
            rise = (ks - phase) / f
            fall = (ks + d - phase) / f
            e = np.stack([rise, fall], axis=1).ravel()
            lv = np.tile([1.0, 0.0], len(ks))
            keep = (e > 0) & (e < span)
            lead = 1.0 if (phase - k0) < d else 0.0
            edges.append(np.concatenate(([t / 1e6], t / 1e6 + e[keep])))
            levels.append(np.concatenate(([lead], lv[keep])))
            phase += f * span
    if not edges:
        return np.zeros(max(0, int((t1_us - t0_us) * rate // 1_000_000)))
    return held(t0_us, t1_us, rate, np.concatenate(edges), np.concatenate(levels))


def busy_until(obj, now_us):
    """When ``obj`` (an output, a voice) last stopped sounding: ``now_us`` while it still
    sounds (a looped play, a pin still toggling), 0 if it never sounded. Duck-typed: an
    output without a ``drive`` list sounds until ``now_us``."""
    drive = getattr(obj, "drive", None)
    changes = getattr(obj, "changes", None)  # (rp2pio's: (t_us, its side-set pins' levels))
    if drive is None and changes:
        return min(now_us, changes[-1][0]) if not changes[-1][1] else now_us
    if drive is None:
        return now_us if hasattr(obj, "waveform") else 0
    last = 0
    for start, end, e in plays(drive, now_us):
        sample = e[2]
        if hasattr(sample, "voice"):  # a mixer: its voices
            end = min(end, max([busy_until(v, now_us) for v in sample.voice] + [start]))
        last = max(last, end)
    if drive and len(drive[0]) == 3:  # a PWM pin: (t, frequency, duty)
        last = drive[-1][0] if not drive[-1][2] else now_us
    return min(last, now_us)
