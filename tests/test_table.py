"""The referee at the table: whole questions played through the buttons over
simulated time, on every build, with the ring checked at each step.

The controls (README's table): a tap acts when let go; held, the ring shows
in turn the press's longer meanings and letting go takes the one shown.
"""

import json
import os
import subprocess
import sys

import pytest

import scenario
from harness import PROFILE_NAMES, ROOT, Sim
from model import layout  # noqa: E402  (the slots' names)

LONG = scenario.HOLDS["held"]  # a hold past QK_LONG_MS (1.5 s): the second meaning
LONGER = scenario.HOLDS["long"]  # a hold past twice that: the third


class Table:
    """Plays presses on a simulated device the way players would."""

    def __init__(self, board="simulated", **kw):
        self.sim = Sim(board_name=board, **kw)
        self.t = 100

    def press(self, control, hold=80, gap=500):
        self.sim.press(control, self.t, hold)
        self.t += hold + gap
        self.sim.run_until_ms(self.t)

    def a(self, hold=80):
        self.press("a", hold)

    def b(self, hold=80):
        self.press("b", hold)

    def wait(self, ms):
        self.t += ms
        self.sim.run_until_ms(self.t)

    def klaxon(self):
        self.sim.press("klaxon", self.t, 120, bounce_us=(400, 300, 600))
        self.t += 300
        self.sim.run_until_ms(self.t)

    # the rules' words (README's controls table)
    roll = answer = right = plus1 = a
    ask = pass_ = wrong = done = b

    def undo(self):
        self.b(LONG)

    def miss_go(self):
        self.a(LONG)

    def plus10(self):
        self.a(LONG)

    def move(self):
        self.a(LONGER)

    def end(self):
        self.b(LONGER)

    new_game = end

    def seat(self, s):
        """(colour, pattern) of seat ``s``'s pixel."""
        return self.sim.scene()[self.sim.pixel_of(s, self.game.players)]

    @property
    def game(self):
        return self.sim.game

    def events(self, *names):
        return [(n, f) for _, n, f in self.sim.records() if n in names]

    def last_sound(self):
        return self.sim.named("sound")[-1][1]["name"]


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
    assert t.last_sound() == "denied"
    assert t.game.answering == 1 and t.game.phase == "answering"  # changes nothing
    t.answer()  # seat 1 answers
    assert t.seat(1) == ("green", "steady") and t.seat(2) == ("yellow", "slow")
    t.pass_()  # seat 2 passes
    assert t.seat(2) == ("grey", "steady")
    t.klaxon()  # seat 3 challenges seat 1 (passes are skipped)
    assert t.events("klaxon")[-1] == ("klaxon", {"challenger": 3, "challenged": 1})
    # the reveal: answers are marked in answering order; the parties blink in their colours
    assert t.seat(1) == ("yellow", "fast")  # seat 1's answer is marked first
    assert t.seat(3) == ("vermillion", "fast")  # the challenger
    t.right()  # seat 1 was right after all
    assert t.seat(1) == ("green", "steady")
    assert t.seat(3) == ("yellow", "fast")
    t.wrong()  # the challenger was wrong, and the booklet says "Klaxon -12"
    assert t.sim.device.r.u[layout.WHAT] == 1  # its penalty is being entered
    t.plus10()
    t.plus1()
    t.plus1()  # 12: one white (ten), two orange (units), from the light after the
    scene = t.sim.scene()  # challenger's, which goes on blinking vermillion: whose it is
    at = t.sim.pixel_of(3, 4)
    assert scene[at] == ("vermillion", "fast")
    assert [scene[(at + 1 + j) % 10] for j in range(4)] == [
        ("white", "steady"), ("orange", "steady"), ("orange", "steady"), ("off", "steady")]
    t.done()  # the reveal is applied
    assert t.game.positions == [0, 3, 0, -12]
    assert t.game.qm == 1 and t.game.phase == "idle"  # the dice pass left
    assert t.seat(1) == ("white", "steady")
    assert t.events("penalty")[-1][1] == {"seat": 3, "squares": 12}
    assert t.events("reveal")[-1][1]["positions"] == [0, 3, 0, -12]


@pytest.mark.parametrize("board", ["simulated", "cpx"])
def test_challenged_shown_in_sky_slow_and_only_the_parties_get_a_penalty(board):
    t = Table(board, players=5)
    t.ask()
    t.answer()  # 1
    t.answer()  # 2
    t.klaxon()  # 3 challenges 2
    assert t.seat(2) == ("sky", "slow") and t.seat(1) == ("yellow", "fast")
    t.wrong()  # seat 1: wrong, not a party: no penalty asked
    assert t.sim.device.r.u[layout.WHAT] == 0
    assert t.seat(1) == ("orange", "steady") and t.seat(2) == ("yellow", "fast")
    assert t.seat(3) == ("vermillion", "fast") and t.seat(4) == ("grey", "steady")
    t.right()  # seat 2 right
    assert t.seat(2) == ("green", "steady") and t.seat(3) == ("yellow", "fast")
    t.right()
    assert t.game.positions == [0, 0, 3, 3, 0]
    # between questions the parties are no longer shown: the QM (seat 1 now) alone lit
    assert t.game.phase == "idle" and t.game.challenged == 2
    assert [t.seat(s) for s in range(5)] == [("off", "steady"), ("white", "steady")] + \
        [("off", "steady")] * 3


def test_undo_a_mistaken_reveal_from_the_buttons():
    t = Table(players=3)
    t.ask()
    t.answer()
    t.answer()
    t.right()
    t.right()  # oops: seat 2 was wrong
    assert t.game.positions == [0, 3, 3] and t.game.qm == 1
    t.undo()  # one step back: into the reveal, before it was applied, its last mark off
    assert t.game.phase == "reveal" and t.game.positions == [0, 0, 0] and t.game.qm == 0
    t.wrong()  # (seat 1's right mark stays: only seat 2's is marked again)
    assert t.game.positions == [0, 3, 0] and t.game.qm == 1


def test_undo_one_mark_during_the_reveal_and_then_the_klaxon_itself():
    t = Table(players=3)
    t.ask()
    t.answer()
    t.klaxon()
    t.right()
    t.undo()  # the mark
    assert t.events("unmark")[-1][1] == {"seat": 1}
    assert t.seat(1) == ("yellow", "fast")
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
        t.pass_()  # nobody answered: nothing to mark, the question is over at the last pass
        assert t.game.qm == qm and t.game.phase == "idle"
        assert t.last_sound() == "done" and t.events("reveal")


def test_end_takes_a_long_hold_the_winners_blink_and_a_new_game_is_set_up_at_the_table():
    t = Table(players=3)
    t.ask()
    t.answer()
    t.pass_()
    t.right()  # seat 1 +3
    t.b(LONGER - 900)  # held 2.4 s: undo, not the end
    assert t.game.phase == "reveal"
    t.right()
    t.end()
    assert t.game.phase == "over" and t.game.winners == [1]
    assert t.seat(1) == ("green", "fast") and t.seat(0) == ("grey", "steady")
    t.klaxon()
    assert t.events("refused")[-1][1]["reason"] == "the game is over"
    t.a()  # A does nothing once it is over: the game stays, to be looked at
    t.b()
    assert t.game.phase == "over" and t.game.positions == [0, 3, 0]
    t.new_game()  # B held 2 s: set it up; A counts the players, B goes on
    assert t.events("players")[-1][1] == {"players": 3}
    t.a()
    t.a()  # 5 players
    t.b()
    assert t.events("first_qm")[-1][1] == {"seat": 0}
    t.a()
    t.a()  # seat 2 is the first QM
    t.b()
    assert t.game.phase == "idle" and t.game.players == 5 and t.game.qm == 2
    assert t.game.positions == [0] * 5
    t.undo()  # the new game undone: the old one is back, over
    assert t.game.phase == "over" and t.game.positions == [0, 3, 0]
    t.undo()  # the end undone
    assert t.game.phase == "idle" and t.game.positions == [0, 3, 0]


def test_actions_that_do_not_apply_are_denied_and_change_nothing():
    t = Table(players=3)
    t.undo()  # nothing to undo yet
    assert t.last_sound() == "denied"
    t.ask()
    t.miss_go()  # A held while answering: no other meaning there, so an answer (a slow tap)
    assert t.last_sound() == "blip" and t.game.answering == 2
    assert t.events("answer")[-1][1] == {"seat": 1}
    t.a(LONGER)  # held long: the same
    assert t.events("answer")[-1][1] == {"seat": 2} and t.game.phase == "reveal"
    t.klaxon()  # the answering is over
    assert t.last_sound() == "denied" and t.game.phase == "reveal"


def test_move_a_piece_forward_and_back_and_undo_it():
    t = Table(players=4)
    t.move()  # A held 2 s: which piece? the QM's first (seat 0), blinking white
    assert t.events("seat")[-1][1] == {"seat": 0}
    t.a()  # seat 1
    t.a()  # seat 2
    t.b()  # forward
    t.plus10()
    t.plus1()  # 11: from the light after seat 2's, which blinks orange (forward)
    scene = t.sim.scene()
    at = t.sim.pixel_of(2, 4)
    assert scene[at] == ("orange", "fast")
    assert [c for c, _ in scene[at + 1:at + 4]] == ["white", "orange", "off"]
    t.done()
    assert t.game.positions == [0, 0, 11, 0]
    assert t.events("move")[-1][1]["positions"] == [0, 0, 11, 0]
    t.move()
    t.a()
    t.a(LONG)  # seat 1, back
    t.plus1()
    t.plus1()
    t.done()
    assert t.game.positions == [0, -2, 11, 0]
    t.undo()
    assert t.game.positions == [0, 0, 11, 0]
    t.move()
    t.undo()  # one step of the entry back: no seat chosen, nothing moved
    assert t.events("back")
    assert t.game.positions == [0, 0, 11, 0] and t.sim.device.r.u[layout.WHAT] == 0


def test_a_klaxon_just_after_a_tap_counts_after_it():
    t = Table(players=4)
    t.ask()
    t.answer()  # seat 1
    # seat 2 taps A and seat 3 slams the Klaxon 120 ms after the tap began, while
    # A is still down: the tap counts first, then the Klaxon (3 challenges 2)
    t.sim.press("a", t.t, 150)
    t.sim.press("klaxon", t.t + 120, 100)
    t.sim.run_until_ms(t.t + 1000)
    assert t.events("answer")[-1][1] == {"seat": 2}
    assert t.events("klaxon")[-1][1] == {"challenger": 3, "challenged": 2}
    starts = [tt for tt, f in t.sim.named("sound") if f["name"] == "klaxon"]
    assert starts and starts[0] - (t.t + 120) <= 10  # and the klaxon is not kept waiting


def test_fewer_pixels_than_players_shows_the_first_seats():
    t = Table(players=10, settings="QK_PIXELS = 4\n")
    assert len(t.sim.scene()) == 4
    t.ask()
    assert [c for c, _ in t.sim.scene()] == ["white", "yellow", "off", "off"]


def test_console_lines_become_readable_sentences():
    import events as E

    recs = E.merge([(1, *E.parse("klaxon 3 1")), (2, *E.parse("reveal")),
                    (2, *E.parse("at 0 3 0 -12")), (3, *E.parse("klaxon sounded")),
                    (4, *E.parse("end")), (4, *E.parse("at 0 3 0 -12")),
                    (4, *E.parse("game over"))])
    assert [E.sentence(n, f) for _, n, f in recs] == [
        "KLAXON! seat 3 challenges seat 1", "revealed: positions [0, 3, 0, -12]", "KLAXON!",
        "game ended: positions [0, 3, 0, -12]; game over, winners [1]"]


def _script(lines, taps):
    t = 100
    for control, hold in taps:
        lines.append("%d down %s" % (t, control))
        lines.append("%d up %s" % (t + hold, control))
        t += hold + 500
    return lines


def _sim(*args, **kw):
    return subprocess.run([sys.executable, os.path.join(ROOT, "tools", "simulated", "sim.py")] + list(args),
                          capture_output=True, text=True, timeout=kw.get("timeout", 120),
                          stdin=subprocess.DEVNULL)


def test_a_full_scripted_game_through_the_simulator(tmp_path):
    script = tmp_path / "game.txt"
    lines = _script(["# a three-player game: two questions, then the end"], [
        ("b", 80),  # ask (QM 0)
        ("a", 80),  # seat 1 answers
        ("klaxon", 80),  # seat 2 challenges seat 1
        ("b", 80),  # seat 1 wrong: a party, so its penalty is asked
        ("a", 80), ("a", 80), ("a", 80),  # 3 squares, one tap each
        ("b", 80),  # done
        ("a", 80),  # seat 2 right -> reveal
        ("b", 80),  # ask (QM 1): seat 2 first
        ("a", 80),  # seat 2 answers
        ("a", 80),  # seat 0 answers
        ("a", 80),  # seat 2 right
        ("b", 80),  # seat 0 wrong
        ("b", LONGER)])  # end the game
    script.write_text("\n".join(lines) + "\n")
    wav = tmp_path / "out.wav"
    out = _sim("--script", str(script), "--players", "3", "--wav", str(wav))
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
    out = _sim("--script", str(script))
    assert out.returncode == 2 and "line 3" in out.stderr


def test_simulator_without_a_terminal_plays_the_demo_and_exits_0(tmp_path):
    out = _sim("--wav", str(tmp_path / "demo.wav"), timeout=60)
    assert out.returncode == 0, out.stderr
    assert '"event": "klaxon"' in out.stdout and (tmp_path / "demo.wav").exists()


def test_the_harness_palette_is_what_the_device_draws():
    """tools/simulated/harness.py's PALETTE names the device's colours (the sim and the docs' pictures
    use it): every colour number drawn steady comes out as that palette entry."""
    from harness import PALETTE

    sim = Sim(players=4)
    d = sim.device
    np = len(d.c) // 2
    for colour in range(len(PALETTE)):
        for i in range(np):
            d.c[i] = colour
            d.c[np + i] = 0
        d.draw(0)
        px = d.p[layout.PX]
        assert tuple(px[0]) == (PALETTE[colour] >> 16, PALETTE[colour] >> 8 & 255,
                                PALETTE[colour] & 255)
