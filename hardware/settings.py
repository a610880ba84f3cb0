"""Start-up, its first step: the settings (code.py then frees this module).

From ``settings.toml``, the same way on every board: the Express has no
``os.getenv``, and CircuitPython 10.2's returns only strings (re-reading the file
each call), so ``read`` reads the file once, line by line, as bytes. Only the lines
CircuitPython understands are read: ``KEY = 12`` and ``KEY = "text"``. Anything
else is reported with its line number (a bad value, an unknown or wrongly cased
key, a byte order mark, not ``KEY = value``, not UTF-8, UTF-16, a ``[table]``,
after which CircuitPython reads no key) and keeps its default; the device starts.
The keys' meanings: settings.example.toml and the README (tests hold them to ``KEYS``).
"""


# The settings: name, default, lowest, highest (lowest > highest: text). Made by
# python3 tools/dev.py regen from model/layout.py's SETTING_ROWS: edit a row there
KEYS = (
    ("QK_BOARD", "", 1, 0),
    ("QK_PLAYERS", 4, 2, 10),
    ("QK_FIRST_QM", 0, 0, 9),
    ("QK_FINISH", 0, 0, 9999),
    ("QK_KLAXON_ONLY", 0, 0, 1),
    ("QK_VOLUME", 8, 0, 10),
    ("QK_MUTE", 0, 0, 1),
    ("QK_BRIGHTNESS", 20, 1, 100),
    ("QK_PIXELS", -1, -1, 64),
    ("QK_PIN_KLAXON", "", 1, 0),
    ("QK_PIN_A", "", 1, 0),
    ("QK_PIN_B", "", 1, 0),
    ("QK_PIN_SPEAKER", "", 1, 0),
    ("QK_PIN_PIXELS", "", 1, 0),
    ("QK_AUDIO", "", 1, 0),
    ("QK_GLITCH_MS", 2, 1, 5),
    ("QK_REARM_MS", 30, 10, 500),
    ("QK_LONG_MS", 1500, 1200, 3000),
    ("QK_STUCK_S", 10, 2, 120),
    ("QK_SLEEP_MIN", 15, 0, 240),
    ("QK_PIXELS_CCW", -1, -1, 1),
)


def read(p=None):
    """(the settings in ``KEYS``' order, how many lines were reported) from ``p``,
    settings.toml's lines (default: the file; none: the defaults)."""
    f = None
    if p is None:
        try:
            f = p = open("settings.toml", "rb")  # bytes: a stray byte is no UnicodeError
        except OSError:
            p = ()
    out = []
    for k in KEYS:
        out.append(k[1])
    bad = 0
    no = 0
    seen = 0  # the keys read so far, a bit each
    try:
        p = iter(p)
        while True:  # (not a for loop: a line too long to read is named by its own number)
            no += 1
            line = next(p)  # (StopIteration: the end)
            # As bytes: indexing a string makes one-letter strings, which stay in RAM as names.
            if not isinstance(line, bytes):  # (host tools: text, any stray byte escaped)
                line = line.encode("utf-8", "surrogateescape")
            if no == 1 and line[:3] == b"\xef\xbb\xbf":
                print("settings.toml line 1: starts with a byte order mark; read without it")
                bad += 1
                line = line[3:]
            if no == 1 and line[:2] in (b"\xff\xfe", b"\xfe\xff"):
                print("settings.toml is UTF-16 text: save it as UTF-8; using the defaults")
                return out, bad + 1
            line = line.strip()
            if not line or line[0] == 35:  # a comment
                continue
            if line[0] == 91:  # a [table]: CircuitPython reads only the keys above it
                print("settings.toml line %d: a [table]; the lines after it are not read, as "
                      "CircuitPython does not read them" % no)
                return out, bad + 1
            seen, why = entry(line, out, seen)  # (one letter each there: see entry())
            if why is None:
                continue
            print("settings.toml line %d: %s" % (no, why))
            bad += 1
    except StopIteration:
        pass
    except MemoryError:  # a line too long for the board's RAM: the rest unread
        print("settings.toml line %d: too long to read; the lines after it are not read" % no)
        bad += 1
    finally:
        if f:
            f.close()
    return out, bad


def entry(b, out, s):
    """One ``KEY = value`` line ``b`` (stripped bytes, not a comment) into ``out``: (``s``,
    the keys read so far a bit each, with its key's; why it is ignored, or None).
    (One letter each: a parameter's name is interned on the Express, where the names
    budget is nearly full.)"""
    line = b
    seen = s
    i = line.find(b"=")
    text = line[i + 1:].strip()  # the value, and a comment after it cut off
    j = text.find(b'"', 1) + 1 if text[:1] == b'"' else 0
    if j and text[j:].strip()[:1] in (b"", b"#"):
        text = text[:j]
    elif not j:
        text = text.split(b"#")[0].strip()
    try:
        if b"\x00" in line:  # (UTF-16 without its mark)
            raise ValueError
        key = line[:i].strip().decode() if i > 0 else ""
        text = text.decode()
    except ValueError:  # (UnicodeError)
        return seen, "not UTF-8 text; ignored"
    keys = KEYS
    for k in range(len(keys)):
        name, default, low, high = keys[k]
        if name == key or name == key.upper():
            break
    else:
        k = -1
    if not key:
        return seen, "not KEY = value; ignored"
    if k < 0:
        if "QK" not in key.upper():
            return seen, None  # CircuitPython's own (CIRCUITPY_...) and other programs' keys
        return seen, "unknown key %s; ignored" % key[:40]
    if name != key:
        return seen, "%s must be upper case (%s); ignored" % (key, name)
    if seen >> k & 1:  # (TOML allows a key once)
        return seen, "%s is given again; only its first line is read" % key
    seen |= 1 << k
    value = None
    if text[:1] == '"':  # "text"
        if text.count('"') == 2 and text[-1:] == '"':
            value = text[1:-1]
    elif text.lstrip("-").isdigit() and len(text.encode()) == len(text):
        # (decimal digits only, ASCII ones, as on every board)
        try:
            value = int(text)
        except ValueError:
            pass
    if low > high:
        if isinstance(value, str):
            out[k] = value
            return seen, None
        want = "text in double quotes"
    else:
        if isinstance(value, int) and low <= value <= high:
            out[k] = value
            return seen, None
        want = "a whole number from %d to %d" % (low, high)
    return seen, "%s = %s is not %s; using %r" % (key, text[:20], want, default)
