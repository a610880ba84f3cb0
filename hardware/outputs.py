"""Start-up, its second step (code.py): sound, lights, sleep, the watchdog, the state."""

import sys

# The sounds as tone sweeps, for the builds that play tones rather than WAV files:
# the Pico's piezo (``pwmio``) and the Circuit Playground Express, whose 16 KB heap
# has no room for WAV files through ``audioio`` (a ``WaveFile`` makes the output keep
# two 512-byte DMA buffers, and each open file and sample holds ~160 bytes more).
# hardware/device.py plays them: on a piezo by the PWM frequency, on the Express's
# DAC as a looped 16-sample waveform whose pitch is its sample rate. Each sound is
# segments of three bytes: start and end pitch in tens of Hz (0: a rest) and length
# in tens of ms. They are the WAV files' own segments (tools/synth.py's SEGMENTS),
# rounded, each glide made linear: ``python3 tools/synth.py --tones`` prints them, and
# tests/test_one_klaxon.py holds this copy to it. The klaxon is two rising blasts
# (190 -> 430 Hz, then held, sagging to 415 Hz).
TONES = (
    b"\x13\x2b\x26\x2b\x2a\x14\x00\x00\x06\x13\x2b\x26\x2b\x2a\x14\x00\x00\x06",  # klaxon
    b"\x0f\x0f\x0c\x00\x00\x05\x0b\x0b\x16",  # denied
    b"\xb4\xb4\x04",  # blip
)


def start(p):
    """The parts for qiklaxon/restore.py from hardware/start.py's: (the Klaxon's
    debouncer, the buttons, output, samples, speaker enable, switch, pixels, LED,
    sleeper, watchdog, flags, times, players, first QM, finish, nvm layout, dice)."""
    import digitalio

    board, mod, v, bad, first, k, kp, keys, dice = p
    del p
    prof = mod.PROFILE
    # Sound: each build wires its own (its profile's sound()): WAV samples through
    # audioio or audiopwmio and an audiomixer voice, or tones on a piezo
    a = v[14]
    if a and a not in ("piezo", "amp"):
        print("QK_AUDIO = %r is not 'piezo' or 'amp'; using the build's own" % a)
        bad += 1
    o = None
    snd = (None, None, None)
    p = getattr(board, v[12] or prof[5], None)
    try:
        if p is None:
            raise ValueError("no speaker pin %r" % (v[12] or prof[5]))
        o, snd = mod.sound(p, v[5], a, wavs, TONES)
    except (ImportError, ValueError, RuntimeError, OSError) as e:
        print("no sound: %r" % e)
        bad += 1
    sw = None
    en = [None, None]
    # The slide switch, the speaker's enable pin and the LED (driven low); a pin a
    # button took (settings) is in use: said, and done without
    for i in (0, 1, 2):
        n = (prof[3] or ("",))[0] if not i else prof[4 + 2 * i] or ""
        p = getattr(board, n, None)
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
    n = v[8] if v[8] >= 0 else prof[7][1]
    if n:
        p = getattr(board, v[13] or prof[7][0], None)
        try:
            if p is None:
                raise ValueError("QK_PIN_PIXELS = %r: no such pin" % v[13])
            import neopixel

            px = neopixel.NeoPixel(p, n, brightness=v[7] / 100, auto_write=False)
        except (ImportError, ValueError) as e:
            print("no lights: %r" % e)
            bad += 1
            n = 0
    # Sleep until the Klaxon where the port has alarm; the watchdog where it has one
    sl = wd = woke = None
    if prof[9] and v[19] or prof[11]:
        sl, wd, woke = __import__("hardware.power", None, None, ("start",)).start(
            kp[0], kp[1], kp[2], prof[9] and v[19], prof[11])
        sys.modules.pop("hardware.power", None)

    # The device's flags and times (hardware/device.py: Device.f and Device.t)
    s = k.state & 1  # the Klaxon's bit now
    up = 0 if kp[2] else 1
    f = bytearray(27)
    f[0] = s == up  # armed, unless held at power-on ...
    f[1] = s != up and woke is None  # ... where it is stuck until released
    f[2] = 3 * up  # (the debouncer's debounced and unstable bits)
    f[3] = f[4] = 255
    f[5] = v[6] or not v[5]  # muted
    f[6] = prof[3][1] if prof[3] else 0
    f[8] = 1
    f[14] = len(keys)  # buttons
    f[16] = n  # pixels
    f[17] = len(snd) == 4  # tones
    f[19] = f[20] = 255
    f[23] = prof[7][2] if v[20] < 0 else v[20]  # pixels numbered counter-clockwise
    for i in range(len(keys)):  # each button's first sample, and its level
        f[21 + i] = 3 * keys[i][0].value
    import adafruit_ticks

    now = adafruit_ticks.ticks_ms()  # every time starts now
    t = [now, now, now, now, now, v[16], v[18] * 1000, v[19] * 60000 if sl else 0, 3277 * v[5],
         now, now, 0, now, now, now, now, (now - 99) & 0x1FFFFFFF, now, v[15] + 1]
    if bad:  # the ring flashes purple for two seconds: look at the console
        f[7] = 8
        t[1] = adafruit_ticks.ticks_add(now, 2000)
    if f[1]:
        print("fault: the Klaxon is held down at power-on; release it")
    # A pin alarm woke the board: that was a press of the Klaxon, and it counts (the
    # Device presses it at once), held still or let go during the ~1.3 s reboot; held,
    # it is not armed again until released.
    f[25] = woke is not None
    sys.modules.pop("hardware.outputs", None)
    if hasattr(sys.modules["hardware"], "outputs"):
        delattr(sys.modules["hardware"], "outputs")
    return (k, keys, o, snd, en[0], sw, px, en[1], sl, wd, f, t, v[1], first, v[3], prof[10],
            dice)


def wavs():
    """The klaxon, denied and blip sounds as WAV samples sharing one streaming buffer
    (one sound plays at a time); a missing or bad file is silent, and says so."""
    import audiocore

    b = bytearray(256)
    snd = []
    for i in ("klaxon", "denied", "blip"):
        try:
            snd.append(audiocore.WaveFile(open("sounds/%s.wav" % i, "rb"), b))
        except (OSError, ValueError) as e:
            print("sounds/%s.wav missing or bad (%r): it will be silent" % (i, e))
            snd.append(None)
    return tuple(snd)
