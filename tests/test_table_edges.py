"""The table's edge cases that a mutation run (tools/quality/mutants.py, issue 26) found no test
for: each is what a player or the QM would notice, at the edge where a plausible slip
in the firmware shows. The keys for entries whose controls are being redesigned are
in tests/table_keys.py."""

import random

import probes
import pytest

from harness import Sim
from model import Game
from table_keys import (A, A_2S, A_HELD, B, B_2S, B_HELD, count_of, move_chosen_forward,
                        new_game, said, set_up_new_game, start_moving_a_piece, undo_on, walk_on)


# ------------------------------------------------------------------ moving a piece
@pytest.mark.parametrize("players", [2, 3, 7])
def test_walking_the_seats_goes_round_the_table_and_moves_the_piece_walked_to(players):
    """Moving a piece: the walk starts at the QM's seat and goes round the players'
    seats only, as often as the QM likes; the piece moved is the one walked to."""
    qm = 1
    for steps in range(2 * players + 1):
        g = Game(players, qm=qm)
        start_moving_a_piece(g.core)
        lines = walk_on(g.core, steps)
        seat = (qm + steps) % players
        if steps:
            assert count_of(lines, "seat") == seat, (steps, lines)
        move_chosen_forward(g.core, 2)
        want = [0] * players
        want[seat] = 2
        assert g.positions == want, "%d players, walked %d seats on" % (players, steps)


def test_a_piece_moves_up_to_99_squares_in_one_move():
    """The count goes up to 99 and no further: 99 presses move the piece 99 squares,
    and more presses leave it at 99."""
    for presses, moved in ((98, 98), (99, 99), (103, 99)):
        g = Game(3)
        start_moving_a_piece(g.core)
        move_chosen_forward(g.core, presses)
        assert g.positions == [moved, 0, 0], presses


# ------------------------------------------------------------------ a new game at the table
def test_a_new_game_has_2_to_10_players_however_often_the_count_is_pressed():
    """Setting up a new game at the table: whatever the count shows when the QM goes
    on, the game that starts has that many players, never fewer than 2 or more than 10,
    and it does start."""
    for presses in range(25):
        g = Game(4)
        g.end()
        lines = set_up_new_game(g.core, presses)
        shown = count_of(lines, "players")
        lines += said(g.core, B, B)  # on to the first QM, and start
        assert g.phase == "idle", "after %d presses the new game did not start: %s" % (
            presses, lines)
        assert 2 <= g.players <= 10 and g.players == shown, (presses, shown, g.players)


@pytest.mark.parametrize("players", range(2, 10))
def test_a_first_qm_setting_past_a_new_games_seats_offers_seat_0(players):
    """QK_FIRST_QM names a seat the new game has not got (a game of exactly that many
    players): the first QM offered is seat 0, and the new game starts."""
    g = Game(10, qm=players)  # QK_FIRST_QM = players
    g.end()
    lines = new_game(g.core, players)
    assert count_of(lines, "first") == 0, lines
    assert (g.phase, g.players, g.qm) == ("idle", players, 0), lines


# ------------------------------------------------------------------ the end, on the ring
def test_at_the_end_the_leader_lights_up_even_when_every_piece_is_behind_the_start():
    """Penalties took every piece below square 0: at the end the leader's seat still
    blinks green (as after a power cut: the game resumes showing its end)."""
    sim = Sim(players=3)
    sim.run_until_ms(300)
    g = sim.game
    g.move(0, -4)
    g.move(1, -2)
    g.move(2, -7)
    g.end()
    sim.device.r.save()
    after = Sim(players=3, nvm=sim.nvm)
    after.run_until_ms(1500)
    scene = after.scene()
    colours = [scene[after.pixel_of(s, 3)][0] for s in range(3)]
    assert colours == ["grey", "green", "grey"], scene


# ------------------------------------------------------------------ power cuts
@pytest.mark.parametrize("board", ["simulated", "pico", "cpx"])
def test_a_power_cut_after_the_65536th_save_resumes_the_newest_game(board):
    """The saves are numbered in 16 bits: the save after number 65,535 is number 0 and
    still the newest, so power-up resumes it, not the one before."""
    sim = Sim(players=4, board_name=board)
    sim.run_until_ms(300)
    r = sim.device.r
    r.j[2] = 0xFFFE  # this board has saved its game 65,535 times: the next is 0xFFFF
    g = sim.game
    g.move(0, 5)
    r.save()
    g.move(1, 7)
    r.save()  # number 0: the counter wrapped
    after = Sim(players=4, board_name=board, nvm=sim.nvm)
    after.run_until_ms(300)
    assert after.game.positions == [5, 7, 0, 0]


def test_a_saved_game_whose_qm_is_not_a_seat_is_not_resumed():
    """A record that checks but holds a QM seat the game has not got (seat 4 of 4) is
    damaged: power-up says so and starts a new game that plays, Klaxon and all."""
    sim = Sim(players=4)
    sim.run_until_ms(300)
    r = sim.device.r
    r.B[1] = 4  # the saved state's QM: seat 4, in a game of seats 0 to 3
    r.save()
    after = Sim(players=4, nvm=sim.nvm)
    after.run_until_ms(300)
    assert "the saved game is damaged: a new game starts" in [x for _, x in after.events]
    assert (after.game.players, after.game.qm, after.game.phase) == (4, 0, "idle")
    after.tap("b", 400)  # ask
    after.tap("a", 800)  # seat 1 answers
    after.press("klaxon", 1300)  # seat 2 challenges it
    after.run_until_ms(2500)
    assert [f for _, f in after.named("klaxon")] == [{"challenger": 2, "challenged": 1}]


# ------------------------------------------------------------------ the Klaxon's wire
@pytest.mark.parametrize("phase_us", [0, 250, 500, 750])
def test_crackles_open_for_the_glitch_limit_apart_never_sound_the_klaxon(phase_us):
    """Two crackles on the Klaxon's wire, each far shorter than QK_GLITCH_MS (2 ms), are
    two glitches when the contact is open between them for QK_GLITCH_MS + 1 ms or more:
    no Klaxon, at any phase of the 1 ms loop. Closer, they are one bouncing contact
    (tests/test_timing_sweep.py)."""
    sim = Sim(klaxon_only=True, phase_us=phase_us)
    t = 50_000
    for open_us in range(3_000, 12_001, 250):
        for width_us in (100, 400):
            sim.level("klaxon", t, True)
            sim.level("klaxon", t + width_us, False)
            sim.level("klaxon", t + width_us + open_us, True)
            sim.level("klaxon", t + 2 * width_us + open_us, False)
            t += 100_000
    sim.run_until_us(t)
    assert sim.sounds() == []


# ------------------------------------------------------------------ undo and the log
def test_an_undo_is_saved_like_any_action():
    """The QM undoes an answer; a power cut a few seconds later resumes the game as
    undone (the answering player's turn again), not as it was before the undo."""
    sim = Sim(players=4)
    sim.tap("b", 200)  # ask: seat 1 answers first
    sim.tap("a", 700)  # seat 1 answers: seat 2's turn
    sim.run_until_ms(3000)  # saved
    undo_on(sim, 3200)
    sim.run_until_ms(7000)  # a save is due a second after an action
    assert (sim.game.phase, sim.game.answering) == ("answering", 1)
    after = Sim(players=4, nvm=sim.nvm)
    after.run_until_ms(300)
    assert (after.game.phase, after.game.answering) == ("answering", 1)


def test_a_long_game_still_moves_pieces_and_undoes_the_move():
    """Ten players answering every question fill the game's log; between each question
    and the next the QM moves a piece: it moves, and undo takes the move back."""
    g = Game(10)
    for q in range(12):
        g.ask()
        for _ in range(9):
            g.answer()
        g.reveal([(g.qm + 1) % 10])
        before = g.positions
        seat = g.qm
        start_moving_a_piece(g.core)
        move_chosen_forward(g.core, 3)
        want = list(before)
        want[seat] += 3
        assert g.positions == want, "question %d" % q
        assert g.undo() and g.positions == before, "question %d" % q


def test_a_saved_game_whose_log_holds_a_byte_that_is_no_action_is_not_resumed():
    """A record that checks but whose log starts with 0 (no action has that number) is
    damaged: power-up says so and starts a new game, at once."""
    sim = Sim(players=4)
    sim.tap("b", 200)  # ask
    sim.tap("a", 700)  # answer
    sim.run_until_ms(1000)
    r = sim.device.r
    assert r.n
    r.L[0] = 0
    r.save()
    after = Sim(players=4, nvm=sim.nvm)
    after.run_until_ms(300)
    assert any("the saved game is damaged" in line for _, line in after.events), after.events
    assert (after.game.phase, after.game.positions) == ("idle", [0, 0, 0, 0])


@pytest.mark.parametrize("pass_us", probes.PASS_TIMES_US)
def test_a_contact_2_ms_past_the_glitch_limit_always_sounds(pass_us):
    """QK_GLITCH_MS (2 ms) is the longest contact that may be taken for a glitch: one of
    4 ms always sounds the Klaxon, at any phase of any loop speed."""
    sounded = probes.glitches(pass_us, [4000], random.Random(pass_us + 26), phases=12)
    assert sounded == {4000: 12}


# ------------------------------------------------------------------ what the lights show
def _blinks(v, np):
    """What an LED (np 0) or a small ring shows for roll ``v`` over one cycle, as
    (colour, lit steps in a row) runs."""
    from types import SimpleNamespace

    from model import layout
    from qiklaxon import entry

    r = SimpleNamespace(S=bytearray(layout.DID + layout.SEATS))
    r.S[layout.ROLL] = v
    runs = []
    for q in range(200):
        x = entry.dice(SimpleNamespace(r=r), q, np)
        colour = x >> 8 if x else None
        if runs and runs[-1][0] == colour:
            runs[-1][1] += 1
        else:
            runs.append([colour, 1])
    return [(c, n) for c, n in runs if c is not None]


@pytest.mark.parametrize("dice", [(1, 1, 1), (3, 5, 2), (6, 6, 6)])
@pytest.mark.parametrize("np", [0, 5])
def test_a_roll_on_an_led_or_a_small_ring_blinks_each_die_its_value(dice, np):
    """Too few pixels for a die's value (an LED alone, or fewer than 6): each die blinks
    its value, red, then white, then blue, over and over."""
    a, b, c = dice
    runs = _blinks((a - 1) * 36 + (b - 1) * 6 + (c - 1), np)
    colours = [col for col, _ in runs]
    red, white, blue = 10, 1, 9
    want = [red] * a + [white] * b + [blue] * c
    assert colours[:len(want)] == want, runs
    assert all(n == 2 for _, n in runs[:len(want)])  # (2 steps on, 2 off)


def test_choosing_which_piece_to_move_lights_the_seat_blue():
    """Moving a piece: the ring shows the seat being chosen, blinking blue, from the
    QM's seat on."""
    sim = Sim(players=4, qm=2)
    sim.run_until_ms(200)
    lines = start_moving_a_piece(sim.device.r)
    assert count_of(lines, "seat") == 2
    sim.device.render()
    sim.run_for_ms(50)
    scene = sim.scene()
    assert scene[sim.pixel_of(2, 4)][0] == "blue", scene
    assert [scene[sim.pixel_of(s, 4)][0] for s in (0, 1, 3)] != ["blue"] * 3


def test_a_foreign_store_says_so_and_flashes_purple():
    """Flash that holds no saved game but other data: the console says exactly that and
    that a new game starts (not that a power cut loses the game), and the ring flashes
    purple."""
    from flashsim import FlashSim

    flash = FlashSim("rp2040")
    flash.mem[:] = bytes(range(256)) * 16
    sim = Sim(players=4, nvm=flash)
    lines = [x for _, x in sim.events]
    assert "nvm holds no valid saved game (damaged or foreign data): a new game starts" in lines
    assert not any("a power cut loses the game" in x for x in lines)
    sim.run_for_ms(100)
    assert "purple" in sim.ring(), sim.ring()


# ------------------------------------------------------------------ the console's words
def test_a_game_through_every_key_says_each_thing_in_its_words():
    """What the serial console says through a whole game that uses every key and every
    refusal: the words a QM or a maker reads there (and tools/simulated/events.py parses), each
    action's line, and where every seat stands after each that moves a piece."""
    g = Game(4, qm=0)
    g.core.dice = lambda lo, hi: 3  # every die a 3
    K = 0  # the Klaxon
    keys = [K, A, B, K, A, B, K, K, A, B, A, B, B_HELD, B_HELD, B_HELD, B_HELD, B, A, B, K, A, A, A, B, A_HELD, A_2S, A,
            B, A, B_HELD, B, A, A, B, B_2S, K, B_2S, A, B, A, B, A_HELD, A_2S, A, B_HELD, A_2S,
            A, B, A, A, B, B, A, B, B, B, K, A, B_HELD, A, B, B, A, A, A, A, B_HELD, A, A, A]
    lines = said(g.core, *keys)
    assert lines == [  # (the first Klaxon, before the game's first question, is a try: the
        # referee says nothing of it; the device says "klaxon sounded")
        'roll 3 3 3',
        'at 3 0 0 0',
        'ask 0',
        'refused nobody has answered yet',
        'answer 1',
        'pass 2',
        'klaxon 3 1',
        'refused this question already had its Klaxon',
        'right 1',
        'wrong 3',
        'count 1',
        'penalty 3 1',
        'reveal',
        'at 3 3 0 -1',
        'undo',
        'at 3 0 0 0',
        'count 1',  # one step back: into the reveal, seat 3's penalty count as it was
        'count 0',
        'unmark 3',
        'unmark 1',
        'wrong 1',
        'count 1',
        'penalty 1 1',
        'refused this question already had its Klaxon',
        'right 3',
        'reveal',
        'at 3 -1 0 3',
        'roll 3 3 3',
        'at 3 2 0 3',
        'roll 3 3 3',
        'at 3 5 0 3',
        'ask 1',
        'answer 2',
        'pass 3',
        'answer 0',
        'undo',
        'at 3 5 0 3',
        'pass 0',
        'right 2',
        'reveal',
        'at 3 5 3 3',
        'roll 3 3 3',
        'at 3 5 6 3',
        'ask 2',
        'end',
        'at 3 5 6 3',
        'game over',
        'refused the game is over',
        'players 4',
        'players 5',
        'first 0',
        'first 1',
        'new',
        'at 0 0 0 0 0',
        'miss 1',
        'seat 2',
        'seat 3',
        'back',
        'seat 2',
        'seat 3',
        'count 1',
        'count 2',
        'move',
        'at 0 0 0 2 0',
        'ask 2',
        'answer 3',
        'pass 4',
        'pass 0',
        'pass 1',
        'refused everyone has answered',
        'right 3',
        'reveal',
        'at 0 0 0 5 0',
        'undo',
        'at 0 0 0 2 0',
        'unmark 3',  # (back into the reveal, its one mark off)
        'right 3',
        'reveal',
        'at 0 0 0 5 0',
        'ask 3',
        'pass 4',
        'answer 0',
        'answer 1',
        'answer 2',
        'right 0',
        'unmark 0',
        'right 0',
        'right 1',
        'right 2',
        'reveal',
        'at 3 3 3 5 0',
    ]


# ------------------------------------------------------------------ the saved game's edges
def _after_a_power_cut(g, chip="rp2040"):
    """Game ``g`` saved to a board's flash and read back as power-up reads it: the game
    resumed, or None if power-up refuses it (and starts a new one)."""
    from flashsim import FlashSim
    from qiklaxon import restore
    from qiklaxon.core import Referee

    flash = FlashSim(chip)
    log = chip == "rp2040"
    g.core.j = restore.find(flash, log)[0]
    g.core.save()
    saved = restore.find(flash, log)[1]
    r = Referee(2)
    if saved is None or not restore.load(r, saved):
        return None
    out = Game.__new__(Game)
    out.core = r
    out.refusal = None
    return out


@pytest.mark.parametrize("chip", ["rp2040", "samd21"])
def test_a_game_at_the_limits_resumes_exactly_after_a_power_cut(chip):
    """Ten players, the last seat as QM, the highest finish, pieces far ahead and behind
    the start, a Klaxon in the last question: the game resumes as it was."""
    g = Game(10, qm=9, finish=9999)
    for seat, squares in ((0, 300), (1, -300), (2, 9998), (3, -32765), (4, 255), (5, -256)):
        g.move(seat, squares)
    g.ask()
    g.answer()  # seat 0
    g.pass_()  # seat 1
    g.answer()  # seat 2
    g.klaxon()  # seat 3 challenges seat 2
    g.reveal([0], {3: 2, 2: 1})
    h = _after_a_power_cut(g, chip)
    assert h is not None and h.to_bytes() == g.to_bytes()
    assert (h.players, h.qm, h.finish, h.positions) == (g.players, g.qm, 9999, g.positions)


@pytest.mark.parametrize("slot, value, what", [
    (4, 4, "a challenger who is no seat"), (5, 4, "a challenged seat that is no seat"),
    (7, 10000 >> 8, "a finish past 9999"), (6, 216, "a roll no dice make"),
    (2, 1, "a question under way"), (9, 3, "a seat that did something unheard of")])
def test_a_saved_game_that_no_play_reaches_is_refused(slot, value, what):
    """Power-up refuses a record that checks but holds a game no play reaches (it
    starts a new game instead): """
    g = Game(4)
    B = g.core.B
    if slot in (4, 5):  # the Klaxon's parties: both or neither
        B[4], B[5] = 1, 2
    if slot == 7:
        B[8] = 10000 & 255
    B[slot] = value
    assert _after_a_power_cut(g) is None, what


def test_a_long_game_that_ended_resumes_exactly_after_a_power_cut():
    """A long game (its log folded: the saved state holds the positions, far from 0)
    that the QM ended resumes ended, every piece where it was."""
    g = Game(10)
    g.move(1, -300)
    g.move(2, 300)
    for _ in range(8):
        g.ask()
        for _ in range(9):
            g.answer()
        g.reveal([(g.qm + 1) % 10])
    g.end()
    set_up_new_game(g.core, 0)  # the QM starts setting up the next game: then the power goes
    h = _after_a_power_cut(g)
    assert h is not None and (h.phase, h.positions, h.winners) == ("over", g.positions,
                                                                  g.winners)
