"""Circuit Playground Bluefruit (flagship; nRF52840).

Klaxon: an arcade button from pad A1 to GND (internal pull-up). The built-in
buttons A and B pull to +V (pressed reads True). The slide switch mutes.
Sound: the built-in speaker through ``audiopwmio``, amp enabled only while
sounding. Lights: the 10-pixel ring, one pixel a seat.
"""

PROFILE = {
    "name": "cpb",
    "klaxon": ("A1", False),
    "a": ("BUTTON_A", True),
    "b": ("BUTTON_B", True),
    "switch": ("SLIDE_SWITCH", False),  # mute while the switch reads False (to the right)
    "audio": "pwmaudio",
    "speaker": "SPEAKER",
    "speaker_enable": "SPEAKER_ENABLE",
    "pixels": ("NEOPIXEL", 10),
    "led": None,
    "sleep": "deep",
    "nvm": "pingpong",  # saved-game layout (lib/qiklaxon/journal.py)
    "watchdog": True,
}
