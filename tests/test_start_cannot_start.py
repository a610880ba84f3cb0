"""A board that cannot start (no pin for the Klaxon at all) says why once and blinks its
LED for ever: three short blinks every two seconds, dark between them, so that a maker
with no serial console sees that it is not running (hardware/start.py)."""

import pytest


class _Stop(Exception):
    pass


class Bare:  # a board the firmware does not know, with none of the pins it looks for
    board_id = "mystery"
    LED = object()


def blinking(monkeypatch, capsys, cycles=3):
    """(the console, the LED's light as [(from_s, to_s)], the time run) while the board
    blinks for ``cycles`` two-second patterns."""
    import digitalio
    import time

    import hardware.settings  # (here: an earlier start-up may have dropped them)
    import hardware.start

    now = [0.0]
    changes = []  # (t_s, lit)

    class Led:
        def __init__(self, pin):
            assert pin is Bare.LED

        def switch_to_output(self, value=False):
            changes.append((now[0], bool(value)))

        value = property(lambda self: changes[-1][1],
                         lambda self, v: changes.append((now[0], bool(v))))

    def sleep(seconds):
        now[0] = round(now[0] + seconds, 6)
        if now[0] >= 2.05 * cycles:
            raise _Stop()

    monkeypatch.setattr(digitalio, "DigitalInOut", Led)
    monkeypatch.setattr(time, "sleep", sleep)
    capsys.readouterr()
    with pytest.raises(_Stop):  # it never returns, and never raises
        hardware.start.start(hardware.settings.read([]), Bare)
    lit = []
    for (t, on), (t_next, _) in zip(changes, changes[1:] + [(now[0], None)]):
        if on and t_next > t:
            if lit and abs(lit[-1][1] - t) < 1e-9:
                lit[-1] = (lit[-1][0], t_next)
            else:
                lit.append((t, t_next))
    return capsys.readouterr().out, lit


def test_a_board_that_cannot_start_blinks_three_times_every_two_seconds(monkeypatch, capsys):
    out, lit = blinking(monkeypatch, capsys)
    assert out.splitlines() == [
        "board mystery is not one of the builds: using the Pico's pin names (set QK_BOARD or "
        "the QK_PIN_ keys)",
        "QI Klaxon cannot start: RuntimeError('no Klaxon button pin: set QK_PIN_KLAXON in "
        "settings.toml')"]
    starts = [round(a, 2) for a, _ in lit]
    assert starts == [round(c * 2.05 + b, 2) for c in range(3) for b in (0.15, 0.45, 0.75)]
    assert all(abs(b - a - 0.15) < 1e-6 for a, b in lit)  # short blinks; dark the rest
