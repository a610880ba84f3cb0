"""The die the simulator, the page and the lanes give the firmware where it runs without
``random`` (tools/simulated/simboard/scenario.py ``dice``): fair, independent, fixed by its seed.

The checks are chi-square tests at p = 0.0005 (the critical value from Wilson and
Hilferty's approximation), on a fixed seed: the same numbers every run, so a pass or a
failure repeats. The generator it replaced (an LCG's low bits, ``% 6``) reached 54 of
the 216 rolls and made white alternate odd and even: every test here fails on it.
"""

import collections
import math

import pytest

import scenario

Z = 3.29  # one-sided p = 0.0005


def critical(df):
    """The chi-square value that a fair die exceeds with probability 0.0005."""
    k = 2 / (9 * df)
    return df * (1 - k + Z * math.sqrt(k)) ** 3


def chi2_cells(counts, cells):
    n = sum(counts.values())
    e = n / len(cells)
    return sum((counts.get(c, 0) - e) ** 2 / e for c in cells)


def rolls(seed, n):
    """``n`` rolls of red, white and blue, as the referee rolls them (qiklaxon/core.py)."""
    d = scenario.dice(seed)
    return [(d(1, 6), d(1, 6), d(1, 6)) for _ in range(n)]


ALL = [(a, b, c) for a in range(1, 7) for b in range(1, 7) for c in range(1, 7)]
PAIRS = [(a, b) for a in range(1, 7) for b in range(1, 7)]
GAMES = rolls(2026, 216 * 150)


def test_every_one_of_the_216_rolls_comes_up_as_often():
    counts = collections.Counter(GAMES)
    assert set(counts) == set(ALL)
    assert chi2_cells(counts, ALL) < critical(215)


@pytest.mark.parametrize("die", [0, 1, 2], ids=["red", "white", "blue"])
def test_each_die_is_fair(die):
    counts = collections.Counter(r[die] for r in GAMES)
    assert chi2_cells(counts, range(1, 7)) < critical(5)


@pytest.mark.parametrize("x, y", [(0, 1), (1, 2), (0, 2)], ids=["red-white", "white-blue",
                                                               "red-blue"])
def test_the_dice_of_one_roll_are_independent(x, y):
    counts = collections.Counter((r[x], r[y]) for r in GAMES)
    assert chi2_cells(counts, PAIRS) < critical(35)


@pytest.mark.parametrize("die", [0, 1, 2], ids=["red", "white", "blue"])
def test_a_roll_says_nothing_of_the_next(die):
    # white moves the QM: its parity must not alternate (the old die's did, strictly)
    counts = collections.Counter((a[die], b[die]) for a, b in zip(GAMES, GAMES[1:]))
    assert chi2_cells(counts, PAIRS) < critical(35)
    parity = collections.Counter((a[die] & 1, b[die] & 1) for a, b in zip(GAMES, GAMES[1:]))
    assert chi2_cells(parity, [(0, 0), (0, 1), (1, 0), (1, 1)]) < critical(3)


def test_successive_dice_in_the_stream_are_independent():
    d = scenario.dice(7)
    stream = [d(1, 6) for _ in range(36 * 400)]
    counts = collections.Counter(zip(stream, stream[1:]))
    assert chi2_cells(counts, PAIRS) < critical(35)


def test_a_seed_fixes_the_die_and_nearby_seeds_start_apart():
    assert rolls(5, 50) == rolls(5, 50)
    assert rolls(5, 50) != rolls(6, 50)
    first = collections.Counter(rolls(seed, 1)[0] for seed in range(1, 216 * 20 + 1))
    assert chi2_cells(first, ALL) < critical(215)  # seeds 1, 2, 3...: first rolls spread


def test_the_die_takes_random_randint_s_call():
    d = scenario.dice(3)
    assert {d(1, 6) for _ in range(600)} == set(range(1, 7))
    assert {d(0, 9) for _ in range(600)} == set(range(10))
    assert {d(4, 4) for _ in range(10)} == {4}
