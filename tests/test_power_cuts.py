"""The saved game against power cuts at every flash operation of every save, per board."""

import random

import pytest

from flashsim import FlashSim, PowerCut
from qiklaxon import Game
from qiklaxon.journal import LOG, PINGPONG, Journal, crc16, record

LAYOUT = {"rp2040": LOG, "nrf52840": PINGPONG, "samd21": PINGPONG}


def game_states(n, seed=5):
    """Distinct encoded states of a game played by ``n`` random actions."""
    rng = random.Random(seed)
    g = Game(6, finish=None)
    states = [g.to_bytes()]
    while len(states) < n:
        action = rng.choice(["roll", "ask", "answer", "answer", "pass_", "klaxon", "reveal", "move"])
        try:
            if action == "roll":
                g.roll(rng.randint(1, 6), rng.randint(1, 6), rng.randint(1, 6))
            elif action == "reveal":
                g.reveal([s for s in range(6) if g.mark(s) == 1 and rng.random() < 0.5])
            elif action == "move":
                g.move(rng.randrange(6), rng.randint(-9, 9))
            else:
                getattr(g, action)()
        except ValueError:
            continue
        if g.to_bytes() != states[-1]:
            states.append(g.to_bytes())
    return states


def cut_every_op(board, states, double_every=0):
    """Save each state; before each save, try a power cut at every operation of it."""
    flash = FlashSim(board, seed=1)
    outcomes = {"new": 0, "previous": 0, "lost": 0, "cuts": 0, "double": 0}
    previous = None
    for i, state in enumerate(states):
        snapshot = bytes(flash.mem)
        ops = len(flash.plan(*_next_write(flash, board, state)))
        for k in range(ops):
            flash.mem[:] = snapshot
            flash.cut_after(k)
            try:
                Journal(flash, LAYOUT[board]).save(state)
            except PowerCut:
                pass
            outcomes["cuts"] += 1
            if double_every and k % double_every == 0:  # the power goes again during the retry
                flash.cut_after(k // 2)
                try:
                    Journal(flash, LAYOUT[board]).save(state)
                except PowerCut:
                    pass
                outcomes["double"] += 1
            flash.cut_after(None)
            got = Journal(flash, LAYOUT[board]).payload  # the reboot
            if got == state:
                outcomes["new"] += 1
            elif got == previous:
                outcomes["previous"] += 1
            else:
                assert got is None, "restored a game that was never saved last (save %d, cut %d)" % (i, k)
                outcomes["lost"] += 1
        flash.mem[:] = snapshot
        assert Journal(flash, LAYOUT[board]).save(state) or state == previous
        assert Journal(flash, LAYOUT[board]).payload == state  # and play goes on
        previous = state
    return outcomes, flash


def _next_write(flash, board, state):
    """(start, data) of the nvm write the next save will make, for counting its operations."""
    j = Journal(flash, LAYOUT[board])
    size = len(flash)
    rec = record((j.seq + 1) & 0xFFFF, state)
    if LAYOUT[board] == PINGPONG:
        return (size // 2 if j._at == 0 and j.seq >= 0 else 0), rec
    if j._end + len(rec) <= size:
        return j._end, rec
    return 0, rec + b"\xff" * (size - len(rec))


@pytest.mark.parametrize("board, saves", [("rp2040", 190), ("nrf52840", 40), ("samd21", 60)])
def test_power_cut_at_every_operation_restores_the_last_or_previous_save(board, saves):
    outcomes, flash = cut_every_op(board, game_states(saves), double_every=3)
    assert outcomes["cuts"] > saves
    if board == "nrf52840":
        assert outcomes["lost"] == 0  # two pages: an erase never takes both copies
    if board == "rp2040":
        # only a cut during a compaction's erase loses the game: once per filled sector
        assert 0 < outcomes["lost"] <= 2 * (flash.erases[0] + 1)
    print(board, outcomes, "erases per unit:", flash.erases)


def test_rp2040_log_appends_without_erasing_until_full():
    flash = FlashSim("rp2040")
    j = Journal(flash, LOG)
    states = game_states(120)
    for s in states:
        j.save(s)
    assert flash.erases == [0]  # ~30-byte records: 120 fit in the erased sector
    for s in game_states(200, seed=9):
        j.save(s)
    assert flash.erases[0] >= 1 and Journal(flash, LOG).payload == j.payload


def test_saves_that_change_nothing_write_nothing():
    flash = FlashSim("nrf52840")
    j = Journal(flash, PINGPONG)
    state = Game(4).to_bytes()
    assert j.save(state) is True
    ops = flash.ops
    assert j.save(state) is False and flash.ops == ops


@pytest.mark.parametrize("garbage", [b"", b"\x00" * 4096, bytes(range(256)) * 16, b"QQQQ" * 1024])
def test_empty_or_foreign_store_loads_nothing_and_then_saves(garbage):
    flash = FlashSim("rp2040")
    flash.mem[:len(garbage)] = garbage
    j = Journal(flash, LOG)
    assert j.payload is None
    j.save(b"abc")
    assert Journal(flash, LOG).payload == b"abc"


def test_sequence_numbers_wrap():
    flash = FlashSim("nrf52840")
    j = Journal(flash, PINGPONG)
    j.seq = 0xFFFE
    for payload in (b"a", b"b", b"c"):
        j.save(payload)
    assert Journal(flash, PINGPONG).payload == b"c"


def test_crc_is_ccitt_false():
    assert crc16(b"123456789") == 0x29B1
