"""Circuit Playground Bluefruit (flagship; nRF52840).

Klaxon: an arcade button from pad A1 to GND (internal pull-up). The built-in
buttons A and B pull to +V (pressed reads True). The slide switch mutes.
Sound: the built-in speaker through ``audiopwmio``, amp enabled only while
sounding. Lights: the 10-pixel ring, one pixel a seat.
"""

if __debug__:  # CPython needs const; the Express's mpy-cross -O3 drops this import
    from micropython import const

_P_SPEAKER_ENABLE = const(6)  # (model/layout.py's)

PROFILE = (  # a tuple, not a dict: no key names in the board's RAM
    ('A1', False),  # klaxon: (pin, True if it pulls to +V: pressed reads True)
    ('BUTTON_A', True),  # a: button A, the same way (None: not wired)
    ('BUTTON_B', True),  # b: button B
    ('SLIDE_SWITCH', False),  # switch: (pin, its level when muted) or None
    1,  # audio: 0 DAC tones (audioio), 1 WAV files (audiopwmio), 2 a piezo (rp2pio tones)
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


AMP_SD = 'A2'  # QK_AUDIO = "amp": an amplifier on pad A0, its SD (shutdown) on this pad


def sound(pin, volume, audio, tones):
    """The speaker through ``audiopwmio`` and an ``audiomixer`` voice (for the volume):
    (output, samples). With QK_AUDIO = "amp" an amplifier on pad A0 (the speaker's signal)
    whose SD pin, on pad A2, is the enable instead of the built-in speaker's: the big
    speaker sounds, on only while a sound plays; the built-in one stays off."""
    if audio == "amp":
        global PROFILE
        # its enable: the amplifier's SD (hardware/outputs.py reads PROFILE again after this)
        PROFILE = PROFILE[:_P_SPEAKER_ENABLE] + (AMP_SD,) + PROFILE[_P_SPEAKER_ENABLE + 1:]
    import audiopwmio
    from hardware.mixer import mixed

    return mixed(audiopwmio.PWMAudioOut(pin), volume)
