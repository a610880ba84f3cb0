"""Sleep and wake, the watchdog, faults and safe mode, over simulated time.

Sleep is hardware/power.py's ``sleeper`` (only where the build's profile has ``sleep``
and QK_SLEEP_MIN > 0): the game saved, the ring dark, then deep sleep until the Klaxon.
The harness (tools/simulated/harness.py, ``Sim.run_until_us``) models the wake: the next scripted
Klaxon press powers the board on again with the same nvm, and the press counts.
A deep-sleeping device cannot be polled again, so each test schedules the wake press
before the run that goes through the sleep (or starts a new ``Sim`` on the old nvm).
"""

import runpy
import types

import pytest

import alarm
import simclock
from harness import ROOT, Sim, klaxon_ms, sound_ms
from scenario import profile
from test_table import Table
from model import layout  # noqa: E402  (the slots' names)

SLEEP_1 = "QK_SLEEP_MIN = 1\n"
# build: sleeps until the Klaxon (its profile has alarm), has a watchdog
BUILDS = [("simulated", True, False), ("cpb", True, True), ("pico", True, True),
          ("cpx", False, False)]


def faults(sim):
    """[(t_ms, what)] of the console's "fault: ..." lines."""
    return [(t, line[7:]) for t, line in sim.events if line.startswith("fault: ")]


def cleared(sim):
    """[(t_ms, what)] of the console's "fault cleared: ..." lines (read from the lines:
    tools/simulated/events.py parses them as "fault" events, not "fault_cleared")."""
    return [(t, line[15:]) for t, line in sim.events if line.startswith("fault cleared: ")]


def strip(board):
    return "QK_PIXELS = 10\n" if board == "pico" else ""  # the Pico's strip is optional


@pytest.mark.parametrize("board, sleeps, dog", BUILDS)
def test_the_builds_profiles_say_what_these_tests_expect(board, sleeps, dog):
    prof = profile(board)
    assert (prof["sleep"], prof["watchdog"]) == (sleeps, dog)


@pytest.mark.parametrize("board", ["simulated", "cpb", "pico"])
def test_idle_referee_saves_goes_dark_and_deep_sleeps_then_the_klaxon_wakes_it(board):
    t = Table(board, players=4, settings=SLEEP_1 + strip(board))
    t.ask()
    t.answer()  # seat 1 answered; seat 2 to answer
    saved = t.game.to_bytes()
    t.wait(58_000)
    assert not t.sim.slept and t.sim.named("sleep") == []  # not before a minute idle
    asleep = t.sim.device
    sleeps = len(alarm.sleeps)
    t.sim.press("klaxon", 90_000, 100)  # half a minute after it slept, seat 2 hits the Klaxon
    t.sim.run_until_ms(92_000)
    (slept_at, _), = t.sim.named("sleep")
    assert 60_000 < slept_at < 62_500  # a minute after the last press
    assert t.sim.slept == 1 and len(alarm.sleeps) == sleeps + 1
    when, (pin_alarm,) = alarm.sleeps[-1]
    assert when // 1000 == slept_at
    # it wakes when the Klaxon's pin reads pressed
    assert (pin_alarm.pin.id, pin_alarm.value) == t.sim.controls["klaxon"]
    # asleep: every pixel dark, the amplifier off, the LED off
    assert all(tuple(px) == (0, 0, 0) for px in asleep.p[layout.PX])
    for out in (asleep.p[layout.EN], asleep.p[layout.LED]):
        assert out is None or out.value is False
    # the wake: a new start-up ~1.3 s later (the board reboots), the saved game resumed,
    # and the press that woke it counts, though it was let go 1.2 s before code.py ran
    assert t.sim.device is not asleep and not t.sim.asleep
    (woke_at, resumed), = t.sim.named("resumed")
    assert 91_300 <= woke_at < 91_310
    assert resumed["positions"] == [0, 0, 0, 0]
    (klaxon_at, klaxon), = t.sim.named("klaxon")
    assert klaxon == {"challenger": 2, "challenged": 1} and 0 <= klaxon_at - woke_at < 10
    assert (t.game.phase, t.game.challenger, t.game.challenged) == ("reveal", 2, 1)
    assert saved[:3] == t.game.to_bytes()[:3]  # same players and QM
    assert [n for _, n in t.sim.sounds()][-1] == "klaxon"
    assert t.sim.named("fault") == []
    t.t = 92_000
    t.right()  # the reveal goes on
    assert t.sim.named("mark")[-1][1] == {"seat": 1, "right": True}


def test_a_new_power_on_from_the_klaxons_pin_alarm_resumes_and_counts_the_press():
    """The same wake, built by hand: the board starts with the Klaxon held by the
    pin alarm that woke it (``alarm.wake_alarm``)."""
    t = Table(players=4, settings=SLEEP_1)
    t.ask()
    t.answer()
    t.sim.run_until_ms(62_500)  # no press scheduled: it sleeps and stays asleep
    assert t.sim.slept == 1 and t.sim.asleep
    pin_alarm = alarm.sleeps[-1][1][0]
    woke = Sim(SLEEP_1, players=4, nvm=t.sim.nvm, wake_alarm=pin_alarm, held=("klaxon",))
    woke.level("klaxon", 150_000, False)
    woke.run_until_ms(500)
    assert [f for _, f in woke.named("klaxon")] == [{"challenger": 2, "challenged": 1}]
    assert woke.named("resumed") and woke.named("fault") == []  # held: it woke us, not stuck
    # let go long before code.py started (a slam is 100-300 ms, a reboot ~1.3 s): it counts
    gone = Sim(SLEEP_1, players=4, nvm=t.sim.nvm, wake_alarm=pin_alarm)
    gone.run_until_ms(500)
    assert [f for _, f in gone.named("klaxon")] == [{"challenger": 2, "challenged": 1}]
    assert [n for _, n in gone.sounds()] == ["klaxon"]
    # the same start-up without the alarm is a Klaxon held at power-on: a fault
    held = Sim(SLEEP_1, players=4, nvm=t.sim.nvm, held=("klaxon",))
    held.run_until_ms(500)
    assert held.named("klaxon") == [] and held.named("fault")


def test_sleep_saves_a_change_still_waiting_for_its_save_first():
    """The save is due 1 s after a press; if the board sleeps before that (here the
    idle time is cut below the save delay), the sleep writes it first."""
    t = Table(players=4, settings=SLEEP_1)
    t.ask()
    t.wait(1500)  # the ask saved
    ops = t.sim.nvm.ops
    t.sim.press("a", t.t, 80)  # seat 1 answers ...
    t.sim.run_until_ms(t.t + 150)
    assert t.sim.named("answer") and t.sim.nvm.ops == ops  # ... not saved yet
    t.sim.device.t[layout.IDLE] = 300  # idle 0.3 s (QK_SLEEP_MIN is whole minutes)
    t.sim.run_until_ms(t.t + 900)  # asleep before the save's 1 s is up
    assert t.sim.slept == 1 and t.sim.named("sleep")[0][0] < t.t + 900
    assert t.sim.nvm.ops > ops
    after = Sim(players=4, nvm=t.sim.nvm)
    assert (after.game.phase, after.game.answering) == ("answering", 2)


def test_a_pure_klaxon_sleeps_and_wakes_with_a_klaxon():
    sim = Sim(SLEEP_1, klaxon_only=True)
    sim.press("klaxon", 1000, 100)
    sim.press("klaxon", 100_000, 100)  # the press after it slept
    sim.run_until_ms(102_000)
    assert sim.slept == 1 and 61_000 < sim.named("sleep")[0][0] < 63_000
    assert [n for _, n in sim.sounds()] == ["klaxon", "klaxon"]
    assert len(sim.named("klaxon")) == 2
    # the press that woke it sounds as soon as code.py runs again, after the ~1.3 s boot
    assert 101_300 <= sim.sounds()[-1][0] < 101_310


def test_a_device_never_touched_sleeps_the_idle_time_after_power_on():
    sim = Sim(SLEEP_1, klaxon_only=True)
    sim.run_until_ms(59_000)
    assert not sim.slept
    sim.run_until_ms(61_000)
    assert sim.slept == 1  # (the ticks wrap 65.5 s after power-on: not counted from tick 0)


def test_a_start_late_in_the_ticks_does_not_sleep_at_once():
    # ticks_ms() goes on across a reload of code.py (settings.toml saved over USB): the
    # idle time counts from this start, not from tick 0
    sim = Sim(SLEEP_1, klaxon_only=True, start_ms=10_000_000)
    sim.run_until_ms(59_000)
    assert not sim.slept
    sim.run_until_ms(61_000)
    assert sim.slept == 1


def test_activity_keeps_it_awake_and_it_sleeps_a_minute_after_the_last_press():
    sim = Sim(SLEEP_1, klaxon_only=True)
    for t in range(20_000, 140_000, 40_000):  # a press every 40 s: never a minute idle
        sim.press("klaxon", t, 100)
    sim.run_until_ms(160_000)
    assert not sim.slept and sim.named("sleep") == []
    assert len(sim.named("klaxon")) == 3
    sim.run_until_ms(170_000)
    assert sim.slept == 1 and 160_000 < sim.named("sleep")[0][0] < 162_500


def test_a_referee_kept_busy_by_buttons_stays_awake():
    t = Table(players=3, settings=SLEEP_1)
    for _ in range(4):  # a slow question every 50 s: A and B alone keep it awake
        t.ask()
        t.pass_()
        t.pass_()
        t.right()
        t.wait(48_000)
    assert not t.sim.slept and t.game.qm == 4 % 3


def test_sleep_min_zero_never_sleeps():
    sim = Sim("QK_SLEEP_MIN = 0\n", players=3)
    assert sim.device.p[layout.SLEEP] is None
    sim.press("a", 1000, 80)
    sim.run_until_ms(130_000)
    assert not sim.slept and sim.named("sleep") == []
    assert sim.ring()[0] == "white"  # the QM still shown


def test_the_express_has_no_alarm_so_it_never_sleeps_or_goes_dark():
    # (was: the Express idled dark and a press woke it; now it has no sleep at all)
    t = Table("cpx", players=4, settings=SLEEP_1)
    t.ask()
    t.wait(130_000)
    assert t.sim.device.p[layout.SLEEP] is None
    assert not t.sim.slept and t.sim.named("sleep") == []
    assert t.sim.ring()[0] == "white" and t.seat(1) == ("yellow", "slow")
    t.answer()
    t.klaxon()
    assert [f for _, f in t.sim.named("klaxon")] == [{"challenger": 2, "challenged": 1}]


@pytest.mark.parametrize("board, sleeps, dog", BUILDS)
def test_watchdog_is_fed_about_once_a_second_where_the_build_has_one(board, sleeps, dog):
    t = Table(board, players=3, settings=strip(board))
    t.ask()
    t.answer()
    t.klaxon()
    t.wait(10_000)
    wd = t.sim.device.p[layout.WD]
    if not dog:
        assert wd is None
        return
    assert wd.timeout == 8 and wd.mode == 2  # WatchDogMode.RESET: a hang resets the board
    feeds = wd.feeds
    assert feeds[0] <= 300 and feeds[-1] >= t.t - 1000
    assert max(b - a for a, b in zip(feeds, feeds[1:])) <= 1000  # far inside its 8 s


def test_watchdog_is_fed_through_a_stuck_klaxon_and_a_fault():
    sim = Sim("QK_STUCK_S = 2\n", board_name="pico", players=3)
    real = sim.device.r.key

    def broken(k):
        raise RuntimeError("boom")

    sim.device.r.key = broken
    sim.press("a", 500, 80)  # the referee fails: a fault ...
    sim.press("klaxon", 1000, 6000)  # ... and then the Klaxon is stuck
    sim.run_until_ms(9000)
    sim.device.r.key = real
    assert [w for _, w in faults(sim)] == ["the referee failed: RuntimeError('boom')",
                                           "the Klaxon is stuck down; check its wiring"]
    assert [w for _, w in cleared(sim)] == ["the referee is back", "the Klaxon is released"]
    feeds = sim.device.p[layout.WD].feeds
    assert max(b - a for a, b in zip(feeds, feeds[1:])) <= 1000 and feeds[-1] > 8000


def _flaky(n, error):
    """A function wrapper that raises ``error`` the first ``n`` times."""
    left = [n]

    def wrap(real):
        def f(*a):
            if left[0]:
                left[0] -= 1
                raise error
            return real(*a)

        return f

    return wrap


@pytest.mark.parametrize("where", ["referee", "lights", "drawing"])
def test_a_fault_makes_a_pure_klaxon_for_5_s_then_the_referee_is_back(where, monkeypatch):
    t = Table(players=3)
    t.ask()
    t.answer()  # seat 1; seat 2 to answer
    d = t.sim.device
    if where == "referee":
        monkeypatch.setattr(d.r, "key", _flaky(1, RuntimeError("boom"))(d.r.key))
    elif where == "lights":  # the ring's scene, made after the referee took the press
        monkeypatch.setattr(d, "render", _flaky(1, RuntimeError("boom"))(d.render))
    else:  # the ring drawn on the next pass (the loop's own guard)
        monkeypatch.setattr(d, "draw", _flaky(1, RuntimeError("boom"))(d.draw))
    t.klaxon()  # seat 2: the referee (or its lights) fails on this press
    (fault_at, what), = faults(t.sim)
    assert what == "the referee failed: RuntimeError('boom')"
    assert set(t.sim.scene()) == {("purple", "fast")}
    assert t.sim.sounds()[-1] == (fault_at, "klaxon")  # the Klaxon sounded all the same
    # for 5 s a pure Klaxon: every press sounds; A and B buzz (not now) and do nothing
    t.a()
    t.b()
    # (A and B come while the first klaxon still sounds: their buzz follows it, once; the
    # next two presses come once that buzz is over, whatever the sounds' lengths)
    t.wait(max(0, fault_at + klaxon_ms() + sound_ms("denied") + 100 - t.t))
    t.klaxon()
    t.klaxon()
    assert len(t.sim.named("klaxon")) == 2 + (where != "referee")  # + the one the referee took
    assert [f for _, f in t.sim.named("klaxon")][-2:] == [{}, {}]  # "klaxon sounded"
    assert [n for _, n in t.sim.sounds()][-4:] == ["klaxon", "denied", "klaxon", "klaxon"]
    assert t.sim.named("answer")[-1][1] == {"seat": 1} and t.sim.named("pass") == []
    t.wait(5000 - (t.t - fault_at) - 200)
    assert cleared(t.sim) == []
    t.wait(600)
    (cleared_at, what), = cleared(t.sim)
    assert what == "the referee is back" and 5000 <= cleared_at - fault_at < 5300
    # the game as it was: the press the lights failed on was taken; the other was not
    if where == "referee":
        assert (t.game.phase, t.game.answering) == ("answering", 2)
        assert t.seat(1) == ("green", "steady") and t.seat(2) == ("yellow", "slow")
        t.klaxon()  # seat 2 challenges seat 1 now
        assert t.sim.named("klaxon")[-1][1] == {"challenger": 2, "challenged": 1}
    else:
        assert (t.game.phase, t.game.challenger) == ("reveal", 2)
        assert t.sim.named("klaxon")[0][1] == {"challenger": 2, "challenged": 1}
    assert t.seat(1) == ("yellow", "fast") and t.seat(2) == ("vermillion", "fast")
    t.right()
    t.wrong()
    t.done()
    assert t.game.positions == [0, 3, 0] and t.game.phase == "idle"


class _Stop(BaseException):
    pass


def test_an_exception_in_the_loop_itself_is_a_fault_not_a_crash():
    """``Device.run`` (code.py's loop): an exception out of ``poll`` is caught; the
    device goes on as a pure Klaxon, then the referee is back."""
    t = Table(players=3)
    t.ask()
    t.answer()
    d = t.sim.device
    real = d.poll
    passes = [0]
    end = t.t + 7000

    def poll():  # one pass a simulated ms; the Klaxon's debouncer fails on the third
        passes[0] += 1
        if passes[0] == 3:
            raise OSError("the Klaxon's pin")
        real()
        simclock.advance_us(1000)
        if simclock.now_ms() >= end:
            raise _Stop()

    d.poll = poll
    t.sim.press("klaxon", t.t + 500, 100)
    t.sim.press("klaxon", t.t + 6000, 100)
    with pytest.raises(_Stop):
        t.sim.call(d.run)
    del d.poll
    assert [w for _, w in faults(t.sim)] == ["the referee failed: OSError(\"the Klaxon's pin\")"]
    assert [w for _, w in cleared(t.sim)] == ["the referee is back"]
    assert [f for _, f in t.sim.named("klaxon")] == [{}, {"challenger": 2, "challenged": 1}]


def test_a_board_with_no_klaxon_pin_says_why_and_blinks_instead_of_crash_looping(monkeypatch,
                                                                                 capsys):
    import digitalio
    import time

    import hardware.start

    class Bare:  # a board the firmware does not know, with none of the pins it looks for
        board_id = "mystery"
        LED = object()

    led = []

    class Led:
        def __init__(self, pin):
            assert pin is Bare.LED

        def switch_to_output(self, value=False):
            pass

        value = property(lambda self: led[-1], lambda self, v: led.append(bool(v)))

    naps = []

    def sleep(seconds):
        naps.append(seconds)
        if len(naps) > 40:
            raise _Stop()

    monkeypatch.setattr(digitalio, "DigitalInOut", Led)
    monkeypatch.setattr(time, "sleep", sleep)
    with pytest.raises(_Stop):  # it never returns, and never raises
        hardware.start.start(hardware.settings.read([]), Bare)
    out = capsys.readouterr().out
    assert out.count("QI Klaxon cannot start") == 1 and "no Klaxon button pin" in out
    assert True in led and False in led  # the LED blinks
    assert abs(sum(naps[:8]) - 2.05) < 0.01  # a pattern every ~2 s, on and on


def test_a_klaxon_pin_the_board_lacks_is_reported_and_the_builds_own_is_used():
    sim = Sim('QK_PIN_KLAXON = "NOPE"\n', klaxon_only=True)
    assert sim.device is not None
    assert any("NOPE" in line for _, line in sim.events)
    sim.press("klaxon", 100, 100)
    sim.run_until_ms(1000)
    assert len(sim.named("klaxon")) == 1


@pytest.mark.parametrize("reason, expect", [("BROWNOUT", "sleep"), ("HARD_FAULT", "reset"),
                                            ("WATCHDOG", "reset"), ("USER", "stay")])
def test_safemode_logs_the_reason_and_sleeps_or_resets(reason, expect, monkeypatch, capsys):
    import microcontroller
    import supervisor
    import time

    reasons = types.SimpleNamespace(BROWNOUT="BROWNOUT", HARD_FAULT="HARD_FAULT",
                                    WATCHDOG="WATCHDOG", USER="USER")
    monkeypatch.setattr(supervisor, "SafeModeReason", reasons, raising=False)
    monkeypatch.setattr(supervisor.runtime, "safe_mode_reason", reason, raising=False)
    resets = []
    monkeypatch.setattr(microcontroller, "reset", lambda: resets.append(1), raising=False)
    monkeypatch.setattr(time, "sleep", lambda s: None)
    before = len(alarm.sleeps)
    try:
        runpy.run_path(ROOT + "/safemode.py")
    except alarm.DeepSleep:
        pass
    out = capsys.readouterr().out
    assert "QI Klaxon safe mode: " + reason in out
    assert (len(alarm.sleeps) > before) == (expect == "sleep")
    assert bool(resets) == (expect == "reset")
