"""Simulated build: Adafruit Blinka's OS-agnostic board on a PC.

Buttons are pulled up and read False when pressed, like the Pico build's;
the harness scripts their levels. Sound goes to a recorded audio output,
lights to a 10-pixel ring drawn in the terminal.
"""

PROFILE = {
    "name": "simulated",
    "klaxon": ("Dx_INPUT_TRUE_PULL_UP", False),  # (pin, level when pressed)
    "a": ("Dx_INPUT_TOGGLE", False),
    "b": ("Dx_INPUT_TRUE", False),
    "switch": None,
    "audio": "pwmaudio",
    "speaker": "Ax_OUTPUT",
    "speaker_enable": "Dx_OUTPUT",
    "pixels": ("NEOPIXEL", 10),
    "led": None,
    "sleep": "deep",
    "nvm": "log",  # saved-game layout (lib/qiklaxon/journal.py)
    "watchdog": False,
}
