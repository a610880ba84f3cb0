"""The Circuit Playground Express's sound (hardware/profile_cpx.py): its DAC loops one
22-sample wave, as loud as QK_VOLUME says (10: 8-bit samples 127 either side of the middle),
whose pitch is its sample rate / 22; the klaxon's sweep re-pitches it as it plays. The wave
is the RASP voice tools/gen/synth.py designs for a speaker (synth.SPEAKER)."""

import pytest

import _audioout
import audiocore
import synth
from harness import Sim


@pytest.mark.parametrize("volume", [1, 5, 10])
def test_the_express_plays_its_voices_as_loud_as_the_volume_says(monkeypatch, volume):
    waves = []

    class Wave(audiocore.RawSample):
        """As the board's: a buffer of samples, a whole sample rate."""

        def __init__(self, buffer, *, channel_count=1, sample_rate=8000):
            assert isinstance(sample_rate, int)  # (the board's binding takes an int)
            waves.append((type(buffer), list(buffer), sample_rate))
            super().__init__(buffer, channel_count=channel_count, sample_rate=sample_rate)

    monkeypatch.setattr(audiocore, "RawSample", Wave)
    sim = Sim("QK_VOLUME = %d\n" % volume, board_name="cpx")
    high, low = 128 + 127 * volume // 10, 128 - 127 * volume // 10
    (kind, samples, _), = waves
    assert kind is bytearray and len(samples) == 22  # unsigned 8-bit
    table = samples
    sim.press("klaxon", 300, 100)
    sim.run_until_ms(400)
    played = [(t // 1000, s) for t, _, s, _ in _audioout.plays if s.name == "raw"]
    assert played and played[0][0] in range(300, 311)  # at the press
    assert 22 * 190 <= played[0][1].sample_rate <= 22 * 430  # within the klaxon's sweep
    assert table == [high if v > 0 else low for v in synth.SPEAKER]  # the RASP
    sim.tap("b", 2000)  # the QM asks: the blip, in the same voice (one wave: the RAM)
    sim.run_until_ms(2300)
    assert sim.sounds()[-1][1] == "blip"
    played = [s for t, _, s, _ in _audioout.plays if s.name == "raw"]
    assert played[-1].sample_rate == 22 * 1800  # a period of the blip's note
