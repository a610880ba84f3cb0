"""Where the saves go in nvm, over many saves and power-ups: the newest always resumes,
whatever the saves' 16-bit numbers have come to, and a Pico's append log fills its flash
sector before it erases it (an erase is the one step a power cut can lose a game in:
test_power_cuts.py), switched off and on between saves or not.

``Referee.save`` writes (qiklaxon/save.py); ``restore.find`` and ``restore.load`` read
back at power-up (qiklaxon/restore.py); tools/simulated/simboard/flashsim.py is each chip's nvm."""

import pytest

from flashsim import FlashSim, PowerCut
from harness import Sim
from model import layout as Y
from qiklaxon import restore
from model.game import Game
from test_power_cuts import LOG, reboot, state

SECTOR = 4096  # the RP2040's nvm: one flash sector


def _act(g, i):
    """The ``i``th action of a game that asks, answers and passes round the table."""
    if g.phase == "idle":
        g.ask()
    elif g.phase == "answering":
        g.answer() if i % 3 else g.pass_()
    else:
        g.reveal([s for s in range(g.players) if g.mark(s) == 1][:1])


def _saves_resume(board, firsts, saves=6):
    """A board that has saved ``first - 1`` times already (each of ``firsts``): save,
    switch off and on, play on, save, ...; each power-up resumes the game as last saved."""
    for first in firsts:
        flash = FlashSim(board)
        g = Game(6)
        g.core.j = restore.find(flash, LOG[board])[0]
        g.core.j[Y.J_SEQ] = first - 1
        for i in range(saves):
            _act(g, i)
            g.core.save()
            r = reboot(flash, board)
            assert r is not None and state(r) == state(g.core), (board, first, i)
            g = Game.__new__(Game)  # play on with the game the board resumed
            g.core, g.refusal = r, None


def test_after_256_saves_and_more_each_power_up_resumes_the_newest():
    """The saves' numbers are 16 bits: past 255 the high byte counts too."""
    _saves_resume("rp2040", (0x00FE, 0x01FF))


def test_a_picos_log_resumes_the_newest_whatever_the_saves_numbers():
    """As the numbers pass 32,767 and 65,535 (then 0), and everywhere between."""
    _saves_resume("rp2040", (0x3FFE, 0x7FFD, 0x80FE, 0xBFFF, 0xFFFD))


def test_ping_pong_nvm_resumes_the_newest_whatever_the_saves_numbers():
    """The Bluefruit's and the Express's two halves, as the numbers pass 255, 32,767 and
    65,535."""
    _saves_resume("nrf52840", (0x01FF, 0x7FFD, 0xFFFD))
    _saves_resume("samd21", (0x00FE, 0x3FFE, 0x80FE, 0xBFFF))


def _saves_until_full(flash, g, reboots):
    """Save ``g`` after each action (with a power-up between saves if ``reboots``) until
    a save erases the sector: [(bytes the log had in use before that save, its record's
    bytes, erased?)] of every save."""
    out = []
    used = 0
    i = 0
    while not flash.erases[0]:
        _act(g, i)
        i += 1
        if reboots or g.core.j is None:
            g.core.j = restore.find(flash, True)[0]
        size = Y.R_MORE + Y.BODY_LOG + g.core.n
        g.core.save()
        out.append((used, size, bool(flash.erases[0])))
        used += size
    assert state(reboot(flash, "rp2040")) == state(g.core)
    return out


@pytest.mark.parametrize("reboots", [False, True])
def test_a_picos_log_erases_its_sector_only_when_the_next_save_does_not_fit(reboots):
    """Each save appends its record where the last one ended, gap-free, also after the
    board was switched off and on: the sector is erased by the first save that does not
    fit in what is left of it, and by no save before."""
    saves = _saves_until_full(FlashSim("rp2040"), Game(10), reboots)
    assert len(saves) > 30
    for used, size, erased in saves:
        assert erased == (used + size > SECTOR), (used, size, erased)


def _nearly_full(over):
    """A Pico's sector holding saves of a game with nothing in its log (47 bytes each)
    until less than two are left, and a game whose record is ``over`` bytes more than
    what is left (0: it ends at the sector's last byte). Returns (nvm, old, new)."""
    flash = FlashSim("rp2040")
    old = Game(4)
    old.core.j = restore.find(flash, True)[0]
    empty = Y.R_MORE + Y.BODY_LOG
    for _ in range(SECTOR // empty - 1):
        old.core.save()
    tail = old.core.j[Y.J_TAIL]
    new = Game(4)
    while empty + new.core.n < SECTOR - tail + over:  # a byte an action:
        new.ask() if new.phase == "idle" else new.pass_()  # questions everyone passes
    assert tail + empty + new.core.n == SECTOR + over
    new.core.j = restore.find(flash, True)[0]
    return flash, old, new


def test_a_save_that_ends_at_the_sectors_last_byte_resumes():
    """Saves of a game with nothing in its log, then one of a game whose record ends
    exactly at the sector's last byte: no erase, and power-up resumes that last one."""
    flash, old, new = _nearly_full(0)
    new.core.save()
    assert flash.erases == [0] and flash.mem[-1] == 0  # it ends at the last byte
    assert state(reboot(flash, "rp2040")) == state(new.core) != state(old.core)


@pytest.mark.parametrize("over", [1, 13])
def test_a_save_a_few_bytes_too_long_for_the_sectors_rest_erases_it_first(over):
    """The next record does not fit in what is left, by a byte or a few: the sector is
    erased and the record written at its start; power-up resumes it."""
    flash, old, new = _nearly_full(over)
    new.core.save()
    assert flash.erases == [1] and new.core.j[Y.J_AT] == 0
    assert state(reboot(flash, "rp2040")) == state(new.core) != state(old.core)


@pytest.mark.parametrize("act", [1, 2])
def test_after_a_power_up_the_next_save_appends_and_erases_nothing(act):
    """A save (its record ending at an odd or an even byte), the power off and on, then
    another save: it goes after the first, in the erased tail, with no erase."""
    flash = FlashSim("rp2040")
    g = Game(4)
    g.core.j = restore.find(flash, True)[0]
    for i in range(act):
        _act(g, i)
    g.core.save()
    g.core.j = restore.find(flash, True)[0]
    _act(g, act)
    g.core.save()
    assert flash.erases == [0] and state(reboot(flash, "rp2040")) == state(g.core)


def test_a_picos_saves_across_power_ups_append_to_its_log():
    """On the board: an action and its save, switched off and on, three times: each
    power-up resumes the last, and the flash sector is never erased (the board reads
    its nvm as the log it is)."""
    sim = Sim(players=4, board_name="pico")
    for question in range(3):
        sim.run_until_ms(10)
        sim.game.ask() if sim.game.phase == "idle" else sim.game.pass_()
        sim.device.r.save()
        want = state(sim.device.r)
        sim = Sim(players=4, board_name="pico", nvm=sim.nvm)
        assert state(sim.device.r) == want, question
    assert sim.nvm.erases == [0]


def test_ping_pong_a_save_cut_after_a_power_up_keeps_the_game_saved_before():
    """The Bluefruit's two halves: a save, the power off and on, then the next save cut
    by the power part-way: power-up resumes the first save (the cut save went to the
    other half)."""
    flash = FlashSim("nrf52840")
    g = Game(4)
    g.core.j = restore.find(flash, False)[0]
    g.ask()
    g.core.save()
    first = state(g.core)
    g.core.j = restore.find(flash, False)[0]
    g.answer()
    flash.cut_after(0)  # the power goes during the save's first operation
    with pytest.raises(PowerCut):
        g.core.save()
    flash.cut_after(None)
    assert state(reboot(flash, "nrf52840")) == first


def test_going_to_sleep_writes_no_save_when_nothing_changed_since_the_last():
    """An action, its save a second later, then an idle minute: the board goes to
    sleep without writing its flash again (each write wears it; sleep saves only a
    change still waiting for its save: tests/test_power.py)."""
    sim = Sim("QK_SLEEP_MIN = 1\n", players=4, board_name="pico", coarse=True)
    sim.tap("b", 100)  # ask
    sim.run_until_ms(3000)
    written = sim.nvm.ops
    assert written and state(reboot(sim.nvm, "rp2040")) == state(sim.device.r)  # saved
    sim.run_until_ms(70_000)
    assert sim.slept == 1 and sim.nvm.ops == written
