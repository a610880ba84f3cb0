"""An ``audiomixer`` voice in front of an audio output, for the volume (start-up only;
builds whose port has ``audiomixer``: not the Express)."""


def mixed(out, volume, snd):
    """(the mixer's voice, ``snd``): ``out`` plays the mixer for ever; sounds play on its voice."""
    import audiomixer

    m = audiomixer.Mixer(voice_count=1, sample_rate=snd[0].sample_rate, channel_count=1,
                         bits_per_sample=16, samples_signed=True, buffer_size=1024)
    out.play(m)
    v = m.voice[0]
    v.level = volume / 10
    return v, snd
