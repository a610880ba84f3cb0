"""Stand-in for ``audiomixer`` (host-only): one voice level per play is recorded."""

import simclock
import _audioout


class _Voice:
    def __init__(self, mixer):
        self._mixer = mixer
        self.level = 1.0
        self._end = 0
        self._sample = None

    def play(self, sample, *, loop=False):
        self._mixer.must_match(sample)
        now = simclock.now_us()
        self._sample = sample
        self._end = now + sample.duration_us
        _audioout.heard(sample, self.level)
        if _audioout.record:  # (a call with *args makes a tuple: none on the lanes)
            _audioout.note(self, "play", sample, self.level, sample.duration_us)

    def stop(self):
        if self.playing:
            _audioout.stops.append(simclock.now_us())
            if _audioout.record:
                _audioout.note(self, "stop")
        self._end = simclock.now_us()

    def waveform(self, t0_us, t1_us, rate):
        """Host only: the voice's samples times its level at each play (list of floats)."""
        import _drive

        return _drive.voice(self, t0_us, t1_us, rate).tolist()

    @property
    def playing(self):
        return self._sample is not None and simclock.now_us() < self._end


def _int(value, name, low, high=None):
    """An int argument as CircuitPython's mp_arg_validate_int_range checks it."""
    if not isinstance(value, int):
        raise TypeError("can't convert %s to int" % type(value).__name__)
    if value < low or (high is not None and value > high):
        raise ValueError("%s must be %d-%s" % (name, low, high))
    return value


class Mixer:
    """As CircuitPython's (shared-bindings/audiomixer/Mixer.c): its keyword arguments'
    defaults and checks, and a voice plays only a sample in the mixer's format
    (audiosample_must_match: a mono sample may play on a stereo mixer)."""

    def __init__(self, *, voice_count=2, buffer_size=1024, channel_count=2, bits_per_sample=16,
                 samples_signed=True, sample_rate=8000):
        voice_count = _int(voice_count, "voice_count", 1, 255)
        self.channel_count = _int(channel_count, "channel_count", 1, 2)
        self.sample_rate = _int(sample_rate, "sample_rate", 1)
        _int(buffer_size, "buffer_size", 0)
        if bits_per_sample not in (8, 16):
            raise ValueError("bits_per_sample must be 8 or 16")
        self.bits_per_sample = bits_per_sample
        self.samples_signed = bool(samples_signed)
        self.voice = tuple(_Voice(self) for _ in range(voice_count))
        self.duration_us = 0

    def must_match(self, sample):
        for name in ("sample_rate", "channel_count", "bits_per_sample", "samples_signed"):
            if getattr(sample, name) != getattr(self, name) and not (
                    name == "channel_count" and self.channel_count == 2):
                raise ValueError("The sample's %s does not match" % name)

    @property
    def playing(self):
        for v in self.voice:
            if v.playing:
                return True
        return False
