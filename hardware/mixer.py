"""The WAV sounds through an ``audiomixer`` voice in front of an audio output, for the
volume (start-up only; the builds whose port has ``audiomixer``: not the Express, which
plays tone sweeps and never loads this)."""


def mixed(out, volume):
    """(the mixer's voice, the samples): the klaxon, denied, blip, done and undone sounds
    as WAV samples sharing one streaming buffer (one sound plays at a time); ``out`` plays
    the mixer for ever and the sounds play on its voice. The mixer takes one format, the
    first file's (the klaxon's): a file missing, bad or in another rate, channels or bits
    is silent, and says so; none at all is no sound (ValueError, as for no speaker)."""
    import sys

    import audiocore
    import audiomixer

    b = bytearray(256)
    snd = []
    one = None  # the format: the first file's rate, channels and bits
    for i in ("klaxon", "denied", "blip", "done", "undone"):
        try:
            w = audiocore.WaveFile(open("sounds/%s.wav" % i, "rb"), b)
            g = (w.sample_rate, w.channel_count, w.bits_per_sample)
            one = one or g
            if g != one:
                raise ValueError("%d Hz, %d channel(s), %d bits, not %d, %d, %d" % (g + one))
            snd.append(w)
        except (OSError, ValueError) as e:
            print("sounds/%s.wav missing or bad (%r): it will be silent" % (i, e))
            snd.append(None)
    # start-up only: this module leaves RAM (the profile's import left it in sys.modules)
    sys.modules.pop("hardware.mixer", None)
    if hasattr(sys.modules["hardware"], "mixer"):
        delattr(sys.modules["hardware"], "mixer")
    if not one:
        raise ValueError("no sounds/*.wav")
    m = audiomixer.Mixer(voice_count=1, sample_rate=one[0], channel_count=one[1],
                         bits_per_sample=one[2], samples_signed=one[2] > 8, buffer_size=1024)
    out.play(m)
    # Kept for as long as the board runs: nothing else holds the output (the device holds
    # the voice), and CircuitPython 10's PWMAudioOut deinits itself when collected (its
    # __del__): the sound stopped at start-up's first collection (the real Pico firmware's
    # lane: GP15 released some 10 ms after the mixer began)
    sys.modules["hardware"].out = out
    v = m.voice[0]
    v.level = volume / 10
    return v, tuple(snd)
