"""The referee's overlays in RAM (core.py's ``more``): on the Express every loaded module's
bytecode is heap, so the referee holds only the overlay the table's state needs now, keeps
it loaded while that lasts (a reload per key would cost a load from flash and fragment the
heap), and on a nearly full heap collects the garbage before an overlay loads.

What is "in RAM" here is what the runtime holds: the module in ``sys.modules`` and as an
attribute of the ``qiklaxon`` package (either keeps its bytecode alive)."""

import gc
import sys

import qiklaxon
from model import Game
from table_keys import A, A_2S, B, B_2S, B_HELD, said, start_moving_a_piece, walk_on

OVERLAYS = ("undo", "reveal", "entry", "over", "save", "seats")
K = 0  # the Klaxon


def held():
    """The overlays the runtime holds: {name: module}, from sys.modules and the package."""
    loaded = {n: sys.modules["qiklaxon." + n] for n in OVERLAYS if "qiklaxon." + n in sys.modules}
    bound = {n for n in OVERLAYS if n in vars(qiklaxon)}
    assert set(loaded) == bound, "sys.modules holds %s, the package %s" % (sorted(loaded),
                                                                         sorted(bound))
    return loaded


# (key, the overlays held after it, what the table is doing)
GAME = [
    (A, "", "the QM rolls"),
    (B, "", "asks"),
    (A, "", "seat 1 answers"),
    (B, "", "seat 2 passes"),
    (K, "", "seat 3 challenges seat 1"),
    (A, "reveal", "the reveal: seat 1 right"),
    (B, "reveal", "seat 3 wrong: its Klaxon penalty is entered"),
    (A, "reveal", "penalty 1"),
    (B, "", "done: the outcome, between questions"),
    (B_HELD, "reveal", "undo: back into the reveal, its penalty count open"),
    (B, "", "done again"),
    (A_2S, "entry", "moving a piece: the seat offered"),
    (A, "entry", "walk one seat on"),
    (B, "entry", "forward: the count"),
    (A, "entry", "one square"),
    (B, "", "moved"),
    (B_HELD, "", "undo the move"),
    ("save", "save", "the game saved"),
    (B, "", "ask"),
    (B_2S, "", "end the game during the question"),
    (B_2S, "over", "set up a new game: its players"),
    (A, "over", "one more player"),
    (B_2S, "over", "leave the set-up: the end shows"),
    (B_2S, "over", "set up again"),
    (B, "over", "on to the first QM"),
    (B, "", "start it"),
    (B_2S, "over", "before its first question: set up another"),
    (A, "over", "one more player"),
    (B, "over", "on to the first QM"),
    (B, "", "start it"),
]


def test_the_referee_holds_only_the_overlay_the_table_needs_and_keeps_it_while_needed():
    """Through a game that uses every overlay: after each key the runtime holds exactly
    the overlay the state needs (the reveal's during the reveal, entry.py's while a piece
    is moved, over.py's while the end shows or a game is set up; none between questions,
    undo.py's and save.py's never after their action), and the same module, not a fresh
    load, for as long as it is needed."""
    from flashsim import FlashSim
    from qiklaxon import restore

    g = Game(4)
    r = g.core
    r.dice = lambda lo, hi: 2
    r.j = restore.find(FlashSim("rp2040"), True)[0]
    r.more()  # (whatever an earlier test left loaded goes, as at the table's first key)
    assert held() == {}
    before = {}
    for key, want, what in GAME:
        if key == "save":
            r.save()
        else:
            said(r, key)
        now = held()
        assert sorted(now) == sorted(want.split()), "%s: holds %s" % (what, sorted(now))
        for name in set(now) & set(before):
            assert now[name] is before[name], "%s: %s loaded again" % (what, name)
        before = now
    assert (g.phase, g.players) == ("idle", 5)


def test_on_a_nearly_full_heap_the_garbage_goes_before_an_overlay_loads(monkeypatch):
    """A runtime that reports its free heap (CircuitPython's gc.mem_free): with less than
    4 KB free, an overlay's load collects the garbage first, once, so that its bytecode
    gets whole runs of free blocks; with 4 KB or more, or with the overlay already
    loaded, no collection (each costs milliseconds on the board)."""
    real = gc.collect
    made = []
    monkeypatch.setattr(gc, "collect", lambda *a: made.append(1) or real(*a))
    for free, collections in ((1000, 1), (4095, 1), (4096, 0), (20000, 0)):
        g = Game(4, qm=1)
        r = g.core
        r.more()
        monkeypatch.setattr(gc, "mem_free", lambda free=free: free, raising=False)
        del made[:]
        lines = start_moving_a_piece(r)  # entry.py loads
        assert (len(made), lines) == (collections, ["seat 1"]), free
        lines = walk_on(r, 2)  # entry.py is loaded: no collection
        assert (len(made), lines) == (collections, ["seat 2", "seat 3"]), free
