"""The Circuit Playground Express's sound (hardware/profile_cpx.py): its DAC loops one
16-sample square wave, as loud as QK_VOLUME says (10: the DAC's whole swing but 768 either
end), whose pitch is its sample rate; the klaxon's sweep re-pitches it as it plays."""

import pytest

import _audioout
import audiocore
from harness import Sim


@pytest.mark.parametrize("volume", [1, 5, 10])
def test_the_express_plays_a_square_wave_as_loud_as_the_volume_says(monkeypatch, volume):
    waves = []

    class Wave(audiocore.RawSample):
        """As the board's: 16-bit samples in an array, a whole sample rate."""

        def __init__(self, buffer, *, channel_count=1, sample_rate=8000):
            assert isinstance(sample_rate, int)  # (the board's binding takes an int)
            waves.append((buffer.typecode, list(buffer), sample_rate))
            super().__init__(buffer, channel_count=channel_count, sample_rate=sample_rate)

    monkeypatch.setattr(audiocore, "RawSample", Wave)
    sim = Sim("QK_VOLUME = %d\n" % volume, board_name="cpx")
    high, low = 32768 + 3200 * volume, 32768 - 3200 * volume
    (typecode, samples, _), = waves
    assert (typecode, samples) == ("H", [high] * 8 + [low] * 8)  # unsigned, the DAC's own
    sim.press("klaxon", 300, 100)
    sim.run_until_ms(400)
    played = [(t // 1000, s) for t, _, s, _ in _audioout.plays if s.name == "raw"]
    assert played and played[0][0] in range(300, 311)  # at the press
    assert 16 * 190 <= played[0][1].sample_rate <= 16 * 430  # within the klaxon's sweep
