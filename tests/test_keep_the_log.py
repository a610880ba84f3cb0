"""Where the saves go in nvm, over many saves and power-ups: the newest always resumes,
whatever the saves' 16-bit numbers have come to, and a Pico's append log fills its flash
sector before it erases it (an erase is the one step a power cut can lose a game in:
test_power_cuts.py), switched off and on between saves or not.

``Referee.save`` writes (qiklaxon/save.py); ``restore.find`` and ``restore.load`` read
back at power-up (qiklaxon/restore.py); tools/simboard/flashsim.py is each chip's nvm."""

import pytest

from flashsim import FlashSim
from harness import Sim
from qiklaxon import layout as Y
from qiklaxon import restore
from qiklaxon.game import Game
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


def test_a_save_that_ends_at_the_sectors_last_byte_resumes():
    """Saves of a game with nothing in its log (47 bytes each), then one of a game whose
    record ends exactly at the sector's last byte: power-up resumes that last one."""
    flash = FlashSim("rp2040")
    old = Game(4)
    old.core.j = restore.find(flash, True)[0]
    empty = Y.R_MORE + Y.BODY_LOG
    for _ in range(SECTOR // empty - 1):
        old.core.save()
    tail = old.core.j[Y.J_TAIL]
    new = Game(4)
    while Y.R_MORE + Y.BODY_LOG + new.core.n < SECTOR - tail:  # a byte an action:
        new.ask() if new.phase == "idle" else new.pass_()  # questions everyone passes
    assert tail + Y.R_MORE + Y.BODY_LOG + new.core.n == SECTOR
    new.core.j = restore.find(flash, True)[0]
    new.core.save()
    assert flash.erases == [0] and flash.mem[-1] == 0  # it ends at the last byte
    assert state(reboot(flash, "rp2040")) == state(new.core) != state(old.core)


def test_going_to_sleep_writes_no_save_when_nothing_changed_since_the_last():
    """An action, its save a second later, then an idle minute: the board goes to
    sleep without writing its flash again (each write wears it; sleep saves only a
    change still waiting for its save: tests/test_power.py)."""
    sim = Sim("QK_SLEEP_MIN = 1\n", players=4, board_name="pico", coarse=True)
    sim.tap("b", 100)  # ask
    sim.run_until_ms(3000)
    written = sim.nvm.ops
    assert written and sim.device.r.j[Y.J_SEQ] == 0  # saved, once
    sim.run_until_ms(70_000)
    assert sim.slept == 1 and sim.nvm.ops == written
