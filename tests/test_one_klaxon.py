"""One klaxon: the tone sweeps the piezo and the Express's DAC play (hardware/outputs.py
``TONES``) are made from the same segments as the WAV files (tools/gen/synth.py), and what
those builds play follows the WAV's pitch within the stated tolerances (synth.py's
docstring): each end to the nearest 10 Hz, each length to the nearest 10 ms, the WAV's
``t ** 0.7`` glide played as a linear sweep re-pitched every 20 ms."""

import os
import subprocess
import sys

import pytest

import hardware.device as D
import scenario
import synth
from harness import ROOT, Sim
from hardware import outputs

GLIDE = max(x ** 0.7 - x for x in (i / 1000 for i in range(1001)))  # 0.131 of the span
STEP_S = 0.020  # the device re-pitches a sweep at most every 20 ms (hardware/device.py step())


def test_the_firmwares_tone_sweeps_are_the_synths():
    assert outputs.TONES == synth.tones()
    assert len(outputs.TONES) == len(synth.NAMES) == 5


def test_the_wav_files_are_what_the_synth_makes_of_the_same_segments():
    r = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "gen", "synth.py"), "--check"],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "sounds match" in r.stdout
    for name in synth.NAMES:  # the WAV is as long as its segments, as the tones are
        seconds = sum(seg[2] for seg in synth.SEGMENTS[name])
        n = len(synth.render()[name]) - 44
        assert n == sum(int(seg[2] * synth.RATE) for seg in synth.SEGMENTS[name]) * 2
        tones = synth.tones()[synth.NAMES.index(name)]
        assert abs(sum(tones[2::3]) * 10 - seconds * 1000) <= 5 * len(synth.SEGMENTS[name])


def test_the_tones_are_the_segments_rounded():
    for name, b in zip(synth.NAMES, synth.tones()):
        segs = synth.SEGMENTS[name]
        assert len(b) == 3 * len(segs)
        for i, seg in enumerate(segs):
            f0, f1, ms = b[3 * i] * 10, b[3 * i + 1] * 10, b[3 * i + 2] * 10
            assert abs(f0 - seg[0]) <= 5 and abs(f1 - seg[1]) <= 5, (name, i)
            assert abs(ms - seg[2] * 1000) <= 5, (name, i)
            assert (f0 == 0) == (seg[0] == 0)  # a rest stays a rest, a tone a tone


def test_a_changed_segment_changes_both_forms(monkeypatch):
    """The walk-through "change the klaxon sound": one table edited, both forms follow."""
    segs = list(synth.SEGMENTS["klaxon"])
    segs[0] = (200, 450) + segs[0][2:]
    monkeypatch.setitem(synth.SEGMENTS, "klaxon", tuple(segs))
    assert synth.tones()[0][:3] == bytes((20, 45, round(segs[0][2] * 100)))  # (its length: 10 ms)
    assert synth.tones()[0] != outputs.TONES[0]  # the test above would then fail
    assert synth.render()["klaxon"] != open(os.path.join(ROOT, "sounds", "klaxon.wav"),
                                            "rb").read()


def _heard(board, name):
    """[(ms since the sound started, Hz now (0: silent))] of sound ``name`` on ``board``'s
    tone output (the piezo's PIO program's pitch, or the DAC wave's rate / its samples a
    period), every ms until
    it ends; and the ms it lasted (until the device called it over)."""
    t = 90
    if name == "klaxon":
        sim = Sim(board_name=board, klaxon_only=True)
        sim.press("klaxon", 100, 100)
    else:  # a referee: the QM asks (a blip), then the seat on the QM's left slams the
        sim = Sim(board_name=board, players=3)  # Klaxon (nobody to challenge: refused),
        sim.tap("b", 100)  # or holds B to undo the question (taken back), or the question
        if name != "blip":  # is undone and the QM rolls (a position changed)
            t = 500
            if name == "denied":
                sim.press("klaxon", 500, 100)
            else:
                hold = scenario.HOLDS["held"]
                sim.press("b", 500, hold)
                t = 500 + hold
                if name == "done":
                    t += 500
                    sim.tap("a", t)
            sim.run_until_ms(t - 10)
            sim._sounds.clear()
    d = sim.device
    out = d.p[D._OUT]
    wave = d.p[D._SND][D._SOUND_WAVE]
    while not sim.sounds():
        t += 1
        sim.run_until_ms(t)
    t0 = sim.sounds()[0][0]
    assert sim.sounds()[0][1] == name
    got = []
    while d.f[D._CUR] != 255:
        if wave is None:  # a piezo
            hz = out.tone()[0]
        else:  # the DAC: a looped wave, its voice's samples a period
            hz = wave.sample_rate // len(synth.SPEAKER) if out.playing else 0
        got.append((t - t0, hz))
        t += 1
        sim.run_until_ms(t)
        assert t - t0 < 5000
    return got, t - t0


@pytest.mark.parametrize("board", ["pico", "cpx"])
@pytest.mark.parametrize("name", synth.NAMES)
def test_the_tone_builds_play_the_wavs_pitch_within_the_tolerances(board, name):
    got, lasted = _heard(board, name)
    segs = synth.SEGMENTS[name]
    # the sound lasts as long as the WAV, within 5 ms a segment, the 20 ms step (the
    # device sees the last segment end at its next re-pitch) and one pass
    wav_ms = sum(seg[2] for seg in segs) * 1000
    assert -5 * len(segs) - 1 <= lasted - wav_ms <= 5 * len(segs) + 1000 * STEP_S + 1, (
        lasted, wav_ms)
    checked = 0
    for ms, hz in got:
        t = ms / 1000
        start = 0.0
        for k, seg in enumerate(segs):  # the WAV's segment at t
            if t < start + seg[2]:
                break
            start += seg[2]
        else:
            continue
        slack = 0.005 * (k + 1) + 0.002  # the lengths' rounding so far, and the passes
        # near a boundary (the device moves on to a segment at its next re-pitch)
        if t - start < slack + (STEP_S if k else 0) or start + seg[2] - t < slack:
            continue
        want = synth.pitch(name, t)
        if not seg[0]:
            assert hz == 0, (ms, hz)  # a rest is silent
        else:
            span = abs(seg[1] - seg[0])
            slope = span / seg[2]
            tol = 5 + GLIDE * span + slope * (STEP_S + slack) + 1
            assert abs(hz - want) <= tol, (ms, hz, want, tol)
        checked += 1
    assert checked > len(got) // 2  # most of the sound was held to the WAV


def test_every_copy_of_the_sounds_names_is_the_synths():
    """The sounds by number: tools/gen/synth.py's NAMES is the source; the deploy's WAV list,
    the harness, the page's two sides and the firmware's tone table follow it."""
    import re

    import deploy
    import harness

    assert deploy.SOUNDS == harness._NAMES == synth.NAMES
    assert len(outputs.TONES) == len(synth.NAMES) == D._SOUND_WAVE
    with open(os.path.join(ROOT, "web", "page.py")) as f:
        page = re.search(r"^SOUNDS = \((.*?)\)", f.read(), re.M | re.S).group(1)
    assert tuple(page.replace('"', "").split(", ")) == synth.NAMES
    with open(os.path.join(ROOT, "web", "app.js")) as f:
        js = re.search(r"^const SOUNDS = (\[.*?\]);", f.read(), re.M).group(1)
    assert tuple(js[1:-1].replace('"', "").split(", ")) == synth.NAMES


def test_the_voices_are_one_period_of_full_swing_and_the_wavs_play_a_speaker_s():
    """tools/gen/synth.py's voices, which the firmware plays (tests/test_start_express_wave.py
    holds the Express's wave to SPEAKER): a period of +1/-1 units, no silent one, the
    klaxon and the buzz in the RASP voice, the chimes not."""
    for pattern in (synth.PIEZO, synth.SPEAKER):
        assert len(pattern) == 22 and set(pattern) == {1, -1} and sum(pattern) == 0
    assert synth.RASP is synth.SPEAKER  # the WAVs play through a speaker
    assert [n for n in synth.NAMES if synth.SEGMENTS[n][0][3] is synth.rasp] == ["klaxon", "denied"]
