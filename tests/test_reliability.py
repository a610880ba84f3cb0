"""Never lose a game, never misfire: the saved game through power cuts, changed
settings, bad stores, a stuck Klaxon and the 2**29 ms tick wrap, at the level of pins
and simulated time.

A power cut is a new ``Sim`` on the old one's flash (``nvm=old.nvm``): the board starts
again and qiklaxon/restore.py takes the saved game back. The game is saved
(``Referee.save``) 1 s after the last accepted press, with no console line: the tests
see the saves in the flash's own counts (``sim.nvm.ops``, ``.erases``).
"""

import pytest

from flashsim import FlashSim
from harness import Sim
from qiklaxon import restore
from qiklaxon.core import Referee
from test_table import Table
from model import layout  # noqa: E402  (the slots' names)

BOARDS = ["simulated", "cpb", "cpx", "pico"]


def strip(board):
    return "QK_PIXELS = 10\n" if board == "pico" else ""  # the Pico's strip is optional


def play_some(t):
    t.ask()
    t.answer()  # seat 1
    t.pass_()  # seat 2
    t.klaxon()  # seat 3 challenges seat 1


def at_table(sim, t_ms):
    """A ``Table`` on a running ``sim`` (the board after a power cut), from ``t_ms``."""
    t = Table.__new__(Table)
    t.sim, t.t = sim, t_ms
    return t


def faults(sim):
    return [line[7:] for _, line in sim.events if line.startswith("fault: ")]


def cleared(sim):
    """The "fault cleared: ..." lines (read from the console: tools/simulated/events.py parses
    them as "fault" events, not "fault_cleared")."""
    return [line[15:] for _, line in sim.events if line.startswith("fault cleared: ")]


def messages(sim):
    return [line for _, line in sim.events
            if not line.startswith(("new", "resumed", "at ", "klaxon", "ask", "answer"))]


@pytest.mark.parametrize("board", BOARDS)
def test_a_game_resumes_after_a_power_cut(board):
    t = Table(board, players=4, settings=strip(board))
    play_some(t)
    t.wait(1500)  # the save follows a second after the last change
    saved = t.game.to_bytes()
    after = Sim(strip(board), board_name=board, players=4, nvm=t.sim.nvm)  # power comes back
    assert after.game.to_bytes() == saved
    assert (after.game.challenger, after.game.challenged, after.game.phase) == (3, 1, "reveal")
    assert [f for _, f in after.named("resumed")] == [{"positions": [0, 0, 0, 0], "over": False}]
    assert after.named("new_game") == []
    assert after.named("error") == [] and faults(after) == []
    t2 = at_table(after, 100)
    if board != "pico":  # the ring shows the reveal where it was
        assert t2.seat(1) == ("yellow", "fast") and t2.seat(3) == ("vermillion", "fast")
    t2.right()  # the reveal goes on where it was
    t2.wrong()  # the challenger was wrong: its penalty is asked
    t2.b()  # none
    assert after.game.positions == [0, 3, 0, 0] and after.game.qm == 1
    t2.undo()  # and the undo log came back with it: the reveal is undone
    assert after.game.phase == "reveal" and after.game.positions == [0, 0, 0, 0]


def test_a_cut_within_the_save_delay_resumes_the_state_before():
    t = Table(players=4)
    t.ask()
    t.answer()
    t.wait(1500)
    before = t.game.to_bytes()
    ops = t.sim.nvm.ops
    t.sim.tap("b", t.t)  # seat 2 passes ...
    t.sim.run_until_ms(t.t + 600)  # ... and the power goes 0.5 s later, before the save
    assert t.sim.named("pass") and t.game.to_bytes() != before
    assert t.sim.nvm.ops == ops
    after = Sim(players=4, nvm=t.sim.nvm)
    assert after.game.to_bytes() == before
    assert (after.game.phase, after.game.answering) == ("answering", 2)


def test_saves_only_when_something_changed():
    t = Table(players=3)
    assert t.sim.nvm.ops == 0  # a new game is not written until something happens
    t.ask()
    t.wait(1500)
    ops = t.sim.nvm.ops
    assert ops > 0
    t.klaxon()  # refused (nobody has answered yet): nothing changes, nothing is written
    t.klaxon()  # again
    t.wait(3000)
    assert t.sim.named("refused") and t.sim.nvm.ops == ops
    t.answer()
    t.pass_()  # two changes within a second: one save, a second after the last
    t.wait(200)
    assert t.sim.nvm.ops == ops
    t.wait(1500)
    one_save = t.sim.nvm.ops - ops
    assert one_save > 0
    t.wait(60_000)  # idle: nothing more
    assert t.sim.nvm.ops == ops + one_save


def test_a_press_that_leaves_the_saved_game_as_it_was_writes_nothing():
    t = Table(players=4)
    play_some(t)  # seat 3 challenges seat 1: the reveal
    t.wait(1500)
    for press in (t.right, t.wrong, t.plus1):  # marks and a count: not in the record
        ops = t.sim.nvm.ops
        saved = restore.find(t.sim.nvm, True)[1]
        press()
        t.wait(1500)
        assert t.sim.nvm.ops == ops or restore.find(t.sim.nvm, True)[1] != saved


@pytest.mark.parametrize("junk", [b"\x00" * 4096, bytes(range(256)) * 16])
def test_a_corrupted_or_foreign_store_starts_a_new_game_and_then_saves(junk):
    flash = FlashSim("rp2040")
    flash.mem[:] = junk
    sim = Sim(players=4, nvm=flash)
    assert sim.game.phase == "idle" and sim.game.positions == [0, 0, 0, 0]
    assert sim.named("new_game") and sim.named("resumed") == []
    sim.tap("b", 100)  # ask
    sim.run_until_ms(2000)
    assert Sim(players=4, nvm=flash).game.phase == "answering"  # it saves from then on


@pytest.mark.parametrize("junk", [b"\x00" * 4096, bytes(range(256)) * 16])
def test_a_foreign_store_is_reported(junk):
    flash = FlashSim("rp2040")
    flash.mem[:] = junk
    sim = Sim(players=4, nvm=flash)
    assert messages(sim)


def damaged_store():
    """A record whose check is right but whose game is not one (12 players)."""
    flash = FlashSim("rp2040")
    r = Referee(4)
    r.j = restore.find(flash, True)[0]
    r.B[layout.PLAYERS] = 12
    r.save()
    return flash


def test_a_saved_game_that_is_not_a_game_starts_afresh_and_says_why():
    flash = damaged_store()
    sim = Sim(players=4, nvm=flash)
    assert messages(sim) == ["the saved game is damaged: a new game starts"]
    assert sim.game.phase == "idle" and sim.game.players == 4
    sim.tap("b", 200)  # and play goes on, and is saved over the damaged record
    sim.run_until_ms(2000)
    again = Sim(players=4, nvm=flash)
    assert again.game.phase == "answering" and messages(again) == []


def test_a_damaged_saved_game_flashes_purple_for_a_while():
    sim = Sim(players=4, nvm=damaged_store())
    sim.run_until_ms(300)
    assert "purple" in sim.ring()  # the purple flash: look at the console
    sim.run_until_ms(5000)
    assert sim.ring()[0] == "white"  # then the QM, the game


def test_a_changed_player_count_is_reported_and_the_saved_game_goes_on():
    t = Table(players=4)
    play_some(t)
    t.wait(1500)
    saved = t.game.to_bytes()
    sim = Sim(players=5, nvm=t.sim.nvm)
    assert sim.game.to_bytes() == saved and sim.game.players == 4
    (_, error), = sim.named("error")
    assert error["message"].startswith("settings.toml: QK_PLAYERS = 5")
    assert "the saved game has 4 players" in error["message"] and "goes on" in error["message"]
    t2 = at_table(sim, 100)
    t2.right()
    t2.right()  # the challenger was right
    assert sim.game.positions == [0, 3, 0, 3]


def test_a_changed_finish_is_reported_and_taken_by_the_next_new_game():
    t = Table(players=3)
    t.ask()
    t.answer()
    t.pass_()
    t.right()  # seat 1: +3
    t.wait(1500)
    # QK_FINISH set to 30 while the board was off
    sim = Sim("QK_FINISH = 30\n", players=3, nvm=t.sim.nvm)
    (_, error), = sim.named("error")
    assert "QK_FINISH = 30" in error["message"] and "finish 0" in error["message"]
    assert sim.game.finish is None and sim.game.positions == [0, 3, 0]  # the game goes on
    t2 = at_table(sim, 100)
    t2.end()
    t2.new_game()  # set up at the table: 3 players, the first QM, start
    t2.b()
    t2.b()
    assert sim.named("new_game") and sim.game.phase == "idle"
    assert sim.game.finish == 30 and sim.game.positions == [0, 0, 0]
    t2.wait(1500)
    # and after the next power cut: the new game, finish 30, nothing to report
    again = Sim("QK_FINISH = 30\n", players=3, nvm=sim.nvm)
    assert again.game.finish == 30 and again.named("resumed") and again.named("error") == []
    t3 = at_table(again, 100)
    t3.move()  # seat 1 moved 30 forward: it reaches the finish, and the game is over
    t3.a()
    t3.b()
    for _ in range(3):
        t3.plus10()
    t3.done()
    assert again.game.positions == [0, 30, 0] and again.game.phase == "over"
    assert again.named("move")[-1][1]["over"] is True


def test_a_finish_changed_twice_without_a_new_game_is_reported_each_time():
    t = Table(players=3)
    t.ask()
    t.wait(1500)
    first = Sim("QK_FINISH = 30\n", players=3, nvm=t.sim.nvm)
    second = Sim("QK_FINISH = 30\n", players=3, nvm=first.nvm)
    assert first.named("error") and second.named("error")  # never silently dropped
    assert second.game.finish is None and second.game.phase == "answering"


def test_a_stuck_klaxon_stops_the_sound_shows_a_fault_and_never_retriggers():
    sim = Sim("QK_STUCK_S = 2\n", klaxon_only=True)
    sim.press("klaxon", 100, 6000)  # a child leans on it for six seconds
    sim.run_until_ms(500)
    assert sim.device.f[layout.CUR] == 0 and sim.speaker_enabled()  # the klaxon sounds (1.3 s) ...
    sim.run_until_ms(2500)
    assert faults(sim) == ["the Klaxon is stuck down; check its wiring"]
    assert set(sim.scene()) == {("purple", "fast")}
    assert sim.speaker_enabled() is False and sim.device.f[layout.CUR] == layout.NONE  # ... and no more
    sim.run_until_ms(6000)
    assert len(sim.named("klaxon")) == 1 and len(sim.sounds()) == 1  # the one press only
    assert cleared(sim) == []
    sim.run_until_ms(6300)  # released
    assert cleared(sim) == ["the Klaxon is released"]
    assert set(sim.scene()) == {("off", "steady")}
    sim.press("klaxon", 6500, 100)
    sim.run_until_ms(6700)
    assert len(sim.named("klaxon")) == 2 and len(sim.sounds()) == 2  # works again


def test_a_klaxon_held_down_at_power_on_is_a_fault_not_a_klaxon():
    sim = Sim(klaxon_only=True, held=("klaxon",))
    assert faults(sim) == ["the Klaxon is held down at power-on; release it"]
    sim.run_until_ms(100)
    assert set(sim.scene()) == {("purple", "fast")}
    sim.level("klaxon", 3_000_000, False)
    sim.run_until_ms(2900)
    assert sim.named("klaxon") == [] and sim.sounds() == []
    sim.run_until_ms(3100)
    assert cleared(sim) == ["the Klaxon is released"]
    sim.press("klaxon", 3500, 100)
    sim.run_until_ms(4000)
    assert len(sim.named("klaxon")) == 1 and [n for _, n in sim.sounds()] == ["klaxon"]


def test_a_stuck_klaxon_leaves_the_other_buttons_working():
    t = Table(players=3, settings="QK_STUCK_S = 2\n")
    t.sim.press("klaxon", 50, 20_000)  # a try (no question yet), then stuck
    t.t = 2500
    t.ask()
    t.answer()
    assert t.game.phase == "answering" and t.game.answering == 2
    assert faults(t.sim) == ["the Klaxon is stuck down; check its wiring"]
    assert [f for _, f in t.sim.named("klaxon")] == [{}]  # the try, once


def test_a_game_across_the_tick_wrap_is_the_game_without_it():
    def play(start_ms):
        t = Table(players=4, start_ms=start_ms)
        play_some(t)
        t.right()
        t.wrong()
        t.a()  # the challenger's penalty: 1
        t.b()
        t.sim.press("klaxon", t.t, 100)  # refused: between questions
        t.t += 300
        t.undo()
        t.sim.run_until_ms(t.t + 2000)
        return t.sim.canonical(), t.game.to_bytes(), t.sim.sound_starts_us(), t.sim.nvm.ops

    far = play(1_000_000)
    wrapping = play((1 << 29) - 3000)  # ticks_ms wraps 3 s after power-on, mid-question
    assert wrapping == far
    assert any(" klaxon 3 1" in line for line in far[0])
    assert any(" undo" in line for line in far[0]) and far[3] > 0


class CountingFlash(FlashSim):
    """The board's nvm, counting its writes (one a save)."""

    writes = 0

    def __setitem__(self, key, data):
        self.writes += 1
        super().__setitem__(key, data)


@pytest.mark.parametrize("board, chip, log", [("cpb", "nrf52840", False), ("pico", "rp2040", True),
                                              ("cpx", "samd21", False)])
@pytest.mark.parametrize("pace", ["brisk", "slow"])
def test_flash_wear_per_question(board, chip, log, pace, capsys):
    """Erases and flash operations per question at a 6-player table (for the README's
    table). Brisk: presses under a second apart, so one save after the question's last;
    slow: 1.5 s between presses, so a save after every change (the worst case)."""
    flash = CountingFlash(chip)
    t = Table(board, players=6, settings=strip(board), nvm=flash)
    gap = 500 if pace == "brisk" else 1400
    questions = 10
    for q in range(questions):
        t.press("b", gap=gap)  # ask
        t.press("a", gap=gap)  # answer
        t.press("a", gap=gap)  # answer
        t.klaxon()  # the third challenges the second
        t.wait(gap - 300 + 80)
        t.press("a", gap=gap)  # the first answer right
        t.press("b", gap=gap)  # the challenged wrong: its penalty is asked
        t.press("b", gap=gap)  # none
        t.press("a", gap=gap)  # the challenger right: the reveal
        t.wait(1500)
    assert t.game.qm == questions % 6 and len(t.sim.named("reveal")) == questions
    assert t.sim.named("refused") == []
    saves = flash.writes / questions
    erases = sum(flash.erases) / questions
    ops = flash.ops / questions
    more = "; %d saves a compaction" % (flash.writes / sum(flash.erases)) if log and erases else ""
    with capsys.disabled():
        print("\n%s (%s) %s: %.1f saves, %.2f erases, %.1f flash operations per question%s" % (
            board, chip, pace, saves, erases, ops, more))
    # one save a question; or one a change of the game (ask, two answers, the Klaxon, the
    # reveal): marks and counts being entered are not the saved game, so they write nothing
    assert saves == (1 if pace == "brisk" else 5)
    if log:
        assert erases < 0.3  # appends; a compaction now and then
    else:
        assert erases == saves  # one page or row erased per save
