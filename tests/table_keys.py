"""The referee's keys as tests press them, for the entries whose controls are being
redesigned (issue 22): setting up a new game and moving a piece. Tests say what the
QM wants (a game of 3; walk 4 seats on); only this file says which keys do it, so a
change of the controls changes this file, not the tests.

The keys are ``Referee.key``'s (lib/qiklaxon/core.py): what A or B did when let go.
"""

import builtins

A, A_HELD, A_2S, B, B_HELD, B_2S = 1, 2, 3, 4, 5, 6
MAX_PRESSES = 40  # a walk that has not got there by now never will


def said(r, *keys):
    """Press ``keys`` on referee ``r``: the console lines they print."""
    lines = []
    old = builtins.print
    builtins.print = lambda *a: lines.append(" ".join(str(x) for x in a))
    try:
        for k in keys:
            r.key(k)
    finally:
        builtins.print = old
    return lines


def count_of(lines, word):
    """The number after ``word`` on the last console line that starts with it (None: none)."""
    found = [x.split()[1] for x in lines if x.split()[:1] == [word]]
    return int(found[-1]) if found else None


def set_up_new_game(r, count_presses):
    """Once the game is over: start setting up a new one and press the count on
    ``count_presses`` times. Returns the console lines."""
    return said(r, B_2S, *[A] * count_presses)


def new_game(r, players, first_qm=None):
    """Once the game is over: set up a new game of ``players`` and start it, with
    ``first_qm`` as its first QM (None: the seat offered). Returns the console lines
    (AssertionError if the count never shows ``players``)."""
    lines = said(r, B_2S)
    n = 0
    while count_of(lines, "players") != players:  # A one more, B held one fewer
        assert n < MAX_PRESSES, "the count never showed %d players: %s" % (players, lines)
        lines += said(r, A if count_of(lines, "players") < players else B_HELD)
        n += 1
    lines += said(r, B)  # on to the first QM
    n = 0
    while first_qm is not None and count_of(lines, "first") != first_qm:
        assert n < MAX_PRESSES, "the first QM never showed seat %d: %s" % (first_qm, lines)
        lines += said(r, A)
        n += 1
    return lines + said(r, B)  # start it


def start_moving_a_piece(r):
    """Between questions: start moving a piece. Returns the console lines (the seat
    offered first among them)."""
    return said(r, A_2S)


def walk_on(r, seats):
    """While choosing which piece to move: walk ``seats`` seats on round the table."""
    return said(r, *[A] * seats)


def move_chosen_forward(r, squares):
    """The piece chosen: move it ``squares`` forward (1 or more)."""
    return said(r, B, *[A] * squares, B)


def undo_on(sim, at_ms):
    """On the simulated device: the QM's undo (B held past QK_LONG_MS, well short of the
    long hold, twice that), pressed at ``at_ms``."""
    from hardware.settings import KEYS

    long_ms = next(k[1] for k in KEYS if k[0] == "QK_LONG_MS")
    sim.press("b", at_ms, hold_ms=long_ms + 300)
