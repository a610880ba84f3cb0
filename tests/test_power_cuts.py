"""The saved game against power cuts at every flash operation of every save, per board.

The board saves with ``Referee.save`` (qiklaxon/core.py) and reads back with
``restore.find`` and ``restore.load`` (qiklaxon/restore.py); tools/simulated/simboard/flashsim.py
models each chip's nvm writes and cuts the power part-way through any one of them.
"""

import random

import pytest

from flashsim import FlashSim, PowerCut
from qiklaxon import restore
from qiklaxon.core import Referee, check
from model.game import Game
from model import layout  # noqa: E402  (the slots' names)

LOG = {"rp2040": True, "nrf52840": False, "samd21": False}  # as the profiles say


def played(n, seed=5, players=6):
    """A game and ``n`` random accepted actions, one at a time: yields the game."""
    rng = random.Random(seed)
    g = Game(players)
    done = 0
    while done < n:
        action = rng.choice(["roll", "ask", "answer", "answer", "pass_", "klaxon", "reveal",
                             "move", "undo"])
        try:
            if action == "roll":
                g.roll(rng.randint(1, 6), rng.randint(1, 6), rng.randint(1, 6))
            elif action == "reveal":
                g.reveal([s for s in range(players) if g.mark(s) == 1 and rng.random() < 0.5])
            elif action == "move":
                g.move(rng.randrange(players), rng.choice([-9, -2, 1, 4, 12]))
            elif action == "undo":
                if not g.undo():
                    continue
            elif action == "klaxon":
                if g.klaxon() is None:
                    continue
            else:
                getattr(g, action)()
        except ValueError:
            continue
        done += 1
        yield g


def state(r):
    """What the table sees of referee ``r``: its state and positions."""
    return bytes(r.S), list(r.P)


def reboot(flash, board):
    """Power on again: the referee restore.py would make, or None (no valid record)."""
    j, saved = restore.find(flash, LOG[board])
    if saved is None:
        return None
    r = Referee(6)
    r.j = j
    assert restore.load(r, saved), "a record that passes its check must load"
    return r


def cut_every_op(board, saves, double_every=0):
    """Save after each action; before each save, a power cut at every operation of it."""
    flash = FlashSim(board, seed=1)
    outcomes = {"new": 0, "previous": 0, "lost": 0, "cuts": 0, "double": 0}
    previous = None
    for i, g in enumerate(played(saves)):
        r = g.core
        if r.j is None:
            r.j = restore.find(flash, LOG[board])[0]
        snapshot, j = bytes(flash.mem), list(r.j)
        before = flash.ops
        r.save()
        ops = flash.ops - before
        for k in range(ops):
            flash.mem[:] = snapshot
            r.j[:] = j
            flash.cut_after(k)
            try:
                r.save()
            except PowerCut:
                pass
            outcomes["cuts"] += 1
            if double_every and k % double_every == 0:  # the power goes again during the retry
                flash.cut_after(k // 2)
                r.j[:] = restore.find(flash, LOG[board])[0]  # as the board sees it after the cut
                try:
                    r.save()
                except PowerCut:
                    pass
                outcomes["double"] += 1
            flash.cut_after(None)
            got = reboot(flash, board)
            if got is not None and state(got) == state(r):
                outcomes["new"] += 1
            elif got is not None and state(got) == previous or got is None and previous is None:
                outcomes["previous"] += 1  # (before the first save: a fresh game, as it was)
            else:
                assert got is None, "restored a game never saved last (save %d, cut %d)" % (i, k)
                outcomes["lost"] += 1
        flash.mem[:] = snapshot
        r.j[:] = j
        r.save()
        assert state(reboot(flash, board)) == state(r)  # and play goes on
        previous = state(r)
    return outcomes, flash


@pytest.mark.parametrize("board, saves", [("rp2040", 190), ("nrf52840", 40), ("samd21", 60)])
def test_power_cut_at_every_operation_restores_the_last_or_previous_save(board, saves):
    outcomes, flash = cut_every_op(board, saves, double_every=3)
    assert outcomes["cuts"] > saves
    if board == "nrf52840":
        assert outcomes["lost"] == 0  # two pages: an erase never takes both copies
    if board == "rp2040":
        # only a cut during a compaction's erase loses the game: once per filled sector
        assert 0 < outcomes["lost"] <= 2 * (flash.erases[0] + 1)
    print(board, outcomes, "erases per unit:", flash.erases)


def test_undo_history_survives_a_power_cycle():
    flash = FlashSim("rp2040")
    g = Game(4)
    g.core.j = restore.find(flash, True)[0]
    g.ask()
    g.answer()
    g.pass_()
    g.klaxon()
    g.core.save()
    r = reboot(flash, "rp2040")
    h = Game.__new__(Game)
    h.core, h.refusal = r, None
    assert (h.phase, h.challenger, h.challenged) == ("reveal", 3, 1)
    assert h.undo() and h.phase == "answering" and h.answering == 3  # the Klaxon undone
    assert h.undo() and h.answering == 2  # the pass
    assert h.undo() and h.undo() and h.phase == "idle"  # the answer, the ask
    assert not h.undo()


def test_rp2040_log_appends_without_erasing_until_full():
    flash = FlashSim("rp2040")
    r = None
    for g in played(40):
        r = g.core
        r.j = r.j or restore.find(flash, True)[0]
        r.save()
    assert flash.erases == [0]  # 40 records of ~50 bytes fit in the erased sector
    for _ in range(120):
        r.save()
    assert flash.erases[0] >= 1 and state(reboot(flash, "rp2040")) == state(r)


@pytest.mark.parametrize("garbage", [b"", b"\x00" * 4096, bytes(range(256)) * 16, b"QQQQ" * 1024,
                                     b"Q\x00\x01\x05" * 1024])
def test_empty_or_foreign_store_loads_nothing_and_then_saves(garbage):
    flash = FlashSim("rp2040")
    flash.mem[:len(garbage)] = garbage
    assert reboot(flash, "rp2040") is None
    g = Game(6)
    g.core.j = restore.find(flash, True)[0]
    g.ask()
    g.core.save()
    assert state(reboot(flash, "rp2040")) == state(g.core)


def test_a_record_that_checks_but_does_not_replay_is_refused():
    r = Referee(4)
    r.n = 2
    r.L[0:2] = b"\x05\x00"  # a Klaxon between questions: the rules refuse it
    rec = bytearray([2]) + r.B + bytes(20) + bytes(r.L[:2])
    assert not restore.load(Referee(4), bytes(rec))
    bad = bytearray(rec)
    bad[1] = 11  # eleven players
    assert not restore.load(Referee(4), bytes(bad))


def test_sequence_numbers_wrap():
    flash = FlashSim("nrf52840")
    g = Game(4)
    g.core.j = restore.find(flash, False)[0]
    g.core.j[layout.J_SEQ] = 0xFFFE
    for _ in range(3):
        g.ask() if g.phase == "idle" else g.answer()
        g.core.save()
    assert state(reboot(flash, "nrf52840")) == state(g.core)


def test_check_is_fletcher_16():
    assert check(b"abcde", 5) == 0xC8F0
