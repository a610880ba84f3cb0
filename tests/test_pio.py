"""The Pico's piezo program (hardware/profile_pico.py): its words are what its source
assembles to (adafruit_pioasm, a dev dependency: the board gets the words), and what
the program drives, interpreted on the simulated clock (tools/simulated/simboard/rp2pio.py): the
RASP and SQUARE voices tick by tick, push-pull and on one pin; the second pin taken."""

import os
import re
from array import array

import adafruit_pioasm
import pytest
import simclock

import rp2pio
from harness import ROOT, Sim
from hardware import profile_pico as P
from model import layout as Y


def source(one_pin=False):
    """The program's source as profile_pico.py has it (its ``#   `` lines); one pin: the
    same with ``.side_set 1``, side 2 -> 1 and side 1 -> 0, as its comment says."""
    with open(os.path.join(ROOT, "hardware", "profile_pico.py"), encoding="utf-8") as f:
        text = "\n".join(line[4:] for line in f.read().splitlines() if line.startswith("#   "))
    assert ".program qk_piezo" in text
    if one_pin:
        text = re.sub(r"side (\d)", lambda m: "side %d" % (m.group(1) == "2"), text)
        text = text.replace(".side_set 2", ".side_set 1")
    return text


@pytest.mark.parametrize("one_pin", [False, True])
def test_the_words_are_the_source_assembled(one_pin):
    prog = adafruit_pioasm.Program(source(one_pin))
    assert tuple(prog.assembled) == (P.PIEZO_GND if one_pin else P.PIEZO)
    assert prog.pio_kwargs == {"sideset_enable": False, "sideset_pin_count": 1 if one_pin else 2,
                               "wrap": 18, "wrap_target": 1}
    # (the words run() and init execute: the same with either side-set width)
    for text, word in (("set x, 7", P.VOICES[0]), ("mov x, ~null", P.VOICES[1]),
                       ("set x, 0", P.VOICES[2]), ("set y, 0", P.INIT[0]),
                       ("mov isr, y", P.INIT[1]), ("mov osr, y", P.INIT[3])):
        asm = adafruit_pioasm.Program(".side_set %d\n%s side 0" % (1 if one_pin else 2, text))
        assert tuple(asm.assembled) == (word,), text
    assert P.INIT[2] == P.INIT[0]


class Pin:
    def __init__(self, gpio):
        self.id = self.gpio = gpio
        self._mode = None


def machine(volume, voice, hz, one_pin=False):
    """A state machine as profile_pico.sound() makes it, playing ``voice`` (0 RASP,
    1 SQUARE) at ``hz``, its clock one tick a sample: (it, samples a period)."""
    simclock.reset()
    rp2pio.CLAIMED.clear()
    a = min(32 * volume // 10, 29) - 2
    init = array("H", P.INIT)
    init[0] |= a
    init[2] |= 27 - a
    sm = rp2pio.StateMachine(array("H", P.PIEZO_GND if one_pin else P.PIEZO), 2000, init=init,
                             first_sideset_pin=Pin(15 if one_pin else 14),
                             sideset_pin_count=1 if one_pin else 2, wrap_target=1, wrap=18)
    sm.stop()
    sm.run(array("H", P.VOICES[voice:voice + 1]))
    sm.frequency = P.TICKS[voice] * hz
    sm.restart()
    return sm, P.TICKS[voice]


def runs(samples):
    """[(value, how many in a row)]."""
    out = []
    for x in samples:
        if out and out[-1][0] == x:
            out[-1][1] += 1
        else:
            out.append([x, 1])
    return [tuple(r) for r in out]


@pytest.mark.parametrize("volume, on", [(10, 29), (8, 25), (3, 9), (1, 3)])
def test_rasp_is_8_fast_cycles_and_a_slow_one_a_period(volume, on):
    """One period of f0 = 22 halves of 32 ticks: 8 cycles of the carrier (11 x f0): +1 for
    the volume's ticks, 0 for the rest of the half, -1, 0; then one cycle 3 times as slow;
    the state machine's clock 704 x f0. (At 250 Hz f0: a clock of 176 kHz.)"""
    sm, ticks = machine(volume, 0, 250)
    assert ticks == 704 and abs(sm.frequency - 176000) <= 1  # (the divider: 175,999 Hz)
    simclock.advance_us(20_000)
    rate = sm.frequency
    w = sm.waveform(0.5e6 / rate, 20_000, rate)  # (mid-tick: one sample a tick)
    fast = [(1.0, on), (0.0, 32 - on), (-1.0, on), (0.0, 32 - on)]
    slow = [(x, 3 * n) for x, n in fast]
    period = fast * 8 + slow
    got = runs(w[1:])  # (the first tick: the dispatch, 0)
    merged = runs([x for x, n in period for _ in range(n)] * 4)
    assert got[:len(merged) - 1] == merged[:-1]
    assert w[0] == 0.0


def test_square_is_a_cycle_of_two_halves_and_one_pin_plays_the_same_on_one_pin():
    """SQUARE at 880 Hz: +1, 0, -1, 0, a half 32 ticks, the clock 64 x the note; on one
    pin (QK_AUDIO = "piezo-gnd"), the pin high for the +1 part, low otherwise."""
    for one_pin in (False, True):
        sm, ticks = machine(8, 1, 880, one_pin)
        assert ticks == 64 and abs(sm.frequency - 56320) <= 1
        simclock.advance_us(5000)
        w = sm.waveform(0.5e6 / sm.frequency, 5000, sm.frequency)
        got = runs(w[1:])
        if one_pin:
            assert got[:4] == [(1.0, 25), (0.0, 39), (1.0, 25), (0.0, 39)]
        else:
            assert got[:5] == [(1.0, 25), (0.0, 7), (-1.0, 25), (0.0, 7), (1.0, 25)]


def test_silence_is_both_pins_low_and_the_machine_stopped():
    sm, _ = machine(10, 0, 300)
    simclock.advance_us(3333)
    sm.stop()
    sm.run(array("H", P.VOICES[2:]))
    sm.frequency = 0
    sm.restart()
    sm.stop()
    simclock.advance_us(10_000)
    assert set(sm.waveform(3400, 13_000, 48000)) == {0.0}
    assert sm.tone() == (0, None)


def test_a_button_on_the_second_pin_leaves_the_piezo_on_one_pin_said():
    """QK_PIN_B = "GP14" (the piezo's second pin taken by button B): the piezo plays on
    GP15 alone, and the console says why and what to wire; "piezo-gnd" says nothing."""
    sim = Sim('QK_PIN_B = "GP14"\n', players=3, board_name="pico")
    said = [s for _, s in sim.events if "QK_AUDIO" in s]
    assert said == ['QK_AUDIO = "piezo": its second pin: GP14 in use; the piezo on one pin, '
                    'its other leg to GND (QK_AUDIO = "piezo-gnd")'], said
    sim.press("klaxon", 500, 100)  # the klaxon, on one pin
    sim.run_until_ms(600)
    out = sim.device.p[Y.OUT]
    assert out.pins == [15] and set(out.waveform(500_000, 600_000, 100_000)) == {0.0, 1.0}
    sim = Sim('QK_AUDIO = "piezo-gnd"\n', players=3, board_name="pico")
    assert not [s for _, s in sim.events if "QK_AUDIO" in s]
    assert sim.device.p[Y.OUT].pins == [15]
    assert Sim(players=3, board_name="pico").device.p[Y.OUT].pins == [14, 15]


def test_the_units_are_tools_synths_piezo_pattern_and_square():
    """The one source of the sound design (tools/gen/synth.py): each of a RASP period's 22
    units (32 ticks) starts with synth.PIEZO's sign, and a SQUARE cycle's 2 with
    synth.SQUARE's; the unit's rest is the volume's gap (0)."""
    import synth

    for voice, pattern in ((0, synth.PIEZO), (1, synth.SQUARE)):
        sm, ticks = machine(10, voice, 200)
        simclock.advance_us(30_000)
        tick = 1e6 / sm.frequency
        units = [sm.waveform((1.5 + 32 * k) * tick, (3 + 32 * k) * tick, sm.frequency)[0]
                 for k in range(ticks // 32)]
        assert tuple(int(u) for u in units) == tuple(pattern), (voice, units)


def test_the_speaker_s_own_pin_taken_is_said_and_the_board_plays_on_silent():
    """QK_PIN_A = "GP15" (a button on the piezo's own pin): CircuitPython refuses each of a
    state machine's pins a DigitalInOut holds, so there is no sound, said on the console,
    and the Klaxon still flashes and counts (the breaker's find: the stand-in checked only
    the first pin, GP14, and played on)."""
    sim = Sim('QK_PIN_A = "GP15"\n', board_name="pico", players=3)
    said = [s for _, s in sim.events if "sound" in s]
    assert any(s.startswith("no sound:") and "GP15 in use" in s for s in said), said
    assert sim.device.p[Y.OUT] is None  # no part: nothing will drive GP15 against button A
    sim.press("klaxon", 500, 100)  # a try before the first question: it flashes, silent
    sim.run_until_ms(700)
    assert [n for _, n in sim.sounds()] == []


@pytest.mark.parametrize("audio", ["piezo", "piezo-gnd"])
def test_volume_0_starts_the_board_silent(audio):
    """QK_VOLUME = 0 ("0: silent"): the piezo's program is set up with no driven ticks, the
    board starts with no fault and the Klaxon flashes in silence (the breaker's find: a
    negative count overflowed the program's init word, and the real firmware stopped)."""
    sim = Sim('QK_VOLUME = 0\nQK_AUDIO = "%s"\n' % audio, board_name="pico", klaxon_only=True)
    assert not [s for _, s in sim.events if "no sound" in s or "Error" in s], sim.events
    sim.press("klaxon", 500, 100)
    sim.run_until_ms(2000)
    out = sim.device.p[Y.OUT]
    assert set(out.waveform(500_000, 2_000_000, 48000)) <= {0.0}  # never driven
    assert [n for _, n in sim.sounds()] == []


def test_a_speaker_on_gp0_has_no_pin_below_and_plays_on_one_pin_said():
    """QK_PIN_SPEAKER = "GP0": no GPIO below it for the second leg; the console says so and
    what to wire, and the piezo plays on GP0 alone."""
    sim = Sim('QK_PIN_SPEAKER = "GP0"\n', board_name="pico", klaxon_only=True)
    said = [s for _, s in sim.events if "QK_AUDIO" in s or "no sound" in s]
    assert said == ['QK_AUDIO = "piezo": its second pin: no pin below GPIO0; the piezo on one '
                    'pin, its other leg to GND (QK_AUDIO = "piezo-gnd")'], said
    sim.press("klaxon", 500, 100)
    sim.run_until_ms(700)
    out = sim.device.p[Y.OUT]
    assert out.pins == [0] and set(out.waveform(500_000, 700_000, 100_000)) == {0.0, 1.0}
