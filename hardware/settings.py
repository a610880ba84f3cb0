"""Settings from ``settings.toml``, the same way on every board.

The file is read once, by this module, rather than through ``os.getenv``:
the Circuit Playground Express has no ``os.getenv``, CircuitPython 10.2's
returns strings only, and each call re-reads the file. Only the simple
``KEY = value`` lines CircuitPython itself accepts are understood: whole
numbers, and strings in double quotes. Every key is typed and range
checked; a bad value is reported (``errors``) and its default used.
"""

from micropython import const

INT = const(0)
BOOL = const(1)
TEXT = const(2)

# key, kind, default, low, high, what it is (units)
KEYS = (
    ("QK_BOARD", TEXT, "", 0, 0, "build profile name; empty: chosen from the board"),
    ("QK_PLAYERS", INT, 4, 2, 10, "players at the table"),
    ("QK_FIRST_QM", INT, 0, 0, 9, "seat of the first Question Master"),
    ("QK_FINISH", INT, 0, 0, 9999, "square that ends the game; 0: the QM ends it"),
    ("QK_KLAXON_ONLY", BOOL, 0, 0, 1, "1: a pure Klaxon, even with more buttons wired"),
    ("QK_VOLUME", INT, 8, 0, 10, "loudness, 0 to 10"),
    ("QK_MUTE", BOOL, 0, 0, 1, "1: no sound (lights only)"),
    ("QK_BRIGHTNESS", INT, 20, 1, 100, "light brightness, percent"),
    ("QK_PIXELS", INT, -1, -1, 64, "NeoPixels wired; -1: the build's own"),
    ("QK_PIN_KLAXON", TEXT, "", 0, 0, "board pin of the Klaxon button"),
    ("QK_PIN_A", TEXT, "", 0, 0, "board pin of button A ('none': not wired)"),
    ("QK_PIN_B", TEXT, "", 0, 0, "board pin of button B ('none': not wired)"),
    ("QK_PIN_SPEAKER", TEXT, "", 0, 0, "board pin of the speaker, amp or piezo"),
    ("QK_PIN_PIXELS", TEXT, "", 0, 0, "board pin of the NeoPixels"),
    ("QK_AUDIO", TEXT, "", 0, 0, "Pico: 'piezo' (pwmio tones) or 'amp' (audiopwmio samples)"),
    ("QK_GLITCH_MS", INT, 2, 1, 5, "a press must hold this long to count, ms"),
    ("QK_REARM_MS", INT, 30, 10, 500, "release needed before the next press counts, ms"),
    ("QK_LONG_MS", INT, 700, 300, 3000, "a long press on A or B, ms"),
    ("QK_STUCK_S", INT, 10, 2, 120, "a Klaxon held this long is a stuck button, s"),
    ("QK_SLEEP_MIN", INT, 15, 0, 240, "idle minutes before sleeping; 0: never"),
)

DEFAULT_PATH = "/settings.toml"


class Settings:
    """Validated settings: ``get(key)``; ``errors`` lists what was wrong, in words."""

    def __init__(self, text=""):
        self.errors = []
        self._values = {}
        for key, kind, default, _, _, _ in KEYS:
            self._values[key] = default
        raw = parse(text, self.errors)
        for key, kind, default, low, high, _ in KEYS:
            if key in raw:
                self._take(key, kind, default, low, high, raw[key])

    def _take(self, key, kind, default, low, high, value):
        if kind == TEXT:
            if isinstance(value, str):
                self._values[key] = value
                return
            want = "a string in double quotes"
        else:
            if kind == BOOL and isinstance(value, str) and value.lower() in ("true", "false"):
                value = 1 if value.lower() == "true" else 0
            if isinstance(value, int) and low <= value <= high:
                self._values[key] = value
                return
            want = "0 or 1" if kind == BOOL else "a whole number from %d to %d" % (low, high)
        self.errors.append("%s = %r is not %s; using %r" % (key, value, want, default))

    def get(self, key):
        """The value of ``key`` (its default when unset or bad)."""
        return self._values[key]


def parse(text, errors):
    """``KEY = value`` lines into a dict; lines that are not understood go to ``errors``."""
    out = {}
    lineno = 0
    for line in text.split("\n"):
        lineno += 1
        line = line.strip()
        if not line or line[0] == "#" or line[0] == "[":
            continue
        eq = line.find("=")
        key = line[:eq].strip() if eq > 0 else ""
        value = _value(line[eq + 1:].strip()) if key else None
        if value is None:
            errors.append("settings.toml line %d not understood: %s" % (lineno, line))
        else:
            out[key] = value
    return out


def _value(text):
    """A TOML value as CircuitPython reads it: "string" or whole number (None if neither)."""
    if text[:1] == '"':
        end = text.find('"', 1)
        if end < 0 or text[end + 1:].strip()[:1] not in ("", "#"):
            return None
        return text[1:end]
    hash_at = text.find("#")
    if hash_at >= 0:
        text = text[:hash_at].strip()
    if text in ("true", "false"):
        return text
    try:
        return int(text, 0) if text[:2].lower() in ("0x", "0b", "0o") else int(text)
    except ValueError:
        return None


def load(path=DEFAULT_PATH):
    """Settings from ``path``; a missing file means every default, not an error."""
    try:
        with open(path) as f:
            text = f.read()
    except OSError:
        return Settings()
    try:
        return Settings(text)
    except MemoryError:
        s = Settings()
        s.errors.append("settings.toml is too large to read; using the defaults")
        return s
