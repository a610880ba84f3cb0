"""Moving a piece by hand, and the roll on the lights (lib/qiklaxon/entry.py): each step
back of the entry, a move of nothing, what the ring shows while the QM enters a move
(the seat, forward or back, the count), and the dice's timeline on a ring, a short
strip or an LED. The keys are tests/table_keys.py's."""

import pytest

from harness import Sim
from model import Game
from table_keys import A, A_2S, A_HELD, B, B_HELD, said, start_moving_a_piece


@pytest.mark.parametrize("back", [False, True], ids=["forward", "back"])
def test_stepping_back_from_the_count_chooses_the_seat_again(back):
    """Moving a piece: B held counts the squares down, and at 0 goes back to choosing
    the seat (not out of the entry): A then walks on from the seat chosen, and the
    move goes to the seat chosen then."""
    g = Game(5, qm=1)
    lines = said(g.core, A_2S, A, A_HELD if back else B, A, A, B_HELD, B_HELD, B_HELD)
    assert lines == ["seat 1", "seat 2", "count 1", "count 2", "count 1", "count 0", "back"]
    lines = said(g.core, A, B, A, A, A, B)
    assert lines[0] == "seat 3" and "move" in lines, lines
    assert g.positions == [0, 0, 0, 3, 0]


def test_a_move_of_no_squares_moves_nothing_and_ends_the_entry():
    """The QM picks a seat and moves it 0 squares: the console says "back", no piece
    moves, nothing is logged to undo, and the QM's next B asks the question."""
    g = Game(4, qm=2)
    assert said(g.core, A_2S, B, B) == ["seat 2", "back"]
    assert g.positions == [0] * 4 and not g.can_undo
    assert said(g.core, B) == ["ask 2"]


# ------------------------------------------------------------------ on the ring
def _seen(sim, *keys):
    """Keys pressed on the device's referee, as its buttons send them; then for each
    place on the ring (clockwise from pixel 0) the colours it shows over a second, and
    its blinking (pattern)."""
    lines = said(sim.device.r, *keys)
    sim.device.render()  # (the device draws after every key)
    seen = [set() for _ in sim.ring()]
    for _ in range(8):
        sim.run_for_ms(128)
        for i, colour in enumerate(sim.ring()):
            seen[i].add(colour)
    return lines, [(sorted(s), p) for s, (_, p) in zip(seen, sim.scene())]


def _places(np, lit):
    """What a ring of ``np`` places shows: ``lit`` {place: (colours, pattern)}, the rest dark."""
    return [lit.get(i, (["off"], "steady")) for i in range(np)]


TEN = "QK_PIXELS = 10\n"  # a Pico strip of 10, numbered clockwise: places are pixels
BLINK_BLUE = (["blue", "off"], "fast")


def test_the_seat_being_chosen_blinks_blue_and_then_blinks_the_way_it_moves():
    """Choosing the piece, its seat blinks blue, fast; B (forward) makes it blink orange,
    A held (back) blue; a count then shows instead."""
    sim = Sim(TEN, board_name="pico", players=5, qm=1)
    sim.run_until_ms(200)
    _, ring = _seen(sim, A_2S)
    assert ring == _places(10, {sim.pixel_of(1, 5): BLINK_BLUE})
    _, ring = _seen(sim, A)
    assert ring == _places(10, {sim.pixel_of(2, 5): BLINK_BLUE})
    _, ring = _seen(sim, B)  # forward
    assert ring == _places(10, {sim.pixel_of(2, 5): (["off", "orange"], "fast")})
    _, ring = _seen(sim, B_HELD, A, A_HELD)  # back to the seat; seat 3, back
    assert ring == _places(10, {sim.pixel_of(3, 5): BLINK_BLUE})


@pytest.mark.parametrize("back", [False, True], ids=["forward", "back"])
def test_the_count_shows_white_tens_then_units_in_the_moves_colour(back):
    """The count on a ring of 10, from the light after the piece's, whose light goes on
    blinking fast the way it moves (issue 31: whose count it is stays in sight): white
    pixels for the tens, then the units in orange (forward) or blue (back), steady; when
    tens and units are more than the 9 pixels left, they blink in turn on the same pixels
    (the tens white, the units coloured). The piece: seat 2 of 4 (pixel 5), and seat 3
    (pixel 7: the count goes round past pixel 9 to pixel 0)."""
    for seat, walk in ((2, [A, A]), (3, [A, A, A])):
        sim = Sim(TEN, board_name="pico", players=4)
        sim.run_until_ms(200)
        unit = "blue" if back else "orange"
        at = sim.pixel_of(seat, 4)
        steady = lambda colour: ([colour], "steady")  # noqa: E731
        keys = [A_2S] + walk + [A_HELD if back else B]
        for add, count, want in (
                ([], 0, {}),
                ([A_HELD], 10, {1: steady("white")}),
                ([A], 11, {1: steady("white"), 2: steady(unit)}),
                ([A_HELD, A, A], 23, {1: steady("white"), 2: steady("white"), 3: steady(unit),
                                      4: steady(unit), 5: steady(unit)}),
                ([A_HELD] * 3 + [A], 54, dict([(i, steady("white")) for i in range(1, 6)] +
                                                  [(i, steady(unit)) for i in range(6, 10)])),
                ([A_HELD] * 3 + [A] * 3, 87, dict(
                    [(i, (sorted(["white", unit]), "slow")) for i in range(1, 8)] +
                    [(8, (["off", "white"], "slow")), (9, (["off"], "slow"))]))):
            lines, ring = _seen(sim, *(keys + add))
            keys = []
            assert lines[-1] == ("count %d" % count if count else "seat %d" % seat)
            shown = dict(((at + j) % 10, w) for j, w in want.items())
            shown[at] = (sorted([unit, "off"]), "fast")
            assert ring == _places(10, shown), (seat, count)


def test_a_short_strip_shows_the_first_seats_being_chosen_and_a_count_in_turn():
    """Six players, a strip of 4 (QK_PIXELS = 4): walking the seats lights pixel s for
    seats 0 to 3 and nothing for 4 and 5; a count of 23 (2 tens and 3 units: more than
    the 3 pixels after the seat's) blinks the tens and the units in turn."""
    sim = Sim("QK_PIXELS = 4\n", board_name="pico", players=6, qm=0)
    sim.run_until_ms(200)
    _, ring = _seen(sim, A_2S)
    for seat in range(7):
        assert ring == _places(4, {seat % 6: BLINK_BLUE} if seat % 6 < 4 else {}), seat
        _, ring = _seen(sim, A)
    lines, ring = _seen(sim, B, A_HELD, A_HELD, A, A, A)  # seat 1 (7 seats on): forward
    assert lines[-1] == "count 23"  # from pixel 2, round to pixel 0; seat 1's own blinks
    assert ring == [(["off", "orange"], "slow"), (["off", "orange"], "fast")] + [
        (["orange", "white"], "slow")] * 2


# ------------------------------------------------------------------ the roll on the lights
def _timeline(dice, np):
    """What the docstring of entry.dice promises for a roll, step by step (128 ms each),
    one cycle: [(colour, pixels) or None for dark]. On 6 pixels or more: red, white, then
    blue, each as many pixels as its value for 8 steps (lit every other step), then 3 dark; 5 more dark before
    red again. Fewer (or an LED alone): each die that many blinks (2 steps on, 2 off),
    then 4 dark; 8 more before red again; a short strip lights all its pixels."""
    out = []
    for colour, m in zip((10, 1, 9), dice):
        if np >= 6:  # (blinking, so that a white 1 is not the QM's steady white)
            out += [(colour, m), None] * 4 + [None] * 3
        else:
            out += ([(colour, np)] * 2 + [None] * 2) * m + [None] * 4
    return out + [None] * (5 if np >= 6 else 8)


def test_a_roll_shows_each_die_in_turn_for_its_time_cycle_after_cycle():
    """The roll, from the moment it is made, over three cycles: exactly the promised
    timeline, dark where it says dark (an LED alone lit only in the blinks)."""
    from types import SimpleNamespace

    from model import layout
    from qiklaxon import entry

    for dice in ((1, 1, 1), (2, 1, 1), (1, 2, 1), (1, 1, 2), (3, 5, 2), (6, 6, 6), (6, 1, 4)):
        a, b, c = dice
        v = (a - 1) * 36 + (b - 1) * 6 + (c - 1)
        for np in (10, 6, 5, 0):
            cycle = _timeline(dice, np)
            got = []
            for q in range(3 * len(cycle)):
                r = SimpleNamespace(S=bytearray(layout.DID + layout.SEATS))
                r.S[layout.ROLL] = v
                x = entry.dice(SimpleNamespace(r=r), q, np)
                if not x:
                    got.append(None)
                elif np:
                    got.append((x >> 8, x & 255))
                else:  # an LED: lit or not, in the die's colour
                    got.append((x >> 8, 0))
            assert got == cycle * 3, (dice, np)
