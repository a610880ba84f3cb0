"""Sleep and wake, the watchdog, crash recovery and safe mode, over simulated time."""

import runpy
import types

import pytest

import alarm
import simclock
from harness import ROOT, Sim
from test_table import Table


def test_idle_referee_saves_goes_dark_and_deep_sleeps_until_the_klaxon():
    t = Table(players=4, settings="QK_SLEEP_MIN = 1\n")
    t.ask()
    t.answer()
    t.wait(59_000)
    assert not t.sim.slept
    t.wait(3_000)
    assert t.sim.slept and t.sim.named("sleep")
    when, (pin_alarm,) = alarm.sleeps[-1]
    assert pin_alarm.pin.id == t.sim.controls["klaxon"][0] and pin_alarm.value is False
    assert t.sim.speaker_enabled() is False and set(t.sim.ring()) == {"off"}
    saved = t.game.to_bytes()
    # The Klaxon wakes the board: code.py starts again, the game resumes, and the press counts.
    woke = Sim(players=4, nvm=t.sim.nvm, wake_alarm=pin_alarm, held=("klaxon",),
               settings="QK_SLEEP_MIN = 1\n")
    woke.level("klaxon", 150_000, False)
    woke.run_until_ms(500)
    assert woke.named("resumed")[0][1]["phase"] == "answering"  # the saved game ...
    assert woke.named("klaxon") == [(0, {"challenger": 2, "challenged": 1})]  # ... and the press
    assert saved[:3] == woke.game.to_bytes()[:3]
    assert woke.named("fault") == []  # held at start because it woke us: not a stuck button


def test_klaxon_only_wakes_with_a_klaxon():
    sim = Sim("QK_SLEEP_MIN = 1\n", klaxon_only=True)
    sim.run_until_ms(61_000)
    assert sim.slept
    woke = Sim(klaxon_only=True, wake_alarm=alarm.sleeps[-1][1][0], held=("klaxon",))
    woke.level("klaxon", 100_000, False)
    woke.run_until_ms(300)
    assert [n for _, n in woke.sounds()] == ["klaxon"]


def test_activity_keeps_it_awake():
    sim = Sim("QK_SLEEP_MIN = 1\n", klaxon_only=True)
    for t in range(20_000, 200_000, 40_000):
        sim.press("klaxon", t, 100)
    sim.run_until_ms(200_000)
    assert not sim.slept and sim.named("sleep") == []


def test_the_express_has_no_alarm_so_it_idles_dark_and_a_press_wakes_it():
    sim = Sim("QK_SLEEP_MIN = 1\n", board_name="cpx", klaxon_only=True)
    sim.run_until_ms(61_000)
    assert sim.named("sleep") and not sim.slept  # no deep sleep: the loop runs on
    assert set(sim.ring()) == {"off"}
    sim.press("klaxon", 62_000, 100)
    sim.run_until_ms(62_100)
    assert sim.named("wake") and [n for _, n in sim.sounds()] == ["klaxon"]


def test_sleep_never_with_zero():
    sim = Sim("QK_SLEEP_MIN = 0\n", klaxon_only=True)
    sim.run_until_ms(300_000)
    assert not sim.slept and sim.named("sleep") == []


@pytest.mark.parametrize("board, has", [("cpb", True), ("pico", True), ("cpx", False),
                                        ("simulated", False)])
def test_watchdog_is_fed_about_once_a_second(board, has):
    sim = Sim(board_name=board, klaxon_only=True)
    sim.run_until_ms(10_000)
    wd = sim.device.watchdog
    if not has:
        assert wd is None
        return
    assert wd.timeout == 8 and len(wd.feeds) == 10
    assert all(b - a == 1000 for a, b in zip(wd.feeds, wd.feeds[1:]))


class _Stop(BaseException):
    pass


def run_loop(sim, until_ms, monkeypatch):
    """The device's own run() loop: each pass takes 1 simulated ms; its back-off sleeps
    advance the simulated clock."""
    import hardware.device as device_module

    real_poll = sim.device.poll

    def poll():
        real_poll()
        simclock.advance_us(1000)
        if simclock.now_ms() >= until_ms:
            raise _Stop()

    def sleep(seconds):
        simclock.advance_us(int(seconds * 1_000_000))

    monkeypatch.setattr(sim.device, "poll", poll)
    monkeypatch.setattr(device_module, "time", types.SimpleNamespace(sleep=sleep))
    with pytest.raises(_Stop):
        sim.device.run()


def test_an_exception_in_the_loop_is_reported_and_the_klaxon_keeps_working(monkeypatch, capsys):
    t = Table(players=3)
    t.ask()
    t.answer()
    sim = t.sim
    lights = sim.device.lights
    real = lights.update
    failures = []

    def flaky(now):  # a bug that strikes three times, 2 s from now
        if simclock.now_ms() > t.t + 2000 and len(failures) < 3:
            failures.append(simclock.now_ms())
            raise RuntimeError("boom")
        real(now)

    monkeypatch.setattr(lights, "update", flaky)
    sim.press("klaxon", t.t + 6000, 100)  # seat 2 challenges seat 1 after the crashes
    run_loop(sim, t.t + 8000, monkeypatch)
    errors = [f["message"] for _, f in sim.named("error")]
    assert len(errors) == 3 and "boom" in errors[0] and "(3 in a row)" in errors[2]
    assert [b - a for a, b in zip(failures, failures[1:])] == [250, 500]  # backs off 0.25 s, 0.5 s
    assert sim.named("klaxon")[-1][1] == {"challenger": 2, "challenged": 1}
    captured = capsys.readouterr()
    assert "RuntimeError: boom" in captured.err + captured.out  # the traceback is printed
    assert sim.named("saved")  # the game was saved on the way


def test_a_board_with_no_klaxon_pin_says_why_and_blinks_instead_of_crash_looping(monkeypatch, capsys):
    import hardware.device as device_module

    class Bare:
        board_id = "mystery"

    blinks = []

    def sleep(seconds):
        blinks.append(seconds)
        if len(blinks) > 20:
            raise _Stop()

    monkeypatch.setattr(device_module, "time", types.SimpleNamespace(sleep=sleep))
    monkeypatch.setitem(__import__("sys").modules, "board", Bare)
    with pytest.raises(_Stop):
        device_module.main()
    assert "QI Klaxon cannot start" in capsys.readouterr().out


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
