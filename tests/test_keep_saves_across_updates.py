"""A saved game across a firmware update, and back: the record says how many state slots
it holds (VERSION 3, model/layout.py), so a firmware whose state gains a house rule's
slot still resumes the game in progress, and an older one resumes a newer one's game,
saying what it drops. A VERSION 2 record, what every board held before, resumes and plays
on exactly as it did. A slot count no record can have is a damaged game: said, and a new
game starts, never a traceback.

The VERSION 2 record is the board's own, not one made here from the layout (which has
moved on): ``EXPRESS_V2`` is a Circuit Playground Express's whole nvm as the firmware
before VERSION 3 (commit 147b4d3) left it on the simulated board (``Sim(players=4,
board_name="cpx")``, seed 1) after ``play(BEFORE)``: two ping-pong records, the newer of
them a game whose log was folded (positions 5 6 3 6 in the record, 11 9 9 9 replayed).
``AFTER_LINES`` is what that firmware said, switched on again over that nvm, playing
``AFTER``. A fixture made by the old firmware cannot drift with this one's names."""

import pytest

from flashsim import FlashSim
from harness import Sim
from model import layout as Y
from qiklaxon import restore
from test_keep_damaged_saves import (DAMAGED, assert_a_new_game, assert_it_plays, lines,
                                     newest, on_the_board, power_up, reseal)

Q = "baaaaba"  # ask, three answers, right, wrong, right
BEFORE = "a" + Q * 6 + "baa"  # a roll, six questions, a seventh asked and two answers
AFTER = "k" + "ab" + Q  # switched on again: the Klaxon, its reveal, then on
EXPRESS_V2 = bytes.fromhex(
    "5100204502040300ffffff990000010100010000000000000500060003000600000000000000000000000000"
    "0203030306000500000203030306000a000002030303060005000002038dbc00030600050000020303030600"
    "0a0000020303030600050000a60400ffffffffffffffffffffffffffffffffffffffffffffffffff51002146"
    "02040300ffffff99000001010001000000000000050006000300060000000000000000000000000002030303"
    "06000500000203030306000a0000020303030600050000020303dcc10006000500000203030306000a000002"
    "03030371f200")
AFTER_LINES = ["resumed", "at 11 9 9 9", "klaxon 1 0", "right 3", "wrong 0", "penalty 0 0",
               "right 1", "reveal", "at 11 12 9 12", "roll 5 2 4", "at 11 12 9 14", "roll 6 2 2",
               "at 11 12 9 16", "roll 2 2 4", "at 11 12 9 18", "ask 3", "answer 0"]
DOWNGRADE = ("the saved game holds %d state slots, this firmware %d: it was played with a newer "
             "firmware's house rules, which this one cannot replay; a new game starts (put that "
             "firmware back before playing on, to keep the game)")


def play(sim, keys, gap_ms=1500):
    """Taps of A and B ("a", "b") and Klaxon presses ("k"), ``gap_ms`` apart, from now,
    then long enough after the last for its save."""
    t = sim.now_ms
    for c in keys:
        t += gap_ms
        if c == "k":
            sim.press("klaxon", t)
        else:
            sim.tap(c, t)
    sim.run_until_ms(t + 1500)


def body(sim):
    """The newest record's body in the board's nvm."""
    at, end = newest(sim)
    return bytes(sim.nvm.mem[at + Y.R_BODY:end - 3])


def express(board, version=2):
    """``board``'s nvm holding the Express's saved game of 19 state slots: as the firmware
    before VERSION 3 left it (2, the fixture), or as VERSION 3 writes 19 slots (3: each
    record's body given its count); the Express's own nvm, or (a Pico's append log) its
    newest record alone, at the start."""
    flash = FlashSim("samd21")
    flash.mem[:len(EXPRESS_V2)] = EXPRESS_V2
    if board != "cpx":
        at = restore.find(flash, False)[0][Y.J_AT]
        rec = flash.mem[at:at + Y.R_MORE + flash[at + Y.R_LEN]]
        assert rec[Y.R_BODY] == Y.V2 and at  # the newer of the two: a VERSION 2 record
        flash = FlashSim("rp2040")
        flash.mem[:len(rec)] = rec
    for at in (0, len(flash) // 2):
        if version == 3 and flash[at] == Y.MAGIC:
            reseal(flash, at, lambda b: b.__setitem__(slice(0, 1), bytes((3, Y.V2_SLOTS))))
    return flash


@pytest.mark.parametrize("version", [2, 3])
@pytest.mark.parametrize("board", ["cpx", "simulated"])
def test_a_game_saved_before_resumes_and_plays_on_as_the_firmware_before_did(board, version):
    """The previous firmware's saved game (VERSION 2; and the same game as VERSION 3 of
    19 slots, as a firmware before a house rule writes it), switched on under this one:
    it resumes where it was and every press after says what that firmware said; its next
    save is this firmware's (its slots said), and a power cut then resumes it as it stood."""
    after = Sim(players=4, board_name=board, nvm=express(board, version))
    play(after, AFTER)
    assert lines(after) == AFTER_LINES
    saved = body(after)
    assert (saved[0], saved[Y.BODY_NB], len(saved)) == (
        Y.VERSION, Y.S_SLOTS, Y.BODY_LOG + after.device.r.n)
    again = power_up(after)
    assert lines(again)[:2] == ["resumed", AFTER_LINES[-3]]  # (the positions it left)
    assert (bytes(again.device.r.S), list(again.device.r.P)) == (
        bytes(after.device.r.S), list(after.device.r.P))


def shows_the_game_at_once(sim):
    """The ring at power-up draws the game (every steady light the game's scene has, in
    the ring's own order), not a flash of any colour, purple or dark: nothing to look at
    on the console."""
    lit = sorted(c for c in sim.ring() if c != "off")
    steady = sorted(c for c, how in sim.scene() if how == "steady" and c != "off")
    return bool(steady) and all(lit.count(c) >= steady.count(c) for c in steady)


@pytest.mark.parametrize("board", ["cpx", "simulated"])
def test_a_version_3_game_round_trips_through_a_power_cut(board):
    """A question asked and answered, saved, the power cut: the record says VERSION 3 and
    this firmware's slots, and the board resumes the very state, and says nothing more."""
    sim = on_the_board(board=board, settings="QK_FINISH = 300\n")
    saved = body(sim)
    assert saved[:Y.BODY_B] == bytes((Y.VERSION, Y.S_SLOTS))
    assert saved[Y.BODY_B:Y.BODY_Q] == bytes(sim.device.r.B)
    after = power_up(sim, settings="QK_FINISH = 300\n")
    assert lines(after)[:2] == ["resumed", "at 0 0 0 0"]
    assert (bytes(after.device.r.S), list(after.device.r.P)) == (
        bytes(sim.device.r.S), list(sim.device.r.P))
    assert after.ring() != ["purple"] * 10 and shows_the_game_at_once(after)


def newer(sim, extra):
    """The newest record as a newer firmware with two state slots more (``extra``) wrote it."""
    def edit(b):
        b[Y.BODY_NB] = Y.S_SLOTS + 2
        b[Y.BODY_Q:Y.BODY_Q] = extra

    reseal(sim.nvm, newest(sim)[0], edit)


def test_a_newer_firmwares_game_with_its_rules_at_the_rules_own_goes_on_without_a_word():
    """A record with two state slots more than this firmware has, both 0 (a newer
    firmware's house rules at the rules' own, so its log replays as it was played): the
    game goes on where it was, without a word; its next save holds this firmware's slots,
    and resumes without a word."""
    sim = on_the_board()
    want = (bytes(sim.device.r.S), list(sim.device.r.P))
    newer(sim, b"\x00\x00")
    after = power_up(sim)
    assert lines(after)[:2] == ["resumed", "at 0 0 0 0"] and shows_the_game_at_once(after)
    assert (bytes(after.device.r.S), list(after.device.r.P)) == want
    after.tap("a", after.now_ms + 100)  # seat 2 answers too: the game plays on
    after.run_until_ms(after.now_ms + 1500)
    assert lines(after)[-1] == "answer 2"
    assert body(after)[:Y.BODY_B] == bytes((Y.VERSION, Y.S_SLOTS))
    again = power_up(after)
    assert lines(again)[:2] == ["resumed", "at 0 0 0 0"] and shows_the_game_at_once(again)


def test_a_newer_firmwares_game_played_with_its_house_rules_is_not_rescored_here():
    """A record whose extra slots play a house rule this firmware lacks (put back on an
    older firmware): its log would replay by the rules' own and move the pieces from where
    the table saw them (the breaker's game: at 2 7 0 5 came back at 2 5 0 3). So the board
    says why, flashes purple and starts a new game, and writes nothing until a key is
    pressed: the newer firmware put back first still finds its game."""
    sim = on_the_board()
    newer(sim, b"\x05\x07")
    kept = bytes(sim.nvm.mem)
    after = power_up(sim)
    assert_a_new_game(after, DOWNGRADE % (Y.S_SLOTS + 2, Y.S_SLOTS))
    after.run_until_ms(after.now_ms + 5000)
    assert bytes(after.nvm.mem) == kept  # (its record still there, untouched)
    assert_it_plays(after)


@pytest.mark.parametrize("count", [0, Y.V2_SLOTS - 1, 255, "past the body"])
def test_a_slot_count_no_record_has_is_a_damaged_game_and_a_new_one_starts(count):
    """The record's slot count 0, one fewer than any version held, 255, or more than its
    body holds (its check made to match): the board says the saved game is damaged,
    flashes purple and starts a new game, which plays."""
    sim = on_the_board()

    def edit(b):
        b[Y.BODY_NB] = len(b) - Y.BODY_B if count == "past the body" else count

    reseal(sim.nvm, newest(sim)[0], edit)
    after = power_up(sim)
    assert_a_new_game(after, DAMAGED)
    after.run_until_ms(2100)  # (the purple flash over)
    assert_it_plays(after)
