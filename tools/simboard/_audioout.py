"""What the stand-in audio outputs share: every play is recorded with its time."""

import simclock

plays = []  # [t_us, sample name, sample, level] of each play, in order
stops = []  # t_us of each stop()
listener = None  # called with the sound's name ("klaxon") at each play
record = True  # keep ``plays`` (the CircuitPython lane does not: its heap is the firmware's)


def reset():
    del plays[:]
    del stops[:]


class AudioOut:
    """``audiopwmio.PWMAudioOut`` / ``audioio.AudioOut`` on the simulated board."""

    def __init__(self, left_channel, *args, **kwargs):
        if left_channel is None:  # (CircuitPython: a Pin, or TypeError)
            raise TypeError("left_channel must be of type Pin, not NoneType")
        self.pin = left_channel
        self._dma = None
        self._sample = None
        self._start = 0
        self._end = 0

    def play(self, sample, *, loop=False):
        n = getattr(sample, "length", 0)  # as on the SAMD21: its DMA buffers, kept; a WaveFile's
        if self._dma is None or len(self._dma) < (n or 1024):  # two of 512, a RawSample's one
            self._dma = bytearray(n or 1024)
        self._sample = sample
        self._start = simclock.now_us()
        # -1: looped, for ever (a small int: the lane's heap is the firmware's)
        self._end = -1 if loop else self._start + getattr(sample, "duration_us", 0)
        if not hasattr(sample, "voice"):  # a mixer records its voices' plays itself
            heard(sample, 1.0)

    def stop(self):
        if self.playing and record:
            stops.append(simclock.now_us())
        self._end = simclock.now_us()

    @property
    def playing(self):
        if hasattr(self._sample, "voice"):
            return True
        return self._sample is not None and (self._end < 0 or simclock.now_us() < self._end)

    def deinit(self):
        self._sample = None


def heard(sample, level):
    """Record a play of ``sample`` and tell the listener."""
    if record:
        plays.append([simclock.now_us(), sample.name, sample, level])
    if listener is not None:
        name = sample.name.replace("\\", "/").split("/")[-1]
        listener(name[:-4] if name.endswith(".wav") else name)
