"""Every rule and Decision of shared/product/rules.md, as table games.

Seats run clockwise. Each test reads as what happened at the table and the
positions after it.
"""

import pytest

from model import Game
from model import game as rules


def question(g, *turns):
    """Ask a question and play the answering ``turns``: 'a' answer, 'p' pass, 'k' Klaxon."""
    g.ask()
    out = None
    for t in turns:
        if t == "a":
            g.answer()
        elif t == "p":
            g.pass_()
        else:
            out = g.klaxon()
    return out


# --------------------------------------------------------------- the table
def test_new_game_everyone_on_square_zero():
    g = Game(4, qm=2)
    assert g.positions == [0, 0, 0, 0]
    assert (g.qm, g.phase, g.answering, g.challenger, g.challenged) == (2, "idle", None, None, None)
    assert g.winners == []


@pytest.mark.parametrize(
    "args, word",
    [((1,), "players"), ((11,), "players"), (("4",), "players"), ((4, 4), "qm"),
     ((4, -1), "qm"), ((4, 0, 0), "finish"), ((True,), "players")],
)
def test_bad_game_settings_are_named(args, word):
    with pytest.raises(ValueError, match=word):
        Game(*args)


def test_roll_moves_the_qm_by_the_white_die_and_names_the_question():
    g = Game(3, qm=1)
    assert g.roll(5, 6, 1) == 561  # red 5, white 6, blue 1 -> question 561
    assert g.positions == [0, 6, 0]
    assert g.roll(2, 1, 3) == 213  # "roll again": rolls again
    assert g.positions == [0, 7, 0]
    assert g.question == 213
    with pytest.raises(ValueError, match="white"):
        g.roll(1, 7, 1)


def test_answering_starts_on_the_qm_left_and_never_reaches_the_qm():
    g = Game(4, qm=2)
    g.ask()
    order = []
    while g.phase == "answering":
        order.append(g.answering)
        g.answer()
    assert order == [3, 0, 1]  # left of 2 is 3, then clockwise, ending on the QM's right
    assert g.phase == "reveal"


def test_everyone_right_moves_forward_3_and_wrong_costs_nothing():
    # QM seat 0; seats 1 and 3 right, seat 2 wrong.
    g = Game(4)
    question(g, "a", "a", "a")
    g.reveal([1, 3])
    assert g.positions == [0, 3, 0, 3]


def test_passing_players_cannot_be_right():
    g = Game(3)
    question(g, "p", "a")
    with pytest.raises(ValueError, match="seat 1 did not answer"):
        g.reveal([1])
    g.reveal([2])
    assert g.positions == [0, 0, 3]


def test_dice_pass_left_after_the_reveal_and_wrap_round_the_table():
    g = Game(3, qm=2)
    question(g, "a", "a")
    g.reveal([])
    assert g.qm == 0 and g.phase == "idle"


def test_miss_a_go_ends_the_turn_at_once():
    g = Game(3)
    g.roll(1, 2, 3)
    g.miss_go()
    assert (g.qm, g.phase, g.positions) == (1, "idle", [2, 0, 0])


# -------------------------------------------------------------- the Klaxon
def test_klaxon_challenges_the_immediately_previous_answer():
    # QM 0. Seat 1 answers, seat 2 hits the Klaxon: 2 challenges 1.
    g = Game(5)
    assert question(g, "a", "k") == (2, 1)
    assert (g.challenger, g.challenged) == (2, 1)


def test_decision_passes_are_skipped_when_finding_the_challenged():
    # QM 0. Seat 1 answers, 2 and 3 pass, seat 4 hits the Klaxon: 4 challenges 1.
    g = Game(6)
    assert question(g, "a", "p", "p", "k") == (4, 1)


def test_decision_klaxon_on_the_first_answer_is_refused_and_changes_nothing():
    g = Game(4)
    g.ask()
    before = g.to_bytes()
    assert g.klaxon() is None
    assert g.refusal == rules.NOBODY_TO_CHALLENGE
    assert g.to_bytes() == before
    g.answer()  # the player may still answer
    assert g.answering == 2


def test_decision_klaxon_after_only_passes_is_refused():
    g = Game(4)
    g.ask()
    g.pass_()
    g.pass_()
    assert g.klaxon() is None and g.refusal == rules.NOBODY_TO_CHALLENGE
    g.pass_()  # everyone passed: nothing to reveal, the question is over, the dice pass left
    assert g.phase == "idle" and g.qm == 1 and g.positions == [0, 0, 0, 0]


@pytest.mark.parametrize(
    "setup, reason",
    [("", rules.NO_QUESTION), ("aaa", rules.ALL_ANSWERED), ("over", rules.GAME_OVER)],
)
def test_decision_klaxon_outside_an_answering_turn_is_refused(setup, reason):
    g = Game(4)
    if setup == "over":
        g.end()
    elif setup:
        question(g, *setup)  # the question has ended: waiting for the reveal
    before = g.to_bytes()
    assert g.klaxon() is None
    assert g.refusal == reason
    assert g.to_bytes() == before


def test_decision_the_qm_may_not_hit_the_klaxon():
    g = Game(4)
    question(g, "a")
    before = g.to_bytes()
    assert g.klaxon(seat=0) is None
    assert g.refusal == rules.QM_MAY_NOT
    assert g.klaxon(seat=3) is None and g.refusal == rules.NOT_YOUR_TURN
    assert g.to_bytes() == before
    assert g.klaxon(seat=2) == (2, 1) and g.refusal is None


def test_klaxon_ends_the_answering_everyone_left_is_deemed_to_pass():
    g = Game(6)
    question(g, "a", "k")
    assert g.phase == "reveal" and g.answering is None
    assert [g.mark(s) for s in range(6)] == [rules.WAITING, rules.ANSWERED, rules.ANSWERED,
                                             rules.PASSED, rules.PASSED, rules.PASSED]
    assert g.klaxon() is None  # at most one Klaxon per question
    with pytest.raises(ValueError, match="waiting for the QM to reveal"):
        g.answer()


def test_klaxon_challenger_right_challenged_wrong_no_penalty():
    g = Game(4)
    question(g, "a", "k")
    g.reveal([2])
    assert g.positions == [0, 0, 3, 0]


def test_klaxon_challenged_right_challenger_wrong_with_penalty():
    # The challenger's wrong answer is in the booklet as "Klaxon -12".
    g = Game(4)
    question(g, "a", "k")
    g.reveal([1], penalties={2: 12})
    assert g.positions == [0, 3, -12, 0]


def test_klaxon_both_wrong_both_penalised():
    g = Game(5)
    question(g, "a", "p", "k")
    g.reveal([], penalties={1: 10, 3: 5})
    assert g.positions == [0, -10, 0, -5, 0]


def test_penalty_applies_only_to_the_klaxon_parties():
    # QM 0. Seat 1 answers (wrong, a "Klaxon" answer), seat 2 answers, seat 3
    # hits the Klaxon on seat 2. Seat 1 is no party: their penalty is ignored.
    g = Game(5)
    question(g, "a", "a", "k")
    assert (g.challenger, g.challenged) == (3, 2)
    g.reveal([3], penalties={1: 12, 2: 6})
    assert g.positions == [0, 0, -6, 3, 0]


def test_others_who_answered_still_score_after_a_klaxon():
    g = Game(5)
    question(g, "a", "a", "k")
    g.reveal([1, 3])
    assert g.positions == [0, 3, 0, 3, 0]


def test_penalty_for_a_seat_also_right_is_an_error():
    g = Game(4)
    question(g, "a", "k")
    with pytest.raises(ValueError, match="both right and penalised"):
        g.reveal([1], penalties={1: 6})
    assert g.phase == "reveal"  # nothing applied
    assert g.positions == [0, 0, 0, 0]


def test_challenger_and_challenged_stay_shown_until_the_next_question():
    g = Game(4)
    question(g, "a", "k")
    g.reveal([])
    assert (g.challenger, g.challenged) == (2, 1)
    g.ask()
    assert (g.challenger, g.challenged) == (None, None)


# ------------------------------------------------------------ end of game
def test_reaching_the_finish_square_ends_the_game():
    g = Game(3, finish=10)
    g.move(1, 8)
    question(g, "a", "a")
    g.reveal([1])
    assert g.phase == "over" and g.positions == [0, 11, 0]
    assert g.winners == [1]
    with pytest.raises(ValueError, match="new game"):
        g.ask()


def test_qm_can_end_by_hand_and_equal_highest_share_the_win():
    g = Game(4)
    g.move(1, 5)
    g.move(3, 5)
    g.move(2, -20)
    g.end()
    assert g.winners == [1, 3]


def test_negative_scores_can_win():
    g = Game(2)
    g.move(0, -3)
    g.move(1, -5)
    g.end()
    assert g.winners == [0]


def test_a_roll_onto_the_finish_ends_the_game():
    g = Game(2, finish=4)
    g.roll(1, 4, 1)
    assert g.phase == "over" and g.winners == [0]


# ------------------------------------------------- actions out of their phase
@pytest.mark.parametrize(
    "action, args, waiting",
    [("answer", (), "QM to roll or ask"), ("pass_", (), "QM to roll or ask"),
     ("reveal", ([],), "QM to roll or ask")],
)
def test_actions_out_of_phase_say_what_the_game_waits_for(action, args, waiting):
    g = Game(3)
    with pytest.raises(ValueError, match=waiting):
        getattr(g, action)(*args)


def test_no_roll_or_miss_a_go_during_a_question():
    g = Game(3)
    g.ask()
    with pytest.raises(ValueError, match="answering player"):
        g.roll(1, 1, 1)
    with pytest.raises(ValueError):
        g.miss_go()


# -------------------------------------------------------------------- undo
def test_undo_a_mistaken_reveal_then_reveal_again():
    g = Game(4)
    question(g, "a", "k")
    g.reveal([1], penalties={2: 12})  # oops: it was seat 2 who was right
    assert g.undo()
    assert (g.phase, g.qm, g.positions) == ("reveal", 0, [0, 0, 0, 0])
    g.reveal([2])
    assert g.positions == [0, 0, 3, 0] and g.qm == 1


def test_undo_walks_back_to_the_start_of_the_question():
    g = Game(10)
    g.roll(3, 2, 1)
    start = g.to_bytes()
    g.ask()
    for _ in range(8):
        g.answer()
    g.klaxon()
    for _ in range(10):
        assert g.undo()
    assert g.to_bytes() == start
    assert g.undo()  # and the roll before it
    assert g.positions == [0] * 10


def test_undo_with_nothing_left_returns_false():
    g = Game(2)
    assert g.undo() is False


def test_history_is_bounded():
    g = Game(2)
    for _ in range(50):
        g.move(0, 1)
    steps = 0
    while g.undo():
        steps += 1
    assert steps == 2 + 8
    assert g.positions == [40, 0]


# ---------------------------------------------------------------- encoding
def test_round_trip_mid_question_and_size():
    g = Game(10, qm=9, finish=9999)
    for s in range(10):
        g.move(s, (-1) ** s * 900 * (s + 1))
    question(g, "a", "p", "a", "k")
    data = g.to_bytes()
    assert len(data) < 64
    h = Game.from_bytes(data)
    assert h.to_bytes() == data
    assert (h.phase, h.challenger, h.challenged, h.positions, h.finish) == (
        "reveal", 3, 2, g.positions, 9999)


@pytest.mark.parametrize(
    "data",
    [b"", b"\x01", b"\x02" + bytes(12), bytes([1, 4, 0, 0, 255, 255, 255, 0, 0, 0, 0, 0, 0, 0, 0, 7]),
     bytes([1, 11, 0, 0, 255, 255, 255, 0, 0, 0, 0, 0]), "text", None,
     bytes([1, 2, 0, 0, 255, 255, 255, 0, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 1, 0])],
)
def test_bad_bytes_raise_value_error(data):
    with pytest.raises(ValueError):
        Game.from_bytes(data)


def test_game_module_imports_no_hardware():
    import ast
    import os

    from qiklaxon import core

    # the rules' model (model/) and the referee it drives (lib/qiklaxon/)
    paths = [os.path.join(folder, name)
             for folder in (os.path.dirname(rules.__file__), os.path.dirname(core.__file__))
             for name in os.listdir(folder)
             if name.endswith(".py") and name != "restore.py"]  # (the start-up reads nvm)
    for path in paths:
        name = os.path.basename(path)
        tree = ast.parse(open(path).read())
        for node in ast.walk(tree):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                mods = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module]
                for m in mods:
                    # (gc: every runtime's own; core.py collects before an overlay loads)
                    assert m.split(".")[0] in ("micropython", "qiklaxon", "model", "array", "sys",
                                               "gc"), (name, m)
