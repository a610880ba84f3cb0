"""Start-up, its second step (code.py): sound, lights, sleep, the watchdog, the state."""

import sys

if __debug__:  # CPython needs const; the Express's mpy-cross -O3 drops this import
    from micropython import const

# names: made by tools/gen/consts.py from model/layout.py (python3 tools/dev.py regen)
_NONE = const(255)
_ST_BOARD = const(0)
_ST_MOD = const(1)
_ST_V = const(2)
_ST_BAD = const(3)
_ST_FIRST = const(4)
_ST_K = const(5)
_ST_KP = const(6)
_ST_KEYS = const(7)
_ST_DICE = const(8)
_B_IO = const(0)
_SOUND_WAVE = const(5)
_F_SLOTS = const(27)
_ARM = const(0)
_STUCK = const(1)
_UP = const(2)
_CUR = const(3)
_PEND = const(4)
_MUTE = const(5)
_SWM = const(6)
_FL = const(7)
_DIRTY = const(8)
_NB = const(14)
_NP = const(16)
_TONE = const(17)
_LV = const(19)
_RAW = const(21)
_CCW = const(23)
_WOKE = const(25)
_FLT = const(1)
_TICKS = const(0x1FFFFFFF)
_PURPLE = const(8)
_P_SWITCH = const(3)
_P_SPEAKER = const(5)
_P_SPEAKER_ENABLE = const(6)
_P_PIXELS = const(7)
_P_SLEEP = const(9)
_P_NVM = const(10)
_P_WATCHDOG = const(11)
_PIN = const(0)
_LEVEL = const(1)
_PX_COUNT = const(1)
_PX_CCW = const(2)
_QK_VOLUME = const(5)
_QK_MUTE = const(6)
_QK_BRIGHTNESS = const(7)
_QK_PIXELS = const(8)
_QK_PIN_SPEAKER = const(12)
_QK_PIN_PIXELS = const(13)
_QK_AUDIO = const(14)
_QK_GLITCH_MS = const(15)
_QK_REARM_MS = const(16)
_QK_STUCK_S = const(18)
_QK_SLEEP_MIN = const(19)
_QK_PIXELS_CCW = const(20)
# (end of the names)

# The sounds as tone sweeps: the Pico's piezo, and the Express, whose 16 KB heap has no
# room for WAV through ``audioio`` (a ``WaveFile`` keeps two 512-byte DMA buffers, and
# each open file and sample ~160 bytes more). Each sound is segments of three bytes:
# start and end pitch in tens of Hz (0: a rest), length in tens of ms: the WAV files'
# segments (tools/gen/synth.py), rounded, glides linear (``tools/gen/synth.py --tones``;
# tests/test_one_klaxon.py holds this copy to it).
TONES = (
    b"\x13\x2b\x26\x2b\x2a\x14\x00\x00\x06\x13\x2b\x26\x2b\x2a\x14\x00\x00\x06",  # klaxon
    b"\x0f\x0f\x0c\x00\x00\x05\x0b\x0b\x16",  # denied
    b"\xb4\xb4\x04",  # blip
    b"\x58\x58\x09\x00\x00\x03\x84\x84\x10",  # done
    b"\x63\x63\x09\x00\x00\x03\x42\x42\x10",  # undone
)


def start(p):
    """The parts for qiklaxon/restore.py from hardware/start.py's."""
    board = p[_ST_BOARD]
    v = p[_ST_V]
    kp = p[_ST_KP]
    o, snd, bad = sound(board, p[_ST_MOD], v)
    prof = p[_ST_MOD].PROFILE  # (with QK_AUDIO = "amp" it names the amplifier's enable pin)
    sw, en, px, n, i = pins(board, prof, v)
    # Sleep until the Klaxon; the watchdog
    w = (None, None, None)
    if prof[_P_SLEEP] and v[_QK_SLEEP_MIN] or prof[_P_WATCHDOG]:  # (kp: the Klaxon's io, pin,
        w = __import__("hardware.power", None, None, ("start",)).start(  # high?)
            kp[0], kp[1], kp[2], prof[_P_SLEEP] and v[_QK_SLEEP_MIN], prof[_P_WATCHDOG])
        sys.modules.pop("hardware.power", None)
    f, t = state(p, prof, n, snd, w, p[_ST_BAD] + bad + i)
    sys.modules.pop("hardware.outputs", None)
    if hasattr(sys.modules["hardware"], "outputs"):
        delattr(sys.modules["hardware"], "outputs")
    # The Device's parts (layout's _K, _R, _BUT, _OUT, _SND, _EN, _SW, _PX, _LED, _SLEEP,
    # _WD, _FLAGS, _TIMES), then the referee's (_GAME_V, _GAME_QM, _GAME_NVM, _GAME_DICE):
    # tests/test_names.py holds each field
    return (p[_ST_K], None, p[_ST_KEYS], o, snd, en[0], sw, px, en[1], w[0], w[1], f, t, v,
            p[_ST_FIRST], prof[_P_NVM], p[_ST_DICE])


# (Below, each parameter's name is one letter: a parameter's name is interned on the
# Express, and the names budget is nearly full; each is said in the docstring.)


def sound(b, m, v):
    """(the build's sound output, its sounds, 1 if a message was said) on board ``b``
    from build profile module ``m``'s ``sound()``, settings ``v``; silence when the part
    cannot start."""
    prof = m.PROFILE
    a = v[_QK_AUDIO]
    w = ("piezo", "amp")
    bad = 0
    if __debug__:  # (a Pico's piezo on one pin; -O3 drops it: each text stays in the Express's RAM)
        w = ("piezo", "piezo-gnd", "amp")
    if a and a not in w:
        if __debug__:
            print("QK_AUDIO = %r is not 'piezo', 'piezo-gnd' or 'amp'; using the build's own" % a)
        else:
            print("QK_AUDIO = %r is not 'piezo' or 'amp'; using the build's own" % a)
        bad += 1
    o = None
    snd = (None, None, None)
    p = getattr(b, v[_QK_PIN_SPEAKER] or prof[_P_SPEAKER], None)
    try:
        if p is None:
            raise ValueError("no speaker pin %r" % (v[_QK_PIN_SPEAKER] or prof[_P_SPEAKER]))
        o, snd = m.sound(p, v[_QK_VOLUME], a, TONES)
    except Exception as e:  # (whatever the part's set-up raises: the board starts, silent)
        print("no sound: %r" % e)
        bad += 1
    return o, snd, bad


def pins(b, p, v):
    """(the slide switch, [the speaker's enable pin, the LED] driven low, the ring or
    strip, its pixels, messages said) on board ``b`` for build profile ``p``, settings
    ``v``: a pin a button took is said and done without, and lights that cannot start."""
    import digitalio

    prof = p
    sw = None
    en = [None, None]
    bad = 0
    for i in (0, 1, 2):  # (prof[(_P_SPEAKER_ENABLE - 2) + 2 * i]: the enable pin, the LED)
        n = (prof[_P_SWITCH] or ("",))[_PIN] if not i else prof[
            (_P_SPEAKER_ENABLE - 2) + 2 * i] or ""
        p = getattr(b, n, None)
        if p is not None:
            try:
                io = digitalio.DigitalInOut(p)
            except ValueError as e:
                print("pin %s is in use (%r): done without it" % (n, e))
                bad += 1
                continue
            if i:
                io.switch_to_output(value=False)
                en[i - 1] = io
            else:
                io.switch_to_input(pull=digitalio.Pull.UP)
                sw = io
    # Lights: the ring or strip
    px = None
    n = v[_QK_PIXELS] if v[_QK_PIXELS] >= 0 else prof[_P_PIXELS][_PX_COUNT]
    if n:
        p = getattr(b, v[_QK_PIN_PIXELS] or prof[_P_PIXELS][_PIN], None)
        try:
            if p is None:
                raise ValueError("QK_PIN_PIXELS = %r: no such pin" % v[_QK_PIN_PIXELS])
            import neopixel

            px = neopixel.NeoPixel(p, n, brightness=v[_QK_BRIGHTNESS] / 100, auto_write=False)
        except (ImportError, ValueError) as e:
            print("no lights: %r" % e)
            bad += 1
            n = 0
    return sw, en, px, n, bad


def state(p, q, n, s, w, e):
    """``Device.f`` and ``Device.t`` (hardware/device.py's flags and times) from start.py's
    parts ``p``, build profile ``q``, ``n`` pixels, sounds ``s`` (the DAC's wave with
    tones), ``w``: power's (sleep, watchdog, woken by the Klaxon or None), ``e`` messages
    said (then the ring flashes purple)."""
    v = p[_ST_V]
    kp = p[_ST_KP]
    keys = p[_ST_KEYS]
    prof = q
    woke = w[2]
    tone = len(s) > _SOUND_WAVE  # tones come with the DAC's wave (or None)
    s = p[_ST_K].state & 1  # the Klaxon's bit now
    up = 0 if kp[2] else 1
    f = bytearray(_F_SLOTS)
    f[_ARM] = s == up and woke is None  # armed, unless held at power-on or woken by it ...
    f[_STUCK] = s != up and woke is None  # ... where it is stuck until released
    f[_UP] = 3 * up  # (the debouncer's debounced and unstable bits)
    f[_CUR] = f[_PEND] = _NONE
    f[_MUTE] = v[_QK_MUTE] or not v[_QK_VOLUME]
    f[_SWM] = prof[_P_SWITCH][_LEVEL] if prof[_P_SWITCH] else 0
    f[_DIRTY] = 1
    f[_NB] = len(keys)
    f[_NP] = n
    f[_TONE] = tone
    f[_LV] = f[_LV + 1] = _NONE
    f[_CCW] = prof[_P_PIXELS][_PX_CCW] if v[_QK_PIXELS_CCW] < 0 else v[_QK_PIXELS_CCW]
    for i in range(len(keys)):  # each button's first sample, and its level
        f[_RAW + i] = 3 * keys[i][_B_IO].value
    import adafruit_ticks

    now = adafruit_ticks.ticks_ms()  # every time starts now
    t = [now, now, now, now, now,  # _KT, _FLT, _SV, _LAST, _FT
         v[_QK_REARM_MS], v[_QK_STUCK_S] * 1000,  # _REARM, _HELD,
         v[_QK_SLEEP_MIN] * 60000 if w[0] else 0,  # _IDLE
         3277 * v[_QK_VOLUME], now, now, 0, now, now, now, now,  # _DUTY, _T0,
         # _TN, _HZ, _BT (2), _SMP, _DT; _KR (woken: the release must be seen, 30 ms of it,
         # before the next press counts), _KS, _GL (hardware/device.py's order)
         now if woke is not None else (now - 99) & _TICKS, now, v[_QK_GLITCH_MS] + 1]
    if e:  # the ring flashes purple for two seconds: look at the console
        f[_FL] = _PURPLE
        t[_FLT] = adafruit_ticks.ticks_add(now, 2000)
    if f[_STUCK]:
        print("fault: the Klaxon is held down at power-on; release it")
    # Woken by the Klaxon: the Device presses it at once, held or let go during the
    # ~1.3 s reboot; held, it is armed again once released.
    f[_WOKE] = woke is not None
    return f, t
