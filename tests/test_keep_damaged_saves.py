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
from flashsim import FlashSim
from harness import Sim
from model import layout as Y
from qiklaxon import restore
from qiklaxon.core import Referee, check
from model.game import Game
from test_power_cuts import LOG

DAMAGED = "the saved game is damaged: a new game starts"
FOREIGN = "nvm holds no valid saved game (damaged or foreign data): a new game starts"
NEW = ["new", "at 0 0 0 0"]  # a new game of 4, as the console says it


def stored(players=4, board="rp2040", act=True):
    """A board's nvm (``board``: its chip) holding one saved game: a question asked and
    answered (``act``), or nothing done yet. Returns (the nvm, the game)."""
    flash = FlashSim(board)
    g = Game(players)
    g.core.j = restore.find(flash, LOG[board])[0]
    if act:
        g.ask()
        g.answer()
    g.core.save()
    return flash, g


def power_up_reads(flash, board="rp2040", players=4):
    """What power-up makes of the nvm (restore.find, then restore.load): the game it
    resumes, or None (no valid record), or False (a record that is no game)."""
    saved = restore.find(flash, LOG[board])[1]
    if saved is None:
        return None
    r = Referee(players)
    return r if restore.load(r, saved) else False


def reseal(flash, at, edit):
    """The record at ``at``: its body edited by ``edit(body)`` (a bytearray it may
    lengthen or shorten), written back in its place as a record whose check matches."""
    end = at + Y.R_MORE + flash[at + Y.R_LEN]
    rec = flash.mem[at:end]
    body = bytearray(rec[Y.R_BODY:-3])
    edit(body)
    new = bytearray(rec[:Y.R_BODY]) + body + b"\x00\x00\x00"
    new[Y.R_LEN] = len(body)
    c = check(new, len(new) - 3)
    new[-3], new[-2] = c >> 8, c & 255
    flash.mem[at:max(end, at + len(new))] = new + b"\xff" * (end - at - len(new))


def state(r):
    return bytes(r.S), list(r.P)


def on_the_board(players=4, board="simulated", settings="", act=True, seed=1):
    """The simulated device, a question asked and answered (``act``) and saved."""
    sim = Sim(settings, players=players, board_name=board, seed=seed)
    sim.run_until_ms(10)
    if act:
        sim.game.ask()
        sim.game.answer()
    sim.device.r.save()
    return sim


def power_up(sim, players=4, settings="", ms=20):
    """The same board switched off and on again: the new device, run for ``ms``."""
    after = Sim(settings, players=players, board_name=sim.board_name, nvm=sim.nvm)
    after.run_until_ms(ms)
    return after


def lines(sim):
    return [x for _, x in sim.events]


def newest(sim):
    """(start, end) of the newest record in the simulated board's nvm."""
    at = sim.device.r.j[Y.J_AT]
    return at, at + Y.R_MORE + sim.nvm[at + Y.R_LEN]


def assert_a_new_game(after, said, players=4):
    """The board said ``said`` and started a new game of ``players`` from settings.toml,
    flashing purple (said is None: it said nothing, and shows the QM)."""
    head = [said] if said else []
    assert lines(after)[:3] == head + ["new", "at" + " 0" * players], lines(after)
    g = after.game
    assert (g.players, g.qm, g.phase, g.positions) == (players, 0, "idle", [0] * players)
    flash = after.ring()
    assert flash == (["purple"] * 10 if said else ["white"] + ["off"] * 9), flash


def assert_it_plays(after):
    """The new game plays: a question, an answer, a Klaxon that challenges it."""
    t = after.now_ms
    after.tap("b", t + 100)  # ask
    after.tap("a", t + 500)  # seat 1 answers
    after.press("klaxon", t + 1000)  # seat 2 challenges it
    after.run_until_ms(t + 1200)
    assert [f for _, f in after.named("klaxon")] == [{"challenger": 2, "challenged": 1}]
    assert after.sounds()[-1][1] == "klaxon"


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


def _slots(n):
    def edit(body):
        body[Y.BODY_NB] = n
    return edit


def _log_of(n):
    """The log made ``n`` bytes of 4-player questions everyone passed (ask, pass, pass,
    pass), the last question answered by the QM's left then passed."""
    def edit(body):
        del body[Y.BODY_LOG:]
        body += (bytes([2, 4, 4, 4] * 20)[:n - 4] + bytes([2, 3, 4, 4]))[:n]
    return edit


NOT_A_GAME = {
    "an older version": _version(Y.V2 - 1),  # (2 loads: test_keep_saves_across_updates.py)
    "a newer version": _version(Y.VERSION + 1),
    "no state slots": _slots(0),
    "fewer state slots than any version held": _slots(Y.V2_SLOTS - 1),
    "more state slots than the body holds": _slots(Y.BODY_LOG - Y.BODY_B + 1),
    "255 state slots": _slots(255),
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


# ------------------------------------------------------------------ what power-up reads
@pytest.mark.parametrize("board", ["rp2040", "samd21"])
def test_no_flipped_bit_and_no_cut_leaves_a_saved_game(board):
    """The only record, one bit of any of its bytes flipped (the lowest to the highest
    bit in turn), or cut short at any length (its end still erased): no saved game."""
    flash, g = stored(board=board)
    at = g.core.j[Y.J_AT]
    end = at + Y.R_MORE + flash[at + Y.R_LEN]
    good = bytes(flash.mem)
    assert state(power_up_reads(flash, board)) == state(g.core)
    for i in range(at, end):
        flash.mem[:] = good
        flash.mem[i] ^= 1 << i % 8
        assert power_up_reads(flash, board) is None, "byte %d flipped" % (i - at)
        flash.mem[:] = good
        flash.mem[i:end] = b"\xff" * (end - i)
        assert power_up_reads(flash, board) is None, "cut after %d bytes" % (i - at)


def test_records_that_check_but_are_no_game_are_refused():
    """Each of NOT_A_GAME, its check made to match: power-up refuses it as a game."""
    flash, g = stored()
    good = bytes(flash.mem)
    for what, edit in NOT_A_GAME.items():
        flash.mem[:] = good
        reseal(flash, 0, edit)
        assert power_up_reads(flash) is False, what


def test_the_records_at_the_edges_of_a_saved_game_resume():
    """Two players; nothing in the log; all 64 log bytes in use; three sixes rolled;
    the game over; positions at the ends of 16 bits; a finish of 9999: each resumes."""
    flash, g = stored(players=2)
    assert state(power_up_reads(flash, players=2)) == state(g.core)
    flash, g = stored(act=False)
    assert state(power_up_reads(flash)) == state(g.core)
    for what, edit, act, check_it in (
            ("a full log", _log_of(Y.LOG_SIZE), True,
             lambda r: (r.S[Y.PHASE], r.S[Y.QM], r.S[Y.DID]) == (2, 3, 1)),
            ("three sixes", _set(Y.ROLL, 215), True, lambda r: r.S[Y.ROLL] == 215),
            ("the game over", _set(Y.PHASE, 3), False, lambda r: r.S[Y.PHASE] == 3),
            ("finish 9999", _finish(9999), True, lambda r: r.S[Y.FINISH:Y.FINISH + 2] == b"\x27\x0f"),
            ("finish 300", _finish(300), True, lambda r: r.S[Y.FINISH:Y.FINISH + 2] == b"\x01\x2c")):
        flash, g = stored(act=act)
        reseal(flash, 0, edit)
        r = power_up_reads(flash)
        assert r and check_it(r), what
    flash, g = stored()
    for seat, squares in ((0, 32767), (1, -32767), (2, -32768), (3, 32766)):
        reseal(flash, 0, _position(seat, squares))
    assert list(power_up_reads(flash).P)[:4] == [32767, -32767, -32768, 32766]


def test_a_record_start_whose_length_runs_past_the_end_of_nvm_is_not_a_record():
    """Bytes at the very end of nvm that begin like a record (its mark, a number, a
    length) but would run past the end, by a few bytes or by far: no saved game (and no
    exception: power-up goes on)."""
    for board, at, length in (("rp2040", -7, 5), ("rp2040", -20, 255), ("samd21", 128, 125),
                              ("samd21", 128, 255)):
        flash = FlashSim(board)
        at %= len(flash)
        flash.mem[at:] = bytes([Y.MAGIC, 0, 1, length]) + bytes(len(flash) - at - 4)
        assert power_up_reads(flash, board) is None, (board, at, length)


def test_a_record_with_no_body_at_the_very_end_of_nvm_is_no_game():
    """A record that checks but holds nothing, in the last 7 bytes of a Pico's log: a
    record, and no game."""
    flash = FlashSim("rp2040")
    rec = bytearray([Y.MAGIC, 0, 1, 0, 0, 0, 0])
    c = check(rec, 4)
    rec[4], rec[5] = c >> 8, c & 255
    flash.mem[-7:] = rec
    assert power_up_reads(flash) is False


# ------------------------------------------------------------------ what the board says
def test_a_flipped_or_cut_record_on_the_board_is_said_and_a_new_game_plays():
    """On the board: the only saved game, a bit flipped in its header, its state, its
    positions, its log or its check, or cut short: power-up says the nvm holds no valid
    saved game and starts a new game, purple flashing; with nothing written at all (an
    erased store) it starts one and says nothing."""
    sim = on_the_board()
    at, end = newest(sim)
    good = bytes(sim.nvm.mem)
    for i in (1, Y.R_BODY + 2, Y.R_BODY + Y.BODY_Q + 1, Y.R_BODY + Y.BODY_LOG, end - at - 2):
        sim.nvm.mem[:] = good
        sim.nvm.mem[at + i] ^= 0x10
        assert_a_new_game(power_up(sim), FOREIGN)
    for kept, said in ((end - at - 1, FOREIGN), (1, FOREIGN), (0, None)):
        sim.nvm.mem[:] = good
        sim.nvm.mem[at + kept:end] = b"\xff" * (end - at - kept)
        assert_a_new_game(power_up(sim), said)
    assert_it_plays(power_up(sim, ms=2100))


def test_a_record_that_is_no_game_on_the_board_is_said_and_a_new_game_starts():
    """Another firmware's record, a QM who is no seat, a challenged with no challenger:
    power-up says the saved game is damaged and starts a new game, purple flashing."""
    sim = on_the_board()
    at = newest(sim)[0]
    good = bytes(sim.nvm.mem)
    for edit in (_version(Y.VERSION + 1), _set(Y.QM, 4), _parties(Y.NONE, 1)):
        sim.nvm.mem[:] = good
        reseal(sim.nvm, at, edit)
        after = power_up(sim)
        assert_a_new_game(after, DAMAGED)
        assert "resumed" not in lines(after)


def test_one_stray_byte_in_an_erased_nvm_is_said_as_foreign_data():
    """Nothing saved, but one byte of the nvm is not erased (0x00 at the start: another
    program's): power-up says the nvm holds no valid saved game."""
    sim = Sim(players=4)
    sim.nvm.mem[0] = 0
    assert_a_new_game(power_up(sim), FOREIGN)


def test_a_board_with_no_nvm_says_a_power_cut_loses_the_game(monkeypatch):
    """A build whose CircuitPython has no ``microcontroller.nvm`` (None): the board says
    it has nowhere to save, flashes purple, and starts the game."""
    monkeypatch.setattr(harness, "FlashSim", lambda chip: None)
    sim = Sim(players=4)
    sim.run_until_ms(20)
    said = lines(sim)
    assert said[0].startswith("no saved game here (") and said[0].endswith(
        "): a power cut loses the game"), said
    assert said[1:] == NEW, said
    assert sim.ring() == ["purple"] * 10


def test_a_board_with_no_nvm_plays_and_never_saves(monkeypatch):
    monkeypatch.setattr(harness, "FlashSim", lambda chip: None)
    sim = Sim(players=4)
    sim.run_until_ms(100)
    assert_it_plays(sim)
    sim.run_until_ms(sim.now_ms + 2000)  # a save would be due: there is nowhere to save
    assert sim.device.r.j is None and DAMAGED not in lines(sim)


def test_after_a_damaged_save_the_new_game_rolls_the_boards_dice():
    sim = on_the_board()
    reseal(sim.nvm, newest(sim)[0], _set(Y.QM, 7))
    after = power_up(sim)
    assert lines(after)[:3] == [DAMAGED] + NEW
    after.tap("a", 30)  # roll
    after.run_until_ms(150)
    die = scenario.dice(1)  # the harness's die, seed 1: this board's
    assert [f["dice"] for _, f in after.named("roll")] == [[die(1, 6), die(1, 6), die(1, 6)]]


def test_a_two_player_game_resumes_on_the_board():
    sim = on_the_board(players=2)
    after = power_up(sim, players=2)
    assert lines(after)[0] == "resumed"
    assert (after.game.players, after.game.phase) == (2, "reveal")


def test_a_game_over_when_saved_resumes_over_showing_the_winner():
    """A record whose state is a game over with an empty log (as a log folded at the end
    leaves it): it resumes over, the leader's seat blinking green."""
    sim = Sim(players=3)
    sim.run_until_ms(10)
    g = sim.game
    g.move(1, 4)
    g.end()
    r = g.core
    r.B[:] = r.S  # the log folded into the state: nothing left to replay
    r.Q[:] = r.P
    r.n = 0
    r.save()
    after = power_up(sim, players=3, ms=200)
    assert lines(after)[0] == "resumed" and after.game.phase == "over"
    assert [after.scene()[after.pixel_of(s, 3)][0] for s in range(3)] == ["grey", "green", "grey"]


def test_a_finish_past_255_resumes_and_the_settings_message_gives_it():
    """QK_FINISH past one byte (300): with the same settings the game resumes and
    nothing is said; with other settings the console gives both, and the game goes on."""
    sim = on_the_board(settings="QK_FINISH = 300\n")
    same = power_up(sim, settings="QK_FINISH = 300\n")
    assert lines(same)[:1] == ["resumed"] and same.game.finish == 300
    assert not [x for x in lines(same) if x.startswith("settings.toml")]
    other = power_up(sim, players=5, settings="QK_FINISH = 9999\n")
    assert lines(other)[0] == (
        "settings.toml: QK_PLAYERS = 5, QK_FINISH = 9999; the saved game has 4 players and "
        "finish 300, and goes on; the next new game takes QK_FINISH (its players are set "
        "at the table)")
    assert lines(other)[1] == "resumed" and other.game.finish == 300


# ------------------------------------------------------------------ the dice
def _rolls(sim, times=4):
    for i in range(times):
        sim.tap("a", 20 + 250 * i)  # roll, roll again
    sim.run_until_ms(20 + 250 * times)
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
