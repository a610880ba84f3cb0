"""The klaxon as each build drives its part (issue 32): the simulated outputs' renderings
(tools/simulated/simboard/_drive.py, tools/simulated/sim.py --wav) are what the firmware drives, and the
loudness model (tools/quality/loudness.py) reads known sounds as a meter would."""

import os
import struct
import wave

import numpy as np
import pytest

import _drive
import loudness as L
import sim as S
from harness import klaxon_ms

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RATE = L.RATE


def square(f, seconds=1.0, low=0.0, high=1.0):
    """A square at ``f`` Hz rendered as the stand-ins render a pin (held levels)."""
    k = np.arange(int(seconds * f * 2) + 1)
    return _drive.held(0, int(seconds * 1e6), RATE, k / (2 * f), np.where(k % 2, low, high))


def pitch(x, t_ms, ms=12, search=24):
    """The pitch (Hz) of ``x`` from ``t_ms``: in the ``ms`` window starting within ``search``
    ms of it that repeats best (a window inside one of the firmware's 20 ms pitch steps:
    a rasp's 11x carrier blurs across a step), the shortest lag (150 to 700 Hz) at which it
    repeats (normalised autocorrelation within 20 % of that window's best), refined by a
    parabola through its peak."""
    lags = np.arange(RATE // 700, RATE // 150)
    best = None
    for start in range(t_ms, t_ms + search, 2):
        seg = np.asarray(x[int(start * RATE / 1000):int((start + ms) * RATE / 1000)
                           + lags[-1]], dtype=float)
        seg = seg - seg.mean()
        n = int(ms * RATE / 1000)
        a = seg[:n]
        shifted = np.lib.stride_tricks.sliding_window_view(seg, n)[lags]
        r = shifted @ a / np.maximum(1e-12, np.sqrt(np.dot(a, a) * np.einsum(
            "ij,ij->i", shifted, shifted)))
        if best is None or r.max() > best.max():
            best = r
    r = best
    i = np.flatnonzero(r >= 0.8 * r.max())[0]
    while i + 1 < len(r) and r[i + 1] >= r[i]:  # up to that peak's top
        i += 1
    i = min(max(i, 1), len(r) - 2)
    a, b, c = r[i - 1], r[i], r[i + 1]
    shift = 0.5 * (a - c) / (a - 2 * b + c) if a - 2 * b + c < 0 else 0.0
    shift = max(-1.0, min(1.0, shift))
    return RATE / (lags[i] + shift)


# ------------------------------------------------------------------ the model itself
@pytest.mark.parametrize("f,db", [(100, -19.1), (1000, 0.0), (10000, -2.5)])
def test_a_weighting_has_iec_61672s_values(f, db):
    assert 20 * np.log10(L.a_weighting(f)) == pytest.approx(db, abs=0.06)


@pytest.mark.parametrize("part,swing", [(L.PIEZO, 1.0), (L.PIEZO, 2.0), (L.SPEAKER20, 2.0),
                                        (L.AMP40, 2.0)])
def test_a_square_at_the_parts_best_frequency_reads_0_db(part, swing):
    f, _ = L.best_square(part, swing)
    x = square(f, low=1 - swing)
    assert L.relative_db(x, part, swing) == pytest.approx(0.0, abs=0.2)
    # ... and a square far below the part's band, or at half the swing, reads less
    assert L.relative_db(square(150, low=1 - swing), part, swing) < -6
    assert L.relative_db(square(f, low=1 - swing) * 0.5, part, swing) == pytest.approx(-6.0,
                                                                                      abs=0.2)


def test_a_tone_an_octave_below_the_piezos_3_khz_corner_reads_about_12_db_less():
    t = np.arange(RATE) / RATE
    best = max(L.heard_gain(L.PIEZO, f) for f in range(3000, 6001, 50))
    f_best = [f for f in range(3000, 6001, 50) if L.heard_gain(L.PIEZO, f) == best][0]
    below = L.level_db(np.sin(2 * np.pi * 1500 * t), L.PIEZO)
    at = L.level_db(np.sin(2 * np.pi * f_best * t), L.PIEZO)
    assert below - at == pytest.approx(-12, abs=1.0)
    # the part alone: exactly the 12 dB an octave its datasheet's curve falls
    assert 20 * np.log10(L.part_gain(L.PIEZO, 1500) / L.part_gain(L.PIEZO, 3000)) == \
        pytest.approx(-12.04, abs=0.01)


def test_the_meter_reads_a_short_blip_lower_than_a_held_tone():
    """The fast (125 ms) time weighting: a 20 ms burst reads well below the same tone held."""
    f, _ = L.best_square(L.SPEAKER20, 2.0)
    held = square(f, 1.0, low=-1)
    blip = held.copy()
    blip[int(0.02 * RATE):] = 0
    assert L.level_db(blip, L.SPEAKER20) < L.level_db(held, L.SPEAKER20) - 6


# ------------------------------------------------ each build's rendering is its drive
def tone_pitch(tones, t_ms):
    """The pitch hardware/device.py's step() sets ``t_ms`` into a tone sweep (0: a rest),
    as TONES says: segments of (start, end) tens of Hz and tens of ms, glides linear."""
    for i in range(0, len(tones), 3):
        s0, s1, n = tones[i:i + 3]
        if t_ms < 10 * n:
            return 10 * s0 + 10 * (s1 - s0) * t_ms // (10 * n) if s0 else 0
        t_ms -= 10 * n
    return 0


@pytest.mark.parametrize("key", ["cpx", "pico-one-pin", "pico-push-pull"])
def test_a_tone_builds_rendering_follows_tones_steps(key):
    """The Express's DAC and the Pico's piezo: the rendering's pitch, every 20 ms through
    the klaxon, is hardware/outputs.py's TONES pitch (its klaxon's segments) there, as the
    firmware steps it: re-pitched at most every 20 ms, on a pass that follows the sound
    (every 8th), so set up to 28 ms before (the pitch measured in the 36 ms after)."""
    from hardware.outputs import TONES

    x = L.after(key)
    if x is None:
        pytest.skip("%s: this firmware has no such wiring yet" % key)
    checked = 0
    for t in range(0, klaxon_ms(), 20):
        span = [tone_pitch(TONES[0], t + d) for d in range(-28, 37) if t + d >= 0]
        if not span or not min(span):
            continue  # a rest, or its edge
        got = pitch(x, t)
        assert 0.98 * min(span) <= got <= 1.02 * max(span), (key, t, got, min(span), max(span))
        checked += 1
    assert checked > 40


@pytest.mark.parametrize("board", ["cpb", "simulated"])
def test_a_wav_builds_rendering_is_its_klaxon_wav_at_the_voices_level(board):
    x, kinds = L.klaxon(board, volume=7)
    with wave.open(os.path.join(ROOT, "sounds", "klaxon.wav")) as w:
        assert w.getframerate() * 3 == RATE
        pcm = np.array(struct.unpack("<%dh" % w.getnframes(), w.readframes(w.getnframes())))
    want = np.repeat(pcm / 32768 * 0.7, 3)  # each 16 kHz sample held for 3 of 48 kHz
    assert len(x) == len(want)
    assert np.max(np.abs(x - want)) < 1e-9


def wav_of(board, tmp_path, capsys):
    """sim --wav's file for one press on ``board``: (samples, the klaxon's start in ms)."""
    import json

    script = tmp_path / "one.txt"
    script.write_text("100 down klaxon\n220 up klaxon\n")
    out = tmp_path / ("%s.wav" % board)
    capsys.readouterr()
    assert S.main(["--board", board, "--klaxon-only", "--script", str(script), "--wav",
                   str(out)]) == 0
    sounds = [e["t_ms"] for e in map(json.loads, capsys.readouterr().out.splitlines())
              if e["event"] == "sound"]
    with wave.open(str(out)) as w:
        assert (w.getframerate(), w.getsampwidth(), w.getnchannels()) == (S.WAV_RATE, 2, 1)
        x = np.frombuffer(w.readframes(w.getnframes()), dtype="<i2").astype(float) / 32767
    return x, sounds[0]


def test_sim_wav_is_what_each_build_drives_not_one_file_for_all(tmp_path, capsys):
    got = {b: wav_of(b, tmp_path, capsys) for b in ("cpb", "cpx", "pico")}
    for a, b in (("cpb", "cpx"), ("cpb", "pico"), ("cpx", "pico")):
        n = min(len(got[a][0]), len(got[b][0]))
        assert np.max(np.abs(got[a][0][:n] - got[b][0][:n])) > 0.3, (a, b)
    # each is silent until the klaxon sounds, within 10 ms of the press at 100 ms, and
    # sounds from there
    for b, (x, t_ms) in got.items():
        assert 100 <= t_ms <= 110
        at = t_ms * S.WAV_RATE // 1000
        assert not np.any(x[:at]), b
        assert np.max(np.abs(x[at:at + S.WAV_RATE // 10])) > 0.5, b
    # the Bluefruit's is its klaxon.wav at the default volume (8 of 10), 16 kHz held at 48
    with wave.open(os.path.join(ROOT, "sounds", "klaxon.wav")) as w:
        pcm = np.frombuffer(w.readframes(w.getnframes()), dtype="<i2") / 32768
    x, t_ms = got["cpb"]
    want = np.repeat(pcm * 0.8, 3)
    at = t_ms * S.WAV_RATE // 1000
    assert np.max(np.abs(x[at:at + len(want)] - want)) < 1.5 / 32767


# ---------------------------------------------------- the klaxon stays a klaxon
# What the klaxon is (tools/gen/synth.py's SEGMENTS: two rising "ah-OO-gah" blasts; the table
# card calls it "the klaxon", a horn): as long as its segments (the docs' length is held
# to them by tests/test_docs.py), two blasts, each a low pitch rising.
@pytest.mark.parametrize("key", [b[0] for b in L.BUILDS])
def test_the_klaxon_stays_two_low_rising_blasts_as_long_as_its_segments_on_every_build(key):
    x = L.after(key)
    if x is None:
        pytest.skip("%s: this firmware has no such wiring yet" % key)
    loud = np.abs(x - np.median(x)) > 0.02
    ms = loud[:len(loud) // 48 * 48].reshape(-1, 48).any(axis=1)  # sounding, each ms
    on = np.flatnonzero(ms)
    # (as long as its segments to the end of its last blast (its closing rest is silence),
    # to the tone builds' 20 ms step and a release's tail)
    import synth

    segs = synth.SEGMENTS["klaxon"]
    sounding = klaxon_ms() - round(1000 * (segs[-1][2] if not segs[-1][0] else 0))
    assert abs((on[-1] - on[0] + 1) - sounding) <= 40, (key, on[-1] - on[0] + 1, sounding)
    gaps = [(a, b) for a, b in zip(on[:-1], on[1:]) if b - a > 30]
    assert len(gaps) == 1, (key, gaps)  # two blasts, a rest between them
    for start in (on[0], gaps[0][1]):
        early, late = pitch(x, start + 2, search=12), pitch(x, start + 330)
        assert late > 1.5 * early, (key, early, late)  # it rises, by more than a fifth
        assert 150 <= early and late <= 500, (key, early, late)  # low: a horn, not a beep


def test_listen_writes_each_builds_klaxon_before_and_after_as_heard_through_its_part(tmp_path):
    try:
        made = L.listen(str(tmp_path))
    except RuntimeError as e:  # (a clone without the history: git archive 6aa2bcb fails)
        pytest.skip("no history to run the before from: %s" % e)
    names = sorted(os.path.basename(p) for p in made)
    built = [b[0] for b in L.BUILDS if L.after(b[0]) is not None]
    assert ["klaxon-%s-after.wav" % k for k in sorted(built)] == [
        n for n in names if n.endswith("-after.wav")]
    assert {"klaxon-%s-before.wav" % k for k in ("cpb", "cpx", "pico-one-pin", "pico-amp")} <= \
        set(names)
    for p in made:
        with wave.open(p) as w:
            assert (w.getframerate(), w.getsampwidth(), w.getnchannels()) == (RATE, 2, 1)
            seconds = w.getnframes() / RATE
            x = np.frombuffer(w.readframes(w.getnframes()), dtype="<i2") / 32767
        # (after: as long as the segments; before: 6aa2bcb's klaxon, 1.28 s)
        want = klaxon_ms() / 1000 if p.endswith("-after.wav") else 1.28
        assert abs(seconds - want) <= 0.15 and 0.05 < np.max(np.abs(x)) <= 1, (p, seconds)


def test_the_loudness_tool_says_what_is_wrong_with_a_bad_argument(capsys):
    assert L.main(["--loud"]) == 2
    assert L.main(["--render", "no-such-build", "x"]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and "loudness: unknown argument '--loud'" in err


@pytest.mark.parametrize("volume", [1, 3, 7])
def test_sim_wav_of_the_pico_at_any_volume_is_written_quieter_than_at_10(volume, tmp_path, capsys):
    """The breaker's find: at most volumes the piezo's last edge falls between whole
    microseconds, and --wav stopped with a TypeError after the events, a bare header left.
    Each volume writes its WAV, its peak drive no more than volume 10's."""
    settings = tmp_path / "s.toml"
    script = tmp_path / "one.txt"
    script.write_text("100 down klaxon\n220 up klaxon\n")
    peaks = {}
    for v in (volume, 10):
        settings.write_text("QK_VOLUME = %d\n" % v)
        out = tmp_path / ("v%d.wav" % v)
        assert S.main(["--board", "pico", "--klaxon-only", "--script", str(script),
                       "--settings", str(settings), "--wav", str(out)]) == 0
        with wave.open(str(out)) as w:
            x = np.frombuffer(w.readframes(w.getnframes()), dtype="<i2").astype(float) / 32767
        assert len(x) > 1.2 * S.WAV_RATE, (v, len(x))  # the klaxon, not a bare header
        peaks[v] = float(np.sqrt(np.mean(x * x)))
    assert 0 < peaks[volume] < peaks[10]
