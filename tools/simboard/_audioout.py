"""What the stand-in audio outputs share: every play is recorded with its time."""

import simclock

plays = []  # [t_us, sample name, sample, level] of each play, in order
stops = []  # t_us of each stop()


def reset():
    del plays[:]
    del stops[:]


class AudioOut:
    """``audiopwmio.PWMAudioOut`` / ``audioio.AudioOut`` on the simulated board."""

    def __init__(self, left_channel, *args, **kwargs):
        self.pin = left_channel
        self._sample = None
        self._start = 0
        self._end = 0

    def play(self, sample, *, loop=False):
        self._sample = sample
        self._start = simclock.now_us()
        self._end = self._start + getattr(sample, "duration_us", 0)
        if not hasattr(sample, "voice"):  # a mixer records its voices' plays itself
            plays.append([self._start, sample.name, sample, 1.0])

    def stop(self):
        if self.playing:
            stops.append(simclock.now_us())
        self._end = simclock.now_us()

    @property
    def playing(self):
        if hasattr(self._sample, "voice"):
            return True
        return self._sample is not None and simclock.now_us() < self._end

    def deinit(self):
        self._sample = None
