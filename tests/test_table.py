"""The referee at the table: whole questions played through the buttons over
simulated time, on every build, with the ring checked at each step."""

import json
import os
import subprocess
import sys

import pytest

from harness import PROFILE_NAMES, ROOT, Sim


class Table:
    """Plays gestures on a simulated device the way players would."""

    def __init__(self, board="simulated", **kw):
        self.sim = Sim(board_name=board, **kw)
        self.t = 100

    def _go(self, control, times=1, hold=80):
        self.sim.tap(control, self.t, times=times, hold_ms=hold)
        self.t += times * 200 + hold + 500
        self.sim.run_until_ms(self.t)

    def a(self):
        self._go("a")

    def b(self):
        self._go("b")

    def a2(self):
        self._go("a", times=2)

    def b2(self):
        self._go("b", times=2)

    def b_long(self):
        self._go("b", hold=900)

    def a_long(self):
        self._go("a", hold=900)

    def wait(self, ms):
        self.t += ms
        self.sim.run_until_ms(self.t)

    def klaxon(self):
        self.sim.press("klaxon", self.t, 120, bounce_us=(400, 300, 600))
        self.t += 300
        self.sim.run_until_ms(self.t)

    # the rules' words
    ask = b
    answer = a
    pass_ = b
    right = a
    wrong = b
    undo = b_long
    miss_go = a_long
    end = b2
    roll = a

    def seat(self, s):
        """(colour, pattern) of seat ``s``'s pixel."""
        g = self.sim.game
        lights = self.sim.device.lights
        return self.sim.scene()[lights.pixel_of(s, g.players)]

    @property
    def game(self):
        return self.sim.game

    def events(self, *names):
        return [(n, f) for _, n, f in self.sim.events if n in names]


@pytest.mark.parametrize("board", PROFILE_NAMES)
def test_a_question_with_a_klaxon_and_a_penalty(board):
    strip = "QK_PIXELS = 10\n" if board == "pico" else ""  # the Pico's strip is optional
    t = Table(board, players=4, settings=strip)  # QM seat 0; answering 1, 2, 3
    assert t.seat(0) == ("white", "steady")
    t.ask()
    assert t.game.answering == 1
    assert t.seat(1) == ("yellow", "slow")
    t.klaxon()  # seat 1 hits it on the first answer: nobody to challenge
    assert t.events("refused")[-1] == ("refused", {"reason": "nobody has answered yet"})
    assert t.sim.named("sound")[-1][1]["name"] == "denied"
    assert t.game.answering == 1 and t.game.phase == "answering"  # changes nothing
    t.answer()  # seat 1 answers
    assert t.seat(1) == ("green", "steady") and t.seat(2) == ("yellow", "slow")
    t.pass_()  # seat 2 passes
    assert t.seat(2) == ("grey", "steady")
    t.klaxon()  # seat 3 challenges seat 1 (passes are skipped)
    assert t.events("klaxon")[-1] == ("klaxon", {"challenger": 3, "challenged": 1})
    # the reveal: the cursor walks the answers; parties flash in their colours
    assert t.seat(1) == ("yellow", "fast")  # seat 1's result is entered first
    assert t.seat(3) == ("vermillion", "fast")  # the challenger
    t.right()  # seat 1 was right after all
    assert t.seat(1) == ("green", "steady")
    assert t.seat(3) == ("yellow", "fast")
    t.wrong()  # the challenger was wrong, and the booklet says "Klaxon -12"
    assert t.sim.device.referee.entering_penalty
    t.a2()  # +5
    t.a2()  # +10
    t.a()  # 11
    t.a()  # 12
    assert t.sim.scene()[:3] == [("white", "steady"), ("orange", "steady"), ("orange", "steady")]
    t.b()  # done: the reveal is applied
    assert t.game.positions == [0, 3, 0, -12]
    assert t.game.qm == 1 and t.game.phase == "idle"  # the dice pass left
    assert t.seat(1) == ("white", "steady")
    reveal = t.events("reveal")[-1][1]
    assert reveal["positions"] == [0, 3, 0, -12] and reveal["penalties"] == {3: 12}


@pytest.mark.parametrize("board", ["simulated", "cpx"])
def test_challenged_shown_in_sky_slow_while_the_challenger_is_entered(board):
    t = Table(board, players=5)
    t.ask()
    t.answer()  # 1
    t.answer()  # 2
    t.klaxon()  # 3 challenges 2
    t.wrong()  # seat 1: wrong, not a party: no penalty asked
    assert not t.sim.device.referee.entering_penalty
    assert t.seat(2) == ("yellow", "fast")
    assert t.seat(3) == ("vermillion", "fast") and t.seat(4) == ("grey", "steady")
    t.right()  # seat 2 right
    assert t.seat(2) == ("green", "steady") and t.seat(3) == ("yellow", "fast")
    t.right()
    assert t.game.positions == [0, 0, 3, 3, 0]


def test_undo_a_mistaken_reveal_from_the_buttons():
    t = Table(players=3)
    t.ask()
    t.answer()
    t.answer()
    t.right()
    t.right()  # oops: seat 2 was wrong
    assert t.game.positions == [0, 3, 3] and t.game.qm == 1
    t.undo()  # back to the reveal, before it was applied
    assert t.game.phase == "reveal" and t.game.positions == [0, 0, 0] and t.game.qm == 0
    t.right()
    t.wrong()
    assert t.game.positions == [0, 3, 0] and t.game.qm == 1


def test_undo_one_mark_during_the_reveal_and_then_the_klaxon_itself():
    t = Table(players=3)
    t.ask()
    t.answer()
    t.klaxon()
    t.right()
    t.undo()  # the mark
    assert t.sim.device.referee.cursor == 1
    t.undo()  # the Klaxon
    assert t.game.phase == "answering" and t.game.answering == 2 and t.game.challenger is None
    assert t.seat(2) == ("yellow", "slow")


def test_roll_miss_a_go_and_qm_rotation_round_the_table():
    t = Table(players=3, seed=7)
    t.roll()
    roll = t.events("roll")[-1][1]
    assert t.game.positions[0] == roll["dice"][1]  # the QM moves the white die
    assert roll["question"] == roll["dice"][0] * 100 + roll["dice"][1] * 10 + roll["dice"][2]
    t.miss_go()
    assert t.game.qm == 1
    for qm in (2, 0):
        t.ask()
        t.pass_()
        t.pass_()
        t.right()  # nobody answered: either key reveals
        assert t.game.qm == qm


def test_end_game_winners_flash_and_a_new_game_starts():
    t = Table(players=3)
    t.ask()
    t.answer()
    t.pass_()
    t.right()  # seat 1 +3
    t.end()
    assert t.game.phase == "over" and t.game.winners == [1]
    assert t.seat(1) == ("green", "fast") and t.seat(0) == ("grey", "steady")
    t.klaxon()
    assert t.events("refused")[-1][1]["reason"] == "the game is over"
    t.a()  # new game
    assert t.game.phase == "idle" and t.game.positions == [0, 0, 0]


def test_actions_that_do_not_apply_are_denied_and_change_nothing():
    t = Table(players=3)
    t.undo()  # nothing to undo yet
    assert t.sim.named("sound")[-1][1]["name"] == "denied"
    assert t.game.phase == "idle"


def test_klaxon_is_instant_even_while_a_gesture_is_pending():
    t = Table(players=3)
    t.ask()
    t.answer()
    # seat 2 taps A (a gesture that waits out the double-press window) and the
    # Klaxon is hit 50 ms later: the klaxon still starts within 10 ms.
    t.sim.tap("a", t.t, hold_ms=60)
    t.sim.press("klaxon", t.t + 100, 100)
    t.sim.run_until_ms(t.t + 1000)
    starts = [tt for tt, f in t.sim.named("sound") if f["name"] == "klaxon"]
    assert starts and starts[0] - (t.t + 100) <= 10


def test_fewer_pixels_than_players_shows_the_first_seats():
    t = Table(players=10, settings="QK_PIXELS = 4\n")
    assert t.sim.device.lights.count == 4
    t.ask()
    assert [c for c, _ in t.sim.scene()] == ["white", "yellow", "off", "off"]


def test_console_prints_one_readable_line_per_event(capsys):
    from hardware.device import console

    console("klaxon", {"challenger": 3, "challenged": 1})
    console("reveal", {"right": [1], "positions": [0, 3, 0, -12], "next_qm": 1, "qm": 0,
                       "penalties": {3: 12}, "phase": "idle", "winners": []})
    console("klaxon", {})
    out = capsys.readouterr().out.splitlines()
    assert out == ["KLAXON! seat 3 challenges seat 1",
                   "revealed: right [1]; positions [0, 3, 0, -12]; QM is now seat 1", "KLAXON!"]


def test_a_full_scripted_game_through_the_simulator(tmp_path):
    script = tmp_path / "game.txt"
    lines = ["# a three-player game: two questions, then the end"]
    t = 100

    def tap(control, times=1, hold=80):
        nonlocal t
        for _ in range(times):
            lines.append("%d down %s" % (t, control))
            lines.append("%d up %s" % (t + hold, control))
            t += hold + 120
        t += 500

    tap("b")  # ask (QM 0)
    tap("a")  # seat 1 answers
    tap("klaxon")  # seat 2 challenges seat 1
    tap("b")  # seat 1 wrong: a party, so its penalty is asked
    tap("a")  # 3 squares, one tap each
    tap("a")
    tap("a")
    tap("b")  # done
    tap("a")  # seat 2 right -> reveal
    tap("b")  # ask (QM 1): seat 2 first
    tap("a")  # seat 2 answers
    tap("a")  # seat 0 answers
    tap("a")  # seat 2 right
    tap("b")  # seat 0 wrong
    tap("b", 2)  # end the game
    script.write_text("\n".join(lines) + "\n")
    wav = tmp_path / "out.wav"
    out = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "sim.py"), "--script",
                          str(script), "--players", "3", "--wav", str(wav)],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    records = [json.loads(line) for line in out.stdout.splitlines()]
    assert all("t_ms" in r and "event" in r for r in records)
    klaxon = [r for r in records if r["event"] == "klaxon"]
    assert klaxon == [dict(klaxon[0], challenger=2, challenged=1)]
    sounds = [r["name"] for r in records if r["event"] == "sound"]
    assert sounds.count("klaxon") == 1 and "blip" in sounds
    final = records[-1]
    assert final["event"] == "state"
    assert (final["qm"], final["phase"], final["positions"], final["winners"]) == (
        2, "over", [0, -3, 6], [2])
    assert wav.stat().st_size > 41000


def test_simulator_rejects_a_malformed_line_with_its_number(tmp_path):
    script = tmp_path / "bad.txt"
    script.write_text("# fine\n100 down klaxon\n150 sideways klaxon\n")
    out = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "sim.py"), "--script",
                          str(script)], capture_output=True, text=True, timeout=60)
    assert out.returncode == 2 and "line 3" in out.stderr


def test_simulator_without_a_terminal_plays_the_demo_and_exits_0(tmp_path):
    out = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "sim.py"), "--wav",
                          str(tmp_path / "demo.wav")], capture_output=True, text=True,
                         timeout=60, stdin=subprocess.DEVNULL)
    assert out.returncode == 0, out.stderr
    assert '"event": "klaxon"' in out.stdout and (tmp_path / "demo.wav").exists()
