"""The Klaxon at the level a player notices: pin levels over simulated time in,
sounds and lights out, on every build profile."""

import pytest
from hypothesis import given, settings, strategies as st

import _audioout
from harness import PROFILE_NAMES, Sim, klaxon_ms
from model import layout  # noqa: E402  (the slots' names)

SAMPLE_BUILDS = ("simulated", "cpb", "cpx")  # builds that play the WAV samples


def klaxons(sim):
    return [t for t, name in sim.sounds() if name == "klaxon"]


def klaxon_events(sim):
    return [t for t, f in sim.named("sound") if f["name"] == "klaxon"]


@pytest.mark.parametrize("board", PROFILE_NAMES)
@pytest.mark.parametrize("bounce", [(), (300, 200, 800, 400), (1000, 1000, 1000, 1000, 900),
                                    (100, 2400, 100, 2300)])
def test_bouncing_press_sounds_once_within_10_ms(board, bounce):
    sim = Sim(board_name=board, klaxon_only=True)
    sim.press("klaxon", 100, 400, bounce_us=bounce, release_bounce_us=(700, 300, 1500, 200))
    sim.run_until_ms(2500)
    starts = klaxon_events(sim)
    assert len(starts) == 1
    assert 100 <= starts[0] <= 110
    if board in SAMPLE_BUILDS:
        assert klaxons(sim) == starts  # the sample really started on the audio output


@pytest.mark.parametrize("board", PROFILE_NAMES)
@pytest.mark.parametrize("glitch_us", [200, 1000, 1500, 1999])
@pytest.mark.parametrize("phase_us", [0, 1, 500, 999])
def test_glitch_shorter_than_2_ms_never_sounds(board, glitch_us, phase_us):
    sim = Sim(board_name=board, klaxon_only=True, phase_us=phase_us)
    sim.level("klaxon", 100_000, True)
    sim.level("klaxon", 100_000 + glitch_us, False)
    sim.run_until_ms(500)
    assert sim.named("sound") == [] and sim.named("klaxon") == []


@pytest.mark.parametrize("glitch_ms", [1, 2, 5])
@pytest.mark.parametrize("phase_us", [0, 500])
def test_two_crackles_further_apart_than_the_glitch_time_never_sound(glitch_ms, phase_us):
    """Crackles on the Klaxon's long wire: two 0.5 ms spikes, each a glitch. Within
    QK_GLITCH_MS + 1 ms of each other they are one contact, as a bouncing press is; any
    further apart, two glitches, and never a Klaxon."""
    for gap_ms in range(glitch_ms + 2, glitch_ms + 7):
        sim = Sim("QK_GLITCH_MS = %d\n" % glitch_ms, klaxon_only=True, phase_us=phase_us)
        for at in (100_000, 100_000 + 1000 * gap_ms):
            sim.level("klaxon", at, True)
            sim.level("klaxon", at + 500, False)
        sim.run_until_ms(400)
        assert sim.named("klaxon") == [], (glitch_ms, gap_ms)


def test_a_press_of_5_ms_always_sounds():
    """QK_GLITCH_MS = 2: the contact must read closed at ticks 3 apart (over 2 ms for sure),
    so under 2 ms never sounds and a clean 5 ms always does, at any pass time up to 1 ms
    (tests/test_timing_sweep.py sweeps passes and phases)."""
    sim = Sim(klaxon_only=True)
    sim.level("klaxon", 100_000, True)
    sim.level("klaxon", 105_000, False)
    sim.run_until_ms(300)
    assert len(klaxon_events(sim)) == 1


@pytest.mark.parametrize("board", PROFILE_NAMES)
def test_held_for_5_s_sounds_once(board):
    sim = Sim(board_name=board, klaxon_only=True)
    sim.press("klaxon", 50, 5000, bounce_us=(400, 400))
    sim.run_until_ms(7000)
    assert len(klaxon_events(sim)) == 1


def test_release_bounce_never_retriggers():
    sim = Sim(klaxon_only=True)
    # The release bounces closed for 3 ms at a time: long enough to pass the
    # 2 ms debounce, too soon after the release to count as a new press.
    sim.press("klaxon", 100, 200, release_bounce_us=(2000, 3000, 2500, 3200, 2000, 4000))
    sim.run_until_ms(1000)
    assert len(klaxon_events(sim)) == 1


def test_second_press_during_the_klaxon_restarts_it_in_klaxon_only_mode():
    sim = Sim(klaxon_only=True)
    sim.press("klaxon", 100, 150)
    sim.press("klaxon", 600, 150)  # the klaxon (1.28 s) is still sounding
    sim.run_until_ms(3000)
    assert klaxons(sim) == [103, 603]  # 3 ticks after the contact: held over 2 ms


@pytest.mark.parametrize("board", ["simulated", "cpx", "pico"])  # WAVs, the DAC, a piezo
def test_press_during_the_klaxon_in_referee_mode_is_refused_after_it(board):
    sim = Sim(players=3, board_name=board)
    sim.tap("b", 50)  # ask
    sim.tap("a", 500)  # seat 1 answers
    sim.press("klaxon", 1000, 100)  # seat 2 challenges seat 1
    sim.press("klaxon", 1400, 100)  # a second slam: handled, not lost
    sim.run_until_ms(4000)
    assert [n for _, n, _ in sim.records() if n in ("klaxon", "refused")] == ["klaxon", "refused"]
    names = [n for _, n in sim.sounds()]
    assert names[-2:] == ["klaxon", "denied"]
    t_klaxon, t_denied = [t for t, n in sim.sounds()][-2:]
    ms = klaxon_ms()
    assert ms <= t_denied - t_klaxon <= ms + 30, "the buzz came %d ms after the klaxon, " \
        "which lasts %d ms: it waits for the klaxon's end" % (t_denied - t_klaxon, ms)


def test_loop_keeps_polling_while_sounding():
    sim = Sim(klaxon_only=True)
    sim.press("klaxon", 100, 100)
    sim.run_until_ms(100)
    passes = []
    poll = sim.device.poll
    sim.device.poll = lambda: passes.append(poll())
    sim.run_until_ms(1100)  # the klaxon sounds throughout
    assert len(passes) == 1000  # one pass every simulated ms: nothing blocks
    assert sim.speaker_enabled() is True


@pytest.mark.parametrize("board", ["simulated", "cpb", "cpx"])
def test_speaker_enabled_only_while_sounding(board):
    sim = Sim(board_name=board, klaxon_only=True)
    sim.run_until_ms(50)
    assert sim.speaker_enabled() is False
    sim.press("klaxon", 100, 100)
    sim.run_until_ms(500)
    assert sim.speaker_enabled() is True
    sim.run_until_ms(100 + klaxon_ms() + 120)  # the klaxon over
    assert sim.speaker_enabled() is False


def test_klaxon_flashes_the_ring_in_klaxon_only_mode():
    sim = Sim(klaxon_only=True)
    sim.run_until_ms(90)
    assert set(sim.ring()) == {"off"}
    sim.press("klaxon", 100, 100)
    seen = set()
    for t in range(110, 1200, 64):
        sim.run_until_ms(t)
        seen |= set(sim.ring())
    assert {"vermillion", "white"} <= seen
    sim.run_until_ms(100 + klaxon_ms() + 120)  # the klaxon over
    assert set(sim.ring()) == {"off"}


def test_pico_piezo_sweeps_the_tone_without_blocking():
    sim = Sim(board_name="pico", klaxon_only=True)
    sim.press("klaxon", 100, 100)
    pio = sim.device.p[layout.OUT]  # the piezo's rp2pio.StateMachine
    freqs = []
    over = 100 + klaxon_ms()  # (its segments' length: tools/gen/synth.py)
    for t in range(105, over, 20):
        sim.run_until_ms(t)
        freqs.append(pio.tone()[0])
    assert min(f for f in freqs if f) < 260 and max(freqs) > 380  # it rises, like a horn
    assert 0 in freqs  # the rest between the two blasts
    sim.run_until_ms(over + 600)
    assert pio.tone() == (0, None) and set(pio.waveform((over + 100) * 1000, (over + 600) * 1000,
                                                         48000)) == {0}


def test_pico_led_flashes_on_the_klaxon():
    sim = Sim(board_name="pico", klaxon_only=True)
    led = sim.device.p[layout.LED]  # the on-board LED
    sim.press("klaxon", 100, 100)
    states = set()
    for t in range(110, 1000, 64):
        sim.run_until_ms(t)
        states.add(bool(led.value))
    assert states == {True, False}


def test_volume_and_mute_from_settings():
    sim = Sim("QK_VOLUME = 3\n", klaxon_only=True)
    sim.press("klaxon", 100, 100)
    sim.run_until_ms(300)
    assert _audioout.plays[-1][3] == pytest.approx(0.3)
    sim = Sim("QK_MUTE = 1\n", klaxon_only=True)
    sim.press("klaxon", 100, 100)
    sim.run_until_ms(300)
    assert sim.sounds() == [] and len(sim.named("klaxon")) == 1  # lights still flash


def test_slide_switch_mutes_the_circuit_playground():
    sim = Sim(board_name="cpb", klaxon_only=True)
    switch = sim.board.SLIDE_SWITCH.id
    import simpins

    simpins.schedule(switch, 1000, False)  # switched to mute
    sim.press("klaxon", 100, 100)
    sim.run_until_ms(300)
    assert sim.sounds() == []


@pytest.mark.parametrize("board", ["cpb", "cpx"])
def test_the_slide_switch_is_read_through_its_pull_up(board):
    """The Circuit Playground's slide switch connects its pin to ground one way and leaves
    it open the other (Adafruit's guides read it with Pull.UP): without the pull-up it
    floats there, and the Klaxon would mute and unmute at random."""
    import digitalio

    sim = Sim(board_name=board, klaxon_only=True)
    sw = sim.device.p[layout.SW]
    assert sw.direction == digitalio.Direction.INPUT and sw.pull == digitalio.Pull.UP


@settings(max_examples=60, deadline=None)
@given(
    presses=st.lists(
        st.tuples(st.integers(80, 400), st.lists(st.integers(50, 1200), max_size=8),
                  st.lists(st.integers(50, 1200), max_size=8)),
        min_size=1, max_size=4),
    phase=st.integers(0, 999),
)
def test_random_bouncing_presses_each_sound_exactly_once(presses, phase):
    """Bounce within 5 ms on press and release; presses 300+ ms apart, held 80-400 ms."""
    sim = Sim(klaxon_only=True, phase_us=phase)
    t = 100
    for hold, down, up in presses:
        sim.press("klaxon", t, hold, bounce_us=down[:4], release_bounce_us=up[:4])
        t += hold + 300
    sim.run_until_ms(t + 100)
    starts = klaxon_events(sim)
    assert len(starts) == len(presses)
