"""Stand-in for ``audiocore`` (host-only): samples that know their file and length."""


class WaveFile:
    """A WAV file opened for playback; records its path and duration."""

    def __init__(self, file, buffer=None):
        self.file = file
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

    def deinit(self):
        self.file.close()


class RawSample:
    def __init__(self, buffer, *, channel_count=1, sample_rate=8000):
        self.name = "raw"
        self.sample_rate = sample_rate
        self.channel_count = channel_count
        self.duration_us = len(buffer) * 1000000 // (sample_rate * channel_count)
