"""``sim --scoreboard`` and the terminal sim under attack (issue 25's scoreboard): what a
hostile table found, each held to a test."""

import signal
import termios

import sim as S
from harness import Sim

from test_sim_cli import in_terminal


def test_a_key_pressed_again_while_its_button_is_still_down_does_not_end_the_sim(tmp_path):
    """A key held down repeats (the terminal's auto-repeat: every ~30 ms), and a tap
    comes while a hold (A: 1.8 s) is still down: the sim ended with 'pin changes must
    come in time order' (exit 2), the game gone. A button already down cannot be
    pressed again: the key is let pass, the game plays on."""
    keys = [("k", 0.03), ("k", 0.03), ("k", 0.6), ("A", 0.3), ("a", 0.3), ("A", 2.5),
            ("b", 0.5), ("q", 0.5)]
    rc, out, _ = in_terminal([], keys, tmp_path)
    assert "time order" not in out, out[-400:]
    assert rc == 0 and "Traceback" not in out, out[-400:]


def test_the_pico_with_its_one_led_plays_in_a_terminal(tmp_path):
    """``sim --board pico`` (a Pico with no pixels: the LED alone) ended at once with a
    traceback drawing a ring it has not got; it shows its LED instead."""
    for extra in ([], ["--table"]):
        rc, out, _ = in_terminal(["--board", "pico"] + extra, [("b", 0.6), ("q", 0.5)],
                                 tmp_path)
        assert "Traceback" not in out and rc == 0, out[-400:]
        assert "the LED: " in out, out[-400:]


def test_killed_the_sim_gives_the_terminal_back_as_it_was(tmp_path):
    """``kill`` (SIGTERM) while playing: the sim quits as q does, and the terminal echoes
    and reads lines again (it was left in cbreak mode, typing unseen)."""
    rc, out, modes = in_terminal([], [("b", 0.5)], tmp_path,
                                 end=signal.SIGTERM)
    assert "Traceback" not in out, out[-400:]
    assert modes & termios.ICANON and modes & termios.ECHO, "terminal left in cbreak mode"


def test_a_page_asking_a_hundred_times_a_second_gets_one_state_not_a_backlog():
    """The page's asks are typed into the sim as one byte each: a page asking 100 times a
    second (a bug, a hostile page) queued a byte each, which the board reads one a chores
    pass (~4 a second), so it printed its whole state for minutes after the asks stopped.
    One byte waiting answers every ask made before it is read."""
    import web

    sim = Sim(players=4, coarse=True)
    bridge = web.SimBridge()
    q = bridge.listen()
    sent = 0
    for i in range(300):  # 3 s of a loop at 10 ms, the page asking each pass
        bridge.ask()
        sim.run_until_ms(sim.now_ms + 10)
        sent = S.to_scoreboard(sim, bridge, sent)
    sim.run_until_ms(sim.now_ms + 300)
    sent = S.to_scoreboard(sim, bridge, sent)
    during = sum(1 for _, line in sim.events if line.startswith("state "))
    assert during >= 1
    sim.run_until_ms(sim.now_ms + 5000)  # the asks stopped: the board falls quiet
    sent = S.to_scoreboard(sim, bridge, sent)
    after = sum(1 for _, line in sim.events if line.startswith("state ")) - during
    assert after == 0, "%d state lines after the asks stopped" % after
    bridge.forget(q)


def test_an_idle_sim_does_not_redraw_its_terminal_every_pass(tmp_path):
    """The terminal's ring and status were written again every 10 ms pass, changed or
    not (~58 KB a second idle: over ssh the loop, and the scoreboard fed by it, waited
    on the terminal). Drawn when something changed; a press still shows at once."""
    import io

    sim = Sim(players=4, coarse=True)
    out = io.StringIO()
    screen = S.Screen(out)
    screen.show(sim)
    drawn = len(out.getvalue())
    for _ in range(100):
        sim.run_until_ms(sim.now_ms + 10)
        screen.show(sim)
    assert len(out.getvalue()) < 3 * drawn, "redrawn while nothing changed"
    sim.press("b", sim.now_ms + 5, 90)
    sim.run_until_ms(sim.now_ms + 300)
    before = len(out.getvalue())
    screen.show(sim, ["ask 0"])
    assert "ask 0" in out.getvalue()[before:] and "answering" in out.getvalue()[before:]
