"""The device: a build profile's pins wired to buttons, sound and lights; the loop.

``build(board, settings)`` makes a ``Device``; ``Device.poll()`` is one
loop pass and never blocks: it samples the buttons, hands presses to the
table (a pure Klaxon, or the referee), starts sounds and steps the lights.
``main()`` is what ``code.py`` runs on the board.
"""

import time

from micropython import const
from adafruit_ticks import ticks_diff, ticks_ms

from hardware import lights as L
from hardware.buttons import ControlButton, KlaxonButton
from hardware.profiles import choose
from hardware.sound import BLIP, DENIED, FAULT, KLAXON, NAMES, SampleOut, Sound, ToneOut
from qiklaxon.game import ANSWERED, ANSWERING, IDLE, OVER, PASSED, REVEAL, Game
from qiklaxon.referee import A1, A2, AL, B1, B2, BL, DONE, REFUSED, Referee, describe

POLL_S = 0.001  # the loop's pause between passes: the Klaxon is sampled every ~1 ms
KLAXON_FLASH_MS = const(1200)
REFEREE_FLASH_MS = const(400)
ERROR_FLASH_MS = const(2000)

# Gesture (ControlButton.gesture: 1, 2 short presses, 9 long) -> referee key.
_A_KEYS = (0, A1, A2, 0, 0, 0, 0, 0, 0, AL)
_B_KEYS = (0, B1, B2, 0, 0, 0, 0, 0, 0, BL)
_ONE_BUTTON_KEYS = (0, A1, B1, AL, B2, 0, 0, 0, 0, BL)  # builds with A only

# Klaxon fallbacks for a board with no configured or known Klaxon pin.
_FALLBACK_PINS = ("BUTTON", "BUTTON_A", "BOOT", "USER_SW", "D0")


class PureKlaxon:
    """The table when only the Klaxon is wired: every accepted press sounds."""

    game = None
    event = None

    def klaxon(self):
        self.event = ("klaxon", {})
        return True


class Device:
    """One build, wired. Call ``poll()`` every pass (``run()`` does, forever)."""

    def __init__(self, klaxon, sound, lights, table, a=None, b=None, on_event=None,
                 messages=()):
        self.klaxon = klaxon
        self.sound = sound
        self.lights = lights
        self.table = table
        self.a = a
        self.b = b
        self._a_keys = _A_KEYS if b is not None else _ONE_BUTTON_KEYS
        self.on_event = on_event or console
        self.referee = table if isinstance(table, Referee) else None
        self.passes = 0
        now = ticks_ms()
        for m in messages:
            self.on_event("error", {"message": m})
        if messages:
            lights.flash(now, ERROR_FLASH_MS, L.PURPLE, L.OFF)
        if klaxon.stuck:
            self._stuck(now)
        else:
            self.render()

    # ------------------------------------------------------------ the loop
    def poll(self):
        """One loop pass: inputs, table, sound, lights. Allocates nothing when idle."""
        now = ticks_ms()
        self.passes += 1
        k = self.klaxon
        k.update(now)
        if k.pressed:
            self._klaxon(now)
        elif k.stuck_changed:
            if k.stuck:
                self._stuck(now)
            else:
                self.on_event("fault_cleared", {"what": "klaxon button released"})
                self.render()
        if self.a is not None:
            self.a.update()
            if self.a.gesture:
                self._key(self._a_keys[self.a.gesture], now)
        if self.b is not None:
            self.b.update()
            if self.b.gesture:
                self._key(_B_KEYS[self.b.gesture], now)
        s = self.sound
        s.update(now)
        if s.started >= 0:
            self.on_event("sound", {"name": NAMES[s.started]})
            s.started = -1
        self.lights.update(now)

    def run(self):
        """Poll forever (``code.py``)."""
        poll = self.poll
        sleep = time.sleep
        while True:
            poll()
            sleep(POLL_S)

    # ------------------------------------------------------------- actions
    def _klaxon(self, now):
        t = self.table
        if t.klaxon():
            self.sound.play(KLAXON, now)
            self._report(t)
            if self.referee is None:
                self.lights.flash(now, KLAXON_FLASH_MS)
            else:
                self.render()
                self.lights.flash(now, REFEREE_FLASH_MS)
        else:
            self.sound.play(DENIED, now)
            self._report(t)

    def _key(self, key, now):
        r = self.referee
        if r is None or not key:
            return
        try:
            result = r.key(key)
        except ValueError as e:  # an action the game cannot take now
            r.event = ("refused", {"reason": str(e)})
            result = REFUSED
        if result == DONE:
            self.sound.play(BLIP, now)
        elif result == REFUSED:
            self.sound.play(DENIED, now)
        self._report(r)
        self.render()

    def _stuck(self, now):
        self.sound.stop()
        self.lights.stop_flash()
        self.lights.fill(L.PURPLE, L.FAST)
        self.on_event("fault", {"what": "klaxon button stuck down"})

    def _report(self, t):
        if t.event is not None:
            self.on_event(t.event[0], t.event[1])
            t.event = None

    # ------------------------------------------------------------- display
    def render(self):
        """Draw the table's state on the lights (after each change, not each pass)."""
        lights = self.lights
        lights.clear()
        r = self.referee
        if r is None:
            return
        g = r.game
        n = g.players
        phase = g.phase_code
        if r.entering_penalty:  # tens white, units orange, from pixel 0
            c = r.count
            lights.fill(L.WHITE, L.STEADY, c // 10)
            for i in range(c // 10, c // 10 + c % 10):
                if i < lights.count:
                    lights.colour[i] = L.ORANGE
            return
        winners = g.winners
        cursor = r.cursor
        for s in range(n):
            colour, pattern = L.OFF, L.STEADY
            mark = g.mark(s)
            if phase == OVER:
                colour, pattern = (L.GREEN, L.FAST) if s in winners else (L.GREY, L.STEADY)
            elif s == g.qm:
                colour = L.WHITE
            elif phase == ANSWERING and s == g.answering:
                colour, pattern = L.YELLOW, L.SLOW
            elif phase == REVEAL and s == cursor:
                colour, pattern = L.YELLOW, L.FAST
            elif phase == REVEAL and r.marked(s) is not None:
                colour = L.GREEN if r.marked(s) else L.ORANGE
            elif s == g.challenger and phase == REVEAL:
                colour, pattern = L.VERMILLION, L.FAST
            elif s == g.challenged and phase == REVEAL:
                colour, pattern = L.SKY, L.SLOW
            elif mark == ANSWERED and phase != IDLE:
                colour = L.GREEN
            elif mark == PASSED and phase != IDLE:
                colour = L.GREY
            lights.seat(s, n, colour, pattern)


def console(name, fields):
    """The default event sink: one readable line on the serial console."""
    if name == "sound":
        return
    if name == "klaxon" and not fields:
        print("KLAXON!")
    elif name in ("error", "fault", "fault_cleared"):
        print("%s: %s" % (name.upper().replace("_", " "), fields.get("message") or fields.get("what")))
    else:
        print(describe(name, fields))


def _find_pin(board, names, messages, role):
    """The first of ``names`` that this board has; a message for a named one it lacks."""
    for i, name in enumerate(names):
        if not name:
            continue
        pin = getattr(board, name, None)
        if pin is not None:
            return pin
        if i == 0:
            messages.append("QK_PIN_%s = %r: no such pin on this board" % (role, name))
    return None


def build(board, settings, on_event=None, dice=None):
    """Wire the build that ``board`` and ``settings`` describe into a ``Device``."""
    import digitalio

    messages = list(settings.errors)
    prof, msg = choose(board.board_id, settings.get("QK_BOARD"))
    if msg:
        messages.append(msg)

    def button(role, key):
        wanted = settings.get(key)
        default = prof[role]
        if wanted.lower() == "none" or (not wanted and default is None):
            return None, None
        names = (wanted, default[0] if default else "")
        if role == "klaxon":
            names = names + _FALLBACK_PINS
        pin = _find_pin(board, names, messages, role.upper())
        if pin is None:
            return None, None
        active = default[1] if default and not wanted else False
        io = digitalio.DigitalInOut(pin)
        io.switch_to_input(pull=digitalio.Pull.DOWN if active else digitalio.Pull.UP)
        return io, active

    k_io, k_active = button("klaxon", "QK_PIN_KLAXON")
    if k_io is None:
        raise RuntimeError("no Klaxon button pin: set QK_PIN_KLAXON in settings.toml")
    read = (lambda: k_io.value) if k_active else (lambda: not k_io.value)
    klaxon = KlaxonButton(read, settings.get("QK_GLITCH_MS"), settings.get("QK_REARM_MS"),
                          settings.get("QK_STUCK_S") * 1000)

    long_ms = settings.get("QK_LONG_MS")
    controls = []
    if not settings.get("QK_KLAXON_ONLY"):
        for role, key in (("a", "QK_PIN_A"), ("b", "QK_PIN_B")):
            io, active = button(role, key)
            controls.append(None if io is None else ControlButton(io, active, long_ms))
    else:
        controls = [None, None]
    a, b = controls
    if a is None and b is not None:
        a, b = b, None

    sound = _build_sound(board, prof, settings, messages, digitalio)
    lights = _build_lights(board, prof, settings, messages, digitalio)

    if a is None:
        table = PureKlaxon()
    else:
        players = settings.get("QK_PLAYERS")
        qm = settings.get("QK_FIRST_QM")
        if qm >= players:
            messages.append("QK_FIRST_QM = %d but there are %d players; using 0" % (qm, players))
            qm = 0
        if dice is None:
            import random

            dice = lambda: random.randint(1, 6)  # noqa: E731
        table = Referee(Game(players, qm, settings.get("QK_FINISH") or None), dice)
    return Device(klaxon, sound, lights, table, a, b, on_event, messages)


def _build_sound(board, prof, settings, messages, digitalio):
    kind = prof["audio"]
    choice = settings.get("QK_AUDIO")
    if choice in ("piezo", "amp"):
        kind = "pwm" if choice == "piezo" else "pwmaudio"
    elif choice:
        messages.append("QK_AUDIO = %r is not 'piezo' or 'amp'; using the build's own" % choice)
    name = settings.get("QK_PIN_SPEAKER") or prof["speaker"]
    pin = _find_pin(board, (name,), messages, "SPEAKER")
    volume = settings.get("QK_VOLUME")
    out = None
    if pin is not None:
        try:
            if kind == "pwm":
                import pwmio

                out = ToneOut(pwmio.PWMOut(pin, frequency=440, duty_cycle=0,
                                           variable_frequency=True), volume)
            else:
                import audiocore

                if kind == "dac":
                    import audioio

                    audio = audioio.AudioOut(pin)
                else:
                    import audiopwmio

                    audio = audiopwmio.PWMAudioOut(pin)
                try:
                    import audiomixer
                except ImportError:
                    audiomixer = None
                out = SampleOut(audio, audiocore, volume, audiomixer, messages.append)
        except (ImportError, ValueError, RuntimeError) as e:
            messages.append("no sound: %s" % e)
    enable = None
    if prof["speaker_enable"]:
        p = getattr(board, prof["speaker_enable"], None)
        if p is not None:
            enable = digitalio.DigitalInOut(p)
            enable.switch_to_output(value=False)
    switch = None
    if prof["switch"]:
        p = getattr(board, prof["switch"][0], None)
        if p is not None:
            switch = digitalio.DigitalInOut(p)
            switch.switch_to_input(pull=digitalio.Pull.UP)
    mute_level = prof["switch"][1] if prof["switch"] else None
    always = bool(settings.get("QK_MUTE")) or volume == 0
    if switch is None:
        muted = lambda: always  # noqa: E731
    else:
        muted = lambda: always or switch.value == mute_level  # noqa: E731
    return Sound(out, enable, muted)


def _build_lights(board, prof, settings, messages, digitalio):
    pixels = None
    pin_name = settings.get("QK_PIN_PIXELS") or prof["pixels"][0]
    count = settings.get("QK_PIXELS")
    if count < 0:
        count = prof["pixels"][1]
    if count:
        pin = _find_pin(board, (pin_name,), messages, "PIXELS")
        if pin is not None:
            try:
                import neopixel

                pixels = neopixel.NeoPixel(pin, count, brightness=settings.get("QK_BRIGHTNESS") / 100,
                                           auto_write=False)
            except ImportError as e:
                messages.append("no lights: %s (copy neopixel.mpy into lib/)" % e)
    led = None
    if prof["led"]:
        p = getattr(board, prof["led"], None)
        if p is not None:
            led = digitalio.DigitalInOut(p)
            led.switch_to_output(value=False)
    return L.Lights(pixels, led)


def main():
    """What ``code.py`` runs: settings, build, loop."""
    import board

    from hardware import settings

    build(board, settings.load()).run()
