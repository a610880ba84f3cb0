"""Raspberry Pi Pico / Pico 2 DIY build.

Klaxon: arcade button from GP16 to GND; buttons A (GP17) and B (GP18) to
GND; all with internal pull-ups. Sound: a piezo on GP15 through ``pwmio``
tones (QK_AUDIO = "amp" for a small amplifier through ``audiopwmio``).
Lights: the on-board LED flashes; a NeoPixel strip on GP22 when QK_PIXELS
says how many.
"""

PROFILE = {
    "name": "pico",
    "klaxon": ("GP16", False),
    "a": ("GP17", False),
    "b": ("GP18", False),
    "switch": None,
    "audio": "pwm",
    "speaker": "GP15",
    "speaker_enable": None,
    "pixels": ("GP22", 0),
    "led": "LED",
    "sleep": "deep",
    "nvm": "log",  # saved-game layout (lib/qiklaxon/journal.py)
    "watchdog": True,
}
