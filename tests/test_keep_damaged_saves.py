"""A saved game that is damaged, torn, foreign or written by another version: at power-up
the board says so on its console, flashes purple for two seconds and starts a new game
from settings.toml, which plays; never a traceback, never a stale game. And the records
at the edges of what a saved game may hold (two players, three sixes, an empty or a full
log, the ends of the 16-bit positions, a finish past 255) resume as they were.

The records are the board's own (``Referee.save``, read back by qiklaxon/restore.py at
power-up); a record that "checks but is not a game" is one of them with its body edited
and its check made anew, as a bug in another firmware or a foreign program would leave
it."""

import random

import pytest

import harness
import scenario
from harness import Sim
from qiklaxon import layout as Y
from qiklaxon.core import check

DAMAGED = "the saved game is damaged: a new game starts"
FOREIGN = "nvm holds no valid saved game (damaged or foreign data): a new game starts"
NEW = ["new", "at 0 0 0 0"]  # a new game of 4, as the console says it


def played(players=4, board="simulated", settings=""):
    """A game on ``board``: a question asked and answered, then saved (a second after)."""
    sim = Sim(settings, players=players, board_name=board)
    sim.tap("b", 200)  # ask
    sim.tap("a", 700)  # the QM's left answers
    sim.run_until_ms(3000)
    assert sim.device.r.j[Y.J_SEQ] >= 0, "not saved"
    return sim


def power_up(sim, players=4, settings="", ms=300):
    """The same board switched off and on again: the new device, run for ``ms``."""
    after = Sim(settings, players=players, board_name=sim.board_name, nvm=sim.nvm)
    after.run_until_ms(ms)
    return after


def lines(sim):
    return [x for _, x in sim.events]


def newest(sim):
    """(start, end) of the newest record in the board's nvm."""
    at = sim.device.r.j[Y.J_AT]
    return at, at + Y.R_MORE + sim.nvm[at + Y.R_LEN]


def reseal(sim, edit):
    """The newest record's body edited by ``edit(body)`` (a bytearray it may lengthen or
    shorten), written back in its place as a record whose check matches."""
    at, end = newest(sim)
    rec = sim.nvm.mem[at:end]
    body = bytearray(rec[Y.R_BODY:-3])
    edit(body)
    new = bytearray(rec[:Y.R_BODY]) + body + b"\x00\x00\x00"
    new[Y.R_LEN] = len(body)
    c = check(new, len(new) - 3)
    new[-3], new[-2] = c >> 8, c & 255
    sim.nvm.mem[at:max(end, at + len(new))] = new + b"\xff" * (end - at - len(new))


def assert_a_new_game(after, said, players=4):
    """The board said ``said`` and started a new game of ``players`` from settings.toml,
    flashing purple for its first two seconds (said is None: it said nothing, no flash)."""
    head = [said] if said else []
    assert lines(after)[:3] == head + ["new", "at" + " 0" * players], lines(after)
    g = after.game
    assert (g.players, g.qm, g.phase, g.positions) == (players, 0, "idle", [0] * players)
    flash = after.ring()
    assert flash == (["purple"] * 10 if said else ["white"] + ["off"] * 9), flash


def assert_it_plays(after, players=4):
    """The new game plays: a question, an answer, a Klaxon that challenges it."""
    t = after.now_ms
    after.tap("b", t + 100)  # ask
    after.tap("a", t + 500)  # seat 1 answers
    after.press("klaxon", t + 1000)  # seat 2 challenges it
    after.run_until_ms(t + 2200)
    assert [f for _, f in after.named("klaxon")] == [{"challenger": 2, "challenged": 1}]
    assert after.sounds()[-1][1] == "klaxon"


# ------------------------------------------------------------------ torn, flipped, foreign
@pytest.mark.parametrize("board", ["simulated", "cpx"])
def test_a_record_with_any_byte_flipped_is_not_resumed(board):
    """One bit of the only saved game flipped, wherever it is (its header, its state,
    its positions, its log, its check, its final byte): power-up says the nvm holds no
    valid saved game and starts a new game, purple flashing."""
    sim = played(board=board)
    at, end = newest(sim)
    good = bytes(sim.nvm.mem)
    for i in range(at, end):
        sim.nvm.mem[:] = good
        sim.nvm.mem[i] ^= 1 << i % 8  # a bit of each byte, the lowest to the highest in turn
        after = power_up(sim, ms=20)
        assert_a_new_game(after, FOREIGN)


def test_a_record_cut_short_is_not_resumed():
    """A save the power cut part-way (its end still erased) is no saved game: from any
    length on, power-up says so and starts a new game; with nothing written (an erased
    store) it starts one and says nothing."""
    sim = played()
    at, end = newest(sim)
    good = bytes(sim.nvm.mem)
    for kept in range(end - at):
        sim.nvm.mem[:] = good
        sim.nvm.mem[at + kept:end] = b"\xff" * (end - at - kept)
        after = power_up(sim, ms=20)
        assert_a_new_game(after, FOREIGN if kept else None)


def test_a_board_with_no_nvm_says_a_power_cut_loses_the_game_and_plays(monkeypatch):
    """A build whose CircuitPython has no ``microcontroller.nvm`` (None): the board says
    it has nowhere to save, flashes purple, and the game plays, never saving."""
    monkeypatch.setattr(harness, "FlashSim", lambda chip: None)
    sim = Sim(players=4)
    sim.run_until_ms(100)
    said = lines(sim)
    assert said[0].startswith("no saved game here (") and said[0].endswith(
        "): a power cut loses the game"), said
    assert said[1:] == NEW, said
    assert sim.ring() == ["purple"] * 10
    assert_it_plays(sim)
    sim.run_until_ms(sim.now_ms + 3000)  # a save would be due: there is nowhere to save
    assert sim.device.r.j is None and DAMAGED not in lines(sim)


def test_a_record_start_whose_length_runs_past_the_end_of_nvm_is_foreign_data():
    """Bytes at the very end of nvm that begin like a record (its mark, a number, a
    length) but would run past the end, by a few bytes or by far: no saved game, and
    power-up says the nvm holds foreign data; never a traceback."""
    for board, at, length in (("simulated", -7, 5), ("simulated", -20, 255), ("cpx", 128, 125),
                              ("cpx", 128, 255)):
        sim = Sim(players=4, board_name=board)
        at %= len(sim.nvm)
        sim.nvm.mem[at:] = bytes([Y.MAGIC, 0, 1, length]) + bytes(len(sim.nvm) - at - 4)
        after = power_up(sim, ms=20)
        assert lines(after)[:1] == [FOREIGN], (board, at, length)
        assert_a_new_game(after, FOREIGN)


def test_a_record_with_no_body_at_the_very_end_of_nvm_is_a_damaged_game():
    """A record that checks but holds nothing (no version, no game), in the last 7
    bytes of a Pico's log: the saved game is damaged, and a new game starts."""
    sim = Sim(players=4)
    rec = bytearray([Y.MAGIC, 0, 1, 0, 0, 0, 0])
    c = check(rec, 4)
    rec[4], rec[5] = c >> 8, c & 255
    sim.nvm.mem[-7:] = rec
    assert_a_new_game(power_up(sim, ms=20), DAMAGED)


# ------------------------------------------------------------------ checks, but not a game
def _set(slot, value):
    def edit(body):
        body[Y.BODY_B + slot] = value
    return edit


def _parties(challenger, challenged):
    def edit(body):
        body[Y.BODY_B + Y.CHALLENGER] = challenger
        body[Y.BODY_B + Y.CHALLENGED] = challenged
    return edit


def _position(seat, squares):
    def edit(body):
        v = squares & 0xFFFF
        body[Y.BODY_Q + 2 * seat] = v & 255
        body[Y.BODY_Q + 2 * seat + 1] = v >> 8
    return edit


def _finish(square):
    def edit(body):
        body[Y.BODY_B + Y.FINISH] = square >> 8
        body[Y.BODY_B + Y.FINISH_LO] = square & 255
    return edit


def _version(v):
    def edit(body):
        body[0] = v
    return edit


def _log_of(n):
    """The log made ``n`` bytes of 4-player questions everyone passed (ask, pass, pass,
    pass), the last question answered by the QM's left then passed."""
    def edit(body):
        del body[Y.BODY_LOG:]
        body += (bytes([2, 4, 4, 4] * 20)[:n - 4] + bytes([2, 3, 4, 4]))[:n]
    return edit


NOT_A_GAME = {
    "an older version": _version(Y.VERSION - 1),
    "a newer version": _version(Y.VERSION + 1),
    "a body too short for a game": lambda body: body.__delitem__(slice(Y.BODY_LOG - 1, None)),
    "a log longer than the log": _log_of(Y.LOG_SIZE + 1),
    "one player": _set(Y.PLAYERS, 1),
    "eleven players": _set(Y.PLAYERS, 11),
    "the QM not a seat": _set(Y.QM, 4),
    "answering, in a state between questions": _set(Y.PHASE, 1),
    "the reveal, in a state between questions": _set(Y.PHASE, 2),
    "someone's turn between questions": _set(Y.TURN, 1),
    "a roll no dice make": _set(Y.ROLL, 216),
    "a roll far past the dice": _set(Y.ROLL, 254),
    "a finish past 9999": _finish(10000),
    "a challenged and no challenger": _parties(Y.NONE, 1),
    "a challenger and no challenged": _parties(1, Y.NONE),
    "a challenger not a seat": _parties(4, 1),
    "a challenged not a seat": _parties(1, 4),
    "one seat both parties": _parties(2, 2),
    "a seat did what nobody does": _set(Y.DID + 1, 3),
    "a seat past the players answered": _set(Y.DID + 5, 1),
    "a piece on the first seat past the players": _position(4, 5),
    "a piece on the last seat": _position(9, -1),
}


def test_a_record_that_checks_but_is_not_a_game_starts_a_new_game():
    """Power-up finds a record whose check matches but whose game cannot be (each of
    NOT_A_GAME): it says the saved game is damaged and starts a new game, purple flashing."""
    for what, edit in NOT_A_GAME.items():
        sim = played()
        reseal(sim, edit)
        after = power_up(sim, ms=20)
        assert lines(after)[:1] == [DAMAGED], what
        assert_a_new_game(after, DAMAGED)


def test_after_a_damaged_save_the_new_game_plays_and_rolls_its_dice():
    """After "the saved game is damaged" the new game is a whole game: the flash ends
    two seconds on, the QM rolls the board's dice, a question is asked and the Klaxon
    challenges an answer."""
    sim = played()
    reseal(sim, _set(Y.QM, 7))
    after = power_up(sim, ms=2100)
    assert lines(after)[:3] == [DAMAGED] + NEW
    assert after.ring()[0] == "white"
    after.tap("a", 2200)  # roll
    after.run_until_ms(2600)
    die = scenario.dice(1)  # the harness's die, seed 1: this board's
    assert [f["dice"] for _, f in after.named("roll")] == [[die(1, 6), die(1, 6), die(1, 6)]]
    assert_it_plays(after)


# ------------------------------------------------------------------ the edges that resume
def test_a_two_player_game_resumes():
    sim = played(players=2)
    after = power_up(sim, players=2)
    assert lines(after)[0] == "resumed"
    assert (after.game.players, after.game.phase) == (2, "reveal")
    assert after.game.positions == sim.game.positions


def test_a_game_saved_before_any_action_resumes():
    """Saved with nothing in its log (a new game, nothing done yet), it resumes."""
    sim = Sim(players=5)
    sim.run_until_ms(100)
    sim.game.core.save()
    after = power_up(sim, players=5)
    assert lines(after) == ["resumed", "at 0 0 0 0 0"]


def test_a_game_whose_log_is_full_resumes():
    """The log holds at most 64 bytes: a saved game with all of them in use (15
    questions everyone passed, then one answered) resumes where it was: the reveal."""
    sim = played(players=4)
    reseal(sim, _log_of(Y.LOG_SIZE))
    after = power_up(sim)
    assert lines(after)[0] == "resumed"
    assert (after.game.phase, after.game.qm, after.game.mark(0)) == ("reveal", 3, 1)


def test_a_game_that_rolled_three_sixes_resumes_showing_question_666():
    sim = played()
    reseal(sim, _set(Y.ROLL, 215))  # red 6, white 6, blue 6
    after = power_up(sim)
    assert lines(after)[0] == "resumed" and after.game.question == 666


def test_a_game_over_when_saved_resumes_over_showing_the_winner():
    """A record whose state is a game over with an empty log (as a log folded at the end
    leaves it): it resumes over, the leader's seat blinking green."""
    sim = Sim(players=3)
    sim.run_until_ms(100)
    g = sim.game
    g.move(1, 4)
    g.end()
    r = g.core
    r.B[:] = r.S  # the log folded into the state: nothing left to replay
    r.Q[:] = r.P
    r.n = 0
    r.save()
    after = power_up(sim, players=3, ms=1500)
    assert lines(after)[0] == "resumed" and after.game.phase == "over"
    assert [after.scene()[after.pixel_of(s, 3)][0] for s in range(3)] == ["grey", "green", "grey"]


def test_positions_at_the_ends_of_16_bits_resume():
    """Positions are saved in 16 bits: a piece as far forward as a position goes
    (32,767) and pieces behind the start as far as 16 bits go resume exactly."""
    sim = played()
    for seat, squares in ((0, 32767), (1, -32767), (2, -32768), (3, 32766)):
        reseal(sim, _position(seat, squares))
    after = power_up(sim)
    assert lines(after)[0] == "resumed"
    assert after.game.positions == [32767, -32767, -32768, 32766]


def test_a_finish_past_255_resumes_and_the_settings_message_gives_it():
    """QK_FINISH past one byte (300): with the same settings the game resumes and
    nothing is said; with other settings the console gives both, and the game goes on."""
    sim = played(settings="QK_FINISH = 300\n")
    same = power_up(sim, settings="QK_FINISH = 300\n")
    assert lines(same)[:1] == ["resumed"] and same.game.finish == 300
    assert not [x for x in lines(same) if x.startswith("settings.toml")]
    other = power_up(sim, players=5, settings="QK_FINISH = 9999\n")
    assert lines(other)[0] == (
        "settings.toml: QK_PLAYERS = 5, QK_FINISH = 9999; the saved game has 4 players and "
        "finish 300, and goes on; the next new game takes QK_FINISH (its players are set "
        "at the table)")
    assert lines(other)[1] == "resumed" and other.game.finish == 300


def test_a_finish_of_9999_resumes():
    sim = played(settings="QK_FINISH = 9999\n")
    after = power_up(sim, settings="QK_FINISH = 9999\n")
    assert lines(after)[0] == "resumed" and after.game.finish == 9999


# ------------------------------------------------------------------ the dice
def _rolls(sim, times=4):
    for i in range(times):
        sim.tap("a", 200 + 600 * i)  # roll, roll again
    sim.run_until_ms(200 + 600 * times)
    return [tuple(f["dice"]) for _, f in sim.named("roll")]


def test_a_board_rolls_with_the_die_it_was_given():
    """The harness gives the board a seeded die (scenario.dice): the same seed rolls the
    same dice, another seed others, so a scripted game repeats (the page, the lanes)."""
    one = _rolls(Sim(players=4, seed=3))
    again = _rolls(Sim(players=4, seed=3))
    other = _rolls(Sim(players=4, seed=4))
    assert len(one) == 4 and one == again and one != other


def test_a_board_with_no_die_given_rolls_with_random(monkeypatch):
    """On a real board no die is given: the rolls are ``random.randint``'s."""
    monkeypatch.setattr(scenario, "dice", lambda seed: None)
    random.seed(26)
    want = [tuple(random.randint(1, 6) for _ in range(3)) for _ in range(4)]
    random.seed(26)
    assert _rolls(Sim(players=4)) == want
