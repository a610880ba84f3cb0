"""Never lose a game, never misfire: the saved game through power cuts, a stuck button,
bad stores, and the 2**29 ms tick wrap, at the level of pins and simulated time."""

import pytest

from flashsim import FlashSim
from harness import Sim
from test_table import Table


def play_some(t):
    t.ask()
    t.answer()  # seat 1
    t.pass_()  # seat 2
    t.klaxon()  # seat 3 challenges seat 1


@pytest.mark.parametrize("board", ["simulated", "cpb", "cpx", "pico"])
def test_a_game_resumes_after_a_power_cut(board):
    t = Table(board, players=4)
    play_some(t)
    t.wait(1500)  # the save follows a second after the last change
    saved = t.game.to_bytes()
    assert t.sim.named("saved")
    after = Sim(board_name=board, players=4, nvm=t.sim.nvm)  # power comes back
    assert after.game.to_bytes() == saved
    assert (after.game.challenger, after.game.challenged, after.game.phase) == (3, 1, "reveal")
    assert after.named("resumed")[0][1]["phase"] == "reveal"
    assert after.named("error") == []
    t2 = Table.__new__(Table)
    t2.sim, t2.t = after, 100
    t2.right()  # the reveal goes on where it was
    t2.wrong()  # the challenger was wrong: the penalty is asked
    t2.b()  # none
    assert after.game.positions == [0, 3, 0, 0]


def test_a_cut_within_the_save_delay_resumes_the_state_before():
    t = Table(players=4)
    t.ask()
    t.answer()
    t.wait(1500)
    before = t.game.to_bytes()
    t.sim.tap("b", t.t)  # seat 2 passes ...
    t.sim.run_until_ms(t.t + 600)  # ... and the power goes 0.3 s later, before the save
    assert t.game.to_bytes() != before
    after = Sim(players=4, nvm=t.sim.nvm)
    assert after.game.to_bytes() == before


def test_saves_only_when_something_changed():
    t = Table(players=3)
    t.ask()
    t.wait(1500)
    n = len(t.sim.named("saved"))
    t.klaxon()  # refused: nothing changes, nothing is written
    t.wait(3000)
    assert len(t.sim.named("saved")) == n


@pytest.mark.parametrize("junk", [b"\x00" * 4096, bytes(range(256)) * 16])
def test_a_corrupted_or_foreign_store_starts_a_new_game_with_a_message(junk):
    flash = FlashSim("rp2040")
    flash.mem[:] = junk
    sim = Sim(players=4, nvm=flash)
    assert sim.game.phase == "idle" and sim.game.positions == [0, 0, 0, 0]
    sim.tap("b", 100)
    sim.run_until_ms(2000)
    assert Sim(players=4, nvm=flash).game.phase == "answering"  # and it saves from then on


def test_a_saved_game_that_does_not_decode_starts_afresh_and_says_why():
    from qiklaxon.journal import LOG, Journal

    flash = FlashSim("rp2040")
    Journal(flash, LOG).save(b"\x01\x04\x00\x09")  # a valid record, but not a valid game
    sim = Sim(players=4, nvm=flash)
    messages = [f["message"] for _, f in sim.named("error")]
    assert any("not a saved QI Klaxon game" in m for m in messages)
    assert sim.game.phase == "idle"


def test_changing_the_player_count_starts_a_new_game():
    t = Table(players=4)
    play_some(t)
    t.wait(1500)
    sim = Sim(players=5, nvm=t.sim.nvm)
    assert sim.game.players == 5 and sim.game.phase == "idle"
    assert any("QK_PLAYERS is 5" in f["message"] for _, f in sim.named("error"))


def test_a_stuck_klaxon_stops_the_sound_shows_a_fault_and_never_retriggers():
    sim = Sim("QK_STUCK_S = 2\n", klaxon_only=True)
    sim.press("klaxon", 100, 6000)  # a child leans on it for six seconds
    sim.run_until_ms(2500)
    assert len(sim.named("fault")) == 1
    assert set(c for c, _ in sim.scene()) == {"purple"}
    assert sim.speaker_enabled() is False and sim.device.sound.current == -1
    sim.run_until_ms(6000)
    assert len(sim.named("klaxon")) == 1  # the one press, and nothing more
    sim.run_until_ms(6300)  # released
    assert sim.named("fault_cleared")
    sim.press("klaxon", 6500, 100)
    sim.run_until_ms(6700)
    assert len(sim.named("klaxon")) == 2  # works again


def test_a_klaxon_held_down_at_power_on_is_a_fault_not_a_klaxon():
    sim = Sim(klaxon_only=True, held=("klaxon",))
    sim.level("klaxon", 3_000_000, False)
    sim.run_until_ms(2000)
    assert sim.named("klaxon") == [] and sim.named("fault")
    sim.press("klaxon", 3500, 100)
    sim.run_until_ms(4000)
    assert len(sim.named("klaxon")) == 1


def test_a_stuck_klaxon_leaves_the_other_buttons_working():
    t = Table(players=3, settings="QK_STUCK_S = 2\n")
    t.sim.press("klaxon", 50, 20_000)
    t.t = 2500
    t.ask()
    t.answer()
    assert t.game.phase == "answering" and t.game.answering == 2


def test_a_game_across_the_tick_wrap_is_the_game_without_it():
    def play(start_ms):
        t = Table(players=4, start_ms=start_ms)
        play_some(t)
        t.right()
        t.wrong()
        t.a()
        t.b()
        t.sim.press("klaxon", t.t, 100)
        t.sim.run_until_ms(t.t + 2000)
        return t.sim.canonical(), t.game.to_bytes()

    far = play(1_000_000)
    wrapping = play((1 << 29) - 3000)  # ticks_ms wraps 3 s after power-on, mid-question
    assert wrapping == far
    assert any(" klaxon " in line for line in far[0])


@pytest.mark.parametrize("board, chip, layout", [("cpb", "nrf52840", "pingpong"),
                                                 ("pico", "rp2040", "log"),
                                                 ("cpx", "samd21", "pingpong")])
def test_flash_wear_per_question(board, chip, layout):
    """Erases and bytes written per question at a 6-player table (for the README's table)."""
    strip = "QK_PIXELS = 10\n" if board == "pico" else ""
    t = Table(board, players=6, settings=strip)
    questions = 20
    for q in range(questions):
        t.ask()
        t.answer()
        t.answer()
        t.klaxon()
        t.right()
        t.wrong()
        t.b()  # no penalty
        t.right()
        t.wait(1500)
    flash = t.sim.nvm
    erases = sum(flash.erases) / questions
    journal = t.sim.device.journal
    per_q = journal.bytes_written / questions
    print("%s: %.1f saves, %.2f erases, %.0f bytes per question" % (
        board, journal.writes / questions, erases, per_q))
    if layout == "log":
        assert erases < 0.5  # appends: a compaction every ~130 saves
    else:
        assert erases <= journal.writes / questions + 0.01  # one page or row per save
    assert t.game.qm == questions % 6
