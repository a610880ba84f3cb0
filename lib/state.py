"""The whole state on the console, for a host that asks (tools/scoreboard.py: the page
as a real board's scoreboard). A byte from the host is the question; hardware/device.py
sees one waiting in its chores, imports this and calls ``show``, which reads the byte,
prints the answer and takes this module out of RAM again: between asks it costs the
game nothing. (A module of its own, at the top of lib/, because ``state`` and ``show``
are names the loop's module holds anyway: the loop gains no name of its own for it.)

    state S... u... P[0] .. P[players - 1]    the referee's state, what is being
                                              entered, each seat's square
    state                                     a pure Klaxon (no referee)

then, while it lasts, the fault the board said when it began (a page that joins later
shows it too): the referee failed (a pure Klaxon until it is rebuilt), the Klaxon stuck.
"""

import sys

if __debug__:  # CPython needs const; the Express's mpy-cross -O3 drops this import
    from micropython import const

# The names of the numbers (lib/qiklaxon/layout.py; tests/test_names.py holds them to it)
_PLAYERS = const(0)
_STUCK = const(1)  # the Device's flags f: the Klaxon held down too long (or at power-on)
_FAULT = const(15)  # a fault: a pure Klaxon until its referee is rebuilt


def show(d):
    """Answer one byte from the host with the whole state of Device ``d``'s referee (None:
    a pure Klaxon) and its fault, then leave RAM (the import left this module in
    sys.modules). A number at a time: no tuple of them all, no slice, in a heap the game
    may have nearly filled."""
    sys.stdin.read(1)
    r = d.r
    print("state", end="")
    if r:
        for x in r.S:
            print("", x, end="")
        for x in r.u:
            print("", x, end="")
        for i in range(r.S[_PLAYERS]):
            print("", r.P[i], end="")
    print()
    if d.f[_FAULT]:
        print("fault: the referee failed (a pure Klaxon until it is rebuilt)")
    if d.f[_STUCK]:
        print("fault: the Klaxon is stuck down; check its wiring")
    sys.modules.pop("state", None)
