"""What the stand-in audio outputs share: every play is recorded with its time, and
each output keeps what it is driven with (``drive``), which its ``waveform()`` renders
(host only: tools/simulated/simboard/_drive.py)."""

import simclock

plays = []  # [t_us, sample name, sample, level] of each play, in order
stops = []  # t_us of each stop()
outputs = []  # every output made (audio outputs, PWM pins) while recording, in order
listener = None  # called with the sound's name ("klaxon") at each play
record = True  # keep ``plays``, ``outputs`` and each output's ``drive`` (the CircuitPython
# lane does not: its heap is the firmware's)


def reset():
    del plays[:]
    del stops[:]
    del outputs[:]


def made(out):
    """An output was made: kept in ``outputs`` (recording only)."""
    if record:
        outputs.append(out)


def note(obj, *what):
    """``obj`` (an output or a voice) is driven with ``what`` from now: kept in its
    ``drive`` list as (t_us, *what) (recording only: no attribute, no heap, otherwise)."""
    if record:
        d = getattr(obj, "drive", None)
        if d is None:
            d = obj.drive = []
        d.append((simclock.now_us(),) + what)


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
        made(self)

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
        if record:  # a RawSample's buffer as it is now, and the rate the DAC's timer takes
            b = getattr(sample, "buffer", None)
            code = "B" if isinstance(b, (bytes, bytearray)) else getattr(b, "typecode", "h")
            note(self, "play", sample, None if b is None else (code, list(b)),
                 sample.sample_rate, loop, -1 if loop or hasattr(sample, "voice")
                 else sample.duration_us)

    def stop(self):
        if self.playing and record:
            stops.append(simclock.now_us())
            note(self, "stop")
        self._end = simclock.now_us()

    @property
    def playing(self):
        if hasattr(self._sample, "voice"):
            return True
        return self._sample is not None and (self._end < 0 or simclock.now_us() < self._end)

    def deinit(self):
        if record and self.playing:
            note(self, "stop")
        self._sample = None

    def waveform(self, t0_us, t1_us, rate):
        """Host only: the level on its pin from ``t0_us`` to ``t1_us`` (simulated time) as
        ``rate`` samples a second, in full swing about the middle (list of floats)."""
        import _drive

        return _drive.audio_out(self, t0_us, t1_us, rate).tolist()


def heard(sample, level):
    """Record a play of ``sample`` and tell the listener."""
    if record:
        plays.append([simclock.now_us(), sample.name, sample, level])
    if listener is not None:
        name = sample.name.replace("\\", "/").split("/")[-1]
        listener(name[:-4] if name.endswith(".wav") else name)
