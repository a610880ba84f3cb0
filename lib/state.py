"""The whole state on the console for a host that asks (tools/scoreboard.py) with a
byte: device.py's chores import this and call ``show``, which answers and leaves RAM,
so between asks it costs nothing. (At the top of lib/: ``state`` and ``show`` are
names the loop holds anyway, so it gains none.)

    state S... u... P[0] .. P[players - 1] C  the referee's state, what is being
                                              entered, each seat's square, and C, the
                                              sum of the numbers before it
    state                                     a pure Klaxon (no referee)

C lets the host tell a line that lost or changed a digit on a noisy cable from the
board's, and ask again (a sum: a local and one add a number, nothing more in RAM).

then, while it lasts, the fault (for a page that joins later): the referee failed,
the Klaxon stuck.
"""

import sys

if __debug__:  # CPython needs const; the Express's mpy-cross -O3 drops this import
    from micropython import const

# The names of the numbers: made by tools/consts.py from lib/qiklaxon/layout.py (edit there,
# then: python3 tools/dev.py regen). The names this module uses, at no RAM cost.
# The referee's state: Referee.S (bytearray), and B, its copy before the log
_PLAYERS = const(0)  # players (2..10)
# Flags and small values (Device.f, bytearray)
_STUCK = const(1)  # the Klaxon is held down too long (or was at power-on)
_FAULT = const(15)  # a fault: a pure Klaxon until t[FT] + 5 s (OUT_OF_MEMORY: then a fresh heap)
# (end of the made names)


def show(d):
    """Answer the host's byte with Device ``d``'s state and fault, then leave RAM. A
    number at a time: no tuple or slice in a heap the game may have nearly filled."""
    sys.stdin.read(1)
    r = d.r
    print("state", end="")
    if r:
        c = 0
        for x in r.S:
            print("", x, end="")
            c += x
        for x in r.u:
            print("", x, end="")
            c += x
        for i in range(r.S[_PLAYERS]):
            print("", r.P[i], end="")
            c += r.P[i]
        print("", c, end="")
    print()
    if d.f[_FAULT]:
        print("fault: the referee failed (a pure Klaxon until it is rebuilt)")
    if d.f[_STUCK]:
        print("fault: the Klaxon is stuck down; check its wiring")
    sys.modules.pop("state", None)
