"""Wiring a build at start-up: profile + settings -> buttons, sound, lights, table.

Start-up only: ``hardware.device.start`` drops this module (and the
settings and profile modules) once the ``Device`` is built, to free RAM.
"""

from hardware import lights as L
from hardware.buttons import ControlButton, KlaxonButton, contact
from hardware.device import Device, PureKlaxon, die, sleeper
from hardware.profiles import choose
from hardware.sound import SampleOut, Sound, ToneOut, muter
from qiklaxon.game import Game
from qiklaxon.referee import Referee

# Klaxon fallbacks for a board with no configured or known Klaxon pin.
_FALLBACK_PINS = ("BUTTON", "BUTTON_A", "BOOT", "USER_SW", "D0")
# Built-in buttons that pull to +V (pressed reads True): the Circuit Playgrounds' A and B.
_ACTIVE_HIGH = ("BUTTON_A", "BUTTON_B")


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

    pins = {}

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
        if default and pin is getattr(board, default[0], None):
            active = default[1]
        else:  # a pin named in the settings: wired to GND, unless a built-in button to +V
            active = any(pin is getattr(board, n, None) for n in _ACTIVE_HIGH)
        io = digitalio.DigitalInOut(pin)
        io.switch_to_input(pull=digitalio.Pull.DOWN if active else digitalio.Pull.UP)
        pins[role] = pin
        return io, active

    k_io, k_active = button("klaxon", "QK_PIN_KLAXON")
    if k_io is None:
        raise RuntimeError("no Klaxon button pin: set QK_PIN_KLAXON in settings.toml")
    alarm = None
    if prof["sleep"]:
        try:
            import alarm
        except ImportError:
            messages.append("no alarm module here: the device will not sleep")
    woke = alarm is not None and alarm.wake_alarm is not None
    klaxon = KlaxonButton(contact(k_io, k_active), settings.get("QK_GLITCH_MS"),
                          settings.get("QK_REARM_MS"), settings.get("QK_STUCK_S") * 1000, woke)

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

    journal = game = None
    if a is None:
        table = PureKlaxon()
    else:
        players = settings.get("QK_PLAYERS")
        qm = settings.get("QK_FIRST_QM")
        if qm >= players:
            messages.append("QK_FIRST_QM = %d but there are %d players; using 0" % (qm, players))
            qm = 0
        journal, game = _restore(prof, players, messages)
        table = Referee(game or Game(players, qm, settings.get("QK_FINISH") or None), dice or die)
        table.first_qm = qm
    sleep, watchdog = _power(prof, alarm, k_io, pins["klaxon"], k_active, messages)
    device = Device(klaxon, sound, lights, table, a, b, on_event, messages, journal)
    device.sleep_ms = settings.get("QK_SLEEP_MIN") * 60000
    device.sleeper = sleep
    device.watchdog = watchdog
    if game is not None:
        device.on_event("resumed", {"qm": game.qm, "phase": game.phase,
                                    "positions": game.positions})
    if woke and klaxon.down:  # the press that woke the board counts
        device._klaxon(device._active)
    return device


def _power(prof, alarm, k_io, k_pin, k_active, messages):
    """(sleeper or None, watchdog or None): deep sleep until the Klaxon where the port has
    ``alarm``; the watchdog where the build has one."""
    sleep = sleeper(k_io, k_pin, k_active, alarm) if alarm is not None else None
    watchdog = None
    if prof["watchdog"]:
        try:
            import microcontroller
            from watchdog import WatchDogMode

            wd = microcontroller.watchdog
            wd.timeout = 8  # the RP2040's longest is ~8.3 s
            wd.mode = WatchDogMode.RESET
            wd.feed()
            watchdog = wd
        except (ImportError, AttributeError, NotImplementedError, RuntimeError, ValueError) as e:
            messages.append("no watchdog: %s" % e)
    return sleep, watchdog


def _restore(prof, players, messages):
    """(journal, saved game or None) from ``microcontroller.nvm``; never raises."""
    try:
        import microcontroller

        nvm = microcontroller.nvm
    except (ImportError, AttributeError):
        messages.append("no microcontroller.nvm here: the game will not survive a power cut")
        return None, None
    if nvm is None:
        return None, None
    from qiklaxon.journal import LOG, PINGPONG, Journal

    try:
        journal = Journal(nvm, PINGPONG if prof.get("nvm") == "pingpong" else LOG)
    except (OSError, ValueError, IndexError) as e:
        messages.append("saved-game store unreadable (%s): starting a new game" % e)
        return None, None
    if not journal.found:
        return journal, None
    try:
        game = Game.from_bytes(journal.payload)
    except ValueError as e:
        messages.append("%s: starting a new game" % e)
        return journal, None
    if game.players != players:
        messages.append("QK_PLAYERS is %d but the saved game has %d: starting a new game"
                        % (players, game.players))
        return journal, None
    return journal, game


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
    enable = _output(board, prof["speaker_enable"], digitalio)
    switch = None
    if prof["switch"]:
        p = getattr(board, prof["switch"][0], None)
        if p is not None:
            switch = digitalio.DigitalInOut(p)
            switch.switch_to_input(pull=digitalio.Pull.UP)
    mute_level = prof["switch"][1] if prof["switch"] else None
    always = bool(settings.get("QK_MUTE")) or volume == 0
    return Sound(out, enable, muter(always, switch, mute_level))


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
    return L.Lights(pixels, _output(board, prof["led"], digitalio))


def _output(board, name, digitalio):
    """Pin ``name`` of the board as an output driven low, or None if absent."""
    pin = getattr(board, name, None) if name else None
    if pin is None:
        return None
    io = digitalio.DigitalInOut(pin)
    io.switch_to_output(value=False)
    return io
