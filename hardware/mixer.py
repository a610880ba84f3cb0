"""An ``audiomixer`` voice in front of an audio output, for the volume (start-up only;
builds whose port has ``audiomixer``: not the Express)."""


def mixed(out, volume, snd):
    """(the mixer's voice, ``snd``): ``out`` plays the mixer for ever; sounds play on its voice,
    in the format of the first there (outputs.wavs(True): they all have it)."""
    import audiomixer

    for f in snd:
        if f:
            break
    else:
        raise ValueError("no sounds/*.wav")
    m = audiomixer.Mixer(voice_count=1, sample_rate=f.sample_rate, channel_count=f.channel_count,
                         bits_per_sample=f.bits_per_sample, samples_signed=f.bits_per_sample > 8,
                         buffer_size=1024)
    out.play(m)
    v = m.voice[0]
    v.level = volume / 10
    return v, snd
