"""A first-time Question Master who follows the table card literally gets the rules'
result every question: a robot QM and players (tools/robot.py) who act only on the ring and
the sounds, with a person's timing, play random questions on the simulated board (4 to 10
players; answers right and wrong, passes, everyone passing, Klaxons refused and accepted,
penalties listed or not, up to 99), and every question must end where the rules (as this
test states them, apart from the firmware) put every piece."""

import random

import pytest

import robot
from harness import Sim
from robot import plan_question, rules

CHUNKS = 10  # 10 tables of 30 questions: 300 questions, spread over the suite's workers
QUESTIONS = 30


def play_table(seed, questions, board="simulated"):
    """A table of random games, ``questions`` in all; returns the robot (its presses) and
    the questions' records."""
    rng = random.Random(seed)
    sim = Sim(board_name=board, seed=seed, phase_us=rng.randrange(1000),
              settings="QK_SLEEP_MIN = 0\n")
    table = robot.Table(sim, board, random.Random(seed + 1000))
    records = []
    first = True
    while len(records) < questions:
        n = rng.randint(4, 10)
        qm = rng.randrange(n)
        if not first:
            table.end_game()  # (its winners are checked by the game's last question)
        table.set_up(n, qm)
        first = False
        positions = [0] * n
        for _ in range(min(rng.randint(8, 20), questions - len(records))):
            plan = plan_question(rng, n, qm)
            try:
                rec = table.question(plan)
            except robot.Lost as e:
                raise AssertionError("seed %d, question %d: %s\nplan %r\nlog %r" % (
                    seed, len(records), e, plan, table.log[-12:]))
            assert rec["qm"] == qm
            want = rules(positions, qm, rec["dice"], plan)
            game = sim.game
            assert game.positions == want, (seed, len(records), plan, rec, table.log[-12:])
            assert game.phase == "idle" and game.qm == (qm + 1) % n
            assert rec["dice"][1] == [f for _, f in sim.named("roll")][-1]["dice"][1]
            positions, qm = want, (qm + 1) % n
            records.append((plan, rec))
    winners = table.end_game()
    best = max(positions)
    assert winners == [s for s, p in enumerate(positions) if p == best]
    return table, records


@pytest.mark.parametrize("chunk", range(CHUNKS))
def test_a_card_literal_table_gets_the_rules_result_every_question(chunk):
    table, records = play_table(chunk + 1, QUESTIONS)
    assert len(records) == QUESTIONS
    plans = [p for p, _ in records]
    # the chunk played what the test means it to: each kind of question came up
    assert any(r["everyone_passed"] for _, r in records) or chunk % 2
    assert any(any(a == "klaxon" for _, a in p["actions"]) for p in plans)
