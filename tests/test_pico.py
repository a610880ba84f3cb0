"""The Pico lane: the deployed firmware on CircuitPython 10.2.1's real firmware for the
Raspberry Pi Pico, emulated by rp2040js (tools/lanes/pico.py; docs/pico-lane.md).

Each test plays a pin script of the harness (tools/simulated/simboard/scenario.py) on the real
firmware and on the harness (tools/simulated/harness.py, the Pico profile) and holds the two to
the same console lines, in the same order, each within ``TOLERANCE_MS``; and checks
what only the real board has: its PWM on GP15, its LED, the NeoPixel bits on GP22, its
flash under power cuts, its deep sleep, watchdog and safe mode.

Without the kit, node, rp2040js or mtools/dosfstools these tests skip and say what is
missing and how to get it; with ``QK_REQUIRE_PICO=1`` (CI) they fail instead.

Time: busy emulation runs at 0.25-0.4x real time, so the emulated seconds are budgeted
(docs/pico-lane.md has each scenario's). Each run is made once per session, shared by
the tests that read it, also across pytest-xdist workers (a file lock and a cache in
the session's temporary folder).
"""

import copy
import fcntl
import functools
import json
import os
import pathlib
import pickle
import subprocess
import sys

import pytest

import cpvm
import events as E
import pico
import picobench
import scenario
import synth
from model import layout

# The sounds as defined, not as the firmware under test has them: tools/gen/synth.py's
# segments (the WAV's own), as tone sweeps (tests/test_one_klaxon.py holds
# hardware/outputs.py's TONES to the same; here a wrong TONES shows on the board's PIN)
TONES = synth.tones()

REQUIRE = os.environ.get("QK_REQUIRE_PICO") == "1"
pico.NICE = 10  # all runs but the long pole (see ``shared``)
# Console lines of the two lanes agree within this (ms). Where they may differ:
# - the harness's loop pass is 1 ms and A/B are sampled 3 ticks apart (2 to 4 ms), two
#   samples agreeing: a button acts 2 to 8 ms after its edge on either (the board's pass
#   is ~0.2 ms, so its samples fall elsewhere in the millisecond; the Klaxon: 3 ticks);
# - the board's console is a UART at 115200 baud (87 us a character): a line is
#   stamped when its last character is out, up to ~4 ms for the longest, later when
#   lines queue behind each other;
# - the harness's device starts at once at 0; on the board the device's first lines
#   come when code.py's start-up is done (pico.OFFSET puts that at about -15 ms).
# Measured: at most 13 ms apart. 25 ms leaves room and is still well under the
# 100 ms and more between the presses of a script.
TOLERANCE_MS = 25
# A sound's first PWM duty > 0 on the board comes within this of the harness's sound
# start (the same press's pass; the harness's pass is 1 ms)
SOUND_MS = 10
NAMES = synth.NAMES


def _need():
    why = pico.missing()
    if why:
        if REQUIRE:
            pytest.fail(why + " (QK_REQUIRE_PICO=1: the Pico lane must run here)")
        pytest.skip(why)


# The runs of the real firmware the tests share: {name: the function that makes it}
# (``emulated``), and which tests read each (``reads``)
RUNS = {}


def emulated(name):
    """A function that makes the run ``name`` (a Run, or what a test reads of runs)."""
    def register(fn):
        RUNS[name] = fn
        return fn
    return register


def reads(*names):
    """A test that reads the runs ``names``: the session makes them ahead (``ahead``)."""
    def mark(test):
        test.pico_runs = names
        return test
    return mark


# Made ahead, longest first (emulated seconds of a busy CPU; the sleep run apart)
AHEAD = ("robot", "rest", "cuts", "scoreboard", "question", "watchdog", "stuck", "bad",
         "safemode", "first", "second")


def _folder(tmp_path_factory, config):
    """Where the session keeps the runs (a pickle each, and its lock): one folder for
    all the xdist workers."""
    if hasattr(config, "workerinput"):
        folder = tmp_path_factory.getbasetemp().parent / "pico-runs"
    else:
        folder = tmp_path_factory.getbasetemp() / "pico-runs"
    folder.mkdir(exist_ok=True)
    return folder


def _get(folder, name, wait=True):
    """The run ``name``, made by whoever takes its lock first. ``wait=False`` (ahead):
    made here only if nobody has made it nor is making it; None."""
    path = folder / (name + ".pickle")
    with open(folder / (name + ".lock"), "w") as lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))
        except BlockingIOError:  # (ahead: another worker is making it)
            return None
        if path.exists():
            if not wait:
                return None
            with open(path, "rb") as f:
                return pickle.load(f)
        value = RUNS[name]()
        with open(path, "wb") as f:
            pickle.dump(value, f)
        # what it cost, for the bench after the suite (tools/dev.py test: QK_FIGURES)
        cpvm.share("pico-run-" + name, pico.cost(value))
        return value


def ahead(request, tmp_path_factory):
    """The runs this session's tests read, made ahead of them in the background on every
    xdist worker from its first test, whatever tests it has (tests/conftest.py): each
    worker starts two processes (``python tests/test_pico.py --ahead``), one for the sleep
    run, the long pole, at full priority, one that makes the others, longest first, one
    at a time, each that nobody is making yet (a lock not taken). The emulator is
    CPU-bound and a test that wants a run waits for it: this keeps the cores busy with
    emulators while the workers run the host suite's other tests at a higher priority
    (pico.NICE), and a test finds its run made or being made. pytest-xdist hands each
    worker one half of the collection, the lanes' tests all in the first, so the Pico
    lane's tests run on one worker, one after the other. (Processes, not threads: the
    harness's Sim replaces time.sleep while its device starts, which another thread's
    sleep would meet.) Returns them (tests/conftest.py waits for them at the end)."""
    if pico.missing():
        return []  # (its tests skip or fail, saying why)
    folder = _folder(tmp_path_factory, request.config)
    wanted = [name for name in ("sleep",) + AHEAD if any(
        name in getattr(getattr(item, "function", None), "pico_runs", ())
        for item in request.session.items)]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    out = []
    for names in ([n for n in wanted if n == "sleep"], [n for n in wanted if n != "sleep"]):
        if names:
            out.append(subprocess.Popen(
                [sys.executable, os.path.abspath(__file__), "--ahead", str(folder)] + names,
                env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL))
    return out


def _ahead(folder, names):
    """(The process ``ahead`` starts.)"""
    for name in names:
        try:
            _get(folder, name, wait=False)
        except Exception:  # (the test that reads it makes it again, and says why)
            pass


@pytest.fixture(scope="session")
def shared(tmp_path_factory, request):
    """``shared(name)``: the run ``name`` (``RUNS[name]()``), made once per session, also
    across xdist workers, most of them ahead (``ahead``)."""
    _need()
    folder = _folder(tmp_path_factory, request.config)
    return lambda name: _get(folder, name)


def lines_from(rows, t0=None, t1=None):
    return [(t, s) for t, s in rows if (t0 is None or t >= t0) and (t1 is None or t < t1)]


def assert_same(pico_lines, sim_lines, tolerance=TOLERANCE_MS, start_ms=1):
    diffs = pico.compare(pico_lines, sim_lines, tolerance, start_ms)
    assert not diffs, "\n".join(diffs)


# ------------------------------------------------------------------ the scenarios
# A hurried question with 4 players and a 10-pixel strip: ask, a refused Klaxon, an
# answer, a pass, the Klaxon, the marks, counting back, the penalty (scenario.QUESTION)
Q_SETTINGS = pico.settings_text("QK_PIXELS = 10\n", players=4)
Q_STEPS = scenario.taps(scenario.QUESTION)
Q_MS = scenario.QUESTION_MS
# The rest of scenario.GAME from the saved game after it: undo, marks again, a move
# entered at the table, the end held, a new game of 5 players set up at the table, a
# question of it. Both lanes start from the harness's saved game after QUESTION (the
# flash model's bytes, which test_saved_game_is_the_harness_s_bytes holds to the
# board's), so this runs beside QUESTION rather than after it.
REST_FROM = 7600
REST_STEPS = [(t - REST_FROM, p, c) for t, p, c in scenario.taps(scenario.GAME)
              if t >= scenario.GAME_REST_MS]
REST_MS = scenario.GAME_MS - REST_FROM


@emulated("question")
def _question():
    d = pico.Drive(Q_SETTINGS)
    try:
        out = d.path + "-out.bin"
        r = pico.run(d, Q_STEPS, Q_MS, ws2812=True, log_flash=True, flash_out=out,
                     pins=(pico.SPEAKER, pico.SPEAKER_B, pico.LED))
        restart = pico.run(flash_in=out, ms=700, until="at ")
        r.nvm = pico.nvm_of(out)
        r.restart = restart
        os.remove(out)
        return r
    finally:
        d.close()


def _harness_question():
    sim = pico.harness(Q_SETTINGS, [], 0)
    sim.play(Q_STEPS, Q_MS)
    return sim


@emulated("rest")
def _rest():
    nvm = bytes(_harness_question().nvm.mem)
    with pico.Drive(Q_SETTINGS) as d:
        return pico.run(flash_in=d.flash(nvm), steps=REST_STEPS, ms=REST_MS, log_flash=True)


@reads("question")
def test_question_lines_are_the_harness_s(shared):
    """A question with a Klaxon, a refused Klaxon and the reveal with a penalty: the
    real firmware prints the harness's lines, in order, each within TOLERANCE_MS."""
    r = shared("question")
    sim = _harness_question()
    assert_same(r.lines(), sim.events)
    said = [s for _, s in r.lines()]
    assert "klaxon 3 1" in said and "refused nobody has answered yet" in said
    assert "penalty 3 3" in said and said[-1] == "at 0 3 0 -3"


@reads("question")
def test_saved_game_is_the_harness_s_bytes(shared):
    """After the question the board's nvm sector holds, byte for byte, what the
    harness's RP2040 flash model holds after the same script; every save was one
    page program (the record appended into erased bytes), no erase."""
    r = shared("question")
    sim = _harness_question()
    assert bytes(r.nvm) == bytes(sim.nvm.mem)
    # and what the board wrote is a valid record by the format's own definition (checked
    # here, not by the firmware's code): 0x51, seq, length, body, Fletcher-16 of the
    # bytes before it (mod 255 sums), 0x00; the newest holds the reveal's positions
    records = []
    i = 0
    while i + 7 <= len(r.nvm) and r.nvm[i] == 0x51:
        n = r.nvm[i + 3]
        a = b = 0
        for x in r.nvm[i:i + 4 + n]:
            a = (a + x) % 255
            b = (b + a) % 255
        assert r.nvm[i + 4 + n:i + 7 + n] == bytes((b, a, 0)), "record at %d: bad check" % i
        records.append(((r.nvm[i + 1] << 8) | r.nvm[i + 2], r.nvm[i + 4]))
        i += n + 7
    seqs = [q for q, _ in records]
    assert len(seqs) == 3 and seqs == list(range(seqs[0], seqs[0] + 3)), records
    assert all(v == layout.VERSION for _, v in records), records  # the body's version
    assert all(x == 0xFF for x in r.nvm[i:]), "the rest of the sector is erased"
    ops = [f for f in r.flash() if f[3] >= pico.NVM and f[3] < pico.NVM + 4096]
    assert ops and all(what == "program" for _, _, what, _, _ in ops), ops
    assert len(ops) == 3 and sim.nvm.erases == [0]  # 3 saves, one page program each
    assert len(r.flash()) == len(ops)  # nothing else written: not the drive either


@reads("question")
def test_saved_game_survives_a_reset(shared):
    """Restarted from the flash as the question left it, the board resumes the game:
    its lines are the harness's resumed from the same saved game."""
    r = shared("question")
    sim = _harness_question()
    again = pico.harness(Q_SETTINGS, [], 0, nvm=copy.deepcopy(sim.nvm))
    assert [s for _, s in r.restart.lines()] == [s for _, s in again.events]
    assert r.restart.lines()[-1][1] == "at 0 3 0 -3"


check_sound = pico.check_sound


@reads("question")
def test_piezo_plays_klaxon_buzz_and_blip_as_defined(shared):
    """The piezo on GP15 and GP14 (every edge of the two): each sound the harness starts,
    the board starts within SOUND_MS, and its pitch and driven share over time are the
    TONES sweep at QK_VOLUME 8 (25 ticks of 32 each half), in its voice: the klaxon and
    the buzz RASP, the chimes SQUARE; the two pins in antiphase all along."""
    r = shared("question")
    sim = _harness_question()
    heard = sim.sounds()
    assert {"klaxon", "denied", "blip", "done"} <= {n for _, n in heard} <= set(NAMES), heard
    pwm = r.sound()
    for k, (t, name) in enumerate(heard):
        t1 = heard[k + 1][0] - SOUND_MS if k + 1 < len(heard) else Q_MS  # (the next may be early)
        start = check_sound(pwm, name, t - SOUND_MS, t1, pico.on_percent(8))
        assert abs(start - t) <= SOUND_MS, (name, start, t)
    # (a period's pulse pair may see the pitch step between the two: its clock changed)
    anti = [p[4] for p in r.piezo() if p[1] and p[3] != "?"]
    assert len(anti) > 1000 and sum(anti) >= 0.98 * len(anti), (sum(anti), len(anti))
    assert not r.pwm(), "a PWM on the piezo's pins: %s" % r.pwm()[:3]


@reads("question")
def test_the_klaxon_is_rasp_push_pull_and_the_chimes_squares(shared):
    """Every edge of GP15 and GP14 in the question's klaxon: the pins toggle in
    antiphase (GP14's pulse half a carrier cycle after each of GP15's, as long); each
    period of the pitch f0 is 8 short pulses of the carrier and a slow one 3 times as
    long, the carrier 11 x f0 (measured apart: the carrier from the short pulses, f0
    from one slow pulse to the next); f0 rises from 190 to 430 Hz in each of two blasts
    (TONES: 190 -> 430 Hz in 380 ms, 430 -> 420 Hz, a 60 ms rest, again), with a rest
    between them; the chimes (blip, done) are squares, one pulse a cycle on each pin."""
    r = shared("question")
    k = [t for t, s in r.lines() if s.startswith("klaxon ")][0]
    pulses = {}
    for pin in (pico.SPEAKER, pico.SPEAKER_B):
        rise, out = None, []
        for t, v in r.gpio(pin):
            if k - 5 <= t < k + 1400:
                if v:
                    rise = t
                elif rise is not None:
                    out.append((rise, t - rise))
                    rise = None
        pulses[pin] = out
    a, b = pulses[pico.SPEAKER], pulses[pico.SPEAKER_B]
    assert len(a) > 300 and abs(len(a) - len(b)) <= 2, (len(a), len(b))  # (each blast's end)
    import bisect

    starts = [r for r, _ in b]
    alike = pairs = 0
    for (ra, wa), nxt in zip(a, a[1:]):  # a GP14 pulse between each two of GP15's
        if nxt[0] - ra > 5:
            continue  # (the rest: the blast may end before GP14's half)
        i = bisect.bisect_left(starts, ra)
        assert i < len(b), ra
        rb, wb = b[i]
        assert ra + wa <= rb and rb + wb <= nxt[0], (ra, wa, rb, wb, nxt)
        pairs += 1
        # as long (but where the pitch steps between the two: its clock changed)
        alike += abs(wb - wa) <= 0.05 * wa
    assert pairs > 300 and alike >= 0.97 * pairs, (alike, pairs)
    longs = [i for i in range(1, len(a) - 1) if a[i][1] > 2 * min(a[i - 1][1], a[i + 1][1])]
    ratios, f0s = [], []
    for i, j in zip(longs, longs[1:]):
        if j - i != 9 or any(a[m + 1][0] - a[m][0] > 5 for m in range(i, j)):
            continue  # (a rest between: it may fall 9 pulses from a slow one too)
        period = a[j][0] - a[i][0]
        carrier = (a[j - 1][0] - a[i + 1][0]) / 7  # the 8 short pulses: 7 cycles
        ratios.append(period / carrier)
        f0s.append((a[i][0], 1000 / period))
        assert abs(a[i][1] / a[i - 1][1] - 3) < 0.2, (a[i - 1], a[i])  # the slow pulse
    assert len(f0s) > 150 and all(abs(x - 11) < 0.3 for x in ratios), ratios[:10]
    gaps = [(x[0] + x[1], y[0]) for x, y in zip(a, a[1:]) if y[0] - x[0] - x[1] > 5]
    assert len(gaps) == 1 and 50 <= gaps[0][1] - gaps[0][0] <= 75, gaps  # the rest
    for blast in ([f for t, f in f0s if t < gaps[0][0]], [f for t, f in f0s if t > gaps[0][1]]):
        assert min(blast[:3]) < 200 and max(blast) > 420 and max(blast) < 440, blast[:5]
    squares = [p for p in r.piezo() if p[1] and p[3] == "square"]
    assert len(squares) > 100 and all(p[4] for p in squares)
    assert {round(p[1], -1) for p in squares} >= {1800, 880, 1320}, {round(p[1], -1) for p in squares}


@reads("question")
def test_led_flashes_with_the_klaxon_and_the_chimes_only(shared):
    """The LED (GP25) flashes with the Klaxon (on and off each 128 ms step, 400 ms in
    referee mode), starting within a pass of the sound, and with the chime of the reveal
    (a position changed), and stays dark otherwise."""
    r = shared("question")
    led = [(t, v) for t, v in r.gpio(pico.LED) if t > 0]
    k = [t for t, s in r.lines() if s.startswith("klaxon")][0]
    done = [t for t, s in r.lines() if s == "reveal"][0]
    ons = [t for t, v in led if v == 1]
    assert ons and all(k - 5 <= t <= k + 400 or done - 5 <= t <= done + 400 for t in ons), (
        k, done, led)
    # (the flash lights on the even 128 ms steps: the chime's may start a step later)
    assert ons[0] - k < 3 and 0 <= min(t - done for t in ons if t > done - 5) < 131
    offs = [t for t, v in led if v == 0 and t > ons[0]]
    assert offs and offs[-1] <= done + 400 + 130 and 4 <= len(ons) <= 8, led


@reads("question")
def test_pixels_show_each_seat_s_colour(shared):
    """The strip on GP22 (QK_PIXELS = 10), decoded from the pin: before each press of the
    question, each pixel shows the colour the harness's device shows for it (the ring
    legend: the QM white, the answering seat yellow, marks green/orange ...), lit or dark
    as its pattern blinks, in the device's own colours at QK_BRIGHTNESS 100."""
    r = shared("question")
    frames = r.frames()
    assert len(frames) > 20 and all(len(px) == 10 for _, px in frames)
    sim = pico.harness(Q_SETTINGS, [], 0)
    for t, p, c in Q_STEPS:
        sim.level(c, int(t * 1000), p)
    # The ring legend's facts, stated here rather than taken from the firmware: the
    # Klaxon "klaxon 3 1" at 2.4 s, then until the first mark at 4.2 s the reveal shows the
    # QM (seat 0) white, seat 1's answer to be marked yellow blinking fast, seat 2 (passed)
    # grey and the challenger, seat 3, vermillion blinking fast; seat s on pixel s * 10 // 4
    # (a Pico strip, numbered clockwise: tools/simulated/events.py seat_pixel)
    reveal = [px for ft, px in frames if 3100 <= ft < 4190]
    assert reveal, "no frames in the reveal"
    want = {0: {E.PALETTE[E.COLOUR_NAMES.index("white")]},
            1: {E.PALETTE[E.COLOUR_NAMES.index("yellow")], 0},
            2: {E.PALETTE[E.COLOUR_NAMES.index("grey")]},
            3: {E.PALETTE[E.COLOUR_NAMES.index("vermillion")], 0}}
    for seat, colours in want.items():
        got = {px[E.seat_pixel(seat, 4, 10, True)] for px in reveal}
        assert got == colours, ("seat", seat, [hex(x) for x in got], [hex(x) for x in colours])
    checked = 0
    klaxons = [t for t, p, c in Q_STEPS if p and c == "klaxon"]
    for t in sorted({t for t, p, _ in Q_STEPS if p}):
        if any(0 <= t - k < 300 + 420 for k in klaxons):
            continue  # the Klaxon's flash (400 ms) over the scene
        sim.run_until_ms(t - 20)
        scene = sim.scene()
        # what the strip shows then: the frames of the last 280 ms and the one before
        # (a strip keeps its last frame; the device sends one only on a change or blink)
        before = [px for ft, px in frames if ft < t - 300]
        seen = before[-1:] + [px for ft, px in frames if t - 300 <= ft < t - 20]
        if not seen:
            continue
        for i, (colour, pattern) in enumerate(scene):
            want = E.PALETTE[E.COLOUR_NAMES.index(colour)]
            got = {px[i] for px in seen}
            allowed = {want} if pattern == "steady" else {want, 0}
            assert got <= allowed, (t, i, colour, pattern, [hex(x) for x in got])
            if pattern == "steady":
                assert got == {want}
        checked += 1
    assert checked >= 8
    first = frames[-1][1]
    assert E.PALETTE[E.COLOUR_NAMES.index("white")] in first  # the QM


@reads("rest")
def test_undo_a_move_the_end_and_a_new_game_at_the_table(shared):
    """The rest of a whole game from the saved one: undo, marks again, a move entered at
    the table, the end held, a new game of 5 set up with the buttons, and its first
    question with a Klaxon: the harness's lines, each within TOLERANCE_MS."""
    sim0 = _harness_question()
    r = shared("rest")
    sim = pico.harness(Q_SETTINGS, [], 0, nvm=copy.deepcopy(sim0.nvm))
    sim.play(REST_STEPS, REST_MS)
    assert_same(r.lines(), sim.events)
    said = [s for _, s in r.lines()]
    for line in ("undo", "move", "game over", "players 5", "new", "at 0 0 0 0 0"):
        assert line in said, line


# ------------------------------------------------------------- faults and settings
STUCK_SETTINGS = pico.settings_text("QK_STUCK_S = 2\nQK_VOLUME = 3\n", players=4)
STUCK_STEPS = [(200, True, "klaxon"), (2800, False, "klaxon")] + scenario.taps(
    "2500 b\n3700 a\n4300 klaxon 150")  # (B while the Klaxon is stuck: the card says it works)
STUCK_MS = 5300


@emulated("stuck")
def _stuck():
    with pico.Drive(STUCK_SETTINGS) as d:
        return pico.run(d, STUCK_STEPS, STUCK_MS)


@reads("stuck")
def test_stuck_klaxon_and_volume(shared):
    """The Klaxon held 2.6 s with QK_STUCK_S = 2: the fault said and cleared as the
    harness says, B asking the question meanwhile (the card: A and B still work); then a
    question's Klaxon at QK_VOLUME 3: 9 ticks of 32 each half driven."""
    r = shared("stuck")
    sim = pico.harness(STUCK_SETTINGS, STUCK_STEPS, STUCK_MS)
    assert_same(r.lines(), sim.events)
    said = [s for _, s in r.lines()]
    assert any(s.startswith("fault: the Klaxon is stuck") for s in said), said
    assert any(s.startswith("klaxon ") for s in said), said
    # the card (issue 35): A and B work while the Klaxon is stuck: B asked before its release
    ask = [i for i, s in enumerate(said) if s.startswith("ask")]
    cleared = [i for i, s in enumerate(said) if s.startswith("fault cleared")]
    assert ask and cleared and ask[0] < cleared[0], said
    # (the stuck Klaxon's own try sounds first: the question's Klaxon is the last)
    k = [t for t, s in r.lines() if s.startswith("klaxon ")][-1]
    check_sound(r.sound(), "klaxon", k - 5, STUCK_MS, pico.on_percent(3))


BAD = b"QK_PLAYERS = 42\nQK_VOLUME = loud\nQk_MUTE = 1\nQK_MUTE = 1\nQK_PIXELS = 10\n" \
      b"QK_BRIGHTNESS = 100\n"
BAD_STEPS = scenario.taps("300 b\n900 a\n1500 klaxon 150")
BAD_MS = 2600


@emulated("bad")
def _bad():
    with pico.Drive(BAD) as d:
        return pico.run(d, BAD_STEPS, BAD_MS, ws2812=True,
                        pins=(pico.SPEAKER, pico.SPEAKER_B, pico.LED))


@reads("bad")
def test_bad_settings_and_mute(shared):
    """A settings.toml with bad values and a wrongly cased key: the harness's reports,
    the defaults used, the ring flashing purple; QK_MUTE = 1: no sound at all (the piezo's
    two pins set low at start-up and never toggled), the LED still flashes with the
    Klaxon."""
    r = shared("bad")
    sim = pico.harness(BAD.decode(), BAD_STEPS, BAD_MS)
    assert_same(r.lines(), sim.events)
    said = [s for _, s in r.lines()]
    assert any("QK_PLAYERS" in s for s in said) and any("QK_VOLUME" in s for s in said), said
    assert any(s.startswith("klaxon ") for s in said)
    assert not r.sound() and not r.pwm(), "muted, yet the piezo sounded"
    for pin in (pico.SPEAKER, pico.SPEAKER_B):
        assert [v for _, v in r.gpio(pin)] == [0], (pin, r.gpio(pin))
    assert any(v == 1 for t, v in r.gpio(pico.LED) if t > 1400)
    purple = E.PALETTE[E.COLOUR_NAMES.index("purple")]
    assert any(purple in px for t, px in r.frames() if t < 1000)


SECOND = pico.settings_text('QK_PIN_B = "GP14"\n', players=3)  # (a button on GP14)
SECOND_STEPS = scenario.taps("300 klaxon 150")
SECOND_MS = 1000


@emulated("second")
def _second():
    with pico.Drive(SECOND) as d:
        return pico.run(d, SECOND_STEPS, SECOND_MS)


@reads("second")
def test_a_button_on_the_piezos_second_pin_leaves_it_one_pin_said(shared):
    """Button B moved onto GP14, the piezo's second pin: CircuitPython's rp2pio refuses the
    pin ("in use"); the board says so as the harness does (the same line), starts, and its
    klaxon plays on GP15 alone (the RASP, as with QK_AUDIO = "piezo-gnd"), GP14 an input."""
    r = shared("second")
    sim = pico.harness(SECOND, SECOND_STEPS, SECOND_MS)
    assert_same(r.lines(), sim.events)
    said = [s for _, s in r.lines()]
    assert said[0] == ('QK_AUDIO = "piezo": its second pin: GP14 in use; the piezo on one '
                       'pin, its other leg to GND (QK_AUDIO = "piezo-gnd")'), said
    assert any(s.startswith("klaxon ") for s in said), said
    assert not [v for t, v in r.gpio(pico.SPEAKER_B) if t > 0]
    rasp = [p for p in r.piezo() if p[1] and p[3] == "rasp"]
    assert len(rasp) > 50 and not any(p[4] for p in rasp)  # (one pin: no partner pulses)
    assert abs(rasp[0][2] - pico.on_percent(8)) < 0.01 and 185 < rasp[0][1] < 195, rasp[0]


@emulated("first")
def _first():
    with pico.Drive(Q_SETTINGS) as d:
        return pico.run(d, [], 400, label="CIRCUITPY", log_flash=True, offset=2500)


@reads("first")
def test_first_start_names_the_drive(shared):
    """A board's very first start after the deploy (the drive still CIRCUITPY): boot.py
    renames it QIKLAXON (flash erases and programs on the drive, none in the nvm), and
    code.py starts as on later starts (1.31 s after the reset), with the same lines."""
    r = shared("first")
    ops = r.flash()
    assert ops and all(addr >= pico.FS_OFFSET for _, _, _, addr, _ in ops)
    assert [s for _, s in r.lines()] == ["new", "at 0 0 0 0"]
    assert 1250 < r.code_starts()[0] + r.offset < 1400


# ------------------------------------------------------- sleep, watchdog, safe mode
SLEEP_SETTINGS = pico.settings_text("QK_SLEEP_MIN = 1\n", players=4)
WAKE_MS = 64000
SLEEP_STEPS = scenario.taps("100 b\n700 a") + [(WAKE_MS, True, "klaxon"),
                                                 (WAKE_MS + 200, False, "klaxon")] + \
    scenario.taps("%d klaxon 150" % (WAKE_MS + 3000))
SLEEP_MS = WAKE_MS + 4000


@emulated("sleep")
def _sleep():
    with pico.Drive(SLEEP_SETTINGS) as d:
        return pico.run(d, SLEEP_STEPS, SLEEP_MS, no_usb=True, pins=(pico.SPEAKER, 16), nice=0)


@reads("sleep")
def test_deep_sleep_after_idle_and_the_klaxon_wakes_it(shared):
    """No USB host, QK_SLEEP_MIN = 1: a minute after the answer the board says so and
    goes dormant (true deep sleep); the Klaxon wakes it at once, CircuitPython starts
    again (~1.3 s), and the game is where it was: the same positions, and the Klaxon
    challenges the same seat as it would have before the sleep."""
    r = shared("sleep")
    sim = pico.harness(SLEEP_SETTINGS, SLEEP_STEPS, SLEEP_MS)
    before = lines_from(r.lines(), None, WAKE_MS)
    sim_before = lines_from(sim.events, None, WAKE_MS)
    assert [s for _, s in before] == [s for _, s in sim_before]
    t_sleep = [t for t, s in before if s.startswith("sleeping")][0]
    assert abs(t_sleep - [t for t, s in sim_before if s.startswith("sleeping")][0]) < 300
    dormant = [t for t, s in r.sleeps() if "dormant" in s]
    woke = [t for t, s in r.sleeps() if "woken by GP16" in s]
    assert dormant and t_sleep < dormant[0] < t_sleep + 100, (t_sleep, r.sleeps())
    assert woke and abs(woke[0] - WAKE_MS) < 1, r.sleeps()
    starts = [t for t in r.code_starts() if t > WAKE_MS]
    assert starts and 1000 < starts[0] - WAKE_MS < 1800, starts
    after = [s for _, s in lines_from(r.lines(), WAKE_MS)]
    at = [s for _, s in before if s.startswith("at ")][-1]
    assert after[:2] == ["resumed", at], after
    sim_after = [s for _, s in lines_from(sim.events, WAKE_MS)]
    assert [s for s in after if s.startswith("klaxon ")][:1] == \
        [s for s in sim_after if s.startswith("klaxon ")][:1], (after, sim_after)


@reads("sleep")
def test_the_waking_press_counts_though_released_before_code_py(shared):
    """The Klaxon that woke the board counts, though its 200 ms press ended more than a
    second before code.py started: a PinAlarm wake is the press. The lines after the
    wake are the harness's (whose wake counts the press), and the klaxon sounds before
    the next press."""
    r = shared("sleep")
    sim = pico.harness(SLEEP_SETTINGS, SLEEP_STEPS, SLEEP_MS)
    after = [s for _, s in lines_from(r.lines(), WAKE_MS)]
    sim_after = [s for _, s in lines_from(sim.events, WAKE_MS)]
    assert after == sim_after
    woke = [(t, s) for t, s in lines_from(r.lines(), WAKE_MS) if s.startswith("klaxon")]
    assert woke, "no klaxon line after the wake: the waking press was lost %s" % after
    assert any(WAKE_MS < p[0] < WAKE_MS + 3000 and p[2] > 0 for p in r.sound()), \
        "the piezo stayed silent for 3 s after the wake: %s" % r.sound()[-5:]


CODE = open(os.path.join(pico.ROOT, "code.py")).read()
LOOP = "hardware.device.Device(p).run()"


def _variant(tail):
    """code.py as deployed, its last line (the loop) replaced: a test's own drive."""
    assert CODE.rstrip().endswith(LOOP)
    return CODE.rstrip()[:-len(LOOP)] + tail


@emulated("watchdog")
def _watchdog():
    code = _variant("""d = hardware.device.Device(p)
import supervisor
t0 = supervisor.ticks_ms()
while (supervisor.ticks_ms() - t0) & 0x1FFFFFFF < 3000:
    d.poll()
print("probe: the loop stops")
import time
time.sleep(60)
""")
    with pico.Drive(Q_SETTINGS, extra={"code.py": code}) as d:
        return pico.run(d, scenario.taps("100 b\n700 a"), 13500, max_resets=2, pins=())


@reads("watchdog")
def test_watchdog_resets_a_loop_that_stops(shared):
    """The loop runs 3 s, then blocks (a stand-in for a call that never returns): 8 s
    later the watchdog resets the chip, and the board starts again and resumes."""
    r = shared("watchdog")
    stop = [t for t, s in r.lines() if s == "probe: the loop stops"][0]
    resets = r.resets()
    assert resets and resets[0][1] == "watchdog-timer", resets
    assert 7900 < resets[0][0] - stop < 8400, (stop, resets)
    after = [s for t, s in r.lines() if t > resets[0][0]]
    assert after[:2] == ["resumed", "at 0 0 0 0"], after


@emulated("safemode")
def _safemode():
    code = _variant("""import microcontroller
microcontroller.on_next_reset(microcontroller.RunMode.SAFE_MODE)
microcontroller.reset()
""")
    with pico.Drive(Q_SETTINGS, extra={"code.py": code}) as d:
        return pico.run(d, [], 1500, max_resets=2, pins=())


@reads("safemode")
def test_safemode_py_runs_in_safe_mode(shared):
    """safemode.py on the real firmware: a reset into safe mode (asked for: the one the
    emulator can make) runs it, and it says why and stays in safe mode."""
    r = shared("safemode")
    said = [s for _, s in r.console()]
    assert any(s.startswith("QI Klaxon safe mode:") for s in said), said
    assert "staying in safe mode: see the reason above" in said, said


def test_safemode_after_a_hard_fault():
    _need()
    pytest.skip("the emulator makes no hard fault from Python: memorymap refuses the "
                "core's own registers (SCB) and writes outside the peripherals, and "
                "overwriting the SRAM under the VM hung the emulated CPU without a fault "
                "(rp2040js raises no bus fault); safemode.py's own run is tested above")


# ------------------------------------------------------- power cuts on the real flash
# A game of 12 questions at 6 players, a press every 1.4 s: a save after every change (5 a
# question, the worst case for the flash), 60 saves, the first compaction at save 52.
# CircuitPython writes nvm on the RP2040 in one of three ways (pico.nvm_ops): a record into
# one erased page (one program), a record across two pages (two programs), a compaction
# (the sector erased, then programmed). The board is cut after each flash operation of one
# save of each kind, each started from the harness's saved game just before that save.
CUT_SETTINGS = pico.settings_text("QK_PIXELS = 10\n", players=6)
CUT_QUESTIONS = 12
KINDS = ("program", "pages", "compaction")
_GAME = {}


def cut_game():
    """(steps, the harness's saves) of the power-cut game (made once: ~3 s)."""
    if not _GAME:
        steps, ms = pico.questions_steps(CUT_QUESTIONS)
        _GAME["steps"] = steps
        _GAME["saves"] = pico.saves(CUT_SETTINGS, steps, ms)[0]
    return _GAME["steps"], _GAME["saves"]


def pick_saves():
    """{kind: (k, steps, ms)}: the game's first save of each kind that, replayed from the
    saved game before it (pico.replay), is made again byte for byte by the harness."""
    steps, sv = cut_game()
    picked = {}
    for k in range(1, len(sv)):
        if sv[k].kind in picked:
            continue
        st, ms = pico.replay(steps, sv, k)
        again = pico.saves(CUT_SETTINGS, st, ms, nvm=sv[k].before)[0]
        if len(again) == 1 and again[0].after == sv[k].after:
            picked[sv[k].kind] = (k, st, ms)
    assert set(picked) == set(KINDS), picked
    return picked


@functools.lru_cache(maxsize=None)
def restored(nvm):
    """The game the harness's device restores from nvm bytes: (its bytes, its scene), or
    None when it starts a new game (nothing saved)."""
    from flashsim import FlashSim
    import harness as H

    flash = FlashSim("rp2040")
    flash.mem[:] = nvm
    sim = H.Sim(settings=CUT_SETTINGS, board_name="pico", nvm=flash)
    sim.run_until_ms(10)
    if not any(s == "resumed" for _, s in sim.events):
        return None
    return bytes(sim.game.to_bytes()), sim.scene()


def classify(save, nvm):
    """"before" / "after" the save, "lost" (a new game), or "corrupt"."""
    got = restored(nvm)
    if got is None:
        return "lost"
    if got == restored(save.before):
        return "before"
    if got == restored(save.after):
        return "after"
    return "corrupt"


@emulated("cuts")
def _cuts():
    """For each kind's save: a run cut after each of its flash operations but the last,
    and one not cut (its last operation done and nothing after), each followed by a
    restart from the flash it left. {kind: [(cut n, run, nvm, restart)]}."""
    picked = pick_saves()
    sv = cut_game()[1]
    d = pico.Drive(CUT_SETTINGS)
    try:
        jobs, keys = [], []
        for kind in KINDS:
            k, st, ms = picked[kind]
            flash = d.flash(sv[k].before)
            n_ops = len(sv[k].ops)
            for n in list(range(1, n_ops)) + [None]:
                out = flash + "-cut%s.bin" % n
                jobs.append(dict(flash_in=flash, steps=st, ms=ms, cut=n, flash_out=out,
                                 log_flash=True, pins=()))
                keys.append((kind, n, out))
        runs = pico.run_many(jobs)
        restarts = pico.run_many([dict(flash_in=out, ms=300, ws2812=True, pins=(pico.PIXELS,))
                                  for _, _, out in keys])
        result = {}
        for (kind, n, out), r, again in zip(keys, runs, restarts):
            result.setdefault(kind, []).append((n, r, pico.nvm_of(out), again))
            os.remove(out)
        return picked, result
    finally:
        d.close()


@reads("cuts")
def test_power_cut_after_each_flash_operation_resumes_before_or_after(shared):
    """The real firmware cut after each flash operation of a save of each kind, restarted
    from the flash as the cut left it: its operations are the ones pico.nvm_ops says (and
    the harness's flash model, byte for byte, when not cut); each restart resumes the game
    as it was before the save or after it, saying and showing what the harness's device
    says and shows on the same bytes, except the one cut between a compaction's erase and
    its program, which loses the game (a new game, as on an empty store)."""
    picked, result = shared("cuts")
    sv = cut_game()[1]
    seen = {}
    for kind in KINDS:
        k = picked[kind][0]
        save = sv[k]
        want_ops = [(what, pico.NVM + at, count) for what, at, count in save.ops]
        for n, r, nvm, again in result[kind]:
            ops = [(what, addr, count) for _, _, what, addr, count in r.flash()]
            assert ops == want_ops[:n or len(want_ops)], (kind, n, ops, want_ops)
            assert bool(r.kind("cut")) == (n is not None), (kind, n)
            if n is None:
                assert nvm == save.after, kind  # the model's bytes
            state = classify(save, nvm)
            seen[(kind, n or len(want_ops))] = state
            # the board reads the cut flash as the harness's device does
            said = [s for _, s in again.lines()]
            want = pico.resumed_lines(CUT_SETTINGS, nvm)
            assert said[:len(want)] == want, (kind, n, said, want)
            got = restored(nvm)
            if got is not None:
                frames = again.frames()
                assert frames, (kind, n)
                for i, (colour, pattern) in enumerate(got[1]):
                    want_px = E.PALETTE[E.COLOUR_NAMES.index(colour)]
                    px = {f[1][i] for f in frames}
                    assert px <= ({want_px} if pattern == "steady" else {want_px, 0}), (
                        kind, n, i, colour, pattern, px)
    assert "corrupt" not in seen.values(), seen
    assert seen == {("program", 1): "after", ("pages", 1): "before", ("pages", 2): "after",
                    ("compaction", 1): "lost", ("compaction", 2): "after"}, seen


def model_cut(save, n):
    """The nvm after the real firmware's first ``n`` flash operations of ``save``."""
    m = bytearray(save.before)
    if n and save.ops[0][0] == "erase":
        m[:] = b"\xff" * len(m)
        if n > 1:
            m[:] = save.after
        return bytes(m)
    for what, at, count in save.ops[:n]:
        m[at:at + count] = bytes(a & b for a, b in zip(m[at:at + count],
                                                       save.after[at:at + count]))
    return bytes(m)


def test_every_cut_of_a_whole_game_on_the_real_firmware_s_writes():
    """Every save of the 12-question game, cut after each flash operation as the real
    firmware does them (pico.nvm_ops; the sweep above holds the board to each kind): all
    resume before or after the save, except each compaction's cut between its erase and
    its program, which loses the game; compactions are the only saves that erase."""
    sv = cut_game()[1]
    counts = {}
    for k, save in enumerate(sv):
        for n in range(1, len(save.ops) + 1):
            state = classify(save, model_cut(save, n))
            counts[state] = counts.get(state, 0) + 1
            if state == "lost":
                assert save.kind == "compaction" and n == 1, (k, save)
    compactions = [k for k, s in enumerate(sv) if s.kind == "compaction"]
    assert counts.get("lost", 0) == len(compactions) == 1 and "corrupt" not in counts, counts
    assert all(("erase" in [o[0] for o in s.ops]) == (s.kind == "compaction") for s in sv)
    print("\n%d saves: %d cuts, %s; compactions at save %s" % (
        len(sv), sum(counts.values()), counts, compactions))


def test_compactions_are_one_in_about_45_saves():
    """The harness's device in a long game (60 questions, a save after every change: 300
    saves): after the first (the log starts empty), a compaction every 44 to 47 saves,
    as its records grow to 86-101 bytes with the undo log; at one save a question, one
    every 44 questions."""
    steps, ms = pico.questions_steps(60)
    sv = pico.saves(CUT_SETTINGS, steps, ms)[0]
    at = [k for k, s in enumerate(sv) if s.kind == "compaction"]
    gaps = [b - a for a, b in zip(at, at[1:])]
    print("\n%d saves, compactions at %s: one in %s saves" % (len(sv), at, gaps))
    assert len(sv) == 300 and 45 <= at[0] <= 55 and gaps and all(44 <= g <= 47 for g in gaps)


# ------------------------------------------------------- the card-literal table's questions
# The robot table of tests/test_card_robot.py (tools/quality/robot.py), its questions played again
# on the real firmware from where each began (the saved game), with the board's own dice:
# ROBOT_QUESTIONS in the suite (QK_PICO_ROBOT to change it; the full bench plays 20).
ROBOT_QUESTIONS = int(os.environ.get("QK_PICO_ROBOT", picobench.ROBOT_CI))


@emulated("robot")
def _robot_runs():
    import robot

    return robot.pico_runs(7, ROBOT_QUESTIONS)


@reads("robot")
def test_a_card_literal_tables_questions_play_the_same_on_the_real_firmware(shared):
    """Each question the robot table played on the simulated Pico, replayed press for press
    on CircuitPython's real firmware from the saved game it began with: the board's
    console, sounds and strip are the simulated board's given the same presses and the
    board's own dice, and every question ends where the rules put every piece."""
    import robot

    settings, questions, runs = shared("robot")
    assert len(questions) == ROBOT_QUESTIONS >= 3  # (a Klaxon with a penalty, all passed,
    # all answered wrong with two penalties: seed 7's first three; the full bench plays 20)
    for k, (q, run) in enumerate(zip(questions, runs)):
        problems = robot.pico_check(settings, q, run)
        assert not problems, "question %d (%r):\n%s" % (k, q["plan"], "\n".join(problems[:12]))


# ------------------------------------------------------- the whole state, for a scoreboard
emulated("scoreboard")(pico.scoreboard_run)  # (kept for the browser lane too: pico.run_cached)


@reads("scoreboard")
def test_the_board_answers_a_host_with_its_whole_state_and_a_scoreboard_follows_it(shared):
    """The scoreboard's game (pico.scoreboard_run: a roll, scenario.QUESTION, the game
    ended at the table, two bytes typed on the console) on the real firmware: it prints the harness's lines, each byte answered
    by a ``state`` line in a later chores pass (the harness's, given the dice the board
    rolled); its console's own bytes (status-bar escapes and all), fed to a scoreboard
    (tools/maker/scoreboard.py) as they come, give after every press the harness's game. The
    browser lane (tests/test_web.py) feeds the same bytes to the page."""
    import scoreboard

    r = shared("scoreboard")
    sim, watch = pico.scoreboard_harness(r)
    said = r.lines()
    assert [s for _, s in said] == [s for _, s in sim.events]
    for (tp, s), (ts, _) in zip(said, sim.events):  # (the harness's chores pass: 256 ms;
        assert abs(tp - ts) <= (260 if s.startswith("state") or ts < 1  # start-up as in
                                else TOLERANCE_MS), (s, tp, ts)  # assert_same)
    states = [(t, s) for t, s in said if s.startswith("state ")]
    assert len(states) == 2 and all(
        0 < t - typed < 100 for (t, _), (typed, _) in zip(states, pico.SB_TYPED)), states
    raw = r.console_bytes()
    assert any(b"\x1b]0;" in b for _, b in raw), "no status bar: not the console's own bytes"
    board = scoreboard.Scoreboard()
    after = []
    for t, data in raw:
        board.feed(data.decode("utf-8", "replace").rstrip("\n"), t)
        after.append((scoreboard.clean(data.decode("utf-8", "replace")), board.table(),
                      board.need))
    device = [(text, tab, need) for text, tab, need in after
              if text and not text.startswith(pico.SUPERVISOR) and not pico.is_version(text)]
    assert [text for text, _, _ in device] == [s for _, s in sim.events]
    checked = 0
    for n, want in watch.marks:
        text, tab, need = device[n - 1]
        if n > [s for _, s in sim.events].index(states[0][1]):
            assert not need and tab == want, (n, text, tab, want)
            checked += 1
    assert checked >= 12  # (the presses after the first state line: 12)


if __name__ == "__main__" and sys.argv[1:2] == ["--ahead"]:
    _ahead(pathlib.Path(sys.argv[2]), sys.argv[3:])
