"""The Pico lane: the deployed firmware on CircuitPython 10.2.1's real firmware for the
Raspberry Pi Pico, emulated by rp2040js (tools/pico.py; docs/pico-lane.md).

Each test plays a pin script of the harness (tools/simboard/scenario.py) on the real
firmware and on the harness (tools/harness.py, the Pico profile) and holds the two to
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
import json
import os
import pickle

import pytest

import events as E
import pico
import scenario
from hardware.outputs import TONES

REQUIRE = os.environ.get("QK_REQUIRE_PICO") == "1"
# Console lines of the two lanes agree within this (ms). Where they may differ:
# - the harness's loop pass is 1 ms and A/B are sampled every 8th pass, at least 5 ms
#   apart, two samples agreeing: a button acts 5 to 16 ms after its edge there, 5 to
#   ~10 ms on the board (its pass is ~0.1 ms; the Klaxon: within a pass on both);
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
NAMES = ("klaxon", "denied", "blip")


def _need():
    why = pico.missing()
    if why:
        if REQUIRE:
            pytest.fail(why + " (QK_REQUIRE_PICO=1: the Pico lane must run here)")
        pytest.skip(why)


@pytest.fixture(scope="session")
def shared(tmp_path_factory, request):
    """``shared(name, fn)``: ``fn()`` once per session, also across xdist workers."""
    if hasattr(request.config, "workerinput"):
        folder = tmp_path_factory.getbasetemp().parent / "pico-runs"
    else:
        folder = tmp_path_factory.mktemp("pico-runs")
    folder.mkdir(exist_ok=True)

    def get(name, fn):
        path = folder / (name + ".pickle")
        with open(folder / (name + ".lock"), "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            if path.exists():
                with open(path, "rb") as f:
                    return pickle.load(f)
            value = fn()
            with open(path, "wb") as f:
                pickle.dump(value, f)
            return value

    _need()
    return get


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
Q_MS = 9000
# The rest of scenario.GAME from the saved game after it: undo, marks again, a move
# entered at the table, the end held, a new game of 5 players set up at the table, a
# question of it. Both lanes start from the harness's saved game after QUESTION (the
# flash model's bytes, which test_saved_game_is_the_harness_s_bytes holds to the
# board's), so this runs beside QUESTION rather than after it.
REST_FROM = 7600
REST_STEPS = [(t - REST_FROM, p, c) for t, p, c in scenario.taps(scenario.GAME) if t >= 8000]
REST_MS = 25800 - REST_FROM + 1500


def _question():
    d = pico.Drive(Q_SETTINGS)
    try:
        out = d.path + "-out.bin"
        r = pico.run(d, Q_STEPS, Q_MS, ws2812=True, log_flash=True, flash_out=out,
                     pins=(pico.SPEAKER, pico.LED, pico.PIXELS))
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


def _rest(nvm):
    d = pico.Drive(Q_SETTINGS)
    try:
        return pico.run(flash_in=d.flash(nvm), steps=REST_STEPS, ms=REST_MS, log_flash=True)
    finally:
        d.close()


def test_question_lines_are_the_harness_s(shared):
    """A question with a Klaxon, a refused Klaxon and the reveal with a penalty: the
    real firmware prints the harness's lines, in order, each within TOLERANCE_MS."""
    r = shared("question", _question)
    sim = _harness_question()
    assert_same(r.lines(), sim.events)
    said = [s for _, s in r.lines()]
    assert "klaxon 3 1" in said and "refused nobody has answered yet" in said
    assert "penalty 3 3" in said and said[-1] == "at 0 3 0 -3"


def test_saved_game_is_the_harness_s_bytes(shared):
    """After the question the board's nvm sector holds, byte for byte, what the
    harness's RP2040 flash model holds after the same script; every save was one
    page program (the record appended into erased bytes), no erase."""
    r = shared("question", _question)
    sim = _harness_question()
    assert bytes(r.nvm) == bytes(sim.nvm.mem)
    ops = [f for f in r.flash() if f[3] >= pico.NVM and f[3] < pico.NVM + 4096]
    assert ops and all(what == "program" for _, _, what, _, _ in ops), ops
    assert len(ops) == len([t for t in sim.nvm.erases]) + 2  # 3 saves; one erase unit
    assert len(r.flash()) == len(ops)  # nothing else written: not the drive either


def test_saved_game_survives_a_reset(shared):
    """Restarted from the flash as the question left it, the board resumes the game:
    its lines are the harness's resumed from the same saved game."""
    r = shared("question", _question)
    sim = _harness_question()
    again = pico.harness(Q_SETTINGS, [], 0, nvm=copy.deepcopy(sim.nvm))
    assert [s for _, s in r.restart.lines()] == [s for _, s in again.events]
    assert r.restart.lines()[-1][1] == "at 0 3 0 -3"


def _tone(i, d):
    """The pitch (Hz) sound ``i`` has ``d`` ms after it starts, as hardware/device.py
    step() computes it from TONES (0: a rest), None once it is over."""
    s = TONES[i]
    for k in range(0, len(s), 3):
        if d < s[k + 2] * 10:
            return 10 * s[k] + 10 * (s[k + 1] - s[k]) * d // (10 * s[k + 2]) if s[k] else 0
        d -= s[k + 2] * 10
    return None


def check_sound(pwm, name, t0, t1, duty):
    """The PWM configurations in [t0, t1) follow sound ``name`` from its start: each
    pitch is the sweep's within 2% (the divider's rounding) at most 30 ms behind (the
    sweep steps every 20 ms, on a pass that does the sound), ``duty`` % while it sounds,
    0 in its rests and after its end."""
    i = NAMES.index(name)
    total = sum(TONES[i][2::3]) * 10
    seen = [(t, f, du) for t, f, du in pwm if t0 <= t < t1]
    starts = [t for t, f, du in seen if du > 0]
    assert starts, "no sound in [%d, %d)" % (t0, t1)
    start = starts[0]
    problems = []
    for t, f, du in seen:
        if t < start:
            continue
        d = t - start
        want = [_tone(i, x) for x in range(max(0, int(d) - 30), int(d) + 2)]
        if du > 0:
            ok = abs(du - duty) < 0.01 and any(w and abs(f - w) / w < 0.02 for w in want)
        else:
            ok = any(not w for w in want)
        if not ok:
            problems.append("%.1f ms in: %.1f Hz duty %.2f%%, the sweep says %s" % (
                d, f, du, sorted(set(want))))
    assert not problems, "%s at %.1f:\n" % (name, start) + "\n".join(problems)
    if start + total + 30 < t1:
        assert [du for t, f, du in seen if t >= start][-1] == 0, "%s does not end" % name
        assert any(start + total - 5 <= t <= start + total + 30 and du == 0
                   for t, f, du in seen), "%s ends late" % name
    return start


def test_piezo_plays_klaxon_buzz_and_blip_as_defined(shared):
    """GP15's PWM: each sound the harness starts, the board starts within SOUND_MS, and
    its frequency and duty over time are the TONES sweep at QK_VOLUME 8 (40%)."""
    r = shared("question", _question)
    sim = _harness_question()
    heard = sim.sounds()
    assert {n for _, n in heard} == set(NAMES), heard
    pwm = r.pwm()
    for k, (t, name) in enumerate(heard):
        t1 = heard[k + 1][0] - 1 if k + 1 < len(heard) else Q_MS
        start = check_sound(pwm, name, t - 2, t1, 3277 * 8 / 65535 * 100)
        assert abs(start - t) <= SOUND_MS, (name, start, t)


def test_led_flashes_with_the_klaxon_only(shared):
    """The LED (GP25) flashes with the Klaxon (on and off each 128 ms step, 400 ms in
    referee mode), starting within a pass of the sound, and stays dark otherwise."""
    r = shared("question", _question)
    led = [(t, v) for t, v in r.gpio(pico.LED) if t > 0]
    k = [t for t, s in r.lines() if s.startswith("klaxon")][0]
    ons = [t for t, v in led if v == 1]
    assert ons and all(k - 5 <= t <= k + 400 for t in ons), (k, led)
    assert ons[0] - k < 3
    offs = [t for t, v in led if v == 0 and t > ons[0]]
    assert offs and offs[-1] <= k + 400 + 130 and 2 <= len(ons) <= 4, led


def test_pixels_show_each_seat_s_colour(shared):
    """The strip on GP22 (QK_PIXELS = 10), decoded from the pin: before each press of the
    question, each pixel shows the colour the harness's device shows for it (the ring
    legend: the QM white, the answering seat yellow, marks green/orange ...), lit or dark
    as its pattern blinks, in the device's own colours at QK_BRIGHTNESS 100."""
    r = shared("question", _question)
    frames = r.frames()
    assert len(frames) > 20 and all(len(px) == 10 for _, px in frames)
    sim = pico.harness(Q_SETTINGS, [], 0)
    for t, p, c in Q_STEPS:
        sim.level(c, int(t * 1000), p)
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


def test_undo_a_move_the_end_and_a_new_game_at_the_table(shared):
    """The rest of a whole game from the saved one: undo, marks again, a move entered at
    the table, the end held, a new game of 5 set up with the buttons, and its first
    question with a Klaxon: the harness's lines, each within TOLERANCE_MS."""
    sim0 = _harness_question()
    nvm = bytes(sim0.nvm.mem)
    r = shared("rest", lambda: _rest(nvm))
    sim = pico.harness(Q_SETTINGS, [], 0, nvm=copy.deepcopy(sim0.nvm))
    sim.play(REST_STEPS, REST_MS)
    assert_same(r.lines(), sim.events)
    said = [s for _, s in r.lines()]
    for line in ("undo", "move", "game over", "players 5", "new", "at 0 0 0 0 0"):
        assert line in said, line
