"""Stand-in for ``audiomixer`` (host-only): one voice level per play is recorded."""

import simclock
import _audioout


class _Voice:
    def __init__(self):
        self.level = 1.0
        self._end = 0
        self._sample = None

    def play(self, sample, *, loop=False):
        now = simclock.now_us()
        self._sample = sample
        self._end = now + sample.duration_us
        _audioout.heard(sample, self.level)

    def stop(self):
        if self.playing:
            _audioout.stops.append(simclock.now_us())
        self._end = simclock.now_us()

    @property
    def playing(self):
        return self._sample is not None and simclock.now_us() < self._end


class Mixer:
    def __init__(self, voice_count=1, **kwargs):
        self.voice = tuple(_Voice() for _ in range(voice_count))
        self.duration_us = 0

    @property
    def playing(self):
        for v in self.voice:
            if v.playing:
                return True
        return False
