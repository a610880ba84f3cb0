"""The board's side of the web page: runs in MicroPython's WebAssembly port, in the page.

The device files are the board's, unedited (web/device/, laid out by tools/maker/web.py),
with the stand-ins the other lanes use for the board's own modules: the simulated
build's pins (tools/lanes/vmboard), a clock the page moves to real time (simclock), pin
levels the page's buttons set (simpins), an audio output and mixer voice whose plays
and stops the page sounds through Web Audio (_audioout, _mixer), and ``microcontroller.nvm``,
which the page keeps in localStorage. The loop runs as on the host harness: a 1 ms
pass at a time (tools/simulated/harness.py), so the same pin levels at the same times give
the same events, which the browser test checks.

Called from web/app.js: words(), boot(), step(), level(), frame(), flush(), trace().
The ring is drawn where the board has its pixels, and each seat labelled at the pixel
the firmware lights for it: both from tools/simulated/events.py (RING_POSITIONS, seat_labels).

The scoreboard of a real board (web/scoreboard.js reads its console): board_start(),
board_feed(), board_ring(), board_rejoin(), with tools/maker/scoreboard.py following the
game; this page's own board does not run then.
"""

import os
import sys

sys.path[:0] = ["/device/vmboard", "/device/simboard", "/device/lib", "/device/tools", "/device"]
os.chdir("/device")

import binascii  # noqa: E402
import json  # noqa: E402

import _audioout  # noqa: E402
import _mixer  # noqa: E402
import alarm  # noqa: E402
import board  # noqa: E402
import events  # noqa: E402
import js  # noqa: E402
import microcontroller  # noqa: E402
import scenario  # noqa: E402
import scoreboard  # noqa: E402
import simclock  # noqa: E402

if __debug__:  # (the names as consts, as device.py's: the staged model/layout.py is the scoreboard's)
    from micropython import const

# names: made by tools/gen/consts.py from model/layout.py (python3 tools/dev.py regen)
_PLAYERS = const(0)
_QM = const(1)
_PHASE = const(2)
_TURN = const(3)
_CHALLENGER = const(4)
_CHALLENGED = const(5)
_SND = const(4)
_PX = const(7)
_N = const(12)
# (end of the names)

BUILD = "simulated"  # Blinka's OS-agnostic pins, WAV sounds, a 10-pixel ring, deep sleep
BASE = "QK_BRIGHTNESS = 100\n"  # settings.toml: the screen dims, not the firmware
SETTINGS = BASE
PASS_US = 1000  # a pass a simulated millisecond, as the host harness runs it
CATCH_UP_US = 2000000  # further behind than this (a hidden tab): quiet passes (_quiet)
NVM_SIZE = 4096  # the simulated build's flash: an RP2040's sector
_NONE = 255
SOUNDS = ("klaxon", "denied", "blip", "done", "undone")  # the device's sounds 0 to 4 (its
# parts' p[_SND]; tools/gen/synth.py's NAMES, a test holds the copies to it)

_s = None  # the Scenario: the device on this page's board
_trace = []  # [t_us, control, pressed] of every level the page's buttons set
_log = []  # [t_ms, event, fields] merged, as tools/simulated/events.py reads the console
_sent = [0, 0]  # console lines read so far; the first log entry not yet sent
_dropped = [0, 0, 0]  # entries let go (a long evening): log entries, console lines, levels
KEEP = 2000  # of each, at least the last this many are kept
_nvm = [b""]  # the flash as last handed to the page to keep
_asleep = [False]
_seed = [1]  # the die's seed
_coarse = [0]  # quiet passes taken to catch up (the trace then differs from the harness)
MIN_LEVEL_US = 30000  # a press or a gap between presses lasts at least this long (level())
_last_level = {}  # control -> (time, pressed) of the last level the page's buttons set
NP_BOARD = scoreboard.NP  # the scoreboard's ring: a Circuit Playground's


def _heard(name):
    if name != "raw" and _s is not None and _s.device is not None:  # as tools/simulated/harness.py hears
        js.qkSound(name, simclock.now_us() / 1000)


def _stop(voice, stop=_mixer._Voice.stop):
    """The mixer voice's stop(), telling the page to silence what it sounds."""
    if voice.playing:
        js.qkStop(simclock.now_us() / 1000)
    stop(voice)


_mixer._Voice.stop = _stop  # the simulated build plays its WAVs on an audiomixer voice


def boot(nvm_hex, seed, klaxon_only=False):
    """Power on: the saved flash (hex, or "" for a new one), the die's seed (a whole
    number), and whether the device is a pure Klaxon (QK_KLAXON_ONLY). Returns JSON:
    started or not, and a note when the kept flash was not one (it is then erased,
    here and in the page's storage)."""
    global _s, SETTINGS
    note = ""
    try:
        data = binascii.unhexlify(nvm_hex)
    except ValueError:
        data = None
    if data is None or len(data) not in (0, NVM_SIZE):
        note = "the game kept in this browser was not a saved game: a new game"
    if not data or len(data) != NVM_SIZE:  # a new page, or not a flash: erased
        data = b"\xff" * NVM_SIZE
    microcontroller.nvm = bytearray(data)
    _nvm[0] = b"" if note else bytes(data)  # a bad one is replaced in the page's storage
    microcontroller.watchdog = None
    alarm.wake_alarm = None
    board.use(BUILD)
    _audioout.record = False  # the page sounds them; nothing to keep
    _audioout.listener = _heard
    del _trace[:]
    del _log[:]
    _last_level.clear()
    _sent[0] = _sent[1] = 0
    _dropped[0] = _dropped[1] = _dropped[2] = 0
    _asleep[0] = False
    try:
        seed = int(seed) % 0x7FFFFFFF or 1  # the die's LCG takes a 31-bit seed
    except (ValueError, TypeError, OverflowError):
        seed = 1
    _seed[0] = seed
    SETTINGS = BASE + ("QK_KLAXON_ONLY = 1\n" if klaxon_only else "")
    _s = scenario.Scenario(board, scenario.profile(BUILD), SETTINGS, seed=seed)
    _name_sounds()
    said = [line for _, line in _s.events]
    if not note and [x for x in said if x.startswith(("nvm holds no valid", "the saved game is"))]:
        note = "the game kept in this browser was damaged: a new game"
    np = len(_s.device.c) // 2 if _s.device is not None else 0
    return json.dumps({"started": _s.device is not None, "note": note, "seed": seed,
                       "resumed": "resumed" in said, "hours": events.ring_hours(BUILD, np)})


def flush():
    """Save the game now if it changed since its last save (the page is being closed:
    the device would have saved it within a second)."""
    d = _s.device if _s is not None else None
    r = d.r if d is not None and not _asleep[0] else None
    if r is not None and r.j and r.w:
        r.save()


def _name_sounds():
    """MicroPython's files have no name to give the stand-in WaveFile: name each sample
    by its place, so that the page knows which WAV to sound."""
    d = _s.device
    if d is not None:
        for i, sample in enumerate(d.p[_SND]):
            if sample is not None:
                sample.name = SOUNDS[i]


def now_us():
    return simclock.now_us()


def step(t_s):
    """Run the loop's passes up to ``t_s`` seconds since power-on (real time, from the
    page's clock: seconds, as a JavaScript number that is whole converts to a 32-bit int)."""
    t_us = int(t_s * 1000000)
    if _asleep[0] or _s.device is None:  # time passes; nothing runs (tools/simulated/harness.py)
        simclock.set_us(t_us)
        return
    try:
        if t_us - simclock.now_us() > CATCH_UP_US:  # the tab was hidden: catch up quietly
            _s.call(_quiet, t_us - CATCH_UP_US // 2)
        _s.run_until_us(t_us, PASS_US)
    except alarm.DeepSleep:
        _asleep[0] = True


def _quiet(t_us):
    """Quiet passes until ``t_us``, each a chores pass (tools/simulated/harness.py does the same):
    100 ms apart, or longer for a longer gap (at most ~2000 passes: a tab hidden for an
    hour must not freeze the page when it comes back; the device's timers, sleep after
    minutes and a save after a second, still run)."""
    d = _s.device
    pace = max(100000, (t_us - simclock.now_us()) // 2000)
    while simclock.now_us() < t_us:
        d.f[_N] = 255  # the pass counter: this pass is a chores pass
        d.poll()
        simclock.advance_us(min(pace, t_us - simclock.now_us()) or 1)
        _coarse[0] += 1


def level(control, pressed):
    """``control`` ("klaxon", "a", "b") goes down (pressed) or up now; the Klaxon wakes
    a sleeping board, which then starts afresh and counts that press, as a board does.
    A level comes at least MIN_LEVEL_US after the control's last one: a key tapped with
    no time between down and up (an on-screen keyboard, Selenium's send_keys) is a tap
    that long, not a press no pin could see."""
    if control not in _s.controls:
        return
    t = simclock.now_us()
    last = _last_level.get(control)
    if last is not None and last[1] != bool(pressed):
        t = max(t, last[0] + MIN_LEVEL_US)
    _last_level[control] = (t, bool(pressed))
    _trace.append([t, control, bool(pressed)])
    _s.level(control, t, pressed)
    simclock.advance_us(0)  # the stand-in pins read the new level from this very pass on
    if _asleep[0] and control == "klaxon" and pressed:
        simclock.set_us(t + 1000)  # the pin alarm, then the board's start-up
        alarm.wake_alarm = alarm.pin.PinAlarm(None, value=_s.controls["klaxon"][1])
        _asleep[0] = False
        _s.power_on_again()
        _name_sounds()


def _read_log():
    lines = _s.events
    first = len(_log)
    for t, line in lines[_sent[0]:]:
        name, fields = events.parse(line)
        before = len(_log)
        if before:
            last = _log[-1]
            folded = events.merge([last, (t, name, fields)])
            if len(folded) == 1:
                _log[-1] = folded[0]
                first = min(first, before - 1)
                continue
        _log.append((t, name, fields))
    _sent[0] = len(lines)
    return first


def _trim():
    """Let the oldest entries go once there are twice KEEP (the page shows the recent
    ones; a long evening must not fill the VM's heap)."""
    for i, kept in enumerate((_log, _s.events, _trace)):
        if len(kept) > 2 * KEEP:
            n = len(kept) - KEEP
            del kept[:n]
            _dropped[i] += n
            if i < 2:
                _sent[1 - i] -= n


def frame():
    """What the page shows now, as JSON: the ring's colours and scene, new or changed
    log lines as sentences, the flash when it changed, asleep or not."""
    out = {"asleep": _asleep[0], "started": _s.device is not None, "t": simclock.now_ms()}
    d = _s.device
    if d is not None and not _asleep[0]:
        px = d.p[_PX]
        out["px"] = [px[i] if isinstance(px[i], int) else
                     px[i][0] << 16 | px[i][1] << 8 | px[i][2] for i in range(len(px))]
        out["scene"] = scene_by_pixel(d, out["px"])
        n = len(out["px"])
        out["players"] = players = d.r.S[_PLAYERS] if d.r is not None else 0
        out["seats"] = events.seat_labels(BUILD, players, n)  # the seat each pixel shows
        out["status"] = status_words()
    first = min(_read_log(), _sent[1])
    base = _dropped[0]  # log entries are numbered from power-on
    out["log"] = [[base + i, _log[i][0], events.sentence(_log[i][1], _log[i][2])]
                  for i in range(first, len(_log))]
    _sent[1] = len(_log)
    _trim()
    nvm = microcontroller.nvm
    if nvm != _nvm[0]:
        _nvm[0] = bytes(nvm)
        out["nvm"] = binascii.hexlify(nvm).decode()
    return json.dumps(out)


def state():
    """The game as the simulator's last line says it (tools/simulated/sim.py ``state``)."""
    d = _s.device
    r = d.r if d is not None else None
    out = {"mode": "klaxon" if r is None else "referee"}
    if r is not None:
        S = r.S
        n = S[_PLAYERS]
        pos = [r.P[i] for i in range(n)]

        def seat(v):
            return None if v == _NONE else v

        out.update(players=n, qm=S[_QM],
                   phase=("idle", "answering", "reveal", "over")[S[_PHASE]],
                   positions=pos, answering=seat(S[_TURN]), challenger=seat(S[_CHALLENGER]),
                   challenged=seat(S[_CHALLENGED]))
    return out


def scene_by_pixel(d, px):
    """Each pixel's [colour, pattern] numbers, in pixel order (tools/maker/scoreboard.py's
    ``scene``: where the pixel shows something else, named by what it shows)."""
    return scoreboard.scene(d.c, px, events.CLOCKWISE_NUMBERING[BUILD])


def status_words():
    """The page's status line: where the game is now, in words (tools/maker/scoreboard.py's,
    as the scoreboard of a real board says it)."""
    d = _s.device
    return scoreboard.words(d.r if d is not None else None)


def trace():
    """Everything the browser test compares with the host harness, as JSON."""
    return json.dumps({"levels": _trace, "lines": [[t, line] for t, line in _s.events],
                       "seed": _seed[0], "dropped": _dropped,
                       "state": state(), "now_us": simclock.now_us(), "coarse": _coarse[0],
                       "settings": SETTINGS, "build": BUILD})


def words():
    """The ring's legend and the names of its colours and patterns, as the host tools
    word them (tools/simulated/events.py), as JSON."""
    return json.dumps({"legend": events.LEGEND.split("\n")[1:], "colours": events.COLOUR_NAMES,
                       "patterns": events.PATTERN_NAMES})


# ---------------------------------------------------------------- a real board's scoreboard
_board = [None, 0]  # the Scoreboard, and the number of log entries let go before its log


def board_start():
    """The page becomes the scoreboard of a real board (tools/maker/scoreboard.py), from now:
    returns the ring's clock hours, as JSON."""
    _board[0] = scoreboard.Scoreboard()
    _board[1] = 0
    return json.dumps({"hours": events.ring_hours(BUILD, NP_BOARD)})


def board_feed(line, now_ms):
    """One console line of the board (``now_ms``: the page's clock): what happened, the
    sound to start, what the scoreboard shows now and the log entries new or changed, as
    JSON. ``need``: ask the board for its whole state (one byte on its console)."""
    b = _board[0]
    first = max(0, len(b.log) - 1)  # (a line may fold into the entry before it)
    name, fields, sound = b.feed(line, int(now_ms))
    base = _board[1]
    out = {"event": name, "sound": sound, "view": b.view(), "table": b.table(),
           "need": b.need, "log": [[base + i, b.log[i][0], b.log[i][1],
                                    events.sentence(b.log[i][1], b.log[i][2])]
                                   for i in range(first, len(b.log))]}
    if len(b.log) > 2 * KEEP:  # a long evening: the page shows the recent ones
        n = len(b.log) - KEEP
        del b.log[:n]
        _board[1] += n
    return json.dumps(out)


def board_ring(now_ms):
    """The ring now, drawn by the board's own code from the scoreboard's game: each
    pixel's colour, what it shows, and the seat each pixel stands for, as JSON."""
    b = _board[0]
    px, scene = b.ring(int(now_ms))
    v = b.view()
    players = v.get("players", 0) if b.synced and b.mode == "referee" else 0
    return json.dumps({"px": px, "scene": scene,
                       "seats": events.seat_labels(BUILD, players, NP_BOARD)})


def board_rejoin(why):
    """The board's console is back (plugged in again, or another port): the game may have
    moved on meanwhile, so the scoreboard asks for it again."""
    b = _board[0]
    b.rejoin(why)
    return json.dumps(b.view())
