"""Circuit Playground Express (smallest; SAMD21, ~14 KB heap free at start).

As the Bluefruit, but sound through the DAC (``audioio``) and no ``alarm``
or watchdog: it never sleeps (see the README's battery table).
"""

PROFILE = {
    "name": "cpx",
    "klaxon": ("A1", False),
    "a": ("BUTTON_A", True),
    "b": ("BUTTON_B", True),
    "switch": ("SLIDE_SWITCH", False),
    "audio": "dac",
    "speaker": "SPEAKER",
    "speaker_enable": "SPEAKER_ENABLE",
    "pixels": ("NEOPIXEL", 10),
    "led": None,
    "sleep": None,
    "nvm": "pingpong",  # saved-game layout (lib/qiklaxon/journal.py)
    "watchdog": False,
}
