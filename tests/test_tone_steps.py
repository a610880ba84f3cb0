"""The tone builds' sounds, exactly, at the speaker's pin: the piezo (the Pico's PWM) and
the Express's DAC (a looped 16-sample wave at 16 x the pitch). hardware/device.py plays
a sound's segments (hardware/outputs.py ``TONES``: start and end pitch in tens of Hz,
length in tens of ms) as straight-line sweeps, a rest silent. It re-pitches on the
first pass at least 20 ms after the last that samples no button (every 8th pass), and
a segment's pitch is reckoned from the segment's own start, so the sweep keeps to the
sound's time line. With a pass every 2.5 ms the re-pitches fall every 20 ms exactly,
and so on every end of the klaxon's segments (all multiples of 20 ms): what the
speaker plays is then fixed to the millisecond, and any slip in the stepping is heard
(a blast 20 ms long or short, a sweep that overshoots, a rest that ends the sound, the
DAC wave restarted on a held note: a click)."""

import pytest

import _audioout
import simclock
import synth
import hardware.device as D
from harness import Sim, klaxon_ms
from hardware import outputs

STEP_MS = 20


def segments(name):
    """[(start ms, length ms, start Hz, end Hz)] of sound ``name``, from the tone table."""
    b = outputs.TONES[synth.NAMES.index(name)]
    out, at = [], 0
    for i in range(0, len(b), 3):
        out.append((at, 10 * b[i + 2], 10 * b[i], 10 * b[i + 1]))
        at += 10 * b[i + 2]
    return out


def wanted(name, ms):
    """The pitch the speaker holds ``ms`` after the sound started (0: silent): the pitch of
    the sweep at the last re-pitch, a straight line from its start to its end pitch."""
    at = ms - ms % STEP_MS
    for start, length, f0, f1 in segments(name):
        if at < start + length:
            return f0 + (f1 - f0) * (at - start) // length if f0 else 0
    return 0


def heard(board, name, pass_us=1000):
    """[(ms since the sound started, Hz)] after each pass while sound ``name`` plays on
    ``board``, each pitch as the pin has it (the piezo's: its PIO program's, from the state
    machine's clock and registers, the klaxon and buzz in the RASP voice, the rest SQUARE; the
    DAC wave's rate / 16 while it plays); the sound's length; the DAC's plays of its wave."""
    if name == "klaxon":
        sim = Sim(board_name=board, klaxon_only=True, pass_us=pass_us)
        sim.press("klaxon", 100, 100)
    else:  # the QM asks, then holds B: the question taken back (undone), then rolls (done)
        sim = Sim(board_name=board, players=3, pass_us=pass_us)
        sim.tap("b", 100)
        sim.press("b", 500, 2100)
        if name == "done":
            sim.tap("a", 3600)
    d = sim.device
    out, wave = d.p[D._OUT], d.p[D._SND][D._SOUND_WAVE]
    i = synth.NAMES.index(name)
    got, plays, poll = [], [], d.poll

    def watched():
        poll()
        now = simclock.now_us() / 1000
        if d.f[D._CUR] == i and not got:
            plays.append(len(_audioout.plays) - 1)  # (the first play is the sound's start)
        if got and got[-1][1] is None:
            return
        if d.f[D._CUR] != i:
            if got:
                got.append((now - got[0][0], None))  # over
            return
        if wave is None:
            # rp2pio's frequency is a whole number of Hz (its setter takes an int)
            assert type(out.frequency) is int and out.frequency > 0, out.frequency
            hz, voice = out.tone()
            assert voice in (None, "rasp" if i < 2 else "square"), (name, voice)
            assert hz == int(hz), hz
            hz = int(hz)
        else:
            assert type(wave.sample_rate) is int, wave.sample_rate
            hz = wave.sample_rate // len(synth.SPEAKER) if out.playing else 0
        got.append((now - got[0][0] if got else now, hz))

    d.poll = watched
    sim.run_until_ms(6000)
    assert got and got[-1][1] is None, got[-3:]
    got[0] = (0, got[0][1])
    return got[:-1], got[-1][0], _audioout.plays[plays[0]:] if wave is not None else None


@pytest.mark.parametrize("board", ["pico", "cpx"])
def test_the_klaxon_plays_each_segment_to_the_millisecond(board):
    """Passes every 2.5 ms: the device re-pitches on every 8th (the rest sample the
    buttons), every 20 ms exactly, and each of the klaxon's segment ends falls on one."""
    seg = segments("klaxon")  # (the tone table's: start, length, start Hz, end Hz)
    off = [length for _, length, _, _ in seg if length % STEP_MS]
    assert not off, "the klaxon's segments of %s ms are not whole steps of %d ms: the tone " \
        "builds re-pitch every %d ms, so keep each segment a multiple of it" % (
            off, STEP_MS, STEP_MS)
    got, lasted, _ = heard(board, "klaxon", pass_us=2500)
    ms = seg[-1][0] + seg[-1][1]
    assert lasted == ms, "the klaxon sounded %g ms, its segments (TONES) last %d ms" % (
        lasted, ms)  # two blasts and their rests: not a step more or less
    for at, hz in got:
        assert hz == wanted("klaxon", round(at)), "%g ms into the klaxon the pin played %d Hz, " \
            "its segments say %d Hz" % (at, hz, wanted("klaxon", round(at)))
    rest = [at for at, hz in got if not hz and at < seg[3][0]]  # the rest after blast 1
    assert rest[0] == seg[2][0], "the rest began at %g ms, its segment at %d ms" % (
        rest[0], seg[2][0])
    assert rest[-1] < seg[3][0] and dict(got)[rest[-1] + 2.5], (
        "blast 2 did not begin when its segment does, %d ms in" % seg[3][0])


@pytest.mark.parametrize("board", ["pico", "cpx"])
def test_a_sweep_is_re_pitched_every_20_ms_and_no_sooner(board):
    """Passes every 1 ms: a re-pitch comes on the first pass free of button sampling (every
    8th) at least 20 ms after the last, 24 ms here; the klaxon's rising sweep changes its
    pitch at each."""
    got, _, _ = heard(board, "klaxon")
    rise = segments("klaxon")[0][1]  # the first segment: the rising sweep, ms
    changes = [ms for (ms, hz), (_, before) in zip(got[1:], got) if hz != before and ms < rise]
    assert len(changes) == (rise - 1) // 24, "%d re-pitches in the klaxon's %d ms rise; every " \
        "24 ms makes %d" % (len(changes), rise, (rise - 1) // 24)
    assert {b - a for a, b in zip([0] + changes, changes)} == {24}, changes


def test_the_dacs_wave_starts_once_a_note_a_held_note_is_not_restarted():
    """The Express's "done": two held notes with a rest between. Its DAC starts the
    looped wave once a note; starting it again at each 20 ms re-pitch would click."""
    got, _, plays = heard("cpx", "done")
    assert [hz for i, (_, hz) in enumerate(got) if not i or hz != got[i - 1][1]] == [880, 0, 1320]
    assert len(plays) == 2


@pytest.mark.parametrize("board", ["pico", "cpx"])
def test_the_speaker_is_silent_and_off_once_the_sound_is_over(board):
    sim = Sim(board_name=board, klaxon_only=True)
    sim.press("klaxon", 100, 100)
    sim.run_until_ms(100 + klaxon_ms() + 120)  # the klaxon over
    d = sim.device
    out = d.p[D._OUT]
    if d.p[D._SND][D._SOUND_WAVE] is None:
        assert out.tone() == (0, None) and set(out.waveform(
            (100 + klaxon_ms() + 20) * 1000, (100 + klaxon_ms() + 120) * 1000, 48000)) == {0}
    else:
        assert not out.playing
    assert not sim.speaker_enabled()


@pytest.mark.parametrize("board", ["pico", "cpx"])
def test_a_klaxon_stuck_down_cuts_the_sound_that_plays_and_the_speaker(board):
    """QK_STUCK_S = 2: the Klaxon held from 1 s is stuck at 3 s, while the QM's roll
    (A at 2.9 s) plays its chime: the chime stops at once, and the Express's speaker
    amplifier is switched off (it hisses while on), and they stay so."""
    sim = Sim("QK_STUCK_S = 2\n", players=3, board_name=board)
    sim.press("klaxon", 1000, 5000)
    sim.tap("a", 2900)
    sim.run_until_ms(2995)
    assert sim.sounds()[-1][1] == "done" and sim.device.f[D._CUR] != 255
    for t in range(3010, 3400, 10):
        sim.run_until_ms(t)
        out = sim.device.p[D._OUT]
        assert sim.device.f[D._STUCK]
        if board == "cpx":
            assert not out.playing and sim.speaker_enabled() is False
        else:
            assert out.tone() == (0, None)
            assert set(out.waveform(3010_000, t * 1000 + 1000, 48000)) == {0}, t


def test_the_piezo_is_silent_from_power_on_until_the_first_sound():
    """The Pico's piezo is driven with nothing until a sound: even a stray pulse now and
    then is a faint whine the table would hear in a quiet moment."""
    sim = Sim(board_name="pico", players=3)
    out = sim.device.p[D._OUT]
    for t in range(0, 2000, 7):
        sim.run_until_ms(t)
        assert out.tone() == (0, None), t
    assert set(out.waveform(0, 2000_000, 48000)) == {0}
    sim.tap("b", 2000)  # the QM asks: the blip
    sim.run_until_ms(2110)
    assert out.tone()[0] > 0 and set(out.waveform(2090_000, 2110_000, 48000)) == {-1, 0, 1}
