"""A first-time Question Master who follows the table card literally gets the rules'
result every question: a robot QM and players (tools/quality/robot.py) who act only on the ring and
the sounds, with a person's timing, play random questions on the simulated board (4 to 10
players; answers right and wrong, passes, everyone passing, Klaxons refused and accepted,
penalties listed or not, up to 99; now and then the Klaxon jammed between questions, a
fault the card says to wait out), and every question must end where the rules put every
piece (tools/quality/robot.py's ``rules``, written from rules.md apart from the firmware)."""

import pytest

from robot import play_table, table_games

CHUNKS = 10  # 10 tables of 30 questions: 300 questions, spread over the suite's workers
QUESTIONS = 30


@pytest.mark.parametrize("chunk", range(CHUNKS))
def test_a_card_literal_table_gets_the_rules_result_every_question(chunk):
    table, records = play_table(chunk + 1, QUESTIONS)
    assert len(records) == QUESTIONS
    assert any(rec["parties"] for _, rec in records)  # a Klaxon was taken


def test_the_300_questions_hold_every_kind_the_table_meets():
    """What the chunks above play, without a board: 4 and 10 players and between; every
    question a QM meets (everyone passing, a refused and an accepted Klaxon, penalties
    listed or not, up to 99); slow players; a stray Klaxon in the reveal; a jammed Klaxon."""
    plans, players = [], set()
    for chunk in range(CHUNKS):
        for n, _, game in table_games(chunk + 1, QUESTIONS)[1]:
            players.add(n)
            plans += game
    assert len(plans) == CHUNKS * QUESTIONS >= 300
    assert {4, 10} <= players and len(players) >= 5
    acts = [a for p in plans for _, a in p["actions"]]
    assert all(k in acts for k in ("answer", "pass", "klaxon", "try then answer",
                                   "try then pass"))
    assert sum(all(a == "pass" for _, a in p["actions"]) for p in plans) >= 10
    wrong_parties = [p for p in plans if "klaxon" in dict(p["actions"]).values()]
    listed = [v for p in plans for v in p["penalty"].values()]
    assert len(wrong_parties) >= 30 and min(listed) == 1 and max(listed) >= 90
    assert any(p["slow"] for p in plans) and any(p["stray"] for p in plans)
    assert sum(p["jam"] for p in plans) >= 5  # a fault: the Klaxon jammed, A tried meanwhile
