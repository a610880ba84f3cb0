"""The simulated board on the host (CPython): Blinka's OS-agnostic board, the stand-ins
in tools/simulated/simboard, a simulated clock and scripted pin levels feeding the real
``digitalio.DigitalInOut`` objects. The firmware files are used unedited.

    sim = Sim(players=4)
    sim.press("klaxon", at_ms=100, hold_ms=300, bounce_us=[300, 200, 500])
    sim.run_until_ms(2000)
    sim.sounds()  -> [(t_ms, "klaxon")]
    sim.named("klaxon") -> [(t_ms, {"challenger": 3, "challenged": 1})]

The device's console lines are kept with their times (``events``);
tools/simulated/events.py reads them as (event, fields).
"""

import os
import sys
import types

from paths import ROOT, SIMBOARD  # noqa: F401  (the stand-ins first: tools/paths.py)

os.environ["BLINKA_OS_AGNOSTIC"] = "1"

if "adafruit_ticks" in sys.modules and "simclock" not in repr(
        getattr(sys.modules["adafruit_ticks"], "ticks_ms", None).__module__):
    raise RuntimeError("adafruit_ticks was imported before the simulated clock was set up")

import _audioout  # noqa: E402
import alarm  # noqa: E402
import board  # noqa: E402
import microcontroller  # noqa: E402
import scenario  # noqa: E402
import simclock  # noqa: E402
import simpins  # noqa: E402
import rp2pio  # noqa: E402
import synth  # noqa: E402
from flashsim import FlashSim  # noqa: E402
from model import layout  # noqa: E402
from model.game import Game  # noqa: E402
import hardware.device  # noqa: E402
import hardware.device as D  # noqa: E402  (its flags' names, for _settled)
from adafruit_blinka.microcontroller.generic_agnostic_board import pin as _agnostic  # noqa: E402

import events as E  # noqa: E402
from events import COLOUR_NAMES, PALETTE, PATTERN_NAMES  # noqa: E402,F401


def _read(self):
    """Blinka's agnostic Pin.read, answering from the scripted levels."""
    if self._mode == _agnostic.Pin.OUT:
        return self.current_value
    self.previous_value = self.current_value
    self.current_value = simpins.read(self.id)
    return self.current_value


_agnostic.Pin.read = _read
_init = _agnostic.Pin.init


def _claim(self, *args, **kwargs):
    """Blinka's agnostic Pin.init, the pin noted as in use (rp2pio's stand-in refuses it,
    as CircuitPython does a pin a DigitalInOut holds)."""
    rp2pio.CLAIMED.add(self.id)
    return _init(self, *args, **kwargs)


_agnostic.Pin.init = _claim

_NAMES = synth.NAMES  # the device's sounds, by number

# The builds (model/layout.py): each real board's id, every profile, each one's flash
BOARD_IDS = {p: layout.BY_PROFILE[p]["board_id"] for p in layout.BOARDS}
PROFILE_NAMES = ("simulated",) + layout.BOARDS
def sound_ms(name):
    """How long sound ``name`` plays, ms: its segments' (tools/gen/synth.py's SEGMENTS, the one
    source of the WAV files and the tone builds' TONES)."""
    return round(sum(seg[2] for seg in synth.SEGMENTS[name]) * 1000)


def klaxon_ms():
    """How long the klaxon sounds, ms (``sound_ms``)."""
    return sound_ms("klaxon")


PASS_US = 1000  # the simulated loop pass: 1 ms (a board's is shorter; tools/quality/bench.py)
JUMP_US = 3600 * 1000000  # coarse runs: a settled device's clock jumps up to an hour at once
NVM_CHIPS = {b["profile"]: b["chip"] for b in layout.BUILDS}


class Watchdog:
    """``microcontroller.watchdog`` on the simulated board: counts feeds."""

    def __init__(self):
        self.timeout = None
        self.mode = None
        self.feeds = []

    def feed(self):
        self.feeds.append(simclock.now_ms())


class ProfileBoard:
    """A ``board`` module for a real build's profile, simulated: the pin names
    that profile uses, as Blinka agnostic pins, and its board_id."""

    def __init__(self, name):
        self.board_id = BOARD_IDS[name]
        names = scenario.pin_names(scenario.profile(name))
        for i, pin_name in enumerate(names):
            setattr(self, pin_name, _agnostic.Pin(100 + i))
        if any(n[:2] == "GP" for n in names):  # an RP2040's: every GPIO, numbered (rp2pio)
            for n in range(29):
                if not hasattr(self, "GP%d" % n):
                    setattr(self, "GP%d" % n, _agnostic.Pin(200 + n))
                getattr(self, "GP%d" % n).gpio = n


WAKE_BOOT_US = 1_300_000  # a pin alarm's press -> code.py running again


def settings_text(settings="", players=None, qm=None, klaxon_only=False, brightness=100):
    """The settings.toml a run gets (the harness's and the Pico lane's): the simulator's
    flags as lines after the file's, which then loses its own line of that key (the board
    reads a key once: the first; its line numbers are kept), and full brightness unless
    set, so that the pixels' bytes are the device's colours."""
    flags = [k for k, v in (("QK_PLAYERS", players), ("QK_FIRST_QM", qm),
                            ("QK_KLAXON_ONLY", klaxon_only or None)) if v is not None]
    lines = ["" if line.split("=")[0].strip() in flags else line for line in settings.split("\n")]
    if players is not None:
        lines.append("QK_PLAYERS = %d" % players)
    if qm is not None:
        lines.append("QK_FIRST_QM = %d" % qm)
    if klaxon_only:
        lines.append("QK_KLAXON_ONLY = 1")
    if "QK_BRIGHTNESS" not in settings:
        lines.append("QK_BRIGHTNESS = %d" % brightness)
    return "\n".join(lines) + "\n"


class Sim(scenario.Scenario):
    """One power-on of the simulated device (any build's profile)."""

    def __init__(self, settings="", players=None, qm=None, klaxon_only=False, board_name=None,
                 start_ms=simclock.POWER_ON_MS, seed=1, pass_us=PASS_US, phase_us=0,
                 brightness=100, nvm=None, held=(), wake_alarm=None, coarse=False):
        text = settings_text(settings, players, qm, klaxon_only, brightness)
        name = board_name or "simulated"
        self.board_name = name
        self.board = board if name == "simulated" else ProfileBoard(name)
        self.pass_us = pass_us
        # microcontroller.nvm: flash modelled on the build's chip; pass one in to "reboot".
        self.nvm = nvm if nvm is not None else FlashSim(NVM_CHIPS[name])
        microcontroller.nvm = self.nvm
        # a watchdog where the build has one, recording its feeds
        microcontroller.watchdog = Watchdog() if scenario.profile(name)["watchdog"] else None
        # microcontroller.pin: the RP2040's GPIOs by number, the board's own pins (the
        # Pico's profile finds its piezo's second pin there)
        microcontroller.pin = types.SimpleNamespace(**{
            "GPIO" + k[2:]: getattr(self.board, k) for k in dir(self.board)
            if k[:2] == "GP" and k[2:].isdigit()})
        alarm.wake_alarm = wake_alarm
        self.coarse = coarse  # long quiet stretches in 100 ms passes (tools/simulated/sim.py)
        self.jump_us = JUMP_US  # ... and settled ones in jumps of up to this (0: never)
        self.slept = 0  # deep sleeps so far
        self.asleep = False  # asleep now, waiting for the Klaxon
        self._sounds = []  # (t_us, name) of every sound that really started
        _audioout.listener = self._heard
        super().__init__(self.board, scenario.profile(name), text, start_ms,
                         seed, phase_us, held=held)

    def power_on_again(self):
        self.device = None  # (what sounds while it starts is heard below, once)
        rp2pio.CLAIMED.clear()  # (a reset frees every pin, as on a board)
        super().power_on_again()
        d = self.device
        if d is not None and d.f[layout.CUR] != layout.NONE:  # a sound from start-up: the
            self._sounds.append((simclock.now_us(), _NAMES[d.f[layout.CUR]]))  # press that woke it
        if d is not None and d.f[layout.TONE]:  # tone sweeps (a piezo, the Express's DAC): hear them start
            play = d.play

            def heard(i, n):
                play(i, n)
                if d.f[layout.CUR] == i:
                    self._heard(_NAMES[i])

            d.play = heard

    # ---------------------------------------------------------------- pins
    def press(self, control, at_ms, hold_ms=150, bounce_us=(), release_bounce_us=()):
        """A press at ``at_ms`` held ``hold_ms``; bounce lists alternate open/closed
        durations (µs) after the first contact and after the release."""
        self._bounce(control, int(at_ms * 1000), True, bounce_us)
        self._bounce(control, int((at_ms + hold_ms) * 1000), False, release_bounce_us)

    def _bounce(self, control, t, pressed, durations):
        """The contact goes to ``pressed`` at ``t`` µs, chatters for ``durations``, and settles there."""
        self.level(control, t, pressed)
        closed = pressed
        for d in durations:
            t += d
            closed = not closed
            self.level(control, t, closed)
        if closed != pressed:
            self.level(control, t, pressed)

    def tap(self, control, at_ms, times=1, hold_ms=80, gap_ms=120):
        for i in range(times):
            self.press(control, at_ms + i * (hold_ms + gap_ms), hold_ms)

    # ---------------------------------------------------------------- time
    def run_until_us(self, t_us, pass_us=None):
        """Poll until ``t_us``. When the device deep-sleeps (``slept`` counts it), the board
        sleeps until the Klaxon is next pressed (its pin alarm), then starts afresh
        with that press: a new device, the same pins, clock and saved game."""
        while True:
            if not self.asleep:
                try:
                    self._run_quiet_fast(t_us, pass_us or self.pass_us)
                    return
                except alarm.DeepSleep:
                    self.slept += 1
            pin_id, active = self.controls["klaxon"]
            wake = simpins.next_level_us(pin_id, simclock.now_us(), active)
            if wake is None or wake > t_us:
                simclock.set_us(t_us)
                self.asleep = True
                return
            # the pin alarm resets the chip, and CircuitPython boots again: code.py starts
            # ~1.3 s after the press (measured on the real Pico firmware, emulated), long
            # after a slam was let go
            simclock.set_us(wake + WAKE_BOOT_US)
            alarm.wake_alarm = alarm.pin.PinAlarm(None, value=active)
            self.asleep = False
            self.power_on_again()

    def _run_quiet_fast(self, t_us, pass_us):
        """Poll until ``t_us``; with ``coarse`` set, long quiet stretches (no pin change
        for 10 s and more) go in 100 ms passes, from 2 s after the last change to 2 s
        before the next, so that a script with hours between presses ends in seconds.
        The device's own timers (sleep, saves, a fault's end) still run, to 100 ms:
        every such pass is a chores pass."""
        while self.coarse and simclock.now_us() < t_us and self.device is not None:
            now = simclock.now_us()
            nxt = simpins.next_change_us(now)
            quiet_end = min(t_us, (nxt if nxt is not None else t_us) - 2_000_000)
            if quiet_end - now < 10_000_000 or now - simpins.last_change_before_us(now) < \
                    2_000_000:
                step_to = min(t_us, now + 2_000_000) if nxt is None or nxt - now > 2_000_000 \
                    else min(t_us, nxt + 2_000_000)
                super().run_until_us(step_to, pass_us)
                continue
            self._quiet(quiet_end)
        super().run_until_us(t_us, pass_us)

    def _quiet(self, t_us):
        """100 ms passes until ``t_us``, each also a chores pass (the device runs its
        chores every 256th pass: at this pace they would come every 25.6 s). While the
        device is settled (``_settled``: nothing held, nothing sounding or flashing, no
        save, fault or sleep due) nothing it does depends on when its next pass comes, so
        the clock jumps to the next such pass in one step of up to ``JUMP_US`` (an hour,
        far inside the 2**28 ms that ``ticks_diff`` spans: every timer compares as it
        would at 100 ms passes, and the ticks still wrap where they would)."""
        d = self.device
        while simclock.now_us() < t_us:
            d.f[D._N] = 255  # the pass counter: this pass is a chores pass
            self.call(d.poll)
            step = 100_000
            if self.device is d and self.jump_us > step:
                step = max(step, min(self._settled(d), t_us - simclock.now_us()))
            simclock.advance_us(step)

    def _settled(self, d):
        """How long (µs, 0: not at all) the device can go without a pass and do exactly
        what it would with passes every 100 ms: its flags say nothing is held down or
        being re-armed, nothing sounds, flashes, or waits to sound, no save or fault is
        due, and its sleep (where the build sleeps) is further away than that."""
        f, t, p = d.f, d.t, d.p
        if not (f[D._ARM] or f[D._STUCK]) or f[D._CUR] != 255 or f[D._PEND] != 255 or \
                f[D._FL] or f[D._DUE] or f[D._FAULT] or \
                any(f[D._LV + i] != 255 for i in range(f[D._NB])):
            return 0
        most = self.jump_us
        if p[D._SLEEP] and not f[D._STUCK]:  # the idle timer runs: stop short of it
            left = t[D._IDLE] - D.ticks_diff(D.ticks_ms(), t[D._LAST]) - 1000
            most = min(most, max(0, left) * 1000)
        return most

    def run_until_ms(self, t_ms):
        self.run_until_us(int(t_ms * 1000))

    def run_for_ms(self, ms):
        self.run_until_us(simclock.now_us() + int(ms * 1000))

    @property
    def now_ms(self):
        return simclock.now_ms()

    # ------------------------------------------------------------- outputs
    def _heard(self, name):
        # not a tone's wave being re-pitched, nor a silent play at start-up
        if name != "raw" and getattr(self, "device", None) is not None:
            self._sounds.append((simclock.now_us(), name))

    def sounds(self):
        """Sounds that really started (audio output or piezo): [(t_ms, name)]."""
        return [(t // 1000, name) for t, name in self._sounds]

    def sound_starts_us(self):
        return [t for t, _ in self._sounds]

    def records(self):
        """Every event in time order: [(t_ms, event, fields)], the sounds among them."""
        out = E.merge([(t, n, f) for t, line in self.events for n, f in [E.parse(line)]])
        out += [(t // 1000, "sound", {"name": name}) for t, name in self._sounds]
        out.sort(key=lambda r: r[0])
        return out

    def named(self, name):
        """[(t_ms, fields)] of the events called ``name`` (see tools/simulated/events.py)."""
        return [(t, f) for t, n, f in self.records() if n == name]

    @property
    def game(self):
        """The game as a ``model.game.Game`` view of the device's core (None: a pure Klaxon)."""
        r = self.device.r
        if r is None:
            return None
        g = Game.__new__(Game)
        g.core = r
        g.refusal = None
        return g

    def ring(self):
        """What each pixel shows now, as colour names ('off' when dark)."""
        px = self.device.p[layout.PX]
        rgb = [(c >> 16, c >> 8 & 255, c & 255) for c in PALETTE]  # as the device draws them
        return [COLOUR_NAMES[rgb.index(tuple(px[i]))] if tuple(px[i]) in rgb
                else str(tuple(px[i])) for i in range(len(px))]

    def scene(self):
        """Each pixel's (colour, pattern) names: what it shows, blinking aside."""
        c = self.device.c
        np = len(c) // 2
        return [(COLOUR_NAMES[c[i] & 15], PATTERN_NAMES[c[np + i]]) for i in range(np)]

    def pixel_of(self, seat, players):
        np = len(self.device.c) // 2
        return seat * np // players if np >= players else seat

    def speaker_enabled(self):
        en = self.device.p[layout.EN]
        return bool(en.value) if en is not None else None

