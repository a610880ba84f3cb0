"""The Klaxon's contact over time at its edges (issue 26's survivors in Device.poll): a
second press after a short release, a press held just past the stuck time, and
crackles on the wire long after the last press. Pin levels in, sounds and console
lines out, in simulated time, at several phases of the 1 ms loop."""

import pytest

from harness import Sim

PHASES_US = (0, 1, 300, 999)
REARM_MS = 30  # QK_REARM_MS's default: released this long, the Klaxon counts again


def klaxons_in(sim, start_ms, end_ms):
    return len([t for t, name in sim.sounds() if name == "klaxon" and start_ms <= t < end_ms])


def console(sim, word):
    return [(t, line) for t, line in sim.events if word in line]


@pytest.mark.parametrize("phase_us", PHASES_US)
def test_a_second_press_counts_once_the_klaxon_was_released_for_the_rearm_time(phase_us):
    """A player slams the Klaxon twice (a pure Klaxon: each press sounds). Released
    QK_REARM_MS (30 ms) or longer between the two, the second press sounds again;
    released 29 ms or less, it is the same press still bouncing: one klaxon."""
    sim = Sim(klaxon_only=True, phase_us=phase_us)
    gaps = range(REARM_MS - 3, REARM_MS + 4)
    for i, gap in enumerate(gaps):
        at = 100 + i * 400
        sim.press("klaxon", at, 100)
        sim.press("klaxon", at + 100 + gap, 100)
    sim.run_until_ms(100 + len(gaps) * 400)
    got = {gap: klaxons_in(sim, 100 + i * 400, 500 + i * 400) for i, gap in enumerate(gaps)}
    assert got == {gap: 2 if gap >= REARM_MS else 1 for gap in gaps}


@pytest.mark.parametrize("phase_us", PHASES_US)
def test_the_rearm_time_is_the_setting(phase_us):
    """QK_REARM_MS = 80: a release of 79 ms is still one press, 80 ms makes two."""
    sim = Sim("QK_REARM_MS = 80\n", klaxon_only=True, phase_us=phase_us)
    for i, gap in enumerate((79, 80)):
        sim.press("klaxon", 100 + i * 500, 100)
        sim.press("klaxon", 200 + gap + i * 500, 100)
    sim.run_until_ms(1100)
    assert (klaxons_in(sim, 100, 600), klaxons_in(sim, 600, 1100)) == (1, 2)


@pytest.mark.parametrize("phase_us", PHASES_US)
@pytest.mark.parametrize("hold_ms, stuck", [(1999, False), (2000, False), (2001, True),
                                            (2002, True)])
def test_held_past_the_stuck_time_says_stuck_and_cleared_once_released(phase_us, hold_ms, stuck):
    """QK_STUCK_S = 2: a press held 2 s is a long press; held 1 ms more it is a stuck
    Klaxon: the console says so once, the ring blinks purple, and 30 ms after the
    release the fault clears, the ring shows the table again. It sounded once."""
    sim = Sim("QK_STUCK_S = 2\n", players=4, phase_us=phase_us)
    sim.press("klaxon", 100, hold_ms)
    sim.run_until_ms(2105)
    ring_then = set(sim.scene())
    sim.run_until_ms(2400)
    lines = console(sim, "stuck") + console(sim, "released")
    if stuck:
        assert [line for _, line in lines] == [
            "fault: the Klaxon is stuck down; check its wiring",
            "fault cleared: the Klaxon is released"]
        assert lines[0][0] == 2103  # its debounced edge (3 ms after the contact), + 2 s
        assert 100 + hold_ms + REARM_MS - 2 <= lines[1][0] <= 100 + hold_ms + REARM_MS
        assert ring_then == {("purple", "fast")}
    else:
        assert lines == []
        assert ("purple", "fast") not in ring_then
    assert sim.scene()[0] == ("white", "steady")  # the QM's seat again
    assert [n for _, n in sim.sounds()] == ["klaxon"]  # (a try before the first question), once


@pytest.mark.parametrize("phase_us", PHASES_US)
def test_crackles_long_after_the_last_press_are_no_stuck_klaxon(phase_us):
    """The Klaxon untouched for longer than QK_STUCK_S, then crackles on its wire (each
    shorter than QK_GLITCH_MS): no sound, no stuck fault, the ring unchanged."""
    sim = Sim("QK_STUCK_S = 2\n", players=4, phase_us=phase_us)
    sim.run_until_ms(3000)
    before = sim.scene()
    t = 3_000_000
    for width_us in (200, 900, 1500, 1900):
        sim.level("klaxon", t, True)
        sim.level("klaxon", t + width_us, False)
        t += 50_000
    sim.run_until_us(t + 100_000)
    assert console(sim, "stuck") == [] and sim.sounds() == []
    assert sim.scene() == before
