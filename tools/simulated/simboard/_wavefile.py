"""Stand-in for ``audiocore.WaveFile`` (host-only): samples that know their file and length.

On the Express a WaveFile is 64 bytes of heap and its open FatFs file 96
(shared/circuitpython's unix build, measured through its FAT VFS); ``_c``
pads this stand-in so that the CircuitPython lane's heap counts them.
"""

import _audioout


class WaveFile:
    """A WAV file opened for playback; records its path and duration."""

    def __init__(self, file, buffer=None):
        self.file = file
        # CircuitPython's takes a buffer of 8 to 1024 bytes and streams through its two
        # halves, or allocates two of 256 bytes of its own
        if buffer is not None and not 8 <= len(buffer) <= 1024:
            raise ValueError("buffer length must be 8-1024")
        self.buffer = bytearray(512) if buffer is None else buffer
        self.name = getattr(file, "name", "?")
        head = file.read(44)
        if len(head) < 44 or head[0:4] != b"RIFF" or head[8:12] != b"WAVE":
            raise ValueError("not a WAV file: %s" % self.name)
        self.channel_count = head[22] | head[23] << 8
        self.sample_rate = head[24] | head[25] << 8 | head[26] << 16
        self.bits_per_sample = head[34] | head[35] << 8
        size = head[40] | head[41] << 8 | head[42] << 16 | head[43] << 24
        self.frames = size // (self.channel_count * self.bits_per_sample // 8)
        self.duration_us = self.frames * 1000000 // self.sample_rate
        self._c = bytearray(32)

    @property
    def samples_signed(self):  # (a class attribute: no heap per sample on the lane)
        return self.bits_per_sample > 8

    def deinit(self):
        self.file.close()


class RawSample:
    """A sample in a buffer (``array``); few attributes, as the C object is small.
    ``length`` in bytes is the one DMA buffer it needs; it plays looped here."""

    name = "raw"
    duration_us = 0

    def __init__(self, buffer, *, channel_count=1, sample_rate=8000):
        # (the SAMD21's DMA buffer: the sample's bytes; 8-bit samples go to the DAC's top byte)
        self.length = len(buffer) * (1 if isinstance(buffer, bytearray) else 2)
        self.sample_rate = sample_rate
        if _audioout.record:  # (the C object points at it; here only the host keeps it: its
            self.buffer = buffer  # contents at each play are what the DAC plays)
