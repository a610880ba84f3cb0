"""Circuit Playground Bluefruit (flagship; nRF52840).

Klaxon: an arcade button from pad A1 to GND (internal pull-up). The built-in
buttons A and B pull to +V (pressed reads True). The slide switch mutes.
Sound: the built-in speaker through ``audiopwmio``, amp enabled only while
sounding. Lights: the 10-pixel ring, one pixel a seat.
"""

PROFILE = (  # a tuple, not a dict: no key names in the board's RAM
    ('A1', False),  # klaxon: (pin, True if it pulls to +V: pressed reads True)
    ('BUTTON_A', True),  # a: button A, the same way (None: not wired)
    ('BUTTON_B', True),  # b: button B
    ('SLIDE_SWITCH', False),  # switch: (pin, its level when muted) or None
    1,  # audio: 0 DAC tones (audioio), 1 WAV files (audiopwmio), 2 a piezo (pwmio tones)
    'SPEAKER',  # speaker: its pin
    'SPEAKER_ENABLE',  # speaker_enable: the amplifier's enable pin, or None
    ('NEOPIXEL', 10, True),  # pixels: (pin, how many NeoPixels (0: none unless QK_PIXELS says),
    # numbered counter-clockwise seen from above, face up (Adafruit's pinout: 0 to 4 down the
    # left from the USB socket, 5 to 9 up the right))
    None,  # led: an LED that flashes with the Klaxon, or None
    True,  # sleep: deep sleep until the Klaxon, where the port has alarm
    False,  # nvm: saved-game layout: True an append log (RP2040), False ping-pong
    True,  # watchdog: the port has a watchdog
)


def sound(pin, volume, audio, tones, b=None):
    """The speaker through ``audiopwmio`` and an ``audiomixer`` voice (for the volume):
    (output, samples)."""
    import audiopwmio
    from hardware.mixer import mixed

    return mixed(audiopwmio.PWMAudioOut(pin), volume)
