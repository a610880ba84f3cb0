"""Raspberry Pi Pico / Pico 2 DIY build.

Klaxon: arcade button from GP16 to GND; buttons A (GP17) and B (GP18) to
GND; all with internal pull-ups. Sound: a piezo on GP15 through ``pwmio``
tones (QK_AUDIO = "amp" for a small amplifier through ``audiopwmio``).
Lights: the on-board LED flashes; a NeoPixel strip on GP22 when QK_PIXELS
says how many.
"""

if __debug__:  # CPython needs const; the Express's mpy-cross -O3 drops this import
    from micropython import const

_P_SPEAKER_ENABLE = const(6)  # (lib/qiklaxon/layout.py's)

PROFILE = (  # a tuple, not a dict: no key names in the board's RAM
    ('GP16', False),  # klaxon: (pin, True if it pulls to +V: pressed reads True)
    ('GP17', False),  # a: button A, the same way (None: not wired)
    ('GP18', False),  # b: button B
    None,  # switch: (pin, its level when muted) or None
    2,  # audio: 0 DAC tones (audioio), 1 WAV files (audiopwmio), 2 a piezo (pwmio tones)
    'GP15',  # speaker: its pin
    None,  # speaker_enable: the amplifier's enable pin, or None
    ('GP22', 0, False),  # pixels: (pin, how many NeoPixels (0: none unless QK_PIXELS says),
    # numbered counter-clockwise seen from above, face up: False, a strip or ring wired
    # clockwise; QK_PIXELS_CCW = 1 for one wired the other way)
    'LED',  # led: an LED that flashes with the Klaxon, or None
    True,  # sleep: deep sleep until the Klaxon, where the port has alarm
    True,  # nvm: saved-game layout: True an append log (RP2040), False ping-pong
    True,  # watchdog: the port has a watchdog
)


AMP_SD = 'GP14'  # QK_AUDIO = "amp": the amplifier's SD (shutdown) pin (docs/build-guide.md)


def sound(pin, volume, audio, tones):
    """A piezo through ``pwmio`` tones, or with QK_AUDIO = "amp" a small amplifier
    through ``audiopwmio`` and an ``audiomixer`` voice: (output, samples). The amplifier's
    SD pin is then the speaker's enable: on only while a sound plays."""
    if audio == "amp":
        global PROFILE
        # its enable: the amplifier's SD (hardware/outputs.py reads PROFILE again after this)
        PROFILE = PROFILE[:_P_SPEAKER_ENABLE] + (AMP_SD,) + PROFILE[_P_SPEAKER_ENABLE + 1:]
        import audiopwmio
        from hardware.mixer import mixed

        return mixed(audiopwmio.PWMAudioOut(pin), volume)
    import pwmio

    return pwmio.PWMOut(pin, frequency=440, duty_cycle=0, variable_frequency=True), tones + (
        None,)
