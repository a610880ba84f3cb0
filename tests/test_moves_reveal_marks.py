"""The reveal's Klaxon penalty (lib/qiklaxon/reveal.py): how far the count goes, and
where a short strip shows the seat whose penalty is being entered. The keys are
tests/table_keys.py's."""

from harness import Sim
from model import Game
from table_keys import A, A_HELD, B, said


def _to_the_penalty(g):
    """Seat 1 answers, seat 2 answers, seat 3 hits the Klaxon (challenging 2); the QM
    marks 1 right and 2 wrong: seat 2's Klaxon penalty is being entered."""
    lines = said(g.core, B, A, A, 0, A, B)
    assert lines[-2:] == ["right 1", "wrong 2"], lines


def test_a_klaxon_penalty_counts_up_to_99_squares_and_no_further():
    """The QM enters a Klaxon penalty of up to 99 squares: presses past 99 (one more, or
    ten more) are refused and the count stays; the challenged moves back that far."""
    for keys, penalty in (([A_HELD] * 9 + [A] * 8, 98), ([A_HELD] * 9 + [A] * 9, 99),
                          ([A_HELD] * 9 + [A] * 12, 99), ([A] * 95 + [A_HELD], 95),
                          ([A_HELD] * 10, 90)):
        g = Game(4, qm=0)
        _to_the_penalty(g)
        lines = said(g.core, *keys)
        assert lines[-1] == "count %d" % penalty
        lines = said(g.core, B, B, B)  # the penalty entered; the challenger (3) wrong, none
        assert lines[0] == "penalty 2 %d" % penalty, lines
        assert g.positions == [0, 3, -penalty, 0]


def test_a_short_strip_blinks_the_seat_whose_penalty_is_entered_if_it_has_its_pixel():
    """Six players on a strip of 4 (QK_PIXELS = 4): a penalty at 0 blinks the pixel of
    its seat in the party's colour, the challenged sky and the challenger vermillion
    (seats 0 to 3 on pixels 0 to 3), and lights none for seats 4 and 5."""
    sim = Sim("QK_PIXELS = 4\n", board_name="pico", players=6, qm=0)
    sim.run_until_ms(200)
    r = sim.device.r
    for party, keys in ((2, [B, A, A, 0, A, B]), (3, [B, B])):  # 3 challenged 2: 2 wrong,
        lines = said(r, *keys)  # no penalty; 3 wrong
        assert lines[-1] == "wrong %d" % party, lines
        sim.device.render()
        sim.run_for_ms(50)
        scene = sim.scene()
        colour = "sky" if party == 2 else "vermillion"
        assert [c for c, _ in scene] == ["off"] * party + [colour] + ["off"] * (3 - party), \
            (party, scene)
    sim2 = Sim("QK_PIXELS = 4\n", board_name="pico", players=6, qm=3)  # seats 4, 5 answer
    sim2.run_until_ms(200)
    said(sim2.device.r, B, A, 0, A, B)  # 5 challenges 4; 4 right; 5 wrong: its penalty
    sim2.device.render()
    sim2.run_for_ms(50)
    assert [c for c, _ in sim2.scene()] == ["off"] * 4, sim2.scene()
