"""Simulated build: Adafruit Blinka's OS-agnostic board on a PC.

Buttons are pulled up and read False when pressed, like the Pico build's;
the harness scripts their levels. Sound goes to a recorded audio output,
lights to a 10-pixel ring drawn in the terminal.
"""

PROFILE = (  # a tuple, not a dict: no key names in the board's RAM
    ('Dx_INPUT_TRUE_PULL_UP', False),  # klaxon: (pin, True if it pulls to +V: pressed reads True)
    ('Dx_INPUT_TOGGLE', False),  # a: button A, the same way (None: not wired)
    ('Dx_INPUT_TRUE', False),  # b: button B
    None,  # switch: (pin, its level when muted) or None
    1,  # audio: 0 DAC tones (audioio), 1 WAV files (audiopwmio), 2 a piezo (pwmio tones)
    'Ax_OUTPUT',  # speaker: its pin
    'Dx_OUTPUT',  # speaker_enable: the amplifier's enable pin, or None
    ('NEOPIXEL', 10, True),  # pixels: (pin, how many NeoPixels (0: none unless QK_PIXELS says),
    # numbered counter-clockwise seen from above, face up: the page draws it as a Circuit Playground's ring)
    None,  # led: an LED that flashes with the Klaxon, or None
    True,  # sleep: deep sleep until the Klaxon, where the port has alarm
    True,  # nvm: saved-game layout: True an append log (RP2040), False ping-pong
    False,  # watchdog: the port has a watchdog
)


def sound(pin, volume, audio, tones, b=None):
    """The speaker through ``audiopwmio`` and an ``audiomixer`` voice (for the volume):
    (output, samples)."""
    import audiopwmio
    from hardware.mixer import mixed

    return mixed(audiopwmio.PWMAudioOut(pin), volume)
