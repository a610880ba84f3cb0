"""Start-up's sound, lights, sleep and watchdog (hardware/outputs.py, then
qiklaxon/restore.py): a setting or a part that is wrong is said on the console, the ring
flashes purple for exactly two seconds, and the device goes on with what it has; what it
set up is what sounds, shows and sleeps; and start-up's code is not kept in RAM after."""

import os
import shutil
import sys

import alarm
import neopixel
import pytest
import simclock
import synth

from harness import PROFILE_NAMES, ROOT, Sim
from model import layout as Y

ANOTHER_BAD_LINE = "QK_VOLUME = 99\n"  # reported by the settings (out of range): one more


def lines(sim):
    return [x for _, x in sim.events]


def purple_at_start(sim):
    """The ring as it is 50 ms after power-up: all purple (a flash), else the scene."""
    sim.run_until_ms(50)
    return sim.ring() == ["purple"] * 10


def klaxon_heard(sim, at_ms=300):
    sim.press("klaxon", at_ms)
    sim.run_until_ms(at_ms + 200)
    return [n for _, n in sim.sounds()] == ["klaxon"]


# ------------------------------------------------------------------ sound
def test_a_qk_audio_that_is_no_choice_is_said_flashed_and_the_builds_own_sound_plays():
    sim = Sim('QK_AUDIO = "loud"\n', klaxon_only=True)
    assert lines(sim)[0] == "QK_AUDIO = 'loud' is not 'piezo', 'piezo-gnd' or 'amp'; using the build's own"
    assert purple_at_start(sim) and klaxon_heard(sim)
    also = Sim('QK_AUDIO = "loud"\n' + ANOTHER_BAD_LINE, klaxon_only=True)
    assert purple_at_start(also), lines(also)


@pytest.mark.parametrize("board", ["simulated", "pico"])
def test_qk_audio_piezo_or_amp_is_taken_without_a_word(board):
    """Either choice is valid on every build: nothing said, no flash. On the Pico, "amp"
    plays the WAV files through an amplifier and "piezo" (its own) plays tones."""
    for choice, wav in (("piezo", board != "pico"), ("piezo-gnd", board != "pico"), ("amp", True)):
        sim = Sim('QK_AUDIO = "%s"\nQK_PIXELS = 10\n' % choice, klaxon_only=True,
                  board_name=board)
        assert not [x for x in lines(sim) if "QK_AUDIO" in x], lines(sim)
        assert not purple_at_start(sim)
        assert klaxon_heard(sim)
        assert bool(sim.device.f[Y.TONE]) != wav, (choice, board)


def test_no_speaker_pin_is_said_and_flashed():
    """QK_PIN_SPEAKER names a pin the board has not got: no sound, said and flashed
    (also with another setting wrong); never a traceback."""
    for settings in ('QK_PIN_SPEAKER = "D99"\n', 'QK_PIN_SPEAKER = "D99"\n' + ANOTHER_BAD_LINE):
        sim = Sim(settings, klaxon_only=True)
        said = [x for x in lines(sim) if x.startswith("no sound: ")]
        assert said == ["no sound: %r" % ValueError("no speaker pin 'D99'")], lines(sim)
        assert purple_at_start(sim)


def test_with_no_speaker_the_klaxon_still_flashes_silently():
    sim = Sim('QK_PIN_SPEAKER = "D99"\n', klaxon_only=True)
    sim.press("klaxon", 2500)
    sim.run_until_ms(2600)
    assert sim.sounds() == [] and sim.named("klaxon") and sim.ring()[0] != "off"


def test_a_missing_sound_file_is_said_and_silent_and_the_others_play(tmp_path, monkeypatch):
    """A drive with sounds/blip.wav missing: said at start-up, the blip is silent, the
    klaxon still sounds."""
    shutil.copytree(os.path.join(ROOT, "sounds"), tmp_path / "sounds")
    os.remove(tmp_path / "sounds" / "blip.wav")
    monkeypatch.chdir(tmp_path)
    sim = Sim(players=4)
    said = [x for x in lines(sim) if x.startswith("sounds/")]
    assert len(said) == 1 and said[0].startswith("sounds/blip.wav missing or bad (") and \
        said[0].endswith("): it will be silent"), lines(sim)
    sim.press("klaxon", 10)  # before the first question: a try, it sounds
    sim.tap("b", 200)  # ask: a blip, silent
    sim.run_until_ms(350)
    assert [n for _, n in sim.sounds()] == ["klaxon"] and sim.named("ask")


# The builds whose sounds play through one audiomixer voice (one format for every file)
MIXED = [("simulated", ""), ("cpb", ""), ("pico", 'QK_AUDIO = "amp"\n')]


def _drive(tmp_path, monkeypatch, keep=("klaxon", "denied", "blip", "done", "undone")):
    """A drive (the current folder) holding these of the project's sounds."""
    (tmp_path / "sounds").mkdir()
    for name in keep:
        shutil.copy(os.path.join(ROOT, "sounds", name + ".wav"), tmp_path / "sounds")
    monkeypatch.chdir(tmp_path)


def _referee_ok(sim, said):
    """The board started as the referee, not a traceback: the Klaxon before the first
    question is a try (it flashes), B asks."""
    assert "new" in said, said
    sim.press("klaxon", 10)
    sim.tap("b", 200)
    sim.run_until_ms(400)
    assert sim.named("ask"), lines(sim)


@pytest.mark.parametrize("board, settings", MIXED)
def test_a_drive_without_the_sounds_folder_plays_silent_on_the_mixed_builds(
        tmp_path, monkeypatch, board, settings):
    """A Bluefruit (or a Pico with an amplifier) whose drive lacks sounds/: each file is
    said missing, then no sound, and the board referees with its lights (it used to stop
    at start-up on the first file's sample rate)."""
    _drive(tmp_path, monkeypatch, keep=())
    sim = Sim(settings, players=4, board_name=board)
    said = lines(sim)
    assert len([x for x in said if x.startswith("sounds/") and "missing or bad" in x]) == 5, said
    assert "no sound: ValueError('no sounds/*.wav')" in said, said
    _referee_ok(sim, said)
    assert sim.sounds() == []


@pytest.mark.parametrize("board, settings", MIXED)
def test_a_missing_klaxon_wav_leaves_the_other_sounds_on_the_mixed_builds(
        tmp_path, monkeypatch, board, settings):
    """Only sounds/klaxon.wav missing: said; the Klaxon is silent, the blip still plays."""
    _drive(tmp_path, monkeypatch, keep=("denied", "blip", "done", "undone"))
    sim = Sim(settings, players=4, board_name=board)
    said = lines(sim)
    assert [x for x in said if x.startswith("sounds/")] == [
        "sounds/klaxon.wav missing or bad (FileNotFoundError(2, 'No such file or directory')): "
        "it will be silent"], said
    _referee_ok(sim, said)
    assert [n for _, n in sim.sounds()] == ["blip"]


@pytest.mark.parametrize("board, settings", MIXED)
def test_a_sound_in_another_format_is_said_and_silent_on_the_mixed_builds(
        tmp_path, monkeypatch, board, settings):
    """sounds/blip.wav replaced by one at 22050 Hz: the mixer takes the klaxon's format
    (16 kHz), and CircuitPython's voice refuses a sample not in it; said at start-up, the
    blip is silent, the klaxon sounds."""
    import wave

    _drive(tmp_path, monkeypatch)
    with wave.open(os.path.join(ROOT, "sounds", "blip.wav"), "rb") as w:
        frames, width = w.readframes(w.getnframes()), w.getsampwidth()
    with wave.open(str(tmp_path / "sounds" / "blip.wav"), "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(width)
        w.setframerate(22050)
        w.writeframes(frames)
    sim = Sim(settings, players=4, board_name=board)
    said = lines(sim)
    assert [x for x in said if x.startswith("sounds/")] == [
        "sounds/blip.wav missing or bad (ValueError('22050 Hz, 1 channel(s), 16 bits, not "
        "16000, 1, 16')): it will be silent"], said
    _referee_ok(sim, said)
    assert [n for _, n in sim.sounds()] == ["klaxon"]


@pytest.mark.parametrize("board, settings", MIXED)
def test_a_makers_own_8_bit_sounds_play_on_the_mixed_builds(tmp_path, monkeypatch, board,
                                                            settings):
    """Sounds a maker made as 8-bit WAVs (unsigned, as 8-bit WAVs are), at 22050 Hz: the
    mixer takes their format, so every one plays (CircuitPython's voice refuses a sample
    whose rate, channels, bits or signedness differ from its mixer's)."""
    import wave

    _drive(tmp_path, monkeypatch)
    for name in synth.NAMES:
        path = str(tmp_path / "sounds" / (name + ".wav"))
        with wave.open(path, "rb") as w:
            frames = w.readframes(w.getnframes())
        with wave.open(path, "wb") as w:
            w.setnchannels(1)
            w.setsampwidth(1)
            w.setframerate(22050)
            w.writeframes(bytes((frames[i + 1] + 128) & 255 for i in range(0, len(frames), 2)))
    sim = Sim(settings, players=4, board_name=board)
    said = lines(sim)
    assert not [x for x in said if x.startswith("sounds/")], said
    _referee_ok(sim, said)  # a try of the Klaxon, then the QM asks (its blip waits)
    sim.press("klaxon", 2000, 100)  # nobody has answered yet: refused
    sim.run_until_ms(5000)
    assert [n for _, n in sim.sounds()] == ["klaxon", "blip", "denied"]
    mixer = sim.device.p[Y.OUT]._mixer
    assert (mixer.sample_rate, mixer.bits_per_sample, mixer.samples_signed) == (22050, 8, False)


@pytest.mark.parametrize("board, settings", MIXED)
def test_the_mixed_builds_sounds_stream_through_one_small_buffer(board, settings):
    """The five WAV sounds share one 256-byte buffer (one plays at a time): CircuitPython
    gives a WaveFile opened without one two 256-byte buffers of its own, 2.5 KB of heap
    for the five."""
    sim = Sim(settings, players=4, board_name=board)
    samples = [s for s in sim.device.p[Y.SND] if s is not None]
    assert len(samples) == 5
    assert len({id(s.buffer) for s in samples}) == 1 and len(samples[0].buffer) == 256


def test_the_picos_piezo_is_as_loud_as_qk_volume_says():
    """The piezo's loudness is the share of each half of its drive that is driven (the
    rest 0, both pins low): 32 x QK_VOLUME // 10 ticks of 32, at most 29, while a tone
    plays: measured on the drive the simulated program makes (push-pull: +1, 0, -1)."""
    for volume in (3, 8, 10):
        sim = Sim("QK_VOLUME = %d\n" % volume, klaxon_only=True, board_name="pico")
        sim.press("klaxon", 10)
        sim.run_until_ms(70)
        w = sim.device.p[Y.OUT].waveform(20_000, 70_000, 2_000_000)
        driven = sum(1 for x in w if x) / len(w)
        assert set(w) == {-1.0, 0.0, 1.0}
        assert abs(driven - min(32 * volume // 10, 29) / 32) < 0.01, (volume, driven)


@pytest.fixture
def claimed(monkeypatch):
    """``digitalio`` as on CircuitPython: a pin another DigitalInOut holds raises
    ValueError ("... in use") until that one is deinit()ed (Blinka does not check)."""
    import digitalio

    real = digitalio.DigitalInOut
    held = set()

    class DigitalInOut(real):
        def __init__(self, pin):
            if pin.id in held:
                raise ValueError("pin in use")
            super().__init__(pin)
            held.add(pin.id)
            self.held_id = pin.id

        def deinit(self):
            held.discard(self.held_id)
            super().deinit()

    monkeypatch.setattr(digitalio, "DigitalInOut", DigitalInOut)
    return held  # (cleared: a new power-on, every pin free)


def test_a_button_on_the_switchs_pin_is_said_and_the_speaker_still_sounds(claimed):
    """Button A moved onto the Bluefruit's slide switch: the switch's pin is in use, said
    and flashed; the speaker's amplifier is still switched on for each sound."""
    sim = Sim('QK_PIN_A = "SLIDE_SWITCH"\n', players=4, board_name="cpb")
    said = [x for x in lines(sim) if x.startswith("pin ")]
    assert said == ["pin SLIDE_SWITCH is in use (%r): done without it" % ValueError(
        "pin in use")], lines(sim)
    assert purple_at_start(sim)
    sim.press("klaxon", 2100)  # before the first question: a try, it sounds
    sim.run_until_ms(2150)
    assert [n for _, n in sim.sounds()] == ["klaxon"] and sim.speaker_enabled() is True
    claimed.clear()
    also = Sim('QK_PIN_A = "SLIDE_SWITCH"\n' + ANOTHER_BAD_LINE, players=4, board_name="cpb")
    assert purple_at_start(also)


# ------------------------------------------------------------------ lights
@pytest.fixture
def wire(monkeypatch):
    """The frames the NeoPixels get on their data pin (the bytes, in wire order)."""
    frames = []
    monkeypatch.setattr(neopixel, "neopixel_write", lambda pin, buf: frames.append(bytes(buf)))
    return frames


def test_each_frame_on_the_wire_is_one_whole_ring_at_qk_brightness(wire):
    """The flash at start-up, at QK_BRIGHTNESS = 50: each frame the ring gets is the
    whole ring, every pixel purple at half brightness or every pixel dark; never a
    ring half redrawn."""
    sim = Sim('QK_AUDIO = "loud"\nQK_BRIGHTNESS = 50\n', klaxon_only=True)
    sim.run_until_ms(300)
    purple = bytes(int(c * 0.5) for c in (0x79, 0xCC, 0xA7))  # 0xCC79A7 in GRB order
    assert wire and set(wire) == {purple * 10, bytes(30)}, wire[:3]


def test_qk_pixels_0_leaves_the_ring_dark(wire):
    sim = Sim("QK_PIXELS = 0\n", players=4)
    sim.tap("b", 10)
    sim.run_until_ms(150)
    assert sim.named("ask") and wire == []


PIXELS_ON_GP99 = 'QK_PIXELS = 4\nQK_PIN_PIXELS = "GP99"\n'


def test_no_pixel_pin_is_said_and_the_picos_led_flashes_instead():
    """QK_PIN_PIXELS names a pin the Pico has not got: no lights, said; the LED flashes
    (the one light left), also with another setting wrong."""
    for settings in (PIXELS_ON_GP99, PIXELS_ON_GP99 + ANOTHER_BAD_LINE):
        sim = Sim(settings, klaxon_only=True, board_name="pico")
        said = [x for x in lines(sim) if x.startswith("no lights: ")]
        assert said == ["no lights: %r" % ValueError("QK_PIN_PIXELS = 'GP99': no such pin")]
        sim.run_until_ms(50)  # the flash's first step: on
        assert sim.device.p[Y.LED].value


def test_with_no_pixel_pin_the_picos_led_flash_ends_and_the_klaxon_sounds():
    sim = Sim(PIXELS_ON_GP99, klaxon_only=True, board_name="pico")
    assert led_levels(sim, 1900) == {True, False}
    sim.run_until_ms(2050)
    assert led_levels(sim, 2400) == {False}  # the flash is over
    assert klaxon_heard(sim, 2500)


def led_levels(sim, until_ms):
    """The LED's levels, looked at every 10 ms until ``until_ms``."""
    led = set()
    for t in range(sim.now_ms + 10, until_ms, 10):
        sim.run_until_ms(t)
        led.add(bool(sim.device.p[Y.LED].value))
    return led


# ------------------------------------------------------------------ the flash's two seconds
def _after_the_flash(sim):
    """The first pixel's colour at 2 s after power-up, the flash seen before: the ring's
    steps fall every 128 ms of the ticks, and here one falls at exactly 2 s, a step the
    flash would show purple."""
    sim.run_until_ms(50)
    assert sim.ring()[0] == "purple"
    sim.run_until_ms(2001)  # (the last pass at 2000 ms)
    return sim.ring()[0]


START = simclock.POWER_ON_MS + 48  # ticks at power-up: 2 s on is a multiple of 128


def test_a_bad_settings_flash_lasts_exactly_two_seconds():
    sim = Sim('QK_AUDIO = "loud"\n', klaxon_only=True, start_ms=START)
    assert _after_the_flash(sim) == "off"  # a pure Klaxon's ring, dark


def test_a_damaged_saves_flash_lasts_exactly_two_seconds():
    sim = Sim(players=4)
    sim.run_until_ms(50)
    sim.device.r.B[Y.QM] = 9  # a saved game whose QM is no seat: damaged
    sim.device.r.save()
    again = Sim(players=4, nvm=sim.nvm, start_ms=START)
    assert lines(again)[0] == "the saved game is damaged: a new game starts"
    assert _after_the_flash(again) == "white"  # the QM


# ------------------------------------------------------------------ the Klaxon from power-up
def test_the_klaxon_is_armed_from_power_up_whatever_qk_rearm_ms():
    """A slam 20 ms after power-up sounds at once, even with the longest re-arm time."""
    sim = Sim("QK_REARM_MS = 500\n", klaxon_only=True)
    sim.press("klaxon", 20)
    sim.run_until_ms(200)
    assert sim.sounds() and sim.sounds()[0][0] <= 25


def test_woken_by_a_slam_its_chatter_as_the_board_starts_is_no_second_klaxon():
    """The Klaxon's pin alarm woke the board: that press sounds at once; the contact
    chattering as code.py starts (closed 10 ms, from 5 ms in: within QK_REARM_MS of the
    start) is the same slam, not another klaxon; a real press later is."""
    sim = Sim(klaxon_only=True, wake_alarm=alarm.pin.PinAlarm(None, value=False))
    sim.press("klaxon", 5, hold_ms=10)
    sim.press("klaxon", 400)
    sim.run_until_ms(600)
    klaxons = [t for t, n in sim.sounds() if n == "klaxon"]
    assert len(klaxons) == 2 and klaxons[0] == 0 and 400 <= klaxons[1] <= 410, klaxons


def test_the_stuck_fault_comes_qk_stuck_s_after_the_press_to_the_millisecond():
    at = {}
    for s in (2, 3):
        sim = Sim("QK_STUCK_S = %d\n" % s, klaxon_only=True)
        sim.press("klaxon", 100, hold_ms=5000)
        sim.run_until_ms(4000)
        at[s] = [t for t, x in sim.events if x.startswith("fault: the Klaxon is stuck")]
    assert len(at[2]) == len(at[3]) == 1 and at[3][0] - at[2][0] == 1000, at
    assert 2100 <= at[2][0] <= 2110, at


# ------------------------------------------------------------------ sleep and the watchdog
def test_it_sleeps_qk_sleep_min_after_power_up_until_the_klaxons_pin_reads_pressed():
    """Untouched, it sleeps QK_SLEEP_MIN minutes after power-up, to the millisecond (the
    harness's quiet passes come every 100 ms from 1 s before the sleep is due), with a
    pin alarm on the Klaxon's pin at its pressed level."""
    sim = Sim("QK_SLEEP_MIN = 1\n", klaxon_only=True, coarse=True)
    sim.run_until_ms(70_000)
    assert sim.slept == 1 and alarm.sleeps[-1][0] == 60_000_000
    a = alarm.sleeps[-1][1][0]
    pin, pressed = sim.controls["klaxon"]
    assert (a.pin.id, a.value) == (pin, pressed) and a.value is not None
    # the pin's own pull holds it at rest while the board sleeps: a Klaxon unplugged from
    # its jack (a floating pin) must not wake it
    assert a.pull is True
    assert "sleeping: press the Klaxon" in lines(sim)  # what the console (a scoreboard) says


def test_a_pico_with_qk_sleep_min_0_does_not_sleep_and_feeds_its_watchdog():
    """QK_SLEEP_MIN = 0 on a build with a watchdog: no sleep (not even at once: no idle
    time is set); the watchdog, set to 8 s, is fed from the start."""
    sim = Sim("QK_SLEEP_MIN = 0\n", klaxon_only=True, board_name="pico")
    sim.run_until_ms(600)
    assert sim.slept == 0 and sim.named("sleep") == []
    wd = sim.device.p[Y.WD]
    assert wd.timeout == 8 and wd.feeds and wd.feeds[-1] >= 250


def test_the_express_starts_without_the_sleep_module_its_deploy_leaves_out(monkeypatch):
    """The Express has no alarm and no watchdog: its deploy leaves hardware/power.py out,
    and it starts and sounds without it."""
    monkeypatch.setitem(sys.modules, "hardware.power", None)  # an import of it fails
    sim = Sim(klaxon_only=True, board_name="cpx")
    assert sim.device is not None and klaxon_heard(sim)


# ------------------------------------------------------------------ RAM
@pytest.mark.parametrize("board", PROFILE_NAMES)
def test_each_build_starts_saying_only_the_game_and_keeps_only_the_device(board):
    """A build on its own board says nothing at start-up but the game (no "board ... is
    not one of the builds"), and keeps none of its start-up modules (its profile among
    them: the Express has ~16 KB of heap)."""
    sim = Sim(players=4, board_name=board)
    assert lines(sim) == ["new", "at 0 0 0 0"]
    import hardware

    for name in ("start", "outputs", "mixer", "steps", "profile_" + board):
        assert "hardware." + name not in sys.modules and not hasattr(hardware, name), name


def test_start_ups_modules_are_dropped_once_the_device_runs():
    """The start-up steps' code (outputs, the saved game's restore) is RAM on the Express
    while imported: once the device runs, nothing holds it. (The sleep set-up's module
    leaves sys.modules too; where the board sleeps, its sleep function keeps it.)"""
    sim = Sim(players=4)
    assert sim.device is not None
    import hardware
    import qiklaxon

    for name in ("hardware.outputs", "qiklaxon.restore", "hardware.mixer"):
        assert name not in sys.modules, name
        package, module = name.split(".")
        assert not hasattr({"hardware": hardware, "qiklaxon": qiklaxon}[package], module), name
    assert "hardware.power" not in sys.modules


def test_with_no_sound_a_stuck_klaxon_is_said_as_stuck():
    """A build whose speaker could not be set up, its Klaxon held down past QK_STUCK_S:
    the console says the Klaxon is stuck (not that the referee failed), and released,
    that it is cleared."""
    sim = Sim('QK_PIN_SPEAKER = "D99"\nQK_STUCK_S = 2\n', klaxon_only=True)
    sim.press("klaxon", 100, hold_ms=2500)
    sim.run_until_ms(2800)
    faults = [x for x in lines(sim) if x.startswith("fault")]
    assert faults == ["fault: the Klaxon is stuck down; check its wiring",
                      "fault cleared: the Klaxon is released"], lines(sim)


def test_a_tap_of_b_as_the_board_starts_asks_the_question():
    """B tapped 1 ms after power-up (its contact already read, released, at start-up):
    the tap counts, as any other."""
    sim = Sim(players=4)
    sim.tap("b", 1)
    sim.run_until_ms(150)
    assert sim.named("ask"), lines(sim)


def test_the_expresss_sound_goes_out_on_its_speaker_pin():
    sim = Sim(klaxon_only=True, board_name="cpx")
    assert sim.device.p[Y.OUT].pin is sim.board.SPEAKER


def test_a_watchdog_the_port_refuses_is_said_and_the_klaxon_still_sounds(monkeypatch):
    """A port whose watchdog will not take the 8 s timeout: the board says so and runs on
    without it (nothing feeds it), and the Klaxon sounds."""
    import harness

    class Refusing(harness.Watchdog):
        def __setattr__(self, name, value):
            if name == "timeout" and value is not None:
                raise ValueError("timeout must be <= 4")
            super().__setattr__(name, value)

    monkeypatch.setattr(harness, "Watchdog", Refusing)
    sim = Sim("QK_SLEEP_MIN = 0\n", board_name="pico", klaxon_only=True)
    assert "no watchdog: timeout must be <= 4" in lines(sim)
    assert sim.device.p[Y.WD] is None
    sim.press("klaxon", 100, 100)
    sim.run_until_ms(3000)
    assert [n for _, n in sim.sounds()] == ["klaxon"]
    import microcontroller

    assert microcontroller.watchdog.feeds == []
