"""The whole state on the console for a host that asks (tools/maker/scoreboard.py) with a
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

# names: made by tools/gen/consts.py from model/layout.py (python3 tools/dev.py regen)
_PLAYERS = const(0)
_STUCK = const(1)
_FAULT = const(15)
# (end of the names)


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
