"""Circuit Playground Express (smallest; SAMD21, ~16 KB heap free at start).

As the Bluefruit, but sound through the DAC (``audioio``) as tone sweeps, and
no ``alarm`` or watchdog: it never sleeps (see the README's battery table).
"""

PROFILE = (  # a tuple, not a dict: no key names in the board's RAM
    ('A1', False),  # klaxon: (pin, True if it pulls to +V: pressed reads True)
    ('BUTTON_A', True),  # a: button A, the same way (None: not wired)
    ('BUTTON_B', True),  # b: button B
    ('SLIDE_SWITCH', False),  # switch: (pin, its level when muted) or None
    0,  # audio: 0 DAC tones (audioio), 1 WAV files (audiopwmio), 2 a piezo (rp2pio tones)
    'SPEAKER',  # speaker: its pin
    'SPEAKER_ENABLE',  # speaker_enable: the amplifier's enable pin, or None
    ('NEOPIXEL', 10, True),  # pixels: (pin, how many NeoPixels (0: none unless QK_PIXELS says),
    # numbered counter-clockwise seen from above, face up (Adafruit's pinout: 0 to 4 down the
    # left from the USB socket, 5 to 9 up the right))
    None,  # led: an LED that flashes with the Klaxon, or None
    False,  # sleep: deep sleep until the Klaxon, where the port has alarm
    False,  # nvm: saved-game layout: True an append log (RP2040), False ping-pong
    False,  # watchdog: the port has a watchdog
)


def sound(pin, volume, audio, tones):
    """The speaker through the DAC (``audioio``): tone sweeps (``tones``, hardware/outputs.py)
    of one period of the RASP voice (tools/gen/synth.py's SPEAKER: 22 samples, 8-bit; the bits
    of 0x38CCCC set the low ones: tests/test_one_klaxon.py), as loud as QK_VOLUME says; the device plays it at
    22 x each sound's pitch (the chimes too: one 22-byte wave, no room for two):
    (output, (klaxon, denied, blip, done, undone, the wave)). No WAV files here: with them
    ``audioio`` would keep 1 KB of buffers."""
    import audiocore
    import audioio

    a = 127 * volume // 10  # up to 127 either side of the middle
    w = bytearray(22)
    for j in range(22):
        w[j] = 128 - a if 0x38CCCC >> j & 1 else 128 + a
    return audioio.AudioOut(pin), tones + (audiocore.RawSample(w, sample_rate=8000),)
