"""The amplifier option (QK_AUDIO = "amp") on CircuitPython itself: the CircuitPython 10
unix lane (tools/lanes/cpvm.py) plays a question with it on the Pico and the Bluefruit and gives
the harness's lines; the real Pico firmware (tools/lanes/pico.py, rp2040js) starts it, plays
audiopwmio on GP15 (CircuitPython's 122 kHz, 10-bit PWM) and keeps it past start-up, and
switches the amplifier's SD (GP14) high when the Klaxon sounds. Each lane skips where its
kit is missing, as tests/test_cp.py and tests/test_pico.py do."""

import os

import pytest

import cpvm
import scenario
from harness import Sim

AMP = 'QK_AUDIO = "amp"\n'


def _cp_or_skip():
    if cpvm.find() is None:
        if os.environ.get("QK_REQUIRE_CP"):
            raise RuntimeError("QK_REQUIRE_CP is set: " + cpvm.HOW_TO_GET)
        pytest.skip(cpvm.HOW_TO_GET)


@pytest.mark.parametrize("profile", ["pico", "cpb"])
def test_the_amplifier_option_plays_a_question_on_circuitpython(profile):
    _cp_or_skip()
    d = cpvm.Drive(profile, settings=AMP)
    try:
        assert os.path.exists(os.path.join(d.path, "hardware", "mixer.mpy"))
        assert os.path.exists(os.path.join(d.path, "sounds", "klaxon.wav"))
        lines, _, out, ok = d.run(scenario.taps(scenario.QUESTION), 9000)
    finally:
        d.close()
    assert ok, out[-2000:]
    for word in ("MemoryError", "Traceback", "cannot start", "fault:", "no sound", "missing"):
        assert word not in out, out[-2000:]
    sim = Sim(AMP, board_name=profile)
    sim.play(scenario.taps(scenario.QUESTION), 9000)
    assert lines == sim.canonical()
    assert {"ask", "klaxon", "reveal"} <= {line.split()[1] for line in lines}


def test_the_amplifier_option_starts_and_sounds_on_the_real_pico_firmware():
    """Short (the emulator is slow while audio DMA runs): start-up, then a Klaxon at
    100 ms. GP15 runs audiopwmio's PWM (125 MHz / 1024: 122 kHz) and is not released while
    the firmware runs (CircuitPython 10's PWMAudioOut deinits itself if collected); GP14,
    the amplifier's SD, goes high with the klaxon; no error line on the console."""
    import pico

    missing = pico.missing()
    if missing:
        if os.environ.get("QK_REQUIRE_PICO"):
            raise RuntimeError(missing)
        pytest.skip(missing)
    with pico.Drive(pico.settings_text(AMP, klaxon_only=True)) as d:
        r = pico.run(d, scenario.taps("100 klaxon"), ms=150, pins=(14, 15))
    console = [rec["text"] for rec in r.records if rec["kind"] == "uart0"]
    assert "klaxon sounded" in console, console
    for word in ("Traceback", "Error", "no sound", "missing", "cannot start", "fault:"):
        assert not [c for c in console if word in c], console
    pwm = [rec for rec in r.records if rec["kind"] == "pwm" and rec.get("pin") == 15]
    assert [p for p in pwm if "config" in p["text"] and abs(p.get("freq", 0) - 122070.3) < 1]
    assert not [p for p in pwm if "released" in p["text"]], [p["text"] for p in pwm][-5:]
    sd = [(round(rec["t"]), rec["value"]) for rec in r.records
          if rec["kind"] == "gpio" and rec.get("pin") == 14 and "value" in rec]
    # (measured: the klaxon's line at 115 ms, SD high at 117 ms, a press at 100 ms: this
    # first press after start-up, with the mixer's DMA running, is slower than the piezo
    # build's <= 10 ms; reported, not yet a budget here)
    assert sd and sd[-1][1] == 1 and 100 <= sd[-1][0] <= 125, sd
    assert [v for _, v in sd] == [0, 1]  # low from start-up until the klaxon
    # Not held here: how long the klaxon plays. rp2040js 1.4.1 paces DMA by a pacing timer
    # upside down (its getTimer() takes X/Y for the period, not Y/X: CircuitPython's
    # 16 kHz, X/Y = 16000/125 MHz, becomes ~1e-6 us a transfer), so audiopwmio's samples go
    # out unpaced: the 1.3 s klaxon.wav plays in 12 ms straight to PWMAudioOut (a bare
    # code.py), in ~45 ms through the mixer, and the voice ends ~95 ms after it began
    # (GP14 low at ~211 ms). On a board the DMA timer paces it at 16 kHz.
