"""Every tap counts and no glitch sounds at every pass time and phase: the loop polls
back to back, so a board's pass is anything from ~50 µs to ~1 ms, and a contact starts
anywhere within a millisecond and anywhere between two passes (tools/quality/probes.py plays
them at arbitrary microseconds, not on the harness's 1 ms grid). Exact, in simulated
time; tools/quality/bench.py sweeps more phases and reports the margins.

Before these were written the firmware failed both: a 1.2 ms glitch sounded at a
108 µs pass (a 2-tick interval on 1 ms ticks filters only 1 ms), and a 12 ms press of
A was lost at half the phases of a 1 ms pass (A and B were sampled every 8th pass).
"""

import random

import pytest

import probes

PASSES = probes.PASS_TIMES_US


@pytest.mark.parametrize("pass_us", PASSES)
def test_no_glitch_under_2_ms_sounds_at_any_phase(pass_us):
    rng = random.Random(pass_us)
    widths = list(range(1000, 2000, 60)) + [1990]
    sounded = probes.glitches(pass_us, widths, rng, phases=12)
    assert sounded == {w: 0 for w in widths}


@pytest.mark.parametrize("pass_us", PASSES)
def test_a_contact_of_3_ms_more_than_the_glitch_limit_always_sounds(pass_us):
    rng = random.Random(pass_us + 1)
    sounded = probes.glitches(pass_us, [5000, 6000], rng, phases=12)
    assert sounded == {5000: 12, 6000: 12}


@pytest.mark.parametrize("pass_us", PASSES)
def test_every_a_press_of_10_ms_counts_at_any_phase(pass_us):
    rng = random.Random(pass_us + 2)
    counted = probes.taps(pass_us, [10_000, 12_000], rng, phases=12)
    assert counted == {10_000: 12, 12_000: 12}


@pytest.mark.parametrize("pass_us", PASSES)
def test_two_taps_10_ms_apart_are_two_taps_at_any_phase(pass_us):
    rng = random.Random(pass_us + 3)
    counted = probes.taps(pass_us, [10_000], rng, phases=12, gap_us=10_000)
    assert counted == {10_000: 12}


@pytest.mark.parametrize("pass_us", [108, 1000])
def test_b_presses_count_the_same_way(pass_us):
    rng = random.Random(9)
    counted = probes.taps(pass_us, [10_000], rng, phases=12, control="b", gap_us=10_000)
    assert counted == {10_000: 12}


def test_the_peers_rows_model_what_they_say():
    """The benchmark's peers on one small trace: the guide's 10 ms Debouncer never
    sounds a glitch and is slow; keypad's single 20 ms scan sounds some glitches; a
    first-edge trigger is fastest and sounds most of them; this firmware none."""
    from bench import _bounce

    table, n = probes.peers(random.Random(4), 200, _bounce)
    ours, guide, keypad, edge = (table[k] for k in table)
    assert ours[2] == 0 and ours[3] == 0 and ours[4] == 0
    assert guide[2] == 0 and guide[0] > 10 > ours[0]
    assert keypad[2] > 0 and edge[2] > n // 4 and edge[0] < 1


@pytest.mark.parametrize("pass_us", [50, 282, 1000])
def test_a_bouncing_press_counts_from_its_first_contact(pass_us):
    """5 ms of chatter after the contact (closed 0.4 ms, open 0.3 ms, ...): the klaxon
    starts over 2 ms after the contact, at the first pass after that which reads it
    closed, not 3 ms after the chatter ends (8 ms and more, as a debouncer waits)."""
    sim = probes.Sim(klaxon_only=True, pass_us=pass_us, phase_us=pass_us // 3)
    chatter = [300, 400] * 7
    for i in range(10):
        sim.press("klaxon", 100 + i * 400 + i * 0.137, 150, bounce_us=chatter)
    sim.run_until_ms(4200)
    starts = [t for t, name in sim._sounds if name == "klaxon"]
    assert len(starts) == 10
    late = sorted(s - (100 + i * 400 + i * 0.137) * 1000 for i, s in enumerate(starts))
    assert 2000 < late[0] and late[-1] < 6000 + pass_us
    assert late[5] <= 4000 + 2 * pass_us  # the median (waiting for it to settle: over 8 ms)


def test_a_burst_of_glitches_within_2_ms_in_all_never_sounds():
    rng = random.Random(5)
    for pass_us in (50, 108, 1000):
        sim = probes.Sim(klaxon_only=True, pass_us=pass_us, phase_us=rng.randrange(pass_us))
        t = 50_000
        for _ in range(40):
            edges = sorted(rng.sample(range(0, 1990), 6))  # three pulses within 1.99 ms
            for k in range(0, 6, 2):
                sim.level("klaxon", t + edges[k], True)
                sim.level("klaxon", t + edges[k + 1], False)
            t += 60_000
        sim.run_until_us(t)
        assert [n for _, n in sim._sounds] == []


@pytest.mark.parametrize("pass_us", [77, 333, 999])
def test_a_button_pressed_just_after_the_klaxon_counts_after_it(pass_us):
    """Seat 2's turn (seat 1 answered): the Klaxon at 1000.0 ms and A 0.3 to 3.9 ms after
    it. The Klaxon was first: seat 2 challenges seat 1; A is never seat 2's answer."""
    for after_us in (300, 1000, 2000, 3000, 3900):
        sim = probes.Sim(players=4, pass_us=pass_us, phase_us=pass_us // 2)
        sim.press("b", 100, 80)  # ask
        sim.press("a", 500, 80)  # seat 1 answers
        sim.level("klaxon", 1_000_000, True)
        sim.level("klaxon", 1_120_000, False)
        sim.level("a", 1_000_000 + after_us, True)
        sim.level("a", 1_000_000 + after_us + 80_000, False)
        sim.run_until_ms(2000)
        (_, k), = sim.named("klaxon")
        assert k == {"challenger": 2, "challenged": 1}, (after_us, sim.events)


@pytest.mark.parametrize("pass_us", [77, 333, 999])
def test_a_button_pressed_before_the_klaxon_counts_first(pass_us):
    for before_us in (4500, 8000, 20_000):
        sim = probes.Sim(players=4, pass_us=pass_us, phase_us=pass_us // 2)
        sim.press("b", 100, 80)  # ask
        sim.press("a", 500, 80)  # seat 1 answers
        sim.level("a", 1_000_000 - before_us, True)  # seat 2 answers, and then...
        sim.level("a", 1_000_000 - before_us + 80_000, False)
        sim.level("klaxon", 1_000_000, True)  # ... seat 3 challenges seat 2
        sim.level("klaxon", 1_120_000, False)
        sim.run_until_ms(2000)
        (_, k), = sim.named("klaxon")
        assert k == {"challenger": 3, "challenged": 2}, (before_us, sim.events)


@pytest.mark.parametrize("pass_us", [50, 333, 999, 1000])
def test_a_clean_contact_3_ms_longer_than_the_glitch_limit_always_sounds(pass_us):
    """Over 3 ticks from its first reading, plus up to a pass either side: 5 ms."""
    rng = random.Random(pass_us + 11)
    assert probes.glitches(pass_us, [5000], rng, phases=40) == {5000: 40}


@pytest.mark.parametrize("pass_us", [77, 333, 999])
def test_a_spike_on_a_at_the_klaxon_is_no_answer(pass_us):
    """Crosstalk: slamming the Klaxon puts a 0.1-0.5 ms spike on A's wire just before or
    with its contact. One reading of A is no press: seat 2 challenges seat 1."""
    rng = random.Random(pass_us)
    for _ in range(40):
        sim = probes.Sim(players=4, pass_us=pass_us, phase_us=rng.randrange(pass_us))
        sim.press("b", 100, 80)  # ask
        sim.press("a", 500, 80)  # seat 1 answers
        k = 1_000_000 + rng.randrange(1000)
        spike = k - rng.randrange(0, 600)
        sim.level("a", spike, True)
        sim.level("a", spike + rng.randrange(100, 500), False)
        sim.level("klaxon", k, True)
        sim.level("klaxon", k + 120_000, False)
        sim.run_until_ms(1600)
        (_, got), = sim.named("klaxon")
        assert got == {"challenger": 2, "challenged": 1}, (k, spike, sim.events)


@pytest.mark.parametrize("after_us", [20, 300, 950])
def test_a_press_just_after_the_klaxon_in_the_same_pass_counts_after_it(after_us):
    """At a 999 us pass the Klaxon's first reading and A's may fall in one pass: the
    Klaxon still counts first (A is read down at the Klaxon's tick, not before it)."""
    for phase in range(0, 999, 111):
        sim = probes.Sim(players=4, pass_us=999, phase_us=phase)
        sim.press("b", 100, 80)
        sim.press("a", 500, 80)
        sim.level("klaxon", 1_000_000, True)
        sim.level("klaxon", 1_120_000, False)
        sim.level("a", 1_000_000 + after_us, True)
        sim.level("a", 1_080_000 + after_us, False)
        sim.run_until_ms(1600)
        (_, got), = sim.named("klaxon")
        assert got == {"challenger": 2, "challenged": 1}, (phase, sim.events)


@pytest.mark.parametrize("pass_us", [77, 333])
def test_the_waking_press_s_release_chatter_is_no_second_klaxon(pass_us):
    """Woken by the Klaxon, the board counts that press once; its release chattering
    just as code.py starts is not a new press (the release must hold 30 ms first)."""
    for hold in (1299_000, 1299_750, 1300_000, 1300_250):
        sim = probes.Sim("QK_SLEEP_MIN = 1\n", klaxon_only=True, pass_us=pass_us)
        sim.run_until_ms(70_000)
        sim.press("klaxon", 80_000, hold / 1000, release_bounce_us=[300, 700] * 4)
        sim.run_until_ms(84_000)
        assert sim.slept == 1
        assert [n for _, n in sim._sounds].count("klaxon") == 1, (hold, sim.events)


def test_a_wall_clock_budget_over_on_a_busy_machine_is_reported_not_a_gate_in_the_test_command():
    """The test command's quick bench (and so the README's test command and CI): a row
    timed by this machine's wall clock (the real browser's load and latencies) that a
    loaded machine pushes over is reported, never failing the run (a fresh clone's test
    command failed on a 3.1 s page load at load 12); the full bench still fails on it, and
    a row in simulated or emulated time fails either way."""
    import bench

    assert bench.verdict(False, wall=True, quick=True) == bench.WALL_OVER
    assert bench.verdict(False, wall=True, quick=False) == "OVER"
    assert bench.verdict(False, wall=False, quick=True) == "OVER"
    assert bench.verdict(True, wall=True, quick=True) == "ok"
    assert bench.verdict(None) == "info"
