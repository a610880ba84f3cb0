"""A or B and the Klaxon close together (issue 26's survivors in Device.press): presses
count in the order they were made, and a button held into a longer meaning is called
off by the Klaxon. Pin levels in, the referee's console and the ring out."""

import pytest

import probes
from harness import Sim


# A's pin pulled up (a press reads low: the Pico, the simulated board) and pulled down (a
# press reads high: the Circuit Playgrounds' own A and B)
BOARDS = ("simulated", "cpx")


def challenge(pass_us, phase_us, a_down_us, klaxon_us=1_000_000, board="simulated"):
    """Seat 1 has answered; A goes down at ``a_down_us`` (held 80 ms) and the Klaxon's
    contact closes at ``klaxon_us``: the klaxon's (challenger, challenged)."""
    sim = probes.Sim(players=4, pass_us=pass_us, phase_us=phase_us, board_name=board)
    sim.press("b", 100, 80)  # ask: seat 1 answers first
    sim.press("a", 500, 80)  # seat 1 answers
    sim.level("a", a_down_us, True)
    sim.level("a", a_down_us + 80_000, False)
    sim.level("klaxon", klaxon_us, True)
    sim.level("klaxon", klaxon_us + 120_000, False)
    sim.run_until_ms(klaxon_us // 1000 + 150)
    (_, k), = sim.named("klaxon")
    return k["challenger"], k["challenged"]


@pytest.mark.parametrize("board", BOARDS)
@pytest.mark.parametrize("pass_us, phase_us", [(77, 0), (999, 500)])
def test_a_pressed_4_ms_or_more_before_the_klaxon_answers_first(pass_us, phase_us, board):
    """Seat 2 presses A (answers) and, 4 or 5 ms later, seat 3 slams the Klaxon: A was
    first, so seat 3 challenges seat 2's answer, wherever the Klaxon's contact falls
    between two of A's samples (2 to 5 ms apart), though A's press has then been read
    by one sample only, not the two that take a level."""
    for before_us in (4000, 5000):
        for j in range(8):  # the Klaxon's contact every 0.5 ms across A's samples
            k = 1_000_000 + 500 * j
            got = challenge(pass_us, phase_us, k - before_us, k, board)
            assert got == (3, 2), (before_us, j, got)


@pytest.mark.parametrize("board", BOARDS)
@pytest.mark.parametrize("pass_us, phase_us", [(77, 0), (999, 500)])
def test_a_pressed_after_the_klaxons_contact_is_no_answer_before_it(pass_us, phase_us, board):
    """A goes down 0.3 to 2.9 ms after the Klaxon's contact closed (before the klaxon
    sounds, 3 ticks later): the Klaxon was first, seat 2 challenges seat 1."""
    for after_us in (300, 1500, 2900):
        got = challenge(pass_us, phase_us, 1_000_000 + after_us, board=board)
        assert got == (2, 1), (after_us, got)


@pytest.mark.parametrize("control, preview", [("a", ("orange", "slow")),
                                              ("b", ("blue", "slow"))])
def test_a_hold_into_a_longer_meaning_is_called_off_by_the_klaxon(control, preview):
    """Between questions the QM holds A (or B) until the ring shows its held meaning;
    the Klaxon is slammed before it is let go. Only letting go takes a held meaning:
    the hold is called off, not taken as a tap either (no roll, no question asked),
    the Klaxon sounds, and the ring shows the table again, not the preview."""
    sim = Sim(players=4)
    sim.press(control, 100, 1900)
    sim.press("klaxon", 1800, 100)
    sim.run_until_ms(1750)
    assert set(sim.scene()) == {preview}
    sim.run_until_ms(3000)
    assert [line for _, line in sim.events[2:]] == ["klaxon sounded"]
    assert [n for _, n in sim.sounds()] == ["klaxon"]
    assert sim.game.phase == "idle" and sim.game.positions == [0, 0, 0, 0]
    assert sim.scene() == [("white", "steady")] + [("off", "steady")] * 9
