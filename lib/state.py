"""The whole state on the console, for a host that asks (tools/scoreboard.py: the page
as a real board's scoreboard). A byte from the host is the question; hardware/device.py
sees one waiting in its chores, imports this and calls ``show``, which reads the byte,
prints the answer and takes this module out of RAM again: between asks it costs the
game nothing. (A module of its own, at the top of lib/, because ``state`` and ``show``
are names the loop's module holds anyway: the loop gains no name of its own for it.)

    state S... u... P[0] .. P[players - 1]    the referee's state, what is being
                                              entered, each seat's square
    state                                     a pure Klaxon (no referee)
"""

import sys

if __debug__:  # CPython needs const; the Express's mpy-cross -O3 drops this import
    from micropython import const

# The names of the numbers (lib/qiklaxon/layout.py; tests/test_names.py holds them to it)
_PLAYERS = const(0)


def show(r):
    """Answer one byte from the host with the whole state of referee ``r`` (None: a pure
    Klaxon), then leave RAM (the import left this module in sys.modules). A number at a
    time: no tuple of them all, no slice, in a heap the game may have nearly filled."""
    sys.stdin.read(1)
    print("state", end="")
    if r:
        for x in r.S:
            print("", x, end="")
        for x in r.u:
            print("", x, end="")
        for i in range(r.S[_PLAYERS]):
            print("", r.P[i], end="")
    print()
    sys.modules.pop("state", None)
