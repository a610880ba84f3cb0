"""Raspberry Pi Pico / Pico 2 DIY build.

Klaxon: arcade button from GP16 to GND; buttons A (GP17) and B (GP18) to
GND; all with internal pull-ups. Sound: a piezo between GP15 and GP14 driven push-pull by
a PIO state machine (``rp2pio``), or with QK_AUDIO = "piezo-gnd" between GP15 and GND
(one pin); QK_AUDIO = "amp" for a small amplifier through ``audiopwmio``.
Lights: the on-board LED flashes; a NeoPixel strip on GP22 when QK_PIXELS
says how many.
"""

if __debug__:  # CPython needs const; the Express's mpy-cross -O3 drops this import
    from micropython import const

_P_SPEAKER_ENABLE = const(6)  # (model/layout.py's)

PROFILE = (  # a tuple, not a dict: no key names in the board's RAM
    ('GP16', False),  # klaxon: (pin, True if it pulls to +V: pressed reads True)
    ('GP17', False),  # a: button A, the same way (None: not wired)
    ('GP18', False),  # b: button B
    None,  # switch: (pin, its level when muted) or None
    2,  # audio: 0 DAC tones (audioio), 1 WAV files (audiopwmio), 2 a piezo (rp2pio tones)
    'GP15',  # speaker: its pin
    None,  # speaker_enable: the amplifier's enable pin, or None
    ('GP22', 0, False),  # pixels: (pin, how many NeoPixels (0: none unless QK_PIXELS says),
    # numbered counter-clockwise seen from above, face up: False, a strip or ring wired
    # clockwise; QK_PIXELS_CCW = 1 for one wired the other way)
    'LED',  # led: an LED that flashes with the Klaxon, or None
    True,  # sleep: deep sleep until the Klaxon, where the port has alarm
    True,  # nvm: saved-game layout: True an append log (RP2040), False ping-pong
    True,  # watchdog: the port has a watchdog
)


AMP_SD = 'GP14'  # QK_AUDIO = "amp": the amplifier's SD (shutdown) pin (docs/build-guide.md)

# The piezo's PIO program. PIEZO is the words of this source (tests/test_pio.py assembles it
# with adafruit_pioasm and holds them equal); PIEZO_GND is the same source with
# ``.side_set 1`` and side 2 -> 1, side 1 -> 0 (one pin: high for +1, low for -1 and 0).
# Side-set pins: the pair, QK_PIN_SPEAKER's pin (side bit 1) and the one below it (bit 0):
# side 2 drives +1, side 1 drives -1 (the pins in antiphase), side 0 is 0 (both low).
#
#   .program qk_piezo
#   .side_set 2
#       jmp !x silent   side 0      ; restart() enters here: X = 0 is silence
#   .wrap_target
#   fast:                           ; one fast cycle: +1, 0, -1, 0 (a SQUARE's whole period)
#       mov y, isr      side 2      ; +1 for ISR + 2 ticks
#   on1:
#       jmp y-- on1     side 2
#       mov y, osr      side 0 [1]  ; 0 for OSR + 3 ticks
#   off1:
#       jmp y-- off1    side 0
#       mov y, isr      side 1      ; -1 for ISR + 2 ticks
#   on2:
#       jmp y-- on2     side 1
#       mov y, osr      side 0      ; 0 for OSR + 3 ticks, with the jmp x--
#   off2:
#       jmp y-- off2    side 0
#       jmp x-- fast    side 0      ; RASP: 8 fast cycles; SQUARE (X = 2**32 - 1): for ever
#       mov y, isr      side 2 [2]  ; the slow cycle: the same, each tick 3 ticks long
#   on3:
#       jmp y-- on3     side 2 [2]
#       mov y, osr      side 0 [5]
#   off3:
#       jmp y-- off3    side 0 [2]
#       mov y, isr      side 1 [2]
#   on4:
#       jmp y-- on4     side 1 [2]
#       mov y, osr      side 0 [2]
#   off4:
#       jmp y-- off4    side 0 [2]
#       set x, 7        side 0 [2]  ; the next period's 8 fast cycles
#   .wrap
#   silent:
#       jmp silent      side 0
#
# A half of a fast cycle is H = ISR + OSR + 5 ticks (the "unit" of the RASP pattern): RASP's
# period 8 x 2H + 6H = 22H ticks, the state machine's clock 22H x f0; SQUARE's 2H ticks,
# its clock 2H x the note. H = 32: the clock 704 x f0 (RASP: 77 kHz at 110 Hz, 303 kHz at
# 430 Hz) or 64 x the note (42 kHz at 660 Hz), well above the divider's least (clk_sys /
# 65536, 1907 Hz). The volume is each half's driven share, ISR + 2 of its 32 ticks:
# 32 x QK_VOLUME // 10, at most 29 (10: 91 %, as each half's 0 is 3 ticks at least; the
# fundamental then 0.1 dB below a full square's; 8: 25 ticks), monotonic; 0 is silent (the
# device plays nothing). Silence: X = 0 and restart() at clk_sys, the machine drives 0
# itself, then stop() (docs/pico-lane.md: why, and why the voice is not sent by the FIFO).
PIEZO = (0x0033, 0xB046, 0x1082, 0xA147, 0x0084, 0xA846, 0x0886, 0xA047, 0x0088, 0x0041,
         0xB246, 0x128B, 0xA547, 0x028D, 0xAA46, 0x0A8F, 0xA247, 0x0291, 0xE227, 0x0013)
PIEZO_GND = (0x0033, 0xB046, 0x1082, 0xA147, 0x0084, 0xA046, 0x0086, 0xA047, 0x0088, 0x0041,
             0xB246, 0x128B, 0xA547, 0x028D, 0xA246, 0x028F, 0xA247, 0x0291, 0xE227, 0x0013)
# Run at a sound's start (restart() keeps X): RASP ``set x, 7``, SQUARE ``mov x, ~null``,
# silence ``set x, 0`` (each side 0); the init, at every restart(): ``set y, ISR``,
# ``mov isr, y``, ``set y, OSR``, ``mov osr, y`` (side 0)
VOICES = (0xE027, 0xA02B, 0xE020)
INIT = (0xE040, 0xA0C2, 0xE040, 0xA0E2)
TICKS = (704, 64)  # the clock per Hz of f0: RASP 22H, SQUARE 2H (H = 32 ticks)


def sound(pin, volume, audio, tones):
    """A piezo through a PIO state machine (``rp2pio``), push-pull on QK_PIN_SPEAKER's pin and
    the one below it, or with QK_AUDIO = "piezo-gnd" on that pin alone; with QK_AUDIO =
    "amp" a small amplifier through ``audiopwmio`` and an ``audiomixer`` voice: (output,
    samples; with "amp" the amplifier's SD pin is the speaker's enable: on only while a
    sound plays). The tones come with None (no DAC wave) and ``tone`` (hardware/device.py's
    hush() calls it)."""
    if audio == "amp":
        global PROFILE
        # its enable: the amplifier's SD (hardware/outputs.py reads PROFILE again after this)
        PROFILE = PROFILE[:_P_SPEAKER_ENABLE] + (AMP_SD,) + PROFILE[_P_SPEAKER_ENABLE + 1:]
        import audiopwmio
        from hardware.mixer import mixed

        return mixed(audiopwmio.PWMAudioOut(pin), volume)
    import rp2pio
    from array import array

    a = max(min(32 * volume // 10, 29) - 2, 0)  # ISR: the driven ticks of a half less 2 (0:
    # QK_VOLUME = 0, which the device never plays)
    i = array("H", INIT)
    i[0] |= a
    i[2] |= 27 - a  # OSR: H - 5 - ISR
    lo = None
    if audio != "piezo-gnd":  # the pin below the speaker's (GP15: GP14), by its GPIO number
        import microcontroller

        m = microcontroller.pin
        n = None
        for k in dir(m):
            if k[:4] == "GPIO" and getattr(m, k) is pin:
                n = k
        lo = n and getattr(m, "GPIO%d" % (int(n[4:]) - 1), None)
        try:
            if not lo:
                raise ValueError("no pin below %s" % (n or pin))
            o = rp2pio.StateMachine(array("H", PIEZO), 2000, init=i, first_sideset_pin=lo,
                                    sideset_pin_count=2, wrap_target=1, wrap=18)
        except (ValueError, RuntimeError) as e:
            print('QK_AUDIO = "piezo": its second pin: %s; the piezo on one pin, its other '
                  'leg to GND (QK_AUDIO = "piezo-gnd")' % e)
            lo = None
    if not lo:
        o = rp2pio.StateMachine(array("H", PIEZO_GND), 2000, init=i, first_sideset_pin=pin,
                                sideset_pin_count=1, wrap_target=1, wrap=18)
    global _Z
    _Z = (array("H", VOICES[:1]), array("H", VOICES[1:2]), array("H", VOICES[2:])) + TICKS
    tone(o, 0, 0, 1)
    return o, tones + (None, tone)


_Z = None  # (sound(): the run() words of each voice and of silence, the clocks per Hz)


def tone(o, hz, v, was):
    """State machine ``o`` plays voice ``v`` (0 RASP, 1 SQUARE) at ``hz`` (0 or less: silence),
    ``was`` the Hz it played before (0 or less: silent). Allocates nothing."""
    z = _Z
    if hz > 0:
        if was <= 0:  # from silence: the voice from its start (restart() keeps X)
            o.stop()
            o.run(z[v])
            o.frequency = z[3 + v] * hz
            o.restart()
        else:
            o.frequency = z[3 + v] * hz
    elif was > 0:  # silence: the machine itself drives 0 (X = 0), then stops
        o.stop()
        o.run(z[2])
        o.frequency = 0  # (clk_sys: 0 is driven within a few ns)
        o.restart()
        o.stop()
