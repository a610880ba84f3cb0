"""The device loop: buttons in, the table (pure Klaxon or referee), sound and lights out.

``Device.poll()`` is one loop pass and never blocks: it samples the
buttons, hands presses to the table, starts sounds and steps the lights.
``start(board)`` wires the build (``hardware/wiring.py``, dropped after
start-up to free its RAM); ``main()`` is what ``code.py`` runs.
"""

import time

from micropython import const
from adafruit_ticks import ticks_add, ticks_diff, ticks_ms

from hardware import lights as L
from hardware.sound import BLIP, DENIED, KLAXON, NAMES
from qiklaxon.game import ANSWERED, ANSWERING, IDLE, OVER, PASSED, REVEAL
from qiklaxon.referee import A1, A2, AL, B1, B2, BL, DONE, REFUSED, Referee, describe

# The loop polls back to back, with no pause: a pass takes ~0.3-0.6 ms on an RP2040
# (tools/bench.py), so the Klaxon is sampled well under every millisecond. A pause
# would save no power on the RP2040 and little on the nRF52840 while a game is on;
# idle time is saved by sleeping.
KLAXON_FLASH_MS = const(1200)
SAVE_DELAY_MS = const(1000)  # a save waits for a second without changes (flash writes block)
WATCHDOG_FEED_MS = const(1000)  # the watchdog (8 s) is fed at most this often
CRASH_FORGET_MS = const(60000)  # a minute without a crash resets the back-off
REFEREE_FLASH_MS = const(400)
ERROR_FLASH_MS = const(2000)

# Gesture (ControlButton.gesture: 1, 2 short presses, 9 long) -> referee key.
_A_KEYS = (0, A1, A2, 0, 0, 0, 0, 0, 0, AL)
_B_KEYS = (0, B1, B2, 0, 0, 0, 0, 0, 0, BL)
_ONE_BUTTON_KEYS = (0, A1, B1, AL, B2, 0, 0, 0, 0, BL)  # builds with A only


def die():
    """One roll of a six-sided die, for the QM's roll."""
    import random

    return random.randint(1, 6)


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
                 messages=(), journal=None):
        self.klaxon = klaxon
        self.sound = sound
        self.lights = lights
        self.table = table
        self.a = a
        self.b = b
        self._a_keys = _A_KEYS if b is not None else _ONE_BUTTON_KEYS
        self.on_event = on_event or console
        self.referee = table if isinstance(table, Referee) else None
        self.journal = journal  # the saved game (qiklaxon.journal), or None
        self._save_pending = False
        self._save_at = 0
        self.passes = 0
        self.watchdog = None  # microcontroller.watchdog, where the port has one and it is set up
        self.sleeper = None  # function that sleeps until the Klaxon (does not return on a board)
        self.sleep_ms = 0  # idle time before sleeping; 0: never
        self.asleep = False
        self.crashes = 0
        self._last_crash = 0
        now = ticks_ms()
        self._active = now  # ticks of the last activity (press, sound)
        self._fed = now  # ticks of the last watchdog feed
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
        self.passes = (self.passes + 1) & 0xFFFFFF  # wraps: never a long int (allocation)
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
        # A and B take turns (each sampled every 2nd pass, ~2 ms: their
        # debouncers need 10 ms); the Klaxon is sampled every pass.
        if self.passes & 1:
            if self.a is not None:
                self.a.update()
                if self.a.gesture:
                    self._key(self._a_keys[self.a.gesture], now)
        elif self.b is not None:
            self.b.update()
            if self.b.gesture:
                self._key(_B_KEYS[self.b.gesture], now)
        if self._save_pending and ticks_diff(now, self._save_at) >= 0:
            self.save()
        s = self.sound
        s.update(now)
        if s.started >= 0:
            self.on_event("sound", {"name": NAMES[s.started]})
            s.started = -1
        if s.current >= 0 or k.down:
            self._active = now
        elif self.sleep_ms and ticks_diff(now, self._active) >= self.sleep_ms:
            self.sleep(now)
        if not self.asleep:
            self.lights.update(now)
        if self.watchdog is not None and ticks_diff(now, self._fed) >= WATCHDOG_FEED_MS:
            self.watchdog.feed()
            self._fed = now

    def save(self):
        """Write the game to the saved-game store now (a no-op when nothing changed)."""
        self._save_pending = False
        if self.journal is not None and self.referee is not None:
            try:
                if self.journal.save(self.referee.game.to_bytes()):
                    self.on_event("saved", {"seq": self.journal.seq})
            except (OSError, ValueError) as e:
                self.on_event("error", {"message": "could not save the game: %s" % e})

    def _changed(self, now):
        self._save_pending = True
        self._save_at = ticks_add(now, SAVE_DELAY_MS)

    def sleep(self, now):
        """Idle too long: save, go dark and silent, and sleep until the Klaxon.

        Where the port has ``alarm`` (``sleeper`` set) this deep-sleeps and the
        board restarts on the Klaxon, resuming the saved game. Without it (the
        Express) the lights stay off and the loop keeps polling until a press."""
        if self.asleep:
            return
        self.save()
        self.sound.stop()
        self.lights.off()
        self.asleep = True
        self.on_event("sleep", {"idle_ms": self.sleep_ms})
        if self.sleeper is not None:
            self.sleeper()

    def _wake(self, now):
        self._active = now
        if self.asleep:
            self.asleep = False
            self.on_event("wake", {})
            self.render()

    def recover(self, error, now):
        """An unexpected exception in the loop: report it, save the game, back off, go on.

        Returns the back-off in seconds (0.25 s doubling to 4 s; a minute without
        a crash starts again from 0.25 s). The watchdog is fed during it."""
        if self.crashes and ticks_diff(now, self._last_crash) >= CRASH_FORGET_MS:
            self.crashes = 0
        self.crashes += 1
        self._last_crash = now
        self.on_event("error", {"message": "the loop failed (%d in a row): %r" % (self.crashes, error)})
        try:
            self.save()
            self.lights.flash(now, ERROR_FLASH_MS, L.PURPLE, L.OFF)
        except Exception as e:  # keep recovering whatever the state
            self.on_event("error", {"message": "while recovering: %r" % e})
        if self.watchdog is not None:
            self.watchdog.feed()
        return 0.25 * (1 << min(self.crashes - 1, 4))

    def run(self):
        """Poll forever (``code.py``); an exception in a pass is recovered from, not fatal."""
        poll = self.poll
        while True:
            try:
                while True:
                    poll()
            except Exception as e:  # a bug must not silence the Klaxon for good
                _print_exception(e)
                time.sleep(self.recover(e, ticks_ms()))

    # ------------------------------------------------------------- actions
    def _klaxon(self, now):
        self._wake(now)
        t = self.table
        if t.klaxon():
            self.sound.play(KLAXON, now)
            self._report(t)
            if self.referee is None:
                self.lights.flash(now, KLAXON_FLASH_MS)
            else:
                self._changed(now)
                self.render()
                self.lights.flash(now, REFEREE_FLASH_MS)
        else:
            self.sound.play(DENIED, now)
            self._report(t)

    def _key(self, key, now):
        self._wake(now)
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
            self._changed(now)
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
        if self.klaxon.stuck:  # the fault stays shown until the button is released
            lights.fill(L.PURPLE, L.FAST)
            return
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
    if name == "sound" or name == "saved":
        return
    if name == "klaxon" and not fields:
        print("KLAXON!")
    elif name in ("error", "fault", "fault_cleared"):
        print("%s: %s" % (name.upper().replace("_", " "), fields.get("message") or fields.get("what")))
    else:
        print(describe(name, fields))


def _print_exception(e):
    import sys

    if hasattr(sys, "print_exception"):
        sys.print_exception(e)
    else:
        import traceback

        traceback.print_exception(e)


def sleeper(io, pin, level, alarm):
    """A function that deep-sleeps until ``pin`` reads ``level`` (the Klaxon pressed).

    Defined here rather than in the wiring so the wiring's RAM can be freed."""

    def sleep():
        io.deinit()  # a PinAlarm needs the pin free
        alarm.exit_and_deep_sleep_until_alarms(alarm.pin.PinAlarm(pin, value=level, pull=True))

    return sleep


def forget(*names):
    """Drop start-up-only modules so that their bytecode's RAM is freed (the Express has ~14 KB)."""
    import sys

    for name in names:
        sys.modules.pop(name, None)
        package, _, leaf = name.rpartition(".")
        if package in sys.modules and hasattr(sys.modules[package], leaf):
            delattr(sys.modules[package], leaf)


def start(board, settings_text=None, on_event=None, dice=None):
    """Read the settings (``/settings.toml``, or ``settings_text``), wire the build,
    free the start-up code; returns the ``Device``. The freed RAM returns at the
    next automatic collection."""
    from hardware import settings, wiring

    s = settings.load() if settings_text is None else settings.Settings(settings_text)
    device = wiring.build(board, s, on_event, dice)
    del s, settings, wiring
    forget("hardware.wiring", "hardware.settings", "hardware.profiles", "hardware.profile_cpb",
           "hardware.profile_cpx", "hardware.profile_pico", "hardware.profile_simulated")
    return device


def main():
    """What ``code.py`` runs: start, then loop forever. If the build cannot be wired
    (no Klaxon pin, say) it says why and blinks, rather than crash-looping."""
    import board

    try:
        device = start(board)
    except Exception as e:
        _print_exception(e)
        print("QI Klaxon cannot start: %s" % e)
        _blink_forever(board)
    device.run()


def _blink_forever(board):
    """The board's LED (if any) blinks three times every two seconds; never returns."""
    led = None
    pin = getattr(board, "LED", None) or getattr(board, "D13", None)
    if pin is not None:
        try:
            import digitalio

            led = digitalio.DigitalInOut(pin)
            led.switch_to_output()
        except Exception:
            led = None
    while True:
        for i in range(7):
            if led is not None:
                led.value = not i & 1
            time.sleep(0.15)
        time.sleep(1.0)
