"""Start-up, its second step (hardware/steps.py): the build's profile, the buttons.

Each step drops its module when done (no closures or references left), so each is
in RAM alone. Names are few and short: each stays in RAM, interned, after the module.
"""

import sys

if __debug__:  # CPython needs const; the Express's mpy-cross -O3 drops this import
    from micropython import const

# names: made by tools/gen/consts.py from model/layout.py (python3 tools/dev.py regen)
_P_KLAXON = const(0)
_PIN = const(0)
_LEVEL = const(1)
_QK_BOARD = const(0)
_QK_PLAYERS = const(1)
_QK_FIRST_QM = const(2)
_QK_KLAXON_ONLY = const(4)
_QK_PIN_KLAXON = const(9)
_QK_PIN_A = const(10)
_QK_PIN_B = const(11)
_QK_GLITCH_MS = const(15)
_QK_LONG_MS = const(17)
# (end of the names)


def start(s, b=None, d=None):
    """The parts from ``s`` (settings.py's ``read()``) on board ``b`` (default: ``board``);
    ``d(1, 6)`` rolls a die (default: ``random.randint``). A build that cannot start
    says why and blinks its LED: never a crash loop."""
    if b is None:
        import board as b
    try:
        v, bad = s
        del s
        want = v[_QK_BOARD]
        first = v[_QK_FIRST_QM]

        bid = b.board_id
        n = None
        for i, p in (("circuitplayground_bluefruit", "cpb"), ("circuitplayground_express", "cpx"),
                     ("raspberry_pi_pico", "pico"), ("OS_AGNOSTIC_BOARD", "simulated")):
            if bid.startswith(i):
                n = p
        if n is None and not want:  # an unknown board: the Pico's pin names
            print("board %s is not one of the builds: using the Pico's pin names (set "
                  "QK_BOARD or the QK_PIN_ keys)" % bid)
            n = "pico"
        mod = None
        for i in (want, n, "pico"):
            if i and mod is None:
                try:
                    mod = __import__("hardware.profile_" + i, None, None, ("PROFILE",))
                    if not hasattr(b, mod.PROFILE[_P_KLAXON][_PIN]) and i == want != n:
                        mod = None  # its Klaxon pin is not on this board: its own build
                        raise ImportError()
                except ImportError:
                    print("QK_BOARD = %r: not a build that board %s can run from this drive; "
                          "using its own" % (i, bid))
                    bad += 1
                drop("hardware.profile_" + i)
        if first >= v[_QK_PLAYERS]:
            print("QK_FIRST_QM = %d but there are %d players; using 0" % (first, v[_QK_PLAYERS]))
            bad += 1
            first = 0

        k = buttons(b, mod.PROFILE, v)
        drop("hardware.start")
        # (layout's ST_ parts: _ST_BOARD, _ST_MOD, _ST_V, _ST_BAD, _ST_FIRST, then buttons()'s
        # _ST_K, _ST_KP, _ST_KEYS, and _ST_DICE; tests/test_names.py holds each field)
        return (b, mod, v, bad + k[3], first) + k[:3] + (d,)
    except Exception as e:
        print("QI Klaxon cannot start:", repr(e))
        import digitalio
        import time

        p = getattr(b, "LED", None)
        if p:
            p = digitalio.DigitalInOut(p)
            p.switch_to_output()
        while True:  # three blinks every two seconds (dark between them)
            for i in range(7):
                if p:
                    p.value = i & 1
                time.sleep(0.15)
            time.sleep(1.0)


def drop(m):
    """Drop start-up module ``m`` (hardware.x) so that its RAM can be freed."""
    sys.modules.pop(m, None)
    if hasattr(sys.modules["hardware"], m[9:]):
        delattr(sys.modules["hardware"], m[9:])


def buttons(board, prof, v):
    """(the Klaxon's debouncer, (its DigitalInOut, pin, pressed reads high?), buttons,
    messages): a button is (DigitalInOut, its bit released, its keys, the ms held that
    reach each). ``v``: the settings."""
    import digitalio
    import adafruit_debouncer

    Debouncer = adafruit_debouncer.Debouncer
    # The loop uses update() and state only: the rest (layout's LIBRARY_UNUSED), if the
    # library was copied whole, is freed here (~0.9 KB on the Express)
    if hasattr(adafruit_debouncer, "Button"):
        del adafruit_debouncer.Button
        for n in ("rose", "fell", "last_duration", "current_duration", "value", "interval"):
            if hasattr(Debouncer, n):
                delattr(Debouncer, n)

    bad = 0
    k = kp = None
    found = []  # (the buttons besides the Klaxon: io, bit released, pin)
    # (when the Klaxon's pin is not found: the built-in buttons)
    for i, w, more in ((0, v[_QK_PIN_KLAXON], ("BUTTON", "BUTTON_A", "BOOT", "USER_SW", "D0")),
                       (1, v[_QK_PIN_A], ()), (2, v[_QK_PIN_B], ())):  # (i: the profile's
        d = prof[i]  # _P_KLAXON, _P_A, _P_B)
        if not i and w.lower() == "none":
            print('QK_PIN_KLAXON = "none": the Klaxon is the one button that must be wired; '
                  "using the build's own pin")
            bad += 1
            w = ""
        if (k is None or v[_QK_KLAXON_ONLY]) and i or w.lower() == "none" or not (w or d):
            continue  # the Klaxon first; QK_KLAXON_ONLY; not wired
        for n in (w,) * (w != "") + (d[_PIN],) * (d is not None) + more:
            p = getattr(board, n, None)
            if p is not None:
                break
            if n == w:  # then the build's own pin
                print("QK_PIN_%s = %r: no such pin on this board" % (("KLAXON", "A", "B")[i], n))
                bad += 1
        else:
            continue
        if kp and p in [kp[1]] + [b[2] for b in found]:  # two buttons on one pin
            print("QK_PIN_%s = %r: that pin is another button's; button %s is not wired" % (
                ("KLAXON", "A", "B")[i], n, ("Klaxon", "A", "B")[i]))
            bad += 1
            continue
        if d and p is getattr(board, d[_PIN], None):
            high = d[_LEVEL]
        else:  # a pin named in the settings: wired to GND, unless a built-in button to +V
            high = p in (getattr(board, "BUTTON_A", None), getattr(board, "BUTTON_B", None))
        io = digitalio.DigitalInOut(p)
        io.switch_to_input(pull=digitalio.Pull.DOWN if high else digitalio.Pull.UP)
        if k is None:
            # ticks are whole ms: a level read 3 ticks apart has held over 2 ms, so a
            # glitch shorter than QK_GLITCH_MS never sounds
            k = Debouncer(io, interval=(v[_QK_GLITCH_MS] + 1) / 1000)
            kp = (io, p, high)
        else:
            found.append((io, 0 if high else 1, p))
    if k is None:
        raise RuntimeError("no Klaxon button pin: set QK_PIN_KLAXON in settings.toml")
    return k, kp, keys(found, v[_QK_LONG_MS]), bad


def keys(b, n):
    """Buttons ``b`` (each (DigitalInOut, its bit released, pin)) with their keys and the
    ms held that reach each: two buttons, or one that does all, a step every ``n`` ms
    (QK_LONG_MS: over a second, so a second's press is a tap everywhere). (One-letter
    parameters: a parameter's name is interned on the Express.)"""
    n = (0, n, 2 * n, 3 * n, 4 * n, 5 * n)
    out = []  # (keys: 1 A, 2 A held, 3 A held long, 4 B, 5 B held, 6 B held long)
    for i in b:
        out.append(i[:2] + ((b"\x01\x04\x05\x02\x06\x03", n) if len(b) == 1 else
                            (b"\x04\x05\x06" if out else b"\x01\x02\x03", n[:3])))
    return out
